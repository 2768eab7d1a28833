//! A whole trace: every definition and `instructions` text scanned once, findings placed
//! at the server, tool and field they are about.

use std::collections::HashSet;

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
    let mut all_tools: Vec<(&str, &str)> = Vec::new();
    for list in &defs.lists {
        for tool in &list.tools {
            let key = (list.server.name.as_str(), tool.name.as_str());
            if !all_tools.contains(&key) {
                all_tools.push(key);
            }
        }
    }
    let mut out = Vec::new();
    let mut seen: HashSet<(&Lane, &str)> = HashSet::new();
    for list in &defs.lists {
        for tool in &list.tools {
            if seen.insert((&list.lane, tool.sha256.as_str())) {
                scan_tool(list, tool, &all_tools, &mut out);
            }
        }
    }
    let mut seen_text: HashSet<(&Lane, &str)> = HashSet::new();
    for ins in &defs.instructions {
        if !seen_text.insert((&ins.lane, ins.text.as_str())) {
            continue;
        }
        let server = ins.server.name.as_str();
        let params: Vec<&str> = defs
            .lists
            .iter()
            .filter(|l| l.lane == ins.lane)
            .flat_map(|l| &l.tools)
            .filter_map(|t| t.definition.pointer("/inputSchema/properties"))
            .filter_map(Value::as_object)
            .flat_map(|p| p.keys().map(String::as_str))
            .collect();
        let ctx = Context {
            server,
            tool: None,
            params,
            tools: all_tools.clone(),
            instructions: true,
            parameter: None,
        };
        let at = Place {
            server,
            tool: None,
            seq: ins.seq,
        };
        place(
            &mut out,
            &at,
            "instructions",
            &ins.text,
            scan_text(&ins.text, &ctx),
        );
    }
    out.sort_by(|a, b| {
        (a.seq, &a.server, &a.tool, &a.field, a.span, a.kind)
            .cmp(&(b.seq, &b.server, &b.tool, &b.field, b.span, b.kind))
    });
    out
}
