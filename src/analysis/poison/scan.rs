//! A whole trace: every definition and `instructions` text scanned once, findings placed
//! at the server, tool and field they are about.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::excerpt::{escape, excerpt, excerpt_in};
use super::names::scan_name;
use super::rules::{hit, scan_invisible, scan_text};
use super::said::{self, Said};
use super::{Context, Finding, Hit, Kind};
use crate::analysis::chars::is_invisible_or_control;
use crate::analysis::definitions::{Definitions, ToolDef, ToolList, definitions};
use crate::i18n::{Language, Words};
use crate::trace::{Analysis, Event, Lane};

pub(super) struct Place<'a> {
    server: &'a str,
    tool: Option<&'a str>,
    seq: u64,
}

pub(super) fn place(
    out: &mut Vec<Finding>,
    at: &Place<'_>,
    field: &str,
    text: &str,
    hits: Vec<Hit>,
) {
    for h in hits {
        out.push(Finding {
            server: at.server.to_string(),
            tool: at.tool.map(str::to_string),
            field: escape(field),
            kind: h.kind,
            severity: h.severity,
            span: h.span,
            excerpt: excerpt(text, h.span),
            excerpts: Language::ALL.map(|l| excerpt_in(text, h.span, Words::of(l))),
            explanation: h.explanation,
            said: h.said,
            hidden: h.hidden,
            seq: at.seq,
        });
    }
}

pub(super) fn median(values: &mut [usize]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2] as f64
    } else {
        (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0
    })
}

