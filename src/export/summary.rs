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
use crate::analysis::narration::unanswered_reason;
use crate::i18n::{Language, Words};
use crate::trace::{Analysis, Channel, Derived, Event, Kind, Lane, Pairing};

/// How many characters of a payload a summary line shows.
const PREVIEW_CHARS: usize = 100;

/// Renders the human summary of a trace, in English.
pub fn text(events: &[Event], report: &Report) -> String {
    text_in(events, report, Language::En)
}

/// Renders the human summary of a trace in `lang`.
pub fn text_in(events: &[Event], report: &Report, lang: Language) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_text_in(&mut out, events, report, lang);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the human summary of a trace to `w`, a line at a time, in English.
pub fn write_text(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
) -> std::io::Result<()> {
    write_text_in(w, events, report, Language::En)
}

/// Writes the human summary of a trace to `w`, a line at a time, in `lang`. Methods, lane
/// letters, ids and quoted payloads are the same in every language; the words around them are
/// the reader's (`summary.*` keys).
pub fn write_text_in(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
    lang: Language,
) -> std::io::Result<()> {
    let words = Words::of(lang);
    let names = LaneNames::new(events);
    let t0 = events.first().map(|e| e.time);
    let mut out = String::new();
    for (i, (event, d)) in events.iter().zip(&report.rpc.derived).enumerate() {
        w.write_all(out.as_bytes())?;
        out.clear();
        let offset = t0.map_or(0.0, |t0| seconds_since(t0, event.time));
        let mut text = line(event, d, &names, words);
        if event.channel == Channel::LlmHttp {
            text = llm_line(events, i, report, &names, words).unwrap_or(text);
        }
        if event.channel == Channel::Http && matches!(d.kind, Kind::Other | Kind::Invalid) {
            text = http_line(events, i, report, &names, words).unwrap_or(text);
        }
        if let Some(chain) = report.chain_of_call(i) {
            let seq = events[chain.asked_in].seq.to_string();
            let call = words.fmt(
                "summary.model_call",
                &[("id", &chain.call_id), ("seq", &seq)],
            );
            let _ = write!(text, "  {call}");
        }
        let _ = writeln!(out, "{:>5}  {:>+9.3}s  {}", event.seq, offset, text);
    }
    let _ = write!(out, "{}", footer(events, &report.rpc, words));
    out.push_str(&super::context::lines_in(events, report, words));
    w.write_all(out.as_bytes())
}

