//! The API's view of a remote call joined to the server's: when an LLM API is itself the MCP
//! client (Anthropic's `mcp_tool_use`, OpenAI's `mcp_call` and `mcp_list_tools`) and the same
//! trace recorded that server (behind `sightline proxy --http`, or a scenario's `client =
//! "api"` server), each step of the API's client is tied to the `tools/list` and `tools/call`
//! it caused, so the two halves read as one chain, as [`super::chains`] ties a host's
//! `tool_use` to its `tools/call`.
//!
//! The API makes its calls while it answers, so a step is looked for among the requests to a
//! server recorded after the LLM request and before its response (before the next request when
//! the response is missing): a call by its tool and arguments, a list by its tools, each
//! recorded request joined once; on the lane of the server the step names, else on any
//! server lane (a proxy's `--name` need not be the name the request gives it). A step that
//! finds none stays unjoined, and says so where the trace recorded that server at all.

use serde_json::Value;

use super::answer;
use crate::analysis::LlmExchange;
use crate::trace::{Analysis, Event, Kind as RpcKind};
use crate::wire::remote::StepKind;

/// One list or call of an LLM API's MCP client and what the server's recording holds of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteChain {
    /// Index of the exchange in `report.llm`.
    pub exchange: usize,
    /// Index of the step in that exchange's `remote`.
    pub step: usize,
    /// The server's recorded `tools/list` request (for a call: the latest before it in the
    /// same answer) and its answer.
    pub tools_list: Option<usize>,
    pub list_result: Option<usize>,
    /// The recorded `tools/call` request (a call only) and its answer.
    pub tools_call: Option<usize>,
    pub tools_result: Option<usize>,
    /// Whether the trace recorded that server while the API answered (events on the lane the
    /// step names, or on any server's lane when none has that name): a step unjoined then is
    /// one the server never received.
    pub recorded: bool,
}

impl RemoteChain {
    /// Whether the step found what it caused in the server's recording.
    pub fn joined(&self) -> bool {
        self.tools_call.is_some() || self.tools_list.is_some()
    }

    /// The events of the chain in order: the recorded list and call with their answers.
    pub fn members(&self) -> impl Iterator<Item = usize> + use<> {
        let rows = [
            self.tools_list,
            self.list_result,
            self.tools_call,
            self.tools_result,
        ];
        rows.into_iter().flatten()
    }
}

/// A recorded request to a server: its index, the server, the method, its params; whether a
/// step took it.
struct Sent<'a> {
    at: usize,
    server: &'a str,
    list: bool,
    params: Value,
    used: bool,
}

/// Every list and call step of `llm`'s API clients, joined to `events` (analysed as `rpc`).
pub fn remote_chains(events: &[Event], rpc: &Analysis, llm: &[LlmExchange]) -> Vec<RemoteChain> {
    (0..llm.len())
        .flat_map(|n| remote_chains_of(events, rpc, llm, n))
        .collect()
}

/// [`remote_chains`] of exchange `n` alone.
pub fn remote_chains_of(
    events: &[Event],
    rpc: &Analysis,
    llm: &[LlmExchange],
    n: usize,
) -> Vec<RemoteChain> {
    let x = &llm[n];
    let steps = x.remote.iter().enumerate();
    let steps = steps.filter(|(_, s)| matches!(s.kind, StepKind::List | StepKind::Call));
    let steps: Vec<_> = steps.collect();
    if steps.is_empty() {
        return Vec::new();
    }
    let next = llm.get(n + 1).map_or(events.len(), |next| next.request);
    let until = x.response.unwrap_or(next).min(events.len());
    let window = x.request + 1..until;
    // The servers whose recording the answer's time holds.
    let mut lanes: Vec<&str> = Vec::new();
    for e in &events[window.clone()] {
        for name in [&e.from, &e.to].into_iter().filter_map(|l| l.server_name()) {
            if !lanes.contains(&name) {
                lanes.push(name);
            }
        }
    }
    let mut sent: Vec<Sent> = window
        .filter_map(|i| recorded_request(events, rpc, i))
        .collect();
    let mut out = Vec::with_capacity(steps.len());
    for (k, step) in steps {
        let named = step.server.as_deref();
        let recorded = match named {
            Some(name) if lanes.contains(&name) => true,
            _ => !lanes.is_empty(),
        };
        let mut chain = RemoteChain {
            exchange: n,
            step: k,
            tools_list: None,
            list_result: None,
            tools_call: None,
            tools_result: None,
            recorded,
        };
        let fits = |s: &Sent| match step.kind {
            StepKind::Call => {
                !s.list
                    && s.params.get("name").and_then(Value::as_str) == step.tool.as_deref()
                    && step
                        .arguments
                        .as_ref()
                        .is_none_or(|a| s.params.get("arguments").unwrap_or(&Value::Null) == a)
            }
            _ => s.list,
        };
        // On the lane the step names first, then on any server's.
        let found = (0..sent.len())
            .find(|&j| !sent[j].used && Some(sent[j].server) == named && fits(&sent[j]))
            .or_else(|| (0..sent.len()).find(|&j| !sent[j].used && fits(&sent[j])));
        if let Some(j) = found {
            sent[j].used = true;
            let (at, server) = (sent[j].at, sent[j].server);
            match step.kind {
                StepKind::Call => {
                    chain.tools_call = Some(at);
                    chain.tools_result = answer(events, rpc, at);
                    chain.tools_list = sent
                        .iter()
                        .rev()
                        .find(|s| s.list && s.server == server && s.at < at)
                        .map(|s| s.at);
                }
                _ => chain.tools_list = Some(at),
            }
            chain.list_result = chain.tools_list.and_then(|l| answer(events, rpc, l));
        }
        out.push(chain);
    }
    out
}

