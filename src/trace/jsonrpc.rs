//! JSON-RPC 2.0 classification of one recorded payload.
//!
//! This layer knows JSON-RPC, not MCP: it says whether a line is a request, a notification, a
//! response, an error, or something invalid (not JSON, not JSON-RPC 2.0, a batch array), and
//! pulls out the few fields correlation needs. Invalid input is a classification, never an
//! error: a tracer shows what it cannot parse.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use super::envelope::{Envelope, Top, Version};
pub use super::envelope::{ErrorMembers, Params, ResultMembers};
use super::shared::Shared;

/// A JSON-RPC id. Numbers and strings are different ids even when they print alike.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RpcId {
    /// An integer that fits an `i64` (nearly every id), kept without an allocation.
    Int(i64),
    /// Any other number, kept in its JSON spelling (`1.5`, `1e3`, `18446744073709551616`).
    Number(Shared),
    String(Shared),
}

impl RpcId {
    pub(super) fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Number(n) => Some(match n.as_i64() {
                Some(i) => RpcId::Int(i),
                None => RpcId::Number(n.to_string().into()),
            }),
            Value::String(s) => Some(RpcId::String(s.as_str().into())),
            _ => None,
        }
    }

    /// Whether `v` (for example a `subscriptionId` or a cancelled `requestId`) names this id.
    pub fn matches(&self, v: &Value) -> bool {
        RpcId::from_value(v).as_ref() == Some(self)
    }
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcId::Int(i) => write!(f, "{i}"),
            RpcId::Number(n) => f.write_str(n),
            RpcId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// What kind of JSON-RPC message a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MessageKind {
    Request,
    Notification,
    Response,
    Error,
    #[default]
    Invalid,
}

/// Why a payload is not a valid JSON-RPC message. `Display` says it in Sightline's English (the
/// trace, JSON outputs); `analysis::trace_error::invalid` says it in each language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Invalidity {
    NotUtf8,
    /// An array; the detail is the number of items.
    Batch,
    NotObject,
    EmptyLine,
    /// The detail is the JSON reader's complaint.
    NotJson,
    /// The detail is the `jsonrpc` member, as JSON.
    WrongVersion,
    NoVersion,
    BadId,
    MethodNotString,
    NullIdRequest,
    ResultAndError,
    Neither,
    ResultWithoutId,
    /// An event with neither `raw` nor a valid `raw_b64`.
    NoPayload,
}

/// What is wrong with an invalid payload: the reason and the one detail some reasons carry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    pub why: Invalidity,
    pub detail: Option<Shared>,
}

impl Problem {
    pub fn new(why: Invalidity) -> Self {
        Problem { why, detail: None }
    }

    fn with(why: Invalidity, detail: impl ToString) -> Self {
        Problem {
            why,
            detail: Some(Shared::new(detail.to_string())),
        }
    }

    /// The detail, or nothing.
    pub fn detail(&self) -> &str {
        self.detail.as_deref().unwrap_or("")
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.detail();
        match self.why {
            Invalidity::NotUtf8 => f.write_str("not UTF-8 text"),
            Invalidity::Batch => write!(
                f,
                "a JSON-RPC batch of {d} messages (batches were allowed only in MCP 2025-03-26)"
            ),
            Invalidity::NotObject => f.write_str("JSON, but not a JSON-RPC object"),
            Invalidity::EmptyLine => f.write_str("an empty line"),
            Invalidity::NotJson => write!(f, "not JSON ({d})"),
            Invalidity::WrongVersion => write!(f, "`jsonrpc` is {d}, not \"2.0\""),
            Invalidity::NoVersion => {
                f.write_str("JSON, but not JSON-RPC 2.0 (no `jsonrpc` member)")
            }
            Invalidity::BadId => f.write_str("`id` must be a string or a number"),
            Invalidity::MethodNotString => f.write_str("`method` is not a string"),
            Invalidity::NullIdRequest => f.write_str("a request with `id: null`"),
            Invalidity::ResultAndError => f.write_str("a response with both `result` and `error`"),
            Invalidity::Neither => {
                f.write_str("neither a request nor a response (a request has `method`, a response `result` or `error`)")
            }
            Invalidity::ResultWithoutId => f.write_str("a result without an `id`"),
            Invalidity::NoPayload => {
                f.write_str("no payload (neither `raw` nor a valid `raw_b64`)")
            }
        }
    }
}

