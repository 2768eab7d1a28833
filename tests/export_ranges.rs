//! `sightline export --from/--to`: a range of a trace's events, and what the command says when
//! a format does not suit the size of what is exported.

use std::path::Path;

use sightline::trace::{Channel, Event, Header, Lane, TraceWriter, now};

use crate::util::*;

/// The `data-seq` of every row of an SVG, in document order.
fn svg_seqs(svg: &str) -> Vec<u64> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
    doc.descendants()
        .filter_map(|n| n.attribute("data-seq"))
        .map(|s| s.parse().unwrap())
        .collect()
}

/// `n` pings and their answers between a host and one server.
fn write_pings(path: &Path, n: u64) {
    let mut w = TraceWriter::create(path, &Header::new("pings")).unwrap();
    let t0 = now();
    for seq in 0..n {
        let (from, to, raw) = if seq % 2 == 0 {
            (
                Lane::Host,
                Lane::server("s"),
                format!(r#"{{"jsonrpc":"2.0","id":{seq},"method":"ping"}}"#),
            )
        } else {
            (
                Lane::server("s"),
                Lane::Host,
                format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, seq - 1),
            )
        };
        let time = t0 + chrono::Duration::milliseconds(seq as i64);
        let e = Event::with_bytes(seq, time, from, to, Channel::Stdio, raw.into_bytes());
        w.append(&e).unwrap();
    }
    w.flush().unwrap();
}

#[test]
fn a_range_exports_exactly_its_events() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let events = load(&trace).events;
    assert!(events.len() > 8, "{} events", events.len());

    let out = export(&trace, "svg", &["--from", "2", "--to", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    assert_eq!(svg_seqs(&svg), vec![2, 3, 4, 5]);
    assert!(svg.contains("Sightline: 4 events"), "{svg}");
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));

    // The whole trace is the range of everything.
    let whole = export(&trace, "svg", &[]);
    let last = events.last().unwrap().seq.to_string();
    let all = export(&trace, "svg", &["--from", "0", "--to", &last]);
    assert_eq!(text(&whole.stdout), text(&all.stdout));

    // Mermaid: the range's rows, then the lesson note.
    let out = export(&trace, "mermaid", &["--from", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let full = text(&export(&trace, "mermaid", &[]).stdout);
    let rows = |m: &str| -> Vec<String> {
        m.lines()
            .filter(|l| l.starts_with("    ") && !l.contains("participant"))
            .filter(|l| !matches!(l.trim(), "box Host (LLM loop + MCP client)" | "end"))
            .map(str::to_string)
            .collect()
    };
    let (part, full) = (rows(&text(&out.stdout)), rows(&full));
    assert_eq!(part.len(), full.len() - 3);
    assert_eq!(part, full[3..]);
}

#[test]
fn a_bad_range_is_refused_with_the_trace_s_bounds() {
    let dir = tempdir();
    let trace = dir.path().join("pings.jsonl");
    write_pings(&trace, 10);
    let out = export(&trace, "svg", &["--from", "7", "--to", "3"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("--from 7 is after --to 3"), "{err}");

    let out = export(&trace, "mermaid", &["--from", "50"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("no events in the range 50..=") && err.contains("#0 to #9"),
        "{err}"
    );
}

#[test]
fn a_format_too_small_for_the_trace_says_so_and_suggests_a_range() {
    let dir = tempdir();
    let trace = dir.path().join("pings.jsonl");
    write_pings(&trace, 6_000);
    let file = dir.path().join("pings.svg");
    let out = export(&trace, "svg", &["--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("6000 events") && err.contains("--from SEQ --to SEQ"),
        "{err}"
    );
    // The file is whole all the same.
    let svg = std::fs::read_to_string(&file).unwrap();
    assert_eq!(svg_seqs(&svg).len(), 6_000);

    let out = export(&trace, "mermaid", &[]);
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("Mermaid renderers") && err.contains("50000"),
        "{err}"
    );

    // A range small enough: no warning.
    for format in ["svg", "mermaid"] {
        let out = export(&trace, format, &["--from", "100", "--to", "199"]);
        assert!(out.status.success());
        assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    }
}
