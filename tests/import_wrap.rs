//! `sightline import` (Claude Desktop logs, HAR) and `sightline wrap` (host configs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sightline::trace::{Channel, Lane};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(30);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

fn sightline(args: &[&str]) -> std::process::Output {
    run(Command::new(bin()).args(args), LIMIT)
}

#[test]
fn claude_desktop_log_imports_in_order_and_pairs() {
    let dir = tempdir();
    let out_path = dir.path().join("cd.jsonl");
    let log = fixture("mcp-server-weather.log");
    let out = sightline(&[
        "import",
        "claude-desktop",
        log.to_str().unwrap(),
        "--trace",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 9:"),
        "the corrupt line is reported by number: {stderr}"
    );

    let loaded = load(&out_path);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let weather = Lane::server("weather");
    let shape: Vec<(u64, &str, String)> = loaded
        .events
        .iter()
        .map(|e| (e.seq, e.channel.as_str(), e.from.to_string()))
        .collect();
    assert_eq!(shape.len(), 10, "{shape:?}");
    assert!(shape.iter().enumerate().all(|(i, s)| s.0 == i as u64));
    assert_eq!(loaded.events[0].channel, Channel::Note);
    assert_eq!(
        loaded.events[0].raw.as_deref(),
        Some("Initializing server...")
    );
    let stderr_event = &loaded.events[3];
    assert_eq!(stderr_event.channel, Channel::Stderr);
    assert_eq!(stderr_event.from, weather);
    assert_eq!(
        stderr_event.raw.as_deref(),
        Some("weather MCP server running on stdio")
    );
    // Messages keep their exact text and their timestamps.
    let init = &loaded.events[2];
    assert_eq!((&init.from, &init.to), (&Lane::Host, &weather));
    assert!(
        init.raw
            .as_deref()
            .unwrap()
            .starts_with(r#"{"method":"initialize""#)
    );
    assert!(init.raw.as_deref().unwrap().ends_with(r#""id":0}"#));
    assert_eq!(
        sightline::trace::format_time(init.time),
        "2025-06-11T10:00:00.015000Z"
    );
    let times: Vec<_> = loaded.events.iter().map(|e| e.time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    // The skipped line (resources/list) is not in the trace.
    assert!(
        !loaded
            .events
            .iter()
            .any(|e| e.text().contains("resources/list"))
    );

    let summary = sightline(&["summary", out_path.to_str().unwrap()]);
    let summary = text(&summary.stdout);
    assert!(
        summary.contains("result initialize 2025-06-18 (216 ms)"),
        "{summary}"
    );
    assert!(
        summary.contains("result tools/call get_weather"),
        "{summary}"
    );
    assert!(summary.contains("0 unanswered"), "{summary}");
}

#[test]
fn har_import_splits_sse_and_never_records_the_authorization() {
    let dir = tempdir();
    let out_path = dir.path().join("har.jsonl");
    let har = fixture("streamable-http.har");
    let out = sightline(&[
        "import",
        "har",
        har.to_str().unwrap(),
        "--trace",
        out_path.to_str().unwrap(),
        "--name",
        "everything",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert!(!written.contains("sk-har-SECRET-4242"), "{written}");
    assert!(written.contains("Bearer [redacted]"));

    let loaded = load(&out_path);
    let server = Lane::server("everything");
    assert!(loaded.events.iter().all(|e| e.channel == Channel::Http));
    let first = &loaded.events[0];
    assert_eq!((&first.from, &first.to), (&Lane::Host, &server));
    let http = first.http().unwrap();
    assert_eq!(http.method.as_deref(), Some("POST"));
    assert_eq!(http.url.as_deref(), Some("http://127.0.0.1:3001/mcp"));
    // One event per SSE message, each with the status; the headers (session id) on the first.
    let answers: Vec<_> = loaded.events[1..3].iter().collect();
    assert!(answers.iter().all(|e| e.from == server));
    assert!(answers[0].text().contains("notifications/message"));
    assert!(answers[1].text().contains(r#""id":0,"result""#));
    assert!(
        answers
            .iter()
            .all(|e| e.http().unwrap().status == Some(200))
    );
    assert!(
        answers[0]
            .http()
            .unwrap()
            .headers
            .iter()
            .any(|(n, v)| n == "mcp-session-id" && v.starts_with("7f2c9a4e"))
    );
    let last = loaded.events.last().unwrap();
    assert_eq!(last.http().unwrap().status, Some(202));

    let summary = text(&sightline(&["summary", out_path.to_str().unwrap()]).stdout);
    assert!(
        summary.contains("result initialize 2025-06-18"),
        "{summary}"
    );
}

fn claude_config() -> Value {
    json!({
        "globalShortcut": "Ctrl+Alt+Space",
        "mcpServers": {
            "weather": {
                "command": bin(),
                "args": ["demo-server", "weather"],
                "env": {"WEATHER_UNITS": "metric"}
            },
            "filesystem": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
            },
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"X-Team": "a"}}
        },
        "preferences": {"theme": "dark"}
    })
}

#[test]
fn wrap_is_idempotent_keeps_fields_and_undoes() {
    let dir = tempdir();
    let config = dir.path().join("claude_desktop_config.json");
    let traces = dir.path().join("traces");
    let original_text = serde_json::to_string_pretty(&claude_config()).unwrap() + "\n";
    std::fs::write(&config, &original_text).unwrap();
    let c = config.to_str().unwrap();

    let out = sightline(&["wrap", c, "--trace-dir", traces.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("remote: wrapped"), "{report}");
    assert!(
        report.contains("--serve"),
        "says how to start the HTTP proxy: {report}"
    );
    let backup = dir
        .path()
        .join("claude_desktop_config.json.sightline-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original_text);

    let wrapped = read_json(&config);
    let servers = &wrapped["mcpServers"];
    let fs = &servers["filesystem"];
    assert!(Path::new(fs["command"].as_str().unwrap()).is_absolute());
    let trace = traces.join("filesystem.jsonl");
    assert_eq!(
        fs["args"],
        json!([
            "proxy",
            "--name",
            "filesystem",
            "--trace",
            trace.to_str().unwrap(),
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/home/me/notes"
        ])
    );
    assert_eq!(
        servers["weather"]["env"],
        json!({"WEATHER_UNITS": "metric"})
    );
    // The HTTP server now points at a local proxy URL that holds the upstream; the rest stays.
    let remote = servers["remote"].as_object().unwrap();
    let url = remote["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:")
            && url.ends_with("/sightline/https/mcp.example.com/mcp"),
        "{url}"
    );
    let keys: Vec<_> = remote.keys().cloned().collect();
    assert_eq!(keys, ["type", "url", "headers"]);
    assert_eq!(remote["headers"], json!({"X-Team": "a"}));
    assert_eq!(wrapped["preferences"], json!({"theme": "dark"}));
    let keys: Vec<_> = wrapped.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["globalShortcut", "mcpServers", "preferences"]);

    // A second run changes nothing.
    let wrapped_text = std::fs::read_to_string(&config).unwrap();
    let again = sightline(&["wrap", c, "--trace-dir", traces.to_str().unwrap()]);
    assert!(again.status.success());
    assert!(text(&again.stdout).contains("already wrapped"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), wrapped_text);

    // Undo restores the original, without the backup, and byte for byte with it.
    std::fs::remove_file(&backup).unwrap();
    let undo = sightline(&["wrap", c, "--undo"]);
    assert!(undo.status.success(), "{}", text(&undo.stderr));
    assert_eq!(read_json(&config), claude_config());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original_text);
    let undo_again = sightline(&["wrap", c, "--undo"]);
    assert!(text(&undo_again.stdout).contains("nothing to change"));
}

/// A config saved as UTF-16 (Notepad's "Unicode", Windows PowerShell 5's `>`) or with a UTF-8
/// mark, with CRLF line ends, is wrapped in its own encoding and undone byte for byte, with or
/// without its backup.
#[test]
fn a_config_in_utf16_or_with_a_mark_stays_so_and_undoes_byte_for_byte() {
    use sightline::trace::encoding::{self, Encoding};
    let dir = tempdir();
    let config = dir.path().join("claude_desktop_config.json");
    let c = config.to_str().unwrap();
    let crlf = serde_json::to_string_pretty(&claude_config())
        .unwrap()
        .replace('\n', "\r\n")
        + "\r\n";
    for encoding in [Encoding::Utf16Le, Encoding::Utf16Be, Encoding::Utf8Bom] {
        let original = encoding.encode(&crlf);
        std::fs::write(&config, &original).unwrap();
        let out = sightline(&["wrap", c]);
        assert!(out.status.success(), "{encoding:?}: {}", text(&out.stderr));
        let (wrapped, found) = encoding::decode(&std::fs::read(&config).unwrap()).unwrap();
        assert_eq!(found, encoding);
        assert!(!wrapped.replace("\r\n", "").contains('\n'), "CRLF kept");
        let value: Value = serde_json::from_str(&wrapped).unwrap();
        assert_eq!(value["mcpServers"]["filesystem"]["args"][0], "proxy");
        for backup in [true, false] {
            if !backup {
                assert!(sightline(&["wrap", c]).status.success());
                for b in std::fs::read_dir(dir.path()).unwrap() {
                    let b = b.unwrap().path();
                    if b.to_string_lossy().contains("sightline-backup") {
                        std::fs::remove_file(b).unwrap();
                    }
                }
            }
            let undo = sightline(&["wrap", c, "--undo"]);
            assert!(undo.status.success(), "{}", text(&undo.stderr));
            assert!(
                std::fs::read(&config).unwrap() == original,
                "{encoding:?}, backup {backup}: undone byte for byte"
            );
        }
    }
}

#[test]
fn wrap_errors_are_clear() {
    let dir = tempdir();
    let missing = dir.path().join("nope.json");
    let out = sightline(&["wrap", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("does not exist"),
        "{}",
        text(&out.stderr)
    );

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"mcpServers\": {,\n}\n").unwrap();
    let out = sightline(&["wrap", bad.to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("line 2, column"),
        "{}",
        text(&out.stderr)
    );

    let none = dir.path().join("none.json");
    std::fs::write(&none, "{\"theme\": \"dark\"}").unwrap();
    let out = sightline(&["wrap", none.to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("no server table"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&none).unwrap(),
        "{\"theme\": \"dark\"}"
    );
}

#[test]
fn a_wrapped_server_actually_runs_behind_the_proxy() {
    let dir = tempdir();
    let config = dir.path().join(".mcp.json");
    let traces = dir.path().join("traces");
    std::fs::write(
        &config,
        serde_json::to_string_pretty(&claude_config()).unwrap(),
    )
    .unwrap();
    let out = sightline(&[
        "wrap",
        config.to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let weather = &read_json(&config)["mcpServers"]["weather"];
    let args: Vec<&str> = weather["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let init = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
        r#""capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n"
    );
    let out = run_with_input(
        Command::new(weather["command"].as_str().unwrap())
            .args(&args)
            .env("WEATHER_UNITS", "metric"),
        init.as_bytes(),
        LIMIT,
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(r#""id":0"#) && stdout.contains(r#""result""#),
        "stdout: {stdout}\nstderr: {}",
        text(&out.stderr)
    );
    let loaded = load(&traces.join("weather.jsonl"));
    assert!(
        loaded
            .events
            .iter()
            .any(|e| e.from == Lane::server("weather") && e.text().contains(r#""result""#))
    );
}

#[test]
fn imported_traces_pass_the_trace_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/trace.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::options()
        .offline()
        .build(&schema)
        .expect("schema");
    let dir = tempdir();
    for (format, file) in [
        ("claude-desktop", "mcp-server-weather.log"),
        ("har", "streamable-http.har"),
        (
            "inspector",
            "inspector-protocol-weather-2026-08-19T12-00-00.000Z.json",
        ),
    ] {
        let out_path = dir.path().join(format!("{format}.jsonl"));
        let out = sightline(&[
            "import",
            format,
            fixture(file).to_str().unwrap(),
            "--trace",
            out_path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        for (n, line) in std::fs::read_to_string(&out_path)
            .unwrap()
            .lines()
            .enumerate()
        {
            let value: Value = serde_json::from_str(line).unwrap();
            let errs: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert!(errs.is_empty(), "{format} line {}: {errs:?}", n + 1);
        }
    }
}

/// Windows tools write a UTF-8 byte-order mark before the JSON: every importer reads past it
/// (issue 37, item 9).
#[test]
fn an_import_file_starting_with_a_byte_order_mark_is_read() {
    let dir = tempdir();
    for (format, name) in [
        ("har", "streamable-http.har"),
        (
            "inspector",
            "inspector-protocol-weather-2026-08-19T12-00-00.000Z.json",
        ),
    ] {
        let body = std::fs::read(fixture(name)).unwrap();
        let with_bom = dir.path().join(format!("bom-{name}"));
        std::fs::write(&with_bom, [b"\xEF\xBB\xBF".as_slice(), &body].concat()).unwrap();
        let plain = dir.path().join(format!("{format}.jsonl"));
        let bom = dir.path().join(format!("{format}-bom.jsonl"));
        for (input, out) in [(fixture(name), &plain), (with_bom.clone(), &bom)] {
            let o = sightline(&[
                "import",
                format,
                input.to_str().unwrap(),
                "--trace",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{format}: {}", text(&o.stderr));
        }
        assert_eq!(
            load(&plain).events.len(),
            load(&bom).events.len(),
            "{format}"
        );
    }
}
