//! JSON-RPC 2.0 classification of one recorded payload.
//!
//! This layer knows JSON-RPC, not MCP: it says whether a line is a request, a notification, a
//! response, an error, or something invalid (not JSON, not JSON-RPC 2.0, a batch array), and
//! pulls out the few fields correlation needs. Invalid input is a classification, never an
//! error: a tracer shows what it cannot parse.

use std::fmt;

use serde_json::Value;

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
    fn from_value(v: &Value) -> Option<Self> {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    Request,
    Notification,
    Response,
    Error,
    Invalid,
}

/// One payload, classified. `value` is the parsed JSON when it parsed at all.
#[derive(Debug, Clone)]
pub struct Message {
    pub kind: MessageKind,
    pub method: Option<String>,
    pub id: Option<RpcId>,
    /// For invalid payloads: what is wrong, in words.
    pub problem: Option<String>,
    pub value: Option<Value>,
}

impl Message {
    fn invalid_value(problem: impl Into<String>, value: Option<Value>) -> Self {
        Message {
            kind: MessageKind::Invalid,
            method: None,
            id: None,
            problem: Some(problem.into()),
            value,
        }
    }

    /// An invalid message with no JSON behind it.
    pub fn invalid(problem: impl Into<String>) -> Self {
        Message::invalid_value(problem, None)
    }

    /// `params` of a request or notification.
    pub fn params(&self) -> Option<&Value> {
        self.value.as_ref()?.get("params")
    }

    /// `result` of a response.
    pub fn result(&self) -> Option<&Value> {
        self.value.as_ref()?.get("result")
    }

    /// `error` of an error response.
    pub fn error(&self) -> Option<&Value> {
        self.value.as_ref()?.get("error")
    }
}

/// Classifies one payload (a stdio line without its newline, or an HTTP body or SSE `data`).
pub fn classify(bytes: &[u8]) -> Message {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let what = if std::str::from_utf8(bytes).is_err() {
                "not UTF-8 text".to_string()
            } else if bytes.iter().all(u8::is_ascii_whitespace) {
                "an empty line".to_string()
            } else {
                format!("not JSON ({e})")
            };
            return Message::invalid_value(what, None);
        }
    };
    let obj = match &value {
        Value::Object(obj) => obj,
        Value::Array(items) => {
            let problem = format!(
                "a JSON-RPC batch of {} messages (batches were allowed only in MCP 2025-03-26)",
                items.len()
            );
            return Message::invalid_value(problem, Some(value));
        }
        _ => return Message::invalid_value("JSON, but not a JSON-RPC object", Some(value)),
    };
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            let problem = format!("`jsonrpc` is {other}, not \"2.0\"");
            return Message::invalid_value(problem, Some(value));
        }
        None => {
            return Message::invalid_value(
                "JSON, but not JSON-RPC 2.0 (no `jsonrpc` member)",
                Some(value),
            );
        }
    }
    let id_value = obj.get("id");
    let id = id_value.and_then(RpcId::from_value);
    let bad_id = matches!(id_value, Some(v) if !v.is_null() && id.is_none());
    if bad_id {
        return Message::invalid_value("`id` must be a string or a number", Some(value));
    }

    if let Some(method) = obj.get("method") {
        let Some(method) = method.as_str().map(str::to_string) else {
            return Message::invalid_value("`method` is not a string", Some(value));
        };
        let kind = match (&id, id_value) {
            (Some(_), _) => MessageKind::Request,
            (None, Some(Value::Null)) => {
                return Message::invalid_value("a request with `id: null`", Some(value));
            }
            (None, _) => MessageKind::Notification,
        };
        return Message {
            kind,
            method: Some(method),
            id,
            problem: None,
            value: Some(value),
        };
    }
    let kind = match (obj.contains_key("result"), obj.contains_key("error")) {
        (true, false) => MessageKind::Response,
        (false, true) => MessageKind::Error,
        (true, true) => {
            return Message::invalid_value(
                "a response with both `result` and `error`",
                Some(value),
            );
        }
        (false, false) => {
            return Message::invalid_value(
                "neither a request (`method`) nor a response (`result`/`error`)",
                Some(value),
            );
        }
    };
    if id.is_none() && kind == MessageKind::Response {
        return Message::invalid_value("a result without an `id`", Some(value));
    }
    Message {
        kind,
        method: None,
        id,
        problem: None,
        value: Some(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> MessageKind {
        classify(s.as_bytes()).kind
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
        assert_eq!(m.problem.as_deref(), Some("not UTF-8 text"));
        let m = classify(br#"[1,2]"#);
        assert!(
            m.problem
                .as_deref()
                .is_some_and(|p| p.contains("batch of 2"))
        );
    }
}
