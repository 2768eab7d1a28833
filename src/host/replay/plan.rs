//! What a replay sends: the client's side of one server's session, read from a trace.
//!
//! The client's requests and notifications to the chosen server, in recorded order, each with
//! its recorded bytes; and the client's recorded answers to the server's own requests
//! (sampling, elicitation, roots), queued per method so the new server's requests get them in
//! order, whatever ids it uses. A 2026-07-28 multi-round-trip retry is marked, so the engine
//! can put the *new* server's `requestState` into it. Over Streamable HTTP, where the client
//! opened the standalone `GET` stream, so the replay opens it at the same point.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::analysis::mock::PickError;
use crate::i18n::Said;
use crate::trace::{Analysis, Channel, Event, Kind, Lane, Pairing, Shared};

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
    /// The HTTP request's headers as recorded (empty on stdio).
    pub headers: Vec<(Shared, Shared)>,
    /// The protocol revision the request asks for: `initialize`'s `protocolVersion`, or a
    /// 2026-07-28 request's `_meta` one.
    pub version: Option<String>,
    /// The recorded answer of an `initialize` or `server/discover` (to see whether the new
    /// server refuses the recorded revision).
    pub recorded_answer: Option<Value>,
}

/// Everything a replay needs from the recorded trace.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The server's lane in the recording.
    pub lane: Option<Lane>,
    pub steps: Vec<Step>,
    /// Method of a server request -> the client's recorded answers to it, in order (exact text).
    pub answers: HashMap<String, VecDeque<String>>,
    /// The recording is Streamable HTTP, and it ended the session with a `DELETE`.
    pub http: bool,
    pub delete: bool,
    /// The recorded client opened the standalone `GET` stream (Streamable HTTP).
    pub listen: Option<Listen>,
}

