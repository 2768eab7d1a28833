//! Links between the LLM half and the MCP half of a trace.
//!
//! - A **call chain** follows one model tool call: the response that asked for it, the
//!   `tools/call` the host sent (same tool, same arguments), the server's answer, and the next
//!   LLM request that returned a result under the same call id.
//! - A **tool view** says, for one LLM request, where each entry of its `tools` parameter came
//!   from (which server's `tools/list`, under which MCP name) and which listed tools it lacks.
//! - A **remote chain** ([`remote`]) follows one call of an LLM API that is itself the MCP
//!   client: the answer holding it, and the `tools/list` and `tools/call` the server recorded.

pub mod remote;

use std::collections::HashMap;

use serde_json::Value;

use super::conformance::Repeats;
use super::llm::LlmExchange;
use crate::trace::{Analysis, Channel, Event, Kind as RpcKind, Lane, Pairing};
use crate::wire::offered::naming::{self, Rule};
use crate::wire::offered::{Delivery, Kind};

/// One model tool call, followed through the host.
#[derive(Debug, Clone, PartialEq)]
pub struct CallChain {
    /// `tool_use.id`, `call_id` or `tool_calls[].id`.
    pub call_id: String,
    /// The name the model used.
    pub tool: String,
    /// Index of the LLM response that asked for the call.
    pub asked_in: usize,
    /// Index of the host's `tools/call` request.
    pub tools_call: Option<usize>,
    /// Index of the server's answer to it.
    pub tools_result: Option<usize>,
    /// Index of the LLM request that returned the result to the model.
    pub returned_in: Option<usize>,
}

impl CallChain {
    /// The events of the chain, in its order: asked, called, answered, returned.
    pub fn members(&self) -> impl Iterator<Item = usize> + use<> {
        [
            Some(self.asked_in),
            self.tools_call,
            self.tools_result,
            self.returned_in,
        ]
        .into_iter()
        .flatten()
    }
}

/// Where one tool a request offers came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOrigin {
    /// The name the model calls it by (inside `namespace` when it has one).
    pub api_name: String,
    pub server: Option<String>,
    /// The tool's name in its server's `tools/list` (differs when the host renamed it).
    pub mcp_name: Option<String>,
    /// Index of the `tools/list` result it came from.
    pub listed_in: Option<usize>,
    /// Its entry in the request's `tools` (`None`: named only in prompt text).
    pub entry: Option<usize>,
    pub namespace: Option<String>,
    /// Whose tool it is, as the request shows it ([`Kind::Plain`] joined to a `tools/list`
    /// reads as [`Kind::Mcp`]).
    pub kind: Kind,
    pub delivery: Delivery,
    /// The host's naming rule that ties it to the server's tool.
    pub rule: Option<Rule>,
    /// Index of the first request whose conversation shows a search loaded it (a
    /// `tool_reference`), for a deferred tool.
    pub loaded_in: Option<usize>,
}

/// What one LLM request showed the model, against what the servers listed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolView {
    /// Index of the LLM request.
    pub request: usize,
    /// Every tool the request offers, in [`crate::wire::offered::Offered::tools`]' order.
    pub sent: Vec<ToolOrigin>,
    /// Tools the servers listed (latest list before the request) that the request lacks:
    /// server, MCP name, index of the `tools/list` result.
    pub not_sent: Vec<(String, String, usize)>,
}

fn json(e: &Event) -> Option<Value> {
    serde_json::from_str(&e.text()).ok()
}

/// The index of the answer to request `i`, if it has one.
pub(super) fn answer(events: &[Event], rpc: &Analysis, i: usize) -> Option<usize> {
    match rpc.derived[i].pairing {
        Pairing::AnsweredBy(seq) => rpc.later(events, seq, i),
        _ => None,
    }
}

/// Builds the call chains and tool views of a trace.
pub fn link(
    events: &[Event],
    rpc: &Analysis,
    llm: &[LlmExchange],
) -> (Vec<CallChain>, Vec<ToolView>) {
    let chains = chains(events, rpc, llm);

    // Every tools/list result, read once, in the order the results arrived. Only the lists
    // before the last LLM request can matter (none without LLM exchanges).
    let last_request = llm.iter().map(|x| x.request).max();
    let mut names = Names::default();
    let mut lists: Vec<Listed> = (0..last_request.unwrap_or(0))
        .filter_map(|i| tools_list(events, rpc, &mut names, i))
        .collect();
    lists.sort_by_key(|(r, _, _)| *r);

    let mut catalog = Catalog::default();
    let mut next_list = 0;
    let mut views = Vec::with_capacity(llm.len());
    for x in llm {
        while let Some(list) = lists.get(next_list).filter(|(r, _, _)| *r < x.request) {
            catalog.absorb(list.clone());
            next_list += 1;
        }
        views.push(catalog.view(x));
    }
    (chains, views)
}

