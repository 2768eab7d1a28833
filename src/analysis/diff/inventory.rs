//! What one trace says about its servers, in the form two traces are compared in.
//!
//! Per server (named by its `serverInfo.name`, else its lane): the revision, capabilities and
//! instructions of its last handshake, the last complete listing of each primitive (tools,
//! prompts, resources, resource templates, pages joined), and every `tools/call` with its
//! outcome and latency. Per trace: the tools the model was last sent (the `tools` parameter of
//! the last LLM request), by the name the model saw.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::analysis::canonical::canonical_json;
use crate::analysis::conformance::Repeats;
use crate::analysis::{LlmExchange, Report};
use crate::i18n::Said;
use crate::trace::{Analysis, Event, Kind, Lane, Pairing};

/// The primitives a server lists, and the member that names each entry.
pub const PRIMITIVES: [(&str, &str, &str, &str); 4] = [
    ("tool", "tools/list", "tools", "name"),
    ("prompt", "prompts/list", "prompts", "name"),
    ("resource", "resources/list", "resources", "uri"),
    (
        "resource template",
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
    ),
];

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub definition: Value,
    /// `seq` of the result it came in.
    pub seq: u64,
}

/// How a `tools/call` ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A result: `isError` and the result (without `_meta`).
    Result { is_error: bool, result: Value },
    /// A JSON-RPC error: code and message.
    Error { code: i64, message: String },
    /// No answer in the trace.
    Unanswered,
}

impl Outcome {
    /// `true` for a tool error, a JSON-RPC error or no answer.
    pub fn failed(&self) -> bool {
        !matches!(
            self,
            Outcome::Result {
                is_error: false,
                ..
            }
        )
    }

    /// The outcome in a few words, in each language (`diff_outcome.*`).
    pub fn said(&self) -> Said {
        match self {
            Outcome::Result { is_error: true, .. } => Said::new("diff_outcome.tool_error"),
            Outcome::Result { .. } => Said::new("diff_outcome.result"),
            Outcome::Error { code, message } => Said::new("diff_outcome.error")
                .with("code", code)
                .with("message", message),
            Outcome::Unanswered => Said::new("diff_outcome.no_answer"),
        }
    }

    /// [`Outcome::said`] in English.
    pub fn describe(&self) -> String {
        self.said().english()
    }
}

/// One `tools/call` of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: String,
    /// [`canonical_json`] of the arguments.
    pub arguments: String,
    /// `seq` of the request.
    pub seq: u64,
    /// `seq` of the answer.
    pub answer: Option<u64>,
    pub outcome: Outcome,
    pub latency_us: Option<i64>,
}

/// What a trace says about one server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Server {
    pub name: String,
    pub revision: Option<String>,
    /// `seq` of the last handshake result.
    pub handshake: Option<u64>,
    pub capabilities: Option<Value>,
    pub instructions: Option<String>,
    /// Primitive kind (see [`PRIMITIVES`]) -> its last complete listing, in order.
    pub lists: BTreeMap<&'static str, Vec<Entry>>,
    pub calls: Vec<Call>,
}

/// What a trace says, server by server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inventory {
    pub servers: Vec<Server>,
    /// The `tools` parameter of the last LLM request: name as sent -> entry; and its `seq`.
    pub model_tools: Option<(u64, Vec<(String, Value)>)>,
}

