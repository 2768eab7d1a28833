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
        self.events
            .iter()
            .zip(&self.rpc.derived)
            .enumerate()
            .filter(|(_, (e, d))| {
                d.kind == Kind::Request && e.channel.carries_jsonrpc() && &e.to == self.lane
            })
            .map(|(i, (_, d))| {
                let answer = match d.pairing {
                    Pairing::AnsweredBy(_) => self.rpc.paired(self.events, i),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, analyze};

    /// Calls to server `s`, each answered with a text: `seq`s from 0 up.
    fn calls(ids: &[u64], texts: &[&str]) -> Vec<Event> {
        let mut events = Vec::new();
        for (&id, text) in ids.iter().zip(texts) {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"w"}}}}"#
            );
            let answer = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
            );
            for (from, to, raw) in [
                (Lane::Host, Lane::server("s"), call),
                (Lane::server("s"), Lane::Host, answer),
            ] {
                let seq = events.len() as u64;
                let t = crate::trace::now();
                events.push(Event::with_bytes(
                    seq,
                    t,
                    from,
                    to,
                    Channel::Stdio,
                    raw.into(),
                ));
            }
        }
        events
    }

    /// A recording of two sessions appended to one file (each counting its `seq`s from 0): each
    /// request's answer is the one in its own session, the first event with its `seq` after it
    /// (the first event with that `seq` in the whole file was taken, the first session's
    /// answer, which the replay's second answer then differed from).
    #[test]
    fn in_sessions_appended_to_one_file_each_answer_is_in_its_own_session() {
        let recorded: Vec<Event> = [calls(&[1], &["sunny"]), calls(&[1], &["rain"])].concat();
        let replayed = calls(&[1, 2], &["sunny", "rain"]);
        let (a, b) = (analyze(&recorded), analyze(&replayed));
        let lane = Lane::server("s");
        let side = |events, rpc| Side {
            events,
            rpc,
            lane: &lane,
        };
        let results = compare_replay(
            &side(&recorded, &a),
            &side(&replayed, &b),
            &default_ignore(),
        );
        let got: Vec<(u64, Option<u64>, &Status)> = results
            .iter()
            .map(|r| (r.recorded_seq, r.recorded_answer, &r.status))
            .collect();
        assert_eq!(
            got,
            [(0, Some(1), &Status::Same), (0, Some(1), &Status::Same)]
        );
    }
}
