//! `sightline mock`: a shipped scenario's recorded server served again and replayed against
//! (`replay` exits 0, on stdio and over HTTP, in both revisions); the TypeScript SDK's clients
//! talking to the mock of their own recorded sessions (stdio and Streamable HTTP) and printing
//! what they printed against the real servers; an unrecorded call's error; traces with no
//! server to serve.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A shipped scenario run into `dir/NAME.jsonl`.
fn scenario_trace(dir: &Path, scenario: &str) -> PathBuf {
    let trace = dir.join(format!("{scenario}.jsonl"));
    run_scenario_to(scenario, &trace, &[]);
    trace
}

/// `sightline replay TRACE --trace OUT -- sightline mock TRACE`.
fn replay_against_mock(trace: &Path, out: &Path) -> Output {
    run(
        Command::new(bin()).arg("replay").arg(trace).args([
            "--trace",
            s(out),
            "--",
            bin(),
            "mock",
            s(trace),
        ]),
        LIMIT,
    )
}

/// `sightline mock TRACE --http` on a free port, and its endpoint.
fn mock_http(trace: &Path, extra: &[&str]) -> (Running, String) {
    let port = free_port();
    let mut cmd = Command::new(bin());
    cmd.arg("mock")
        .arg(trace)
        .args(["--http", "--listen", &format!("127.0.0.1:{port}")])
        .args(extra);
    (
        listening(&mut cmd, port),
        format!("http://127.0.0.1:{port}/mcp"),
    )
}

#[test]
fn a_scenario_replayed_against_the_mock_of_its_own_trace_matches_in_both_revisions() {
    let dir = tempdir();
    for scenario in ["weather", "revision-2026-07-28", "primitives-tour"] {
        let trace = scenario_trace(dir.path(), scenario);
        let out = replay_against_mock(&trace, &dir.path().join(format!("{scenario}-r.jsonl")));
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{scenario}: {stdout}{}",
            text(&out.stderr)
        );
        assert!(
            stdout.contains(" 0 differ, 0 not answered, 0 not sent"),
            "{stdout}"
        );
    }
}

#[test]
fn a_scenario_replayed_against_the_mock_over_http_matches() {
    let dir = tempdir();
    let trace = scenario_trace(dir.path(), "weather");
    let (_mock, url) = mock_http(&trace, &[]);
    let out = run(
        Command::new(bin()).arg("replay").arg(&trace).args([
            "--trace",
            s(&dir.path().join("r.jsonl")),
            "--url",
            &url,
        ]),
        LIMIT,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("3 requests replayed: 3 same"), "{stdout}");
}

/// The seed article's client, its session with the weather server recorded by the stdio
/// proxy, then run against the mock of that recording: it prints the article's lines again.
#[test]
fn the_ts_sdk_client_gets_its_recorded_session_from_the_mock_on_stdio() {
    require_npm_peers();
    let dir = tempdir();
    let trace = dir.path().join("seed.jsonl");
    let client = |server: &[&str]| {
        run(
            Command::new("node")
                .arg(peer("seed-client.mjs"))
                .args(server),
            LIMIT,
        )
    };
    let recorded = client(&[
        bin(),
        "proxy",
        "--trace",
        s(&trace),
        "--",
        "node",
        &peer("weather-server.mjs"),
    ]);
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    let mocked = client(&[bin(), "mock", s(&trace)]);
    assert!(mocked.status.success(), "{}", text(&mocked.stderr));
    let expected = std::fs::read_to_string(peers().join("expected/seed-client.txt"))
        .expect("expected/seed-client.txt");
    assert_eq!(text(&mocked.stdout), expected);
}

/// server-everything asks the client for roots, a model's answer and a form while the
/// client's calls are pending: the mock asks the same in the same places, and the client
/// prints what it printed against the real server.
#[test]
fn a_servers_own_requests_come_from_the_mock_where_they_were() {
    require_npm_peers();
    let dir = tempdir();
    let trace = dir.path().join("everything.jsonl");
    let client = |server: &[String]| {
        run(
            Command::new("node")
                .arg(peer("everything-client.mjs"))
                .args(server),
            LIMIT,
        )
    };
    let mut proxied = vec![bin().to_string(), "proxy".into(), "--trace".into()];
    proxied.push(s(&trace).to_string());
    proxied.push("--".into());
    proxied.extend(everything_server());
    let recorded = client(&proxied);
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    let mocked = client(&[bin().into(), "mock".into(), s(&trace).into()]);
    assert!(mocked.status.success(), "{}", text(&mocked.stderr));
    assert_eq!(text(&mocked.stdout), text(&recorded.stdout));
}

