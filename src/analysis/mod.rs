//! Analysis across channels: what the LLM exchanges say, and how they link to MCP messages.
//!
//! [`crate::trace::analyze`] interprets each JSON-RPC message. This layer adds the host's half:
//! which tools each LLM request offered, which tool calls each response made, and the chain a
//! tool call travels: `tool_use` (llm -> host) -> `tools/call` (host -> server) -> its result
//! (server -> host) -> `tool_result` (host -> llm). It also links each entry of a request's
//! `tools` parameter to the `tools/list` entry it came from, and names the tools a server
//! listed that the model never got. Like the rest of the analysis it is computed on load.
//!
//! LLM bodies are read with [`crate::wire::convert`] and [`crate::wire::reassemble`]: the
//! same code that builds and reads them in the host, so there is one definition of each shape.

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
#[cfg(test)]
pub(crate) mod fixtures;
pub mod hosts;
mod incremental;
mod links;
mod llm;
mod lookup;
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
pub use links::{CallChain, ToolOrigin, ToolView, link};
pub use llm::{LlmExchange, LlmRole, Usage, last_loop_request, llm_exchanges};

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