/// Where and how the recorded client opened the standalone `GET` stream (its first one).
#[derive(Debug, Clone, PartialEq)]
pub struct Listen {
    /// How many steps were sent before it.
    pub after: usize,
    /// Its recorded headers.
    pub headers: Vec<(Shared, Shared)>,
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

impl From<PickError> for PlanError {
    fn from(e: PickError) -> PlanError {
        match e {
            PickError::NoServer => PlanError::NoServer,
            PickError::Several(list) => PlanError::Several(list),
            PickError::Unknown(name, list) => PlanError::Unknown(name, list),
            PickError::NoRequests(name) => PlanError::NoRequests(name),
        }
    }
}

/// Reads the client side of `server`'s session (the only server when `None`).
pub fn plan(events: &[Event], rpc: &Analysis, server: Option<&str>) -> Result<Plan, PlanError> {
    let lane = crate::analysis::mock::pick_server(events, server)?;
    let mut out = Plan {
        lane: Some(lane.clone()),
        ..Plan::default()
    };
    for (i, (e, d)) in events.iter().zip(&rpc.derived).enumerate() {
        if !e.channel.carries_jsonrpc() || &e.to != lane {
            continue;
        }
        let http_method = e.http().and_then(|h| h.method.as_deref());
        out.http |= e.channel == Channel::Http;
        out.delete |= http_method == Some("DELETE");
        if http_method == Some("GET") {
            if out.listen.is_none() {
                out.listen = Some(Listen {
                    after: out.steps.len(),
                    headers: e.http().map(|h| h.headers.clone()).unwrap_or_default(),
                });
            }
            continue;
        }
        let method = d.method.as_deref().unwrap_or_default().to_string();
        match d.kind {
            Kind::Request | Kind::Notification => {
                let raw = e.text().into_owned();
                let recorded_answer = match d.pairing {
                    Pairing::AnsweredBy(_)
                        if matches!(method.as_str(), "initialize" | "server/discover") =>
                    {
                        rpc.paired(events, i)
                            .and_then(|a| serde_json::from_str(&events[a].text()).ok())
                    }
                    _ => None,
                };
                out.steps.push(Step {
                    recorded_answer,
                    seq: e.seq,
                    version: requested_version(&method, &raw),
                    raw,
                    method,
                    request: d.kind == Kind::Request,
                    retry_of: d.retry_of(),
                    answered: matches!(d.pairing, Pairing::AnsweredBy(_)),
                    headers: e.http().map(|h| h.headers.clone()).unwrap_or_default(),
                });
            }
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

/// The `_meta` key of a 2026-07-28 request's protocol revision.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The revision a request asks for, if it names one.
fn requested_version(method: &str, raw: &str) -> Option<String> {
    let v: Value = serde_json::from_str(raw).ok()?;
    let params = v.get("params")?;
    let named = match method {
        "initialize" => params.get("protocolVersion"),
        _ => params.get("_meta").and_then(|m| m.get(META_VERSION)),
    };
    named.and_then(Value::as_str).map(str::to_string)
}

/// Why `answer` (the new server's, to `step`) refuses the revision the recording speaks: an
/// `initialize` answered with another `protocolVersion` than the recorded answer's (or an
/// error where the recording has a result), a `server/discover` whose `supportedVersions`
/// lacks it (or an error where the recording has a result: a server of an older revision),
/// or an "unsupported protocol version" error (-32022) to any request.
pub fn refused_version(step: &Step, answer: &Value) -> Option<Said> {
    let asked = step.version.as_deref()?;
    let recorded = step.recorded_answer.as_ref();
    if let Some(error) = answer.get("error") {
        let code = error.get("code").and_then(Value::as_i64);
        let recorded_ok = recorded.is_some_and(|r| r.get("result").is_some());
        let handshake = matches!(step.method.as_str(), "initialize" | "server/discover");
        if code == Some(-32022) || (handshake && recorded_ok) {
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            return Some(
                Said::new("replay_stop.refused_error")
                    .with("version", asked)
                    .with("code", code.map_or("?".to_string(), |c| c.to_string()))
                    .with("message", message),
            );
        }
        return None;
    }
    let result = answer.get("result")?;
    match step.method.as_str() {
        "initialize" => {
            let got = result.get("protocolVersion").and_then(Value::as_str)?;
            let expected = recorded
                .and_then(|r| r.pointer("/result/protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or(asked);
            (got != expected).then(|| {
                Said::new("replay_stop.refused_answered")
                    .with("version", expected)
                    .with("got", got)
            })
        }
        "server/discover" => {
            let supported = result.get("supportedVersions")?.as_array()?;
            (!supported.iter().any(|v| v.as_str() == Some(asked))).then(|| {
                let list: Vec<&str> = supported.iter().filter_map(Value::as_str).collect();
                Said::new("replay_stop.refused_supports")
                    .with("version", asked)
                    .with("list", list.join(", "))
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Language, Words};
    use serde_json::json;

    fn step(method: &str, raw: Value, recorded: Option<Value>) -> Step {
        let raw = raw.to_string();
        Step {
            seq: 2,
            version: requested_version(method, &raw),
            raw,
            method: method.into(),
            request: true,
            retry_of: None,
            answered: true,
            headers: Vec::new(),
            recorded_answer: recorded,
        }
    }

    #[test]
    fn a_server_refuses_the_recorded_revision_by_its_answer_to_the_handshake() {
        let init = step(
            "initialize",
            json!({"id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}),
            Some(json!({"id": 0, "result": {"protocolVersion": "2025-11-25"}})),
        );
        let same = json!({"id": 0, "result": {"protocolVersion": "2025-11-25"}});
        assert_eq!(refused_version(&init, &same), None);
        let older = json!({"id": 0, "result": {"protocolVersion": "2024-11-05"}});
        assert_eq!(
            refused_version(&init, &older)
                .map(|s| s.english())
                .as_deref(),
            Some("the server refuses protocol version 2025-11-25: it answered 2024-11-05")
        );
        let pt = refused_version(&init, &older).map(|s| s.say(Words::of(Language::Pt)));
        assert_eq!(
            pt.as_deref(),
            Some("o servidor recusa a versão de protocolo 2025-11-25: ele respondeu 2024-11-05")
        );
        let error = json!({"id": 0, "error": {"code": -32602, "message": "bad version"}});
        assert!(
            refused_version(&init, &error)
                .is_some_and(|w| w.english().contains("-32602 `bad version`"))
        );

        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let discover = step(
            "server/discover",
            json!({"id": 0, "method": "server/discover", "params": {"_meta": meta}}),
            Some(json!({"id": 0, "result": {"supportedVersions": ["2026-07-28"]}})),
        );
        let without = json!({"id": 0, "result": {"supportedVersions": ["2025-11-25"]}});
        assert!(
            refused_version(&discover, &without)
                .map(|s| s.english())
                .is_some_and(|w| w.ends_with("it supports 2025-11-25"))
        );
        let legacy = json!({"id": 0, "error": {"code": -32601, "message": "Method not found"}});
        assert!(refused_version(&discover, &legacy).is_some());
        // Any request answered "unsupported protocol version"; other errors are differences.
        let call = step(
            "tools/call",
            json!({"id": 5, "method": "tools/call", "params": {"_meta": meta}}),
            None,
        );
        let unsupported = json!({"id": 5, "error": {"code": -32022, "message": "unsupported"}});
        assert!(refused_version(&call, &unsupported).is_some());
        let other = json!({"id": 5, "error": {"code": -32602, "message": "no such tool"}});
        assert_eq!(refused_version(&call, &other), None);
    }

    /// Two sessions appended to one file, each counting its `seq`s from 0 and asking for its
    /// own revision: each handshake's recorded answer is its own session's (a binary search
    /// over the file's `seq`s gave both the first session's).
    #[test]
    fn in_sessions_appended_to_one_file_each_handshake_has_its_own_answer() {
        use crate::trace::{Event, analyze};
        let session = |version: &str, more: bool| {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": version}});
            let answer = json!({"jsonrpc": "2.0", "id": 0,
                "result": {"protocolVersion": version}});
            let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
            let tools = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
            let mut lines = vec![(true, init), (false, answer)];
            if more {
                lines.extend([(true, list), (false, tools)]);
            }
            lines
                .into_iter()
                .enumerate()
                .map(|(seq, (up, v))| {
                    let (host, server) = (Lane::Host, Lane::server("s"));
                    let (from, to) = if up { (host, server) } else { (server, host) };
                    let t = crate::trace::now();
                    let bytes = v.to_string().into_bytes();
                    Event::with_bytes(seq as u64, t, from, to, Channel::Stdio, bytes)
                })
                .collect::<Vec<Event>>()
        };
        let events = [session("2025-06-18", true), session("2025-11-25", false)].concat();
        let plan = plan(&events, &analyze(&events), None).expect("a plan");
        let answered: Vec<(String, Option<Value>)> = plan
            .steps
            .iter()
            .map(|s| {
                let version = s.recorded_answer.as_ref();
                let version = version.and_then(|a| a.pointer("/result/protocolVersion"));
                (s.method.clone(), version.cloned())
            })
            .collect();
        assert_eq!(
            answered,
            [
                ("initialize".into(), Some(json!("2025-06-18"))),
                ("tools/list".into(), None),
                ("initialize".into(), Some(json!("2025-11-25"))),
            ]
        );
    }
}
