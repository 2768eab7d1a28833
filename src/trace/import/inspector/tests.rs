use super::*;

fn mtime() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-08-19T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

const V2: &str = r#"[
  {"id":"a","timestamp":"2026-08-19T11:59:00.000Z","direction":"request","origin":"client",
   "message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}},
   "response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"weather","version":"1"}}},
   "duration":40},
  {"id":"b","timestamp":"2026-08-19T11:59:00.010Z","direction":"notification","origin":"server",
   "message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"},"x-extra":1}},
  {"id":"c","timestamp":"2026-08-19T11:59:01.000Z","direction":"request","origin":"server",
   "message":{"jsonrpc":"2.0","id":0,"method":"roots/list"},
   "response":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}},"duration":2,"clientError":"odd"},
  {"id":"d","timestamp":"yesterday","direction":"request","message":{}},
  42
]"#;

fn shape(got: &Imported) -> Vec<(String, String, String)> {
    got.events
        .iter()
        .map(|e| (e.from.to_string(), e.to.to_string(), e.text().into_owned()))
        .collect()
}

#[test]
fn v2_protocol_export_unfolds_responses_in_time_order() {
    let got = parse(V2, None, mtime()).expect("parse");
    assert!(!got.synthetic_times);
    let s = shape(&got);
    assert_eq!(s.len(), 5, "{s:?}");
    assert_eq!(
        (s[0].0.as_str(), s[0].1.as_str()),
        ("host", "server:weather")
    );
    assert!(
        s[0].2
            .starts_with(r#"{"jsonrpc":"2.0","id":0,"method":"initialize""#)
    );
    // The notification came before the initialize answer (at +40 ms).
    assert!(s[1].2.contains(r#""x-extra":1"#), "unknown members kept");
    assert_eq!(s[1].0, "server:weather");
    assert!(s[2].2.contains("serverInfo"));
    assert_eq!(s[2].0, "server:weather");
    assert_eq!(
        crate::trace::format_time(got.events[2].time),
        "2026-08-19T11:59:00.040000Z"
    );
    // A server's request, answered by the host.
    assert_eq!(
        (s[3].0.as_str(), s[4].0.as_str()),
        ("server:weather", "host")
    );
    assert_eq!(got.events[3].extra()["inspector"]["clientError"], "odd");
    assert_eq!(got.events[3].extra()["inspector"]["id"], "c");
    assert!(
        got.events
            .iter()
            .enumerate()
            .all(|(i, e)| e.seq == i as u64)
    );
    let numbers: Vec<_> = got.warnings.iter().map(|w| w.number).collect();
    assert_eq!(numbers, [4, 5]);
}

#[test]
fn v1_history_items_get_an_envelope_and_synthetic_times() {
    let v1 = r#"[
      {"request":"{\"method\":\"initialize\"}","response":"{\"capabilities\":{},\"serverInfo\":{\"name\":\"everything\"}}"},
      {"request":"{\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}","response":"{\"error\":\"MCP error -32602: Unknown tool: x\"}"},
      {"request":"{\"method\":\"notifications/roots/list_changed\"}"},
      {"method":"notifications/message","params":{"level":"info","data":"hello"}},
      {"request":"{broken"}
    ]"#;
    let got = parse(v1, None, mtime()).expect("parse");
    assert!(got.synthetic_times);
    let s = shape(&got);
    assert_eq!(s[0].2, r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#);
    assert_eq!(s[0].1, "server:everything");
    assert!(
        s[1].2
            .starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities""#)
    );
    assert_eq!(
        s[3].2,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"MCP error -32602: Unknown tool: x"}}"#
    );
    assert_eq!(
        s[4].2,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#
    );
    assert_eq!(s[4].0, "host");
    assert_eq!(s[5].0, "server:everything");
    assert_eq!(got.events[0].extra()["inspector"]["enveloped"], true);
    assert_eq!(got.events[3].extra()["inspector"]["enveloped"], true);
    assert_eq!(got.events[5].extra()["inspector"]["enveloped"], true);
    assert_eq!(got.events[0].time, mtime());
    assert_eq!(got.events[5].time, mtime() + TimeDelta::milliseconds(5));
    assert_eq!(got.warnings.len(), 1);
    assert_eq!(got.warnings[0].number, 5);
}

#[test]
fn console_lines_are_stderr_and_cli_output_is_refused() {
    let got = parse(
        r#"[{"timestamp":"2026-08-19T11:59:00Z","message":"listening on stdio"}]"#,
        Some("w"),
        mtime(),
    )
    .expect("parse");
    assert_eq!(got.events[0].channel, Channel::Stderr);
    assert_eq!(got.events[0].from, Lane::server("w"));
    let err = parse(r#"{"result":{"content":[]}}"#, None, mtime()).unwrap_err();
    assert!(err.to_string().contains("--cli"), "{err}");
    assert!(matches!(
        parse("[", None, mtime()),
        Err(InspectorError::Json { .. })
    ));
}

#[test]
fn cli_logging_tail_json_lines_are_read_line_by_line() {
    let tail = concat!(
        r#"{"id":"x","timestamp":"2026-08-19T11:59:00.000Z","direction":"notification","origin":"server","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}}"#,
        "\n\n{oops\n",
        r#"{"id":"y","timestamp":"2026-08-19T11:59:01.000Z","direction":"notification","origin":"server","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"b"}}}"#,
        "\n",
    );
    let got = parse(tail, Some("w"), mtime()).expect("parse");
    assert_eq!(got.events.len(), 2);
    assert_eq!(got.events[1].from, Lane::server("w"));
    assert_eq!(got.warnings[0].unit, "line");
    assert_eq!(got.warnings[0].number, 3);
}

#[test]
fn server_names_from_export_file_names() {
    let n = name_from_file;
    assert_eq!(
        n("inspector-protocol-weather-2026-08-19T12-00-00.000Z.json"),
        Some("weather")
    );
    assert_eq!(
        n("inspector-protocol-pinned-my-server-2026-08-19T12-00-00.000Z.json"),
        Some("my-server")
    );
    assert_eq!(n("inspector-protocol-2026-08-19T12-00-00.000Z.json"), None);
    assert_eq!(n("history.json"), None);
}
