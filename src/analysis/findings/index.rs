//! Every finding filed under the event it points at, a few findings at a time: a trace with
//! thousands of violations has thousands of marks to file, too many for one frame of the
//! browser.

use std::collections::BTreeMap;

use super::{Findings, Mark, MarkKind, RugPull, noteworthy, pointer};
use crate::analysis::conformance::Violation;
use crate::analysis::doctor::Diagnosis;
use crate::analysis::poison;
use crate::trace::{Analysis, Event};

/// The findings, and their marks filed so far ([`Index::step`]).
pub(super) struct Index {
    findings: Findings,
    /// The next finding to file, counting the doctor's servers, its tools, the violations,
    /// the poisoning findings and the rug pulls in that order.
    next: usize,
}

impl Index {
    pub(super) fn new(
        diagnosis: Diagnosis,
        violations: Vec<Violation>,
        poison: Vec<poison::Finding>,
        rug_pulls: Vec<RugPull>,
    ) -> Index {
        Index {
            findings: Findings {
                diagnosis,
                violations,
                poison,
                rug_pulls,
                by_event: BTreeMap::new(),
            },
            next: 0,
        }
    }

    /// How many findings there are to file.
    fn total(&self) -> usize {
        let f = &self.findings;
        f.diagnosis.servers.len()
            + f.diagnosis.tools.len()
            + f.violations.len()
            + f.poison.len()
            + f.rug_pulls.len()
    }

    /// Files the next `count` findings (at most); true once every one is filed. `rpc` is the
    /// analysis of `events`, which finds the events the findings name by `seq`.
    pub(super) fn step(&mut self, events: &[Event], rpc: &Analysis, count: usize) -> bool {
        let end = self.next.saturating_add(count).min(self.total());
        for k in self.next..end {
            if let Some((at, kind, text, why)) = self.mark(k) {
                let event = match at {
                    At::Event(i) => Some(i),
                    // A finding names its evidence by `seq` alone: the last event with it.
                    At::Seq(seq) => seq.and_then(|seq| rpc.index_of(events, seq)),
                };
                if let Some(i) = event {
                    file(&mut self.findings.by_event, i, Mark { kind, text, why });
                }
            }
        }
        self.next = end;
        end == self.total()
    }

    /// The findings with every mark filed, once [`Self::step`] has said so.
    pub(super) fn finish(self) -> Findings {
        self.findings
    }

    /// The mark of the `k`th finding and the event it points at, if it has a mark.
    fn mark(&self, k: usize) -> Option<(At, MarkKind, String, Option<poison::Said>)> {
        let f = &self.findings;
        let mut k = k;
        if let Some(s) = f.diagnosis.servers.get(k) {
            let code = s.code?;
            let text = format!("{}: {code}", s.server);
            return Some((At::Seq(s.seq), MarkKind::Doctor, text, None));
        }
        k -= f.diagnosis.servers.len();
        if let Some(t) = f.diagnosis.tools.get(k) {
            if !noteworthy(t) {
                return None;
            }
            let server = t.server.as_deref().unwrap_or("?");
            let text = format!("{server}/{}: {}", t.tool, t.code);
            return Some((At::Seq(t.seq), MarkKind::Doctor, text, None));
        }
        k -= f.diagnosis.tools.len();
        if let Some(v) = f.violations.get(k) {
            // Names only (the pointer and the keyword); the panel says the rest.
            let text = format!("{} {}", pointer(v), v.rule);
            return Some((At::Event(v.event), MarkKind::Violation, text, None));
        }
        k -= f.violations.len();
        if let Some(p) = f.poison.get(k) {
            let tool = p.tool.as_deref().unwrap_or("instructions");
            let text = format!(
                "{}/{tool} {}: {} ({})",
                p.server,
                p.field,
                p.kind.code(),
                p.severity.as_str()
            );
            let said = Some(p.said.clone());
            return Some((At::Seq(Some(p.seq)), MarkKind::Poison, text, said));
        }
        k -= f.poison.len();
        let r = f.rug_pulls.get(k)?;
        // Names and events only: the badge says what it is in the reader's language.
        let text = format!(
            "{}/{}: #{} -> #{}",
            r.server, r.tool, r.before_seq, r.after_seq
        );
        Some((At::Seq(Some(r.after_seq)), MarkKind::RugPull, text, None))
    }
}

/// The event a finding points at: a violation knows its event, the others name it by `seq`.
enum At {
    Event(usize),
    Seq(Option<u64>),
}

/// Files `mark` under event `i`, after the marks of the event that are as serious or more (so
/// each event's marks stay most serious first, and in the order they were filed within a kind).
fn file(by_event: &mut BTreeMap<usize, Vec<Mark>>, i: usize, mark: Mark) {
    let marks = by_event.entry(i).or_default();
    let at = marks.partition_point(|m| m.kind >= mark.kind);
    marks.insert(at, mark);
}