impl Inventory {
    pub fn server(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// Reads a trace's [`Inventory`].
pub fn inventory(events: &[Event], report: &Report) -> Inventory {
    let last = report.llm.iter().rev().find(|x| x.shape.is_some());
    inventory_from(events, &report.rpc, last, Memory::default())
}

/// [`inventory`] of a trace nothing else has analysed yet: its JSON-RPC half and, of the LLM
/// half, the one request the inventory keeps ([`crate::analysis::last_loop_request`]).
/// `diff` reads its traces so.
pub fn inventory_of(events: &[Event]) -> Inventory {
    let (rpc, last) = crate::trace::halves::join(
        || crate::trace::analyze(events),
        || crate::analysis::last_loop_request(events),
    );
    inventory_from(events, &rpc, last.as_ref(), Memory::default())
}

/// A listing's result: whether a page follows, and its entries (`None`: no `result`).
type Listing = Option<(bool, Vec<Value>)>;

/// What was read out of the messages met so far, for the messages that repeat them: a trace
/// repeats itself (run after run, the same calls, answers and listings), and each distinct
/// message (but for its id) is parsed once.
#[derive(Default)]
struct Memory {
    /// A `tools/call` request: tool and canonical arguments (`None`: not JSON).
    requests: Repeats<Option<(String, String)>>,
    /// The answer to a `tools/call`.
    answers: Repeats<Outcome>,
    /// A listing's result, one memory per primitive (the same text may answer two methods):
    /// whether a page follows and the entries (`None`: no `result`).
    listings: [Repeats<Listing>; 4],
    /// Whether a listing request asks for a next page (has a `cursor`).
    cursors: Repeats<bool>,
}

impl Memory {
    /// Remembers nothing: every message is parsed (what the memory must not change).
    #[cfg(test)]
    fn none() -> Memory {
        Memory {
            requests: Repeats::none(),
            answers: Repeats::none(),
            listings: std::array::from_fn(|_| Repeats::none()),
            cursors: Repeats::none(),
        }
    }
}

fn inventory_from(
    events: &[Event],
    rpc: &Analysis,
    last: Option<&LlmExchange>,
    memory: Memory,
) -> Inventory {
    let Memory {
        mut requests,
        mut answers,
        mut listings,
        mut cursors,
    } = memory;
    let derived = &rpc.derived;
    let mut lanes: Vec<(Lane, Server)> = Vec::new();
    // (lane, primitive) -> listing being filled by pages, and whether it is still open.
    let mut filling: HashMap<(Lane, &'static str), (Vec<Entry>, bool)> = HashMap::new();
    let json = |e: &Event| serde_json::from_str::<Value>(&e.text()).ok();
    for (i, (event, d)) in events.iter().zip(derived).enumerate() {
        if !event.channel.carries_jsonrpc() {
            continue;
        }
        let (server_lane, from_server) = if event.from.is_server() {
            (&event.from, true)
        } else if event.to.is_server() {
            (&event.to, false)
        } else {
            continue;
        };
        let at = match lanes.iter().position(|(l, _)| l == server_lane) {
            Some(at) => at,
            None => {
                let name = server_lane.server_name().unwrap_or_default().to_string();
                lanes.push((
                    server_lane.clone(),
                    Server {
                        name,
                        ..Server::default()
                    },
                ));
                lanes.len() - 1
            }
        };
        let server = &mut lanes[at].1;
        let method = d.method.as_deref().unwrap_or_default();
        if !from_server && d.kind == Kind::Request && method == "tools/call" {
            let Some((tool, arguments)) = requests.read(events, i, |e| {
                let msg = json(e)?;
                let tool = msg
                    .pointer("/params/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let arguments =
                    canonical_json(msg.pointer("/params/arguments").unwrap_or(&Value::Null));
                Some((tool, arguments))
            }) else {
                continue;
            };
            let answer = match d.pairing {
                Pairing::AnsweredBy(seq) => rpc.later(events, seq, i),
                _ => None,
            };
            let outcome = match answer {
                None => Outcome::Unanswered,
                Some(a) => answers.read(events, a, |e| outcome(json(e), &derived[a])),
            };
            server.calls.push(Call {
                tool,
                arguments,
                seq: event.seq,
                answer: answer.map(|a| events[a].seq),
                outcome,
                latency_us: d.latency_us(),
            });
            continue;
        }
        if !from_server || d.kind != Kind::Response {
            continue;
        }
        if matches!(method, "initialize" | "server/discover") {
            let Some(mut result) =
                json(event).and_then(|mut v| v.get_mut("result").map(Value::take))
            else {
                continue;
            };
            if let Some(name) = result
                .pointer("/serverInfo/name")
                .or_else(|| result.pointer("/_meta/io.modelcontextprotocol~1serverInfo/name"))
                .and_then(Value::as_str)
            {
                server.name = name.to_string();
            }
            server.handshake = Some(event.seq);
            server.revision = d.revision.as_deref().map(str::to_string);
            server.capabilities = result.get_mut("capabilities").map(Value::take);
            server.instructions = result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string);
            continue;
        }
        let Some(p) = PRIMITIVES.iter().position(|p| p.1 == method) else {
            continue;
        };
        let (kind, _, member, key) = PRIMITIVES[p];
        let Some((more, listed)) = listings[p].read(events, i, |e| {
            let mut result = json(e).and_then(|mut v| v.get_mut("result").map(Value::take))?;
            let more = result.get("nextCursor").is_some_and(|c| !c.is_null());
            let listed = match result.get_mut(member).map(Value::take) {
                Some(Value::Array(listed)) => listed,
                _ => Vec::new(),
            };
            Some((more, listed))
        }) else {
            continue;
        };
        let continues = match d.pairing {
            Pairing::Answers(seq) => rpc.earlier(events, seq, i).is_some_and(|r| {
                cursors.read(events, r, |e| {
                    json(e)
                        .and_then(|v| v.pointer("/params/cursor").cloned())
                        .is_some_and(|c| !c.is_null())
                })
            }),
            _ => false,
        };
        let entries = listed.into_iter().map(|def| Entry {
            key: def
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            definition: def,
            seq: event.seq,
        });
        let slot = filling
            .entry((server_lane.clone(), kind))
            .or_insert_with(|| (Vec::new(), false));
        if !(continues && slot.1) {
            slot.0.clear();
        }
        slot.0.extend(entries);
        slot.1 = more;
        if !slot.1 {
            // A complete listing: the next page, if any, starts a new one (it is cleared).
            server.lists.insert(kind, std::mem::take(&mut slot.0));
        }
    }
    let model_tools = last.map(|x| {
        let entries = x
            .tool_entries
            .iter()
            .enumerate()
            .map(|(n, entry)| (x.tools.get(n).cloned().unwrap_or_default(), entry.clone()))
            .collect();
        (events[x.request].seq, entries)
    });
    Inventory {
        servers: lanes.into_iter().map(|(_, s)| s).collect(),
        model_tools,
    }
}

fn outcome(msg: Option<Value>, d: &crate::trace::Derived) -> Outcome {
    if let Some((code, message)) = d.error() {
        return Outcome::Error {
            code,
            message: message.to_string(),
        };
    }
    let mut result = msg
        .and_then(|mut m| m.get_mut("result").map(Value::take))
        .unwrap_or(Value::Null);
    if let Some(obj) = result.as_object_mut() {
        obj.remove("_meta");
    }
    Outcome::Result {
        is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
        result,
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::check::{CheckOptions, Class, check};
    use crate::analysis::{Report, report};
    use crate::trace::load_from_reader;

    const FIXTURES: [&str; 4] = crate::analysis::fixtures::RECORDINGS;

    /// The shortcuts `diff` and `check` take read what the whole report reads.
    #[test]
    fn the_cli_shortcuts_agree_with_the_whole_report() {
        let mut with_model_tools = 0;
        for text in FIXTURES {
            let events = load_from_reader(text.as_bytes()).expect("fixture").events;
            let whole = report(&events);
            let inventory = super::inventory(&events, &whole);
            with_model_tools += usize::from(inventory.model_tools.is_some());
            assert_eq!(super::inventory_of(&events), inventory);
            let options = CheckOptions {
                fail_on: Class::ALL
                    .into_iter()
                    .filter(|c| *c != Class::Hidden)
                    .collect(),
                max_latency_us: Some(1),
                ..CheckOptions::default()
            };
            assert!(!options.reads_model());
            assert_eq!(
                check(&events, &Report::mcp_only(&events), &options, None),
                check(&events, &whole, &options, None)
            );
        }
        assert!(with_model_tools >= 3, "{with_model_tools}");
    }

    /// Messages that repeat earlier ones (but for their id) read as each read afresh does: two
    /// identical listings and one that differs, a prompts/list answered with a tools/list's
    /// text, calls answered alike and then not.
    #[test]
    fn remembered_messages_read_as_fresh_ones() {
        let events = crate::analysis::fixtures::repeated_messages();
        let rpc = crate::trace::analyze(&events);
        let remembered = super::inventory_from(&events, &rpc, None, super::Memory::default());
        let fresh = super::inventory_from(&events, &rpc, None, super::Memory::none());
        assert_eq!(remembered, fresh);
        let server = &remembered.servers[0];
        assert_eq!(server.lists["tool"][0].seq, 11, "{server:#?}");
        assert!(server.lists["prompt"].is_empty(), "{server:#?}");
        let outcomes: Vec<(u64, bool)> = server
            .calls
            .iter()
            .map(|c| (c.answer.unwrap_or_default(), c.outcome.failed()))
            .collect();
        assert_eq!(outcomes, [(5, false), (7, false), (13, true)]);
    }
}
