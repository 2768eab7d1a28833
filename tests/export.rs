//! `sightline export`: the sequence diagram of real runs, as Mermaid and as SVG, and the
//! diagram model under both.

use std::collections::BTreeSet;
use std::path::PathBuf;

use sightline::analysis::diagram::{self, Diagram, LaneKind, Status, Style};
use sightline::analysis::report;
use sightline::trace::{Event, Lane};

use crate::util::*;

/// The lesson every picture states in the same words (the SVG on four lines).
const LESSON: &str =
    "the model never talks to the server: the host sits in the middle (0 direct messages)";

/// Runs a scenario headless and returns the directory (kept alive) and the trace path.
fn record(name: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let trace = dir.path().join(format!("{name}.jsonl"));
    run_scenario_to(name, &trace, extra);
    (dir, trace)
}

fn diagram_of(events: &[Event]) -> Diagram {
    diagram::build(events, &report(events))
}

fn is_alias(s: &str) -> bool {
    matches!(s, "U" | "H" | "L")
        || (s.len() > 1
            && (s.starts_with('S') || s.starts_with('X'))
            && s[1..].chars().all(|c| c.is_ascii_digit()))
}

/// The text after `: ` may hold `;` and `#` only inside entity codes such as `#59;`.
fn safe_mermaid_text(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find(['#', ';']) {
        let tail = &rest[at..];
        if !tail.starts_with('#') {
            return false;
        }
        let Some(end) = tail.find(';') else {
            return false;
        };
        if end < 2 || !tail[1..end].chars().all(|c| c.is_ascii_alphanumeric()) {
            return false;
        }
        rest = &tail[end + 1..];
    }
    !text.trim().is_empty() && !text.contains('%') && !text.contains('<')
}

/// Classifies a Mermaid body line: `Some(true)` for a message, `Some(false)` for a note.
fn event_line(line: &str) -> Option<bool> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("Note over ") {
        let (who, text) = rest.split_once(": ").expect("note text");
        assert!(who.split(',').all(is_alias), "{line}");
        assert!(safe_mermaid_text(text), "unsafe text: {line}");
        return Some(false);
    }
    for arrow in ["-->>", "->>", "--x", "-x", "-)"] {
        if let Some((from, rest)) = line.split_once(arrow)
            && is_alias(from)
        {
            let (to, text) = rest.split_once(": ").expect("message text");
            assert!(is_alias(to), "{line}");
            assert!(safe_mermaid_text(text), "unsafe text: {line}");
            return Some(true);
        }
    }
    None
}

