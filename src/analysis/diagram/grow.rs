//! The diagram of a trace that grows: rows for the appended events, and again for the earlier
//! rows their analysis changed ([`crate::analysis::Incremental::extend`] says which), instead
//! of laying out every row again. The result is what [`super::build`] makes of the same events.

use std::collections::HashMap;

use super::{Diagram, LaneKind, host_side, layout_row};
use crate::analysis::{LlmRole, Report};
use crate::trace::{Event, Lane};

impl Diagram {
    /// Brings the diagram of `events[..from]` up to date with all of `events` and `report`
    /// (their analysis): `dirty` are the earlier rows whose analysis may have changed.
    pub fn extend(&mut self, events: &[Event], report: &Report, from: usize, dirty: &[usize]) {
        // The API's own MCP client's lanes and arrows depend on every exchange: rare enough
        // to be laid out again.
        let remote = report
            .llm
            .iter()
            .any(|x| !x.remote_servers.is_empty() || !x.remote.is_empty());
        if remote || from > self.rows.len() || !self.lanes_hold(&events[from..]) {
            // A new lane moves the others: everything is laid out again (rare).
            *self = super::build(events, report);
            return;
        }
        let lane_index: HashMap<&Lane, usize> = self
            .lanes
            .iter()
            .enumerate()
            .map(|(i, l)| (&l.lane, i))
            .collect();
        let ctx = super::labels::Context { events, report };
        self.rows.truncate(from);
        let changed: Vec<usize> = dirty.iter().copied().chain(from..events.len()).collect();
        let mut problems = Vec::new();
        for &i in &changed {
            let (mut row, problem) = layout_row(&ctx, &lane_index, i);
            row.set_pair(pair(events, report, i));
            problems.extend(problem);
            match self.rows.get_mut(i) {
                Some(old) => *old = row,
                None => self.rows.push(row),
            }
        }
        // `changed` is sorted: the dirty rows (sorted, before `from`), then the new ones.
        let is_changed = |row: usize| changed.binary_search(&row).is_ok();
        self.problems.retain(|(row, _)| !is_changed(*row));
        self.problems.extend(problems);
        self.problems.sort_by_key(|p| p.0);

        // The chain table entries of the changed rows, from every chain holding them.
        let mut entries: HashMap<usize, Vec<usize>> = HashMap::new();
        for c in &report.chains {
            let members: Vec<usize> = c.members().filter(|&m| m < events.len()).collect();
            for &m in members.iter().filter(|&&m| is_changed(m)) {
                entries.entry(m).or_default().extend(&members);
            }
        }
        self.chains.retain(|(row, _)| !is_changed(*row));
        for (row, mut chain) in entries {
            chain.sort_unstable();
            chain.dedup();
            chain.shrink_to_fit();
            self.chains.push((row, chain));
        }
        self.chains.sort_unstable_by_key(|c| c.0);

        self.direct_model_server += events[from..]
            .iter()
            .filter(|e| super::crosses_gap(e))
            .count();
        // The host's own side is read from the exchanges, which are few beside the events.
        self.users_recorded |= super::hops::users_recorded(&events[from..]);
        let own = super::hops::hops(report, &self.lanes, self.users_recorded);
        self.hops = super::hops::merge(Vec::new(), own);
    }

    /// Whether the lanes of `more` events are already the diagram's, in the same order
    /// [`super::lanes`] would give them.
    fn lanes_hold(&self, more: &[Event]) -> bool {
        let host_lanes = self.lanes.iter().any(|l| l.kind == LaneKind::Llm);
        more.iter().all(|e| {
            (host_lanes || !host_side(e))
                && [&e.from, &e.to]
                    .into_iter()
                    .all(|l| self.lanes.iter().any(|known| &known.lane == l))
        })
    }
}

/// The row paired with row `i`: the other half of its JSON-RPC pair or its LLM exchange.
fn pair(events: &[Event], report: &Report, i: usize) -> Option<usize> {
    if let Some((n, role)) = report.llm_of(i)
        && let Some(response) = report.llm[n].response
    {
        return Some(match role {
            LlmRole::Request => response,
            LlmRole::Response => report.llm[n].request,
        });
    }
    report.rpc.paired(events, i)
}
