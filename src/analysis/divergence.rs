//! Where a re-run host loop left its recording: `sightline run --replay-model`.
//!
//! The new run's model answered with the recorded responses, in order, so the only thing that
//! can differ between the two runs is what the servers answered, and through the host what
//! the model was sent. Turn *n* is the loop's *n*-th LLM request (sampling requests aside):
//! the loop diverged at the first turn whose request differs from the recorded one (compared
//! as JSON, as a replay compares answers). Why is said by the server answers that differ:
//! each server's client requests compared with [`super::replay::compare_replay`].

use serde::Serialize;
use serde_json::Value;

use super::compare::{Difference, Ignore, compare};
use super::llm_exchanges;
use super::replay::{RequestResult, Side, Status, compare_replay, default_ignore};
use crate::trace::{Analysis, Event, Lane};

/// The first turn whose LLM request differs from the recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// 1 for the loop's first LLM request.
    pub turn: usize,
    pub recorded_seq: u64,
    /// `None` when the new run never made this request (it stopped earlier).
    pub replay_seq: Option<u64>,
    pub differences: Vec<Difference>,
}

/// Each server's answers that differ from the recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerChanges {
    pub server: String,
    pub requests: Vec<RequestResult>,
}

/// A re-run compared with its recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    /// Loop turns in the recording and in the new run.
    pub recorded_turns: usize,
    pub replay_turns: usize,
    /// The turn at which the loop diverged, if it did.
    pub diverged: Option<Turn>,
    /// Server answers that differ (only requests that are not the same).
    pub servers: Vec<ServerChanges>,
}

fn json(e: &Event) -> Option<Value> {
    serde_json::from_str(&e.text()).ok()
}

/// Compares the re-run `new` with the recording `old`.
pub fn divergence(
    old: (&[Event], &Analysis),
    new: (&[Event], &Analysis),
    ignore: &Ignore,
) -> Divergence {
    let turns = |events: &[Event]| -> Vec<usize> {
        llm_exchanges(events)
            .into_iter()
            .filter(|x| x.sampling_for.is_none())
            .map(|x| x.request)
            .collect()
    };
    let (old_turns, new_turns) = (turns(old.0), turns(new.0));
    let mut diverged = None;
    for (n, &oi) in old_turns.iter().enumerate() {
        let Some(&ni) = new_turns.get(n) else {
            diverged = Some(Turn {
                turn: n + 1,
                recorded_seq: old.0[oi].seq,
                replay_seq: None,
                differences: Vec::new(),
            });
            break;
        };
        let differences = match (json(&old.0[oi]), json(&new.0[ni])) {
            (Some(o), Some(v)) => compare(&o, &v, ignore),
            _ if old.0[oi].text() == new.0[ni].text() => Vec::new(),
            _ => vec![Difference {
                pointer: String::new(),
                old: Some(Value::String(old.0[oi].text().into_owned())),
                new: Some(Value::String(new.0[ni].text().into_owned())),
            }],
        };
        if !differences.is_empty() {
            diverged = Some(Turn {
                turn: n + 1,
                recorded_seq: old.0[oi].seq,
                replay_seq: Some(new.0[ni].seq),
                differences,
            });
            break;
        }
    }
    let mut servers = Vec::new();
    let mut lanes: Vec<&Lane> = Vec::new();
    for e in old.0.iter().filter(|e| e.channel.carries_jsonrpc()) {
        if e.to.is_server() && !lanes.contains(&&e.to) {
            lanes.push(&e.to);
        }
    }
    let replay_ignore = default_ignore();
    for lane in lanes {
        let requests: Vec<RequestResult> = compare_replay(
            &Side {
                events: old.0,
                rpc: old.1,
                lane,
            },
            &Side {
                events: new.0,
                rpc: new.1,
                lane,
            },
            &replay_ignore,
        )
        .into_iter()
        .filter(|r| r.status != Status::Same)
        .collect();
        if !requests.is_empty() {
            servers.push(ServerChanges {
                server: lane.server_name().unwrap_or_default().to_string(),
                requests,
            });
        }
    }
    Divergence {
        recorded_turns: old_turns.len(),
        replay_turns: new_turns.len(),
        diverged,
        servers,
    }
}
