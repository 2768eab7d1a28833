//! Real third-party peers through the proxy: the TypeScript SDK client, the seed article's
//! server, `@modelcontextprotocol/server-everything`, and our own demo server. Each run is
//! checked against an independent capture (`tee-capture.sh`) on one or both sides.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use sightline::trace::{Channel, Kind, Lane, LoadedTrace, Pairing};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

/// `node seed-client.mjs` against `server`, optionally behind the proxy with a server-side
/// capture. Returns the client's stdout.
fn seed_client(server: &[String], proxy: Option<&Path>) -> String {
    let mut cmd = Command::new("node");
    cmd.arg(peer("seed-client.mjs"));
    if let Some(dir) = proxy {
        cmd.arg(bin())
            .arg("proxy")
            .arg("--trace")
            .arg(dir.join("t.jsonl"))
            .arg("--name")
            .arg("weather")
            .arg("--");
        cmd.arg(peer("tee-capture.sh"))
            .arg(dir.join("server.in"))
            .arg(dir.join("server.out"));
    }
    cmd.args(server);
    let out = run(&mut cmd, LIMIT);
    assert!(
        out.status.success(),
        "seed client failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The trace's bytes equal what the server's side captured, in both directions.
fn assert_trace_matches_server_capture(dir: &Path, trace: &LoadedTrace, server: &Lane) {
    let saw = std::fs::read(dir.join("server.in")).expect("server.in");
    let wrote = std::fs::read(dir.join("server.out")).expect("server.out");
    assert_same_bytes(
        "trace host->server vs server stdin",
        &stdio_bytes(&trace.events, &Lane::Host, server),
        &saw,
    );
    assert_same_bytes(
        "trace server->host vs server stdout",
        &stdio_bytes(&trace.events, server, &Lane::Host),
        &wrote,
    );
}

fn methods(trace: &LoadedTrace) -> Vec<String> {
    let a = analyze(trace);
    trace
        .events
        .iter()
        .zip(&a.derived)
        .filter(|(e, _)| e.channel == Channel::Stdio)
        .map(|(e, d)| {
            let who = if e.from == Lane::Host { "C->S" } else { "S->C" };
            let what = match d.kind {
                Kind::Response => "result",
                Kind::Request => "request",
                Kind::Notification => "notification",
                other => other.as_str(),
            };
            format!(
                "{who} {what} {} {}",
                d.method.as_deref().unwrap_or("?"),
                d.detail.as_deref().unwrap_or("")
            )
            .trim_end()
            .to_string()
        })
        .collect()
}

#[test]
fn seed_demo_prints_the_same_through_the_proxy() {
    require_npm_peers();
    let server = vec!["node".to_string(), peer("weather-server.mjs")];
    let direct = seed_client(&server, None);
    let dir = tempdir();
    let proxied = seed_client(&server, Some(dir.path()));
    assert_eq!(proxied, direct, "the client cannot tell the proxy is there");
    assert!(
        direct.starts_with("C->S initialize 2025-11-25\n"),
        "{direct}"
    );

    let trace = load(&dir.path().join("t.jsonl"));
    let server_lane = Lane::server("weather");
    assert_trace_matches_server_capture(dir.path(), &trace, &server_lane);
    assert_eq!(
        methods(&trace),
        [
            "C->S request initialize 2025-11-25",
            "S->C result initialize 2025-11-25",
            "C->S notification notifications/initialized",
            "C->S request tools/list",
            "S->C result tools/list",
            "C->S request tools/call get_weather",
            "S->C result tools/call get_weather",
        ]
    );
    let stderr: Vec<_> = trace
        .events
        .iter()
        .filter(|e| e.channel == Channel::Stderr)
        .collect();
    assert_eq!(stderr.len(), 1);
    assert_eq!(
        stderr[0].raw.as_deref(),
        Some("weather MCP server running on stdio")
    );
    let exit = trace.events.last().and_then(|e| e.process()).expect("exit");
    assert_eq!(exit.code, Some(0));
}

#[test]
fn builtin_weather_demo_server_serves_the_seed_client() {
    require_npm_peers();
    let dir = tempdir();
    let server = vec![bin().to_string(), "demo-server".into(), "weather".into()];
    let out = seed_client(&server, Some(dir.path()));
    assert!(
        out.contains("instructions: Use get_weather for current conditions only."),
        "{out}"
    );
    assert!(
        out.contains(r#""content":[{"type":"text","text":"Seoul: 15C, partly cloudy"}]"#),
        "{out}"
    );
    assert!(out.contains(r#"anthropic: {"name":"get_weather","description":"Get current weather information for a location","input_schema":"#), "{out}");
    let trace = load(&dir.path().join("t.jsonl"));
    assert_trace_matches_server_capture(dir.path(), &trace, &Lane::server("weather"));
    let a = analyze(&trace);
    assert!(
        a.derived
            .iter()
            .all(|d| d.kind != Kind::Invalid && !d.is_unanswered())
    );
    assert_eq!(a.sessions[0].1.server_name.as_deref(), Some("weather"));
}

#[test]
fn server_everything_bytes_match_on_both_sides_and_colliding_ids_pair_correctly() {
    require_npm_peers();
    let dir = tempdir();
    let p = |f: &str| dir.path().join(f);
    let mut cmd = Command::new("node");
    cmd.arg(peer("everything-client.mjs"))
        .arg(peer("tee-capture.sh"))
        .arg(p("client.out"))
        .arg(p("client.in"))
        .arg(bin())
        .args(["proxy", "--name", "everything", "--trace"])
        .arg(p("t.jsonl"))
        .arg("--")
        .arg(peer("tee-capture.sh"))
        .arg(p("server.in"))
        .arg(p("server.out"))
        .args(everything_server());
    let out = run(&mut cmd, LIMIT);
    assert!(
        out.status.success(),
        "client failed: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );

    // Every byte the client sent is every byte the server received, and vice versa.
    let read = |f: &str| std::fs::read(p(f)).expect(f);
    assert_same_bytes(
        "client sent vs server received",
        &read("client.out"),
        &read("server.in"),
    );
    assert_same_bytes(
        "server sent vs client received",
        &read("server.out"),
        &read("client.in"),
    );
    let trace = load(&p("t.jsonl"));
    let server = Lane::server("everything");
    assert_trace_matches_server_capture(dir.path(), &trace, &server);

    // Server-to-client requests pair with the client's answers, not the client's own requests.
    let a = analyze(&trace);
    let find_request = |from: &Lane, method: &str| {
        (0..trace.events.len())
            .find(|&i| {
                &trace.events[i].from == from
                    && a.derived[i].kind == Kind::Request
                    && a.derived[i].method.as_deref() == Some(method)
            })
            .unwrap_or_else(|| panic!("no {method} request from {from}"))
    };
    for (from, method) in [
        (&server, "roots/list"),
        (&server, "sampling/createMessage"),
        (&server, "elicitation/create"),
        (&Lane::Host, "initialize"),
        (&Lane::Host, "tools/call"),
    ] {
        let req = find_request(from, method);
        let Pairing::AnsweredBy(seq) = a.derived[req].pairing else {
            panic!(
                "{method} from {from} is not answered: {:?}",
                a.derived[req].pairing
            );
        };
        let resp = trace
            .events
            .iter()
            .position(|e| e.seq == seq)
            .expect("response");
        assert_eq!(
            &trace.events[resp].to, from,
            "{method}: the answer goes back to the asker"
        );
        assert_eq!(a.derived[resp].method.as_deref(), Some(method));
        assert_eq!(a.derived[resp].id, a.derived[req].id);
    }
    let roots = find_request(&server, "roots/list");
    let init = find_request(&Lane::Host, "initialize");
    assert_eq!(
        a.derived[roots].id, a.derived[init].id,
        "both sides started at id 0: the collision is real"
    );
    assert!(
        a.derived.iter().all(|d| !d.is_unanswered()),
        "everything was answered"
    );
}
