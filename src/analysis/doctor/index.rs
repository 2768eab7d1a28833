//! What the doctor reads of each event, gathered in one pass that can stop after any event.
//!
//! The verdicts need, per server lane, only a handful of its events (spawns, exits, the
//! handshakes and `tools/list` requests, stderr lines, `list_changed` notifications), and the
//! host's notes and `tools/call`s. [`Reader`] collects them a slice of events at a time, so a
//! caller without threads (the browser) spreads the pass over frames; what is left afterwards
//! ([`Reader::finish`]) reads only those events, never the whole trace again, and can be done a
//! server or a tool at a time too ([`Reader::finish_step`]).

use std::collections::HashMap;

use super::{Diagnosis, DoctorOptions};
use crate::analysis::Report;
use crate::trace::{Channel, Event, Kind, Lane};

/// The host requests the doctor follows through a session.
const FOLLOWED: [&str; 3] = ["initialize", "server/discover", "tools/list"];

/// The events of one server lane the doctor looks at, each list in trace order.
pub(super) struct LaneEvents {
    pub lane: Lane,
    /// Its `spawn` and `spawn-failed` process events.
    pub spawns: Vec<usize>,
    /// Its `exit` process events.
    pub exits: Vec<usize>,
    /// Requests to it with a [`FOLLOWED`] method, with that method.
    pub requests: Vec<(usize, &'static str)>,
    /// Its stderr lines.
    pub stderr: Vec<usize>,
    /// Its `notifications/tools/list_changed`.
    pub list_changed: Vec<usize>,
}

impl LaneEvents {
    fn new(lane: &Lane) -> LaneEvents {
        LaneEvents {
            lane: lane.clone(),
            spawns: Vec::new(),
            exits: Vec::new(),
            requests: Vec::new(),
            stderr: Vec::new(),
            list_changed: Vec::new(),
        }
    }
}

/// The doctor's pass over the trace, resumable after any event: [`Reader::step`] until it
/// says the trace is read, then [`Reader::finish`]. The outcome is [`super::diagnose`]'s.
#[derive(Default)]
pub struct Reader {
    /// The next event to read.
    next: usize,
    /// Every server lane, in order of first appearance.
    pub(super) lanes: Vec<LaneEvents>,
    /// Notes written by the host (to any lane).
    pub(super) host_notes: Vec<usize>,
    /// The last `tools/call` to each (server, tool).
    pub(super) calls: HashMap<(String, String), usize>,
    /// The verdicts so far, once the pass is over ([`Reader::finish_step`]).
    finishing: Option<Finishing>,
}

/// The verdicts of [`Reader::finish_step`] so far.
enum Finishing {
    /// The servers read so far, lane by lane.
    Servers(Vec<super::session::Server>),
    /// Every server read; the tools judged so far.
    Tools(Box<super::tools::Judging>),
}

impl Reader {
    /// Reads the next `count` events (at most); true once every event has been read.
    pub fn step(&mut self, events: &[Event], report: &Report, count: usize) -> bool {
        let end = self.next.saturating_add(count).min(events.len());
        for i in self.next..end {
            self.one(events, report, i);
        }
        self.next = end;
        end == events.len()
    }

    /// The diagnosis, once [`Self::step`] has said the trace is read.
    pub fn finish(&self, events: &[Event], report: &Report, options: &DoctorOptions) -> Diagnosis {
        let ctx = super::Ctx::new(events, report, self);
        let sessions = super::session::servers(&ctx);
        super::tools::diagnose(&ctx, sessions, options)
    }

    /// [`Self::finish`] a little at a time, for a caller that spreads the doctor over frames:
    /// reads `count` servers at most, or builds what the tools are judged against, or judges
    /// `count` tools at most; the diagnosis once all is done (equal to [`Self::finish`]'s).
    /// Only once [`Self::step`] has said the trace is read.
    pub fn finish_step(
        &mut self,
        events: &[Event],
        report: &Report,
        options: &DoctorOptions,
        count: usize,
    ) -> Option<Diagnosis> {
        let state = self
            .finishing
            .take()
            .unwrap_or_else(|| Finishing::Servers(Vec::new()));
        let ctx = super::Ctx::new(events, report, self);
        let next = match state {
            Finishing::Servers(mut servers) if servers.len() < self.lanes.len() => {
                for _ in 0..count.max(1) {
                    match super::session::server_at(&ctx, servers.len()) {
                        Some(server) => servers.push(server),
                        None => break,
                    }
                }
                Finishing::Servers(servers)
            }
            Finishing::Servers(servers) => {
                let judging = super::tools::Judging::new(&ctx, servers, options);
                Finishing::Tools(Box::new(judging))
            }
            Finishing::Tools(mut judging) => {
                if judging.step(&ctx, count.max(1)) {
                    return Some(judging.finish(&ctx, options));
                }
                Finishing::Tools(judging)
            }
        };
        self.finishing = Some(next);
        None
    }

