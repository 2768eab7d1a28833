//! `sightline diff` as text and JSON: one block per server, one line per change, then counts.
//!
//! ```text
//! server weather
//!   ~ tool get_weather  changed  A #7 -> B #7
//!       /inputSchema/properties/units: (absent) -> {"type":"string"}
//!   - tool get_forecast  removed  A #7
//! 2 change(s): 1 changed, 1 removed; 2 fail --exit-code
//! ```
//!
//! Lines start with `+` (added, better, faster), `-` (removed), `~` (changed, renamed) or `!`
//! (worse, slower), `?` for a call with no partner.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::analysis::diff::{Change, ChangeKind, TraceDiff};

fn mark(kind: ChangeKind) -> char {
    match kind {
        ChangeKind::Added | ChangeKind::Better | ChangeKind::Faster => '+',
        ChangeKind::Removed => '-',
        ChangeKind::Changed | ChangeKind::Renamed => '~',
        ChangeKind::Worse | ChangeKind::Slower => '!',
        ChangeKind::Unmatched => '?',
    }
}

fn events(c: &Change) -> String {
    match (c.a_seq, c.b_seq) {
        (Some(a), Some(b)) => format!("A #{a} -> B #{b}"),
        (Some(a), None) => format!("A #{a}"),
        (None, Some(b)) => format!("B #{b}"),
        (None, None) => String::new(),
    }
}

/// One change as its line and the lines of its fields, indented by `indent`.
pub fn change_lines(out: &mut String, c: &Change, indent: &str) {
    let name = if c.name.is_empty() {
        String::new()
    } else {
        format!(" {}", c.name)
    };
    let _ = write!(
        out,
        "{indent}{} {}{name}  {}  {}",
        mark(c.kind),
        c.subject,
        c.kind.as_str(),
        events(c)
    );
    if !c.detail.is_empty() && c.fields.is_empty() {
        let _ = write!(out, ": {}", c.detail);
    }
    out.push('\n');
    for f in &c.fields {
        let _ = writeln!(out, "{indent}    {}: {}", f.pointer, f.values_line());
        if let Some(diff) = f.text_diff() {
            for line in diff.lines() {
                let _ = writeln!(out, "{indent}      {line}");
            }
        }
    }
}

/// The text report.
pub fn text(d: &TraceDiff) -> String {
    let mut out = String::new();
    let mut groups: Vec<(Option<&str>, Vec<&Change>)> = Vec::new();
    for c in &d.changes {
        let server = c.server.as_deref();
        match groups.iter_mut().find(|(s, _)| *s == server) {
            Some((_, list)) => list.push(c),
            None => groups.push((server, vec![c])),
        }
    }
    for (server, changes) in groups {
        match server {
            Some(s) => {
                let _ = writeln!(out, "server {s}");
            }
            None => out.push_str("what the model was sent (last LLM request)\n"),
        }
        for c in changes {
            change_lines(&mut out, c, "  ");
        }
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &d.changes {
        *counts.entry(c.kind.as_str()).or_default() += 1;
    }
    let failing = d.changes.iter().filter(|c| c.fails()).count();
    if d.changes.is_empty() {
        let _ = writeln!(
            out,
            "no changes ({} call(s) matched and compared)",
            d.calls_compared
        );
    } else {
        let list: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = writeln!(
            out,
            "{} change(s): {}; {failing} fail --exit-code ({} call(s) matched and compared)",
            d.changes.len(),
            list.join(", "),
            d.calls_compared
        );
    }
    out
}

/// The JSON report: one object with `changes` (each with `fails`) and `calls_compared`.
pub fn json(d: &TraceDiff) -> String {
    let changes: Vec<serde_json::Value> = d
        .changes
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap_or_default();
            if let Some(obj) = v.as_object_mut() {
                obj.insert("fails".into(), c.fails().into());
            }
            v
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&serde_json::json!({
        "changes": changes,
        "calls_compared": d.calls_compared,
        "fails": d.exit_status() == 1,
    }))
    .unwrap_or_default();
    s.push('\n');
    s
}
