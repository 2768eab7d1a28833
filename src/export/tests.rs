//! The exports draw what the diagram says: the same labels in Mermaid, SVG and the summary.

use crate::analysis::diagram::{build, fixtures::streamable_http};
use crate::analysis::report;

#[test]
fn exports_show_the_http_labels() {
    let t = streamable_http();
    let r = report(&t.0);
    let d = build(&t.0, &r);
    let mermaid = crate::export::mermaid::render(&d, &t.0, &r);
    let svg = crate::export::svg::render(&d, &t.0, &r);
    for label in [
        "DELETE /mcp (end session)",
        "GET /mcp (open SSE stream)",
        "202 Accepted",
        "SSE priming event id p1",
        "404 Not Found",
    ] {
        assert!(mermaid.contains(label), "mermaid lacks {label}:\n{mermaid}");
        assert!(svg.contains(label), "svg lacks {label}");
    }
    // An error status is drawn as a failed arrow.
    assert!(
        mermaid.contains("--x") && mermaid.contains("404 Not Found · unknown or expired session"),
        "{mermaid}"
    );
    assert!(svg.contains(r#"class="row error error""#), "{svg}");

    // The text summary names them the same way.
    let t = streamable_http();
    let summary = crate::export::summary::text(&t.0, &report(&t.0));
    for line in [
        "C->S  DELETE /mcp (end session) (session 6fd170d9…)",
        "S->C  202 Accepted (to #3 notifications/initialized)",
        "S->C  404 Not Found (\"<pre>Cannot GET /nothere</pre>\", to #18 GET /nothere)  !! HTTP error",
    ] {
        assert!(summary.contains(line), "summary lacks {line}:\n{summary}");
    }
}

/// A trace file's event lines, read a block at a time, are the lines of its text: CRLF
/// endings, a last line without a newline, lines that are no event, lines longer than a block
/// and lines cut by a block's end; the wanted events are those of the whole scan; a file that is
/// not UTF-8 is an error, as reading it into a `String` is.
#[test]
fn event_lines_read_a_block_at_a_time_are_those_of_the_text() {
    use crate::export::check::{EventLines, event_lines, event_lines_of};
    let text = "{\"sightline_trace\":1}\r\n{\"seq\":0,\"x\":1}\r\n{\"seq\":12}\n\nnot an event {\"seq\":3}\n{\"seq\":7,\"raw\":\"é\"}";
    let lines = event_lines(text);
    let expected: EventLines = [(0, 2), (12, 3), (7, 6)].into();
    assert_eq!(lines, expected);
    // A reader that hands out a few bytes at a time cuts lines (and `é`) anywhere.
    struct Trickle<'a>(&'a [u8], usize);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    for step in [1, 3, 7, 64] {
        let read = Trickle(text.as_bytes(), step);
        assert_eq!(
            event_lines_of(read, None).expect("utf-8"),
            expected,
            "{step}"
        );
    }

    // A large file: lines longer than the 1 MiB block, and many short ones across blocks.
    let mut big = String::from("{\"sightline_trace\":1}\n");
    let mut all = EventLines::new();
    for seq in 0..40_000u64 {
        let pad = if seq % 10_000 == 3 { 1_500_000 } else { 40 };
        big.push_str(&format!(
            "{{\"seq\":{seq},\"p\":\"{}\"}}\n",
            "x".repeat(pad)
        ));
        all.insert(seq, seq as usize + 2);
    }
    assert_eq!(event_lines_of(big.as_bytes(), None).expect("utf-8"), all);
    let wanted: std::collections::HashSet<u64> = [0, 3, 10_003, 39_999, 77].into();
    let some: EventLines = all
        .iter()
        .filter(|(s, _)| wanted.contains(s))
        .map(|(s, l)| (*s, *l))
        .collect();
    assert_eq!(
        event_lines_of(big.as_bytes(), Some(&wanted)).expect("utf-8"),
        some
    );

    let mut bytes = text.as_bytes().to_vec();
    bytes.extend_from_slice(b"\n{\"seq\":8}\xff\n");
    assert!(event_lines_of(&bytes[..], None).is_err());
}

/// The SARIF log written straight from its structs is the tree of `Value`s it replaced,
/// pretty-printed: the same keys in the same order, the same numbers and escapes.
#[test]
fn sarif_written_straight_is_the_value_tree_pretty_printed() {
    use crate::analysis::check::{CheckReport, Finding, Test};
    use serde_json::json;
    let finding = |rule: &str, server: Option<&str>, seq: Option<u64>, message: &str| Finding {
        rule_id: rule.into(),
        server: server.map(Into::into),
        seq,
        message: message.into(),
    };
    let report = CheckReport {
        tests: vec![
            Test {
                name: "forbid-tool \"rm\"".into(),
                group: "trace".into(),
                findings: vec![
                    finding(
                        "forbidden-tool-called",
                        Some("files"),
                        Some(12),
                        "called <rm> é\n",
                    ),
                    finding("forbidden-tool-called", None, Some(40), "again"),
                ],
            },
            Test {
                name: "unanswered".into(),
                group: "weather".into(),
                findings: vec![finding("latency-exceeded", Some("weather"), None, "x")],
            },
            Test {
                name: "passes".into(),
                group: "trace".into(),
                findings: vec![],
            },
        ],
    };
    let lines: crate::export::check::EventLines = [(12, 14)].into();
    let trace = "traces/a \"b\".jsonl";
    let written = crate::export::check::sarif(&report, trace, &lines);

    let result = |rule: &str,
                  index: usize,
                  message: &str,
                  test: &str,
                  server: &str,
                  seq: Option<u64>| {
        let mut physical = json!({"artifactLocation": {"uri": trace}});
        if let Some(line) = seq.and_then(|s| lines.get(&s)) {
            physical["region"] = json!({"startLine": line});
        }
        let logical = match seq {
            Some(seq) => {
                json!({"name": format!("event #{seq}"), "fullyQualifiedName": format!("{server}/event#{seq}"), "kind": "object"})
            }
            None => json!({"name": server, "fullyQualifiedName": server, "kind": "module"}),
        };
        let mut r = json!({
            "ruleId": rule, "ruleIndex": index, "level": "error", "message": {"text": message},
            "locations": [{"physicalLocation": physical, "logicalLocations": [logical]}],
            "properties": {"test": test, "server": server},
        });
        if let Some(seq) = seq {
            r["properties"]["seq"] = json!(seq);
        }
        r
    };
    let tree = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sightline",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": [
                    {"id": "forbidden-tool-called", "shortDescription": {"text": "A tool named with --forbid-tool was called"}},
                    {"id": "latency-exceeded", "shortDescription": {"text": "A tools/call took longer than --max-latency"}},
                ],
            }},
            "artifacts": [{"location": {"uri": trace}}],
            "results": [
                result("forbidden-tool-called", 0, "called <rm> é\n", "forbid-tool \"rm\"", "files", Some(12)),
                result("forbidden-tool-called", 0, "again", "forbid-tool \"rm\"", "trace", Some(40)),
                result("latency-exceeded", 1, "x", "unanswered", "weather", None),
            ],
        }],
    });
    let expected = serde_json::to_string_pretty(&tree).expect("pretty") + "\n";
    assert_eq!(written, expected);
}

