//! Trace files as users meet them: cut short by a crash, read by `sightline summary`.

use std::process::Command;
use std::time::Duration;

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(30);

/// Records a short real session with a one-answer shell "server".
fn record(dir: &std::path::Path) -> std::path::PathBuf {
    let trace = dir.join("t.jsonl");
    let script = r#"read line; printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}'"#;
    let request = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n";
    let out = run_with_input(
        Command::new(bin())
            .arg("proxy")
            .arg("--trace")
            .arg(&trace)
            .args(["--", "sh", "-c", script]),
        request,
        LIMIT,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    trace
}

#[test]
fn trace_cut_mid_line_loads_every_complete_event_and_names_the_line() {
    let dir = tempdir();
    let trace = record(dir.path());
    let full = std::fs::read(&trace).expect("read");
    let lines = full
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    // Cut the last line (the exit event) in half.
    let last_start = full[..full.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("newline")
        + 1;
    let cut = &full[..last_start + (full.len() - last_start) / 2];
    std::fs::write(&trace, cut).expect("write");

    let out = run(Command::new(bin()).arg("summary").arg(&trace), LIMIT);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("line {lines}:")),
        "names the line: {stderr}"
    );
    assert!(stderr.contains("truncated"), "{stderr}");
    assert!(stdout.contains("spawned sh -c"), "{stdout}");
    assert!(
        stdout.contains("S->C  result initialize 2025-11-25"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("exited"),
        "the cut event is not invented: {stdout}"
    );
    let loaded = load(&trace);
    assert_eq!(
        loaded.events.len(),
        lines - 2,
        "every complete event, the header and the cut line aside"
    );
}

#[test]
fn summary_json_gives_one_derived_record_per_event() {
    let dir = tempdir();
    let trace = record(dir.path());
    let out = run(
        Command::new(bin()).arg("summary").arg("--json").arg(&trace),
        LIMIT,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(records.len(), load(&trace).events.len());
    let request = records
        .iter()
        .find(|r| r["kind"] == "request")
        .expect("request");
    let response = records
        .iter()
        .find(|r| r["kind"] == "response")
        .expect("response");
    assert_eq!(request["method"], "initialize");
    assert_eq!(request["paired"], response["seq"]);
    assert_eq!(response["paired"], request["seq"]);
    assert_eq!(response["method"], "initialize");
    assert_eq!(response["revision"], "2025-11-25");
    assert!(response["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
}

#[test]
fn unknown_fields_survive_a_rewrite() {
    let dir = tempdir();
    let trace = record(dir.path());
    let mut text_in = std::fs::read_to_string(&trace).expect("read");
    text_in = text_in.replacen(
        "\"title\"",
        "\"recorded_by\":{\"who\":\"future\"},\"title\"",
        1,
    );
    text_in = text_in.replacen(
        "\"channel\":\"stdio\"",
        "\"channel\":\"stdio\",\"x-future\":[1,2]",
        1,
    );
    std::fs::write(&trace, &text_in).expect("write");
    let loaded = load(&trace);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let copy = dir.path().join("copy.jsonl");
    sightline::trace::write_trace(&copy, &loaded.header, &loaded.events).expect("rewrite");
    // Same members with the same values, line for line (unknown members may move to the end).
    let parse = |t: &str| {
        t.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .collect::<Vec<_>>()
    };
    let rewritten = std::fs::read_to_string(&copy).expect("read copy");
    assert_eq!(parse(&rewritten), parse(&text_in));
    assert!(
        rewritten.contains(r#""x-future":[1,2]"#)
            && rewritten.contains(r#""recorded_by":{"who":"future"}"#)
    );
}
