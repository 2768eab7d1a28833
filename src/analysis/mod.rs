//! What a loaded trace means: everything the views and reports say, computed from the events.
//!
//! [`crate::trace::analyze`] interprets each JSON-RPC message. This layer adds the host's half
//! and the judgements: which tools each LLM request offered and each answer called, the chain a
//! call travels (`tool_use` -> `tools/call` -> result -> `tool_result`), and what follows from
//! them. LLM bodies are read with [`crate::wire`], the same code that builds them in the host.
//!
//! # Layout
//!
//! Pure code over a loaded trace: no I/O and no egui, so the browser build, the exports and
//! the tests all run it alone. Grouped by what a reader asks of a trace:
//!
//! The report, computed once on load ([`report`], [`Report`]), which the views and judgements read:
//! - `llm`: the LLM exchanges, read from `llm-http` events with [`crate::wire`].
//! - `links`: each model tool call joined to its `tools/call` by the host's naming rule.
//! - `lookup`: from an event to its exchange or chain by binary search, not by a scan.
//! - `incremental`: the report of a growing trace, each append costing only its events.
//!
//! Pictures as data, drawn by the app and the exports alike:
//! - [`diagram`]: lanes, one row per event, labels; the app, SVG and Mermaid draw this one.
//! - [`narration`]: teaching mode's sentence or two on what an event means.
//! - [`explain`]: what each MCP method is, in the specification's terms.
//! - [`sees`]: what the model sees, grouped as a real host builds it, with token costs.
//! - [`tokens`]: what each tool costs in tokens, as the model got it.
//! - [`stats`]: counts, errors and latency percentiles, the same in `stats` and the app.
//!
//! Judgements, each citing the event that proves it:
//! - [`doctor`]: why a tool is, or is not, visible to the model.
//! - [`hosts`]: the real hosts' rules as data (`assets/hosts/`), which the doctor applies.
//! - [`conformance`]: every message against the MCP JSON Schema of its revision.
//! - [`definitions`]: each server's tools and instructions, with the hashes pins compare.
//! - [`pins`]: whether an approved tool's definition changed since (rug pulls).
//! - [`poison`]: text addressed to the model, or hidden from the person.
//! - [`chars`]: what does not show, how it is written out, which letters pass for Latin.
//! - [`trace_context`]: a `traceparent` in `_meta` that is not valid W3C.
//! - [`trace_error`]: why a file would not open, in each language (`trace` has English).
//! - [`findings`]: the doctor, schemas, poisoning and pins run once, filed by event.
//!
//! Two traces, or a trace and a live run:
//! - [`diff`]: what changed between two recordings of the same servers.
//! - [`align`]: two traces lined up step by step, for diagrams side by side.
//! - [`revisions`]: what changes between two protocol revisions of one scenario.
//! - [`replay`]: a replay's answers against its recording.
//! - [`divergence`]: where a re-run model loop left its recording.
//! - [`mock`]: a recorded server's answers, matched to a live client's requests.
//! - [`compare`]: two JSON values member by member, past what always varies.
//! - [`canonical`]: one spelling of a JSON value, so a definition hashes the same.
//!
//! For CI and queries:
//! - [`check`]: a saved trace as a CI gate.
//! - [`filter`]: the display-filter language of the command line and the app.

pub mod align;
pub mod canonical;
pub mod chars;
pub mod check;
pub mod compare;
pub mod conformance;
pub mod definitions;
pub mod diagram;
pub mod diff;
pub mod divergence;
pub mod doctor;
pub mod explain;
pub mod filter;
pub mod findings;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod hosts;
mod incremental;
mod links;
mod llm;
mod lookup;
pub mod mock;
pub mod narration;
pub mod pins;
pub mod poison;
pub mod replay;
pub mod revisions;
pub mod sees;
pub mod stats;
pub mod tokens;
pub mod trace_context;
pub mod trace_error;

pub use incremental::Incremental;
pub use links::remote::{RemoteChain, remote_chains, remote_chains_of};
pub use links::{CallChain, ToolOrigin, ToolView, link};
pub use llm::{LlmExchange, LlmRole, Usage, last_loop_request, llm_counts, llm_exchanges};

