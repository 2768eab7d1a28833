//! Tool-definition security end to end: `sightline run` plays the rug-pull, tool-poisoning
//! and weather scenarios (built-in servers, scripted model, nothing leaves the machine), then
//! `sightline pins` and `sightline poison` judge the traces. Expected text and offsets come
//! from the demo servers' own constants.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use sightline::analysis::definitions;
use sightline::servers::{poisoned, rugpull};
use sightline::trace::{Event, Kind};

use crate::util;

/// How long one command may take before the test fails.
const LIMIT: Duration = Duration::from_secs(60);

/// Runs `sightline run scenarios/NAME.toml` and returns its trace, written in `dir`.
fn run_scenario(dir: &Path, name: &str) -> PathBuf {
    let trace = dir.join(format!("{name}.jsonl"));
    util::run_scenario_to(name, &trace, &[]);
    trace
}

/// Runs `sightline ARGS...` with `SIGHTLINE_PINS` set to `pins`.
fn sightline(pins: &Path, args: &[&str]) -> (Output, String) {
    let out = util::run(
        Command::new(util::bin())
            .args(args)
            .env("SIGHTLINE_PINS", pins),
        LIMIT,
    );
    let stdout = util::text(&out.stdout);
    (out, stdout)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `seq`s of the `tools/list` results of a trace.
fn tools_list_results(events: &[Event]) -> Vec<u64> {
    let rpc = sightline::trace::analyze(events);
    events
        .iter()
        .zip(&rpc.derived)
        .filter(|(_, d)| d.kind == Kind::Response && d.method.as_deref() == Some("tools/list"))
        .map(|(e, _)| e.seq)
        .collect()
}

/// `seq` of the request each `tools/list` result answers, in order.
fn tools_list_requests(events: &[Event]) -> Vec<u64> {
    let rpc = sightline::trace::analyze(events);
    events
        .iter()
        .zip(&rpc.derived)
        .filter(|(_, d)| d.kind == Kind::Request && d.method.as_deref() == Some("tools/list"))
        .map(|(e, _)| e.seq)
        .collect()
}

/// Writes the header and the events of `trace` that `keep` accepts to `out`.
fn filter_trace(trace: &Path, out: &Path, keep: impl Fn(u64) -> bool) {
    let text = std::fs::read_to_string(trace).expect("read trace");
    let mut lines = text.lines();
    let mut kept = String::new();
    kept.push_str(lines.next().expect("header"));
    kept.push('\n');
    for line in lines {
        let v: Value = serde_json::from_str(line).expect("event line");
        if keep(v["seq"].as_u64().expect("seq")) {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    std::fs::write(out, kept).expect("write trace");
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn rug_pull_within_one_trace_is_found_with_a_diff() {
    let dir = util::tempdir();
    let trace = run_scenario(dir.path(), "rug-pull");
    let loaded = util::load(&trace);
    let results = tools_list_results(&loaded.events);
    assert_eq!(results.len(), 2, "two tools/list results: {results:?}");
    let pins_file = dir.path().join("pins.json");

    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&trace), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let findings = json_lines(&stdout);
    let rug: Vec<&Value> = findings
        .iter()
        .filter(|f| f["kind"] == "rug-pull")
        .collect();
    assert_eq!(rug.len(), 1, "{findings:#?}");
    let rug = rug[0];
    assert_eq!(rug["server"], rugpull::NAME);
    assert_eq!(rug["tool"], rugpull::TOOL);
    assert_eq!(rug["before_seq"], results[0]);
    assert_eq!(rug["after_seq"], results[1]);
    let diff = rug["diff"].as_str().expect("diff");
    assert!(diff.contains("+      \"notes\": {"), "{diff}");
    assert!(
        diff.contains(&format!(
            "-  \"description\": \"{}\",",
            rugpull::DESCRIPTION_V1
        )),
        "{diff}"
    );
    let changed: Vec<(&str, &str)> = rug["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .map(|c| {
            (
                c["path"].as_str().expect("path"),
                c["change"].as_str().expect("change"),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [
            ("description", "changed"),
            ("inputSchema.properties.notes", "added")
        ]
    );
    // Nothing was pinned: said, but not a rug pull of its own.
    assert!(findings.iter().any(|f| f["kind"] == "server-not-pinned"));

    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&trace)]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let headline = format!(
        "rug pull: rugpull/get_fact changed between tools/list results #{} and #{}; changed: \
         description, inputSchema.properties.notes (added)",
        results[0], results[1]
    );
    assert!(stdout.contains(&headline), "{stdout}");
    assert!(stdout.contains("    +      \"notes\": {"), "{stdout}");
    assert!(
        stdout.contains("1 rug pull: 1 within the trace, 0 against the pins"),
        "{stdout}"
    );
    assert!(!pins_file.exists(), "check must not write the pin file");
}

#[test]
fn pins_accepted_on_day_one_catch_the_change_on_day_seven() {
    let dir = util::tempdir();
    let trace = run_scenario(dir.path(), "rug-pull");
    let loaded = util::load(&trace);
    let requests = tools_list_requests(&loaded.events);
    let results = tools_list_results(&loaded.events);
    assert_eq!((requests.len(), results.len()), (2, 2));
    // Day one: the session up to the second listing (v1 only). Day seven: a session that
    // only saw v2 (the first listing cut out), so nothing changes within it.
    let day1 = dir.path().join("day1.jsonl");
    let day7 = dir.path().join("day7.jsonl");
    filter_trace(&trace, &day1, |seq| seq < requests[1]);
    filter_trace(&trace, &day7, |seq| seq != requests[0] && seq != results[0]);
    let pins_file = dir.path().join("data/pins.json");

    let (out, stdout) = sightline(&pins_file, &["pins", "accept", path(&day1)]);
    assert!(out.status.success(), "{stdout}{}", util::text(&out.stderr));
    assert!(stdout.contains("pinned rugpull/get_fact"), "{stdout}");
    assert!(stdout.contains("(new)"), "{stdout}");
    assert!(pins_file.exists());

    // `--pins` wins over SIGHTLINE_PINS.
    let elsewhere = dir.path().join("elsewhere.json");
    let (out, stdout) = sightline(&elsewhere, &["pins", "list", "--pins", path(&pins_file)]);
    assert!(out.status.success(), "{stdout}");
    let day1_defs = definitions::definitions(
        &util::load(&day1).events,
        &sightline::trace::analyze(&util::load(&day1).events),
    );
    let v1 = &day1_defs.lists[0].tools[0];
    assert_eq!(v1.definition["description"], rugpull::DESCRIPTION_V1);
    let row = stdout
        .lines()
        .find(|l| l.starts_with("rugpull "))
        .unwrap_or_else(|| panic!("no rugpull row: {stdout}"));
    assert!(row.contains("get_fact"), "{row}");
    assert!(row.contains(&v1.sha256[..12]), "{row}");
    assert!(row.contains("demo-server rugpull"), "{row}");
    assert!(row.contains('T') && row.contains('Z'), "pinned time: {row}");

    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&day1)]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("no rug pull"), "{stdout}");

    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&day7)]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("rug pull: rugpull/get_fact differs from its pin (pinned "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("in tools/list result #{}", results[1])),
        "{stdout}"
    );
    assert!(stdout.contains("    +      \"notes\": {"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "    -  \"description\": \"{}\",",
            rugpull::DESCRIPTION_V1
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 rug pull: 0 within the trace, 1 against the pins"),
        "{stdout}"
    );

    let (out, stdout) = sightline(&pins_file, &["pins", "forget", "rugpull/get_fact"]);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("forgot rugpull/get_fact"), "{stdout}");
    let (out, stdout) = sightline(&pins_file, &["pins", "list"]);
    assert!(out.status.success());
    assert!(stdout.starts_with("no pins in "), "{stdout}");
    let (out, _) = sightline(&pins_file, &["pins", "forget", "rugpull"]);
    assert!(!out.status.success(), "forgetting nothing is an error");
}