/// Every string of a definition (but the top-level `name` and `description`), with its
/// dotted path; `description` strings get the text rules, the rest (titles, enum values,
/// property names) only the invisible-character rules.
pub(super) fn strings<'a>(
    value: &'a Value,
    path: &mut Vec<String>,
    out: &mut Vec<(String, &'a str, bool)>,
) {
    match value {
        Value::String(s) => {
            let full = path.last().is_some_and(|k| k == "description");
            out.push((path.join("."), s, full));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                strings(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                if path.is_empty() && (key == "name" || key == "description") {
                    continue;
                }
                path.push(key.clone());
                if key.chars().any(is_invisible_or_control) {
                    out.push((path.join("."), key, false));
                }
                strings(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

pub(super) fn scan_tool(
    list: &ToolList,
    tool: &ToolDef,
    all_tools: &[(&str, &str)],
    out: &mut Vec<Finding>,
) {
    let server = list.server.name.as_str();
    let at = Place {
        server,
        tool: Some(&tool.name),
        seq: tool.seq,
    };
    let others: Vec<(&str, &str)> = all_tools
        .iter()
        .copied()
        .filter(|&(_, n)| n != tool.name)
        .collect();
    place(out, &at, "name", &tool.name, scan_name(&tool.name, &others));

    let params: Vec<&str> = tool
        .definition
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let ctx = Context {
        server,
        tool: Some(&tool.name),
        params: params.clone(),
        tools: all_tools.to_vec(),
        instructions: false,
        parameter: None,
    };
    if let Some(description) = tool.definition.get("description").and_then(Value::as_str) {
        let mut hits = scan_text(description, &ctx);
        // Far longer than its peers?
        let len = description.chars().count();
        let mut peers: Vec<usize> = list
            .tools
            .iter()
            .filter(|t| t.name != tool.name)
            .filter_map(|t| t.definition.get("description").and_then(Value::as_str))
            .map(|d| d.chars().count())
            .collect();
        if let Some(m) = median(&mut peers)
            && len > 500
            && len as f64 > 3.0 * m
        {
            hits.push(hit(
                Kind::LongDescription,
                (0, len),
                Said::new(
                    "poison_why.long",
                    vec![
                        ("len", said::value(len.to_string())),
                        ("median", said::value(m.to_string())),
                    ],
                ),
            ));
        }
        place(out, &at, "description", description, hits);
    }
    let mut texts = Vec::new();
    strings(&tool.definition, &mut Vec::new(), &mut texts);
    for (field, text, full) in texts {
        let hits = if full {
            // inputSchema.properties.<name>.description describes argument <name>.
            let parts: Vec<&str> = field.split('.').collect();
            let parameter = match parts.as_slice() {
                ["inputSchema", "properties", name, "description"] => Some(*name),
                _ => None,
            };
            let ctx = Context {
                parameter,
                ..ctx.clone()
            };
            scan_text(text, &ctx)
        } else {
            scan_invisible(text)
        };
        place(out, &at, &field, text, hits);
    }
}

/// Every poisoning finding of a trace. `rpc` is the trace's [`crate::trace::analyze`] result.
/// Each distinct definition of a tool and each distinct `instructions` text is scanned once,
/// at the first event that carried it.
pub fn scan(events: &[Event], rpc: &Analysis) -> Vec<Finding> {
    scan_definitions(&definitions(events, rpc))
}

/// [`scan`] on definitions already read out of a trace.
pub fn scan_definitions(defs: &Definitions) -> Vec<Finding> {
    let mut scanner = Scanner::default();
    while !scanner.step(defs, usize::MAX) {}
    scanner.finish()
}

/// How many tool lists [`Scanner::step`] gathers the names of for each list it would scan:
/// gathering a list's names is a lookup a tool, scanning it reads all its text.
pub const GATHER_PER_LIST: usize = 64;

/// The names gathered so far ([`Scanner::step`]'s first steps).
#[derive(Debug, Default)]
struct Gathering {
    /// The lists whose names are gathered (the first ones).
    lists: usize,
    /// Each server's tool names gathered.
    known: HashMap<String, HashSet<String>>,
}

/// [`scan_definitions`] a few tool lists at a time, for a caller that must not stop for all of
/// them (the browser): [`Scanner::step`] until it says the last list and the `instructions`
/// are scanned, then [`Scanner::finish`]. The outcome is [`scan_definitions`]'.
#[derive(Debug, Default)]
pub struct Scanner {
    /// Every (server, tool) name of the trace, once each, in order of first listing: what a
    /// name may be confused with (gathered by the first steps).
    all_tools: Vec<(String, String)>,
    /// The names of `all_tools` while they are gathered, and how many lists they come from.
    gathering: Gathering,
    /// The next list to scan; past the lists, the next `instructions` (counted from the
    /// number of lists).
    next: usize,
    /// The definitions scanned so far: (lane, sha256).
    seen: HashSet<(Lane, String)>,
    /// The `instructions` texts scanned so far: (lane, text).
    seen_text: HashSet<(Lane, String)>,
    /// Each lane's argument names, for its `instructions` (gathered with its lists).
    params: HashMap<Lane, Vec<String>>,
    out: Vec<Finding>,
}

impl Scanner {
    /// Gathers every tool's name (in steps of their own, [`GATHER_PER_LIST`] times `count`
    /// lists a step, where there are lists and `count` is not `usize::MAX`), then scans the
    /// next `count` tool lists (at most), then, in steps of their own, the next `count`
    /// `instructions` (at least one step); true once everything is scanned.
    pub fn step(&mut self, defs: &Definitions, count: usize) -> bool {
        let lists = defs.lists.len();
        if self.gathering.lists < lists {
            let end = (self.gathering.lists)
                .saturating_add(count.saturating_mul(GATHER_PER_LIST))
                .min(lists);
            for list in &defs.lists[self.gathering.lists..end] {
                let server = list.server.name.as_str();
                for tool in &list.tools {
                    let known = &mut self.gathering.known;
                    if known.get(server).is_some_and(|n| n.contains(&tool.name)) {
                        continue;
                    }
                    let names = known.entry(server.to_string()).or_default();
                    names.insert(tool.name.clone());
                    self.all_tools.push((server.to_string(), tool.name.clone()));
                }
            }
            self.gathering.lists = end;
            if end < lists || count != usize::MAX {
                return false;
            }
        }
        // Gathered: the names are not looked up again.
        self.gathering.known = HashMap::new();
        let names = &self.all_tools;
        let all_tools: Vec<(&str, &str)> = names
            .iter()
            .map(|(s, t)| (s.as_str(), t.as_str()))
            .collect();
        let lists = defs.lists.len();
        if self.next < lists {
            let end = self.next.saturating_add(count).min(lists);
            for list in &defs.lists[self.next..end] {
                for tool in &list.tools {
                    if self.seen.insert((list.lane.clone(), tool.sha256.clone())) {
                        scan_tool(list, tool, &all_tools, &mut self.out);
                        let names = self.params.entry(list.lane.clone()).or_default();
                        add_params(names, tool);
                    }
                }
            }
            self.next = end;
            return false;
        }
        let from = self.next - lists;
        let end = from.saturating_add(count).min(defs.instructions.len());
        if from < end {
            scan_instructions(
                defs,
                from..end,
                &all_tools,
                &mut self.seen_text,
                &self.params,
                &mut self.out,
            );
        }
        self.next = lists + end;
        end == defs.instructions.len()
    }

    /// The findings, in order of event, once [`Self::step`] has said everything is scanned.
    pub fn finish(mut self) -> Vec<Finding> {
        self.out.sort_by(|a, b| {
            (a.seq, &a.server, &a.tool, &a.field, a.span, a.kind)
                .cmp(&(b.seq, &b.server, &b.tool, &b.field, b.span, b.kind))
        });
        self.out
    }
}

/// The `instructions` texts `range` of the trace's, each distinct text of each lane scanned
/// once (`seen_text` holds those scanned in earlier calls; `params` each lane's argument names,
/// gathered while its lists were scanned).
fn scan_instructions(
    defs: &Definitions,
    range: std::ops::Range<usize>,
    all_tools: &[(&str, &str)],
    seen_text: &mut HashSet<(Lane, String)>,
    params: &HashMap<Lane, Vec<String>>,
    out: &mut Vec<Finding>,
) {
    for ins in &defs.instructions[range] {
        if !seen_text.insert((ins.lane.clone(), ins.text.clone())) {
            continue;
        }
        let server = ins.server.name.as_str();
        let names = params.get(&ins.lane).map_or(&[][..], Vec::as_slice);
        let ctx = Context {
            server,
            tool: None,
            params: names.iter().map(String::as_str).collect(),
            tools: all_tools.to_vec(),
            instructions: true,
            parameter: None,
        };
        let at = Place {
            server,
            tool: None,
            seq: ins.seq,
        };
        place(
            out,
            &at,
            "instructions",
            &ins.text,
            scan_text(&ins.text, &ctx),
        );
    }
}

/// Adds the argument names of `tool` that `names` does not have yet, in order. Called with
/// each distinct definition of a lane in order of first listing, it gives the argument names of
/// every tool the lane listed, each once, in order of first listing (a trace that lists its
/// tools again and again would otherwise have its `instructions` searched for the same names as
/// many times, and gathering them anew for each text took longer than a frame).
fn add_params(names: &mut Vec<String>, tool: &ToolDef) {
    let properties = tool
        .definition
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    for name in properties.into_iter().flat_map(|p| p.keys()) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
}
