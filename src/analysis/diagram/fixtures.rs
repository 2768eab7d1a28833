//! Traces built one event at a time, for the diagram's tests and the exports' tests (which
//! draw the same [`Diagram`](super::Diagram)).

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{Value, json};

use crate::trace::{Channel, Event, HttpInfo, Lane, ProcessInfo};

pub(crate) fn at(ms: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap() + Duration::milliseconds(ms)
}

/// Builds a trace one event at a time; `seq` follows the order of the calls.
#[derive(Default)]
pub(crate) struct Trace(pub(crate) Vec<Event>);

impl Trace {
    pub(crate) fn push(
        &mut self,
        ms: i64,
        from: &str,
        to: &str,
        channel: Channel,
        raw: &str,
    ) -> &mut Event {
        let seq = self.0.len() as u64;
        self.0.push(Event::with_bytes(
            seq,
            at(ms),
            Lane::from(from),
            Lane::from(to),
            channel,
            raw.as_bytes().to_vec(),
        ));
        self.0.last_mut().unwrap()
    }

    pub(crate) fn rpc(&mut self, ms: i64, from: &str, to: &str, msg: Value) {
        self.push(ms, from, to, Channel::Stdio, &msg.to_string());
    }

    pub(crate) fn process(&mut self, ms: i64, from: &str, to: &str, info: ProcessInfo) {
        let e = self.push(ms, from, to, Channel::Process, "");
        e.raw = None;
        e.set_process(Some(info));
    }

    pub(crate) fn llm_request(&mut self, ms: i64, url: &str, body: Value) {
        let e = self.push(ms, "host", "llm", Channel::LlmHttp, &body.to_string());
        e.set_http(Some(HttpInfo {
            method: Some("POST".into()),
            url: Some(url.into()),
            ..HttpInfo::default()
        }));
    }

    pub(crate) fn llm_response(&mut self, ms: i64, status: u16, body: Value) {
        let e = self.push(ms, "llm", "host", Channel::LlmHttp, &body.to_string());
        e.set_http(Some(HttpInfo {
            status: Some(status),
            ..HttpInfo::default()
        }));
    }
}

pub(crate) fn spawn() -> ProcessInfo {
    ProcessInfo {
        event: "spawn".into(),
        command: vec![
            "/usr/local/bin/sightline".into(),
            "demo-server".into(),
            "weather".into(),
        ],
        pid: Some(42),
        ..ProcessInfo::default()
    }
}

pub(crate) fn exit(code: Option<i32>, signal: Option<i32>) -> ProcessInfo {
    ProcessInfo {
        event: "exit".into(),
        pid: Some(42),
        code,
        signal,
        ..ProcessInfo::default()
    }
}

pub(crate) const MESSAGES: &str = "http://127.0.0.1:9/v1/messages";

/// The seed article's loop, with the Anthropic shape.
pub(crate) fn weather() -> Trace {
    let mut t = Trace::default();
    t.push(
        0,
        "user",
        "host",
        Channel::Note,
        "What's the weather in Seoul?",
    );
    t.process(1, "host", "server:weather", spawn());
    t.rpc(
        2,
        "host",
        "server:weather",
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}),
    );
    t.push(
        3,
        "server:weather",
        "host",
        Channel::Stderr,
        "weather MCP server running on stdio",
    );
    t.rpc(
        16,
        "server:weather",
        "host",
        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"weather"}}}),
    );
    t.rpc(
        17,
        "host",
        "server:weather",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    t.rpc(
        18,
        "host",
        "server:weather",
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    );
    t.rpc(
        19,
        "server:weather",
        "host",
        json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}]}}),
    );
    let tools = json!([{"name":"get_weather","input_schema":{"type":"object"}}]);
    t.llm_request(
        20,
        MESSAGES,
        json!({"model":"m","max_tokens":10,"tools":tools,"messages":[{"role":"user","content":"What's the weather in Seoul?"}]}),
    );
    t.llm_response(
        22,
        200,
        json!({"content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Seoul"}}],"stop_reason":"tool_use"}),
    );
    t.rpc(
        23,
        "host",
        "server:weather",
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Seoul"}}}),
    );
    t.rpc(
        24,
        "server:weather",
        "host",
        json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Seoul: 15C"}],"isError":false}}),
    );
    t.llm_request(
        25,
        MESSAGES,
        json!({"model":"m","max_tokens":10,"tools":tools,"messages":[
            {"role":"user","content":"What's the weather in Seoul?"},
            {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Seoul"}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Seoul: 15C"}]}
        ]}),
    );
    t.llm_response(
        26,
        200,
        json!({"content":[{"type":"text","text":"It is 15C.\nEnjoy!"}],"stop_reason":"end_turn"}),
    );
    t.push(27, "host", "user", Channel::Note, "It is 15C.");
    t.process(28, "server:weather", "host", exit(Some(0), None));
    t
}

/// The request line or the status of a Streamable HTTP event.
pub(crate) enum Line<'a> {
    Request(&'a str, &'a str),
    Status(u16),
    Neither,
}

