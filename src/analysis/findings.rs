//! What the open trace's judgements found, filed under the events they point at.
//!
//! [`Findings`] runs the doctor, the schema check, the poisoning scan and the in-trace pin
//! comparison once per change of a trace (never per frame), and indexes every finding by the
//! event it points at, so that a view asks for an event's marks in O(log n). [`Staged`] does
//! the same a slice at a time, for a caller without threads. A new kind of finding is a
//! [`MarkKind`] and a stage here; the views only draw the marks.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::analysis::conformance::Violation;
use crate::analysis::doctor::{self, Diagnosis};
use crate::analysis::{Report, definitions, pins, poison};
use crate::i18n::Language;
use crate::trace::Event;

mod index;
mod staged;
pub use staged::Staged;

/// What kind of finding a mark stands for; the most serious kind colours the badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MarkKind {
    /// A doctor code whose evidence is this event (a tool the model does not see or sees
    /// renamed, a server that failed).
    Doctor,
    /// A schema violation of this message.
    Violation,
    /// A poisoning finding in a definition this message carried.
    Poison,
    /// A tool definition that changed since the previous `tools/list` result.
    RugPull,
}

impl MarkKind {
    /// The i18n key of the kind's name.
    pub fn key(self) -> &'static str {
        match self {
            MarkKind::Doctor => "badge.doctor",
            MarkKind::Violation => "badge.violation",
            MarkKind::Poison => "badge.poison",
            MarkKind::RugPull => "badge.rug_pull",
        }
    }

    /// What the kind says about the event, which the views draw it as.
    pub fn gravity(self) -> Gravity {
        match self {
            MarkKind::Doctor => Gravity::Problem,
            MarkKind::Violation => Gravity::Invalid,
            MarkKind::Poison | MarkKind::RugPull => Gravity::Danger,
        }
    }
}

/// What a finding says about its event: the views give each gravity a look of its own (a
/// colour that stays apart from the others), so a new kind of finding picks one of these and
/// needs nothing new from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gravity {
    /// Something the reader should know (a tool the model does not see).
    Problem,
    /// A message that breaks the protocol's schema.
    Invalid,
    /// A definition that could turn the model against the user.
    Danger,
}

/// One finding attached to one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub kind: MarkKind,
    /// The finding on one line: names and codes, the same in every language.
    pub text: String,
    /// Why it matters, said in the reader's language when the tooltip is shown (poisoning).
    pub why: Option<poison::Said>,
}

/// One row of a side-by-side diff: a line of the earlier definition, of the later one, or
/// both; `changed` when they differ.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    pub before: Option<String>,
    pub after: Option<String>,
    pub changed: bool,
}

/// A rug pull within the trace, ready to be drawn side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct RugPull {
    pub server: String,
    pub tool: String,
    pub before_seq: u64,
    pub after_seq: u64,
    /// The finding's headline in each language, in [`Language::ALL`] order.
    pub headlines: [String; 3],
    pub rows: Vec<DiffRow>,
}

impl RugPull {
    /// The headline in the language of `w` (`pins_text.rug_pull`).
    pub fn headline(&self, w: crate::i18n::Words) -> &str {
        let at = Language::ALL.iter().position(|l| *l == w.lang).unwrap_or(0);
        &self.headlines[at]
    }
}

/// Everything found in the trace.
#[derive(Debug, Clone)]
pub struct Findings {
    pub diagnosis: Diagnosis,
    pub violations: Vec<Violation>,
    pub poison: Vec<poison::Finding>,
    pub rug_pulls: Vec<RugPull>,
    by_event: BTreeMap<usize, Vec<Mark>>,
}

impl Findings {
    /// Runs every analysis on `events`.
    pub fn compute(events: &[Event], report: &Report) -> Findings {
        let mut staged = Staged::default();
        loop {
            if let Some(findings) = staged.step(events, report, Duration::MAX) {
                return findings;
            }
        }
    }

    /// The marks of event `index` (empty when it has none).
    pub fn marks(&self, index: usize) -> &[Mark] {
        self.by_event.get(&index).map_or(&[], Vec::as_slice)
    }

    /// How many events carry at least one mark.
    pub fn marked_events(&self) -> usize {
        self.by_event.len()
    }

    /// The poisoning findings about `tool` of `server`.
    pub fn poison_of<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
    ) -> impl Iterator<Item = &'a poison::Finding> + 'a {
        self.poison
            .iter()
            .filter(move |f| f.server == server && f.tool.as_deref() == Some(tool))
    }

    /// The doctor's verdict on `tool` of `server`.
    pub fn doctor_of(&self, server: &str, tool: &str) -> Option<&doctor::ToolFinding> {
        self.diagnosis
            .tools
            .iter()
            .find(|t| t.tool == tool && t.server.as_deref() == Some(server))
    }
}

/// Whether a tool's verdict deserves a badge: it is not visible, or visible with a caveat
/// (renamed because of a duplicate name).
pub fn noteworthy(t: &doctor::ToolFinding) -> bool {
    !t.visible || !t.code.is_visible()
}

/// A violation's JSON pointer, `/` for the whole message.
pub fn pointer(v: &Violation) -> &str {
    if v.pointer.is_empty() {
        "/"
    } else {
        &v.pointer
    }
}

/// The side-by-side view of a rug pull, with both definitions read from the listings.
fn rug_pull(finding: &pins::Finding, defs: &definitions::Definitions) -> Option<RugPull> {
    let pins::Finding::RugPull {
        server,
        tool,
        before_seq,
        after_seq,
        ..
    } = finding
    else {
        return None;
    };
    let pretty = |seq: u64| {
        defs.lists
            .iter()
            .find(|l| l.seq == seq && l.server.name == *server)
            .and_then(|l| l.tool(tool))
            .map(definitions::ToolDef::pretty)
    };
    let before = pretty(*before_seq).unwrap_or_default();
    let after = pretty(*after_seq).unwrap_or_default();
    Some(RugPull {
        server: server.clone(),
        tool: tool.clone(),
        before_seq: *before_seq,
        after_seq: *after_seq,
        headlines: Language::ALL.map(|l| finding.headline_in(crate::i18n::Words::of(l))),
        rows: side_by_side(&before, &after),
    })
}