/// How Sightline stopped a server is said in the reader's language, in the diagram's note
/// and in `summary`; the signals keep their names.
#[test]
fn a_stop_note_is_said_in_the_readers_language() {
    use crate::analysis::diagram::fixtures::{Trace, exit, spawn};
    use crate::i18n::Language;
    let mut t = Trace::default();
    t.process(0, "host", "server:weather", spawn());
    let mut stopped = exit(None, Some(15));
    stopped.detail = Some("still running 3s after stdin closed: sent SIGTERM".into());
    t.process(1, "server:weather", "host", stopped);
    let mut killed = exit(None, Some(9));
    killed.detail = Some("still running 3s after SIGTERM: sent SIGKILL".into());
    t.process(2, "server:weather", "host", killed);
    let r = report(&t.0);
    for (lang, term, kill) in [
        (
            Language::En,
            "still running 3s after stdin closed: sent SIGTERM",
            "still running 3s after SIGTERM: sent SIGKILL",
        ),
        (
            Language::Pt,
            "ainda em execução 3s depois de fechado o stdin: enviado SIGTERM",
            "ainda em execução 3s depois de SIGTERM: enviado SIGKILL",
        ),
        (
            Language::Es,
            "aún en ejecución 3s después de cerrar stdin: enviado SIGTERM",
            "aún en ejecución 3s después de SIGTERM: enviado SIGKILL",
        ),
    ] {
        for (i, said) in [(1, term), (2, kill)] {
            let (_, detail, _) = crate::analysis::diagram::row_text(&t.0, &r, i, lang);
            let detail = detail.unwrap_or_default();
            assert_eq!(detail, format!("pid 42, {said}"), "{lang:?}");
        }
        let summary = crate::export::summary::text_in(&t.0, &r, lang);
        for said in [term, kill] {
            assert!(
                summary.contains(&format!(": {said}")),
                "{lang:?}:\n{summary}"
            );
        }
    }
}
