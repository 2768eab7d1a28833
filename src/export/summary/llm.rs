//! The summary's lines for the LLM lane (requests with the tools offered, responses with the
//! calls asked and where each one went) and for MCP HTTP exchanges without a message. Apart
//! from the per-event lines because a model's response is the one event that unfolds into
//! several steps: each tool call it asks for gets its own line.

use std::fmt::Write as _;

use super::{LaneNames, preview};
use crate::analysis::diagram::{self, Status};
use crate::analysis::{LlmExchange, Report, ToolOrigin};
use crate::i18n::Words;
use crate::trace::Event;
use crate::wire::offered::{Delivery, Kind};

/// An MCP HTTP exchange without a message (`DELETE /mcp (end session)`, `202 Accepted`) or an
/// error page, named as the diagram names it.
pub(super) fn http_line(
    events: &[Event],
    i: usize,
    report: &Report,
    names: &LaneNames,
    words: Words,
) -> Option<String> {
    let (label, detail, status) = diagram::row_text(events, report, i, words.lang);
    if status == Status::Invalid {
        return None;
    }
    let mut s = format!("{}  {label}", names.arrow(&events[i]));
    if let Some(detail) = detail {
        let _ = write!(s, " ({detail})");
    }
    if status == Status::Error {
        let _ = write!(s, "  {}", words.get("summary.http_error"));
    }
    Some(s)
}

