//! `sightline replay` with real peers: a session recorded between the TypeScript SDK client
//! and `@modelcontextprotocol/server-everything` (through `sightline proxy`), replayed against
//! the same server and against a Python server that answers differently; a 2026-07-28 session
//! with an `input_required` retry replayed against the rmcp demo server; and the ways a replay
//! cannot be done.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use sightline::trace::{Kind, analyze};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(90);

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The TS SDK client's session with server-everything, recorded by the proxy.
fn everything_session(dir: &Path) -> PathBuf {
    require_npm_peers();
    let trace = dir.join("everything.jsonl");
    let mut cmd = Command::new("node");
    cmd.arg(peer("everything-client.mjs"))
        .arg(bin())
        .args(["proxy", "--trace", s(&trace), "--name", "everything", "--"])
        .args(everything_server());
    let out = run(&mut cmd, LIMIT);
    assert!(out.status.success(), "client: {}", text(&out.stderr));
    trace
}

fn replay(trace: &Path, out: &Path, extra: &[&str], server: &[String]) -> Output {
    run(
        Command::new(bin())
            .arg("replay")
            .arg(trace)
            .args(["--trace", s(out)])
            .args(extra)
            .arg("--")
            .args(server),
        LIMIT,
    )
}

#[test]
fn a_ts_sdk_session_replayed_against_the_same_server_everything_matches() {
    let dir = tempdir();
    let trace = everything_session(dir.path());
    let out = replay(
        &trace,
        &dir.path().join("r.jsonl"),
        &[],
        &everything_server(),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // initialize, the sampling and elicitation triggers (answered from the recording), tools/list, echo.
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some("5 requests replayed: 5 same, 0 differ, 0 not answered, 0 not sent"),
        "{stdout}"
    );
    // The server's own requests got the recorded answers under their new ids.
    let replayed = load(&dir.path().join("r.jsonl"));
    let analysis = analyze(&replayed.events);
    let answered: Vec<&str> = replayed
        .events
        .iter()
        .zip(&analysis.derived)
        .filter(|(e, d)| d.kind == Kind::Response && e.to.is_server())
        .filter_map(|(_, d)| d.method.as_deref())
        .collect();
    for method in ["sampling/createMessage", "elicitation/create"] {
        assert!(
            answered.contains(&method),
            "{method} not answered: {answered:?}"
        );
    }
}

