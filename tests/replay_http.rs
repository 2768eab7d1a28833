//! `sightline replay --url` against Streamable HTTP servers: a session recorded between the
//! TypeScript SDK's HTTP client and `@modelcontextprotocol/server-everything` (through
//! `sightline proxy --http`), replayed against the same server and against a Python server of
//! ours that answers differently, has lost a tool and, in one variant, rejects requests with a
//! bare `400`; and a session whose server asked for the client's roots on the standalone `GET`
//! stream, which the replay opens again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline::trace::{Channel, Kind, Lane};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

/// server-everything in `streamableHttp` mode, and its endpoint.
pub(crate) fn everything() -> (Running, String) {
    let port = free_port();
    let mut cmd = Command::new("node");
    cmd.arg(peer(
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ))
    .arg("streamableHttp")
    .env("PORT", port.to_string());
    (
        listening(&mut cmd, port),
        format!("http://127.0.0.1:{port}/mcp"),
    )
}

/// `changed_server.py VARIANT --http PORT`, and its endpoint.
fn changed(variant: &str) -> (Running, String) {
    let port = free_port();
    let mut cmd = Command::new("python3");
    cmd.arg(peer("replay/changed_server.py"))
        .args([variant, "--http", &port.to_string()]);
    (
        listening(&mut cmd, port),
        format!("http://127.0.0.1:{port}/mcp"),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The TS SDK HTTP client's session with `upstream`, recorded by `sightline proxy --http`.
pub(crate) fn recorded_session(dir: &Path, upstream: &str) -> PathBuf {
    recorded_with(dir, upstream, "http-client.mjs")
}

/// The session of the TS SDK client `client` (a peer script taking the URL) with `upstream`,
/// recorded by `sightline proxy --http`.
pub(crate) fn recorded_with(dir: &Path, upstream: &str, client: &str) -> PathBuf {
    require_npm_peers();
    let trace = dir.join("http.jsonl");
    let port = free_port();
    let mut proxy = Command::new(bin());
    proxy
        .args(["proxy", "--http", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--upstream", upstream, "--name", "everything", "--trace"])
        .arg(&trace);
    let mut proxy = listening(&mut proxy, port);
    let out = run(
        Command::new("node")
            .arg(peer(client))
            .arg(format!("http://127.0.0.1:{port}/mcp")),
        LIMIT,
    );
    assert!(out.status.success(), "client: {}", text(&out.stderr));
    // SIGTERM, as a terminal would, so the trace is complete.
    let _ = Command::new("kill")
        .args(["-TERM", &proxy.0.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while proxy.0.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the proxy did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    trace
}

fn replay_url(trace: &Path, out: &Path, url: &str, extra: &[&str]) -> Output {
    run(
        Command::new(bin())
            .arg("replay")
            .arg(trace)
            .args(["--trace", s(out), "--url", url])
            .args(extra),
        LIMIT,
    )
}

#[test]
fn an_http_session_replayed_against_the_same_server_everything_matches_and_is_recorded() {
    let dir = tempdir();
    let (_server, upstream) = everything();
    let trace = recorded_session(dir.path(), &upstream);
    let r = dir.path().join("r.jsonl");
    let out = replay_url(&trace, &r, &upstream, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // initialize, tools/list, echo, the long-running operation (its progress tokens ignored).
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some("4 requests replayed: 4 same, 0 differ, 0 not answered, 0 not sent"),
        "{stdout}"
    );
    // The replay went through the HTTP tap: http events, the new session's id on the later
    // requests (not the recorded one), the progress notifications, and the closing DELETE.
    let replayed = load(&r);
    let analysis = analyze(&replayed);
    assert!(
        replayed
            .events
            .iter()
            .all(|e| matches!(e.channel, Channel::Http | Channel::Note)),
        "{:#?}",
        replayed.events
    );
    let session_of = |events: &[sightline::trace::Event]| {
        events
            .iter()
            .filter(|e| e.to == Lane::Host)
            .find_map(|e| {
                e.http().and_then(|h| {
                    h.headers
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
                        .map(|(_, v)| v.clone())
                })
            })
            .expect("a session id")
    };
    let (old, new) = (
        session_of(&load(&trace).events),
        session_of(&replayed.events),
    );
    assert_ne!(old, new);
    let requests: Vec<_> = replayed
        .events
        .iter()
        .filter(|e| e.to == Lane::server("everything"))
        .collect();
    for e in &requests[1..] {
        let h = e.http().expect("http");
        assert!(
            h.headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case("mcp-session-id") && *v == new),
            "{e:#?}"
        );
    }
    assert!(
        requests
            .iter()
            .any(|e| { e.http().and_then(|h| h.method.as_deref()) == Some("DELETE") })
    );
    let progress = analysis
        .derived
        .iter()
        .filter(|d| {
            d.kind == Kind::Notification && d.method.as_deref() == Some("notifications/progress")
        })
        .count();
    assert_eq!(progress, 3);
}

#[test]
fn an_http_replay_against_a_changed_server_exits_1_with_each_pointer_and_both_values() {
    let dir = tempdir();
    let (_server, upstream) = everything();
    let trace = recorded_session(dir.path(), &upstream);
    let (_changed, url) = changed("everything-b");
    let out = replay_url(&trace, &dir.path().join("r.jsonl"), &url, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    for needle in [
        r#"/result/content/0/text: "Echo: hello over http" -> "Echo (changed): hello over http""#,
        r#"/result/serverInfo/version: "2.0.0" -> "9.9.9""#,
        r#"/result/tools/1: {"name":"get-annotated-message""#,
        // The lost tool: the call the recording had answered is now an error.
        r#"/error: (absent) -> {"code":-32601,"message":"unknown: tools/call"}"#,
        "4 requests replayed: 0 same, 4 differ, 0 not answered, 0 not sent",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
    let echo = stdout
        .lines()
        .find(|l| l.starts_with("tools/call echo  recorded #"))
        .expect("the echo block");
    assert!(
        echo.contains(", replayed #") && echo.ends_with(": differs"),
        "{echo}"
    );
    // The recorded client opened the GET stream: so did the replay, and this server's 405
    // (no stream offered) is recorded, not an error.
    let replayed = load(&dir.path().join("r.jsonl"));
    let get = replayed
        .events
        .iter()
        .position(|e| method_of(e) == Some("GET"))
        .expect("the GET stream was asked for");
    assert!(
        replayed.events[get..]
            .iter()
            .any(|e| e.http().and_then(|h| h.status) == Some(405)),
        "{:#?}",
        replayed.events
    );
}

fn method_of(e: &sightline::trace::Event) -> Option<&str> {
    e.http().and_then(|h| h.method.as_deref())
}

#[test]
fn the_get_stream_is_opened_again_and_requests_on_it_get_the_recorded_answers() {
    let dir = tempdir();
    let (_server, upstream) = everything();
    let trace = recorded_with(dir.path(), &upstream, "http-roots-client.mjs");
    let recorded = load(&trace);
    assert!(recorded.events.iter().any(|e| method_of(e) == Some("GET")));
    // The server's roots/list comes only on the GET stream: without it, get-roots-list would
    // wait for roots that never come.
    let r = dir.path().join("r.jsonl");
    let out = replay_url(&trace, &r, &upstream, &["--timeout", "5s"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some("2 requests replayed: 2 same, 0 differ, 0 not answered, 0 not sent"),
        "{stdout}"
    );
    let replayed = load(&r);
    let analysis = analyze(&replayed);
    // The GET went through the tap after the handshake, in the new session, asking for events.
    let get = replayed
        .events
        .iter()
        .find(|e| method_of(e) == Some("GET"))
        .expect("the GET stream was opened");
    let initialized = replayed
        .events
        .iter()
        .find(|e| e.text().contains("notifications/initialized"))
        .expect("notifications/initialized");
    assert!(get.seq > initialized.seq);
    assert_eq!(header(get, "accept"), Some("text/event-stream"));
    let session = replayed
        .events
        .iter()
        .filter(|e| e.to == Lane::Host)
        .find_map(|e| header(e, "mcp-session-id"))
        .expect("the new session");
    assert_eq!(header(get, "mcp-session-id"), Some(session));
    // The server's roots/list got the client's recorded answer, under its new id.
    let (request, answer) = (
        replayed
            .events
            .iter()
            .zip(&analysis.derived)
            .find(|(e, d)| {
                d.kind == Kind::Request
                    && e.from.is_server()
                    && d.method.as_deref() == Some("roots/list")
            }),
        replayed
            .events
            .iter()
            .zip(&analysis.derived)
            .find(|(e, d)| {
                d.kind == Kind::Response
                    && e.to.is_server()
                    && d.method.as_deref() == Some("roots/list")
            }),
    );
    let (request, answer) = (
        request.expect("roots/list").0,
        answer.expect("its answer").0,
    );
    assert!(answer.seq > request.seq);
    let answer: Value = serde_json::from_str(&answer.text()).expect("JSON");
    let request: Value = serde_json::from_str(&request.text()).expect("JSON");
    assert_eq!(answer["id"], request["id"]);
    assert_eq!(
        answer["result"]["roots"][0]["uri"],
        "file:///tmp/sightline-replay"
    );
    // And the tool saw them.
    assert!(
        replayed
            .events
            .iter()
            .any(|e| e.to == Lane::Host && e.text().contains("replayed root")),
        "{:#?}",
        replayed.events
    );
}

#[test]
fn requests_an_http_server_rejects_without_an_answer_are_differences_not_a_crash() {
    let dir = tempdir();
    let (_server, upstream) = everything();
    let trace = recorded_session(dir.path(), &upstream);
    let (_changed, url) = changed("reject-http");
    let r = dir.path().join("r.jsonl");
    let out = replay_url(&trace, &r, &url, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let requests = v["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 4);
    for r in &requests[1..] {
        assert_eq!(r["status"], "differs", "{r}");
        let new = r["differences"][0]["new"].as_str().expect("what it said");
        assert_eq!(
            new, "rejected: HTTP 400 Bad Request: Bad Request: not today",
            "{r}"
        );
    }
    // Every rejected message (the three requests and notifications/initialized) and its 400
    // are in the replay's trace.
    let replayed = load(&r);
    let statuses = replayed
        .events
        .iter()
        .filter(|e| e.http().and_then(|h| h.status) == Some(400))
        .count();
    assert_eq!(statuses, 4);
    // Nothing listening: one line naming the endpoint, exit 2, the attempt recorded.
    let gone = format!("http://127.0.0.1:{}/mcp", free_port());
    let r = dir.path().join("gone.jsonl");
    let out = replay_url(&trace, &r, &gone, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains(&format!("cannot reach the upstream {gone}"))
            && errors[0].contains("while replaying initialize (recorded #0)"),
        "{stderr}"
    );
    assert!(
        load(&r)
            .events
            .iter()
            .any(|e| e.text().contains("\"initialize\"")),
        "the attempt is recorded"
    );
}