/// Which exchanges (indices into `llm`) return each call id, in order (for `returned_in`).
pub(super) fn returns(llm: &[LlmExchange]) -> HashMap<&str, Vec<usize>> {
    let mut returns: HashMap<&str, Vec<usize>> = HashMap::new();
    for (n, x) in llm.iter().enumerate() {
        for id in &x.tool_results {
            let at = returns.entry(id.as_str()).or_default();
            if at.last() != Some(&n) {
                at.push(n);
            }
        }
    }
    returns
}

/// The call chains of the exchanges `llm` (consecutive exchanges of the trace, up to its last).
pub(super) fn chains(events: &[Event], rpc: &Analysis, llm: &[LlmExchange]) -> Vec<CallChain> {
    let returns = returns(llm);
    let mut chains = Vec::new();
    for n in 0..llm.len() {
        chains.extend(chains_of(events, rpc, llm, n, &returns));
    }
    chains
}

/// The call chains of exchange `n` of `llm` (see [`chains`]); `returns` is [`returns`] of `llm`.
pub(super) fn chains_of(
    events: &[Event],
    rpc: &Analysis,
    llm: &[LlmExchange],
    n: usize,
    returns: &HashMap<&str, Vec<usize>>,
) -> Vec<CallChain> {
    let x = &llm[n];
    let Some(asked_in) = x.response else {
        return Vec::new();
    };
    let is_tools_call = |i: usize| {
        let e = &events[i];
        e.channel == Channel::Stdio
            && e.from == Lane::Host
            && rpc.derived[i].kind == RpcKind::Request
            && rpc.derived[i].method.as_deref() == Some("tools/call")
    };
    // The host sends a turn's calls before its next LLM request: look no further. Nor can it
    // send them before the request that asked the model, but it may before the response is
    // recorded: a host runs a streamed `tool_use` as soon as the block ends, while a proxy
    // records the response when its stream ends (Claude Code through `llm-proxy`). Each
    // `tools/call` of the turn is read once: (index, tool name, params, used).
    let until = llm.get(n + 1).map_or(events.len(), |next| next.request);
    let mut sent: Vec<(usize, &str, String, Value, bool)> = if x.tool_calls.is_empty() {
        Vec::new()
    } else {
        (x.request + 1..until)
            .filter(|&i| is_tools_call(i))
            .map(|i| {
                let params = json(&events[i])
                    .and_then(|mut v| v.get_mut("params").map(Value::take))
                    .unwrap_or(Value::Null);
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let server = events[i].to.server_name().unwrap_or_default();
                (i, server, name, params, false)
            })
            .collect()
    };
    let mut chains = Vec::with_capacity(x.tool_calls.len());
    for (call_id, tool, args) in &x.tool_calls {
        // The namespace the call was made in (Codex's `mcp__weather`), by the call's id.
        let namespace = x
            .calls
            .iter()
            .find(|c| c.id == *call_id && c.name == *tool)
            .and_then(|c| c.namespace.as_deref());
        let found = sent.iter_mut().find(|(_, server, name, params, used)| {
            if *used {
                return false;
            }
            // By the host's naming rule; a prefix no rule knows (a plugin's) still ends in
            // `__tool`.
            let same_tool = naming::rule(tool, namespace, server, name).is_some()
                || (namespace.is_none() && tool.ends_with(&format!("__{name}")));
            let same_args = args
                .as_ref()
                .is_none_or(|a| params.get("arguments").unwrap_or(&Value::Null) == a);
            same_tool && same_args
        });
        let tools_call = found.map(|(i, _, _, _, used)| {
            *used = true;
            *i
        });
        let returned_in = returns
            .get(call_id.as_str())
            .and_then(|at| at.get(at.partition_point(|&m| m <= n)))
            .map(|&m| llm[m].request);
        chains.push(CallChain {
            call_id: call_id.clone(),
            tool: tool.clone(),
            asked_in,
            tools_call,
            tools_result: tools_call.and_then(|i| answer(events, rpc, i)),
            returned_in,
        });
    }
    chains
}

/// A server's `tools/list` result: its index, the server, the names of the tools listed.
pub(super) type Listed = (usize, String, Vec<String>);

/// The names of the tools a `tools/list` answer lists, by its text: a trace repeats the same
/// answer run after run, and each distinct one is parsed once.
pub(super) type Names = Repeats<Vec<String>>;

/// What request `i` listed, when it is an answered `tools/list` the host sent a server (one
/// an LLM API's own MCP client sent is not the host's catalog: [`crate::analysis::remote`]).
pub(super) fn tools_list(
    events: &[Event],
    rpc: &Analysis,
    names: &mut Names,
    i: usize,
) -> Option<Listed> {
    let d = &rpc.derived[i];
    if d.kind != RpcKind::Request
        || d.method.as_deref() != Some("tools/list")
        || events[i].from == Lane::Llm
    {
        return None;
    }
    let (Some(server), Some(r)) = (events[i].to.server_name(), answer(events, rpc, i)) else {
        return None;
    };
    let names = names.read(events, r, |e| {
        let message = json(e);
        message
            .as_ref()
            .and_then(|v| v.pointer("/result/tools").and_then(Value::as_array))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
            .collect()
    });
    Some((r, server.to_string(), names))
}