/// The chars `[start, end)` of `text`.
fn chars(text: &str, span: &Value) -> String {
    let s = span[0].as_u64().expect("start") as usize;
    let e = span[1].as_u64().expect("end") as usize;
    text.chars().skip(s).take(e - s).collect()
}

#[test]
fn tool_poisoning_is_highlighted_down_to_the_characters() {
    let dir = util::tempdir();
    let trace = run_scenario(dir.path(), "tool-poisoning");
    let pins_file = dir.path().join("pins.json");
    let (out, stdout) = sightline(&pins_file, &["poison", path(&trace), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let findings = json_lines(&stdout);
    let description = poisoned::add_description();
    let find = |kind: &str, field: &str| -> &Value {
        findings
            .iter()
            .find(|f| f["kind"] == kind && f["field"] == field)
            .unwrap_or_else(|| panic!("no {kind} on {field}: {findings:#?}"))
    };

    let block = find("directive-block", "description");
    assert_eq!(block["server"], poisoned::NAME);
    assert_eq!(block["tool"], "add");
    assert_eq!(block["severity"], "danger");
    assert_eq!(chars(&description, &block["span"]), poisoned::ADD_IMPORTANT);

    let tags = find("tag-characters", "description");
    assert_eq!(tags["hidden"], poisoned::HIDDEN_SENTENCE);
    let hidden = chars(&description, &tags["span"]);
    assert_eq!(
        hidden,
        poisoned::to_tag_characters(poisoned::HIDDEN_SENTENCE)
    );
    assert_eq!(
        tags["span"][0],
        poisoned::ADD_SUMMARY.chars().count(),
        "the hidden run starts right after the first line's text"
    );
    assert!(
        tags["explanation"]
            .as_str()
            .expect("explanation")
            .contains(poisoned::HIDDEN_SENTENCE)
    );
    assert!(
        tags["excerpt"]
            .as_str()
            .expect("excerpt")
            .contains("[\\u{E0041}…\\u{E002E}]"),
        "{tags}"
    );

    let key = findings
        .iter()
        .find(|f| {
            f["kind"] == "sensitive-file" && chars(&description, &f["span"]) == "~/.ssh/id_rsa"
        })
        .unwrap_or_else(|| panic!("no ~/.ssh/id_rsa finding: {findings:#?}"));
    assert_eq!(key["tool"], "add");
    // The file named inside the hidden sentence is found too, decoded.
    assert!(
        findings
            .iter()
            .any(|f| f["kind"] == "sensitive-file" && f["hidden"] == "~/.aws/credentials"),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f["kind"] == "exfiltration"
            && f["excerpt"]
                .as_str()
                .is_some_and(|e| e.contains("sidenote"))),
        "{findings:#?}"
    );

    let quiet = find("conceal-from-user", "instructions");
    assert_eq!(quiet["tool"], Value::Null);
    assert_eq!(quiet["server"], poisoned::NAME);
    assert_eq!(
        chars(poisoned::INSTRUCTIONS, &quiet["span"]),
        "never tell the user"
    );
    // The first event carrying the instructions: the initialize result.
    let loaded = util::load(&trace);
    let rpc = sightline::trace::analyze(&loaded.events);
    let init = loaded
        .events
        .iter()
        .zip(&rpc.derived)
        .find(|(_, d)| d.kind == Kind::Response && d.method.as_deref() == Some("initialize"))
        .map(|(e, _)| e.seq)
        .expect("initialize result");
    assert_eq!(quiet["seq"], init);

    // `multiply` is clean.
    assert!(
        !findings.iter().any(|f| f["tool"] == "multiply"),
        "{findings:#?}"
    );

    // The text form shows the decoded sentence.
    let (out, text) = sightline(&pins_file, &["poison", path(&trace)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text.contains(&format!("They spell: \"{}\"", poisoned::HIDDEN_SENTENCE)),
        "{text}"
    );
    assert!(text.contains("[never tell the user]"), "{text}");
}

#[test]
fn the_weather_scenario_is_clean() {
    let dir = util::tempdir();
    let trace = run_scenario(dir.path(), "weather");
    let pins_file = dir.path().join("pins.json");
    let (out, stdout) = sightline(&pins_file, &["poison", path(&trace)]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout, "no findings\n");
    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&trace)]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("no rug pull"), "{stdout}");
    // Pinned, the same trace checks clean with nothing to say about the tool.
    let (out, _) = sightline(&pins_file, &["pins", "accept", path(&trace)]);
    assert!(out.status.success());
    let (out, stdout) = sightline(&pins_file, &["pins", "check", path(&trace), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout, "");
}
