//! `sightline replay` as text and JSON: one block per request whose answer differs, then the
//! counts.
//!
//! ```text
//! tools/call echo  recorded #14 -> #15, replayed #13 -> #14: differs
//!     /result/content/0/text: "Echo: hi" -> "Echo (changed): hi"
//! 5 requests replayed: 3 same, 2 differ, 0 not answered, 0 not sent
//! ```

use std::fmt::Write as _;

use crate::analysis::replay::{RequestResult, Status};
use crate::i18n::{Language, Words};

fn seqs(a: Option<u64>, b: Option<u64>) -> String {
    let s = |x: Option<u64>| x.map_or("?".to_string(), |x| format!("#{x}"));
    format!("{} -> {}", s(a), s(b))
}

/// The text report: only requests that did not match, then the counts (English).
pub fn text(results: &[RequestResult]) -> String {
    text_in(results, Words::of(Language::En))
}

/// [`text`] in the language of `w` (`replay_text.*`): methods, names, event numbers, pointers
/// and values are the same in every language.
pub fn text_in(results: &[RequestResult], w: Words) -> String {
    let mut out = String::new();
    let (mut same, mut differ, mut silent, mut unsent) = (0, 0, 0, 0);
    for r in results {
        let name = r
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let recorded = w.fmt(
            "replay_text.recorded",
            &[
                ("a", &seqs(Some(r.recorded_seq), r.recorded_answer)),
                ("b", &seqs(r.replay_seq, r.replay_answer)),
            ],
        );
        let head = format!("{}{name}  {recorded}", r.method);
        match &r.status {
            Status::Same => same += 1,
            Status::Differs { differences } => {
                differ += 1;
                let _ = writeln!(out, "{head}: {}", w.get("replay_text.differs"));
                for d in differences {
                    let pointer = if d.pointer.is_empty() {
                        w.get("replay_text.whole_answer")
                    } else {
                        &d.pointer
                    };
                    let _ = writeln!(out, "    {pointer}: {}", d.values_line(w));
                    let (old, new) = (w.get("values.recorded"), w.get("values.replayed"));
                    if let Some(diff) = d.text_diff(old, new) {
                        for line in diff.lines() {
                            let _ = writeln!(out, "      {line}");
                        }
                    }
                }
            }
            Status::NoAnswer => {
                silent += 1;
                let _ = writeln!(out, "{head}: {}", w.get("replay_text.no_answer"));
            }
            Status::NotSent => {
                unsent += 1;
                let _ = writeln!(out, "{head}: {}", w.get("replay_text.not_sent"));
            }
        }
    }
    let counts = w.fmt(
        "replay_text.counts",
        &[
            ("count", &results.len().to_string()),
            ("same", &same.to_string()),
            ("differ", &differ.to_string()),
            ("silent", &silent.to_string()),
            ("unsent", &unsent.to_string()),
        ],
    );
    let _ = writeln!(out, "{counts}");
    out
}

/// Whether the replay matched: every request answered the same.
pub fn all_same(results: &[RequestResult]) -> bool {
    results.iter().all(|r| r.status == Status::Same)
}

/// One JSON object: `requests` (each with its `status` and `differences`) and `same`.
pub fn json(results: &[RequestResult]) -> String {
    let mut s = serde_json::to_string_pretty(&serde_json::json!({
        "requests": results,
        "same": all_same(results),
    }))
    .unwrap_or_default();
    s.push('\n');
    s
}

/// `run --replay-model`'s verdict: the turn at which the loop diverged (what the model was
/// sent, each pointer with both values), then each server answer that differs, or that it
/// did not diverge; in the language of `w` (`replay_text.*`).
pub fn divergence_text(d: &crate::analysis::divergence::Divergence, w: Words) -> String {
    let mut out = String::new();
    let turns = d.recorded_turns.to_string();
    match &d.diverged {
        None => {
            let line = w.fmt("replay_text.no_divergence", &[("turns", &turns)]);
            let _ = writeln!(out, "{line}");
        }
        Some(turn) => {
            let replayed = turn.replay_seq.map_or_else(
                || w.get("replay_text.never_sent").to_string(),
                |s| w.fmt("replay_text.replayed_at", &[("seq", &s.to_string())]),
            );
            let line = w.fmt(
                "replay_text.diverged",
                &[
                    ("turn", &turn.turn.to_string()),
                    ("turns", &turns),
                    ("seq", &turn.recorded_seq.to_string()),
                    ("replayed", &replayed),
                ],
            );
            let _ = writeln!(out, "{line}");
            for diff in &turn.differences {
                let pointer = if diff.pointer.is_empty() {
                    w.get("replay_text.whole_request")
                } else {
                    &diff.pointer
                };
                let _ = writeln!(out, "    {pointer}: {}", diff.values_line(w));
            }
        }
    }
    for server in &d.servers {
        let head = w.fmt(
            "replay_text.answered_differently",
            &[("server", &server.server)],
        );
        let _ = writeln!(out, "{head}");
        let text = text_in(&server.requests, w);
        // The per-server count line of `text` (its last) is left out: the blocks say it all.
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines[..lines.len().saturating_sub(1)] {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}
