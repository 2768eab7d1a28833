//! Comparing a replay with its recording: each client request's answer, then and now.
//!
//! A replay sends the recorded client requests to one server in their recorded order, so the
//! n-th client request to that server in the replay is the n-th of the recording. Each pair's
//! answers (the whole JSON-RPC message: `result` or `error`) are compared structurally with
//! [`super::compare`]: ids, progress tokens and `_meta` times are ignored by default, and a
//! multi-round-trip `requestState` (an opaque token each server run mints anew) too.

use serde::Serialize;
use serde_json::Value;

use super::compare::{Difference, Ignore, compare};
use crate::trace::{Analysis, Event, Kind, Lane, Pairing};

/// How one request fared in the replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    Same,
    Differs {
        differences: Vec<Difference>,
    },
    /// The new server did not answer (within the timeout, or before it exited).
    NoAnswer,
    /// The replay stopped before sending it.
    NotSent,
}

/// One recorded request and its replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestResult {
    pub method: String,
    /// The tool name, uri or prompt name, when the request has one.
    pub name: Option<String>,
    pub recorded_seq: u64,
    pub recorded_answer: Option<u64>,
    pub replay_seq: Option<u64>,
    pub replay_answer: Option<u64>,
    #[serde(flatten)]
    pub status: Status,
}

/// One side: a trace, its analysis, the server's lane in it.
pub struct Side<'a> {
    pub events: &'a [Event],
    pub rpc: &'a Analysis,
    pub lane: &'a Lane,
}

impl Side<'_> {
    /// (index of each client request to the lane, index of its answer).
    fn requests(&self) -> Vec<(usize, Option<usize>)> {
        let sorted = self.events.windows(2).all(|w| w[0].seq < w[1].seq);
        let find = |seq: u64| {
            if sorted {
                self.events.binary_search_by_key(&seq, |e| e.seq).ok()
            } else {
                self.events.iter().position(|e| e.seq == seq)
            }
        };
        self.events
            .iter()
            .zip(&self.rpc.derived)
            .enumerate()
            .filter(|(_, (e, d))| {
                d.kind == Kind::Request && e.channel.carries_jsonrpc() && &e.to == self.lane
            })
            .map(|(i, (_, d))| {
                let answer = match d.pairing {
                    Pairing::AnsweredBy(seq) => find(seq),
                    _ => None,
                };
                (i, answer)
            })
            .collect()
    }

    fn json(&self, i: usize) -> Option<Value> {
        serde_json::from_str(&self.events[i].text()).ok()
    }
}

/// The default ignores plus the multi-round-trip `requestState`.
pub fn default_ignore() -> Ignore {
    use super::compare::Pattern;
    let state = Pattern::parse("/result/requestState").expect("a valid pointer");
    Ignore::defaults().with(state)
}

/// Compares every recorded client request's answer with the replay's.
pub fn compare_replay(
    recorded: &Side<'_>,
    replay: &Side<'_>,
    ignore: &Ignore,
) -> Vec<RequestResult> {
    let new = replay.requests();
    recorded
        .requests()
        .into_iter()
        .enumerate()
        .map(|(n, (ri, ra))| {
            let d = &recorded.rpc.derived[ri];
            let (replay_seq, replay_answer) = match new.get(n) {
                Some(&(ni, na)) => (Some(ni), na),
                None => (None, None),
            };
            let status = match (replay_seq, ra, replay_answer) {
                (None, _, _) => Status::NotSent,
                (Some(_), None, None) => Status::Same,
                (Some(_), _, None) => Status::NoAnswer,
                (Some(_), None, Some(na)) => Status::Differs {
                    differences: vec![Difference {
                        pointer: String::new(),
                        old: None,
                        new: replay.json(na),
                    }],
                },
                (Some(_), Some(ra), Some(na)) => {
                    let (old, new) = (recorded.json(ra), replay.json(na));
                    let differences = match (&old, &new) {
                        (Some(o), Some(n)) => compare(o, n, ignore),
                        _ if recorded.events[ra].text() == replay.events[na].text() => Vec::new(),
                        _ => vec![Difference {
                            pointer: String::new(),
                            old: Some(Value::String(recorded.events[ra].text().into_owned())),
                            new: Some(Value::String(replay.events[na].text().into_owned())),
                        }],
                    };
                    if differences.is_empty() {
                        Status::Same
                    } else {
                        Status::Differs { differences }
                    }
                }
            };
            RequestResult {
                method: d.method.as_deref().unwrap_or_default().to_string(),
                name: d.detail.as_deref().map(str::to_string),
                recorded_seq: recorded.events[ri].seq,
                recorded_answer: ra.map(|i| recorded.events[i].seq),
                replay_seq: replay_seq.map(|i| replay.events[i].seq),
                replay_answer: replay_answer.map(|i| replay.events[i].seq),
                status,
            }
        })
        .collect()
}
