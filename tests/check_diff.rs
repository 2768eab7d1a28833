//! `sightline diff` and `sightline check` on real recordings: the host runs the weather loop
//! against a Python server (`tests/peers/replay/changed_server.py`) in two variants, and the
//! commands are judged by their exit status and output. JUnit is read by Python's
//! `xml.etree` (a JUnit reader that is not ours); SARIF is validated against the official
//! SARIF 2.1.0 schema shipped in `assets/sarif/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use sightline::trace::Kind;

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

/// The weather loop's scenario with its server replaced by `changed_server.py VARIANT`.
pub fn weather_scenario(dir: &Path, variant: &str) -> PathBuf {
    let path = dir.join(format!("weather-{variant}.toml"));
    let script = peer("replay/changed_server.py");
    let toml = format!(
        r#"title = "weather against changed_server {variant}"
prompt = "What's the weather in Seoul right now?"

[[servers]]
name = "weather"
command = "python3"
args = [{script:?}, {variant:?}]

[[script]]
say = "Let me check the current conditions in Seoul."
call = [{{ tool = "get_weather", arguments = {{ location = "Seoul" }} }}]

[[script]]
reply = "Right now it is {{result}}."
"#
    );
    std::fs::write(&path, toml).expect("write scenario");
    path
}

/// Runs `scenario` headless into `trace`; the run must succeed.
pub fn record(scenario: &Path, trace: &Path, extra: &[&str]) {
    let out = run(
        Command::new(bin())
            .arg("run")
            .arg(scenario)
            .arg("--trace")
            .arg(trace)
            .args(extra),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "run {} failed: {}",
        scenario.display(),
        text(&out.stderr)
    );
}

