//! `sightline summary`: one line per event, in the style of the seed article's demo output.
//!
//! ```text
//! -- lanes: U user, H host (its LLM loop), C the host's MCP client, S server weather, L LLM API
//!     2     +0.019s  C->S  initialize 2025-11-25  [id 0]
//!     4     +0.021s  S->C  result initialize 2025-11-25 (2 ms)
//!     3     +0.020s  S     stderr weather MCP server running on stdio
//! ```
//!
//! The first line names the lanes the letters stand for, as a class needs on first sight.
//! Problems are marked with `!!` so they stand out in a terminal and in `grep`. The LLM lane's
//! lines are in [`llm`] (the API's own MCP client's in [`remote`]), the JSON form (`--json`) in [`json`].

mod json;
mod llm;
mod remote;

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

pub use json::{json_lines, write_json_lines, write_json_lines_kept};

use crate::analysis::Report;
use crate::analysis::narration::unanswered_reason;
use crate::i18n::{Language, Words};
use crate::trace::{Analysis, Channel, Derived, Event, Kind, Lane, Pairing};
use crate::wire::text::ms;

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
    write_text_kept(w, events, report, lang, &|_| true)
}

/// [`write_text_in`] with only the events `keep` keeps (a display filter, `--filter`): each
/// line as the whole trace's analysis reads it (a kept request's answer counts though it is not
/// shown); the legend and the footer stay the whole trace's.
pub fn write_text_kept(
    w: &mut dyn std::io::Write,
    events: &[Event],
    report: &Report,
    lang: Language,
    keep: &dyn Fn(usize) -> bool,
) -> std::io::Result<()> {
    let words = Words::of(lang);
    let names = LaneNames::new(events);
    let t0 = events.first().map(|e| e.time);
    let mut out = String::new();
    if let Some(legend) = names.legend(events, words) {
        let _ = writeln!(out, "{legend}");
    }
    for (i, (event, d)) in events.iter().zip(&report.rpc.derived).enumerate() {
        if !keep(i) {
            continue;
        }
        w.write_all(out.as_bytes())?;
        out.clear();
        let offset = t0.map_or(0.0, |t0| seconds_since(t0, event.time));
        let mut text = line(event, d, &names, words);
        let mut calls = Vec::new();
        if event.channel == Channel::LlmHttp
            && let Some((head, more)) = llm::llm_line(events, i, report, &names, words)
        {
            (text, calls) = (head, more);
        }
        if event.channel == Channel::Http && matches!(d.kind, Kind::Other | Kind::Invalid) {
            text = llm::http_line(events, i, report, &names, words).unwrap_or(text);
        }
        if let Some(chain) = report.chain_of_call(i) {
            let seq = events[chain.asked_in].seq.to_string();
            let call = words.fmt("row.model_call", &[("id", &chain.call_id), ("seq", &seq)]);
            let _ = write!(text, "  ({call})");
        }
        let _ = writeln!(out, "{:>5}  {:>+9.3}s  {}", event.seq, offset, text);
        // Each tool call of a response on its own line, under the response's text.
        let indent = 19 + names.arrow(event).chars().count() + 2;
        for call in calls {
            let _ = writeln!(out, "{:indent$}{call}", "");
        }
    }
    let _ = write!(out, "{}", footer(events, &report.rpc, words));
    out.push_str(&super::context::lines_in(events, report, words));
    w.write_all(out.as_bytes())
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

    /// `-- lanes: U user, H host (its LLM loop), ...`: each letter the summary uses, in the
    /// order it first appears; `None` for a trace without events.
    fn legend(&self, events: &[Event], words: Words) -> Option<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut parts: Vec<String> = Vec::new();
        for e in events {
            for (lane, peer) in [(&e.from, &e.to), (&e.to, &e.from)] {
                let letter = self.name(lane, peer);
                if seen.contains(&letter) {
                    continue;
                }
                let key = match lane {
                    Lane::User => "summary.lane_u",
                    Lane::Host if peer.is_server() => "summary.lane_c",
                    Lane::Host => "summary.lane_h",
                    Lane::Llm => "summary.lane_l",
                    Lane::Server(_) => "summary.lane_s",
                    Lane::Other(_) => continue,
                };
                let name = match lane {
                    Lane::Server(name) => name.to_string(),
                    _ => String::new(),
                };
                let args = [("letter", letter.as_str()), ("name", name.as_str())];
                parts.push(words.fmt(key, &args));
                seen.push(letter);
            }
        }
        (!parts.is_empty()).then(|| {
            let lanes = parts.join(", ");
            words.fmt("summary.legend", &[("lanes", &lanes)])
        })
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
    let mut s = match d.kind {
        Kind::Request => {
            let mut s = format!("{arrow}  {}", d.method.as_deref().unwrap_or("?"));
            if let Some(detail) = &d.detail {
                let _ = write!(s, " {}", preview(detail, words));
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
                let _ = write!(s, " {}", preview(v, words));
            }
            if d.input_required {
                s.push_str(" input_required");
            }
            if let Some(us) = d.latency_us() {
                let _ = write!(s, " ({})", ms(us));
            }
            s
        }
        Kind::Error => {
            let (code, message) = d.error().unwrap_or((0, ""));
            let error = words.get("summary.error");
            let mut s = format!("{arrow}  {error} {code} {}", preview(message, words));
            match (d.method.as_deref(), d.latency_us()) {
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
            crate::analysis::trace_error::why_invalid(d.problem()).say(words),
            preview(&e.text(), words)
        ),
        Kind::Stderr => format!("{actor:<4}  stderr {}", preview(&e.text(), words)),
        Kind::Process => process_line(e, names, words),
        // The host's own notes explain a step (why a tool is dropped or renamed): in full, and
        // in another language as the narration says them (the trace keeps Sightline's English).
        Kind::Note if e.from == Lane::Host && e.to == Lane::Host => {
            let text = e.text();
            let said = match words.lang {
                Language::En => text.into_owned(),
                lang => crate::analysis::narration::note_in(Lane::Host, Lane::Host, &text, lang),
            };
            format!(
                "{arrow}  {} {}",
                words.get("summary.note"),
                crate::analysis::diagram::visible(&said, usize::MAX)
            )
        }
        // The host's notes of an elicitation (the question put to the user, the answer), as
        // the narration says them.
        Kind::Note
            if words.lang != Language::En
                && matches!(
                    (&e.from, &e.to),
                    (Lane::Host, Lane::User) | (Lane::User, Lane::Host)
                )
                && (e.text().contains("` asks the user: ")
                    || e.text().starts_with("the user answers: ")) =>
        {
            let text = e.text();
            let said = crate::analysis::narration::note_in(
                e.from.clone(),
                e.to.clone(),
                &text,
                words.lang,
            );
            format!(
                "{arrow}  {} {}",
                words.get("summary.note"),
                preview(&said, words)
            )
        }
        Kind::Note => format!(
            "{arrow}  {} {}",
            words.get("summary.note"),
            preview(&e.text(), words)
        ),
        Kind::LlmHttp => format!("{arrow}  llm-http {}", preview(&e.text(), words)),
        Kind::Other => format!(
            "{arrow}  {} {}",
            e.channel.as_str(),
            preview(&e.text(), words)
        ),
    };
    let seq = |key: &str, seq: u64| words.fmt(key, &[("seq", &seq.to_string())]);
    if let Some(r) = d.retry_of() {
        let _ = write!(s, "  ({})", seq("row.retry_of", r));
    }
    if let Some(sub) = d.subscription()
        && d.kind != Kind::Request
    {
        let _ = write!(s, "  {}", seq("summary.stream", sub));
    }
    match &d.pairing {
        Pairing::Unanswered(why) => {
            let why = unanswered_reason(words, why);
            let _ = write!(s, "  !! {}", words.fmt("row.unanswered", &[("why", &why)]));
        }
        Pairing::Cancelled(by) => {
            let _ = write!(s, "  ({})", seq("row.cancelled_by", *by));
        }
        Pairing::Orphan if d.kind == Kind::Response || d.kind == Kind::Error => {
            let _ = write!(s, "  !! {}", words.get("row.orphan"));
        }
        _ => {}
    }
    s
}

fn process_line(e: &Event, names: &LaneNames, words: Words) -> String {
    let Some(p) = e.process() else {
        return format!("{}  {}", names.arrow(e), words.get("process.none"));
    };
    let server = if e.from.is_server() { &e.from } else { &e.to };
    let other = if e.from.is_server() { &e.to } else { &e.from };
    let who = names.name(server, other);
    let command = preview(&p.command.join(" "), words);
    let label = crate::analysis::diagram::process_label(p, &command, words);
    let text = match (p.event.as_str(), p.pid) {
        ("spawn", Some(pid)) => format!("{label} (pid {pid})"),
        ("spawn", None) => format!("{label} (pid ?)"),
        ("spawn-failed", _) => format!("!! {label}"),
        _ => label,
    };
    let mut s = format!("{who:<4}  {text}");
    if let Some(detail) = &p.detail {
        let detail = crate::analysis::diagram::process_detail(detail, words);
        let _ = write!(s, ": {}", preview(&detail, words));
    }
    s
}

/// At most [`PREVIEW_CHARS`] characters, with control and invisible characters made visible,
/// and the full length when it was cut (in `words`).
pub(super) fn preview(text: &str, words: Words) -> String {
    let shown = crate::analysis::diagram::visible(text, PREVIEW_CHARS);
    let total = text.chars().count();
    if total > PREVIEW_CHARS {
        let total = total.to_string();
        words.fmt("summary.cut", &[("text", &shown), ("total", &total)])
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
        .filter(|e| crate::analysis::diagram::crosses_gap(e))
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
