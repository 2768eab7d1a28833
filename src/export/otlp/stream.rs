//! The mapping, incrementally: events arrive one at a time while a proxy records, and each span
//! leaves as soon as it is complete (a request once its answer is recorded, a chat once the
//! model answered, an `execute_tool` once the server answered the call).
//!
//! There is one mapping ([`super::map`]); this runs it over a window of events instead of the
//! whole trace. After each pass the window keeps only what the spans still in flight are made
//! of (each says which events: its request, the request it nests in, the notifications that are
//! its events, the leg it retries, the exchange and the turn's calls of an `execute_tool`), and
//! what later events are read against: each server's latest `initialize` pair and process
//! event, and the latest `input_required` leg of each operation. Everything else was mapped
//! and leaves the window, so a pass costs the events since the last one plus the few in flight,
//! and the live export costs about what the file's export costs. Span ids are hashes of what
//! identifies a span, not of its place in the window, so a span mapped live has the id the
//! file's export gives it; a span already handed out and mapped again (its events kept as
//! another span's context) is remembered by id and not handed out again. A window that grows
//! past [`WINDOW`] events (thousands of requests left unanswered at once) gives up its oldest
//! spans in flight and counts them ([`Stream::abandoned`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Utc};
use opentelemetry_proto::tonic::trace::v1::Span;

use super::{Options, map, nanos};
use crate::trace::{Event, Header, Kind, Lane, Pairing};

/// The most events a window holds before it keeps only what spans in flight need.
pub const WINDOW: usize = 4096;

/// What an event later ones are read against is kept by: its lanes (from, to), and the
/// request's method and detail (or `process` for a process event).
type ContextKey<'a> = (&'a Lane, &'a Lane, Option<&'a str>, Option<&'a str>);

/// A live recording's spans, as they complete.
pub struct Stream {
    header: Header,
    options: Options,
    window: Vec<Event>,
    /// Ids of the complete spans handed out whose events are still in the window.
    sent: HashSet<Vec<u8>>,
    /// The last `seq` the previous pass saw.
    mapped_up_to: Option<u64>,
    /// Events pushed since the last pass.
    new: usize,
    first: Option<DateTime<Utc>>,
    last: Option<DateTime<Utc>>,
    /// See [`Stream::abandoned`].
    abandoned: u64,
}

impl Stream {
    /// A stream for the recording whose file starts with `header` (the trace id comes from it,
    /// so it is the one `export` of the file gives).
    pub fn new(header: Header, options: Options) -> Stream {
        Stream {
            header,
            options,
            window: Vec::new(),
            sent: HashSet::new(),
            mapped_up_to: None,
            new: 0,
            first: None,
            last: None,
            abandoned: 0,
        }
    }

    /// Adds the next recorded event (in `seq` order).
    pub fn push(&mut self, event: Event) {
        self.first = Some(self.first.map_or(event.time, |t| t.min(event.time)));
        self.last = Some(self.last.map_or(event.time, |t| t.max(event.time)));
        self.new += 1;
        self.window.push(event);
    }

    /// Events pushed since the last [`Stream::complete`].
    pub fn unmapped(&self) -> usize {
        self.new
    }

    /// Events held (for tests and the bench).
    pub fn window_len(&self) -> usize {
        self.window.len()
    }

    /// The spans completed since the last call.
    pub fn complete(&mut self) -> Vec<Span> {
        if self.new == 0 {
            return Vec::new();
        }
        self.pass(false)
    }

    /// At the end of the recording: every span left (those still in flight end as unanswered,
    /// as in the file's export) and the root, from the first event to the last.
    pub fn finish(mut self) -> Vec<Span> {
        self.pass(true)
    }

    fn pass(&mut self, last_pass: bool) -> Vec<Span> {
        self.new = 0;
        let report = crate::analysis::report(&self.window);
        let end = self.last.map(nanos);
        let (mut root, mapped) = map(&self.header, &self.window, &report, &self.options, end);
        let mut out = Vec::new();
        let mut sent = HashSet::new();
        let mut needed = BTreeSet::new();
        let mut waiting = Vec::new();
        for m in mapped {
            // Handed out already: complete then, whatever the window makes of it now.
            if self.sent.contains(&m.span.span_id) {
                sent.insert(m.span.span_id);
                continue;
            }
            if !last_pass && !m.waits.is_empty() {
                needed.extend(m.waits.iter().copied());
                waiting.push(m.waits[0]);
                continue;
            }
            // A notification seen by an earlier pass was handed out then (as its own span, or as
            // an event of the span it belongs to); mapped again without what came before it, it
            // would be a second copy.
            if let (Some(i), Some(seen)) = (m.notification, self.mapped_up_to)
                && self.window[i].seq <= seen
            {
                continue;
            }
            sent.insert(m.span.span_id.clone());
            out.push(m.span);
        }
        self.sent = sent;
        if last_pass {
            if !self.window.is_empty() || self.first.is_some() {
                root.start_time_unix_nano = self.first.map_or(0, nanos);
                root.end_time_unix_nano = self.last.map_or(0, nanos);
                out.push(root);
            }
            self.window.clear();
            return out;
        }
        self.mapped_up_to = self.window.last().map(|e| e.seq);
        self.trim(&report.rpc, needed, &waiting);
        out.sort_by_key(|s| s.start_time_unix_nano);
        out
    }