use crate::trace::{Analysis, Event, analyze};

/// Everything derived from a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub rpc: Analysis,
    /// The agent loop's exchanges with the model, in order.
    pub llm: Vec<LlmExchange>,
    /// The exchanges the host had with the model on behalf of a server's sampling request:
    /// the server asked the client's model, so they are not turns of the loop.
    pub sampling: Vec<LlmExchange>,
    pub chains: Vec<CallChain>,
    pub tools: Vec<ToolView>,
    /// Event -> exchange and event -> chain lookups (see the methods below).
    lookup: lookup::Lookup,
}

/// Computes the whole analysis of a trace.
pub fn report(events: &[Event]) -> Report {
    // The JSON-RPC half and the LLM half read different events: two threads where there are.
    let (rpc, exchanges) = crate::trace::halves::join(|| analyze(events), || llm_exchanges(events));
    let (sampling, llm): (Vec<_>, Vec<_>) = exchanges
        .into_iter()
        .partition(|x| x.sampling_for.is_some());
    let (chains, tools) = link(events, &rpc, &llm);
    let lookup = lookup::Lookup::new(&llm, &sampling, &chains);
    Report {
        rpc,
        llm,
        sampling,
        chains,
        tools,
        lookup,
    }
}

impl Report {
    /// The JSON-RPC half of [`report`] alone (`llm`, `sampling`, `chains` and `tools` empty),
    /// for a reader that uses nothing of the model's half: `check` without the rules that read
    /// it ([`check::CheckOptions::reads_model`]) skips reading every LLM body.
    pub fn mcp_only(events: &[Event]) -> Report {
        Report {
            rpc: analyze(events),
            llm: Vec::new(),
            sampling: Vec::new(),
            chains: Vec::new(),
            tools: Vec::new(),
            lookup: lookup::Lookup::new(&[], &[], &[]),
        }
    }

    /// The LLM exchange event `i` is the request or the response of (its index in `llm`).
    pub fn llm_of(&self, i: usize) -> Option<(usize, LlmRole)> {
        self.lookup.llm(i)
    }

    /// The LLM exchange whose request is event `i`.
    pub fn llm_request(&self, i: usize) -> Option<(usize, &LlmExchange)> {
        match self.llm_of(i)? {
            (n, LlmRole::Request) => Some((n, &self.llm[n])),
            _ => None,
        }
    }

    /// The LLM exchange whose response is event `i`.
    pub fn llm_response(&self, i: usize) -> Option<&LlmExchange> {
        match self.llm_of(i)? {
            (n, LlmRole::Response) => Some(&self.llm[n]),
            _ => None,
        }
    }

    /// The (first) exchange made for a server's sampling request that event `i` is the
    /// request or the response of.
    pub fn sampling_of(&self, i: usize) -> Option<&LlmExchange> {
        self.lookup.sampling(i).map(|n| &self.sampling[n])
    }

    /// Each list and call of an LLM API's own MCP client, joined to the `tools/list` and
    /// `tools/call` the trace recorded of it ([`remote_chains`]).
    pub fn remote_chains(&self, events: &[Event]) -> Vec<RemoteChain> {
        remote_chains(events, &self.rpc, &self.llm)
    }

    /// [`Report::remote_chains`] of exchange `n` of `llm` alone.
    pub fn remote_chains_of(&self, events: &[Event], n: usize) -> Vec<RemoteChain> {
        remote_chains_of(events, &self.rpc, &self.llm, n)
    }

    /// The (first) model call whose `tools/call` is event `i`.
    pub fn chain_of_call(&self, i: usize) -> Option<&CallChain> {
        self.lookup.chain_of_call(i).map(|k| &self.chains[k])
    }

    /// The chain of model call `call_id` asked for by the LLM response at event `i`.
    pub fn chain_asked(&self, i: usize, call_id: &str) -> Option<&CallChain> {
        self.chains[self.lookup.asked_in(i)]
            .iter()
            .find(|c| c.call_id == call_id)
    }
}
