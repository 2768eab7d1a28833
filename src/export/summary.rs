//! `sightline summary`: one line per event, in the style of the seed article's demo output.
//!
//! ```text
//!    2  +0.003s  C->S  initialize 2025-11-25
//!    3  +0.017s  S->C  result initialize (14 ms)
//!    9  +0.020s  S     stderr weather MCP server running on stdio
//! ```
//!
//! Problems are marked with `!!` so they stand out in a terminal and in `grep`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::analysis::Report;
use crate::analysis::diagram::{self, Status};
use crate::trace::{Analysis, Channel, Derived, Event, Kind, Lane, Pairing};

/// How many characters of a payload a summary line shows.
const PREVIEW_CHARS: usize = 100;

/// Renders the human summary of a trace.
pub fn text(events: &[Event], report: &Report) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_text(&mut out, events, report);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the human summary of a trace to `w`, a line at a time.
pub fn write_text(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
) -> std::io::Result<()> {
    let names = LaneNames::new(events);
    let t0 = events.first().map(|e| e.time);
    let mut out = String::new();
    for (i, (event, d)) in events.iter().zip(&report.rpc.derived).enumerate() {
        w.write_all(out.as_bytes())?;
        out.clear();
        let offset = t0.map_or(0.0, |t0| seconds_since(t0, event.time));
        let mut text = line(event, d, &names);
        if event.channel == Channel::LlmHttp {
            text = llm_line(events, i, report, &names).unwrap_or(text);
        }
        if event.channel == Channel::Http && matches!(d.kind, Kind::Other | Kind::Invalid) {
            text = http_line(events, i, report, &names).unwrap_or(text);
        }
        if let Some(chain) = report.chain_of_call(i) {
            let _ = write!(
                text,
                "  (model call {} from #{})",
                chain.call_id, events[chain.asked_in].seq
            );
        }
        let _ = writeln!(out, "{:>5}  {:>+9.3}s  {}", event.seq, offset, text);
    }
    let _ = write!(out, "{}", footer(events, &report.rpc));
    out.push_str(&super::context::lines(events, report));
    w.write_all(out.as_bytes())
}

/// An MCP HTTP exchange without a message (`DELETE /mcp (end session)`, `202 Accepted`) or an
/// error page, named as the diagram names it.
fn http_line(events: &[Event], i: usize, report: &Report, names: &LaneNames) -> Option<String> {
    let (label, detail, status) = diagram::row_text(events, report, i);
    if status == Status::Invalid {
        return None;
    }
    let mut s = format!("{}  {label}", names.arrow(&events[i]));
    if let Some(detail) = detail {
        let _ = write!(s, " ({detail})");
    }
    if status == Status::Error {
        s.push_str("  !! HTTP error");
    }
    Some(s)
}