/// Aligns the lines of two texts: equal lines side by side, changed runs next to each other.
pub fn side_by_side(before: &str, after: &str) -> Vec<DiffRow> {
    use similar::DiffOp;
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let diff = similar::TextDiff::from_slices(&old, &new);
    let mut rows = Vec::new();
    let line = |v: &[&str], i: usize| v.get(i).map(|s| s.to_string());
    for op in diff.ops() {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => rows.extend((0..len).map(|k| DiffRow {
                before: line(&old, old_index + k),
                after: line(&new, new_index + k),
                changed: false,
            })),
            DiffOp::Delete {
                old_index, old_len, ..
            } => rows.extend((0..old_len).map(|k| DiffRow {
                before: line(&old, old_index + k),
                after: None,
                changed: true,
            })),
            DiffOp::Insert {
                new_index, new_len, ..
            } => rows.extend((0..new_len).map(|k| DiffRow {
                before: None,
                after: line(&new, new_index + k),
                changed: true,
            })),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => rows.extend((0..old_len.max(new_len)).map(|k| DiffRow {
                before: (k < old_len).then(|| line(&old, old_index + k)).flatten(),
                after: (k < new_len).then(|| line(&new, new_index + k)).flatten(),
                changed: true,
            })),
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_by_side_aligns_changed_lines() {
        let rows = side_by_side("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!(rows.len(), 4);
        assert!(!rows[0].changed);
        assert_eq!(rows[1].before.as_deref(), Some("b"));
        assert_eq!(rows[1].after.as_deref(), Some("B"));
        assert!(rows[1].changed);
        assert!(!rows[2].changed);
        assert_eq!(rows[3].before, None);
        assert_eq!(rows[3].after.as_deref(), Some("d"));
    }

    #[test]
    fn an_empty_trace_has_no_findings() {
        let f = Findings::compute(&[], &crate::analysis::report(&[]));
        assert_eq!(f.marked_events(), 0);
        assert!(f.marks(0).is_empty());
        assert!(f.violations.is_empty() && f.poison.is_empty() && f.rug_pulls.is_empty());
    }

    /// On recordings appended to one file (`seq`s that start again), a violation is filed
    /// under its own event, and a finding that names its event by `seq` alone under the last
    /// event with it (a binary search over the `seq`s filed violations under another
    /// recording's event, or none).
    #[test]
    fn with_seqs_that_start_again_each_mark_is_filed_under_its_event() {
        use crate::trace::{Channel, Lane};
        // Pings answered with a result that is not an object (`bad`) or with `{}`.
        let pings = |bad: &[bool]| {
            let mut events = Vec::new();
            for (k, &bad) in bad.iter().enumerate() {
                let ping = format!(r#"{{"jsonrpc":"2.0","id":{k},"method":"ping"}}"#);
                let result = if bad { "7" } else { "{}" };
                let pong = format!(r#"{{"jsonrpc":"2.0","id":{k},"result":{result}}}"#);
                for (from, to, raw) in [
                    (Lane::Host, Lane::server("s"), ping),
                    (Lane::server("s"), Lane::Host, pong),
                ] {
                    let (seq, t) = (events.len() as u64, crate::trace::now());
                    let e = Event::with_bytes(seq, t, from, to, Channel::Stdio, raw.into());
                    events.push(e);
                }
            }
            events
        };
        let mut events = pings(&[false, true, false]);
        events.extend(pings(&[true, false]));
        events.extend(crate::analysis::fixtures::restarted_seqs());
        let report = crate::analysis::report(&events);
        let f = Findings::compute(&events, &report);
        let kinds = |i: usize| -> Vec<MarkKind> { f.marks(i).iter().map(|m| m.kind).collect() };
        let violations: Vec<usize> = f.violations.iter().map(|v| v.event).collect();
        assert!(violations.starts_with(&[3, 7]), "{violations:?}");
        for &i in &violations {
            assert!(
                kinds(i).contains(&MarkKind::Violation),
                "{i}: {:?}",
                kinds(i)
            );
        }
        let filed = (0..events.len())
            .flat_map(&kinds)
            .filter(|k| *k == MarkKind::Violation)
            .count();
        assert_eq!(filed, violations.len());
        let last = |seq: u64| events.iter().rposition(|e| e.seq == seq);
        let named = f.poison.iter().map(|p| (p.seq, MarkKind::Poison));
        let pulls = f.rug_pulls.iter().map(|r| (r.after_seq, MarkKind::RugPull));
        let d = &f.diagnosis;
        let servers = d.servers.iter().filter(|s| s.code.is_some()).map(|s| s.seq);
        let tools = d.tools.iter().filter(|t| noteworthy(t)).map(|t| t.seq);
        let doctor = servers
            .chain(tools)
            .flatten()
            .map(|seq| (seq, MarkKind::Doctor));
        let named: Vec<(u64, MarkKind)> = named.chain(pulls).chain(doctor).collect();
        for kind in [MarkKind::Poison, MarkKind::RugPull, MarkKind::Doctor] {
            assert!(named.iter().any(|n| n.1 == kind), "no {kind:?}");
        }
        for (seq, kind) in named {
            let i = last(seq).expect("the finding's event");
            assert!(kinds(i).contains(&kind), "{seq} {kind:?}: {:?}", kinds(i));
        }
    }
}
