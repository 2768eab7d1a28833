//! A server that breaks every rule (`tests/peers/misbehave.py`): non-JSON lines, JSON that is
//! not JSON-RPC, bytes that are not UTF-8, a 50 MB line, then death by SIGKILL mid-request.
//! The proxy must forward every byte unchanged, flag what is wrong, and keep everything.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use sightline::trace::{Channel, Kind, Lane, Pairing};

use crate::util::*;

const FIFTY_MB: usize = 50 * 1024 * 1024;

#[test]
fn garbage_a_50_mb_line_and_a_killed_server_lose_nothing() {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let (server_in, server_out) = (dir.path().join("server.in"), dir.path().join("server.out"));
    let mut child = Command::new(bin())
        .arg("proxy")
        .arg("--trace")
        .arg(&trace)
        .arg("--")
        .arg(peer("tee-capture.sh"))
        .arg(&server_in)
        .arg(&server_out)
        .args(["python3", &peer("misbehave.py")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn proxy");
    let requests: &[u8] = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#, "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{}}}"#, "\n",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"die","arguments":{}}}"#, "\n",
    )
    .as_bytes();
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(requests).expect("write requests");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        stdout.read_to_end(&mut got).expect("read proxy stdout");
        got
    });
    // Keep stdin open: the server dies on its own, mid-request.
    let out = wait_with_deadline(child, Duration::from_secs(120));
    drop(stdin);
    let received = reader.join().expect("reader");

    assert_eq!(
        out.status.code(),
        Some(128 + 9),
        "the proxy mirrors death by SIGKILL: {}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("about to die"),
        "server stderr passes through"
    );

    // Bytes: client -> server and server -> client, each checked against an independent capture.
    let loaded = load(&trace);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let server = Lane::server("tee-capture");
    let server_saw = std::fs::read(&server_in).expect("server.in");
    let server_wrote = std::fs::read(&server_out).expect("server.out");
    assert_same_bytes("client sent vs server received", requests, &server_saw);
    assert_same_bytes("server wrote vs client received", &server_wrote, &received);
    assert_same_bytes(
        "trace vs what the server received",
        &stdio_bytes(&loaded.events, &Lane::Host, &server),
        &server_saw,
    );
    assert_same_bytes(
        "trace vs what the client received",
        &stdio_bytes(&loaded.events, &server, &Lane::Host),
        &received,
    );
    assert!(
        received.len() > FIFTY_MB,
        "the 50 MB line came through whole"
    );

    let analysis = analyze(&loaded);
    let events = &loaded.events;
    let find = |pred: &dyn Fn(usize) -> bool| (0..events.len()).find(|&i| pred(i));

    // Invalid lines are flagged, with a reason, and kept.
    let invalid: Vec<String> = (0..events.len())
        .filter(|&i| analysis.derived[i].kind == Kind::Invalid)
        .map(|i| {
            format!(
                "{}: {}",
                events[i].text(),
                analysis.derived[i]
                    .problem()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(invalid.len(), 3, "{invalid:#?}");
    assert!(
        invalid[0].starts_with("{\"hello\": \"world\"}: JSON, but not JSON-RPC"),
        "{invalid:#?}"
    );
    assert!(
        invalid
            .iter()
            .any(|s| s.starts_with("debug: listing tools: not JSON")),
        "{invalid:#?}"
    );
    assert!(
        invalid.iter().any(|s| s.ends_with("not UTF-8 text")),
        "{invalid:#?}"
    );

    // The 50 MB result is one event, paired with its request.
    let big =
        find(&|i| events[i].raw.as_ref().is_some_and(|r| r.len() > FIFTY_MB)).expect("big event");
    assert_eq!(analysis.derived[big].kind, Kind::Response);
    assert_eq!(analysis.derived[big].detail.as_deref(), Some("big"));

    // The request the server died on is unanswered, and the death is recorded after its last words.
    let die = find(&|i| {
        analysis.derived[i].detail.as_deref() == Some("die")
            && analysis.derived[i].kind == Kind::Request
    })
    .expect("die request");
    let exit =
        find(&|i| events[i].process().is_some_and(|p| p.event == "exit")).expect("exit event");
    assert_eq!(
        analysis.derived[die].pairing,
        Pairing::Unanswered(
            format!("the server exited first (event #{})", events[exit].seq).into()
        )
    );
    assert_eq!(events[exit].process().and_then(|p| p.signal), Some(9));
    let last_words = find(&|i| {
        events[i].channel == Channel::Stderr && events[i].raw.as_deref() == Some("about to die")
    })
    .expect("stderr line");
    assert!(last_words < exit && exit == events.len() - 1);

    // The summary marks both problems.
    let out = run(
        Command::new(bin()).arg("summary").arg(&trace),
        Duration::from_secs(60),
    );
    let summary = text(&out.stdout);
    assert!(summary.contains("!! invalid: not JSON"), "{summary}");
    assert!(
        summary.contains("tools/call die  [id 4]  !! unanswered: the server exited first"),
        "{summary}"
    );
    assert!(summary.contains("exited signal 9 (SIGKILL)"), "{summary}");
}
