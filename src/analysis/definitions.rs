//! What a trace says about each server's tools: every `tools/list` result and `instructions`
//! text, with the server's identity and each definition's hash. The pins compare these
//! definitions over time; the poisoning scan reads their text.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::canonical::{canonical_json, canonical_json_pretty, sha256_hex, shape_hash};
use super::conformance::Repeats;
use crate::trace::{Analysis, Channel, Event, Kind, Lane, Pairing};

/// Who a server is, for pinning: its `serverInfo.name` and, for stdio, its command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ServerId {
    pub name: String,
    /// Program and arguments from the spawn event, when the trace has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(command) = &self.command {
            write!(f, " ({})", command.join(" "))?;
        }
        Ok(())
    }
}

/// One tool definition as a server listed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// `name`, or empty when the definition has none.
    pub name: String,
    /// The definition exactly as received (every field).
    pub definition: Value,
    /// [`canonical_json`] of `definition`.
    pub canonical: String,
    /// Hex SHA-256 of `canonical`: the pin.
    pub sha256: String,
    /// `seq` of the `tools/list` result event it came in.
    pub seq: u64,
}

impl ToolDef {
    pub fn new(definition: Value, seq: u64) -> Self {
        let name = definition
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let canonical = canonical_json(&definition);
        let sha256 = sha256_hex(&canonical);
        ToolDef {
            name,
            definition,
            canonical,
            sha256,
            seq,
        }
    }

    /// Hash of the definition without `name` (see [`shape_hash`]).
    pub fn shape_sha256(&self) -> String {
        shape_hash(&self.definition)
    }

    /// The definition as indented canonical JSON.
    pub fn pretty(&self) -> String {
        canonical_json_pretty(&self.definition)
    }
}

/// One complete listing of a server's tools: a `tools/list` result, with the pages that
/// followed it (requests carrying a `cursor`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolList {
    pub lane: Lane,
    pub server: ServerId,
    /// `seq` of the (first page's) result event.
    pub seq: u64,
    pub tools: Vec<ToolDef>,
    /// `false` when the last page received still had a `nextCursor`.
    pub complete: bool,
}

impl ToolList {
    /// The first tool of this name.
    pub fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// A server's `instructions`, from an `initialize` or `server/discover` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Instructions {
    pub lane: Lane,
    pub server: ServerId,
    pub text: String,
    /// `seq` of the result event.
    pub seq: u64,
}

/// Every tool listing and every `instructions` text of a trace, in trace order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Definitions {
    pub lists: Vec<ToolList>,
    pub instructions: Vec<Instructions>,
}

#[derive(Default)]
struct LaneState {
    name: Option<String>,
    command: Option<Vec<String>>,
    /// Index in `lists` of the listing a next page would continue.
    open: Option<usize>,
}

impl LaneState {
    fn id(&self, lane: &Lane) -> ServerId {
        ServerId {
            name: self
                .name
                .clone()
                .or_else(|| lane.server_name().map(str::to_string))
                .unwrap_or_else(|| lane.to_string()),
            command: self.command.clone(),
        }
    }
}

fn parse(event: &Event) -> Option<Value> {
    serde_json::from_slice(&event.bytes()?).ok()
}

/// Reads every tool listing and `instructions` out of a trace. `rpc` is the trace's
/// [`crate::trace::analyze`] result (`Report::rpc`).
pub fn definitions(events: &[Event], rpc: &Analysis) -> Definitions {
    let mut reader = Reader::default();
    while !reader.step(events, rpc, usize::MAX) {}
    reader.finish()
}

/// [`definitions`] a slice of the trace at a time, for a caller that must not stop for the
/// whole of it (the browser, which has no thread for it: a frame each). The outcome is
/// [`definitions`]'s.
#[derive(Default)]
pub struct Reader {
    lanes: HashMap<Lane, LaneState>,
    out: Definitions,
    /// The next event to read.
    next: usize,
    memory: Memory,
}

/// What was read out of the messages met so far, for the messages that repeat them (the same
/// `tools/list` answer, run after run).
#[derive(Default)]
struct Memory {
    /// A `tools/list` result: its tools (each as of `seq` 0) and whether a page follows;
    /// `None` when the message has no `result`.
    listings: Repeats<Option<(Vec<ToolDef>, bool)>>,
    /// Whether a `tools/list` request asks for a next page (has a `cursor`).
    cursors: Repeats<bool>,
}

impl Reader {
    /// Reads the next `count` events (at most); true once every event has been read. A page's
    /// request is found by the analysis's index of `seq`s ([`Analysis::earlier`]), built with
    /// the analysis: nothing to index here.
    pub fn step(&mut self, events: &[Event], rpc: &Analysis, count: usize) -> bool {
        let end = self.next.saturating_add(count).min(events.len());
        for i in self.next..end {
            read(
                events,
                rpc,
                (&mut self.lanes, &mut self.memory),
                &mut self.out,
                i,
            );
        }
        self.next = end;
        end == events.len()
    }

