//! The proxy's contract with the host that spawns it: exit status, errors, where the trace goes.

use std::process::Command;
use std::time::Duration;

use sightline::trace::{Channel, Lane};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn exit_status_mirrors_the_server() {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let out = run(
        Command::new(bin())
            .arg("proxy")
            .arg("--trace")
            .arg(&trace)
            .args(["--", "sh", "-c", "echo oops >&2; exit 3"]),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("oops"),
        "server stderr is passed through"
    );
    let loaded = load(&trace);
    let exit = loaded
        .events
        .last()
        .and_then(|e| e.process())
        .expect("exit event last");
    assert_eq!((exit.event.as_str(), exit.code), ("exit", Some(3)));
    let stderr = loaded
        .events
        .iter()
        .find(|e| e.channel == Channel::Stderr)
        .expect("stderr event");
    assert_eq!(stderr.raw.as_deref(), Some("oops"));
    assert_eq!(stderr.from, Lane::server("sh"));
}

#[test]
fn missing_command_is_a_clear_error_and_is_recorded() {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let out = run(
        Command::new(bin())
            .arg("proxy")
            .arg("--trace")
            .arg(&trace)
            .args(["--", "/nonexistent/mcp-server", "--flag"]),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(127));
    assert!(out.stdout.is_empty(), "nothing on the protocol channel");
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot start server `/nonexistent/mcp-server`"),
        "{err}"
    );
    assert!(err.contains("is it installed and on PATH?"), "{err}");
    let loaded = load(&trace);
    let p = loaded.events[0].process().expect("process event");
    assert_eq!(p.event, "spawn-failed");
    assert_eq!(p.command, ["/nonexistent/mcp-server", "--flag"]);
}

#[test]
fn default_trace_goes_to_the_data_dir_and_is_announced_on_stderr() {
    let dir = tempdir();
    let out = run(
        Command::new(bin())
            .env("SIGHTLINE_DATA_DIR", dir.path())
            .args(["proxy", "--name", "quiet", "--", "true"]),
        LIMIT,
    );
    assert!(out.status.success());
    let traces: Vec<_> = std::fs::read_dir(dir.path().join("traces"))
        .expect("traces dir")
        .flatten()
        .collect();
    assert_eq!(traces.len(), 1);
    let path = traces[0].path();
    assert!(
        path.to_string_lossy().ends_with("-quiet.jsonl"),
        "{}",
        path.display()
    );
    assert!(
        text(&out.stderr).contains(&path.display().to_string()),
        "{}",
        text(&out.stderr)
    );
    let loaded = load(&path);
    assert_eq!(loaded.events.len(), 2, "spawn and exit");
    assert_eq!(loaded.events[0].to, Lane::server("quiet"));
}

#[test]
fn proxy_forwards_bytes_it_cannot_parse_and_records_them() {
    // A client that sends odd but legal bytes: CRLF, a non-UTF-8 line, no final newline.
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\xff\xfe\n{ \"b\" : 1,\n\"a\":2 }\n[1]\ntail";
    let mut child = Command::new(bin())
        .arg("proxy")
        .arg("--trace")
        .arg(&trace)
        .args(["--", "cat"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn proxy");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input).expect("write");
    }
    let out = wait_with_deadline(child, LIMIT);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_same_bytes("echoed through cat", &out.stdout, input);
    let loaded = load(&trace);
    let sent: Vec<Vec<u8>> = loaded
        .events
        .iter()
        .filter(|e| e.channel == Channel::Stdio && e.from == Lane::Host)
        .map(|e| e.bytes().expect("bytes").into_owned())
        .collect();
    let expected: Vec<&[u8]> = vec![
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r",
        b"\xff\xfe",
        b"{ \"b\" : 1,",
        b"\"a\":2 }",
        b"[1]",
        b"tail",
    ];
    assert_eq!(sent, expected);
    assert!(
        loaded.events.iter().any(|e| e.raw_b64().is_some()),
        "the non-UTF-8 line is stored as base64"
    );
}