/// An MCP HTTP exchange without a message (`DELETE /mcp (end session)`, `202 Accepted`) or an
/// error page, named as the diagram names it.
fn http_line(
    events: &[Event],
    i: usize,
    report: &Report,
    names: &LaneNames,
    words: Words,
) -> Option<String> {
    let (label, detail, status) = diagram::row_text(events, report, i);
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

/// An LLM request or response, read: tools offered, calls made, where each call went.
fn llm_line(
    events: &[Event],
    i: usize,
    report: &Report,
    names: &LaneNames,
    words: Words,
) -> Option<String> {
    let seq_of = |i: usize| events[i].seq.to_string();
    let arrow = names.arrow(&events[i]);
    if let Some((n, x)) = report.llm_request(i) {
        let shape = x.shape.map_or("?", |s| s.as_str());
        let (count, tools) = (x.tools.len().to_string(), preview(&x.tools.join(", ")));
        let args = [("shape", shape), ("count", &count), ("tools", &tools)];
        let mut s = format!("{arrow}  {}", words.fmt("summary.llm_request", &args));
        if !x.tool_results.is_empty() {
            let tools = x.tool_results.join(", ");
            s.push_str(&words.fmt("summary.returns_results", &[("tools", &tools)]));
        }
        let view = report.tools.get(n);
        for o in view.into_iter().flat_map(|v| &v.sent) {
            if let Some(mcp) = o.mcp_name.as_ref().filter(|m| **m != o.api_name) {
                let args = [("mcp", mcp.as_str()), ("api", o.api_name.as_str())];
                s.push_str(&words.fmt("summary.shown_as", &args));
            }
        }
        let missing: Vec<String> = view
            .into_iter()
            .flat_map(|v| &v.not_sent)
            .map(|(srv, t, _)| format!("{srv}/{t}"))
            .collect();
        if !missing.is_empty() {
            let tools = preview(&missing.join(", "));
            let _ = write!(
                s,
                "  {}",
                words.fmt("summary.not_sent", &[("tools", &tools)])
            );
        }
        return Some(s);
    }
    if let Some(x) = report.sampling_of(i) {
        let server = x.sampling_for.as_deref().unwrap_or("?");
        let shape = x.shape.map_or("?", |s| s.as_str());
        let status = x.status.map_or("?".to_string(), |s| s.to_string());
        let stop = x.stop_reason.as_deref().unwrap_or("?");
        let text = preview(&x.text);
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
        return Some(format!("{arrow}  {line}"));
    }
    let x = report.llm_response(i)?;
    let status = x.status.map_or("?".to_string(), |s| s.to_string());
    let latency = crate::trace::latency_us(events[x.request].time, events[i].time);
    let mut s = format!(
        "{arrow}  {status} {}",
        x.stop_reason.as_deref().unwrap_or("?")
    );
    if x.streamed {
        let _ = write!(s, " {}", words.get("summary.streamed"));
    }
    for (id, name, _) in &x.tool_calls {
        let _ = write!(s, " {name} [{id}]");
        if let Some(c) = report.chain_asked(i, id) {
            match (c.tools_call, c.tools_result, c.returned_in) {
                (Some(call), result, back) => {
                    let step = |key: &str, i: usize| words.fmt(key, &[("seq", &seq_of(i))]);
                    let _ = write!(s, " {}", step("summary.to_call", call));
                    if let Some(r) = result {
                        let _ = write!(s, " {}", step("summary.to_result", r));
                    }
                    if let Some(b) = back {
                        let _ = write!(s, " {}", step("summary.to_tool_result", b));
                    }
                }
                (None, _, Some(b)) => {
                    let text = words.fmt("summary.no_call", &[("seq", &seq_of(b))]);
                    let _ = write!(s, " {text}");
                }
                (None, _, None) => {
                    let _ = write!(s, " {}", words.get("summary.never_sent"));
                }
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

fn line(e: &Event, d: &Derived, names: &LaneNames, words: Words) -> String {
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
            let mut s = format!("{arrow}  {} {method}", words.get("summary.result"));
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
            let error = words.get("summary.error");
            let mut s = format!("{arrow}  {error} {code} {}", preview(message));
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
                "{arrow}  {} {}",
                words.get("summary.notification"),
                d.method.as_deref().unwrap_or("?")
            );
            if let Some(detail) = &d.detail {
                let _ = write!(s, " ({detail})");
            }
            s
        }
        Kind::Invalid => format!(
            "{arrow}  {}: {}: {}",
            words.get("summary.invalid"),
            d.problem().unwrap_or("?"),
            preview(&e.text())
        ),
        Kind::Stderr => format!("{actor:<4}  stderr {}", preview(&e.text())),
        Kind::Process => process_line(e, names, words),
        Kind::Note => format!(
            "{arrow}  {} {}",
            words.get("summary.note"),
            preview(&e.text())
        ),
        Kind::LlmHttp => format!("{arrow}  llm-http {}", preview(&e.text())),
        Kind::Other => format!("{arrow}  {} {}", e.channel.as_str(), preview(&e.text())),
    };
    let seq = |key: &str, seq: u64| words.fmt(key, &[("seq", &seq.to_string())]);
    if let Some(r) = d.retry_of() {
        let _ = write!(s, "  {}", seq("summary.retry_of", r));
    }
    if let Some(sub) = d.subscription()
        && d.kind != Kind::Request
    {
        let _ = write!(s, "  {}", seq("summary.stream", sub));
    }
    match &d.pairing {
        Pairing::Unanswered(why) => {
            let why = unanswered_reason(words, why);
            let _ = write!(s, "  {}", words.fmt("summary.unanswered", &[("why", &why)]));
        }
        Pairing::Cancelled(by) => {
            let _ = write!(s, "  {}", seq("summary.cancelled_by", *by));
        }
        Pairing::Orphan if d.kind == Kind::Response || d.kind == Kind::Error => {
            let _ = write!(s, "  {}", words.get("summary.orphan"));
        }
        _ => {}
    }
    s
}

fn process_line(e: &Event, names: &LaneNames, words: Words) -> String {
    let Some(p) = &e.process else {
        return format!("{}  {}", names.arrow(e), words.get("summary.process_none"));
    };
    let server = if e.from.is_server() { &e.from } else { &e.to };
    let other = if e.from.is_server() { &e.to } else { &e.from };
    let who = names.name(server, other);
    let command = preview(&p.command.join(" "));
    let pid = p.pid.map_or("?".into(), |p| p.to_string());
    let text = match p.event.as_str() {
        "spawn" => words.fmt("summary.spawned", &[("command", &command), ("pid", &pid)]),
        "spawn-failed" => words.fmt("summary.spawn_failed", &[("command", &command)]),
        "exit" => match (p.code, p.signal) {
            (Some(code), _) => words.fmt("summary.exited_code", &[("code", &code.to_string())]),
            (None, Some(sig)) => words.fmt(
                "summary.exited_signal",
                &[
                    ("signal", &sig.to_string()),
                    ("name", crate::trace::signal_name(sig)),
                ],
            ),
            _ => words.get("summary.exited").to_string(),
        },
        other => words.fmt("summary.process", &[("event", other)]),
    };
    let mut s = format!("{who:<4}  {text}");
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

fn footer(events: &[Event], a: &Analysis, words: Words) -> String {
    let count = |k: Kind| a.derived.iter().filter(|d| d.kind == k).count().to_string();
    let unanswered = a.derived.iter().filter(|d| d.is_unanswered()).count();
    let totals = words.fmt(
        "summary.footer",
        &[
            ("events", &events.len().to_string()),
            ("requests", &count(Kind::Request)),
            ("unanswered", &unanswered.to_string()),
            ("responses", &count(Kind::Response)),
            ("errors", &count(Kind::Error)),
            ("notifications", &count(Kind::Notification)),
            ("invalid", &count(Kind::Invalid)),
            ("stderr", &count(Kind::Stderr)),
        ],
    );
    let mut s = format!("{totals}\n");
    for (lane, session) in &a.sessions {
        let revision = session
            .revision
            .as_deref()
            .unwrap_or_else(|| words.get("summary.revision_unknown"));
        let stateless = if session.stateless {
            words.get("summary.stateless")
        } else {
            ""
        };
        let server = session.server_name.as_ref().map_or(String::new(), |n| {
            words.fmt("summary.server_name", &[("name", n.as_str())])
        });
        let lane = lane.to_string();
        let args = [
            ("lane", lane.as_str()),
            ("revision", revision),
            ("stateless", stateless),
            ("server", server.as_str()),
        ];
        let _ = writeln!(s, "{}", words.fmt("summary.revision", &args));
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
        let direct = direct.to_string();
        let _ = writeln!(s, "{}", words.fmt("summary.direct", &[("count", &direct)]));
    }
    s
}