fn sightline(args: &[&str]) -> Output {
    run(Command::new(bin()).args(args), LIMIT)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Two recordings: variant a (as recorded) and b (schema changed, a tool lost, other weather).
fn recordings(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    record(&weather_scenario(dir, "weather-a"), &a, &[]);
    record(&weather_scenario(dir, "weather-b"), &b, &[]);
    (a, b)
}

#[test]
fn diff_of_a_trace_with_itself_is_empty_and_exits_0() {
    let dir = tempdir();
    let (a, _) = recordings(dir.path());
    let out = sightline(&["diff", s(&a), s(&a), "--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("no changes (1 call matched and compared)"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn diff_exit_code_fails_on_a_changed_schema_a_lost_tool_and_a_changed_result() {
    let dir = tempdir();
    let (a, b) = recordings(dir.path());
    let out = sightline(&["diff", s(&a), s(&b), "--exit-code"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let a_events = load(&a).events;
    let b_events = load(&b).events;
    let list_seq = |events: &[sightline::trace::Event]| {
        let analysis = sightline::trace::analyze(events);
        events
            .iter()
            .zip(&analysis.derived)
            .find(|(_, d)| d.kind == Kind::Response && d.method.as_deref() == Some("tools/list"))
            .map(|(e, _)| e.seq)
            .expect("a tools/list result")
    };
    let (la, lb) = (list_seq(&a_events), list_seq(&b_events));
    for needle in [
        format!("~ tool get_weather  changed  A #{la} -> B #{lb}"),
        r#"/inputSchema/properties/units: (absent) -> {"type":"string","enum":["C","F"]}"#
            .to_string(),
        format!("- tool get_forecast  removed  A #{la}: not in B"),
        r#"/content/0/text: "Seoul: 15C, partly cloudy" -> "Seoul: 3C, snow""#.to_string(),
        "- model tool get_forecast  removed".to_string(),
    ] {
        assert!(stdout.contains(&needle), "missing {needle:?} in:\n{stdout}");
    }
    // Without --exit-code, differences are output, not failure (like `git diff`).
    let out = sightline(&["diff", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(0));
    // --json: one object, each change says whether it fails.
    let out = sightline(&["diff", s(&a), s(&b), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["fails"], true);
    let removed = v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["subject"] == "tool" && c["name"] == "get_forecast")
        .expect("the removed tool");
    assert_eq!(removed["kind"], "removed");
    assert_eq!(removed["fails"], true);
    // The other way round, get_forecast is an addition: it alone would not fail.
    let out = sightline(&["diff", s(&b), s(&a), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let added = v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["subject"] == "tool" && c["name"] == "get_forecast")
        .expect("the added tool");
    assert_eq!(
        (added["kind"].as_str(), added["fails"].as_bool()),
        (Some("added"), Some(false))
    );
    // --ignore leaves a pointer out.
    let out = sightline(&["diff", s(&a), s(&b), "--ignore", "/content/*/text"]);
    assert!(
        !text(&out.stdout).contains("/content/0/text"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn diff_refuses_traces_of_different_revisions_and_unreadable_ones() {
    let dir = tempdir();
    let (old, new) = (dir.path().join("old.jsonl"), dir.path().join("new.jsonl"));
    let weather = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/weather.toml");
    record(&weather, &old, &[]);
    record(&weather, &new, &["--protocol", "2026-07-28"]);
    let out = sightline(&["diff", s(&old), s(&new)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("server `weather` speaks 2025-11-25 in A (event #")
            && stderr.contains("but 2026-07-28 in B"),
        "{stderr}"
    );
    let missing = dir.path().join("missing.jsonl");
    let out = sightline(&["diff", s(&old), s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("missing.jsonl"),
        "{}",
        text(&out.stderr)
    );
}

/// The testcases of a JUnit file as Python's xml.etree reads them: (classname, name, failure
/// message or None).
fn junit_cases(path: &Path) -> Vec<(String, String, Option<String>)> {
    let script = r#"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = []
for suite in root.iter("testsuite"):
    assert int(suite.get("tests")) == len(suite.findall("testcase")), "tests count"
    for case in suite.findall("testcase"):
        failure = case.find("failure")
        cases.append([case.get("classname"), case.get("name"),
                      None if failure is None else failure.get("message") + "\n" + (failure.text or "")])
print(json.dumps(cases))
"#;
    let out = run(Command::new("python3").args(["-c", script, s(path)]), LIMIT);
    assert!(out.status.success(), "xml.etree: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cases")
}

#[test]
fn check_junit_names_the_event_of_a_forbidden_call_and_passes_the_rest() {
    let dir = tempdir();
    let (a, _) = recordings(dir.path());
    let call_seq = {
        let t = load(&a);
        let analysis = sightline::trace::analyze(&t.events);
        t.events
            .iter()
            .zip(&analysis.derived)
            .find(|(_, d)| d.kind == Kind::Request && d.method.as_deref() == Some("tools/call"))
            .map(|(e, _)| e.seq)
            .expect("a tools/call")
    };
    let xml = dir.path().join("check.xml");
    let out = sightline(&[
        "check",
        s(&a),
        "--forbid-tool",
        "get_weather",
        "--expect-tool",
        "get_weather",
        "--expect-visible",
        "get_forecast",
        "--format",
        "junit",
        "--out",
        s(&xml),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let cases = junit_cases(&xml);
    let case = |name: &str| {
        cases
            .iter()
            .find(|c| c.1 == name)
            .unwrap_or_else(|| panic!("no testcase {name} in {cases:?}"))
    };
    let forbidden = case("forbid-tool get_weather")
        .2
        .as_deref()
        .expect("a failure");
    assert!(
        forbidden.contains(&format!("called at event #{call_seq}")),
        "{forbidden}"
    );
    assert_eq!(case("expect-tool get_weather").2, None);
    assert_eq!(case("expect-visible get_forecast").2, None);
    // One testcase per --fail-on class and server.
    for class in ["error", "invalid", "unanswered", "schema", "poison"] {
        let c = case(&format!("fail-on {class}"));
        assert_eq!((c.0.as_str(), &c.2), ("sightline.weather", &None));
    }
}

#[test]
fn check_sarif_validates_against_the_official_schema() {
    let dir = tempdir();
    let (a, _) = recordings(dir.path());
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sarif/sarif-schema-2.1.0.json"),
        )
        .expect("schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let out = sightline(&[
        "check",
        s(&a),
        "--forbid-tool",
        "get_weather",
        "--max-latency",
        "0ms",
        "--expect-visible",
        "no_such_tool",
        "--format",
        "sarif",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(ids.contains(&"forbidden-tool-called"), "{ids:?}");
    assert!(
        ids.contains(&"expected-not-listed"),
        "a doctor code: {ids:?}"
    );
    // The forbidden call is located at its line in the trace file.
    let forbidden = results
        .iter()
        .find(|r| r["ruleId"] == "forbidden-tool-called")
        .expect("it");
    let line = forbidden["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .expect("a line") as usize;
    let seq = forbidden["properties"]["seq"].as_u64().expect("seq");
    let file = std::fs::read_to_string(&a).expect("trace");
    let at = file.lines().nth(line - 1).expect("that line");
    assert!(at.starts_with(&format!("{{\"seq\":{seq},")), "{at}");
    // A schema that rejects: a result without its message must fail validation.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .expect("result")
        .remove("message");
    assert!(
        !validator.is_valid(&broken),
        "the validator must be able to fail"
    );
}

#[test]
fn check_reports_it_cannot_write_its_report_in_one_line() {
    let dir = tempdir();
    let (a, _) = recordings(dir.path());
    let out = sightline(&[
        "check",
        s(&a),
        "--format",
        "sarif",
        "--out",
        "/nonexistent/dir/c.sarif",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot write the sarif report to /nonexistent/dir/c.sarif"),
        "{stderr}"
    );
    let out = sightline(&["check", s(&a), "--format", "junit", "--out", "/proc/c.xml"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot write the junit report to /proc/c.xml"),
        "{stderr}"
    );
    let out = sightline(&["check", s(&a), "--fail-on", "error,bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown class `bogus`"),
        "{}",
        text(&out.stderr)
    );
}

/// `check` of a trace in which nothing was asked (only its header, only answers, only lines
/// that are not events) fails with exit 2 naming the file: a recorder that broke must not
/// keep CI green (issue 37, item 9). The lines come from a real recording.
#[test]
fn check_fails_a_trace_with_nothing_asked_in_it() {
    let dir = tempdir();
    let recorded = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &recorded, &[]);
    let text_of = std::fs::read_to_string(&recorded).unwrap();
    let mut lines = text_of.lines();
    let header = lines.next().unwrap();
    let answers: Vec<&str> = lines
        .filter(|l| l.contains("\\\"result\\\"") && l.contains("\"from\":\"server:"))
        .collect();
    assert!(!answers.is_empty(), "the recording has answers");
    for (what, body) in [
        ("only a header", format!("{header}\n")),
        (
            "only answers",
            format!("{header}\n{}\n", answers.join("\n")),
        ),
        (
            "only broken lines",
            format!("{header}\nnot json\n{{\"seq\":\n"),
        ),
    ] {
        let trace = dir.path().join(format!("{}.jsonl", what.replace(' ', "-")));
        std::fs::write(&trace, body).unwrap();
        let o = sightline(&["check", s(&trace)]);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains(s(&trace)),
            "{what}: names the file: {stderr}"
        );
        assert!(stderr.contains("no request"), "{what}: {stderr}");
    }
    let o = sightline(&["check", s(&recorded)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}
