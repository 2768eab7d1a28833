//! `sightline diff` as text and JSON: one block per server, one line per change, then counts.
//!
//! ```text
//! server weather
//!   ~ tool get_weather  changed  A #7 -> B #7
//!       /inputSchema/properties/units: (absent) -> {"type":"string"}
//!   - tool get_forecast  removed  A #7
//! 2 changes: 1 changed, 1 removed; 2 fail --exit-code (1 call matched and compared)
//! ```
//!
//! Lines start with `+` (added, better, faster), `-` (removed), `~` (changed, renamed) or `!`
//! (worse, slower), `?` for a call with no partner.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::analysis::diff::{Change, ChangeKind, TraceDiff};
use crate::i18n::Words;

/// The key of a change kind's word (`kind_*`) or count (`count_*`) in `diff_text`.
pub fn kind_key(prefix: &str, kind: ChangeKind) -> String {
    format!("diff_text.{prefix}_{}", kind.as_str())
}

/// What a change is about, in the reader's language (`tool`, `server`, `resource template`).
pub fn subject<'a>(w: Words<'a>, subject: &'a str) -> &'a str {
    let key = match subject {
        "server" => "diff_text.subject_server",
        "tool" => "diff_text.subject_tool",
        "prompt" => "diff_text.subject_prompt",
        "resource" => "diff_text.subject_resource",
        "resource template" => "diff_text.subject_resource_template",
        "model tool" => "diff_text.subject_model_tool",
        "capabilities" => "diff_text.subject_capabilities",
        "instructions" => "diff_text.subject_instructions",
        "call" => "diff_text.subject_call",
        other => return other,
    };
    w.get(key)
}

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

/// One change as its line and the lines of its fields, indented by `indent`, in the language
/// of `w`.
pub fn change_lines(out: &mut String, c: &Change, indent: &str, w: Words) {
    let name = if c.name.is_empty() {
        String::new()
    } else {
        format!(" {}", c.name)
    };
    let _ = write!(
        out,
        "{indent}{} {}{name}  {}  {}",
        mark(c.kind),
        subject(w, c.subject),
        w.get(&kind_key("kind", c.kind)),
        events(c)
    );
    if !c.detail.is_empty() && c.fields.is_empty() {
        let _ = write!(out, ": {}", c.said.say(w));
    }
    out.push('\n');
    for f in &c.fields {
        let _ = writeln!(out, "{indent}    {}: {}", f.pointer, f.values_line(w));
        if let Some(diff) = f.text_diff("A", "B") {
            for line in diff.lines() {
                let _ = writeln!(out, "{indent}      {line}");
            }
        }
    }
}

/// The text report in the language of `w` (`diff_text.*`): marks, names, pointers and
/// values are the same in every language.
pub fn text_in(d: &TraceDiff, w: Words) -> String {
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
                let _ = writeln!(out, "{}", w.fmt("diff_text.server", &[("name", s)]));
            }
            None => {
                let _ = writeln!(out, "{}", w.get("diff_text.model"));
            }
        }
        for c in changes {
            change_lines(&mut out, c, "  ", w);
        }
    }
    let mut counts: BTreeMap<&str, (ChangeKind, usize)> = BTreeMap::new();
    for c in &d.changes {
        counts.entry(c.kind.as_str()).or_insert((c.kind, 0)).1 += 1;
    }
    let failing = d.changes.iter().filter(|c| c.fails()).count().to_string();
    let calls = d.calls_compared.to_string();
    if d.changes.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            w.fmt("diff_text.no_changes", &[("calls", &calls)])
        );
    } else {
        let list: Vec<String> = counts
            .values()
            .map(|(kind, n)| w.fmt(&kind_key("count", *kind), &[("n", &n.to_string())]))
            .collect();
        let line = w.fmt(
            "diff_text.changes",
            &[
                ("count", &d.changes.len().to_string()),
                ("list", &list.join(", ")),
                ("failing", &failing),
                ("calls", &calls),
            ],
        );
        let _ = writeln!(out, "{line}");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_kind_has_its_words_in_every_language() {
        use crate::i18n::Language;
        use ChangeKind::*;
        let strings = crate::i18n::shared();
        for kind in [
            Added, Removed, Changed, Renamed, Worse, Better, Slower, Faster, Unmatched,
        ] {
            for prefix in ["kind", "count"] {
                let key = kind_key(prefix, kind);
                for lang in Language::ALL {
                    assert!(strings.has(lang, &key), "{key} ({})", lang.code());
                }
            }
        }
    }
}
