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

pub mod check;
pub mod compare;
pub mod conformance;
pub mod diagram;
pub mod diff;
pub mod doctor;
pub mod explain;
mod links;
mod llm;
pub mod pins;
pub mod poison;
pub mod tokens;

pub use links::{CallChain, ToolOrigin, ToolView, link};
pub use llm::{LlmExchange, LlmRole, llm_exchanges};

use crate::trace::{Analysis, Event, analyze};

/// Everything derived from a trace.
#[derive(Debug, Clone)]
pub struct Report {
    pub rpc: Analysis,
    pub llm: Vec<LlmExchange>,
    pub chains: Vec<CallChain>,
    pub tools: Vec<ToolView>,
}

/// Computes the whole analysis of a trace.
pub fn report(events: &[Event]) -> Report {
    let rpc = analyze(events);
    let llm = llm_exchanges(events);
    let (chains, tools) = link(events, &rpc, &llm);
    Report {
        rpc,
        llm,
        chains,
        tools,
    }
}