/// Each server's latest `tools/list`, swept in the order the results arrived (servers in the
/// order they first listed: the order a host builds its catalog in, which decides collisions),
/// and the request where a search first loaded each deferred tool.
#[derive(Debug, Default)]
pub(super) struct Catalog {
    latest: Vec<(String, (usize, Vec<String>))>,
    loaded: HashMap<String, usize>,
    /// Whether a request so far offered the model any tool.
    offered: bool,
}

impl Catalog {
    pub(super) fn absorb(&mut self, (r, server, names): Listed) {
        match self.latest.iter_mut().find(|(s, _)| *s == server) {
            Some(entry) => entry.1 = (r, names),
            None => self.latest.push((server, (r, names))),
        }
    }

    /// What request `x` showed the model, against the lists absorbed so far.
    pub(super) fn view(&mut self, x: &LlmExchange) -> ToolView {
        for name in &x.offered.loaded {
            self.loaded.entry(name.clone()).or_insert(x.request);
        }
        // A request without any tool after ones with tools is a side call (a title, a quota
        // check): it withholds nothing from the agent's model.
        let side_call = self.offered && x.offered.tools.is_empty();
        self.offered |= !x.offered.tools.is_empty();
        let mut view = tool_view(x, &self.latest, &self.loaded);
        if side_call {
            view.not_sent.clear();
        }
        view
    }
}

fn tool_view(
    x: &LlmExchange,
    latest: &[(String, (usize, Vec<String>))],
    loaded: &HashMap<String, usize>,
) -> ToolView {
    let mut matched: Vec<(&str, &str)> = Vec::new();
    let mut sent = Vec::with_capacity(x.offered.tools.len());
    for t in &x.offered.tools {
        // A namespace named in text only (Codex's deferred namespaces): each tool its server
        // listed is visible on demand inside it.
        if t.kind == Kind::Mcp
            && t.delivery == Delivery::NameOnly
            && t.namespace.as_deref() == Some(t.name.as_str())
        {
            for (server, (r, names)) in latest {
                for n in names {
                    if let Some(rule) = naming::rule(n, Some(&t.name), server, n) {
                        matched.push((server, n));
                        sent.push(ToolOrigin {
                            api_name: n.clone(),
                            server: Some(server.clone()),
                            mcp_name: Some(n.clone()),
                            listed_in: Some(*r),
                            entry: None,
                            namespace: Some(t.name.clone()),
                            kind: Kind::Mcp,
                            delivery: Delivery::NameOnly,
                            rule: Some(rule),
                            loaded_in: loaded.get(&format!("{}.{n}", t.name)).copied(),
                        });
                    }
                }
            }
            continue;
        }
        // A host's own tools, the API's and placeholders come from no server.
        let joinable = matches!(t.kind, Kind::Mcp | Kind::Plain);
        let found = latest
            .iter()
            .filter(|_| joinable)
            .find_map(|(server, (r, names))| {
                names.iter().find_map(|n| {
                    let rule = naming::rule(&t.name, t.namespace.as_deref(), server, n)?;
                    Some((server.as_str(), n.as_str(), *r, rule))
                })
            });
        if let Some((s, n, _, _)) = found {
            matched.push((s, n));
        }
        let kind = match (t.kind, found) {
            (Kind::Plain, Some(_)) => Kind::Mcp,
            (kind, _) => kind,
        };
        sent.push(ToolOrigin {
            api_name: t.name.clone(),
            server: found.map(|f| f.0.to_string()),
            mcp_name: found.map(|f| f.1.to_string()),
            listed_in: found.map(|f| f.2),
            entry: t.entry,
            namespace: t.namespace.clone(),
            kind,
            delivery: t.delivery,
            rule: found.map(|f| f.3),
            loaded_in: loaded.get(&t.name).copied(),
        });
    }
    let mut not_sent: Vec<(String, String, usize)> = latest
        .iter()
        .flat_map(|(server, (r, names))| names.iter().map(move |n| (server, n, *r)))
        .filter(|(s, n, _)| !matched.iter().any(|(ms, mn)| ms == s && mn == n))
        .map(|(s, n, r)| (s.clone(), n.clone(), r))
        .collect();
    not_sent.sort();
    ToolView {
        request: x.request,
        sent,
        not_sent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tools/list` answers that repeat an earlier one (but for their id) list what each
    /// read afresh lists.
    #[test]
    fn remembered_listings_list_what_fresh_ones_do() {
        let events = crate::analysis::fixtures::repeated_messages();
        let rpc = crate::trace::analyze(&events);
        let mut names = Names::default();
        let mut listed = Vec::new();
        for i in 0..events.len() {
            let remembered = tools_list(&events, &rpc, &mut names, i);
            let fresh = tools_list(&events, &rpc, &mut Names::none(), i);
            assert_eq!(remembered, fresh, "event {i}");
            listed.extend(remembered.map(|(r, _, names)| (r, names.len())));
        }
        assert_eq!(listed, [(1, 1), (3, 1), (11, 2)]);
    }
}
