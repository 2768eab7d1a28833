//! `--filter` on real runs: `summary`, `stats` and `export` keep the events a display filter
//! keeps, and a mistake exits 2 with a caret under its column.

use std::process::Command;
use std::time::Duration;

use crate::util;

fn sightline(args: &[&str], trace: &std::path::Path) -> std::process::Output {
    util::run(
        Command::new(util::bin()).args(args).arg(trace),
        Duration::from_secs(60),
    )
}

#[test]
fn summary_stats_and_export_keep_what_the_filter_keeps() {
    let dir = util::tempdir();
    let trace = dir.path().join("media.jsonl");
    util::run_scenario_to("tool-error-and-image", &trace, &[]);

    let out = sightline(
        &["summary", "--json", "--filter", "tool:divide dir:s2c"],
        &trace,
    );
    assert!(out.status.success(), "{out:?}");
    let records: Vec<serde_json::Value> = util::text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["method"], "tools/call");
    assert_eq!(records[0]["detail"], "divide");
    // The answer's pairing is the whole trace's, though its request is not shown.
    assert!(records[0]["paired"].is_u64(), "{records:#?}");

    let out = sightline(
        &[
            "stats",
            "--json",
            "--by",
            "tool",
            "--filter",
            "not tool:chart",
        ],
        &trace,
    );
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v["tables"][0]["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{v:#}");
    assert_eq!(rows[0]["key"], "divide");

    let all = sightline(&["export", "--format", "mermaid"], &trace);
    let some = sightline(
        &[
            "export",
            "--format",
            "mermaid",
            "--filter",
            "kind:request or kind:response",
        ],
        &trace,
    );
    assert!(all.status.success() && some.status.success(), "{some:?}");
    let (all, some) = (util::text(&all.stdout), util::text(&some.stdout));
    assert!(some.lines().count() < all.lines().count(), "{some}");
    assert!(
        some.contains("tools/call") && !some.contains("Note over"),
        "{some}"
    );
}

#[test]
fn a_bad_filter_exits_2_and_points_at_its_column() {
    let dir = util::tempdir();
    let trace = dir.path().join("weather.jsonl");
    util::run_scenario_to("weather", &trace, &[]);
    for (command, filter, column) in [
        ("summary", "method:tools/call and colour:red", 23),
        ("stats", "latency:>fast", 9),
        ("export", "(kind:error", 1),
    ] {
        let mut args = vec![command, "--filter", filter, "--lang", "en"];
        if command == "export" {
            args.extend(["--format", "mermaid"]);
        }
        let out = sightline(&args, &trace);
        assert_eq!(out.status.code(), Some(2), "{command}: {out:?}");
        let stderr = util::text(&out.stderr);
        assert!(stderr.contains(&format!("column {column}: ")), "{stderr}");
        let caret = stderr.lines().last().expect("caret line");
        assert_eq!(caret.trim_start().len(), 1, "{stderr}");
        assert_eq!(caret.len() - 4, column, "{stderr}");
        assert!(util::text(&out.stdout).is_empty(), "{out:?}");
    }
}