/// An LLM request or response, read: tools offered, calls made, where each call went.
fn llm_line(events: &[Event], i: usize, report: &Report, names: &LaneNames) -> Option<String> {
    let arrow = names.arrow(&events[i]);
    let seq = |i: usize| events[i].seq;
    if let Some((n, x)) = report.llm_request(i) {
        let shape = x.shape.map_or("?", |s| s.as_str());
        let mut s = format!(
            "{arrow}  {shape} request: {} tool(s) [{}]",
            x.tools.len(),
            preview(&x.tools.join(", "))
        );
        if !x.tool_results.is_empty() {
            let _ = write!(s, ", returns results for {}", x.tool_results.join(", "));
        }
        let view = report.tools.get(n);
        for o in view.into_iter().flat_map(|v| &v.sent) {
            if let Some(mcp) = o.mcp_name.as_ref().filter(|m| **m != o.api_name) {
                let _ = write!(s, "; `{mcp}` shown as `{}`", o.api_name);
            }
        }
        let missing: Vec<String> = view
            .into_iter()
            .flat_map(|v| &v.not_sent)
            .map(|(srv, t, _)| format!("{srv}/{t}"))
            .collect();
        if !missing.is_empty() {
            let _ = write!(
                s,
                "  !! listed but not sent: {}",
                preview(&missing.join(", "))
            );
        }
        return Some(s);
    }
    if let Some(x) = report.sampling_of(i) {
        let server = x.sampling_for.as_deref().unwrap_or("?");
        return Some(match x.request == i {
            true => format!(
                "{arrow}  {} request for {server}'s sampling/createMessage (no tools)",
                x.shape.map_or("?", |s| s.as_str())
            ),
            false => format!(
                "{arrow}  {} {} \"{}\" (the answer the host returns to {server})",
                x.status.map_or("?".to_string(), |s| s.to_string()),
                x.stop_reason.as_deref().unwrap_or("?"),
                preview(&x.text)
            ),
        });
    }
    let x = report.llm_response(i)?;
    let status = x.status.map_or("?".to_string(), |s| s.to_string());
    let latency = crate::trace::latency_us(events[x.request].time, events[i].time);
    let mut s = format!(
        "{arrow}  {status} {}",
        x.stop_reason.as_deref().unwrap_or("?")
    );
    if x.streamed {
        s.push_str(" (streamed)");
    }
    for (id, name, _) in &x.tool_calls {
        let _ = write!(s, " {name} [{id}]");
        if let Some(c) = report.chain_asked(i, id) {
            match (c.tools_call, c.tools_result, c.returned_in) {
                (Some(call), result, back) => {
                    let _ = write!(s, " -> tools/call #{}", seq(call));
                    if let Some(r) = result {
                        let _ = write!(s, " -> result #{}", seq(r));
                    }
                    if let Some(b) = back {
                        let _ = write!(s, " -> tool_result in #{}", seq(b));
                    }
                }
                (None, _, Some(b)) => {
                    let _ = write!(s, " -> no tools/call; error returned in #{}", seq(b));
                }
                (None, _, None) => s.push_str(" !! never sent to a server"),
            }
        }
    }
    if x.tool_calls.is_empty() && !x.text.is_empty() {
        let _ = write!(s, " \"{}\"", preview(&x.text));
    }
    if let Some(p) = &x.problem {
        let _ = write!(s, "  !! {}", preview(p));
    }
    if let Some(us) = latency {
        let _ = write!(s, " ({} ms)", us / 1000);
    }
    Some(s)
}

/// One derived JSON record per event (`sightline summary --json`), one per line.
pub fn json_lines(events: &[Event], report: &Report) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_json_lines(&mut out, events, report);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes [`json_lines`] to `w`, a record at a time.
pub fn write_json_lines(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
) -> std::io::Result<()> {
    let mut out = String::new();
    for (i, (event, d)) in events.iter().zip(&report.rpc.derived).enumerate() {
        w.write_all(out.as_bytes())?;
        out.clear();
        let (paired, unanswered, cancelled_by) = match &d.pairing {
            Pairing::AnsweredBy(s) | Pairing::Answers(s) => (Some(*s), None, None),
            Pairing::Unanswered(why) => (None, Some(why.clone()), None),
            Pairing::Cancelled(s) => (None, None, Some(*s)),
            Pairing::None | Pairing::Orphan => (None, None, None),
        };
        let record = json!({
            "seq": event.seq,
            "time": crate::trace::format_time(event.time),
            "from": event.from,
            "to": event.to,
            "channel": event.channel,
            "kind": d.kind.as_str(),
            "method": d.method,
            "id": d.id.as_ref().map(rpc_id_json),
            "paired": paired,
            "latency_ms": d.latency_us.map(|us| us as f64 / 1000.0),
            "unanswered": unanswered,
            "cancelled_by": cancelled_by,
            "orphan": d.pairing == Pairing::Orphan,
            "revision": d.revision,
            "detail": d.detail,
            "problem": d.problem(),
            "error": d.error().map(|(code, message)| json!({"code": code, "message": message})),
            "retry_of": d.retry_of(),
            "input_required": d.input_required,
            "subscription": d.subscription(),
        });
        let mut record = strip_nulls(record);
        let llm = report.llm_of(i).map(|(n, _)| &report.llm[n]);
        if let (Some(x), Value::Object(map)) = (llm, &mut record) {
            let calls: Vec<Value> = x
                .tool_calls
                .iter()
                .map(|(id, name, args)| json!({"id": id, "name": name, "arguments": args}))
                .collect();
            let llm = if x.request == i {
                json!({"shape": x.shape.map(|s| s.as_str()), "tools": x.tools, "tool_results": x.tool_results})
            } else {
                json!({"status": x.status, "stop_reason": x.stop_reason, "tool_calls": calls, "streamed": x.streamed, "problem": x.problem})
            };
            map.insert("llm".into(), llm);
        }
        if let (Some(c), Value::Object(map)) = (report.chain_of_call(i), &mut record) {
            map.insert(
                "model_call".into(),
                json!({"id": c.call_id, "asked_in": events[c.asked_in].seq}),
            );
        }
        let _ = writeln!(out, "{record}");
    }
    w.write_all(out.as_bytes())
}

