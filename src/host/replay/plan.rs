//! What a replay sends: the client's side of one server's session, read from a trace.
//!
//! The client's requests and notifications to the chosen server, in recorded order, each with
//! its recorded bytes; and the client's recorded answers to the server's own requests
//! (sampling, elicitation, roots), queued per method so the new server's requests get them in
//! order, whatever ids it uses. A 2026-07-28 multi-round-trip retry is marked, so the engine
//! can put the *new* server's `requestState` into it.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::trace::{Analysis, Event, Kind, Lane, Pairing};

/// One message the client sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `seq` of the recorded message.
    pub seq: u64,
    /// Its exact text.
    pub raw: String,
    pub method: String,
    /// `true` for a request (an answer is awaited), `false` for a notification.
    pub request: bool,
    /// For a multi-round-trip retry: the `seq` of the recorded previous round.
    pub retry_of: Option<u64>,
    /// Whether the recorded request got an answer: one that was cancelled or never answered
    /// (a `subscriptions/listen` stream) is not waited for.
    pub answered: bool,
}

/// Everything a replay needs from the recorded trace.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The server's lane in the recording.
    pub lane: Option<Lane>,
    pub steps: Vec<Step>,
    /// Method of a server request -> the client's recorded answers to it, in order (exact text).
    pub answers: HashMap<String, VecDeque<String>>,
}

/// A recording that cannot be replayed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("the trace has no server to replay")]
    NoServer,
    #[error("the trace has several servers ({0}): name one with --server")]
    Several(String),
    #[error("the trace has no server `{0}` (it has: {1})")]
    Unknown(String, String),
    #[error("the trace has no client requests to server `{0}`: nothing to replay")]
    NoRequests(String),
}

/// Reads the client side of `server`'s session (the only server when `None`).
pub fn plan(events: &[Event], rpc: &Analysis, server: Option<&str>) -> Result<Plan, PlanError> {
    let mut lanes: Vec<&Lane> = Vec::new();
    for e in events.iter().filter(|e| e.channel.carries_jsonrpc()) {
        for lane in [&e.from, &e.to] {
            if lane.is_server() && !lanes.contains(&lane) {
                lanes.push(lane);
            }
        }
    }
    let names = || {
        lanes
            .iter()
            .filter_map(|l| l.server_name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lane = match server {
        Some(name) => *lanes
            .iter()
            .find(|l| l.server_name() == Some(name))
            .ok_or_else(|| PlanError::Unknown(name.to_string(), names()))?,
        None => match lanes.as_slice() {
            [] => return Err(PlanError::NoServer),
            [one] => *one,
            _ => return Err(PlanError::Several(names())),
        },
    };
    let mut out = Plan {
        lane: Some(lane.clone()),
        ..Plan::default()
    };
    for (e, d) in events.iter().zip(&rpc.derived) {
        if !e.channel.carries_jsonrpc() || &e.to != lane {
            continue;
        }
        let method = d.method.as_deref().unwrap_or_default().to_string();
        match d.kind {
            Kind::Request | Kind::Notification => out.steps.push(Step {
                seq: e.seq,
                raw: e.text().into_owned(),
                method,
                request: d.kind == Kind::Request,
                retry_of: d.retry_of(),
                answered: matches!(d.pairing, Pairing::AnsweredBy(_)),
            }),
            Kind::Response | Kind::Error => {
                out.answers
                    .entry(method)
                    .or_default()
                    .push_back(e.text().into_owned());
            }
            _ => {}
        }
    }
    if !out.steps.iter().any(|s| s.request) {
        return Err(PlanError::NoRequests(
            lane.server_name().unwrap_or_default().to_string(),
        ));
    }
    Ok(out)
}

/// `raw` with its `id` replaced (for an answer to a server request with a new id).
pub fn with_id(raw: &str, id: &Value) -> Option<String> {
    let mut v: Value = serde_json::from_str(raw).ok()?;
    v.as_object_mut()?.insert("id".into(), id.clone());
    serde_json::to_string(&v).ok()
}

/// `raw` with `params.requestState` set to `state` (a retry for the new server's round).
pub fn with_request_state(raw: &str, state: &Value) -> Option<String> {
    let mut v: Value = serde_json::from_str(raw).ok()?;
    let params = v.get_mut("params")?.as_object_mut()?;
    params.insert("requestState".into(), state.clone());
    serde_json::to_string(&v).ok()
}
