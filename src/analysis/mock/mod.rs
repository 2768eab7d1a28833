//! A recorded server as data to serve again: what `sightline mock` answers with.
//!
//! A host, a client library or a CI job sometimes has to run against a server it cannot start
//! (no key, no network, a paid API behind it). Its trace already holds every answer that
//! server gave; this module reads them into a [`Recording`] (the server's side of one lane,
//! request by request) and [`answer::Mock`] answers a live client from it, so the serving in
//! `cli::mock` is only moving lines. Each recorded client request is kept with its answer and
//! with what the server sent around it: its notifications and its own requests (progress,
//! logging, `sampling/createMessage`, `roots/list`...), in recorded order, on the stream they
//! came on (over Streamable HTTP, the request's own response or the standalone `GET` stream,
//! told apart by the `in_reply_to` the HTTP proxy records). A client notification keeps what
//! followed it too (server-everything asks for the roots right after `initialized`). The
//! client's answers to the server's requests are not triggers: what the server sent after one
//! belongs to the request or notification before it.
//!
//! Requests are told apart by method and parameters compared as JSON values (key order and
//! number spelling ignored, through [`super::canonical`]), without `params._meta` (a progress
//! token, a 2026-07-28 request's client info and revision differ per client); the handshake
//! (`initialize`, `server/discover`) and `ping` by method alone.

pub mod answer;

use std::collections::HashMap;

use serde_json::Value;

use crate::trace::{Analysis, Event, Kind, Lane, Pairing};

/// One lane's recorded server, as the mock serves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub lane: Lane,
    /// The client's requests and notifications to it, in recorded order.
    pub triggers: Vec<Trigger>,
    /// The `Mcp-Session-Id` the recorded server gave (Streamable HTTP, 2025 revisions).
    pub session_id: Option<String>,
    /// The recorded client opened the standalone `GET` stream (Streamable HTTP).
    pub listened: bool,
}

/// One message the client sent, and what the server sent for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    /// `seq` of the recorded message.
    pub seq: u64,
    pub method: String,
    /// `true` for a request, `false` for a notification.
    pub request: bool,
    /// The params without `_meta` (`Null` when there were none).
    pub params: Value,
    /// [`key`] of `params`.
    pub key: String,
    /// The request's `params._meta.progressToken`, as spelled in it.
    pub progress_token: Option<String>,
    /// What the server sent, in recorded order; the answer among it as [`Sent::Answer`].
    pub sent: Vec<Sent>,
    /// The recorded answer came as a Server-Sent Events stream (Streamable HTTP).
    pub streamed: bool,
}

/// One message the server sent for a [`Trigger`].
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// The answer to the trigger, exactly as recorded.
    Answer(String),
    /// A notification or a request of the server's own, exactly as recorded; `listen` when it
    /// came on the standalone `GET` stream.
    Message { raw: String, listen: bool },
    /// The recorded client answered the server's request with this id (as JSON text) here:
    /// what follows waits for the live client's answer.
    Wait(String),
}

impl Trigger {
    /// The recorded answer, when the request got one.
    pub fn answer(&self) -> Option<&str> {
        self.sent.iter().find_map(|s| match s {
            Sent::Answer(raw) => Some(raw.as_str()),
            Sent::Message { .. } | Sent::Wait(_) => None,
        })
    }
}

/// A trace that has no server to serve as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PickError {
    #[error("the trace has no MCP server")]
    NoServer,
    #[error("the trace has several servers ({0}): name one with --server")]
    Several(String),
    #[error("the trace has no server `{0}` (it has: {1})")]
    Unknown(String, String),
    #[error("the trace has no client requests to server `{0}`")]
    NoRequests(String),
}

/// The lane of the server called `name`, or of the only server when `None`: the one home of
/// that choice (`mock` and `replay` both take `--server NAME`).
pub fn pick_server<'e>(events: &'e [Event], name: Option<&str>) -> Result<&'e Lane, PickError> {
    let mut lanes: Vec<&Lane> = Vec::new();
    for e in events.iter().filter(|e| e.channel.carries_jsonrpc()) {
        for lane in [&e.from, &e.to] {
            if lane.is_server() && !lanes.contains(&lane) {
                lanes.push(lane);
            }
        }
    }
    let names = || {
        let names: Vec<&str> = lanes.iter().filter_map(|l| l.server_name()).collect();
        names.join(", ")
    };
    match name {
        Some(name) => lanes
            .iter()
            .find(|l| l.server_name() == Some(name))
            .copied()
            .ok_or_else(|| PickError::Unknown(name.to_string(), names())),
        None => match lanes.as_slice() {
            [] => Err(PickError::NoServer),
            [one] => Ok(*one),
            _ => Err(PickError::Several(names())),
        },
    }
}

