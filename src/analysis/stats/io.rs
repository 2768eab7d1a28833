//! The IO graph: how many events each lane carried per interval of the trace, and how many of
//! them were errors, as Wireshark draws it. The app's Statistics view draws it beside the
//! numbers of [`super::stats`]; a bar knows its events, so clicking it can select them.
//!
//! An event's lane is its end that is not the host (`host -> server:weather` and back are the
//! `server:weather` lane, the model's exchanges `llm`, the prompt and the answer `user`), the
//! lanes in the order they first appear. The interval is a round one (1, 2 or 5 times a power
//! of ten of microseconds, at least 1 ms) giving at most the bins asked for. An error is the
//! answer to a request that failed (as [`super::stats`] counts them: a JSON-RPC error or a
//! tool result that says `isError`), an invalid message, or an LLM response of status 400 or
//! more.

use chrono::{DateTime, Utc};

use super::answer_failed;
use crate::trace::{Analysis, Event, Kind, Lane};

/// One interval of one lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bin {
    pub events: u32,
    pub errors: u32,
    /// The first and last event index it holds (meaningless when `events` is 0).
    pub first: usize,
    pub last: usize,
}

/// Events per interval per lane.
#[derive(Debug, Clone, PartialEq)]
pub struct IoGraph {
    /// The first kept event's time: bin `n` starts `n * interval_us` after it.
    pub start: DateTime<Utc>,
    pub interval_us: i64,
    pub lanes: Vec<Lane>,
    /// `bins[lane][n]`.
    pub bins: Vec<Vec<Bin>>,
}

impl IoGraph {
    /// The most events any one bin holds.
    pub fn peak(&self) -> u32 {
        let all = self.bins.iter().flatten();
        all.map(|b| b.events).max().unwrap_or(0)
    }
}

/// The lane an event counts in: its end that is not the host.
pub fn lane_of(e: &Event) -> &Lane {
    if e.from == Lane::Host { &e.to } else { &e.from }
}

/// A round interval in microseconds that cuts `span_us` into at most `bins` intervals.
fn interval(span_us: i64, bins: usize) -> i64 {
    let wanted = (span_us / bins.max(1) as i64).max(1);
    let mut base = 1_000;
    loop {
        for step in [1, 2, 5] {
            if base * step >= wanted {
                return base * step;
            }
        }
        base *= 10;
    }
}

/// The IO graph of the events `keep` keeps, in at most `bins` intervals.
pub fn io_graph(
    events: &[Event],
    rpc: &Analysis,
    bins: usize,
    keep: &dyn Fn(usize) -> bool,
) -> Option<IoGraph> {
    let kept = || (0..events.len()).filter(|&i| keep(i));
    let start = kept().map(|i| events[i].time).min()?;
    let end = kept().map(|i| events[i].time).max()?;
    let span = crate::trace::latency_us(start, end).unwrap_or(0);
    let step = interval(span, bins);
    let count = usize::try_from(span / step).unwrap_or(0) + 1;
    let mut out = IoGraph {
        start,
        interval_us: step,
        lanes: Vec::new(),
        bins: Vec::new(),
    };
    // Answers of failed requests, found from their requests.
    let mut failed = vec![false; events.len()];
    for (i, d) in rpc.derived.iter().enumerate() {
        if d.kind == Kind::Request
            && let Some(a) = rpc.paired(events, i)
            && answer_failed(events, rpc, i, d.method.as_deref().unwrap_or(""))
        {
            failed[a] = true;
        }
    }
    for i in kept() {
        let e = &events[i];
        let lane = lane_of(e);
        let at = match out.lanes.iter().position(|l| l == lane) {
            Some(at) => at,
            None => {
                out.lanes.push(lane.clone());
                out.bins.push(vec![Bin::default(); count]);
                out.lanes.len() - 1
            }
        };
        let n = crate::trace::latency_us(start, e.time).unwrap_or(0) / step;
        let Some(bin) = out.bins[at].get_mut(n.max(0) as usize) else {
            continue;
        };
        if bin.events == 0 {
            bin.first = i;
        }
        bin.events += 1;
        bin.last = i;
        let status = e.http().and_then(|h| h.status).unwrap_or(0);
        let d = rpc.derived.get(i);
        let error = failed[i]
            || d.is_some_and(|d| d.kind == Kind::Invalid)
            || (e.from == Lane::Llm && status >= 400);
        bin.errors += u32::from(error);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, analyze};
    use serde_json::json;

    #[test]
    fn events_fall_in_round_intervals_per_lane_with_failed_answers_marked() {
        let t0 = crate::trace::now();
        let at = |ms: i64| t0 + chrono::TimeDelta::milliseconds(ms);
        let msg = |seq: u64, ms: i64, up: bool, v: serde_json::Value| {
            let (host, s) = (Lane::Host, Lane::server("s"));
            let (from, to) = if up { (host, s) } else { (s, host) };
            Event::with_bytes(
                seq,
                at(ms),
                from,
                to,
                Channel::Stdio,
                v.to_string().into_bytes(),
            )
        };
        let events = vec![
            msg(
                0,
                0,
                true,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            ),
            msg(
                1,
                3,
                false,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
            ),
            msg(
                2,
                40,
                true,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "x"}}),
            ),
            msg(
                3,
                99,
                false,
                json!({"jsonrpc": "2.0", "id": 2, "error":
                {"code": -32602, "message": "no"}}),
            ),
        ];
        let rpc = analyze(&events);
        let g = io_graph(&events, &rpc, 10, &|_| true).expect("a graph");
        // 99 ms in at most 10 bins: 10 ms each.
        assert_eq!(g.interval_us, 10_000);
        assert_eq!(g.lanes, [Lane::server("s")]);
        let lane = &g.bins[0];
        assert_eq!(lane.len(), 10);
        assert_eq!(
            (lane[0].events, lane[0].errors, lane[0].first, lane[0].last),
            (2, 0, 0, 1)
        );
        assert_eq!((lane[4].events, lane[4].first), (1, 2));
        assert_eq!((lane[9].events, lane[9].errors, lane[9].first), (1, 1, 3));
        assert_eq!(g.peak(), 2);
        // Only what the filter keeps.
        let g = io_graph(&events, &rpc, 10, &|i| i >= 2).expect("a graph");
        assert_eq!(g.bins[0].iter().map(|b| b.events).sum::<u32>(), 2);
        assert!(io_graph(&events, &rpc, 10, &|_| false).is_none());
    }

    #[test]
    fn an_interval_is_round_and_at_least_a_millisecond() {
        assert_eq!(interval(0, 60), 1_000);
        assert_eq!(interval(59_000, 60), 1_000);
        assert_eq!(interval(61_000, 60), 2_000);
        assert_eq!(interval(3_600_000_000, 60), 100_000_000);
    }
}