#[test]
fn a_replay_against_a_server_that_lost_a_tool_and_answers_differently_exits_1() {
    let dir = tempdir();
    let trace = everything_session(dir.path());
    let changed = vec![
        "python3".to_string(),
        peer("replay/changed_server.py"),
        "everything-b".into(),
    ];
    let out = replay(&trace, &dir.path().join("r.jsonl"), &[], &changed);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    for needle in [
        r#"/result/content/0/text: "Echo: hello from sightline" -> "Echo (changed): hello from sightline""#,
        r#"/result/tools/1: {"name":"get-annotated-message""#,
        r#"/result/serverInfo/version: "#,
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
    let echo = stdout
        .lines()
        .find(|l| l.starts_with("tools/call echo  recorded #"))
        .expect("the echo block names both sides' events");
    assert!(
        echo.contains(", replayed #") && echo.ends_with(": differs"),
        "{echo}"
    );
    // --ignore takes the echo text out of the comparison.
    let out = replay(
        &trace,
        &dir.path().join("r2.jsonl"),
        &["--ignore", "/result/content/*/text", "--json"],
        &changed,
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let echo = v["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| r["method"] == "tools/call" && r["name"] == "echo")
        .expect("echo");
    assert_eq!(echo["status"], "same", "{echo}");
}

#[test]
fn a_2026_07_28_session_with_an_input_required_retry_replays_against_the_rmcp_demo_server() {
    let dir = tempdir();
    let trace = dir.path().join("mrtr.jsonl");
    run_scenario_to("multi-round-trip", &trace, &[]);
    let r = dir.path().join("r.jsonl");
    let server = vec![bin().to_string(), "demo-server".into(), "tour".into()];
    let out = replay(&trace, &r, &[], &server);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // The replay has the round trip: input_required, then a retry linked to it that carries
    // the requestState this server run gave.
    let replayed = load(&r);
    let analysis = analyze(&replayed.events);
    let json = |i: usize| serde_json::from_str::<Value>(&replayed.events[i].text()).expect("JSON");
    let first = analysis
        .derived
        .iter()
        .position(|d| d.input_required)
        .expect("an input_required result in the replay");
    let retry = analysis
        .derived
        .iter()
        .position(|d| d.retry_of().is_some())
        .expect("a retry in the replay");
    assert!(retry > first);
    let state = json(first)["result"]["requestState"].clone();
    assert!(state.is_string(), "{state}");
    assert_eq!(json(retry)["params"]["requestState"], state);
    assert!(json(retry)["params"]["inputResponses"].is_object());
    // Everything the client recorded was sent; the listen stream was not waited for.
    let requests = analysis
        .derived
        .iter()
        .filter(|d| d.kind == Kind::Request)
        .count();
    assert_eq!(requests, 7, "{}", text(&out.stdout));
}

#[test]
fn replays_that_cannot_be_done_say_what_and_where_in_one_line_and_keep_the_recording() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    // The server's start-up line on stderr races the first messages, so their numbers are read.
    let recorded = load(&trace);
    let seq_of = |needle: &str| {
        recorded
            .events
            .iter()
            .find(|e| e.channel == sightline::trace::Channel::Stdio && e.text().contains(needle))
            .map(|e| e.seq)
            .expect("the recorded handshake")
    };
    let (asked, answered) = (seq_of("\"initialize\""), seq_of("\"result\""));
    let one_line = |out: &Output, needle: &str| {
        let stderr = text(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains(needle), "missing {needle:?} in {stderr}");
    };
    // A server that cannot start.
    let out = replay(
        &trace,
        &dir.path().join("a.jsonl"),
        &[],
        &["/no/such/server".into()],
    );
    one_line(&out, "cannot start server `/no/such/server`");
    // A server that dies after reading the first request (saying why on stderr).
    let r = dir.path().join("b.jsonl");
    let dies = vec![
        "sh".to_string(),
        "-c".into(),
        "read line; echo 'no thanks' >&2; exit 3".into(),
    ];
    let out = replay(&trace, &r, &[], &dies);
    one_line(
        &out,
        &format!(
            "the server exited with exit code 3 while replaying initialize (recorded #{asked})"
        ),
    );
    let kept = load(&r);
    assert!(
        kept.events
            .iter()
            .any(|e| e.text().contains("\"initialize\"")),
        "the request was recorded"
    );
    // Its stderr and its exit are recorded, the exit last.
    let stderr = kept
        .events
        .iter()
        .position(|e| e.channel == sightline::trace::Channel::Stderr)
        .expect("the server's stderr is recorded");
    assert_eq!(kept.events[stderr].text(), "no thanks");
    let exit = kept
        .events
        .iter()
        .position(|e| e.process().is_some_and(|p| p.event == "exit"))
        .expect("the exit is recorded");
    assert!(exit > stderr);
    assert_eq!(kept.events[exit].process().and_then(|p| p.code), Some(3));
    // A server that never answers: the handshake times out, nothing more is sent, exit 2
    // with the report of what was and was not answered.
    let silent = vec!["sh".to_string(), "-c".into(), "cat > /dev/null".into()];
    let out = replay(
        &trace,
        &dir.path().join("c.jsonl"),
        &["--timeout", "200ms"],
        &silent,
    );
    let stdout = text(&out.stdout);
    one_line(
        &out,
        &format!("the server did not answer initialize (recorded #{asked}) within 200ms"),
    );
    assert!(
        stdout.contains(&format!(
            "initialize 2025-11-25  recorded #{asked} -> #{answered}, replayed #"
        )),
        "{stdout}"
    );
    assert!(stdout.contains(": the server did not answer"), "{stdout}");
    assert!(
        stdout.contains("not sent (the replay stopped before it)"),
        "{stdout}"
    );
    // A trace with no client requests.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(
        &empty,
        "{\"sightline_trace\":1,\"created\":\"2026-01-01T00:00:00Z\",\"sightline_version\":\"0\",\"title\":\"t\"}\n\
         {\"seq\":0,\"time\":\"2026-01-01T00:00:00Z\",\"from\":\"server:x\",\"to\":\"host\",\"channel\":\"stdio\",\"raw\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"notifications/message\\\"}\"}\n",
    )
    .expect("write");
    let out = replay(&empty, &dir.path().join("d.jsonl"), &[], &dies);
    one_line(&out, "has no client requests to server `x`");
}

#[test]
fn a_retry_carries_the_new_servers_request_state_byte_for_byte_not_the_recorded_one() {
    let dir = tempdir();
    let trace = dir.path().join("mrtr.jsonl");
    run_scenario_to("multi-round-trip", &trace, &[]);
    // A server whose requestState differs from the recording's (minted anew by each run), and
    // which completes only a retry that carries its own.
    let r = dir.path().join("r.jsonl");
    let server = vec![
        "python3".to_string(),
        peer("replay/changed_server.py"),
        "mrtr-b".into(),
    ];
    let out = replay(&trace, &r, &[], &server);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let retry_of = |path: &Path| {
        let t = load(path);
        let a = analyze(&t.events);
        let line = |i: usize| t.events[i].text().into_owned();
        let first = a
            .derived
            .iter()
            .position(|d| d.input_required)
            .expect("input_required");
        let retry = a
            .derived
            .iter()
            .position(|d| d.retry_of().is_some())
            .expect("a retry");
        let answer = match a.derived[retry].pairing {
            sightline::trace::Pairing::AnsweredBy(seq) => {
                t.events.iter().position(|e| e.seq == seq)
            }
            _ => None,
        };
        (line(first), line(retry), answer.map(line))
    };
    let (recorded_round, recorded_retry, _) = retry_of(&trace);
    let (new_round, new_retry, new_answer) = retry_of(&r);
    let state = |line: &str, pointer: &str| {
        serde_json::from_str::<Value>(line).expect("JSON")[pointer.split('/').nth(1).expect("p")]
            ["requestState"]
            .as_str()
            .expect("a requestState")
            .to_string()
    };
    let (old_state, new_state) = (
        state(&recorded_round, "/result"),
        state(&new_round, "/result"),
    );
    assert_ne!(
        old_state, new_state,
        "the servers' states must differ for this test to mean anything"
    );
    assert_eq!(state(&recorded_retry, "/params"), old_state);
    // The retry's bytes are the recorded retry's with only the requestState swapped.
    let expected = recorded_retry.replace(
        &format!("\"requestState\":\"{old_state}\""),
        &format!("\"requestState\":\"{new_state}\""),
    );
    assert_ne!(expected, recorded_retry);
    assert_eq!(new_retry, expected);
    // And the new server accepted it (a stale state would have been an error).
    let answer: Value =
        serde_json::from_str(&new_answer.expect("the retry was answered")).expect("JSON");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Confirmed (accept): delete the old build artifacts",
        "{answer}"
    );
}

#[test]
fn a_server_that_refuses_the_recorded_protocol_version_stops_the_replay_with_one_line() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let r = dir.path().join("r.jsonl");
    let server = vec![
        "python3".to_string(),
        peer("replay/changed_server.py"),
        "refuse-version".into(),
    ];
    let out = replay(&trace, &r, &[], &server);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    // The recorded initialize's number: a server's stderr line can come before it under load.
    let initialize = load(&trace)
        .events
        .iter()
        .find(|e| e.text().contains("\"method\":\"initialize\""))
        .map(|e| e.seq)
        .expect("the recording has an initialize");
    assert!(
        errors[0].contains(&format!(
            "the server refuses protocol version 2025-11-25: it answered 2024-11-05 (to initialize, recorded #{initialize})"
        )) && errors[0].contains(s(&r)),
        "{stderr}"
    );
    // What was recorded is kept: the initialize and its answer.
    let kept = load(&r);
    assert!(
        kept.events
            .iter()
            .any(|e| e.text().contains("\"2024-11-05\""))
    );
    // The rest was not sent, and the report says so.
    assert!(text(&out.stdout).contains("not sent (the replay stopped before it)"));
}
