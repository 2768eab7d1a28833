//! What changed: a tool's definition within one trace (rug pull, rename, added, removed) or
//! since it was pinned, with the fields that differ and a diff of the definitions.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::analysis::canonical::canonical_json;
use crate::analysis::definitions::{ToolDef, ToolList};
use crate::i18n::{Language, Words};
use crate::trace::Lane;

/// How one field differs between two definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

/// One field that differs, as a dotted path (`description`, `inputSchema.properties.notes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    pub path: String,
    pub change: Change,
}

impl FieldChange {
    /// The change in the language of `w`: the path, and whether it was added or removed.
    pub fn said_in(&self, w: Words) -> String {
        match self.change {
            Change::Changed => self.path.clone(),
            Change::Added => w.fmt("pins_text.field_added", &[("path", &self.path)]),
            Change::Removed => w.fmt("pins_text.field_removed", &[("path", &self.path)]),
        }
    }
}

impl fmt::Display for FieldChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.change {
            Change::Changed => f.write_str(&self.path),
            Change::Added => write!(f, "{} (added)", self.path),
            Change::Removed => write!(f, "{} (removed)", self.path),
        }
    }
}

/// The fields that differ between two definitions. Objects are compared member by member;
/// arrays and scalars as a whole (by canonical value, so `1` and `1.0` are equal).
pub fn changed_fields(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    compare_fields(&mut Vec::new(), before, after, &mut out);
    out
}

fn compare_fields(path: &mut Vec<String>, a: &Value, b: &Value, out: &mut Vec<FieldChange>) {
    let here = |path: &[String]| {
        if path.is_empty() {
            "(whole definition)".to_string()
        } else {
            path.join(".")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push(key.clone());
                match (x.get(key), y.get(key)) {
                    (Some(a), Some(b)) => compare_fields(path, a, b, out),
                    (Some(_), None) => out.push(FieldChange {
                        path: here(path),
                        change: Change::Removed,
                    }),
                    (None, Some(_)) => out.push(FieldChange {
                        path: here(path),
                        change: Change::Added,
                    }),
                    (None, None) => {}
                }
                path.pop();
            }
        }
        _ => {
            if canonical_json(a) != canonical_json(b) {
                out.push(FieldChange {
                    path: here(path),
                    change: Change::Changed,
                });
            }
        }
    }
}

/// A unified line diff of two pretty-printed canonical definitions.
pub fn definition_diff(before: &str, after: &str, before_label: &str, after_label: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(before_label, after_label)
        .to_string()
}

pub(super) fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// A definition of a `tools/list` result, as a diff's header names it.
pub(super) fn listed_label(w: Words, tool: &str, seq: u64, sha: &str) -> String {
    let seq = seq.to_string();
    let args = [("tool", tool), ("seq", seq.as_str()), ("sha", short(sha))];
    w.fmt("pins_cli.label_listed", &args)
}

/// A pinned definition, as a diff's header names it.
pub(super) fn pinned_label(w: Words, tool: &str, pinned_at: &str, sha: &str) -> String {
    let args = [("tool", tool), ("at", pinned_at), ("sha", short(sha))];
    w.fmt("pins_cli.label_pinned", &args)
}

/// `diff` with its two header lines (`--- `, `+++ `) naming `before` and `after`.
fn relabel(diff: &str, before: &str, after: &str) -> String {
    let mut out = String::with_capacity(diff.len());
    for (i, line) in diff.split_inclusive('\n').enumerate() {
        match (i, line.strip_prefix("--- "), line.strip_prefix("+++ ")) {
            (0, Some(_), _) => out.push_str(&format!("--- {before}\n")),
            (1, _, Some(_)) => out.push_str(&format!("+++ {after}\n")),
            _ => out.push_str(line),
        }
    }
    out
}