    /// The definitions, once [`Self::step`] has said every event is read.
    pub fn finish(self) -> Definitions {
        self.out
    }
}

/// Reads event `i` into `out`: a listing or `instructions`, or a spawn naming its server.
fn read(
    events: &[Event],
    rpc: &Analysis,
    (lanes, memory): (&mut HashMap<Lane, LaneState>, &mut Memory),
    out: &mut Definitions,
    i: usize,
) {
    let event = &events[i];
    if event.channel == Channel::Process {
        let Some(info) = event.process() else { return };
        let Some(lane) = [&event.from, &event.to].into_iter().find(|l| l.is_server()) else {
            return;
        };
        if info.event == "spawn" {
            lanes.insert(
                lane.clone(),
                LaneState {
                    command: (!info.command.is_empty()).then(|| info.command.clone()),
                    ..LaneState::default()
                },
            );
        }
        return;
    }
    if !event.channel.carries_jsonrpc() || !event.from.is_server() {
        return;
    }
    let Some(d) = rpc.derived.get(i) else {
        return;
    };
    if d.kind != Kind::Response {
        return;
    }
    let method = d.method.as_deref().unwrap_or_default();
    if !matches!(method, "initialize" | "server/discover" | "tools/list") {
        return;
    }
    if method == "tools/list" {
        let Some((mut tools, more)) = memory.listings.read(events, i, |e| {
            let mut result = parse(e).and_then(|mut v| v.get_mut("result").map(Value::take))?;
            let tools: Vec<ToolDef> = match result.get_mut("tools").map(Value::take) {
                Some(Value::Array(tools)) => tools
                    .into_iter()
                    .filter(Value::is_object)
                    .map(|t| ToolDef::new(t, 0))
                    .collect(),
                _ => Vec::new(),
            };
            let more = result.get("nextCursor").is_some_and(|c| !c.is_null());
            Some((tools, more))
        }) else {
            return;
        };
        for tool in &mut tools {
            tool.seq = event.seq;
        }
        let lane = event.from.clone();
        let state = lanes.entry(lane.clone()).or_default();
        let cursor = match d.pairing {
            Pairing::Answers(seq) => rpc.earlier(events, seq, i).is_some_and(|r| {
                memory.cursors.read(events, r, |e| {
                    parse(e)
                        .and_then(|v| v.pointer("/params/cursor").cloned())
                        .is_some_and(|c| !c.is_null())
                })
            }),
            _ => false,
        };
        match (cursor, state.open) {
            (true, Some(open)) => {
                let list = &mut out.lists[open];
                list.tools.extend(tools);
                list.complete = !more;
            }
            _ => {
                out.lists.push(ToolList {
                    lane: lane.clone(),
                    server: state.id(&lane),
                    seq: event.seq,
                    tools,
                    complete: !more,
                });
                state.open = Some(out.lists.len() - 1);
            }
        }
        if !more {
            state.open = None;
        }
        return;
    }
    let Some(result) = parse(event).and_then(|mut v| v.get_mut("result").map(Value::take)) else {
        return;
    };
    let lane = event.from.clone();
    let state = lanes.entry(lane.clone()).or_default();
    let name = result
        .pointer("/serverInfo/name")
        .or_else(|| {
            result
                .get("_meta")
                .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
                .and_then(|info| info.get("name"))
        })
        .and_then(Value::as_str);
    if let Some(name) = name {
        state.name = Some(name.to_string());
    }
    if let Some(text) = result.get("instructions").and_then(Value::as_str) {
        out.instructions.push(Instructions {
            lane: lane.clone(),
            server: state.id(&lane),
            text: text.to_string(),
            seq: event.seq,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Listings that repeat an earlier one (but for their id) read as each read afresh does:
    /// two identical ones and one that differs, each with its own `seq`, and the drift between
    /// them still there.
    #[test]
    fn remembered_listings_read_as_fresh_ones() {
        let events = crate::analysis::fixtures::repeated_messages();
        let rpc = crate::trace::analyze(&events);
        let remembered = definitions(&events, &rpc);
        let mut fresh = Reader {
            memory: Memory {
                listings: Repeats::none(),
                cursors: Repeats::none(),
            },
            ..Reader::default()
        };
        while !fresh.step(&events, &rpc, 1) {}
        assert_eq!(remembered, fresh.finish());
        let seqs: Vec<(u64, u64)> = remembered
            .lists
            .iter()
            .map(|l| (l.seq, l.tools[0].seq))
            .collect();
        assert_eq!(seqs, [(1, 1), (3, 3), (11, 11)]);
        let [a, b, c] = [0, 1, 2].map(|n| &remembered.lists[n].tools[0].sha256);
        assert!(a == b && b != c, "{remembered:#?}");
    }
}
