use serde_json::{Value, json};

use super::*;
use crate::trace::{Channel, HttpInfo, analyze};

/// Events of a stdio session with server `s`: `true` for the client's lines.
pub(super) fn stdio(lines: &[(bool, Value)]) -> Vec<Event> {
    lines
        .iter()
        .enumerate()
        .map(|(seq, (up, v))| {
            let (host, server) = (Lane::Host, Lane::server("s"));
            let (from, to) = if *up { (host, server) } else { (server, host) };
            let bytes = v.to_string().into_bytes();
            Event::with_bytes(
                seq as u64,
                crate::trace::now(),
                from,
                to,
                Channel::Stdio,
                bytes,
            )
        })
        .collect()
}

pub(super) fn weather() -> Vec<Event> {
    stdio(&[
        (
            true,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "clientInfo": {"name": "a"}}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 0,
            "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"}}}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params":
            {"_meta": {"progressToken": 7}, "name": "get_weather",
             "arguments": {"location": "Seoul", "units": "C"}}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 7, "progress": 1}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text",
            "text": "Seoul: 15C"}]}}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params":
            {"name": "get_weather", "arguments": {"location": "Lima", "units": "C"}}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text",
            "text": "Lima: 20C"}]}}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params":
            {"name": "get_weather", "arguments": {"location": "Seoul", "units": "C"}}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text",
            "text": "Seoul: 16C"}]}}),
        ),
    ])
}

#[test]
fn a_recording_keeps_each_request_with_its_answer_and_what_came_around_it() {
    let events = weather();
    let rec = Recording::read(&events, &analyze(&events), None).expect("a recording");
    assert_eq!(rec.lane, Lane::server("s"));
    let methods: Vec<(&str, bool, usize)> = rec
        .triggers
        .iter()
        .map(|t| (t.method.as_str(), t.request, t.sent.len()))
        .collect();
    assert_eq!(
        methods,
        [
            ("initialize", true, 1),
            ("notifications/initialized", false, 2),
            ("tools/call", true, 2),
            ("tools/call", true, 1),
            ("tools/call", true, 1),
        ]
    );
    // The params without `_meta`, the token kept apart as spelled.
    let call = &rec.triggers[2];
    assert_eq!(call.params["arguments"]["location"], "Seoul");
    assert!(call.params.get("_meta").is_none());
    assert_eq!(call.progress_token.as_deref(), Some("7"));
    assert!(matches!(&call.sent[0], Sent::Message { raw, .. } if raw.contains("progress")));
    assert!(call.answer().is_some_and(|a| a.contains("Seoul: 15C")));
    // The client answered the server's `roots/list` (id 0) after it.
    assert_eq!(rec.triggers[1].sent[1], Sent::Wait("0".into()));
    assert!(!rec.stateless());
}

#[test]
fn no_server_an_unknown_one_and_several_are_told_apart() {
    let events = weather();
    let rpc = analyze(&events);
    assert_eq!(
        Recording::read(&events, &rpc, Some("x")).map(|r| r.lane),
        Err(PickError::Unknown("x".into(), "s".into()))
    );
    assert_eq!(
        Recording::read(&[], &analyze(&[]), None).map(|r| r.lane),
        Err(PickError::NoServer)
    );
    let mut two = weather();
    let mut other = weather().remove(0);
    other.to = Lane::server("t");
    other.seq = 99;
    two.push(other);
    assert_eq!(
        pick_server(&two, None),
        Err(PickError::Several("s, t".into()))
    );
    assert_eq!(pick_server(&two, Some("t")), Ok(&Lane::server("t")));
    // A server the client only notified has nothing to answer.
    let told = stdio(&[(
        true,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )]);
    assert_eq!(
        Recording::read(&told, &analyze(&told), None).map(|r| r.lane),
        Err(PickError::NoRequests("s".into()))
    );
}

#[test]
fn over_http_what_streamed_on_the_get_stream_is_marked_as_such() {
    let mut events = stdio(&[
        (
            true,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        ),
        (false, json!({"jsonrpc": "2.0", "id": 0, "result": {}})),
        (
            true,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        (true, Value::Null),
        (
            false,
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
        ),
    ]);
    for e in &mut events {
        e.channel = Channel::Http;
    }
    let http = |method: Option<&str>, headers: &[(&str, &str)], reply: Option<u64>| {
        let mut info = HttpInfo {
            method: method.map(Into::into),
            headers: HttpInfo::headers_of(
                headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
            ),
            ..HttpInfo::default()
        };
        if let Some(seq) = reply {
            info.extra.insert("in_reply_to".into(), seq.into());
        }
        info
    };
    events[1].set_http(Some(http(None, &[("mcp-session-id", "abc")], None)));
    events[3].raw = Some("".into());
    events[3].set_http(Some(http(Some("GET"), &[], None)));
    events[4].set_http(Some(http(None, &[], Some(3))));
    events[6].set_http(Some(http(None, &[], Some(5))));
    events[7].set_http(Some(http(None, &[], Some(5))));
    let rec = Recording::read(&events, &analyze(&events), None).expect("a recording");
    assert_eq!(rec.session_id.as_deref(), Some("abc"));
    assert!(rec.listened);
    let listens = |t: &Trigger| -> Vec<bool> {
        t.sent
            .iter()
            .map(|s| matches!(s, Sent::Message { listen: true, .. }))
            .collect()
    };
    // The log on the `GET` stream follows `initialized`; the one in the `POST`'s stream is
    // the request's, streamed.
    assert_eq!(listens(&rec.triggers[1]), [true]);
    assert_eq!(listens(&rec.triggers[2]), [false, false]);
    assert!(rec.triggers[2].streamed);
    assert!(!rec.triggers[0].streamed);
}