/// What pinning found. `server` is the server's `serverInfo.name` (its lane name when the
/// trace has no handshake).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// Within the trace: a tool kept its name but its definition changed between two
    /// `tools/list` results.
    RugPull {
        server: String,
        tool: String,
        /// `seq` of the earlier `tools/list` result.
        before_seq: u64,
        /// `seq` of the later `tools/list` result.
        after_seq: u64,
        before_sha256: String,
        after_sha256: String,
        changed: Vec<FieldChange>,
        /// Unified diff of the pretty-printed canonical definitions.
        diff: String,
    },
    /// Within the trace: the same definition (all but `name`) came back under another name.
    Renamed {
        server: String,
        from: String,
        to: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Within the trace: a tool that was not in the previous listing.
    Added {
        server: String,
        tool: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Within the trace: a tool of the previous listing that is gone.
    Removed {
        server: String,
        tool: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Against the pin file: the definition differs from the pinned one (a rug pull across
    /// sessions).
    PinChanged {
        server: String,
        tool: String,
        /// `seq` of the `tools/list` result with the new definition.
        seq: u64,
        pinned_at: String,
        pinned_sha256: String,
        sha256: String,
        changed: Vec<FieldChange>,
        diff: String,
    },
    /// Against the pin file: a pinned definition listed under a new name.
    PinRenamed {
        server: String,
        pinned: String,
        tool: String,
        seq: u64,
        pinned_at: String,
    },
    /// Against the pin file: the server has pins, but none for this tool.
    NotPinned {
        server: String,
        tool: String,
        seq: u64,
    },
    /// Against the pin file: the server has no pins at all.
    ServerNotPinned { server: String, seq: u64 },
}

impl Finding {
    /// A changed definition, within the trace or against the pin file.
    pub fn is_rug_pull(&self) -> bool {
        matches!(self, Finding::RugPull { .. } | Finding::PinChanged { .. })
    }

    /// `seq` of the `tools/list` result the finding is about (the later one for comparisons).
    pub fn seq(&self) -> u64 {
        match self {
            Finding::RugPull { after_seq, .. }
            | Finding::Renamed { after_seq, .. }
            | Finding::Added { after_seq, .. }
            | Finding::Removed { after_seq, .. } => *after_seq,
            Finding::PinChanged { seq, .. }
            | Finding::PinRenamed { seq, .. }
            | Finding::NotPinned { seq, .. }
            | Finding::ServerNotPinned { seq, .. } => *seq,
        }
    }

    /// The finding on one line (the diff, when there is one, is in [`Finding::diff`]).
    pub fn headline(&self) -> String {
        self.headline_in(Words::of(Language::En))
    }

    /// [`Finding::headline`] in the language of `w` (`pins_text.*`).
    pub fn headline_in(&self, w: Words) -> String {
        let fields = |changed: &[FieldChange]| {
            changed
                .iter()
                .map(|c| c.said_in(w))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let n = |x: &u64| x.to_string();
        match self {
            Finding::RugPull {
                server,
                tool,
                before_seq,
                after_seq,
                changed,
                ..
            } => w.fmt(
                "pins_text.rug_pull",
                &[
                    ("server", server),
                    ("tool", tool),
                    ("before", &n(before_seq)),
                    ("after", &n(after_seq)),
                    ("fields", &fields(changed)),
                ],
            ),
            Finding::Renamed {
                server,
                from,
                to,
                before_seq,
                after_seq,
            } => w.fmt(
                "pins_text.renamed",
                &[
                    ("server", server),
                    ("from", from),
                    ("to", to),
                    ("before", &n(before_seq)),
                    ("after", &n(after_seq)),
                ],
            ),
            Finding::Added {
                server,
                tool,
                before_seq,
                after_seq,
            } => w.fmt(
                "pins_text.added",
                &[
                    ("server", server),
                    ("tool", tool),
                    ("before", &n(before_seq)),
                    ("after", &n(after_seq)),
                ],
            ),
            Finding::Removed {
                server,
                tool,
                before_seq,
                after_seq,
            } => w.fmt(
                "pins_text.removed",
                &[
                    ("server", server),
                    ("tool", tool),
                    ("before", &n(before_seq)),
                    ("after", &n(after_seq)),
                ],
            ),
            Finding::PinChanged {
                server,
                tool,
                seq,
                pinned_at,
                pinned_sha256,
                sha256,
                changed,
                ..
            } => w.fmt(
                "pins_text.pin_changed",
                &[
                    ("server", server),
                    ("tool", tool),
                    ("pinned_at", &pinned_at.to_string()),
                    ("old", short(pinned_sha256)),
                    ("new", short(sha256)),
                    ("seq", &n(seq)),
                    ("fields", &fields(changed)),
                ],
            ),
            Finding::PinRenamed {
                server,
                pinned,
                tool,
                seq,
                pinned_at,
            } => w.fmt(
                "pins_text.pin_renamed",
                &[
                    ("server", server),
                    ("pinned", pinned),
                    ("pinned_at", &pinned_at.to_string()),
                    ("tool", tool),
                    ("seq", &n(seq)),
                ],
            ),
            Finding::NotPinned { server, tool, seq } => w.fmt(
                "pins_text.not_pinned",
                &[("server", server), ("tool", tool), ("seq", &n(seq))],
            ),
            Finding::ServerNotPinned { server, seq } => w.fmt(
                "pins_text.server_not_pinned",
                &[("server", server), ("seq", &n(seq))],
            ),
        }
    }

    /// The line diff of a changed definition.
    pub fn diff(&self) -> Option<&str> {
        match self {
            Finding::RugPull { diff, .. } | Finding::PinChanged { diff, .. } => Some(diff),
            _ => None,
        }
    }

    /// [`Finding::diff`] with its header in the language of `w`.
    pub fn diff_in(&self, w: Words) -> Option<String> {
        let (diff, before, after) = match self {
            Finding::RugPull {
                tool,
                before_seq,
                after_seq,
                before_sha256,
                after_sha256,
                diff,
                ..
            } => (
                diff,
                listed_label(w, tool, *before_seq, before_sha256),
                listed_label(w, tool, *after_seq, after_sha256),
            ),
            Finding::PinChanged {
                tool,
                seq,
                pinned_at,
                pinned_sha256,
                sha256,
                diff,
                ..
            } => (
                diff,
                pinned_label(w, tool, pinned_at, pinned_sha256),
                listed_label(w, tool, *seq, sha256),
            ),
            _ => return None,
        };
        Some(relabel(diff, &before, &after))
    }
}

/// Compares every listing of each server with the previous listing of the same server (same
/// lane), in trace order. A listing whose pagination did not finish only yields rug pulls
/// (a missing tool may be on a page that never came).
pub fn compare_lists(lists: &[ToolList]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut comparer = Comparer::default();
    while !comparer.step(lists, usize::MAX, &mut out) {}
    out
}

/// [`compare_lists`] a few lists at a time, for a caller that must not stop for all of them
/// (the browser): [`Comparer::step`] until it says the last list is compared. The findings,
/// added to `out` step by step, are [`compare_lists`]'s in the same order.
#[derive(Debug, Default)]
pub struct Comparer {
    /// The next list to compare with its lane's previous one.
    next: usize,
    /// The latest list of each lane so far.
    previous: HashMap<Lane, usize>,
}

impl Comparer {
    /// Compares the next `count` lists (at most) with their lanes' previous ones, adding what
    /// changed to `out`; true once every list is compared.
    pub fn step(&mut self, lists: &[ToolList], count: usize, out: &mut Vec<Finding>) -> bool {
        let end = self.next.saturating_add(count).min(lists.len());
        for (at, list) in lists.iter().enumerate().take(end).skip(self.next) {
            if let Some(before) = self.previous.get(&list.lane).and_then(|&b| lists.get(b)) {
                compare_two(before, list, out);
            }
            self.previous.insert(list.lane.clone(), at);
        }
        self.next = end;
        end == lists.len()
    }
}

fn compare_two(before: &ToolList, after: &ToolList, out: &mut Vec<Finding>) {
    let server = after.server.name.clone();
    for tool in &after.tools {
        let Some(old) = before.tool(&tool.name) else {
            continue;
        };
        if old.sha256 == tool.sha256 {
            continue;
        }
        let label = |t: &ToolDef| listed_label(Words::of(Language::En), &t.name, t.seq, &t.sha256);
        out.push(Finding::RugPull {
            server: server.clone(),
            tool: tool.name.clone(),
            before_seq: old.seq,
            after_seq: tool.seq,
            before_sha256: old.sha256.clone(),
            after_sha256: tool.sha256.clone(),
            changed: changed_fields(&old.definition, &tool.definition),
            diff: definition_diff(&old.pretty(), &tool.pretty(), &label(old), &label(tool)),
        });
    }
    if !(before.complete && after.complete) {
        return;
    }
    let mut removed: Vec<&ToolDef> = before
        .tools
        .iter()
        .filter(|t| after.tool(&t.name).is_none())
        .collect();
    let added: Vec<&ToolDef> = after
        .tools
        .iter()
        .filter(|t| before.tool(&t.name).is_none())
        .collect();
    for tool in added {
        let shape = tool.shape_sha256();
        if let Some(pos) = removed.iter().position(|r| r.shape_sha256() == shape) {
            let old = removed.remove(pos);
            out.push(Finding::Renamed {
                server: server.clone(),
                from: old.name.clone(),
                to: tool.name.clone(),
                before_seq: old.seq,
                after_seq: tool.seq,
            });
        } else {
            out.push(Finding::Added {
                server: server.clone(),
                tool: tool.name.clone(),
                before_seq: before.seq,
                after_seq: tool.seq,
            });
        }
    }
    for old in removed {
        out.push(Finding::Removed {
            server: server.clone(),
            tool: old.name.clone(),
            before_seq: old.seq,
            after_seq: after.seq,
        });
    }
}