/// Event `i` when it is a `tools/list` or `tools/call` request to a server.
fn recorded_request<'a>(events: &'a [Event], rpc: &Analysis, i: usize) -> Option<Sent<'a>> {
    let d = &rpc.derived[i];
    let list = match d.method.as_deref() {
        Some("tools/list") => true,
        Some("tools/call") => false,
        _ => return None,
    };
    let server = events[i].to.server_name()?;
    if d.kind != RpcKind::Request {
        return None;
    }
    let message: Value = serde_json::from_str(&events[i].text()).ok()?;
    Some(Sent {
        at: i,
        server,
        list,
        params: message.get("params").cloned().unwrap_or(Value::Null),
        used: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, HttpInfo, Lane};

    macro_rules! fixture {
        ($name:literal) => {
            include_str!(concat!("../../../tests/fixtures/connector/", $name))
        };
    }

    fn event(seq: u64, from: Lane, to: Lane, channel: Channel, body: &str) -> Event {
        Event::with_bytes(seq, crate::trace::now(), from, to, channel, body.into())
    }

    fn llm(seq: u64, url: Option<&str>, body: &str) -> Event {
        let (from, to) = match url {
            Some(_) => (Lane::Host, Lane::Llm),
            None => (Lane::Llm, Lane::Host),
        };
        let mut e = event(seq, from, to, Channel::LlmHttp, body.trim());
        e.set_http(Some(HttpInfo {
            method: url.map(|_| "POST".into()),
            url: url.map(Into::into),
            status: url.is_none().then_some(200),
            ..HttpInfo::default()
        }));
        e
    }

    /// What the API's MCP client sent the server (`id`, method, params) and its answer.
    fn rpc(seq: u64, id: u64, method: &str, params: &str, result: &str) -> [Event; 2] {
        let server = Lane::server("weather");
        let request =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        [
            event(seq, Lane::Llm, server.clone(), Channel::Http, &request),
            event(seq + 1, server, Lane::Llm, Channel::Http, &answer),
        ]
    }

    /// Both APIs' calls against one recorded server: Anthropic's `mcp_tool_use` finds its
    /// `tools/call` and the list before it; OpenAI's `mcp_list_tools` its `tools/list`; an
    /// `mcp_call` whose arguments the server never received stays unjoined, and says the
    /// server was recorded.
    #[test]
    fn each_remote_step_is_tied_to_what_the_server_recorded() {
        let list = r#"{"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}]}"#;
        let sunny = r#"{"content":[{"type":"text","text":"Sunny, 24°C"}]}"#;
        let seoul = r#"{"name":"get_weather","arguments":{"location":"Seoul"}}"#;
        let porto = r#"{"name":"get_weather","arguments":{"location":"Porto"}}"#;
        let mut events = vec![llm(
            0,
            Some("http://127.0.0.1:9/v1/messages"),
            fixture!("anthropic_request.json"),
        )];
        events.extend(rpc(1, 1, "tools/list", "{}", list));
        events.extend(rpc(3, 2, "tools/call", seoul, sunny));
        events.push(llm(5, None, fixture!("anthropic_response.json")));
        events.push(llm(
            6,
            Some("http://127.0.0.1:9/v1/responses"),
            fixture!("openai_request.json"),
        ));
        events.extend(rpc(7, 3, "tools/list", "{}", list));
        events.extend(rpc(9, 4, "tools/call", porto, sunny));
        events.push(llm(11, None, fixture!("openai_response.json")));
        let report = crate::analysis::report(&events);
        assert_eq!(report.llm.len(), 2);
        let chains = report.remote_chains(&events);
        let found: Vec<_> = chains
            .iter()
            .map(|c| {
                let kind = report.llm[c.exchange].remote[c.step].kind;
                (
                    kind,
                    c.tools_list,
                    c.list_result,
                    c.tools_call,
                    c.tools_result,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (StepKind::Call, Some(1), Some(2), Some(3), Some(4)),
                (StepKind::List, Some(7), Some(8), None, None),
                (StepKind::Call, None, None, None, None),
            ]
        );
        assert!(chains[0].joined() && chains[1].joined());
        assert!(!chains[2].joined() && chains[2].recorded);
        assert_eq!(
            chains.iter().flat_map(RemoteChain::members).count(),
            6,
            "{chains:?}"
        );
        // The server's calls are the API's, not the host's: no host chain holds them.
        assert!(report.chains.iter().all(|c| c.tools_call.is_none()));
        // Without the server's recording, nothing is joined and nothing is claimed.
        let alone: Vec<Event> = [0, 5, 6, 11].iter().map(|&i| events[i].clone()).collect();
        let report = crate::analysis::report(&alone);
        let chains = report.remote_chains(&alone);
        assert_eq!(chains.len(), 3);
        assert!(chains.iter().all(|c| !c.joined() && !c.recorded));
    }
}
