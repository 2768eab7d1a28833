//! `sightline run SCENARIO --replay-model TRACE`: a recorded weather run's model responses
//! served again in order while the loop runs against today's server (the Python
//! `changed_server.py`): the same server gives no divergence, a server whose tool answers
//! differently makes the loop diverge at the turn that carries the answer to the model, and a
//! server whose tools changed makes it diverge at the first turn.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use crate::check_diff::{record, weather_scenario};
use crate::util::*;

fn rerun(scenario: &Path, trace: &Path, recorded: &Path) -> Output {
    run(
        Command::new(bin())
            .arg("run")
            .arg(scenario)
            .arg("--trace")
            .arg(trace)
            .arg("--replay-model")
            .arg(recorded)
            .arg("--no-summary"),
        Duration::from_secs(60),
    )
}

/// The verdict: the lines from `replay-model:` on.
fn verdict(out: &Output) -> String {
    let stdout = text(&out.stdout);
    let at = stdout
        .find("replay-model:")
        .unwrap_or_else(|| panic!("no verdict in:\n{stdout}"));
    stdout[at..].to_string()
}

#[test]
fn replay_model_against_the_same_server_does_not_diverge() {
    let dir = tempdir();
    let recorded = dir.path().join("a.jsonl");
    let scenario = weather_scenario(dir.path(), "weather-a");
    record(&scenario, &recorded, &[]);
    let out = rerun(&scenario, &dir.path().join("again.jsonl"), &recorded);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(
        verdict(&out).trim_end(),
        "replay-model: no divergence: 2 turns, every request to the model as recorded"
    );
    // The model's side of the new run is the recording's, byte for byte.
    let bodies = |path: &Path| -> Vec<String> {
        load(path)
            .events
            .iter()
            .filter(|e| e.from == sightline::trace::Lane::Llm)
            .map(|e| e.text().into_owned())
            .collect()
    };
    let recorded_bodies = bodies(&recorded);
    assert_eq!(recorded_bodies.len(), 2);
    assert_eq!(bodies(&dir.path().join("again.jsonl")), recorded_bodies);
}

#[test]
fn replay_model_against_a_changed_server_reports_the_turn_where_the_loop_diverged() {
    let dir = tempdir();
    let recorded = dir.path().join("a.jsonl");
    record(&weather_scenario(dir.path(), "weather-a"), &recorded, &[]);
    let llm_requests = |path: &Path| -> Vec<u64> {
        load(path)
            .events
            .iter()
            .filter(|e| e.to == sightline::trace::Lane::Llm)
            .map(|e| e.seq)
            .collect()
    };
    let turns = llm_requests(&recorded);
    // Same tools, another answer: the first turn is as recorded, the second carries the
    // tool result to the model, so the loop diverges there.
    let c = dir.path().join("c.jsonl");
    let out = rerun(&weather_scenario(dir.path(), "weather-c"), &c, &recorded);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let v = verdict(&out);
    let new_turns = llm_requests(&c);
    for needle in [
        format!(
            "replay-model: the loop diverged at turn 2 of 2 (LLM request recorded #{}, replayed #{}): what the model was sent differs",
            turns[1], new_turns[1]
        ),
        r#"    /messages/2/content/0/content/0/text: "Seoul: 15C, partly cloudy" -> "Seoul: 3C, snow""#.to_string(),
        "server weather answered differently:".to_string(),
        r#"      /result/content/0/text: "Seoul: 15C, partly cloudy" -> "Seoul: 3C, snow""#.to_string(),
    ] {
        assert!(v.contains(&needle), "missing {needle:?} in:\n{v}");
    }
    assert!(v.contains("  tools/call get_weather  recorded #"), "{v}");
    // A changed schema and a lost tool change the very first request (its tools).
    let out = rerun(
        &weather_scenario(dir.path(), "weather-b"),
        &dir.path().join("b.jsonl"),
        &recorded,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = verdict(&out);
    assert!(
        v.starts_with("replay-model: the loop diverged at turn 1 of 2"),
        "{v}"
    );
    assert!(
        v.contains(r#"/tools/0/input_schema/properties/units: (absent) -> {"type":"string","enum":["C","F"]}"#),
        "{v}"
    );
}

#[test]
fn replay_model_needs_a_trace_with_model_responses() {
    let dir = tempdir();
    // A trace of a proxy session: MCP only, no LLM exchange.
    let mcp_only = dir.path().join("mcp.jsonl");
    let out = run_with_input(
        Command::new(bin())
            .args(["proxy", "--trace"])
            .arg(&mcp_only)
            .args(["--", bin(), "demo-server", "weather"]),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let scenario = weather_scenario(dir.path(), "weather-a");
    let out = rerun(&scenario, &dir.path().join("x.jsonl"), &mcp_only);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: the trace has no LLM responses to replay",
            mcp_only.display()
        )),
        "{stderr}"
    );
}

/// A Gemini run (streamed, so by its URL) replays as recorded: the cassette finds the shape and
/// the stream in the URL, and the JSON-array or SSE bodies go back with their content type.
#[test]
fn a_gemini_run_replays_without_divergence() {
    let dir = tempdir();
    let recorded = dir.path().join("g.jsonl");
    let scenario = weather_scenario(dir.path(), "weather-a");
    record(&scenario, &recorded, &["--provider", "gemini", "--stream"]);
    let again = dir.path().join("g-again.jsonl");
    let out = rerun(&scenario, &again, &recorded);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        verdict(&out).starts_with("replay-model: no divergence: 2 turns"),
        "{}",
        verdict(&out)
    );
    let urls: Vec<String> = load(&again)
        .events
        .iter()
        .filter_map(|e| e.http().and_then(|h| h.url.clone()).map(|u| u.to_string()))
        .collect();
    assert!(
        urls.iter()
            .all(|u| u.ends_with(":streamGenerateContent?alt=sse")),
        "{urls:?}"
    );
}