/// The id as it was on the wire: a JSON number stays a number, a string a string.
fn rpc_id_json(id: &crate::trace::RpcId) -> Value {
    match id {
        crate::trace::RpcId::Int(i) => Value::from(*i),
        crate::trace::RpcId::Number(n) => {
            serde_json::from_str(n).unwrap_or_else(|_| Value::String(n.to_string()))
        }
        crate::trace::RpcId::String(s) => Value::String(s.to_string()),
    }
}

fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null() && *v != Value::Bool(false))
                .collect(),
        ),
        other => other,
    }
}

fn seconds_since(t0: DateTime<Utc>, t: DateTime<Utc>) -> f64 {
    (t - t0).num_microseconds().unwrap_or(0) as f64 / 1e6
}

/// Short names for lanes: `C` and `S` as in the article when there is one server.
struct LaneNames {
    several_servers: bool,
}

impl LaneNames {
    fn new(events: &[Event]) -> Self {
        let mut servers = events
            .iter()
            .flat_map(|e| [&e.from, &e.to])
            .filter(|l| l.is_server());
        let first = servers.next();
        let several_servers = servers.any(|l| Some(l) != first);
        LaneNames { several_servers }
    }

    fn name(&self, lane: &Lane, peer: &Lane) -> String {
        match lane {
            Lane::Host if peer.is_server() => "C".into(),
            Lane::Host => "H".into(),
            Lane::User => "U".into(),
            Lane::Llm => "L".into(),
            Lane::Server(name) if self.several_servers => format!("S:{name}"),
            Lane::Server(_) => "S".into(),
            Lane::Other(s) => s.to_string(),
        }
    }

    fn arrow(&self, e: &Event) -> String {
        format!(
            "{}->{}",
            self.name(&e.from, &e.to),
            self.name(&e.to, &e.from)
        )
    }
}

fn line(e: &Event, d: &Derived, names: &LaneNames) -> String {
    let arrow = names.arrow(e);
    let actor = names.name(&e.from, &e.to);
    let ms = |us: i64| format!("{} ms", (us + 500) / 1000);
    let mut s = match d.kind {
        Kind::Request => {
            let mut s = format!("{arrow}  {}", d.method.as_deref().unwrap_or("?"));
            if let Some(detail) = &d.detail {
                let _ = write!(s, " {}", preview(detail));
            }
            if let Some(id) = &d.id {
                let _ = write!(s, "  [id {id}]");
            }
            s
        }
        Kind::Response => {
            let method = d.method.as_deref().unwrap_or("?");
            let mut s = format!("{arrow}  result {method}");
            if let Some(v) = &d.detail {
                let _ = write!(s, " {}", preview(v));
            }
            if d.input_required {
                s.push_str(" input_required");
            }
            if let Some(us) = d.latency_us {
                let _ = write!(s, " ({})", ms(us));
            }
            s
        }
        Kind::Error => {
            let (code, message) = d.error().unwrap_or((0, ""));
            let mut s = format!("{arrow}  error {code} {}", preview(message));
            match (d.method.as_deref(), d.latency_us) {
                (Some(m), Some(us)) => {
                    let _ = write!(s, " ({m}, {})", ms(us));
                }
                (Some(m), None) => {
                    let _ = write!(s, " ({m})");
                }
                _ => {}
            }
            s
        }
        Kind::Notification => {
            let mut s = format!(
                "{arrow}  notification {}",
                d.method.as_deref().unwrap_or("?")
            );
            if let Some(detail) = &d.detail {
                let _ = write!(s, " ({detail})");
            }
            s
        }
        Kind::Invalid => format!(
            "{arrow}  !! invalid: {}: {}",
            d.problem().unwrap_or("?"),
            preview(&e.text())
        ),
        Kind::Stderr => format!("{actor:<4}  stderr {}", preview(&e.text())),
        Kind::Process => process_line(e, names),
        Kind::Note => format!("{arrow}  note {}", preview(&e.text())),
        Kind::LlmHttp => format!("{arrow}  llm-http {}", preview(&e.text())),
        Kind::Other => format!("{arrow}  {} {}", e.channel.as_str(), preview(&e.text())),
    };
    if let Some(r) = d.retry_of() {
        let _ = write!(s, "  (retry of #{r})");
    }
    if let Some(sub) = d.subscription()
        && d.kind != Kind::Request
    {
        let _ = write!(s, "  (stream #{sub})");
    }
    match &d.pairing {
        Pairing::Unanswered(why) => {
            let _ = write!(s, "  !! unanswered: {why}");
        }
        Pairing::Cancelled(by) => {
            let _ = write!(s, "  (cancelled by #{by})");
        }
        Pairing::Orphan if d.kind == Kind::Response || d.kind == Kind::Error => {
            s.push_str("  !! answers no pending request");
        }
        _ => {}
    }
    s
}

