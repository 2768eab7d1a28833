//! Inputs, output and exit status: paged listings, the human report, usage and I/O errors.

use super::*;

#[test]
fn pages_of_tools_list_are_one_listing_on_either_lifecycle() {
    for protocol in ["2025-11-25", "auto"] {
        let d = probe("paged.py", &["--protocol", protocol]);
        assert_eq!(d.status, Some(0), "{protocol}: {}", d.describe());
        assert_eq!(d.server("paged")["listed"], 2, "{protocol}");
        assert_eq!(d.tool("get_time")["code"], "visible-not-called");
    }
    let d = doctor(&[
        "--protocol",
        "2026-07-28",
        "--",
        util::bin(),
        "demo-server",
        "weather",
    ]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.server("weather")["revision"], "2026-07-28");
}

#[test]
fn human_output_groups_by_server_and_ends_with_a_verdict() {
    let out = util::run(
        Command::new(util::bin())
            .args(["doctor", "scenarios/invisible-tool.toml"])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = util::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("judged against the last LLM request #"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("server oddnames (2025-11-25): listed 4 tools"),
        "{text}"
    );
    let bad = lines
        .iter()
        .find(|l| l.contains("oddnames/weather.lookup"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        bad.starts_with("  ✗ oddnames/weather.lookup  name-rejected  #"),
        "{bad}"
    );
    assert!(
        bad.contains("→ rename it on the server, e.g. `weather_lookup`"),
        "{bad}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  ✓ oddnames/get_time  visible-not-called  #"))
    );
    assert_eq!(
        lines.last().copied(),
        Some("verdict: 3 of 4 tools not visible to the model: name-rejected ×3")
    );
    assert!(
        util::text(&out.stderr).contains("recording to"),
        "the temp trace is named"
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let run = |args: &[&str]| util::run(Command::new(util::bin()).arg("doctor").args(args), LIMIT);
    assert_eq!(run(&[]).status.code(), Some(2), "no input");
    let missing = run(&["/nonexistent/trace.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(util::text(&missing.stderr).contains("/nonexistent/trace.jsonl"));
    assert_eq!(run(&["/nonexistent/scenario.toml"]).status.code(), Some(2));
    assert_eq!(
        run(&["--provider", "gemini", "x.jsonl"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["x.jsonl", "--", "cmd"]).status.code(),
        Some(2),
        "a trace and a command"
    );
}
