//! A recorded session's wire shape, as lines a person can compare: per LLM exchange, the
//! request's path and top-level keys, its tool list (each entry's type, name and keys; a
//! namespace's members; Gemini's function declarations), the content block types of its
//! conversation, and the response's content type and stream event types. Values that change
//! from run to run (ids, times, texts, paths on disk) are left out, so two runs of one host
//! version give the same lines and a host update that changes how it talks gives other ones.

use std::collections::BTreeSet;

use serde_json::Value;
use sightline::trace::{Channel, Event, Lane};

/// The shape of every LLM exchange of a session, in order.
pub fn of(events: &[Event]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut n = 0;
    for event in events.iter().filter(|e| e.channel == Channel::LlmHttp) {
        let Some(http) = event.http() else { continue };
        let text = event.text();
        if event.to == Lane::Llm {
            n += 1;
            let url = http.url.as_deref().unwrap_or("");
            let path = url.splitn(4, '/').nth(3).unwrap_or(url);
            lines.push(format!("request {n} path /{path}"));
            let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            lines.push(format!("request {n} keys {}", keys(&body)));
            for tool in tools(&body) {
                lines.push(format!("request {n} tool {tool}"));
            }
            lines.push(format!("request {n} blocks {}", join(blocks(&body))));
        } else {
            let content_type = http
                .headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
                .map_or("", |(_, v)| v.as_ref());
            lines.push(format!(
                "response {n} status {} {content_type}",
                http.status.unwrap_or(0)
            ));
            lines.push(format!("response {n} events {}", join(stream_types(&text))));
        }
    }
    lines
}

/// What differs between an expected shape and a fresh one, said by line: `- ` only in the
/// expected (the fixture), `+ ` only in the fresh run.
pub fn differences(expected: &[String], fresh: &[String]) -> Vec<String> {
    let old: BTreeSet<&String> = expected.iter().collect();
    let new: BTreeSet<&String> = fresh.iter().collect();
    let mut out: Vec<String> = old.difference(&new).map(|l| format!("- {l}")).collect();
    out.extend(new.difference(&old).map(|l| format!("+ {l}")));
    out
}

fn join(set: BTreeSet<String>) -> String {
    set.into_iter().collect::<Vec<_>>().join(",")
}

fn keys(value: &Value) -> String {
    value
        .as_object()
        .map(|o| {
            let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
            keys.sort_unstable();
            keys.join(",")
        })
        .unwrap_or_default()
}

/// One line per offered tool: `TYPE NAME [keys]`, a namespace's members as `NS/NAME [keys]`,
/// Gemini declarations as `declaration NAME [keys] schema [property names]`.
fn tools(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        let kind = tool["type"].as_str().unwrap_or("-");
        let name = tool["name"].as_str().unwrap_or("-");
        out.push(format!("{kind} {name} [{}]", keys(tool)));
        for member in tool["tools"].as_array().into_iter().flatten() {
            let member_name = member["name"].as_str().unwrap_or("-");
            out.push(format!("{name}/{member_name} [{}]", keys(member)));
        }
        for declaration in tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let schema = &declaration["parametersJsonSchema"];
            let schema = if schema.is_null() {
                &declaration["parameters"]
            } else {
                schema
            };
            out.push(format!(
                "declaration {} [{}] schema [{}]",
                declaration["name"].as_str().unwrap_or("-"),
                keys(declaration),
                keys(&schema["properties"])
            ));
        }
    }
    out
}

/// The `type` of every content block and item in the conversation (Gemini: each part's key).
fn blocks(body: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for key in ["messages", "input", "contents"] {
        for item in body[key].as_array().into_iter().flatten() {
            collect(item, &mut out);
            for part in item["content"]
                .as_array()
                .or(item["parts"].as_array())
                .into_iter()
                .flatten()
            {
                collect(part, &mut out);
                for inner in part["content"].as_array().into_iter().flatten() {
                    collect(inner, &mut out);
                }
            }
            for part in item["output"].as_array().into_iter().flatten() {
                collect(part, &mut out);
            }
        }
    }
    out
}

fn collect(block: &Value, out: &mut BTreeSet<String>) {
    match block["type"].as_str() {
        Some(kind) => {
            out.insert(kind.to_string());
        }
        None if block.get("role").is_none() => {
            if let Some(o) = block.as_object() {
                out.extend(o.keys().filter(|k| *k != "thoughtSignature").cloned());
            }
        }
        None => {}
    }
}

/// The event names of a server-sent event stream (`event:` lines, else each `data:` JSON's
/// `type`), or `json` for a body that is not a stream.
fn stream_types(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("event:") {
            out.insert(name.trim().to_string());
        } else if let Some(data) = line.strip_prefix("data:") {
            let data: Value = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
            if let Some(kind) = data["type"].as_str() {
                out.insert(kind.to_string());
            }
        }
    }
    if out.is_empty() {
        out.insert("json".into());
    }
    out
}
