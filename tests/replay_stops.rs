//! `sightline replay` against servers that stop answering (issue 37, item 5): an unanswered
//! handshake or a run of unanswered requests stops the replay with exit 2 instead of costing
//! the timeout once per recorded request, and a server asking in a loop for what the
//! recording has no answer to is one counted line. Real processes: the demo server records
//! the session, small Python servers misbehave.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::*;

/// Requests in the recording after the handshake.
const REQUESTS: usize = 40;

/// A session of `initialize` and [`REQUESTS`] `tools/list`s with the weather demo server,
/// recorded by the stdio proxy.
fn long_session(dir: &Path) -> PathBuf {
    let trace = dir.join("long.jsonl");
    let mut input = String::from(concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n"
    ));
    for id in 1..=REQUESTS {
        input.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n"
        ));
    }
    let o = run_with_input(
        Command::new(bin())
            .args(["proxy", "--name", "weather", "--trace"])
            .arg(&trace)
            .args(["--", bin(), "demo-server", "weather"]),
        input.as_bytes(),
        Duration::from_secs(30),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    trace
}

/// `replay TRACE --timeout 1s -- python3 -c SERVER`: its output and how long it took.
fn replay_against(trace: &Path, out: &Path, server: &str) -> (std::process::Output, Duration) {
    let started = Instant::now();
    let o = run(
        Command::new(bin())
            .arg("replay")
            .arg(trace)
            .arg("--trace")
            .arg(out)
            .args(["--timeout", "1s", "--", "python3", "-u", "-c", server]),
        Duration::from_secs(60),
    );
    (o, started.elapsed())
}

#[test]
fn replay_stops_with_exit_2_when_the_handshake_goes_unanswered() {
    let dir = tempdir();
    let trace = long_session(dir.path());
    let out = dir.path().join("replayed.jsonl");
    // Reads everything, answers nothing.
    let (o, took) = replay_against(&trace, &out, "import sys\nfor _ in sys.stdin: pass\n");
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        took < Duration::from_secs(8),
        "{took:?}: waited for every recorded request"
    );
    assert!(stderr.contains("initialize"), "names the request: {stderr}");
    assert!(
        stderr.contains("#"),
        "names where in the recording: {stderr}"
    );
    // The replay's own recording is kept and holds what was sent.
    let replayed = load(&out);
    assert!(
        replayed
            .events
            .iter()
            .any(|e| e.text().contains(r#""method":"initialize""#))
    );
    assert!(
        !replayed
            .events
            .iter()
            .any(|e| e.text().contains(r#""method":"tools/list""#)),
        "nothing is sent after a dead handshake"
    );
}

/// Answers `initialize` after asking `roots/list` 200 times, then never answers again.
const ASKS_THEN_GOES_SILENT: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        for i in range(200):
            print(json.dumps({"jsonrpc": "2.0", "id": "ask%d" % i, "method": "roots/list"}))
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
            "protocolVersion": m["params"]["protocolVersion"], "capabilities": {},
            "serverInfo": {"name": "silent", "version": "1"}}}))
        sys.stdout.flush()
"#;

#[test]
fn replay_stops_after_requests_in_a_row_go_unanswered_and_counts_repeated_asks() {
    let dir = tempdir();
    let trace = long_session(dir.path());
    let out = dir.path().join("replayed.jsonl");
    let (o, took) = replay_against(&trace, &out, ASKS_THEN_GOES_SILENT);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        took < Duration::from_secs(12),
        "{took:?}: waited for every recorded request"
    );
    assert!(stderr.contains("tools/list"), "names the request: {stderr}");
    // The asks are counted on one line, the method named once.
    let line = stderr
        .lines()
        .find(|l| l.contains("roots/list"))
        .unwrap_or_else(|| panic!("no line about roots/list: {stderr}"));
    assert_eq!(line.matches("roots/list").count(), 1, "{line}");
    assert!(line.contains("200"), "{line}");
    assert!(stderr.len() < 4000, "{} bytes on stderr", stderr.len());
}
