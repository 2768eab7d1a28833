//! `sightline diff A B`: what changed between two recordings of the same servers.
//!
//! A server author records a session before and after a change, a team records today's session
//! and compares it with last week's. What matters is what a host and its model would notice:
//! tools, prompts, resources and templates that came, went or changed (each changed field as a
//! JSON pointer, renames recognised by the definition's hash without its name, as pinning does);
//! instructions and capabilities; the `tools` the model was last sent; and each `tools/call`
//! matched by tool name and arguments whose outcome changed or whose latency moved.
//!
//! [`Change::fails`] says which changes a CI gate (`--exit-code`) should fail on: removals,
//! changed definitions, worse or changed outcomes and slowdowns; additions and improvements do
//! not. Both traces must speak one revision per server: comparing a 2025-11-25 session with a
//! 2026-07-28 one would report every message as changed, so it is refused ([`DiffError`]).

mod inventory;

use std::collections::HashMap;

use serde::Serialize;

pub use inventory::{Call, Entry, Inventory, Outcome, PRIMITIVES, Server, inventory, inventory_of};

use super::canonical::shape_hash;
use super::compare::{Difference, Ignore, compare};
use crate::i18n::Said;
use crate::wire::text::ms_tenths;

/// How two traces are compared.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    pub ignore: Ignore,
    /// A call is slower when it took this many times as long...
    pub latency_ratio: f64,
    /// ...and at least this much longer (microseconds).
    pub latency_min_us: i64,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            ignore: Ignore::defaults(),
            latency_ratio: 2.0,
            latency_min_us: 100_000,
        }
    }
}

/// Two traces that cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiffError {
    #[error(
        "server `{server}` speaks {a} in A (event #{a_seq}) but {b} in B (event #{b_seq}): diff compares recordings of one revision; replay A against the new server instead"
    )]
    Revisions {
        server: String,
        a: String,
        a_seq: u64,
        b: String,
        b_seq: u64,
    },
}

impl DiffError {
    /// The error as a sentence each language can say (`diff_text.revisions_differ`).
    pub fn said(&self) -> Said {
        match self {
            DiffError::Revisions {
                server,
                a,
                a_seq,
                b,
                b_seq,
            } => Said::new("diff_text.revisions_differ")
                .with("server", server)
                .with("a", a)
                .with("a_seq", a_seq)
                .with("b", b)
                .with("b_seq", b_seq),
        }
    }
}

/// What happened to one thing between A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
    /// The same definition under another name.
    Renamed,
    /// A call that succeeded in A fails in B (or fails differently).
    Worse,
    /// A call that failed in A succeeds in B.
    Better,
    Slower,
    Faster,
    /// A call of A with no call of the same tool and arguments in B, or the other way round.
    Unmatched,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Worse => "worse",
            ChangeKind::Better => "better",
            ChangeKind::Slower => "slower",
            ChangeKind::Faster => "faster",
            ChangeKind::Unmatched => "unmatched",
        }
    }
}

/// One change between A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The server, or `None` for what the model was sent.
    pub server: Option<String>,
    /// What changed: `tool`, `prompt`, `resource`, `resource template`, `model tool`, `call`,
    /// `server`, `capabilities`, `instructions`.
    pub subject: &'static str,
    /// The tool's name, the resource's uri, the call's tool and arguments; empty for a server.
    pub name: String,
    pub kind: ChangeKind,
    /// The event that shows it in A, and in B.
    pub a_seq: Option<u64>,
    pub b_seq: Option<u64>,
    /// For a changed definition or result: each differing pointer with both values.
    pub fields: Vec<Difference>,
    /// [`Change::said`] in English (what the JSON carries).
    pub detail: String,
    /// A sentence in each language: the rename's new name, the outcomes, the latencies.
    #[serde(skip)]
    pub said: Said,
}

impl Change {
    /// Whether `diff --exit-code` fails on this change.
    pub fn fails(&self) -> bool {
        match self.kind {
            ChangeKind::Removed
            | ChangeKind::Changed
            | ChangeKind::Renamed
            | ChangeKind::Worse
            | ChangeKind::Slower => true,
            ChangeKind::Added | ChangeKind::Better | ChangeKind::Faster | ChangeKind::Unmatched => {
                false
            }
        }
    }
}

/// Every change between two traces, server by server, then what the model was sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceDiff {
    pub changes: Vec<Change>,
    /// Calls matched by tool and arguments and compared.
    pub calls_compared: usize,
}

impl TraceDiff {
    /// The exit status of `diff --exit-code`: 1 when any change [fails](Change::fails).
    pub fn exit_status(&self) -> u8 {
        u8::from(self.changes.iter().any(Change::fails))
    }
}