    /// Drops the events no span in flight needs (see the module's comment). `waiting` holds
    /// the first event of each span in flight.
    fn trim(
        &mut self,
        analysis: &crate::trace::Analysis,
        mut keep: BTreeSet<usize>,
        waiting: &[usize],
    ) {
        let (window, derived) = (&self.window, &analysis.derived);
        // What later events are read against: each server's latest `initialize` (the revision
        // comes from it) and latest process event (a restart starts a new session), and the
        // latest `input_required` leg of each operation (a retry links to it).
        let mut context: HashMap<ContextKey<'_>, usize> = HashMap::new();
        for (i, (e, d)) in window.iter().zip(derived).enumerate() {
            let key = match (e.channel == crate::trace::Channel::Process, d.kind) {
                (true, _) => (&e.from, &e.to, None, Some("process")),
                (false, Kind::Request) if d.method.as_deref() == Some("initialize") => {
                    (&e.from, &e.to, Some("initialize"), None)
                }
                (false, Kind::Response) if d.input_required => {
                    let Pairing::Answers(seq) = d.pairing else {
                        continue;
                    };
                    if let Some(r) = analysis.earlier(window, seq, i) {
                        let rd = &derived[r];
                        let key = (&e.to, &e.from, rd.method.as_deref(), rd.detail.as_deref());
                        context.insert(key, r);
                    }
                    continue;
                }
                _ => continue,
            };
            context.insert(key, i);
        }
        let mut essential: BTreeSet<usize> = context.into_values().collect();
        // A window past its bound gives up its oldest spans in flight (counted).
        if keep.len() > WINDOW {
            let cut = keep
                .iter()
                .nth(keep.len() - WINDOW / 2)
                .copied()
                .unwrap_or(0);
            self.abandoned += waiting.iter().filter(|&&w| w < cut).count() as u64;
            keep = keep.split_off(&cut);
        }
        keep.append(&mut essential);
        // A kept request keeps its answer (or cancellation): else it would seem in flight.
        let answers: Vec<usize> = keep
            .iter()
            .filter_map(|&i| match derived[i].pairing {
                Pairing::AnsweredBy(seq) | Pairing::Cancelled(seq) => {
                    analysis.later(window, seq, i)
                }
                _ => None,
            })
            .collect();
        keep.extend(answers);
        if keep.len() == window.len() {
            return; // everything is still needed
        }
        let old = std::mem::take(&mut self.window);
        self.window = old
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep.contains(i))
            .map(|(_, e)| e)
            .collect();
    }

    /// Spans in flight given up because the window reached its bound ([`WINDOW`]): they are
    /// in the trace file, not in the live export.
    pub fn abandoned(&self) -> u64 {
        self.abandoned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, Lane};

    fn event(seq: u64, from: Lane, to: Lane, raw: &str) -> Event {
        let time = DateTime::parse_from_rfc3339("2026-12-01T08:00:00Z")
            .expect("time")
            .with_timezone(&Utc)
            + chrono::Duration::milliseconds(i64::try_from(seq).unwrap_or(0));
        Event::with_bytes(seq, time, from, to, Channel::Stdio, raw.as_bytes().to_vec())
    }

    /// A session pushed one event at a time gives the spans the file's export gives, each
    /// once, and each as soon as it is complete.
    #[test]
    fn live_spans_are_the_exports_spans() {
        let server = Lane::server("s");
        let lines: Vec<(Lane, Lane, String)> = std::iter::once((
            Lane::Host,
            server.clone(),
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_string(),
        ))
        .chain([(
            server.clone(),
            Lane::Host,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}"#.to_string(),
        )])
        .chain((1..=6000).flat_map(|n| {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"t"}}}}"#
            );
            let answer = format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{"content":[]}}}}"#);
            [(Lane::Host, server.clone(), call), (server.clone(), Lane::Host, answer)]
        }))
        .chain([
            // Never answered: in flight until the end.
            (
                Lane::Host,
                server.clone(),
                r#"{"jsonrpc":"2.0","id":"late","method":"tools/list"}"#.to_string(),
            ),
            (
                server.clone(),
                Lane::Host,
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_string(),
            ),
        ])
        .collect();
        let events: Vec<Event> = lines
            .iter()
            .enumerate()
            .map(|(n, (from, to, raw))| event(n as u64, from.clone(), to.clone(), raw))
            .collect();
        let header = Header::new("live");
        let whole = super::super::spans(
            &header,
            &events,
            &crate::analysis::report(&events),
            &Options::default(),
        );

        let mut stream = Stream::new(header, Options::default());
        let mut live = Vec::new();
        for (n, e) in events.iter().enumerate() {
            stream.push(e.clone());
            if n % 100 == 99 {
                let done = stream.complete();
                // A call leaves once answered, not before.
                assert!(done.iter().all(|s| s.name != "tools/list"), "{n}");
                live.extend(done);
                assert!(
                    stream.window_len() <= WINDOW + 100,
                    "{}",
                    stream.window_len()
                );
            }
        }
        live.extend(stream.finish());
        let ids = |spans: &[Span]| {
            let mut v: Vec<(Vec<u8>, String)> = spans
                .iter()
                .map(|s| (s.span_id.clone(), s.name.clone()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(ids(&live).len(), whole.len(), "each span once");
        assert_eq!(ids(&live), ids(&whole));
        // The revision survives the window's trimming.
        let last_call = live
            .iter()
            .filter(|s| s.name == "tools/call t")
            .max_by_key(|s| s.start_time_unix_nano)
            .expect("calls");
        assert!(
            last_call
                .attributes
                .iter()
                .any(|a| a.key == "mcp.protocol.version"),
            "{last_call:?}"
        );
        let root = live
            .iter()
            .find(|s| s.name == "invoke_agent")
            .expect("root");
        assert_eq!(root.span_id, whole[0].span_id);
        assert_eq!(root.start_time_unix_nano, whole[0].start_time_unix_nano);
        assert_eq!(root.end_time_unix_nano, whole[0].end_time_unix_nano);
    }

    /// The events of recorded tours (both revisions, sampling, elicitation, roots, progress,
    /// listen streams, `input_required` retries, LLM turns), run again and again as one
    /// recording, as the bench's tool-heavy mix does: the server restarts, ids and progress
    /// tokens repeat, listen streams end when the server exits.
    fn tours(runs: usize) -> Vec<Event> {
        let templates: Vec<Vec<Event>> = [
            include_str!("../../../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl"),
            include_str!("../../../benches/fixtures/primitives-tour-2025-11-25.jsonl"),
        ]
        .iter()
        .map(|text| {
            text.lines()
                .skip(1)
                .map(|l| serde_json::from_str(l).expect("event"))
                .collect()
        })
        .collect();
        let mut out: Vec<Event> = Vec::new();
        let mut clock = templates[0][0].time;
        for k in 0..runs {
            let run = &templates[k % 2];
            let start = run[0].time;
            for e in run {
                let mut e = e.clone();
                e.seq = out.len() as u64;
                e.time = clock + (e.time - start);
                if let Some(raw) = &e.raw
                    && e.channel == crate::trace::Channel::LlmHttp
                {
                    let unique = raw
                        .replace("toolu_sl_", &format!("toolu_sl_r{k}_"))
                        .replace("msg_sl_", &format!("msg_sl_r{k}_"));
                    e.raw = Some(unique.into_boxed_str());
                }
                out.push(e);
            }
            clock = out.last().map_or(clock, |e| e.time) + chrono::Duration::milliseconds(5);
        }
        out
    }

    /// Tool-heavy traffic mapped live, with a pass after every `every` events, gives exactly
    /// the file's spans (ids, parents, times, attributes, events, links), each once, and the
    /// window stays small: nothing left unanswered pins it.
    #[test]
    fn tool_heavy_live_spans_equal_the_exports_spans() {
        let events = tours(12);
        let header = Header::new("tours");
        let report = crate::analysis::report(&events);
        let mut whole = super::super::spans(&header, &events, &report, &Options::default());
        whole.sort_by(|a, b| a.span_id.cmp(&b.span_id));
        assert!(whole.len() > 100, "{}", whole.len());
        for every in [1, 7, 64] {
            let mut stream = Stream::new(header.clone(), Options::default());
            let mut live = Vec::new();
            let mut largest = 0;
            for (n, e) in events.iter().enumerate() {
                stream.push(e.clone());
                if (n + 1) % every == 0 {
                    live.extend(stream.complete());
                    largest = largest.max(stream.window_len());
                }
            }
            live.extend(stream.finish());
            live.sort_by(|a, b| a.span_id.cmp(&b.span_id));
            assert_eq!(live.len(), whole.len(), "every {every}: each span once");
            for (l, w) in live.iter().zip(&whole) {
                assert_eq!(l, w, "every {every}: {}", w.name);
            }
            // A run is ~40 events; what is kept is what is in flight, not a run's worth.
            assert!(largest < 40 + every, "every {every}: window of {largest}");
        }
    }
}
