//! `sightline stats`: [`crate::analysis::stats`] as a table for people or as JSON for tools.
//!
//! ```text
//! 17 events over 1.234 s: 4 requests (1 error, 25.0 %; 0 unanswered), 2 notifications
//! busiest second: 2026-11-29T23:30:08Z, 17 events
//!
//! by method          requests  notif.  errors   rate  unans.     p50     p95     p99     max
//! tools/call                3       0       1  33.3%       0  1.0 ms  1.0 ms  1.0 ms  1.0 ms
//! ```
//!
//! Keys (methods, tools, servers, models) are printed as recorded but for control characters,
//! which a hostile trace could use to rewrite the terminal; the JSON form keeps them as they are.

use std::io::{self, Write};

use crate::analysis::stats::{By, Latency, LlmRequest, Row, Stats};
use crate::i18n::Words;
use crate::wire::text::ms_tenths;

/// Writes `stats` as JSON (one document, pretty-printed).
pub fn write_json(w: &mut dyn Write, stats: &Stats) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, stats).map_err(io::Error::other)?;
    writeln!(w)
}

/// Writes `stats` as text tables in the language of `words`.
pub fn write_text(w: &mut dyn Write, stats: &Stats, words: Words) -> io::Result<()> {
    let duration = stats
        .duration_us
        .map_or_else(|| "-".to_string(), |us| format!("{:.3} s", us as f64 / 1e6));
    let rate = percent(stats.errors, stats.requests);
    writeln!(
        w,
        "{}",
        words.fmt(
            "stats.overview",
            &[
                ("events", &stats.events.to_string()),
                ("duration", &duration),
                ("requests", &stats.requests.to_string()),
                ("errors", &stats.errors.to_string()),
                ("rate", &rate),
                ("unanswered", &stats.unanswered.to_string()),
                ("notifications", &stats.notifications.to_string()),
            ],
        )
    )?;
    if let Some(b) = &stats.busiest {
        let second = b.second.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let events = b.events.to_string();
        let args = [("second", second.as_str()), ("events", events.as_str())];
        writeln!(w, "{}", words.fmt("stats.busiest", &args))?;
    }
    for table in &stats.tables {
        writeln!(w)?;
        write_table(w, table.by, &table.rows, words)?;
    }
    if !stats.llm.is_empty() {
        writeln!(w)?;
        write_llm(w, &stats.llm, words)?;
    }
    Ok(())
}

fn write_table(w: &mut dyn Write, by: By, rows: &[Row], words: Words) -> io::Result<()> {
    let title = words.get(match by {
        By::Method => "stats.by_method",
        By::Tool => "stats.by_tool",
        By::Server => "stats.by_server",
        By::Model => "stats.by_model",
    });
    if rows.is_empty() {
        return writeln!(w, "{title}: {}", words.get("stats.none"));
    }
    let width = rows
        .iter()
        .map(|r| shown(&r.key).chars().count())
        .chain([title.chars().count()])
        .max()
        .unwrap_or(0);
    let heads = [
        "stats.requests",
        "stats.notifications",
        "stats.errors",
        "stats.rate",
        "stats.unanswered",
    ]
    .map(|k| words.get(k));
    write!(w, "{title:<width$}")?;
    for head in heads.iter().chain(&["p50", "p95", "p99", "max"]) {
        write!(w, "  {head:>9}")?;
    }
    writeln!(w)?;
    for r in rows {
        write!(w, "{:<width$}", shown(&r.key))?;
        let rate = percent(r.errors, r.requests);
        for n in [r.requests, r.notifications, r.errors] {
            write!(w, "  {n:>9}")?;
        }
        write!(w, "  {rate:>9}  {:>9}", r.unanswered)?;
        for us in Latency::columns(r.latency) {
            write!(w, "  {:>9}", us.map_or_else(|| "-".to_string(), ms_tenths))?;
        }
        writeln!(w)?;
    }
    Ok(())
}

fn write_llm(w: &mut dyn Write, rows: &[LlmRequest], words: Words) -> io::Result<()> {
    writeln!(w, "{}", words.get("stats.llm"))?;
    let heads = [
        "seq",
        words.get("stats.model"),
        "HTTP",
        words.get("stats.tools"),
        words.get("stats.tool_tokens"),
        words.get("stats.input"),
        words.get("stats.output"),
        words.get("stats.first_byte"),
        words.get("stats.last_byte"),
    ];
    let model_width = rows
        .iter()
        .map(|r| r.model.as_deref().map_or(1, |m| shown(m).chars().count()))
        .chain([heads[1].chars().count()])
        .max()
        .unwrap_or(1);
    write!(w, "{:>7}  {:<model_width$}", heads[0], heads[1])?;
    for head in &heads[2..] {
        write!(w, "  {head:>11}")?;
    }
    writeln!(w)?;
    let opt = |n: Option<u64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    for r in rows {
        let model = r.model.as_deref().map_or_else(|| "-".to_string(), shown);
        let tokens = match r.tool_tokens {
            Some(n) if r.tool_tokens_exact => n.to_string(),
            Some(n) => format!("~{n}"),
            None => "-".to_string(),
        };
        write!(w, "{:>7}  {model:<model_width$}", r.seq)?;
        let cells = [
            opt(r.status.map(u64::from)),
            r.tools.to_string(),
            tokens,
            opt(r.input_tokens),
            opt(r.output_tokens),
            r.first_byte_us.map_or_else(|| "-".to_string(), ms_tenths),
            r.last_byte_us.map_or_else(|| "-".to_string(), ms_tenths),
        ];
        for cell in cells {
            write!(w, "  {cell:>11}")?;
        }
        writeln!(w)?;
    }
    writeln!(w, "{}", words.get("stats.tokens_note"))
}

/// A key as a terminal shows it: control characters as `\u{..}` escapes.
pub fn shown(key: &str) -> String {
    if !key.chars().any(char::is_control) {
        return key.to_string();
    }
    key.chars()
        .map(|c| match c {
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stats::{Latency, Table};
    use crate::i18n::Language;

    #[test]
    fn a_table_says_its_rows_and_escapes_control_characters() {
        let stats = Stats {
            events: 5,
            requests: 2,
            notifications: 1,
            errors: 1,
            unanswered: 0,
            duration_us: Some(1_500_000),
            tables: vec![Table {
                by: By::Tool,
                rows: vec![Row {
                    key: "evil\u{1b}[2J".into(),
                    requests: 2,
                    notifications: 0,
                    errors: 1,
                    unanswered: 0,
                    latency: Latency::of(&mut [1000, 3000]),
                }],
            }],
            llm: vec![],
            busiest: None,
        };
        let mut out = Vec::new();
        write_text(&mut out, &stats, Words::of(Language::En)).expect("written");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            text.starts_with("5 events over 1.500 s: 2 requests (1 error"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("evil\\u{1b}[2J"), "{text}");
        assert!(text.contains("50.0%") && text.contains("3.0 ms"), "{text}");
        let mut json = Vec::new();
        write_json(&mut json, &stats).expect("json");
        let v: serde_json::Value = serde_json::from_slice(&json).expect("parses");
        assert_eq!(v["tables"][0]["by"], "tool");
        assert_eq!(v["tables"][0]["rows"][0]["latency"]["max_us"], 3000);
    }
}