/// Compares two inventories (see [`inventory`]).
pub fn diff(a: &Inventory, b: &Inventory, options: &DiffOptions) -> Result<TraceDiff, DiffError> {
    for sa in &a.servers {
        let Some(sb) = b.server(&sa.name) else {
            continue;
        };
        if let (Some(ra), Some(rb)) = (&sa.revision, &sb.revision)
            && ra != rb
        {
            return Err(DiffError::Revisions {
                server: sa.name.clone(),
                a: ra.clone(),
                a_seq: sa.handshake.unwrap_or_default(),
                b: rb.clone(),
                b_seq: sb.handshake.unwrap_or_default(),
            });
        }
    }
    let mut out = TraceDiff::default();
    for sa in &a.servers {
        match b.server(&sa.name) {
            Some(sb) => servers(sa, sb, options, &mut out),
            None => out.changes.push(Change {
                server: Some(sa.name.clone()),
                subject: "server",
                name: String::new(),
                kind: ChangeKind::Removed,
                a_seq: sa.handshake,
                b_seq: None,
                fields: Vec::new(),
                detail: Said::new("diff_text.server_gone").english(),
                said: Said::new("diff_text.server_gone"),
            }),
        }
    }
    for sb in b.servers.iter().filter(|s| a.server(&s.name).is_none()) {
        out.changes.push(Change {
            server: Some(sb.name.clone()),
            subject: "server",
            name: String::new(),
            kind: ChangeKind::Added,
            a_seq: None,
            b_seq: sb.handshake,
            fields: Vec::new(),
            detail: Said::new("diff_text.server_new").english(),
            said: Said::new("diff_text.server_new"),
        });
    }
    if let (Some((sa, ta)), Some((sb, tb))) = (&a.model_tools, &b.model_tools) {
        let ea: Vec<Entry> = entries(ta, *sa);
        let eb: Vec<Entry> = entries(tb, *sb);
        listing(None, "model tool", &ea, &eb, options, &mut out.changes);
    }
    Ok(out)
}

fn entries(tools: &[(String, serde_json::Value)], seq: u64) -> Vec<Entry> {
    tools
        .iter()
        .map(|(name, def)| Entry {
            key: name.clone(),
            definition: def.clone(),
            seq,
        })
        .collect()
}

fn servers(a: &Server, b: &Server, options: &DiffOptions, out: &mut TraceDiff) {
    let server = Some(a.name.clone());
    let change = |subject, kind, fields: Vec<Difference>| Change {
        server: server.clone(),
        subject,
        name: String::new(),
        kind,
        a_seq: a.handshake,
        b_seq: b.handshake,
        fields,
        detail: String::new(),
        said: Said::empty(),
    };
    if let (Some(ca), Some(cb)) = (&a.capabilities, &b.capabilities) {
        let fields = compare(ca, cb, &options.ignore);
        if !fields.is_empty() {
            let kind = if fields.iter().all(|f| f.old.is_none()) {
                ChangeKind::Added
            } else {
                ChangeKind::Changed
            };
            out.changes.push(change("capabilities", kind, fields));
        }
    }
    if a.instructions != b.instructions {
        let (old, new) = (a.instructions.clone(), b.instructions.clone());
        let kind = match (&old, &new) {
            (None, _) => ChangeKind::Added,
            (_, None) => ChangeKind::Removed,
            _ => ChangeKind::Changed,
        };
        let field = Difference {
            pointer: "/instructions".into(),
            old: old.map(Into::into),
            new: new.map(Into::into),
        };
        out.changes.push(change("instructions", kind, vec![field]));
    }
    for (kind, _, _, _) in PRIMITIVES {
        let none = Vec::new();
        let (la, lb) = (a.lists.get(kind), b.lists.get(kind));
        if la.is_none() && lb.is_none() {
            continue;
        }
        let (la, lb) = (la.unwrap_or(&none), lb.unwrap_or(&none));
        listing(server.clone(), kind, la, lb, options, &mut out.changes);
    }
    calls(a, b, options, out);
}

