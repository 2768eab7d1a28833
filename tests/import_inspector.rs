//! `sightline import inspector`: the MCP Inspector's Protocol export (v2) and v1 History items,
//! through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use sightline::trace::{Channel, Lane};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(30);

fn sightline(args: &[&str]) -> std::process::Output {
    run(Command::new(bin()).args(args), LIMIT)
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/inspector-protocol-weather-2026-08-19T12-00-00.000Z.json")
}

#[test]
fn inspector_exports_import_with_their_times_pairs_and_skipped_entries() {
    let dir = tempdir();
    let out_path = dir.path().join("inspector.jsonl");
    let out = sightline(&[
        "import",
        "inspector",
        fixture().to_str().unwrap(),
        "--trace",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("entry 7:"),
        "the bad entry is named: {stderr}"
    );

    let loaded = load(&out_path);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(!loaded.header.extra.contains_key("synthetic_times"));
    assert_eq!(loaded.events.len(), 12);
    // The server is named after the export's file name; every message is host <-> server.
    let weather = Lane::server("weather");
    for e in &loaded.events {
        assert_eq!(e.channel, Channel::Stdio);
        assert!(
            (e.from == Lane::Host && e.to == weather) || (e.from == weather && e.to == Lane::Host)
        );
    }
    // Real times, in order; the folded initialize answer lands at timestamp + duration.
    let times: Vec<_> = loaded.events.iter().map(|e| e.time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        sightline::trace::format_time(loaded.events[1].time),
        "2026-08-19T11:59:58.312000Z"
    );
    // The entry's own fields are kept beside the message.
    assert_eq!(loaded.events[0].extra()["inspector"]["origin"], "client");

    let summary = text(&sightline(&["summary", out_path.to_str().unwrap()]).stdout);
    for expected in [
        "result initialize 2025-11-25 (212 ms)",
        "S->C  roots/list  [id 0]",
        "result tools/call get_weather (48 ms)",
        "error -32602 Unknown tool: nope",
        "(0 unanswered)",
    ] {
        assert!(summary.contains(expected), "{expected:?} in\n{summary}");
    }
}

#[test]
fn v1_history_items_get_synthetic_times_marked_in_the_header_and_cli_output_is_refused() {
    let dir = tempdir();
    let v1 = dir.path().join("history.json");
    std::fs::write(
        &v1,
        r#"[{"request":"{\"method\":\"tools/list\"}","response":"{\"tools\":[]}"},
            {"method":"notifications/tools/list_changed"}]"#,
    )
    .unwrap();
    let out_path = dir.path().join("v1.jsonl");
    let out = sightline(&[
        "import",
        "inspector",
        v1.to_str().unwrap(),
        "--trace",
        out_path.to_str().unwrap(),
        "--name",
        "everything",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no times"));
    let loaded = load(&out_path);
    assert_eq!(
        loaded.header.extra.get("synthetic_times"),
        Some(&Value::Bool(true))
    );
    assert_eq!(
        loaded.events[0].raw.as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
    );
    assert_eq!(loaded.events[2].from, Lane::server("everything"));
    let summary = text(&sightline(&["summary", out_path.to_str().unwrap()]).stdout);
    assert!(summary.contains("result tools/list"), "{summary}");

    let cli = dir.path().join("cli.json");
    std::fs::write(&cli, r#"{"result":{"tools":[]}}"#).unwrap();
    let out = sightline(&[
        "import",
        "inspector",
        cli.to_str().unwrap(),
        "--trace",
        dir.path().join("cli.jsonl").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("inspector --cli"),
        "{}",
        text(&out.stderr)
    );
}