/// One payload, classified, with the members correlation reads (borrowed from the payload
/// where they have no escapes; see [`super::envelope`]).
#[derive(Debug, Clone, Default)]
pub struct Message<'a> {
    pub kind: MessageKind,
    pub method: Option<Cow<'a, str>>,
    pub id: Option<RpcId>,
    /// For invalid payloads: what is wrong.
    pub problem: Option<Problem>,
    /// What `params` holds (empty when it is absent or not an object).
    pub params: Params<'a>,
    /// `result`, when present (empty when it is not an object).
    pub result: Option<ResultMembers<'a>>,
    /// `error`, when present (empty when it is not an object).
    pub error: Option<ErrorMembers<'a>>,
}

impl<'a> Message<'a> {
    /// An invalid message.
    pub fn invalid(problem: Problem) -> Self {
        Message {
            problem: Some(problem),
            ..Message::default()
        }
    }
}

/// Classifies one payload (a stdio line without its newline, or an HTTP body or SSE `data`).
pub fn classify(bytes: &[u8]) -> Message<'_> {
    // Bytes that are not UTF-8 are never JSON (its strings are UTF-8, and so is its syntax).
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Message::invalid(Problem::new(Invalidity::NotUtf8));
    };
    classify_text(text)
}

/// [`classify`] of a payload already known to be text (an event's `raw`).
pub fn classify_text(text: &str) -> Message<'_> {
    let bytes = text.as_bytes();
    let envelope = match serde_json::from_str::<Top<'_>>(text) {
        Ok(Top::Object(envelope)) => envelope,
        Ok(Top::Array(items)) => {
            return Message::invalid(Problem::with(Invalidity::Batch, items));
        }
        Ok(Top::Scalar) => return Message::invalid(Problem::new(Invalidity::NotObject)),
        Err(e) => {
            return Message::invalid(if bytes.iter().all(u8::is_ascii_whitespace) {
                Problem::new(Invalidity::EmptyLine)
            } else {
                Problem::with(Invalidity::NotJson, e)
            });
        }
    };
    let Envelope {
        jsonrpc,
        id: id_value,
        method,
        params,
        result,
        error,
    } = *envelope;
    match jsonrpc {
        Some(Version::Two) => {}
        Some(Version::Other(other)) => {
            return Message::invalid(Problem::with(Invalidity::WrongVersion, other));
        }
        None => return Message::invalid(Problem::new(Invalidity::NoVersion)),
    }
    let id = id_value.as_ref().and_then(RpcId::from_value);
    let bad_id = matches!(&id_value, Some(v) if !v.is_null() && id.is_none());
    if bad_id {
        return Message::invalid(Problem::new(Invalidity::BadId));
    }

    if let Some(method) = method {
        let Some(method) = method else {
            return Message::invalid(Problem::new(Invalidity::MethodNotString));
        };
        let kind = match (&id, &id_value) {
            (Some(_), _) => MessageKind::Request,
            (None, Some(Value::Null)) => {
                return Message::invalid(Problem::new(Invalidity::NullIdRequest));
            }
            (None, _) => MessageKind::Notification,
        };
        return Message {
            kind,
            method: Some(method),
            id,
            problem: None,
            params,
            result,
            error,
        };
    }
    let kind = match (result.is_some(), error.is_some()) {
        (true, false) => MessageKind::Response,
        (false, true) => MessageKind::Error,
        (true, true) => return Message::invalid(Problem::new(Invalidity::ResultAndError)),
        (false, false) => {
            return Message::invalid(Problem::new(Invalidity::Neither));
        }
    };
    if id.is_none() && kind == MessageKind::Response {
        return Message::invalid(Problem::new(Invalidity::ResultWithoutId));
    }
    Message {
        kind,
        method: None,
        id,
        problem: None,
        params,
        result,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> MessageKind {
        classify(s.as_bytes()).kind
    }

    #[test]
    fn a_wrong_version_is_said_as_the_json_it_is() {
        for version in [
            r#""2.0 ""#,
            r#""1.0""#,
            r#""2\u002e0""#,
            "2.0",
            "2",
            "-2",
            "18446744073709551615",
            "true",
            "null",
            "[2,0]",
            r#"{"v":"2.0","w":[1.5]}"#,
            r#""""#,
        ] {
            let line = format!(r#"{{"jsonrpc":{version},"id":1,"method":"m"}}"#);
            let msg = classify(line.as_bytes());
            let value: Value = serde_json::from_str(version).expect("json");
            if value == "2.0" {
                assert_eq!(msg.kind, MessageKind::Request, "{line}");
                continue;
            }
            let problem = msg.problem.expect("invalid");
            assert_eq!(problem.why, Invalidity::WrongVersion, "{line}");
            assert_eq!(problem.detail(), value.to_string(), "{line}");
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#),
            MessageKind::Request
        );
        assert_eq!(
            kind(r#"{"method":"x","jsonrpc":"2.0"}"#),
            MessageKind::Notification
        );
        assert_eq!(
            kind(r#"{"result":{},"jsonrpc":"2.0","id":"a"}"#),
            MessageKind::Response
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#),
            MessageKind::Error
        );
        assert_eq!(kind("debug: hello"), MessageKind::Invalid);
        assert_eq!(kind(r#"{"hello":"world"}"#), MessageKind::Invalid);
        assert_eq!(
            kind(r#"[{"jsonrpc":"2.0","method":"a"}]"#),
            MessageKind::Invalid
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#),
            MessageKind::Invalid
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":{},"method":"a"}"#),
            MessageKind::Invalid
        );
    }

    #[test]
    fn ids_keep_their_type() {
        let n = classify(br#"{"jsonrpc":"2.0","id":-3,"method":"a"}"#).id;
        let s = classify(br#"{"jsonrpc":"2.0","id":"-3","method":"a"}"#).id;
        assert_eq!(n, Some(RpcId::Int(-3)));
        assert_eq!(s, Some(RpcId::String("-3".into())));
        assert_ne!(n, s);
    }

    #[test]
    fn invalid_lines_say_why() {
        let m = classify(b"\xff\xfe not utf8");
        let problem = m.problem.expect("a problem");
        assert_eq!(problem.why, Invalidity::NotUtf8);
        assert_eq!(problem.to_string(), "not UTF-8 text");
        let m = classify(br#"[1,2]"#);
        assert!(
            m.problem
                .is_some_and(|p| p.why == Invalidity::Batch && p.to_string().contains("batch of 2"))
        );
    }
}

#[cfg(test)]
mod members_tests {
    use super::*;

    /// `params.name`, the `_meta` revision, whether it is a retry, `serverInfo.name`.
    type Members = (Option<String>, Option<String>, bool, Option<String>);

    /// What a full `Value` says about `text`, member by member, to compare with `classify`.
    fn by_value(text: &str) -> Option<Members> {
        let v: Value = serde_json::from_str(text).ok()?;
        let s = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        let retry = ["/params/requestState", "/params/inputResponses"]
            .iter()
            .any(|p| v.pointer(p).is_some());
        Some((
            s("/params/name"),
            s("/params/_meta/io.modelcontextprotocol~1protocolVersion"),
            retry,
            s("/result/serverInfo/name"),
        ))
    }

    #[test]
    fn members_read_as_a_json_value_reads_them() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"\u00e9\"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"arguments":{"name":"no"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[{"name":"no"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"requestState":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":[1,{"a":[]}],"inputResponses":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1"},"serverInfo":{"name":"t"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":"s"}}"#,
        ];
        for text in cases {
            let m = classify(text.as_bytes());
            let ours = (
                m.params.name.as_deref().map(str::to_string),
                m.params
                    .meta
                    .protocol_version
                    .as_deref()
                    .map(str::to_string),
                m.params.retry,
                m.result
                    .as_ref()
                    .and_then(|r| r.server_name.as_deref())
                    .map(str::to_string),
            );
            assert_eq!(Some(ours), by_value(text), "{text}");
        }
    }

    #[test]
    fn a_payload_is_json_here_exactly_when_it_is_a_json_value() {
        let cases = [
            r#"{"jsonrpc":"2.0","method":"a","params":{"x":"\q"}}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":{"x":1e400}}"#,
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"x\":\"tab\tinside\"}}",
            r#"{"jsonrpc":"2.0","method":"a"} trailing"#,
            r#"{"jsonrpc":"2.0","method":"a","params":{"x":[1,2,}}"#,
            r#"{"jsonrpc":"2.0","method":"a","params":{"x":"\ud800"}}"#,
        ];
        for text in cases {
            let value = serde_json::from_str::<Value>(text);
            let m = classify(text.as_bytes());
            let not_json = m
                .problem
                .as_ref()
                .is_some_and(|p| p.why == Invalidity::NotJson);
            assert_eq!(not_json, value.is_err(), "{text}: {:?}", m.problem);
            if let Err(e) = value {
                let said = m.problem.as_ref().map(ToString::to_string);
                assert_eq!(said, Some(format!("not JSON ({e})")), "{text}");
            }
        }
        let error = classify(br#"{"jsonrpc":"2.0","id":1,"error":"down"}"#);
        assert_eq!(error.kind, MessageKind::Error);
        assert_eq!(error.error, Some(ErrorMembers::default()));
        let error = classify(br#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#);
        let members = error.error.expect("error members");
        assert_eq!(
            (members.code, members.message.as_deref()),
            (None, Some("m"))
        );
    }
}
