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
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/narration/weather.jsonl"
    );
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
        vec!["diff", missing, missing],
    ] {
        let out = sightline(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(missing),
            "{args:?} names the file: {stderr}"
        );
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

/// Issue 11, item 4: a file that is not the named format is refused, not imported as nothing.
#[test]
fn import_refuses_a_file_that_is_not_the_named_format() {
    let dir = tempdir();
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let array = dir.path().join("numbers.json");
    std::fs::write(&array, "[1, 2, 3]\n").unwrap();
    let har = dir.path().join("broken.har");
    std::fs::write(&har, r#"{"log": {"entries": [{"request": {}}, 7]}}"#).unwrap();
    let empty = dir.path().join("mcp-server-x.log");
    std::fs::write(&empty, "\n\n").unwrap();
    for (format, file, expected) in [
        (
            "claude-desktop",
            readme.to_string(),
            "not a Claude Desktop log (no line matched)",
        ),
        (
            "claude-desktop",
            empty.display().to_string(),
            "not a Claude Desktop log (no line matched)",
        ),
        (
            "inspector",
            array.display().to_string(),
            "not an MCP Inspector export (no entry matched; entry 1: ",
        ),
        (
            "har",
            har.display().to_string(),
            "not a HAR of MCP traffic (no entry matched; entry 1: ",
        ),
    ] {
        let out_path = dir.path().join(format!("{format}.jsonl"));
        let out = sightline(&[
            "import",
            format,
            &file,
            "--trace",
            out_path.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format} {file}: {stderr}");
        assert!(
            stderr.contains(&format!("{file}: {expected}")),
            "{format} {file}: {stderr}"
        );
        assert!(
            !stderr.contains("(skipped)"),
            "one error, not a line per skipped line: {stderr}"
        );
        assert!(!out_path.exists(), "no trace written for {file}");
    }
}

const HEADER: &str =
    r#"{"sightline_trace":1,"created":"2026-01-01T00:00:00.000000Z","sightline_version":"0.1.0"}"#;

fn event_line(seq: u64, time: &str, from: &str, to: &str, payload: &str) -> String {
    format!(
        r#"{{"seq":{seq},"time":"{time}","from":"{from}","to":"{to}","channel":"stdio",{payload}}}"#
    )
}

#[test]
fn a_bad_raw_b64_or_two_payload_fields_is_a_line_warning() {
    let trace = [
        HEADER.to_string(),
        event_line(
            0,
            "2026-01-01T00:00:00.000000Z",
            "host",
            "server:a",
            r#""raw_b64":"not base64!""#,
        ),
        event_line(
            1,
            "2026-01-01T00:00:00.001000Z",
            "host",
            "server:a",
            r#""raw":"{}","raw_b64":"e30=""#,
        ),
        event_line(
            2,
            "2026-01-01T00:00:00.002000Z",
            "host",
            "server:a",
            r#""raw_b64":"/w==""#,
        ),
    ]
    .join("\n");
    let loaded = sightline::trace::load_from_reader(trace.as_bytes()).expect("loads");
    assert_eq!(loaded.events.len(), 3, "every event is kept");
    let lines: Vec<usize> = loaded.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [2, 3], "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0]
            .to_string()
            .contains("`raw_b64` is not valid base64"),
        "{}",
        loaded.warnings[0]
    );
    assert!(
        loaded.warnings[1]
            .to_string()
            .contains("both `raw` and `raw_b64`"),
        "{}",
        loaded.warnings[1]
    );
    assert_eq!(loaded.events[2].bytes().as_deref(), Some(&[0xff_u8][..]));
}

#[test]
fn events_out_of_time_order_are_a_warning_not_a_negative_latency() {
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
    let trace = [
        HEADER.to_string(),
        event_line(
            0,
            "2026-01-01T00:00:05.000000Z",
            "host",
            "server:a",
            &format!("\"raw\":{}", serde_json::to_string(request).unwrap()),
        ),
        event_line(
            1,
            "2026-01-01T00:00:02.000000Z",
            "server:a",
            "host",
            &format!("\"raw\":{}", serde_json::to_string(answer).unwrap()),
        ),
    ]
    .join("\n")
        + "\n";
    let loaded = sightline::trace::load_from_reader(trace.as_bytes()).expect("loads");
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert_eq!(loaded.warnings[0].line, 3);
    assert!(
        loaded.warnings[0].to_string().contains("out of time order")
            && loaded.warnings[0]
                .to_string()
                .contains("3000.000 ms before the event on line 2"),
        "{}",
        loaded.warnings[0]
    );
    let analysis = sightline::trace::analyze(&loaded.events);
    assert_eq!(analysis.derived[1].latency_us(), None);
    assert_eq!(analysis.derived[0].latency_us(), None);

    // The command line shows the warning and no negative latency.
    let dir = tempdir();
    let path = dir.path().join("backwards.jsonl");
    std::fs::write(&path, &trace).unwrap();
    let out = sightline(&["summary", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out));
    assert!(
        text(&out.stderr).contains("out of time order"),
        "{}",
        text_of(&out)
    );
    assert!(!text(&out.stdout).contains("-3000"), "{}", text_of(&out));
    assert!(!text(&out.stdout).contains("(-"), "{}", text_of(&out));
}

#[test]
fn two_thousand_events_out_of_time_order_are_said_in_four_lines() {
    let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;
    let raw = format!("\"raw\":{}", serde_json::to_string(note).unwrap());
    let mut lines = vec![HEADER.to_string()];
    for seq in 0..2001_u64 {
        // Each event a millisecond before the one it follows.
        let time = format!(
            "2026-01-01T00:00:{:02}.{:03}000Z",
            5 - seq / 1000 % 6,
            999 - seq % 1000
        );
        lines.push(event_line(seq, &time, "server:a", "host", &raw));
    }
    let dir = tempdir();
    let path = dir.path().join("backwards.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = sightline(&["summary", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out));
    let stderr = text(&out.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("sightline:"))
        .collect();
    assert_eq!(said.len(), 4, "{stderr}");
    assert!(
        said[..3].iter().all(|l| l.contains("out of time order")),
        "{stderr}"
    );
    assert!(
        said[3].ends_with("1997 more lines with the problem of line 3, the last on line 2002"),
        "{stderr}"
    );
}

fn text_of(out: &std::process::Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

#[test]
fn summary_of_a_scenario_says_to_run_it_first() {
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/weather.toml");
    let out = sightline(&["summary", scenario]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("is a scenario, not a trace: run it first with `sightline run"),
        "{stderr}"
    );
}

#[test]
fn a_server_command_that_is_a_directory_says_so() {
    let data = tempdir();
    let dir = tempdir();
    let out = run(
        Command::new(bin())
            .env("SIGHTLINE_DATA_DIR", data.path())
            .args(["proxy", "--"])
            .arg(dir.path()),
        LIMIT,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(127), "{stderr}");
    assert!(
        stderr.contains("it is a directory, not a program"),
        "{stderr}"
    );
}

#[test]
fn session_names_that_escape_the_sessions_folder_are_refused() {
    let data = tempdir();
    for args in [
        &["proxy", "--session", "..", "--", "true"][..],
        &["proxy", "--session", ".", "--", "true"],
        &[
            "llm-proxy",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "http://127.0.0.1:9",
            "--session",
            "..",
        ],
        &["session", "merge", "..", "--trace", "out.jsonl"],
        &["session", "path", ".."],
    ] {
        let out = run(
            Command::new(bin())
                .env("SIGHTLINE_DATA_DIR", data.path())
                .current_dir(data.path())
                .args(args),
            LIMIT,
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("would escape the sessions folder"),
            "{args:?}: {stderr}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(data.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing written: {left:?}");
}

/// Found by the `import_inspector` fuzz target: a `duration` (Inspector) or `time` (HAR) so
/// large that the answer's time overflowed chrono's range panicked the importer. It is the
/// entry's warning now, and the rest imports.
#[test]
fn an_import_with_a_duration_past_any_date_is_a_warning_not_a_panic() {
    let dir = tempdir();
    let inspector = dir.path().join("inspector-protocol-huge.json");
    std::fs::write(
        &inspector,
        r#"[{"timestamp":"2026-08-19T11:59:58.320Z","direction":"request","origin":"client",
  "message":{"jsonrpc":"2.0","id":1,"method":"tools/list"},
  "response":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}},"duration":1444444444444444444444},
 {"timestamp":"2026-08-19T11:59:58.400Z","direction":"notification","origin":"client",
  "message":{"jsonrpc":"2.0","method":"notifications/initialized"}}]"#,
    )
    .unwrap();
    let har = dir.path().join("huge.har");
    std::fs::write(
        &har,
        r#"{"log":{"entries":[
  {"startedDateTime":"2025-06-11T10:00:00.000Z","time":1e300,
   "request":{"method":"POST","url":"http://127.0.0.1:3001/mcp","headers":[],"postData":{"text":"{}"}},
   "response":{"status":202,"headers":[],"content":{"text":""}}},
  {"startedDateTime":"2025-06-11T10:00:01.000Z","time":3,
   "request":{"method":"POST","url":"http://127.0.0.1:3001/mcp","headers":[],"postData":{"text":"{}"}},
   "response":{"status":202,"headers":[],"content":{"text":""}}}]}}"#,
    )
    .unwrap();
    for (format, file, field) in [("inspector", &inspector, "duration"), ("har", &har, "time")] {
        let out_path = dir.path().join(format!("{format}.jsonl"));
        let out = sightline(&[
            "import",
            format,
            file.to_str().unwrap(),
            "--trace",
            out_path.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        assert!(
            stderr.contains(&format!("entry 1: `{field}` is "))
                && stderr.contains("after any date"),
            "{format}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{format}: {stderr}");
        assert!(
            !crate::util::load(&out_path).events.is_empty(),
            "{format}: the rest imports"
        );
    }
}

/// Found by the `wrap_config` fuzz target (its input is in tests/fixtures/fuzz): a number in a
/// field `wrap` does not touch came back as another number (`4.1705007e+145` against
/// `4.1705006999999997e+145`), because JSON numbers were read to the nearest float only
/// approximately (serde_json without `float_roundtrip`). Written and read again, every value
/// is what it was.
#[test]
fn wrap_keeps_the_value_of_every_number_in_other_fields() {
    use sightline::tap::wrap::{self, WrapOptions};
    let input = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/wrap_config-number-drift.json"
    ))
    .unwrap();
    let text = String::from_utf8_lossy(&input);
    let config = wrap::parse_config(&text).expect("the fuzzer's input parses");
    let options = WrapOptions {
        sightline: "/usr/local/bin/sightline".into(),
        trace_dir: Some("/tmp/traces".into()),
        session: None,
        http_port: 6280,
        port_is_free: |_| true,
        proxy_args: Vec::new(),
    };
    let wrapped = wrap::wrap(&text, &options).expect("wraps");
    wrap::parse_config(&wrapped.text).expect("what wrap writes parses");
    let restored = wrap::unwrap(&wrapped.text).expect("unwraps");
    assert_eq!(wrap::parse_config(&restored.text).expect("parses"), config);
}

/// The fuzzers' crash inputs for the importers import (with warnings) instead of panicking.
#[test]
fn the_importers_crash_inputs_from_fuzzing_import_without_a_panic() {
    let dir = tempdir();
    for (format, file) in [
        ("inspector", "import_inspector-duration-overflow.json"),
        ("har", "import_har-time-overflow.har"),
    ] {
        let path = format!("{}/tests/fixtures/fuzz/{file}", env!("CARGO_MANIFEST_DIR"));
        let out_path = dir.path().join(format!("{format}.jsonl"));
        let out = sightline(&[
            "import",
            format,
            &path,
            "--trace",
            out_path.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{format}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{format}: {stderr}");
    }
}