/// The params of a request as the mock compares them: without `_meta`.
pub fn comparable(params: Option<&Value>) -> Value {
    match params {
        Some(Value::Object(map)) => {
            let mut map = map.clone();
            map.shift_remove("_meta");
            Value::Object(map)
        }
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// Two params are the same request when their keys are equal: canonical JSON, so key order
/// and number spelling do not count. An empty object and no params are the same.
pub fn key(params: &Value) -> String {
    match params {
        Value::Object(map) if map.is_empty() => String::new(),
        Value::Null => String::new(),
        other => super::canonical::canonical_json(other),
    }
}

/// The HTTP request an SSE event was streamed in answer to (recorded by the HTTP proxy).
fn in_reply_to(e: &Event) -> Option<u64> {
    e.http()?.extra.get("in_reply_to")?.as_u64()
}

impl Recording {
    /// The server `name` (the only one when `None`) of `events`, as the mock serves it.
    pub fn read(events: &[Event], rpc: &Analysis, name: Option<&str>) -> Result<Self, PickError> {
        let lane = pick_server(events, name)?.clone();
        let mut out = Recording {
            lane: lane.clone(),
            triggers: Vec::new(),
            session_id: None,
            listened: false,
        };
        // The `seq`s of the client's `GET` requests: what streamed in reply to them was sent
        // on the standalone stream.
        let mut gets: Vec<u64> = Vec::new();
        // Recorded `seq` of a client message -> its trigger, for the answer wherever it comes
        // and for what streamed in reply to it.
        let mut by_seq: HashMap<u64, usize> = HashMap::new();
        // Recorded `seq` of a server request -> its trigger and its id (as JSON text).
        let mut server_asked: HashMap<u64, (usize, String)> = HashMap::new();
        for (e, d) in events.iter().zip(&rpc.derived) {
            if !e.channel.carries_jsonrpc() {
                continue;
            }
            let http = e.http();
            if e.to == lane {
                if http.and_then(|h| h.method.as_deref()) == Some("GET") {
                    gets.push(e.seq);
                    out.listened = true;
                    continue;
                }
                if let (Kind::Response | Kind::Error, Pairing::Answers(asked)) =
                    (&d.kind, &d.pairing)
                {
                    // The recorded client answered the server here: the rest waits for it.
                    if let Some((i, id)) = server_asked.get(asked) {
                        out.triggers[*i].sent.push(Sent::Wait(id.clone()));
                    }
                    continue;
                }
                if !matches!(d.kind, Kind::Request | Kind::Notification) {
                    continue;
                }
                let text = e.text();
                let msg: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                let token = answer::span(&text, &["params", "_meta", "progressToken"]);
                let params = comparable(msg.get("params"));
                by_seq.insert(e.seq, out.triggers.len());
                out.triggers.push(Trigger {
                    seq: e.seq,
                    method: d.method.as_deref().unwrap_or_default().to_string(),
                    request: d.kind == Kind::Request,
                    key: key(&params),
                    params,
                    progress_token: token.map(|(s, e)| text[s..e].to_string()),
                    sent: Vec::new(),
                    streamed: false,
                });
            } else if e.from == lane {
                if out.session_id.is_none() {
                    out.session_id = session_id(e);
                }
                let raw = e.text().into_owned();
                let replied = in_reply_to(e);
                let trigger_of = |seq: u64| by_seq.get(&seq).copied();
                match (&d.kind, &d.pairing) {
                    (Kind::Response | Kind::Error, Pairing::Answers(asked)) => {
                        if let Some(i) = trigger_of(*asked) {
                            let trigger = &mut out.triggers[i];
                            trigger.streamed |= replied.is_some();
                            trigger.sent.push(Sent::Answer(raw));
                        }
                    }
                    (Kind::Request | Kind::Notification, _) => {
                        let listen = replied.is_some_and(|r| gets.contains(&r));
                        // On its request's own stream, else after the last client message.
                        let at = replied.and_then(trigger_of);
                        let at = at.or_else(|| out.triggers.len().checked_sub(1));
                        if let Some(i) = at {
                            if d.kind == Kind::Request {
                                let id = answer::span(&raw, &["id"]).and_then(|(s, e)| {
                                    serde_json::from_str::<Value>(&raw[s..e]).ok()
                                });
                                if let Some(id) = id {
                                    server_asked.insert(e.seq, (i, id.to_string()));
                                }
                            }
                            let trigger = &mut out.triggers[i];
                            trigger.streamed |= replied.is_some() && !listen;
                            trigger.sent.push(Sent::Message { raw, listen });
                        }
                    }
                    _ => {}
                }
            }
        }
        if !out.triggers.iter().any(|t| t.request) {
            let name = lane.server_name().unwrap_or_default().to_string();
            return Err(PickError::NoRequests(name));
        }
        Ok(out)
    }

    /// Which revision family the recording speaks: `true` when its client never sent
    /// `initialize` (2026-07-28, stateless).
    pub fn stateless(&self) -> bool {
        !self.triggers.iter().any(|t| t.method == "initialize")
    }
}

/// The `Mcp-Session-Id` a server's HTTP response carries.
fn session_id(e: &Event) -> Option<String> {
    let http = e.http()?;
    let (_, value) = http
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))?;
    Some(value.to_string())
}

#[cfg(test)]
mod tests;
