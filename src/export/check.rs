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

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;

use super::markup::xml_lines;
use crate::analysis::check::{CheckReport, Test};
use crate::i18n::Words;

/// Where an event's line is in the trace file: `seq` -> line number (1-based).
pub type EventLines = HashMap<u64, usize>;

/// The line of each event in a trace file's text (lines that start with `{"seq":N`).
pub fn event_lines(text: &str) -> EventLines {
    event_lines_of(text.as_bytes(), None).unwrap_or_default()
}

/// [`event_lines`] of a trace file, read a block at a time (the file is never all in memory),
/// keeping only the events in `wanted` (all of them for `None`): a SARIF report places its
/// findings' events, a few thousand of a large trace's lines. A file that is not UTF-8 is an
/// `InvalidData` error, as reading it into a `String` is.
pub fn event_lines_of(
    mut read: impl std::io::Read,
    wanted: Option<&HashSet<u64>>,
) -> std::io::Result<EventLines> {
    const BLOCK: usize = 1 << 20;
    let mut out = HashMap::new();
    // The bytes read and not yet scanned: whole lines, then the start of the next one.
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut line = 0usize;
    let mut done = false;
    while !done {
        let kept = buf.len();
        buf.resize(kept + BLOCK, 0);
        let n = loop {
            match read.read(&mut buf[kept..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        buf.truncate(kept + n);
        done = n == 0;
        // Whole lines only, unless the file has ended: a line never straddles two scans.
        let upto = if done {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf[kept..]) {
                Some(i) => kept + i + 1,
                None => continue,
            }
        };
        let lines = &buf[..upto];
        if std::str::from_utf8(lines).is_err() {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        let mut from = 0;
        while from < lines.len() {
            let end = memchr::memchr(b'\n', &lines[from..]).map_or(lines.len(), |i| from + i + 1);
            line += 1;
            if let Some(seq) = seq_of(&lines[from..end])
                && wanted.is_none_or(|w| w.contains(&seq))
            {
                out.insert(seq, line);
            }
            from = end;
        }
        buf.drain(..upto);
    }
    Ok(out)
}

/// The `N` of a line that starts with `{"seq":N`.
fn seq_of(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let end = rest
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
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

/// The findings' events, those a SARIF report places in the trace file
/// ([`event_lines_of`]).
pub fn finding_seqs(report: &CheckReport) -> HashSet<u64> {
    report.findings().filter_map(|f| f.seq).collect()
}

/// SARIF 2.1.0: `trace` is the artifact URI; `lines` places events in it. Written straight
/// from these structs (no tree of `Value`s: a large trace has thousands of results), in the
/// order of their fields.
pub fn sarif(report: &CheckReport, trace: &str, lines: &EventLines) -> String {
    let mut rules: Vec<&str> = Vec::new();
    let mut results = Vec::new();
    for t in &report.tests {
        for f in &t.findings {
            let index = match rules.iter().position(|r| *r == f.rule_id) {
                Some(i) => i,
                None => {
                    rules.push(&f.rule_id);
                    rules.len() - 1
                }
            };
            let server = f.server.as_deref().unwrap_or("trace");
            let logical = match f.seq {
                Some(seq) => Logical {
                    name: format!("event #{seq}"),
                    fully_qualified_name: format!("{server}/event#{seq}"),
                    kind: "object",
                },
                None => Logical {
                    name: server.to_owned(),
                    fully_qualified_name: server.to_owned(),
                    kind: "module",
                },
            };
            results.push(SarifResult {
                rule_id: &f.rule_id,
                rule_index: index,
                level: "error",
                message: Text { text: &f.message },
                locations: [Location {
                    physical_location: Physical {
                        artifact_location: Uri { uri: trace },
                        region: f
                            .seq
                            .and_then(|s| lines.get(&s))
                            .map(|&start_line| Region { start_line }),
                    },
                    logical_locations: [logical],
                }],
                properties: Properties {
                    test: &t.name,
                    server,
                    seq: f.seq,
                },
            });
        }
    }
    let descriptions: Vec<String> = rules.iter().map(|id| rule_description(id)).collect();
    let log = Log {
        schema: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "sightline",
                    version: env!("CARGO_PKG_VERSION"),
                    rules: rules
                        .iter()
                        .zip(&descriptions)
                        .map(|(id, text)| Rule {
                            id,
                            short_description: Text { text },
                        })
                        .collect(),
                },
            },
            artifacts: [Artifact {
                location: Uri { uri: trace },
            }],
            results,
        }],
    };
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

// The SARIF log's parts, in the order their fields are written.

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'a str,
    version: &'a str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool<'a>,
    artifacts: [Artifact<'a>; 1],
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
struct Driver<'a> {
    name: &'a str,
    version: &'a str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    short_description: Text<'a>,
}

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Uri<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
struct Artifact<'a> {
    location: Uri<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'a str,
    message: Text<'a>,
    locations: [Location<'a>; 1],
    properties: Properties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: Physical<'a>,
    logical_locations: [Logical; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical<'a> {
    artifact_location: Uri<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Logical {
    name: String,
    fully_qualified_name: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct Properties<'a> {
    test: &'a str,
    server: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
}