    /// The slot of a server lane, added when first seen.
    fn slot(&mut self, lane: &Lane) -> usize {
        match self.lanes.iter().position(|l| l.lane == *lane) {
            Some(at) => at,
            None => {
                self.lanes.push(LaneEvents::new(lane));
                self.lanes.len() - 1
            }
        }
    }

    fn one(&mut self, events: &[Event], report: &Report, i: usize) {
        let e = &events[i];
        // What an LLM API's own MCP client exchanged with a server is not the host's session
        // with it: the remote servers' section judges that server (`super::remote`).
        if (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm) {
            return;
        }
        let from = e.from.is_server().then(|| self.slot(&e.from));
        let to = e.to.is_server().then(|| self.slot(&e.to));
        // Both ends, once each (a lane may be both).
        let ends = [from, to.filter(|&t| Some(t) != from)];
        if e.channel == Channel::Process
            && let Some(p) = e.process()
        {
            for at in ends.into_iter().flatten() {
                let lane = &mut self.lanes[at];
                match p.event.as_str() {
                    "spawn" | "spawn-failed" => lane.spawns.push(i),
                    "exit" => lane.exits.push(i),
                    _ => {}
                }
            }
        }
        if e.channel == Channel::Stderr
            && let Some(at) = from
        {
            self.lanes[at].stderr.push(i);
        }
        if e.channel == Channel::Note && e.from == Lane::Host {
            self.host_notes.push(i);
        }
        let Some(d) = report.rpc.derived.get(i) else {
            return;
        };
        let method = d.method.as_deref();
        if let Some(at) = to
            && d.kind == Kind::Request
            && let Some(m) = FOLLOWED.into_iter().find(|f| method == Some(*f))
        {
            self.lanes[at].requests.push((i, m));
        }
        if let Some(at) = from
            && d.kind == Kind::Notification
            && method == Some("notifications/tools/list_changed")
        {
            self.lanes[at].list_changed.push(i);
        }
        if let (Some(server), Some(name)) = (e.to.server_name(), d.detail.as_deref())
            && d.kind == Kind::Request
            && method == Some("tools/call")
        {
            self.calls.insert((server.to_string(), name.to_string()), i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Reader;
    use crate::analysis::doctor::{DoctorOptions, diagnose};
    use crate::analysis::report;
    use crate::trace::{Event, load_from_reader};

    /// The recordings; all of them one after the other, `seq`s shifted; and the same without
    /// the shift, so that `seq`s go back (the lookup by `seq` then is a map, built mid-pass).
    fn traces() -> Vec<Vec<Event>> {
        let mut all: Vec<Vec<Event>> = crate::analysis::fixtures::RECORDINGS
            .iter()
            .map(|text| load_from_reader(text.as_bytes()).expect("fixture").events)
            .collect();
        let mut shifted: Vec<Event> = Vec::new();
        for events in &all {
            let shift = shifted.last().map_or(0, |e| e.seq + 1);
            shifted.extend(events.iter().cloned().map(|mut e| {
                e.seq += shift;
                e
            }));
        }
        let unsorted: Vec<Event> = all.iter().flatten().cloned().collect();
        all.push(shifted);
        all.push(unsorted);
        all
    }

    #[test]
    fn read_an_event_at_a_time_the_diagnosis_is_the_whole_one() {
        let options = DoctorOptions {
            expect: vec![
                "get_forecast".into(),
                "weather/get_alerts".into(),
                "nope".into(),
            ],
            ..DoctorOptions::default()
        };
        let mut tools = 0;
        for (t, events) in traces().iter().enumerate() {
            let report = report(events);
            let whole = diagnose(events, &report, &options);
            let mut reader = Reader::default();
            let mut steps = 1;
            while !reader.step(events, &report, 1) {
                steps += 1;
            }
            assert_eq!(steps, events.len(), "trace {t}");
            assert_eq!(reader.finish(events, &report, &options), whole, "trace {t}");
            // The verdicts a server or a tool at a time: one step per server, one for the
            // catalog, one per listed tool (at least one).
            let mut steps = 1;
            let finished = loop {
                match reader.finish_step(events, &report, &options, 1) {
                    Some(d) => break d,
                    None => steps += 1,
                }
            };
            assert_eq!(finished, whole, "trace {t}");
            let listed: usize = whole.servers.iter().map(|s| s.listed).sum();
            assert_eq!(steps, whole.servers.len() + 1 + listed.max(1), "trace {t}");
            tools += whole.tools.len();
        }
        assert!(tools > 0);
    }

    #[test]
    fn a_reader_that_stopped_early_knows_less() {
        let events = load_from_reader(crate::analysis::fixtures::RECORDINGS[2].as_bytes())
            .expect("fixture")
            .events;
        let report = report(&events);
        let options = DoctorOptions::default();
        let whole = diagnose(&events, &report, &options);
        assert!(!whole.servers.is_empty());
        let mut reader = Reader::default();
        assert!(!reader.step(&events, &report, events.len() / 2));
        assert_ne!(reader.finish(&events, &report, &options), whole);
    }
}