#[test]
fn mermaid_names_every_participant_and_draws_each_event_once() {
    let (dir, trace) = record("weather", &[]);
    let events = load(&trace).events;
    let out = export(&trace, "mermaid", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mermaid = text(&out.stdout);

    let lines: Vec<&str> = mermaid.lines().collect();
    assert_eq!(lines[0], "sequenceDiagram");
    assert!(!mermaid.contains("autonumber"));
    for participant in [
        "participant U as User",
        "participant H as Host",
        "participant L as LLM API",
        "participant S1 as weather",
    ] {
        assert!(
            lines.iter().any(|l| l.trim() == participant),
            "{participant}\n{mermaid}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.trim() == "box Host (LLM loop + MCP client)"),
        "{mermaid}"
    );
    assert_eq!(lines.iter().filter(|l| l.trim() == "end").count(), 1);

    let lesson = format!("Note over L,S1: {LESSON}");
    assert_eq!(
        lines.last().map(|l| l.trim()),
        Some(lesson.as_str()),
        "{mermaid}"
    );
    let drawn: Vec<bool> = lines
        .iter()
        .filter(|l| l.trim() != lesson)
        .filter_map(|l| event_line(l))
        .collect();
    assert_eq!(drawn.len(), events.len(), "one line per event:\n{mermaid}");
    let d = diagram_of(&events);
    let arrows: Vec<bool> = d.rows.iter().map(|r| r.is_arrow()).collect();
    assert_eq!(drawn, arrows, "messages and notes in trace order");

    for expected in [
        "    U->>H: What's the weather in Seoul right now?",
        "    Note over S1: stderr: weather MCP server running on stdio",
        "    H->>L: request · tools: get_weather · POST /v1/messages",
        "    H->>S1: tools/call get_weather",
        "    Note over S1: exited code 0",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(expected)),
            "{expected}\n{mermaid}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("    L-->>H: tool_use get_weather · HTTP 200")),
        "{mermaid}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("    S1-->>H: result initialize 2025-11-25 · ")),
        "{mermaid}"
    );

    // --out writes the same text and nothing to stdout.
    let file = dir.path().join("weather.mmd");
    let out = export(&trace, "mermaid", &["--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mermaid);
}

#[test]
fn svg_is_xml_with_one_row_per_event_and_the_lesson_in_the_gap() {
    let (dir, trace) = record("weather", &[]);
    let events = load(&trace).events;
    let file = dir.path().join("weather.svg");
    let out = export(&trace, "svg", &["--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );

    let rows: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.attribute("data-event").is_some())
        .collect();
    assert_eq!(rows.len(), events.len(), "one element per event");
    let indices: BTreeSet<usize> = rows
        .iter()
        .map(|n| n.attribute("data-event").unwrap().parse().unwrap())
        .collect();
    assert_eq!(indices, (0..events.len()).collect());
    for (n, e) in rows.iter().zip(&events) {
        assert_eq!(n.attribute("data-seq"), Some(e.seq.to_string().as_str()));
    }

    let d = diagram_of(&events);
    let class_count = |tag: &str, class: &str| {
        doc.descendants()
            .filter(|n| n.tag_name().name() == tag && n.attribute("class") == Some(class))
            .count()
    };
    let arrows = d.rows.iter().filter(|r| r.is_arrow()).count();
    assert_eq!(class_count("line", "arrow"), arrows);
    assert_eq!(class_count("rect", "note"), events.len() - arrows);
    assert_eq!(class_count("rect", "lane"), d.lanes.len());
    // Each row holds exactly one arrow or note.
    for n in &rows {
        let marks = n
            .children()
            .filter(|c| matches!(c.attribute("class"), Some("arrow" | "note")))
            .count();
        assert_eq!(marks, 1);
    }

    let lesson: String = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("lesson"))
        .expect("lesson text")
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(lesson, LESSON);
    let headers: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "text" && n.attribute("font-weight") == Some("bold"))
        .filter_map(|n| n.text().map(str::to_string))
        .collect();
    for title in ["User", "Host", "LLM API", "weather"] {
        assert!(headers.iter().any(|h| h == title), "{headers:?}");
    }

    // Stdout gets the same document.
    let out = export(&trace, "svg", &[]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), svg);
}

#[test]
fn svg_and_mermaid_survive_hostile_text() {
    let dir = tempdir();
    let trace = dir.path().join("hostile.jsonl");
    let lines = [
        r#"{"sightline_trace":1,"created":"2026-11-29T12:00:00.000000Z","sightline_version":"0.1.0","title":"x"}"#,
        r#"{"seq":0,"time":"2026-11-29T12:00:00.000000Z","from":"user","to":"host","channel":"note","raw":"<b>&\"'#; %% end\u0000\u001b[31m\uFFFE"}"#,
        r#"{"seq":1,"time":"2026-11-29T12:00:00.001000Z","from":"server:a<&>\"b","to":"host","channel":"stdio","raw":"not json ; # <script>"}"#,
        r#"{"seq":2,"time":"2026-11-29T12:00:00.002000Z","from":"server:a<&>\"b","to":"host","channel":"stderr","raw":"x\ty"}"#,
        r#"{"seq":3,"time":"2026-11-29T12:00:00.003000Z","from":"host","to":"host","channel":"note","raw":"wrap: x"}"#,
    ];
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();

    let out = export(&trace, "svg", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let all_text: String = doc
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    assert!(all_text.contains("<b>&\"'#; %% end"), "{all_text}");
    assert!(all_text.contains("a<&>\"b"), "{all_text}");
    assert!(!all_text.contains('\u{0}') && !all_text.contains('\u{1b}'));
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("data-event").is_some())
            .count(),
        4
    );

    let out = export(&trace, "mermaid", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mermaid = text(&out.stdout);
    let drawn = mermaid.lines().filter_map(event_line).count();
    assert_eq!(drawn, 4 + 1, "four events and the lesson note:\n{mermaid}");
    assert!(
        mermaid.contains("participant S1 as a#60;#38;#62;\"b"),
        "{mermaid}"
    );
    assert!(mermaid.contains("Note over H: wrap#58; x"), "{mermaid}");
    assert!(mermaid.contains("stderr: x\\u{0009}y"), "{mermaid}");
}

#[test]
fn export_errors_are_clear() {
    let dir = tempdir();
    let missing = dir.path().join("missing.jsonl");
    let out = export(&missing, "svg", &[]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot open trace") && err.contains("missing.jsonl"),
        "{err}"
    );

    let not_a_trace = dir.path().join("notes.txt");
    std::fs::write(&not_a_trace, "hello\n").unwrap();
    let out = export(&not_a_trace, "mermaid", &[]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("notes.txt") && err.contains("not a Sightline trace header"),
        "{err}"
    );

    let out = export(&not_a_trace, "png", &[]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("mermaid") && err.contains("svg"), "{err}");

    let (_dir, trace) = record("weather", &[]);
    let out = export(
        &trace,
        "svg",
        &[
            "--out",
            dir.path().join("no/such/dir/x.svg").to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("cannot write"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn two_servers_diagram_lanes_pairs_and_chains() {
    let (_dir, trace) = record("two-servers", &[]);
    let events = load(&trace).events;
    let r = report(&events);
    let d = diagram::build(&events, &r);

    let titles: Vec<&str> = d.lanes.iter().map(|l| l.title.as_str()).collect();
    assert_eq!(titles, ["User", "Host", "LLM API", "weather", "forecast"]);
    assert_eq!(d.lanes[3].lane, Lane::server("weather"));
    assert_eq!(d.lanes[4].kind, LaneKind::Server);
    assert_eq!(d.direct_model_server, 0);
    assert_eq!(d.rows.len(), events.len());
    for (i, row) in d.rows.iter().enumerate() {
        assert_eq!(row.event(), i);
        assert_eq!(d.row_of_event(i), Some(i));
        assert!(row.status.is_ok(), "{row:?}");
        // No arrow ever joins the model and a server.
        let kinds = (d.lanes[row.from()].kind, d.lanes[row.to()].kind);
        assert!(
            !matches!(
                kinds,
                (LaneKind::Llm, LaneKind::Server) | (LaneKind::Server, LaneKind::Llm)
            ),
            "{row:?}"
        );
    }

    // Pairs are symmetric and join a request to its response.
    let rpc_requests = d.rows.iter().filter(|r| r.style == Style::Request).count();
    assert_eq!(rpc_requests, 6);
    for (i, row) in d.rows.iter().enumerate() {
        match row.style {
            Style::Request | Style::LlmRequest => {
                let p = row.pair().expect("answered");
                assert_eq!(d.rows[p].pair(), Some(i));
                let want = if row.style == Style::Request {
                    Style::Response
                } else {
                    Style::LlmResponse
                };
                assert_eq!(d.rows[p].style, want);
                assert!(p > i);
            }
            Style::Response | Style::LlmResponse => assert!(row.pair().is_some()),
            _ => assert_eq!(row.pair(), None, "{row:?}"),
        }
    }

    // Two tool calls from one model turn: each tools/call row carries its own chain, the
    // response that asked and the request that returned carry both.
    assert_eq!(r.chains.len(), 2);
    let asked = r.chains[0].asked_in;
    let back = r.chains[0].returned_in.expect("returned");
    let mut union = BTreeSet::new();
    for c in &r.chains {
        let own = vec![
            c.asked_in,
            c.tools_call.unwrap(),
            c.tools_result.unwrap(),
            c.returned_in.unwrap(),
        ];
        assert_eq!(d.chain(c.tools_call.unwrap()), own);
        assert_eq!(d.chain(c.tools_result.unwrap()), own);
        union.extend(own);
    }
    let union: Vec<usize> = union.into_iter().collect();
    assert_eq!(union.len(), 6);
    assert_eq!(d.chain(asked), union);
    assert_eq!(d.chain(back), union);
    let in_chains = (0..d.rows.len())
        .filter(|&i| !d.chain(i).is_empty())
        .count();
    assert_eq!(in_chains, 6);
    assert_eq!(d.chained_rows().collect::<Vec<_>>(), union);

    // Labels.
    let texts = d.texts(&events, &r);
    let label = |i: usize| texts[i].label.as_str();
    assert_eq!(
        label(asked),
        "tool_use weather__get_weather, forecast__get_weather"
    );
    assert_eq!(label(back), "returns 2 results");
    let first_request = d
        .rows
        .iter()
        .position(|r| r.style == Style::LlmRequest)
        .unwrap();
    assert!(
        label(first_request).starts_with("request · "),
        "{}",
        label(first_request)
    );
    assert!(
        label(back + 1).starts_with("end_turn \""),
        "{}",
        label(back + 1)
    );
    let call = r.chains[1].tools_call.unwrap();
    assert_eq!(label(call), "tools/call get_weather");
    assert_eq!((d.rows[call].from(), d.rows[call].to()), (1, 4));
    assert!(
        texts[call]
            .detail
            .as_deref()
            .is_some_and(|s| s.contains("model call toolu_sl_0_1")),
        "{:?}",
        texts[call].detail
    );
    let results: Vec<&str> = d
        .rows
        .iter()
        .filter(|r| r.style == Style::Response)
        .map(|r| label(r.event()))
        .collect();
    assert!(
        results.contains(&"result initialize 2025-11-25"),
        "{results:?}"
    );
    // The host's renaming notes sit on the host's lifeline.
    let notes: Vec<_> = d
        .rows
        .iter()
        .filter(|r| r.style == Style::Note && !r.is_arrow())
        .collect();
    assert_eq!(notes.len(), 2);
    assert!(notes.iter().all(|r| r.from() == 1));
    assert!(
        label(notes[0].event()).starts_with("host shows tool `get_weather`"),
        "{}",
        label(notes[0].event())
    );
    // Stderr and process rows sit on their server's lifeline.
    for row in d
        .rows
        .iter()
        .filter(|r| matches!(r.style, Style::Stderr | Style::Process))
    {
        assert_eq!(row.from(), row.to());
        assert!(row.from() >= 3);
    }
    assert!(d.rows.iter().all(|r| r.status != Status::Unanswered));
}

#[test]
fn model_turn_labels_name_each_api_shape() {
    for (provider, word) in [
        ("scripted", "tool_use"),
        ("openai", "function_call"),
        ("openai-chat", "tool_calls"),
    ] {
        let (_dir, trace) = record("weather", &["--provider", provider]);
        let events = load(&trace).events;
        let d = diagram_of(&events);
        let texts = d.texts(&events, &report(&events));
        let label = |r: &diagram::Row| texts[r.event()].label.as_str();
        let labels: Vec<&str> = d.rows.iter().map(label).collect();
        let expected_path = match provider {
            "openai" => "POST /v1/responses",
            "openai-chat" => "POST /v1/chat/completions",
            _ => "POST /v1/messages",
        };
        assert!(
            labels.contains(&"request · tools: get_weather"),
            "{provider}: {labels:?}"
        );
        // The transport is in the detail (the tooltip, the inspector), not the label.
        assert!(
            texts.iter().any(|t| t
                .detail
                .as_deref()
                .is_some_and(|d| d.starts_with(expected_path))),
            "{provider}"
        );
        assert!(
            labels.contains(&format!("{word} get_weather").as_str()),
            "{provider}: {labels:?}"
        );
        for label in [
            "initialize 2025-11-25",
            "result initialize 2025-11-25",
            "notifications/initialized",
            "tools/call get_weather",
            "result tools/call get_weather",
            "stderr: weather MCP server running on stdio",
            "exited code 0",
        ] {
            assert!(labels.contains(&label), "{provider}: {label} in {labels:?}");
        }
        let last_model = d
            .rows
            .iter()
            .rfind(|r| r.style == Style::LlmResponse)
            .unwrap();
        let stop = match provider {
            "openai" => "completed",
            "openai-chat" => "stop",
            _ => "end_turn",
        };
        assert!(
            label(last_model).starts_with(stop),
            "{provider}: {}",
            label(last_model)
        );
        let spawn = d.rows.iter().find(|r| r.style == Style::Process).unwrap();
        assert!(
            label(spawn).starts_with("spawned sightline demo-server weather"),
            "{}",
            label(spawn)
        );
    }
}
