//! `sightline stats` on real runs: a shipped scenario's tool error counted against its tool,
//! method and server, the LLM requests timed, `--by` choosing the tables.

use std::process::Command;
use std::time::Duration;

use crate::util;

fn stats(trace: &std::path::Path, extra: &[&str]) -> std::process::Output {
    util::run(
        Command::new(util::bin())
            .arg("stats")
            .arg(trace)
            .args(extra),
        Duration::from_secs(60),
    )
}

#[test]
fn a_scenarios_tool_error_is_counted_against_its_tool_and_its_llm_requests_are_timed() {
    let dir = util::tempdir();
    let trace = dir.path().join("media.jsonl");
    util::run_scenario_to("tool-error-and-image", &trace, &[]);
    let out = stats(&trace, &["--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let table = |by: &str| {
        v["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .find(|t| t["by"] == by)
            .map(|t| t["rows"].as_array().expect("rows").clone())
            .expect("table")
    };
    let row = |by: &str, key: &str| {
        table(by)
            .into_iter()
            .find(|r| r["key"] == key)
            .unwrap_or_else(|| panic!("{by} {key}: {v:#}"))
    };
    assert_eq!(row("tool", "divide")["errors"], 1, "{v:#}");
    assert_eq!(row("tool", "chart")["errors"], 0, "{v:#}");
    assert_eq!(row("method", "tools/call")["requests"], 2, "{v:#}");
    assert_eq!(row("server", "media")["errors"], 1, "{v:#}");
    let latency = &row("method", "tools/call")["latency"];
    assert!(
        latency["p50_us"].as_i64() <= latency["max_us"].as_i64(),
        "{v:#}"
    );
    let llm = v["llm"].as_array().expect("llm");
    assert_eq!(llm.len(), 2, "{v:#}");
    for r in llm {
        assert!(
            r["last_byte_us"].as_i64().is_some_and(|us| us >= 0),
            "{r:#}"
        );
        assert!(r["tool_tokens"].as_u64().is_some_and(|n| n > 0), "{r:#}");
    }
    assert!(
        v["busiest"]["events"].as_u64().is_some_and(|n| n > 0),
        "{v:#}"
    );

    let out = stats(&trace, &["--by", "tool", "--lang", "en"]);
    assert!(out.status.success(), "{out:?}");
    let text = util::text(&out.stdout);
    assert!(
        text.contains("by tool") && !text.contains("by method"),
        "{text}"
    );
    assert!(text.contains("divide") && text.contains("100.0%"), "{text}");

    let out = stats(&trace, &["--by", "colour"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
