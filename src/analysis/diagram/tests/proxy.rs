//! Diagrams of proxy traces (statuses, server requests, Streamable HTTP), of edge cases (an
//! empty trace, a direct model-server message) and of what is shown and cut.

use serde_json::json;

use super::*;

#[test]
fn proxy_trace_statuses_and_server_requests() {
    let mut t = Trace::default();
    t.process(0, "host", "server:a", spawn());
    t.rpc(
        1,
        "host",
        "server:a",
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}),
    );
    // A server-to-client request, answered by the host.
    t.rpc(
        2,
        "server:a",
        "host",
        json!({"jsonrpc":"2.0","id":1,"method":"roots/list"}),
    );
    t.rpc(
        3,
        "host",
        "server:a",
        json!({"jsonrpc":"2.0","id":1,"result":{"roots":[]}}),
    );
    t.rpc(
        4,
        "host",
        "server:a",
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}),
    );
    t.rpc(
        5,
        "host",
        "server:a",
        json!({"jsonrpc":"2.0","id":2,"method":"nope"}),
    );
    t.rpc(
        6,
        "server:a",
        "host",
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}),
    );
    t.rpc(
        7,
        "server:a",
        "host",
        json!({"jsonrpc":"2.0","id":77,"result":{}}),
    );
    t.push(
        8,
        "server:a",
        "host",
        Channel::Stdio,
        "debug: starting\u{1b}[0m; #1",
    );
    t.rpc(
        9,
        "host",
        "server:a",
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
    );
    t.process(10, "server:a", "host", exit(None, Some(9)));
    let d = t.diagram();
    let titles: Vec<&str> = d.lanes.iter().map(|l| l.title.as_str()).collect();
    assert_eq!(titles, ["Host", "a"], "a proxy trace has no user or model");
    assert_eq!(
        labels(&d),
        [
            "spawned sightline demo-server weather",
            "tools/call slow",
            "roots/list",
            "result roots/list",
            "notifications/cancelled request #1",
            "nope",
            "error -32601 Method not found",
            "result",
            "invalid: not JSON",
            "tools/list",
            "exited signal 9 (SIGKILL)",
        ]
    );
    let statuses: Vec<&str> = d.rows.iter().map(|r| r.status.as_str()).collect();
    assert_eq!(
        statuses,
        [
            "ok",
            "cancelled",
            "ok",
            "ok",
            "ok",
            "ok",
            "error",
            "orphan",
            "invalid",
            "unanswered",
            "problem"
        ]
    );
    // roots/list goes server -> host, its answer host -> server.
    assert_eq!((d.rows[2].from(), d.rows[2].to()), (1, 0));
    assert_eq!((d.rows[3].from(), d.rows[3].to()), (0, 1));
    assert_eq!(d.rows[2].pair(), Some(3));
    assert_eq!(d.rows[5].pair(), Some(6));
    assert_eq!(d.rows[6].style, Style::Error);
    assert_eq!(d.rows[8].style, Style::Invalid);
    assert!(
        d.rows[8]
            .detail()
            .is_some_and(|s| s.contains("debug: starting\\u{001b}[0m; #1")),
        "{:?}",
        d.rows[8].detail()
    );
    assert!(
        d.rows[9]
            .detail()
            .is_some_and(|s| s.contains("unanswered: the server exited first"))
    );
    assert_eq!(d.direct_model_server, 0);
}

#[test]
fn a_direct_model_server_message_is_counted() {
    let mut t = Trace::default();
    t.push(
        0,
        "llm",
        "server:w",
        Channel::Stdio,
        r#"{"jsonrpc":"2.0","method":"x"}"#,
    );
    t.push(1, "robot", "host", Channel::Other("telepathy".into()), "hi");
    let d = t.diagram();
    assert_eq!(d.direct_model_server, 1);
    let titles: Vec<&str> = d.lanes.iter().map(|l| l.title.as_str()).collect();
    assert_eq!(titles, ["User", "Host", "LLM API", "w", "robot"]);
    assert_eq!(d.lanes[4].kind, LaneKind::Other);
    assert_eq!((d.rows[0].from(), d.rows[0].to()), (2, 3));
    assert_eq!(d.rows[1].label(), "telepathy: hi");
    // The lesson no longer says the model never talks to a server: it says the host was
    // bypassed, in each language, on lines that join into the one sentence.
    for lang in crate::i18n::Language::ALL {
        let words = crate::i18n::Words::of(lang);
        let (lines, whole) = (d.lesson_lines(words), d.lesson(words));
        assert!(lines.len() > 1 && !whole.contains('|'), "{lines:?}");
        assert!(whole.starts_with("1 ") && !whole.contains("  "), "{whole}");
        assert_eq!(lines.concat(), whole);
        assert_ne!(whole, Trace::default().diagram().lesson(words));
    }
    let en = crate::i18n::Words::of(crate::i18n::Language::En);
    assert_eq!(
        d.lesson(en),
        "1 direct message between the model and a server: the host was bypassed"
    );
}