/// Added, removed, renamed and changed entries of one listing.
fn listing(
    server: Option<String>,
    subject: &'static str,
    a: &[Entry],
    b: &[Entry],
    options: &DiffOptions,
    out: &mut Vec<Change>,
) {
    let change = |name: &str, kind, a_seq, b_seq, fields, said: Said| Change {
        server: server.clone(),
        subject,
        name: name.to_string(),
        kind,
        a_seq,
        b_seq,
        fields,
        detail: said.english(),
        said,
    };
    let renames = matches!(subject, "tool" | "prompt" | "model tool");
    let removed: Vec<&Entry> = a
        .iter()
        .filter(|e| !b.iter().any(|x| x.key == e.key))
        .collect();
    let mut added: Vec<&Entry> = b
        .iter()
        .filter(|e| !a.iter().any(|x| x.key == e.key))
        .collect();
    for ea in a {
        if let Some(eb) = b.iter().find(|x| x.key == ea.key) {
            let fields = compare(&ea.definition, &eb.definition, &options.ignore);
            if !fields.is_empty() {
                let detail = fields
                    .iter()
                    .map(|f| f.pointer.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(change(
                    &ea.key,
                    ChangeKind::Changed,
                    Some(ea.seq),
                    Some(eb.seq),
                    fields,
                    Said::new("diff_outcome.changed_fields").with("fields", detail),
                ));
            }
        }
    }
    for ea in removed {
        let hash = renames.then(|| shape_hash(&ea.definition));
        let renamed = hash.and_then(|h| added.iter().position(|x| shape_hash(&x.definition) == h));
        match renamed {
            Some(at) => {
                let eb = added.remove(at);
                out.push(change(
                    &ea.key,
                    ChangeKind::Renamed,
                    Some(ea.seq),
                    Some(eb.seq),
                    Vec::new(),
                    Said::new("diff_text.renamed_to").with("name", &eb.key),
                ));
            }
            None => out.push(change(
                &ea.key,
                ChangeKind::Removed,
                Some(ea.seq),
                None,
                Vec::new(),
                Said::new("diff_text.not_in_b"),
            )),
        }
    }
    for eb in added {
        out.push(change(
            &eb.key,
            ChangeKind::Added,
            None,
            Some(eb.seq),
            Vec::new(),
            Said::new("diff_text.new_in_b"),
        ));
    }
}

/// Calls matched by tool and arguments, in order: outcome and latency compared.
fn calls(a: &Server, b: &Server, options: &DiffOptions, out: &mut TraceDiff) {
    let mut pool: HashMap<(&str, &str), Vec<&Call>> = HashMap::new();
    for call in b.calls.iter().rev() {
        pool.entry((&call.tool, &call.arguments))
            .or_default()
            .push(call);
    }
    let change = |ca: Option<&Call>, cb: Option<&Call>, kind, fields, said: Said| {
        let call = ca.or(cb).expect("one side");
        Change {
            server: Some(a.name.clone()),
            subject: "call",
            name: format!("{} {}", call.tool, call.arguments),
            kind,
            a_seq: ca.map(|c| c.seq),
            b_seq: cb.map(|c| c.seq),
            fields,
            detail: said.english(),
            said,
        }
    };
    for ca in &a.calls {
        let Some(cb) = pool
            .get_mut(&(ca.tool.as_str(), ca.arguments.as_str()))
            .and_then(Vec::pop)
        else {
            out.changes.push(change(
                Some(ca),
                None,
                ChangeKind::Unmatched,
                Vec::new(),
                Said::new("diff_text.no_call_in_b"),
            ));
            continue;
        };
        out.calls_compared += 1;
        let (oa, ob) = (&ca.outcome, &cb.outcome);
        let outcomes = Said::new("diff_outcome.outcomes")
            .with_said("a", oa.said())
            .with_said("b", ob.said());
        match (oa, ob) {
            (Outcome::Result { result: ra, .. }, Outcome::Result { result: rb, .. })
                if oa.failed() == ob.failed() =>
            {
                let fields = compare(ra, rb, &options.ignore);
                if !fields.is_empty() {
                    out.changes.push(change(
                        Some(ca),
                        Some(cb),
                        ChangeKind::Changed,
                        fields,
                        Said::new("diff_outcome.result_changed").with_said("outcomes", outcomes),
                    ));
                }
            }
            (Outcome::Error { code: x, .. }, Outcome::Error { code: y, .. }) if x == y => {}
            (Outcome::Unanswered, Outcome::Unanswered) => {}
            _ if oa.failed() && !ob.failed() => out.changes.push(change(
                Some(ca),
                Some(cb),
                ChangeKind::Better,
                Vec::new(),
                outcomes,
            )),
            _ => out.changes.push(change(
                Some(ca),
                Some(cb),
                ChangeKind::Worse,
                Vec::new(),
                outcomes,
            )),
        }
        if let (Some(la), Some(lb)) = (ca.latency_us, cb.latency_us) {
            let moved = |x: i64, y: i64| {
                y as f64 > x as f64 * options.latency_ratio && y - x >= options.latency_min_us
            };
            let detail = Said::plain(format!("{} -> {}", ms_tenths(la), ms_tenths(lb)));
            if moved(la, lb) {
                let c = change(Some(ca), Some(cb), ChangeKind::Slower, Vec::new(), detail);
                out.changes.push(c);
            } else if moved(lb, la) {
                let c = change(Some(ca), Some(cb), ChangeKind::Faster, Vec::new(), detail);
                out.changes.push(c);
            }
        }
    }
    let mut rest: Vec<&Call> = pool.into_values().flatten().collect();
    rest.sort_by_key(|c| c.seq);
    for cb in rest {
        out.changes.push(change(
            None,
            Some(cb),
            ChangeKind::Unmatched,
            Vec::new(),
            Said::new("diff_text.no_call_in_a"),
        ));
    }
}
