//! Links between the LLM half and the MCP half of a trace.
//!
//! - A **call chain** follows one model tool call: the response that asked for it, the
//!   `tools/call` the host sent (same tool, same arguments), the server's answer, and the next
//!   LLM request that returned a result under the same call id.
//! - A **tool view** says, for one LLM request, where each entry of its `tools` parameter came
//!   from (which server's `tools/list`, under which MCP name) and which listed tools it lacks.

use std::collections::HashMap;

use serde_json::Value;

use super::llm::LlmExchange;
use crate::trace::{Analysis, Channel, Event, Kind, Lane, Pairing};
use crate::wire::convert;

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

/// Where one entry of a request's `tools` parameter came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOrigin {
    pub api_name: String,
    pub server: Option<String>,
    /// The tool's name in its server's `tools/list` (differs when the host renamed it).
    pub mcp_name: Option<String>,
    /// Index of the `tools/list` result it came from.
    pub listed_in: Option<usize>,
}

/// What one LLM request showed the model, against what the servers listed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolView {
    /// Index of the LLM request.
    pub request: usize,
    pub sent: Vec<ToolOrigin>,
    /// Tools the servers listed (latest list before the request) that the request lacks:
    /// server, MCP name, index of the `tools/list` result.
    pub not_sent: Vec<(String, String, usize)>,
}

fn json(e: &Event) -> Option<Value> {
    serde_json::from_str(&e.text()).ok()
}

/// Builds the call chains and tool views of a trace.
pub fn link(
    events: &[Event],
    rpc: &Analysis,
    llm: &[LlmExchange],
) -> (Vec<CallChain>, Vec<ToolView>) {
    // Events are normally in `seq` order (then a binary search finds one); a map otherwise.
    let sorted = events.windows(2).all(|w| w[0].seq < w[1].seq);
    let index_of: HashMap<u64, usize> = if sorted {
        HashMap::new()
    } else {
        events.iter().enumerate().map(|(i, e)| (e.seq, i)).collect()
    };
    let answer = |i: usize| match rpc.derived[i].pairing {
        Pairing::AnsweredBy(seq) if sorted => events.binary_search_by_key(&seq, |e| e.seq).ok(),
        Pairing::AnsweredBy(seq) => index_of.get(&seq).copied(),
        _ => None,
    };
    let is_tools_call = |i: usize| {
        let e = &events[i];
        e.channel == Channel::Stdio
            && e.from == Lane::Host
            && rpc.derived[i].kind == Kind::Request
            && rpc.derived[i].method.as_deref() == Some("tools/call")
    };

    // Which requests return each call id, in order (for `returned_in`).
    let mut returns: HashMap<&str, Vec<usize>> = HashMap::new();
    for (n, x) in llm.iter().enumerate() {
        for id in &x.tool_results {
            let at = returns.entry(id.as_str()).or_default();
            if at.last() != Some(&n) {
                at.push(n);
            }
        }
    }
    let mut chains = Vec::new();
    let mut used = vec![false; events.len()];
    for (n, x) in llm.iter().enumerate() {
        let Some(asked_in) = x.response else { continue };
        // The host sends a turn's calls before its next LLM request: look no further. Each
        // `tools/call` of the turn is read once: (index, tool name, params).
        let until = llm.get(n + 1).map_or(events.len(), |next| next.request);
        let sent: Vec<(usize, String, Value)> = if x.tool_calls.is_empty() {
            Vec::new()
        } else {
            (asked_in + 1..until)
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
                    (i, name, params)
                })
                .collect()
        };
        for (call_id, tool, args) in &x.tool_calls {
            let tools_call = sent
                .iter()
                .find(|(i, name, params)| {
                    if used[*i] {
                        return false;
                    }
                    let same_tool = tool == name
                        || tool.ends_with(&format!("__{name}"))
                        || *tool == convert::sanitize_name(name);
                    let same_args = args
                        .as_ref()
                        .is_none_or(|a| params.get("arguments").unwrap_or(&Value::Null) == a);
                    same_tool && same_args
                })
                .map(|(i, _, _)| *i);
            if let Some(i) = tools_call {
                used[i] = true;
            }
            let returned_in = returns
                .get(call_id.as_str())
                .and_then(|at| at.get(at.partition_point(|&m| m <= n)))
                .map(|&m| llm[m].request);
            chains.push(CallChain {
                call_id: call_id.clone(),
                tool: tool.clone(),
                asked_in,
                tools_call,
                tools_result: tools_call.and_then(answer),
                returned_in,
            });
        }
    }

    // Every tools/list result, read once, in the order the results arrived. Only the lists
    // before the last LLM request can matter (none without LLM exchanges).
    let last_request = llm.iter().map(|x| x.request).max();
    let mut lists: Vec<(usize, String, Vec<String>)> = Vec::new();
    for i in 0..last_request.unwrap_or(0) {
        let d = &rpc.derived[i];
        if d.kind != Kind::Request || d.method.as_deref() != Some("tools/list") {
            continue;
        }
        let (Some(server), Some(r)) = (events[i].to.server_name(), answer(i)) else {
            continue;
        };
        let message = json(&events[r]);
        let names = message
            .as_ref()
            .and_then(|v| v.pointer("/result/tools").and_then(Value::as_array))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
            .collect();
        lists.push((r, server.to_string(), names));
    }
    lists.sort_by_key(|(r, _, _)| *r);

    // Sweep the exchanges in order, keeping each server's latest list (servers in the order
    // they first listed: the order a host builds its catalog in, which decides collisions).
    let mut latest: Vec<(String, (usize, Vec<String>))> = Vec::new();
    let mut next_list = 0;
    let mut views = Vec::with_capacity(llm.len());
    for x in llm {
        while let Some((r, server, names)) = lists.get(next_list).filter(|(r, _, _)| *r < x.request)
        {
            match latest.iter_mut().find(|(s, _)| s == server) {
                Some(entry) => entry.1 = (*r, names.clone()),
                None => latest.push((server.clone(), (*r, names.clone()))),
            }
            next_list += 1;
        }
        views.push(tool_view(x, &latest));
    }
    (chains, views)
}

fn tool_view(x: &LlmExchange, latest: &[(String, (usize, Vec<String>))]) -> ToolView {
    let mut matched: Vec<(String, String)> = Vec::new();
    let sent = x
        .tools
        .iter()
        .map(|api_name| {
            let found = latest.iter().find_map(|(server, (r, names))| {
                names
                    .iter()
                    .find(|n| {
                        *n == api_name
                            || *api_name == format!("{server}__{n}")
                            || *api_name == convert::sanitize_name(n)
                    })
                    .map(|n| (server.clone(), n.clone(), *r))
            });
            if let Some((s, n, _)) = &found {
                matched.push((s.clone(), n.clone()));
            }
            ToolOrigin {
                api_name: api_name.clone(),
                server: found.as_ref().map(|f| f.0.clone()),
                mcp_name: found.as_ref().map(|f| f.1.clone()),
                listed_in: found.map(|f| f.2),
            }
        })
        .collect();
    let mut not_sent: Vec<(String, String, usize)> = latest
        .iter()
        .flat_map(|(server, (r, names))| names.iter().map(move |n| (server.clone(), n.clone(), *r)))
        .filter(|(s, n, _)| !matched.iter().any(|(ms, mn)| ms == s && mn == n))
        .collect();
    not_sent.sort();
    ToolView {
        request: x.request,
        sent,
        not_sent,
    }
}