#[test]
fn empty_trace_has_a_host_and_no_rows() {
    let d = Trace::default().diagram();
    assert_eq!(d.lanes.len(), 1);
    assert_eq!(d.lanes[0].kind, LaneKind::Host);
    assert!(d.rows.is_empty());
}

#[test]
fn visible_shows_controls_and_cuts() {
    assert_eq!(visible("a\nb\u{200b}c", 10), "a\\u{000a}b\\u{200b}c");
    assert_eq!(visible("abcdef", 3), "abc…");
    assert_eq!(visible("abc", 3), "abc");
    assert_eq!(visible("x\u{e0041}\u{ad}", 10), "x\\u{e0041}\\u{00ad}");
}

#[test]
fn long_labels_are_cut() {
    let mut t = Trace::default();
    t.push(0, "server:s", "host", Channel::Stderr, &"x".repeat(500));
    let d = t.diagram();
    assert_eq!(d.rows[0].label().chars().count(), 61);
    assert!(d.rows[0].label().ends_with('…'));
}

#[test]
fn streamable_http_exchanges_say_what_they_are() {
    let d = streamable_http().diagram();
    assert_eq!(
        labels(&d),
        [
            "initialize 2025-11-25",
            "SSE priming event id p1",
            "result initialize 2025-11-25",
            "notifications/initialized",
            "202 Accepted",
            "GET /mcp (open SSE stream)",
            "GET /mcp (resume SSE stream)",
            "tools/list",
            "error -32000 Bad Request: No valid session ID provided",
            "tools/list",
            "404 Not Found",
            "404 Not Found",
            "result tools/list",
            "DELETE /mcp (end session)",
            "200 OK",
            "200 OK (SSE stream, no events)",
            "405 Method Not Allowed",
            "405 Method Not Allowed",
            "GET /nothere",
            "404 Not Found",
            "500 Internal Server Error",
        ]
    );
    let details: Vec<&str> = d.rows.iter().map(|r| r.detail().unwrap_or("")).collect();
    assert_eq!(details[1], "retry 1000 ms, to #0 initialize");
    assert_eq!(details[4], "to #3 notifications/initialized");
    assert_eq!(details[5], "session 6fd170d9…");
    assert_eq!(details[6], "after event id m1, session 6fd170d9…");
    assert!(
        details[8].starts_with("400 Bad Request, "),
        "the status leads the detail: {}",
        details[8]
    );
    assert_eq!(
        details[10],
        "unknown or expired session, \"Session not found\", to #9 tools/list"
    );
    assert_eq!(details[11], "unknown or expired session, to #6 GET /mcp");
    assert!(details[12].starts_with("503 Service Unavailable, "));
    assert_eq!(details[14], "to #13 DELETE /mcp");
    assert_eq!(
        details[16],
        "the server offers no standalone SSE stream, to #5 GET /mcp"
    );
    assert!(details[17].starts_with("the server does not let clients end sessions, \""));
    assert_eq!(
        details[19],
        "\"<pre>Cannot GET /nothere</pre>\", to #18 GET /nothere"
    );
    assert_eq!(details[20], "");

    // Every 4xx and 5xx is an error, with or without a body, JSON-RPC or not; the 405s the
    // transport allows are not.
    let errors: Vec<usize> = (0..d.rows.len())
        .filter(|&r| d.rows[r].status == Status::Error)
        .collect();
    assert_eq!(errors, [8, 10, 11, 12, 19, 20]);
    for r in [10, 11, 19, 20] {
        assert_eq!(d.rows[r].style, Style::Error, "row {r}");
    }
    for r in [16, 17] {
        assert_eq!(
            (d.rows[r].style, &d.rows[r].status),
            (Style::Response, &Status::Ok)
        );
    }
    // Requests without a message are drawn as requests, statuses as responses.
    for (r, style) in [
        (5, Style::Request),
        (13, Style::Request),
        (1, Style::Response),
    ] {
        assert_eq!(d.rows[r].style, style, "row {r}");
    }
    assert_eq!(d.rows[4].style, Style::Response);
    // Requests go host -> server, answers come back.
    let (host, server) = (0, 1);
    assert_eq!((d.rows[13].from(), d.rows[13].to()), (host, server));
    assert_eq!((d.rows[4].from(), d.rows[4].to()), (server, host));
}