/// An LLM request or response, read: tools offered, calls made, where each call went. With
/// more than one call, the line says how many and each call follows on a line of its own.
pub(super) fn llm_line(
    events: &[Event],
    i: usize,
    report: &Report,
    names: &LaneNames,
    words: Words,
) -> Option<(String, Vec<String>)> {
    let seq_of = |i: usize| events[i].seq.to_string();
    let arrow = names.arrow(&events[i]);
    if let Some((n, x)) = report.llm_request(i) {
        let Some(shape) = x.shape.map(|s| s.as_str()) else {
            return Some((
                format!("{arrow}  {}", unread(events, report, n, x, words)),
                Vec::new(),
            ));
        };
        let (count, tools) = (x.tools.len().to_string(), names_of(&x.tools));
        let args = [("shape", shape), ("count", &count), ("tools", &tools)];
        // Tools only through remote servers the API connects to itself: no "0 tools".
        let key = match x.tools.is_empty() && !x.remote_servers.is_empty() {
            true => "summary.llm_request_remote",
            false => "summary.llm_request",
        };
        let mut s = format!("{arrow}  {}", words.fmt(key, &args));
        if !x.tool_results.is_empty() {
            let tools = x.tool_results.join(", ");
            s.push_str(&words.fmt("summary.returns_results", &[("tools", &tools)]));
        }
        s.push_str(&super::remote::request_part(x, words));
        let view = report.tools.get(n);
        for o in view.into_iter().flat_map(|v| &v.sent) {
            if let Some(mcp) = o.mcp_name.as_ref().filter(|m| **m != o.api_name) {
                let args = [("mcp", mcp.as_str()), ("api", o.api_name.as_str())];
                s.push_str(&words.fmt("summary.shown_as", &args));
            }
        }
        // The MCP tools by name; the host's own it deferred too (Claude Code defers a dozen
        // of its own) only counted.
        let held_back =
            |o: &&ToolOrigin| o.delivery != Delivery::Whole && o.kind != Kind::Placeholder;
        let own = view
            .into_iter()
            .flat_map(|v| &v.sent)
            .filter(held_back)
            .filter(|o| o.kind == Kind::Host)
            .count();
        let mut deferred: Vec<String> = view
            .into_iter()
            .flat_map(|v| &v.sent)
            .filter(held_back)
            .filter(|o| o.kind != Kind::Host)
            .map(|o| {
                let (key, seq) = match (o.loaded_in, o.delivery) {
                    (Some(l), _) => ("summary.loaded", seq_of(l)),
                    (None, Delivery::NameOnly) => ("summary.name_only", String::new()),
                    (None, _) => ("summary.not_loaded", String::new()),
                };
                format!("{} {}", o.api_name, words.fmt(key, &[("seq", &seq)]))
            })
            .collect();
        if own > 0 {
            deferred.push(words.fmt("summary.deferred_own", &[("count", &own.to_string())]));
        }
        if !deferred.is_empty() {
            let tools = deferred.join(", ");
            s.push_str(&words.fmt("summary.deferred", &[("tools", &tools)]));
        }
        let first = |why: &str| {
            n == 0
                || !report.llm[n - 1]
                    .offered
                    .unknown
                    .iter()
                    .any(|u| u.why == why)
        };
        let unknown: Vec<String> = x
            .offered
            .unknown
            .iter()
            .filter(|u| first(&u.why))
            .map(|u| format!("{} ({})", u.at, u.why))
            .collect();
        if !unknown.is_empty() {
            let parts = unknown.join("; ");
            let _ = write!(
                s,
                "  {}",
                words.fmt("summary.not_read", &[("parts", &parts)])
            );
        }
        let missing: Vec<String> = view
            .into_iter()
            .flat_map(|v| &v.not_sent)
            .map(|(srv, t, _)| format!("{srv}/{t}"))
            .collect();
        if !missing.is_empty() {
            let tools = names_of(&missing);
            let _ = write!(
                s,
                "  {}",
                words.fmt("summary.not_sent", &[("tools", &tools)])
            );
        }
        return Some((s, Vec::new()));
    }
    if let Some(x) = report.sampling_of(i) {
        let server = x.sampling_for.as_deref().unwrap_or("?");
        let shape = x.shape.map_or("?", |s| s.as_str());
        let status = x.status.map_or("?".to_string(), |s| s.to_string());
        let stop = x.stop_reason.as_deref().unwrap_or("?");
        let text = preview(&x.text, words);
        let line = match x.request == i {
            true => words.fmt(
                "summary.sampling_request",
                &[("shape", shape), ("server", server)],
            ),
            false => words.fmt(
                "summary.sampling_answer",
                &[
                    ("status", &status),
                    ("stop", stop),
                    ("text", &text),
                    ("server", server),
                ],
            ),
        };
        return Some((format!("{arrow}  {line}"), Vec::new()));
    }
    let x = report.llm_response(i)?;
    let status = x.status.map_or("?".to_string(), |s| s.to_string());
    let status = words.fmt("label.http", &[("status", &status)]);
    let latency = crate::trace::latency_us(events[x.request].time, events[i].time);
    let mut s = format!(
        "{arrow}  {status} {}",
        x.stop_reason.as_deref().unwrap_or("?")
    );
    if x.streamed {
        let _ = write!(s, " {}", words.get("summary.streamed"));
    }
    let mut calls: Vec<String> = Vec::new();
    for (id, name, _) in &x.tool_calls {
        let mut call = format!("{} [{id}]", names_of(std::slice::from_ref(name)));
        if let Some(c) = report.chain_asked(i, id) {
            match (c.tools_call, c.tools_result, c.returned_in) {
                (Some(to), result, back) => {
                    let step = |key: &str, i: usize| words.fmt(key, &[("seq", &seq_of(i))]);
                    let _ = write!(call, " {}", step("summary.to_call", to));
                    if let Some(r) = result {
                        let _ = write!(call, " {}", step("summary.to_result", r));
                    }
                    if let Some(b) = back {
                        let _ = write!(call, " {}", step("summary.to_tool_result", b));
                    }
                }
                (None, _, back) if x.runs_itself(name) => {
                    let text = match back {
                        Some(b) => words.fmt("summary.host_ran", &[("seq", &seq_of(b))]),
                        None => words.get("summary.host_runs").to_string(),
                    };
                    let _ = write!(call, " {text}");
                }
                (None, _, Some(b)) => {
                    let text = words.fmt("summary.no_call", &[("seq", &seq_of(b))]);
                    let _ = write!(call, " {text}");
                }
                (None, _, None) => {
                    let _ = write!(call, " {}", words.get("summary.never_sent"));
                }
            }
        }
        calls.push(call);
    }
    let single = calls.len() == 1;
    if single && let Some(call) = calls.pop() {
        let _ = write!(s, " {call}");
    }
    if x.tool_calls.is_empty() && !x.text.is_empty() {
        let _ = write!(s, " \"{}\"", preview(&x.text, words));
    }
    if let Some(p) = &x.problem {
        let _ = write!(s, "  !! {}", preview(p, words));
    }
    if let Some(us) = latency {
        let _ = write!(s, " ({})", crate::wire::text::ms(us));
    }
    if !calls.is_empty() {
        let count = calls.len().to_string();
        let _ = write!(s, ", {}", words.fmt("summary.calls", &[("count", &count)]));
    }
    // What the API's own MCP client did, each step on its own line, with what the server
    // recorded of it.
    let joins = match report.llm_of(i) {
        Some((n, _)) => report.remote_chains_of(events, n),
        None => Vec::new(),
    };
    calls.extend(super::remote::response_lines(x, &joins, &seq_of, words));
    Some((s, calls))
}

/// A request Sightline cannot read (its URL names no API shape it knows): said with its reason
/// on the first such request to that path, pointed back to after.
fn unread(events: &[Event], report: &Report, n: usize, x: &LlmExchange, words: Words) -> String {
    let path = x.url.as_deref().map_or("?", |u| {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        rest.find('/')
            .map_or("/", |p| &rest[p..])
            .split('?')
            .next()
            .unwrap_or("/")
    });
    let earlier = report.llm[..n]
        .iter()
        .find(|e| e.shape.is_none() && e.url.as_deref().is_some_and(|u| u.contains(path)));
    match earlier {
        Some(e) => words.fmt(
            "summary.unread_again",
            &[("seq", &events[e.request].seq.to_string())],
        ),
        None => words.fmt("summary.unread", &[("path", path)]),
    }
}

/// Names in full, however many (the name a scenario is about is never cut), with invisible
/// characters made visible.
fn names_of(names: &[String]) -> String {
    diagram::visible(&names.join(", "), usize::MAX)
}