/// The TS SDK's HTTP client against server-everything, recorded by `proxy --http`, then
/// against the mock of that recording: the same lines, progress included.
#[test]
fn the_ts_sdk_http_client_gets_its_recorded_session_from_the_mock() {
    require_npm_peers();
    let dir = tempdir();
    let (_server, upstream) = crate::replay_http::everything();
    let trace = crate::replay_http::recorded_session(dir.path(), &upstream);
    let client = |url: &str| {
        run(
            Command::new("node").arg(peer("http-client.mjs")).arg(url),
            LIMIT,
        )
    };
    let direct = client(&upstream);
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    let (_mock, url) = mock_http(&trace, &[]);
    let started = Instant::now();
    let mocked = client(&url);
    let took = started.elapsed();
    assert!(mocked.status.success(), "{}", text(&mocked.stderr));
    assert_eq!(text(&mocked.stdout), text(&direct.stdout));
    let progress = text(&mocked.stdout).matches(r#""step":"progress""#).count();
    assert_eq!(progress, 3, "{}", text(&mocked.stdout));
    // The recorded operation took 0.3 s; the mock does not wait.
    eprintln!("http-client against the mock: {took:?}");
}

/// server-everything asks for the roots on the standalone `GET` stream right after
/// `initialized`: the mock asks on the client's `GET` stream too, and the client's answer
/// (a `POST` of its own) is taken.
#[test]
fn a_request_on_the_get_stream_comes_from_the_mock_on_the_clients_get_stream() {
    require_npm_peers();
    let dir = tempdir();
    let (_server, upstream) = crate::replay_http::everything();
    let client = "http-roots-client.mjs";
    let trace = crate::replay_http::recorded_with(dir.path(), &upstream, client);
    let run_client = |url: &str| run(Command::new("node").arg(peer(client)).arg(url), LIMIT);
    let direct = run_client(&upstream);
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    let (_mock, url) = mock_http(&trace, &[]);
    let mocked = run_client(&url);
    assert!(mocked.status.success(), "{}", text(&mocked.stderr));
    assert_eq!(text(&mocked.stdout), text(&direct.stdout));
    assert!(text(&mocked.stdout).contains("roots/list answered"));
}

#[test]
fn an_unrecorded_call_gets_an_error_naming_the_nearest_recorded_request() {
    let dir = tempdir();
    let trace = scenario_trace(dir.path(), "weather");
    let lines = [
        r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Paris"}}}"#,
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Seoul"}}}"#,
    ];
    let out = run_with_input(
        Command::new(bin()).args(["mock", s(&trace)]),
        (lines.join("\n") + "\n").as_bytes(),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answers: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["id"], "a");
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "weather");
    assert_eq!(answers[1]["id"], "b");
    let message = answers[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("sightline mock: no recorded tools/call request has these params")
            && message
                .contains(r#"tools/call {"name":"get_weather","arguments":{"location":"Seoul"}}"#)
            && message.ends_with("differs at /arguments/location"),
        "{message}"
    );
    assert_eq!(answers[2]["id"], "c");
    assert_eq!(
        answers[2]["result"]["content"][0]["text"],
        "Seoul: 15C, partly cloudy"
    );
    assert!(
        text(&out.stderr).contains("unrecorded request tools/call"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_trace_with_no_server_to_serve_is_refused_with_exit_2() {
    let dir = tempdir();
    let mock = |trace: &Path, extra: &[&str]| {
        let out = run(
            Command::new(bin()).arg("mock").arg(trace).args(extra),
            LIMIT,
        );
        (out.status.code(), text(&out.stderr))
    };
    let weather = scenario_trace(dir.path(), "weather");
    let (code, stderr) = mock(&weather, &["--server", "nope"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the trace has no server `nope` (it has: weather)"),
        "{stderr}"
    );
    let two = scenario_trace(dir.path(), "two-servers");
    let (code, stderr) = mock(&two, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("name one with --server"), "{stderr}");
    let notes = dir.path().join("notes.jsonl");
    let header = r#"{"sightline_trace":1,"created":"2026-12-07T00:00:00Z","sightline_version":"0.1.0","title":"t"}"#;
    let note = r#"{"seq":0,"time":"2026-12-07T00:00:00Z","from":"user","to":"host","channel":"note","raw":"hi"}"#;
    std::fs::write(&notes, format!("{header}\n{note}\n")).expect("write");
    let (code, stderr) = mock(&notes, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("has no MCP server to serve"), "{stderr}");
    let (code, stderr) = mock(&notes, &["--http", "--listen", "127.0.0.1:0"]);
    assert_eq!(code, Some(2), "{stderr}");
}