/// A short Streamable HTTP session (a refused standalone stream), then [`streamable_http`]
/// appended to the same file, counting its `seq`s from 0 again: each response names the
/// request of its own session (the last event with its `in_reply_to` at or before it), so the
/// second session reads as it does alone (a binary search over the file's `seq`s named the
/// first session's `GET` as what the second's initialize was answered by).
#[test]
fn streamable_http_responses_name_the_request_of_their_own_session() {
    let mut t = Trace::default();
    let stream = [SESSION, ("accept", "text/event-stream")];
    t.http(true, "", Line::Request("GET", MCP), &stream, json!({}));
    t.http(false, "", Line::Status(405), &[], json!({"in_reply_to":0}));
    let alone = streamable_http();
    let later = chrono::Duration::seconds(1);
    t.0.extend(alone.0.iter().cloned().map(|mut e| {
        e.time += later;
        e
    }));
    let (both, alone) = (t.diagram(), alone.diagram());
    let detail = |d: &Drawn, r: usize| d.rows[r].detail().unwrap_or("").to_string();
    assert_eq!(
        detail(&both, 1),
        "the server offers no standalone SSE stream, to #0 GET /mcp"
    );
    assert_eq!(both.rows.len(), 2 + alone.rows.len());
    for r in 0..alone.rows.len() {
        assert_eq!(detail(&both, 2 + r), detail(&alone, r), "row {r}");
        assert_eq!(both.rows[2 + r].status, alone.rows[r].status, "row {r}");
    }
}

/// The words around the wire's are the reader's: in Portuguese and Spanish no row of a
/// Streamable HTTP session says what a request does, what a status answers or why a `405` is
/// allowed in English; methods, paths and status lines stay as sent.
#[test]
fn streamable_http_rows_speak_the_readers_language() {
    use crate::i18n::Language;
    let t = streamable_http();
    let report = report(&t.0);
    let d = build(&t.0, &report);
    let english = [
        "open SSE",
        "resume SSE",
        "end session",
        "after event",
        "session 6fd",
        "priming",
        "no events",
        "retry",
        "to #",
        "standalone",
        "does not let",
        "unknown or expired",
    ];
    for (lang, open, refused) in [
        (
            Language::Pt,
            "GET /mcp (abre o stream SSE)",
            "o servidor não oferece um stream SSE independente, responde ao #5 GET /mcp",
        ),
        (
            Language::Es,
            "GET /mcp (abre el stream SSE)",
            "el servidor no ofrece un stream SSE independiente, responde al #5 GET /mcp",
        ),
    ] {
        let rows: Vec<RowText> = (0..d.rows.len())
            .map(|i| d.text(&t.0, &report, i, lang))
            .collect();
        assert_eq!(rows[5].label, open);
        assert_eq!(rows[16].detail.as_deref(), Some(refused));
        assert_eq!(
            rows[10].label, "404 Not Found",
            "the status line is the wire's"
        );
        for (i, row) in rows.iter().enumerate() {
            let said = [row.label.as_str(), row.detail.as_deref().unwrap_or("")];
            let found: Vec<&&str> = english
                .iter()
                .filter(|e| said.iter().any(|s| s.contains(*e)))
                .collect();
            assert!(found.is_empty(), "{lang:?} row {i}: {found:?} in {said:?}");
        }
    }
}
