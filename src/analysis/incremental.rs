//! The analysis of a trace that grows (a followed session, a live run): events appended to it
//! are interpreted on their own, and what they change of the earlier ones is updated, so an
//! append of a hundred events costs a hundred events' work instead of a whole trace's.
//!
//! What later events change of earlier ones: a request's pairing (its answer, cancellation or
//! its server's exit: [`crate::trace::Analyzer`]), an LLM exchange's response, the call chains
//! of the last turns (the `tools/call`s the host sends after the model asked, their answers,
//! the request returning a result), and nothing else: the tool view of a request depends on
//! the lists before it only. After every [`Incremental::extend`] the report equals
//! [`super::report`] of the same events (the tests check it on the real recordings, cut at
//! every event), and the rows whose diagram row may differ are returned.

use super::links::{self, Catalog, Listed};
use super::llm::LlmPairs;
use super::lookup::Lookup;
use super::{CallChain, Report};
use crate::trace::{Analysis, Analyzer, Event, Pairing};

/// Batches with at least this many events read their LLM half on a second thread.
const PARALLEL_FROM: usize = 20_000;

/// What the analysis of a growing trace keeps between appends.
#[derive(Default)]
pub struct Incremental {
    rpc: Analyzer,
    pairs: LlmPairs,
    /// For each exchange of `report.llm`: the index of its first chain in `report.chains`.
    chain_start: Vec<usize>,
    /// Chains that a later event may still complete (no `tools_result` for their
    /// `tools_call`, or no `returned_in`).
    incomplete: Vec<usize>,
    /// The servers' latest tool lists, as of the last exchange's request.
    catalog: Catalog,
    /// Tool lists answered after the last exchange's request, in the order they arrived.
    lists: std::collections::VecDeque<Listed>,
    /// How many events have been analysed.
    seen: usize,
    /// The tool names of the `tools/list` answers read so far, by their text.
    names: links::Names,
}

fn is_incomplete(c: &CallChain) -> bool {
    c.returned_in.is_none() || (c.tools_call.is_some() && c.tools_result.is_none())
}

impl Incremental {
    /// The analysis of `events` and the state to extend it with.
    pub fn start(events: &[Event]) -> (Incremental, Report) {
        let mut incremental = Incremental::default();
        let mut report = Report {
            rpc: Analysis::default(),
            llm: Vec::new(),
            sampling: Vec::new(),
            chains: Vec::new(),
            tools: Vec::new(),
            lookup: Lookup::default(),
        };
        incremental.extend(events, &mut report);
        (incremental, report)
    }

    /// Analyses the events appended to `events` since the last call into `report` (made by
    /// [`Incremental::start`] and earlier calls). Returns the earlier events whose diagram row
    /// may have changed, sorted.
    pub fn extend(&mut self, events: &[Event], report: &mut Report) -> Vec<usize> {
        let from = self.seen;
        if events.len() <= from {
            return Vec::new();
        }
        let llm_before = report.llm.len();
        let Report {
            rpc,
            llm,
            sampling,
            chains,
            tools,
            lookup,
        } = report;
        let (rpc_analyzer, pairs) = (&mut self.rpc, &mut self.pairs);
        let mut read_llm = || {
            let mut changed = Vec::new();
            for (i, e) in events.iter().enumerate().skip(from) {
                changed.extend(pairs.read(i, e, llm, sampling));
            }
            changed
        };
        let (touched, changed) = if events.len() - from >= PARALLEL_FROM {
            crate::trace::halves::join(|| rpc_analyzer.extend(events, rpc), read_llm)
        } else {
            (rpc_analyzer.extend(events, rpc), read_llm())
        };
        let mut dirty = touched;
        let mut first_changed = llm_before.saturating_sub(1);
        for &(is_sampling, n) in &changed {
            let x = if is_sampling { &sampling[n] } else { &llm[n] };
            // An exchange opened earlier and answered now: its request row changes.
            if x.request < from {
                dirty.push(x.request);
                if !is_sampling {
                    first_changed = first_changed.min(n);
                }
            }
        }

        // The chains of the exchanges from `first_changed` on are made again: the last turn's
        // calls may have been sent since, an earlier turn's response may have arrived.
        let n0 = first_changed.min(llm_before);
        self.chain_start.truncate(n0);
        let keep = self.chain_start.last().map_or(0, |&s| s);
        let keep = match n0 {
            0 => 0,
            _ => {
                // Exchange n0-1's chains end where exchange n0's began.
                let n = n0 - 1;
                keep + chains[keep..]
                    .iter()
                    .take_while(|c| Some(c.asked_in) == llm[n].response)
                    .count()
            }
        };
        for c in chains.drain(keep..) {
            dirty.extend(c.members());
        }
        let later = &llm[n0..];
        let returns = links::returns(later);
        for n in 0..later.len() {
            self.chain_start.push(chains.len());
            let made = links::chains_of(events, rpc, later, n, &returns);
            for c in &made {
                dirty.extend(c.members());
            }
            chains.extend(made);
        }
        // Earlier chains still waiting for an answer or a returned result.
        let mut incomplete = Vec::new();
        for &k in self.incomplete.iter().filter(|&&k| k < keep) {
            let c = &mut chains[k];
            let before = c.clone();
            if let (Some(call), None) = (c.tools_call, c.tools_result) {
                c.tools_result = links::answer(events, rpc, call);
            }
            if c.returned_in.is_none() {
                c.returned_in = returns
                    .get(c.call_id.as_str())
                    .and_then(|at| at.first())
                    .map(|&m| later[m].request);
            }
            if *c != before {
                dirty.extend(before.members().chain(c.members()));
            }
            if is_incomplete(c) {
                incomplete.push(k);
            }
        }
        incomplete.extend((keep..chains.len()).filter(|&k| is_incomplete(&chains[k])));
        self.incomplete = incomplete;

        // Tool lists answered now, then the views of the new exchanges.
        for r in from..events.len() {
            if let Pairing::Answers(seq) = rpc.derived[r].pairing
                && let Some(i) = rpc.earlier(events, seq, r)
                && let Some(list) = links::tools_list(events, rpc, &mut self.names, i)
            {
                self.lists.push_back(list);
            }
        }
        for x in &llm[llm_before..] {
            while self.lists.front().is_some_and(|(r, _, _)| *r < x.request) {
                if let Some(list) = self.lists.pop_front() {
                    self.catalog.absorb(list);
                }
            }
            tools.push(self.catalog.view(x));
        }
        *lookup = Lookup::new(llm, sampling, chains);
        self.seen = events.len();
        dirty.retain(|&i| i < from);
        dirty.sort_unstable();
        dirty.dedup();
        dirty
    }
}

#[cfg(test)]
mod tests;