impl Trace {
    /// An `http` event between `host` and `server:everything`, up (host to server) or down,
    /// with `headers` and `extra` (`in_reply_to`, `sse_id`...) as the HTTP proxy records them.
    pub(crate) fn http(
        &mut self,
        up: bool,
        body: &str,
        line: Line,
        headers: &[(&str, &str)],
        extra: Value,
    ) {
        let (host, server) = ("host", "server:everything");
        let (from, to) = if up { (host, server) } else { (server, host) };
        let ms = self.0.len() as i64;
        let e = self.push(ms, from, to, Channel::Http, body);
        let (method, url, status) = match line {
            Line::Request(m, u) => (Some(m.into()), Some(u.into()), None),
            Line::Status(s) => (None, None, Some(s)),
            Line::Neither => (None, None, None),
        };
        e.set_http(Some(HttpInfo {
            method,
            url,
            status,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
            extra: extra.as_object().cloned().unwrap_or_default().into(),
            ..HttpInfo::default()
        }));
    }
}

pub(crate) const MCP: &str = "http://127.0.0.1:3001/mcp?token=[redacted]";
pub(crate) const SESSION: (&str, &str) = ("mcp-session-id", "6fd170d9-f617-4047-b614-2af46d1bd6f2");
pub(crate) const SSE: (&str, &str) = ("content-type", "text/event-stream");

/// What the HTTP proxy records for a TypeScript-SDK client and server, plus failures.
pub(crate) fn streamable_http() -> Trace {
    let mut t = Trace::default();
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}});
    t.http(
        true,
        &init.to_string(),
        Line::Request("POST", MCP),
        &[],
        json!({}),
    );
    // 1: the SSE priming event carries the status, the result follows on the same stream.
    t.http(
        false,
        "",
        Line::Status(200),
        &[SSE, SESSION],
        json!({"sse_id":"p1","retry":1000,"in_reply_to":0}),
    );
    let result = json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}});
    t.http(
        false,
        &result.to_string(),
        Line::Neither,
        &[],
        json!({"sse_id":"m1","in_reply_to":0}),
    );
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    t.http(
        true,
        &initialized.to_string(),
        Line::Request("POST", MCP),
        &[SESSION],
        json!({}),
    );
    // 4
    t.http(false, "", Line::Status(202), &[], json!({"in_reply_to":3}));
    // 5: the standalone stream, later resumed.
    t.http(
        true,
        "",
        Line::Request("GET", MCP),
        &[SESSION, ("accept", "text/event-stream")],
        json!({}),
    );
    t.http(
        true,
        "",
        Line::Request("GET", MCP),
        &[
            SESSION,
            ("accept", "text/event-stream"),
            ("last-event-id", "m1"),
        ],
        json!({}),
    );
    // 7: a JSON-RPC error in a 400, for a request with a stale session.
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    t.http(
        true,
        &list.to_string(),
        Line::Request("POST", MCP),
        &[("mcp-session-id", "nope")],
        json!({}),
    );
    let bad = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}});
    t.http(
        false,
        &bad.to_string(),
        Line::Status(400),
        &[],
        json!({"in_reply_to":7}),
    );
    // 9: a plain text 404 for an unknown session, an empty 404, a 503 with a result body.
    t.http(
        true,
        &list.to_string(),
        Line::Request("POST", MCP),
        &[SESSION],
        json!({}),
    );
    t.http(
        false,
        "Session not found\n",
        Line::Status(404),
        &[("content-type", "text/plain")],
        json!({"in_reply_to":9}),
    );
    t.http(false, "", Line::Status(404), &[], json!({"in_reply_to":6}));
    t.http(
        false,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        Line::Status(503),
        &[],
        json!({"in_reply_to":9}),
    );
    // 13: the end of the session, and of the standalone stream.
    t.http(
        true,
        "",
        Line::Request("DELETE", MCP),
        &[SESSION],
        json!({}),
    );
    t.http(false, "", Line::Status(200), &[], json!({"in_reply_to":13}));
    t.http(
        false,
        "",
        Line::Status(200),
        &[SSE],
        json!({"in_reply_to":5}),
    );
    // 16: servers that refuse the optional GET stream and DELETE.
    t.http(false, "", Line::Status(405), &[], json!({"in_reply_to":5}));
    let refused =
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method not allowed."}});
    t.http(
        false,
        &refused.to_string(),
        Line::Status(405),
        &[],
        json!({"in_reply_to":13}),
    );
    // 18: an error page that is not for the transport, and a 500 with nothing in it.
    t.http(
        true,
        "",
        Line::Request("GET", "http://127.0.0.1:3001/nothere"),
        &[],
        json!({}),
    );
    t.http(
        false,
        "<pre>Cannot GET /nothere</pre>",
        Line::Status(404),
        &[],
        json!({"in_reply_to":18}),
    );
    t.http(false, "", Line::Status(500), &[], json!({}));
    t
}
