//! The mapping, incrementally: events arrive one at a time while a proxy records, and each span
//! leaves as soon as it is complete (a request once its answer is recorded, a chat once the
//! model answered, an `execute_tool` once the server answered the call).
//!
//! There is one mapping ([`super::map`]); this runs it over a window of the recent events
//! instead of the whole trace. After each pass the window drops what no span in flight still
//! needs: it keeps every event from the earliest one a span in flight is made of, and each
//! server's latest `initialize` pair (the revision the spans name comes from it). Span ids are
//! hashes of what identifies a span, not of its place in the window, so a span mapped live has
//! the id the file's export gives it. A span already handed out whose events are still in the
//! window is remembered by id and not handed out again. A window that grows past [`WINDOW`]
//! events (a request never answered while traffic flows) keeps the events of the spans in
//! flight and the latest half of the rest, so memory and the time of a pass stay bounded.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Utc};
use opentelemetry_proto::tonic::trace::v1::Span;

use super::{Options, map, nanos};
use crate::trace::{Event, Header, Kind, Lane, Pairing};

/// The most events a window holds before it keeps only what spans in flight need.
pub const WINDOW: usize = 4096;

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
        let (mut root, mapped) = map(&self.header, &self.window, &report, &self.options);
        let mut out = Vec::new();
        let mut sent = HashSet::new();
        let mut needed = BTreeSet::new();
        for m in mapped {
            if !last_pass && !m.waits.is_empty() {
                needed.extend(m.waits);
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
            if !self.sent.contains(&m.span.span_id) {
                out.push(m.span.clone());
            }
            sent.insert(m.span.span_id);
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
        self.trim(&report.rpc.derived, needed);
        out.sort_by_key(|s| s.start_time_unix_nano);
        out
    }

    /// Drops the events no span in flight needs (see the module's comment).
    fn trim(&mut self, derived: &[crate::trace::Derived], needed: BTreeSet<usize>) {
        let len = self.window.len();
        let mut from = needed.first().copied().unwrap_or(len);
        if len - from > WINDOW {
            from = len - WINDOW / 2;
        }
        let mut keep = needed;
        // Each server's latest `initialize` and its answer: the revision comes from them.
        let mut initialize: HashMap<&Lane, usize> = HashMap::new();
        for (i, (e, d)) in self.window.iter().zip(derived).enumerate() {
            if d.kind == Kind::Request
                && d.method.as_deref() == Some("initialize")
                && e.from.server_name().is_none()
            {
                initialize.insert(&e.to, i);
            }
        }
        for &i in initialize.values() {
            keep.insert(i);
            if let Pairing::AnsweredBy(seq) = derived[i].pairing
                && let Some(r) = self.window[i..].iter().position(|e| e.seq == seq)
            {
                keep.insert(i + r);
            }
        }
        if from == 0 {
            return; // everything is still needed
        }
        let old = std::mem::take(&mut self.window);
        self.window = old
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i >= from || keep.contains(i))
            .map(|(_, e)| e)
            .collect();
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
}
