//! `sightline check` for people and for CI systems: text, JUnit XML and SARIF 2.1.0.
//!
//! - **Text**: one line per test (`✓`/`✗`, rule, server), each finding under its test, then the
//!   counts.
//! - **JUnit**: one `<testsuite>` for the trace, one `<testcase>` per test (classname
//!   `sightline.<server>`), a `<failure>` naming the events for a failed one; what CI systems
//!   (GitHub Actions reporters, GitLab, Jenkins) show as test results.
//! - **SARIF 2.1.0**: one result per finding, its `ruleId` the finding's rule id, located in the
//!   trace file at the event's line (when the trace is one file) and logically at
//!   `server/event#N`; validated against the official schema (`assets/sarif/`) in the tests.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::markup::xml_lines;
use crate::analysis::check::{CheckReport, Test};
use crate::i18n::Words;

/// Where an event's line is in the trace file: `seq` -> line number (1-based).
pub type EventLines = HashMap<u64, usize>;

/// The line of each event in a trace file's text (lines that start with `{"seq":N`).
pub fn event_lines(text: &str) -> EventLines {
    event_lines_read(text.as_bytes()).unwrap_or_default()
}

/// [`event_lines`] of a trace file read a line at a time (the file is never all in memory:
/// a SARIF report of a large trace re-read it whole, most of the report's time). A file that
/// is not UTF-8 is an `InvalidData` error, as reading it into a `String` is.
pub fn event_lines_read(mut read: impl std::io::BufRead) -> std::io::Result<EventLines> {
    let mut out = HashMap::new();
    let mut line = Vec::new();
    let mut n = 0;
    loop {
        line.clear();
        if read.read_until(b'\n', &mut line)? == 0 {
            return Ok(out);
        }
        n += 1;
        if std::str::from_utf8(&line).is_err() {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        let Some(rest) = line.strip_prefix(b"{\"seq\":") else {
            continue;
        };
        let end = rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        if let Some(seq) = std::str::from_utf8(&rest[..end])
            .ok()
            .and_then(|digits| digits.parse().ok())
        {
            out.insert(seq, n);
        }
    }
}

fn at(seq: Option<u64>) -> String {
    seq.map(|s| format!(" #{s}")).unwrap_or_default()
}

/// The text report in the language of `w` (`check_text.*`): the marks, rules and servers are
/// the same in every language, the findings' messages are the ones [`crate::analysis::check`]
/// wrote in the language of its options.
pub fn text_in(report: &CheckReport, w: Words) -> String {
    let mut out = String::new();
    for t in &report.tests {
        let mark = if t.passed() { '✓' } else { '✗' };
        let group = if t.group == "trace" {
            String::new()
        } else {
            format!("  [{}]", t.group)
        };
        let _ = writeln!(out, "{mark} {}{group}", t.name);
        for f in &t.findings {
            let _ = writeln!(out, "    {}{}: {}", f.rule_id, at(f.seq), f.message);
        }
    }
    let (failed, tests) = (report.failed().to_string(), report.tests.len().to_string());
    let findings = report.findings().count().to_string();
    let summary = w.fmt(
        "check_text.summary",
        &[
            ("failed", &failed),
            ("tests", &tests),
            ("findings", &findings),
        ],
    );
    let _ = writeln!(out, "{summary}");
    out
}

fn classname(t: &Test) -> String {
    format!("sightline.{}", t.group)
}

/// JUnit XML: `trace` names the suite (the trace's path). The failures' messages are the
/// findings' (in the language the check ran in), their count in the language of `w`.
pub fn junit(report: &CheckReport, trace: &str, w: Words) -> String {
    let (tests, failures) = (report.tests.len(), report.failed());
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"sightline check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        xml_lines(trace)
    );
    for t in &report.tests {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\"",
            xml_lines(&classname(t)),
            xml_lines(&t.name)
        );
        let Some(first) = t.findings.first() else {
            out.push_str("/>\n");
            continue;
        };
        out.push_str(">\n");
        let body: Vec<String> = t
            .findings
            .iter()
            .map(|f| format!("{}{}: {}", f.rule_id, at(f.seq), f.message))
            .collect();
        let _ = writeln!(
            out,
            "      <failure type=\"{}\" message=\"{}\">{}</failure>",
            xml_lines(&first.rule_id),
            xml_lines(&w.fmt(
                "check_junit.message",
                &[
                    ("message", &first.message),
                    ("more", if t.findings.len() > 1 { "; …" } else { "" }),
                    ("count", &t.findings.len().to_string()),
                ],
            )),
            xml_lines(&body.join("\n"))
        );
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// A sentence for each rule id SARIF lists (the driver's `rules`).
fn rule_description(id: &str) -> String {
    use crate::analysis::check::Class;
    if let Some(class) = Class::ALL.into_iter().find(|c| c.rule_id() == id) {
        return format!("sightline check --fail-on {}", class.as_str());
    }
    match id {
        "expected-tool-not-called" => "A tool named with --expect-tool was never called".into(),
        "forbidden-tool-called" => "A tool named with --forbid-tool was called".into(),
        "latency-exceeded" => "A tools/call took longer than --max-latency".into(),
        "tool-tokens-exceeded" => {
            "The tools of an LLM request cost more than --max-tool-tokens".into()
        }
        "pin-changed" => "A tool definition differs from its pin (rug pull across sessions)".into(),
        other => format!("{other} (see docs/doctor.md)"),
    }
}

/// SARIF 2.1.0: `trace` is the artifact URI; `lines` places events in it.
pub fn sarif(report: &CheckReport, trace: &str, lines: &EventLines) -> String {
    let mut rules: Vec<String> = Vec::new();
    let mut results = Vec::new();
    for t in &report.tests {
        for f in &t.findings {
            let index = match rules.iter().position(|r| *r == f.rule_id) {
                Some(i) => i,
                None => {
                    rules.push(f.rule_id.clone());
                    rules.len() - 1
                }
            };
            let mut physical = json!({"artifactLocation": {"uri": trace}});
            if let Some(line) = f.seq.and_then(|s| lines.get(&s)) {
                physical["region"] = json!({"startLine": line});
            }
            let server = f.server.as_deref().unwrap_or("trace");
            let logical = match f.seq {
                Some(seq) => {
                    json!({"name": format!("event #{seq}"), "fullyQualifiedName": format!("{server}/event#{seq}"), "kind": "object"})
                }
                None => json!({"name": server, "fullyQualifiedName": server, "kind": "module"}),
            };
            let mut result = json!({
                "ruleId": f.rule_id,
                "ruleIndex": index,
                "level": "error",
                "message": {"text": f.message},
                "locations": [{"physicalLocation": physical, "logicalLocations": [logical]}],
                "properties": {"test": t.name, "server": server},
            });
            if let Some(seq) = f.seq {
                result["properties"]["seq"] = json!(seq);
            }
            results.push(result);
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|id| json!({"id": id, "shortDescription": {"text": rule_description(id)}}))
        .collect();
    let log = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sightline",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "artifacts": [{"location": {"uri": trace}}],
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}
