//! One exit-status convention (0 fine, 1 findings, 2 trouble), readers that say what is wrong
//! with their input, and stderr that stays plain text when it is not a terminal.

use std::process::Command;
use std::time::Duration;

use crate::util::{bin, run, run_with_input, tempdir, text};

const LIMIT: Duration = Duration::from_secs(60);

fn sightline(args: &[&str]) -> std::process::Output {
    run(Command::new(bin()).args(args), LIMIT)
}

#[test]
fn validate_exits_2_when_it_cannot_read_the_trace_and_1_only_for_violations() {
    let dir = tempdir();
    let missing = dir.path().join("missing.jsonl");
    let out = sightline(&["validate", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

    let not_a_trace = dir.path().join("notes.jsonl");
    std::fs::write(&not_a_trace, "hello\n").unwrap();
    let out = sightline(&["validate", not_a_trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

    // A readable trace without violations: 0.
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/narration/weather.jsonl");
    let out = sightline(&["validate", fixture]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn every_trace_reader_exits_2_on_a_missing_file_and_names_the_os_error_once() {
    let dir = tempdir();
    let missing = dir.path().join("missing.jsonl");
    let missing = missing.to_str().unwrap();
    let os_error = std::io::Error::from_raw_os_error(2).to_string();
    for args in [
        vec!["summary", missing],
        vec!["validate", missing],
        vec!["export", missing, "--format", "mermaid"],
        vec!["poison", missing],
        vec!["doctor", missing],
    ] {
        let out = sightline(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(missing), "{args:?} names the file: {stderr}");
        assert_eq!(
            stderr.matches(&os_error).count(),
            1,
            "{args:?} prints the OS error once: {stderr}"
        );
    }
}

#[test]
fn stderr_has_no_colour_codes_when_it_is_not_a_terminal() {
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
"#;
    let out = run_with_input(
        Command::new(bin())
            .args(["demo-server", "weather"])
            .env("SIGHTLINE_LOG", "info")
            .env_remove("NO_COLOR"),
        init,
        LIMIT,
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("INFO"), "a log line was written: {stderr}");
    assert!(!stderr.contains('\u{1b}'), "no ANSI escapes: {stderr:?}");
}