fn process_line(e: &Event, names: &LaneNames) -> String {
    let Some(p) = &e.process else {
        return format!("{}  process (no details)", names.arrow(e));
    };
    let server = if e.from.is_server() { &e.from } else { &e.to };
    let other = if e.from.is_server() { &e.to } else { &e.from };
    let who = names.name(server, other);
    let mut s = match p.event.as_str() {
        "spawn" => format!(
            "{who:<4}  spawned {} (pid {})",
            preview(&p.command.join(" ")),
            p.pid.map_or("?".into(), |p| p.to_string())
        ),
        "spawn-failed" => format!(
            "{who:<4}  !! failed to start {}",
            preview(&p.command.join(" "))
        ),
        "exit" => match (p.code, p.signal) {
            (Some(code), _) => format!("{who:<4}  exited code {code}"),
            (None, Some(sig)) => format!(
                "{who:<4}  exited signal {sig} ({})",
                crate::trace::signal_name(sig)
            ),
            _ => format!("{who:<4}  exited"),
        },
        other => format!("{who:<4}  process {other}"),
    };
    if let Some(detail) = &p.detail {
        let _ = write!(s, ": {}", preview(detail));
    }
    s
}

/// At most [`PREVIEW_CHARS`] characters, with control and invisible characters made visible,
/// and the full length when it was cut.
fn preview(text: &str) -> String {
    let shown = crate::analysis::diagram::visible(text, PREVIEW_CHARS);
    let total = text.chars().count();
    if total > PREVIEW_CHARS {
        format!("{shown} ({total} chars)")
    } else {
        shown
    }
}

fn footer(events: &[Event], a: &Analysis) -> String {
    let count = |k: Kind| a.derived.iter().filter(|d| d.kind == k).count();
    let unanswered = a.derived.iter().filter(|d| d.is_unanswered()).count();
    let mut s = format!(
        "-- {} events: {} requests ({} unanswered), {} responses, {} errors, {} notifications, {} invalid, {} stderr lines\n",
        events.len(),
        count(Kind::Request),
        unanswered,
        count(Kind::Response),
        count(Kind::Error),
        count(Kind::Notification),
        count(Kind::Invalid),
        count(Kind::Stderr),
    );
    for (lane, session) in &a.sessions {
        let _ = writeln!(
            s,
            "-- {lane}: revision {}{}{}",
            session.revision.as_deref().unwrap_or("unknown"),
            if session.stateless {
                " (stateless: server/discover and per-request _meta)"
            } else {
                ""
            },
            session
                .server_name
                .as_ref()
                .map_or(String::new(), |n| format!(", serverInfo.name {n}")),
        );
    }
    let direct = events
        .iter()
        .filter(|e| e.channel != Channel::Process)
        .filter(|e| {
            (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm)
        })
        .count();
    if events
        .iter()
        .any(|e| e.from == Lane::Llm || e.to == Lane::Llm)
    {
        let _ = writeln!(s, "-- messages between the model and any server: {direct}");
    }
    s
}
