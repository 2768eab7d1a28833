//! What each row says: its style, its status, a short label and a detail line.

mod http;

use serde_json::Value;

use super::{Status, Style};
use crate::analysis::Report;
use crate::analysis::chars::{self, Spelling};
use crate::i18n::{Language, Words};
use crate::trace::{Channel, Derived, Event, Kind, Lane, Pairing, ProcessInfo, StopNote};
use crate::wire::text::clip;
pub(super) use crate::wire::text::ms;

/// Longest label, in characters.
pub(super) const LABEL_CHARS: usize = 60;
/// Longest detail, in characters.
pub(super) const DETAIL_CHARS: usize = 100;
/// Longest name or qualifier inside a label (a tool name, a uri).
pub(super) const NAME_CHARS: usize = 40;

/// At most `max_chars` characters of `text` on one line: control characters (newlines, tabs,
/// escapes) and invisible ones ([`chars::is_hidden`]) written out as `\u{..}`, and `…` at the
/// end when something was cut.
pub fn visible(text: &str, max_chars: usize) -> String {
    chars::escape(&clip(text, max_chars), Spelling::Padded).into_owned()
}

/// The label, detail and status of event `i`'s row in `lang`, without building the whole
/// diagram (for text exports).
pub fn row_text(
    events: &[Event],
    report: &Report,
    i: usize,
    lang: Language,
) -> (String, Option<String>, Status) {
    let text = Context { events, report }.describe_in(i, lang);
    (text.label, text.detail, text.status)
}

/// The text of one row.
pub(super) struct Text {
    pub style: Style,
    pub status: Status,
    /// What the problem is, for [`Status::Problem`].
    pub problem: Option<String>,
    pub label: String,
    pub detail: Option<String>,
}

pub(super) struct Context<'a> {
    pub events: &'a [Event],
    pub report: &'a Report,
}

/// Collects detail parts, joined with `, `.
#[derive(Default)]
pub(super) struct Parts(Vec<String>);

impl Parts {
    pub(super) fn add(&mut self, part: impl Into<String>) {
        let part = part.into();
        if !part.is_empty() {
            self.0.push(part);
        }
    }

    pub(super) fn done(self) -> Option<String> {
        (!self.0.is_empty()).then(|| visible(&self.0.join(", "), DETAIL_CHARS))
    }
}

impl Context<'_> {
    /// Event `i`'s row, its words in English (laying out, where only style and status count).
    pub fn describe(&self, i: usize) -> Text {
        self.describe_in(i, Language::En)
    }

    /// Event `i`'s row with its words in `lang`: a process's life, a stderr line, the host's
    /// own notes, a label's own words (`result`, `error`, `request · tools:`) and a row's
    /// secondary words are said in the class's language; the protocol's names (methods,
    /// `end_turn`, `isError`) stay, and what a party wrote is quoted as it is.
    pub fn describe_in(&self, i: usize, lang: Language) -> Text {
        let words = Words::of(lang);
        let e = &self.events[i];
        let Some(d) = self.report.rpc.derived.get(i) else {
            return self.other(e);
        };
        match d.kind {
            Kind::Request | Kind::Response | Kind::Error | Kind::Notification | Kind::Invalid => {
                let text = self.jsonrpc(i, e, d, words);
                match e.http() {
                    Some(h) if e.channel == Channel::Http => self.http_status(i, e, h, text, words),
                    _ => text,
                }
            }
            Kind::Stderr => Text {
                style: Style::Stderr,
                status: Status::Ok,
                problem: None,
                label: visible(
                    &words.fmt("process.stderr", &[("text", &e.text())]),
                    LABEL_CHARS,
                ),
                detail: None,
            },
            Kind::Process => process(e, lang),
            Kind::Note => Text {
                style: Style::Note,
                status: Status::Ok,
                problem: None,
                label: nonempty(visible(&self.note(i, e, lang), LABEL_CHARS), words),
                detail: None,
            },
            Kind::LlmHttp => self.llm(i, e, words),
            Kind::Other => match e.http() {
                Some(h) if e.channel == Channel::Http => self.http_exchange(i, e, h, words),
                _ => self.other(e),
            },
        }
    }

    /// The style and status of event `i`'s row without its text, for the common rows (JSON-RPC
    /// messages, stderr, notes) whose status needs no label: laying out a big trace asks this
    /// of every row. `None` for the rest (LLM, process, HTTP statuses, unknown channels),
    /// which [`Context::describe`] answers. Always what `describe` says, with no problem.
    pub fn style_status(&self, i: usize) -> Option<(Style, Status)> {
        let e = &self.events[i];
        let d = self.report.rpc.derived.get(i)?;
        let (style, mut status) = match d.kind {
            Kind::Request => (Style::Request, Status::Ok),
            Kind::Response => (Style::Response, Status::Ok),
            Kind::Error => (Style::Error, Status::Error),
            Kind::Notification => (Style::Notification, Status::Ok),
            Kind::Invalid => (Style::Invalid, Status::Invalid),
            Kind::Stderr => return Some((Style::Stderr, Status::Ok)),
            Kind::Note => return Some((Style::Note, Status::Ok)),
            Kind::Process | Kind::LlmHttp | Kind::Other => return None,
        };
        if e.channel == Channel::Http
            && e.http().is_some_and(|h| h.status.is_some_and(|c| c != 200))
        {
            return None;
        }
        match &d.pairing {
            Pairing::Unanswered(_) => status = Status::Unanswered,
            Pairing::Cancelled(_) => status = Status::Cancelled,
            Pairing::Orphan
                if matches!(d.kind, Kind::Response | Kind::Error) && status == Status::Ok =>
            {
                status = Status::Orphan;
            }
            _ => {}
        }
        Some((style, status))
    }

    /// A note's words: what the user and the model said, as said; the host's notes about
    /// itself and an elicitation's question and answer (Sightline's English in the trace) as
    /// the narration says them in `lang`.
    fn note(&self, i: usize, e: &Event, lang: Language) -> String {
        let text = e.text();
        let host_own = e.from == Lane::Host && e.to == Lane::Host;
        let elicitation = match (&e.from, &e.to) {
            (Lane::Host, Lane::User) => text.starts_with("server `"),
            (Lane::User, Lane::Host) => text.starts_with("the user answers: "),
            _ => false,
        };
        if lang == Language::En || !(host_own || elicitation) {
            return text.into_owned();
        }
        crate::analysis::narration::narrate(
            self.events,
            self.report,
            i,
            crate::i18n::shared(),
            lang,
        )
    }

    fn other(&self, e: &Event) -> Text {
        Text {
            style: Style::Note,
            status: Status::Ok,
            problem: None,
            label: visible(
                &format!("{}: {}", e.channel.as_str(), e.text()),
                LABEL_CHARS,
            ),
            detail: None,
        }
    }

    pub(super) fn seq(&self, index: usize) -> u64 {
        self.events[index].seq
    }

    fn jsonrpc(&self, i: usize, e: &Event, d: &Derived, words: Words) -> Text {
        let method = d.method.as_deref().unwrap_or("?");
        let qualifier = d.detail.as_deref().map(|q| visible(q, NAME_CHARS));
        let with_qualifier = |head: String| match &qualifier {
            Some(q) => format!("{head} {q}"),
            None => head,
        };
        let mut parts = Parts::default();
        let mut status = Status::Ok;
        let (style, label) = match d.kind {
            Kind::Request | Kind::Notification => {
                let style = match d.kind {
                    Kind::Request => Style::Request,
                    _ => Style::Notification,
                };
                (style, message_head(d, false, words).unwrap_or_default())
            }
            Kind::Response => {
                if let Some(us) = d.latency_us() {
                    parts.add(ms(us));
                }
                let is_error = method == "tools/call" && tool_result_is_error(e);
                (
                    Style::Response,
                    message_head(d, is_error, words).unwrap_or_default(),
                )
            }
            Kind::Error => {
                status = Status::Error;
                let (code, message) = d.error().unwrap_or((0, ""));
                if let Some(m) = &d.method {
                    parts.add(with_qualifier(m.to_string()));
                }
                if let Some(us) = d.latency_us() {
                    parts.add(ms(us));
                }
                let label = words.fmt(
                    "label.error",
                    &[("code", &code.to_string()), ("message", message)],
                );
                (Style::Error, label)
            }
            _ => {
                status = Status::Invalid;
                // "not JSON" in the label; the line itself and the reader's complaint
                // ("expected value at line 1 column 1") in the detail.
                let (short, why) = match d.problem() {
                    Some(p) => crate::analysis::trace_error::invalid_parts(p),
                    None => (crate::analysis::trace_error::why_invalid(None), None),
                };
                parts.add(format!("\"{}\"", visible(&e.text(), 50)));
                if let Some(why) = why {
                    parts.add(why.say(words));
                }
                (
                    Style::Invalid,
                    words.fmt("label.invalid", &[("problem", &short.say(words))]),
                )
            }
        };
        if let Some(id) = &d.id {
            parts.add(format!("id {id}"));
        }
        let seq = |key: &str, seq: u64| words.fmt(key, &[("seq", &seq.to_string())]);
        if let Some(r) = d.retry_of() {
            parts.add(seq("row.retry_of", r));
        }
        if let Some(sub) = d.subscription()
            && d.kind != Kind::Request
        {
            parts.add(format!("stream #{sub}"));
        }
        if let Some(c) = self.report.chain_of_call(i) {
            let asked_in = self.seq(c.asked_in).to_string();
            parts.add(words.fmt("row.model_call", &[("id", &c.call_id), ("seq", &asked_in)]));
        }
        match &d.pairing {
            Pairing::Unanswered(why) => {
                status = Status::Unanswered;
                let why = crate::analysis::narration::unanswered_reason(words, why);
                parts.add(words.fmt("row.unanswered", &[("why", &why)]));
            }
            Pairing::Cancelled(by) => {
                status = Status::Cancelled;
                parts.add(seq("row.cancelled_by", *by));
            }
            Pairing::Orphan if matches!(d.kind, Kind::Response | Kind::Error) => {
                if status == Status::Ok {
                    status = Status::Orphan;
                }
                parts.add(words.get("row.orphan"));
            }
            _ => {}
        }
        Text {
            style,
            status,
            problem: None,
            label: nonempty(visible(&label, LABEL_CHARS), words),
            detail: parts.done(),
        }
    }
}

/// The label of a request, result or notification row before it is cut, in `words`: its
/// method and qualifier, from the analysis alone, and whether a `tools/call` result says
/// `isError`. `None` for other kinds.
fn message_head(d: &Derived, is_error: bool, words: Words) -> Option<String> {
    let method = d.method.as_deref().unwrap_or("?");
    // The request a cancellation names is said in the reader's words (`request #5`).
    let qualifier = match (method, d.detail.as_deref()) {
        ("notifications/cancelled", Some(q)) => match q.strip_prefix("request #") {
            Some(seq) => Some(words.fmt("label.cancels", &[("seq", seq)])),
            None => Some(q.to_string()),
        },
        (_, q) => q.map(str::to_string),
    };
    let with_qualifier = |head: String| match &qualifier {
        Some(q) => format!("{head} {}", visible(q, NAME_CHARS)),
        None => head,
    };
    match d.kind {
        Kind::Request | Kind::Notification => Some(with_qualifier(method.to_string())),
        Kind::Response => {
            let mut label = match &d.method {
                Some(m) => with_qualifier(words.fmt("label.result_of", &[("method", m)])),
                None => words.get("label.result").to_string(),
            };
            if d.input_required {
                label.push_str(" input_required");
            }
            if is_error {
                label.push_str(" isError");
            }
            Some(label)
        }
        _ => None,
    }
}

/// Whether the label of event `i`'s row is [`message_label`]'s: a request, result or
/// notification whose label nothing but its analysis decides (no HTTP status shown).
pub fn has_message_label(e: &Event, d: &Derived) -> bool {
    let status_shown =
        e.channel == Channel::Http && e.http().is_some_and(|h| h.status.is_some_and(|c| c != 200));
    matches!(d.kind, Kind::Request | Kind::Response | Kind::Notification) && !status_shown
}

/// The label of a row [`has_message_label`] is true of, in `words`, from the analysis alone;
/// for the result of a `tools/call`, as it reads when the result says `isError` or not. What
/// [`Context::describe_in`] labels it. Labels repeat across a trace, so a filter can look at
/// each distinct one once.
pub fn message_label(d: &Derived, is_error: bool, words: Words) -> String {
    let is_error =
        is_error && d.kind == Kind::Response && d.method.as_deref() == Some("tools/call");
    nonempty(
        visible(
            &message_head(d, is_error, words).unwrap_or_default(),
            LABEL_CHARS,
        ),
        words,
    )
}

/// `label`, or `(empty)` in `words` when it shows nothing (no text, or only spaces): a row
/// always says something, in every picture.
pub(super) fn nonempty(label: String, words: Words) -> String {
    if label.trim().is_empty() {
        words.get("label.empty").to_string()
    } else {
        label
    }
}

/// Whether a `tools/call` result says `isError: true`.
pub fn tool_result_is_error(e: &Event) -> bool {
    serde_json::from_str::<Value>(&e.text())
        .ok()
        .and_then(|v| v.pointer("/result/isError").and_then(Value::as_bool))
        .unwrap_or(false)
}

/// What a process event says, in `words`: `spawned COMMAND`, `exited code 0`. One home for
/// the diagram's note and `summary`'s line, each naming the command its own way.
pub fn process_label(p: &ProcessInfo, command: &str, words: Words) -> String {
    match p.event.as_str() {
        "spawn" => words.fmt("process.spawned", &[("command", command)]),
        "spawn-failed" => words.fmt("process.spawn_failed", &[("command", command)]),
        "exit" => match (p.code, p.signal) {
            (Some(code), _) => words.fmt("process.exited_code", &[("code", &code.to_string())]),
            (None, Some(sig)) => words.fmt(
                "process.exited_signal",
                &[
                    ("signal", &sig.to_string()),
                    ("name", crate::trace::signal_name(sig)),
                ],
            ),
            _ => words.get("process.exited").to_string(),
        },
        other => words.fmt("process.other", &[("event", other)]),
    }
}

/// A process event's recorded detail, in `words`: what Sightline had to do to stop the server
/// ([`StopNote`]) said in the reader's language, any other detail (the system's own words on a
/// failed spawn) as recorded. One home for the diagram's note and `summary`'s line.
pub fn process_detail(detail: &str, words: Words) -> String {
    let Some(note) = StopNote::parse(detail) else {
        return detail.to_string();
    };
    let args = [("waited", note.waited), ("sent", note.sent)];
    match note.after {
        None => words.fmt("process.stop_after_stdin", &args),
        Some(signal) => words.fmt(
            "process.stop_after_signal",
            &[args[0], args[1], ("signal", signal)],
        ),
    }
}

fn process(e: &Event, lang: Language) -> Text {
    let words = Words::of(lang);
    let mut status = Status::Ok;
    let mut problem = None;
    let Some(p) = e.process() else {
        return Text {
            style: Style::Process,
            status,
            problem: None,
            label: words.get("process.none").to_string(),
            detail: None,
        };
    };
    let command = {
        let mut words = p.command.iter();
        let program = words.next().map_or("?", |prog| {
            std::path::Path::new(prog)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(prog)
        });
        std::iter::once(program)
            .chain(words.map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut parts = Parts::default();
    let label = process_label(p, &command, words);
    if p.event == "spawn-failed" {
        status = Status::Error;
    }
    if p.event == "exit" && (p.code.is_some_and(|c| c != 0) || p.signal.is_some()) {
        status = Status::Problem;
        problem = Some(words.get("process.not_clean").to_string());
    }
    if let Some(pid) = p.pid {
        parts.add(format!("pid {pid}"));
    }
    if let Some(why) = &p.detail {
        parts.add(process_detail(why, words));
    }
    Text {
        style: Style::Process,
        status,
        problem,
        label: visible(&label, LABEL_CHARS),
        detail: parts.done(),
    }
}

#[cfg(test)]
mod tests {
    use super::Context;
    use crate::analysis::report;
    use crate::trace::load_from_reader;

    const FIXTURES: [&str; 4] = crate::analysis::fixtures::RECORDINGS;

    /// The status-only pass says what the full description says, row for row.
    #[test]
    fn style_status_agrees_with_describe() {
        let mut fast = 0;
        for text in FIXTURES {
            let events = load_from_reader(text.as_bytes()).expect("fixture").events;
            let r = report(&events);
            let ctx = Context {
                events: &events,
                report: &r,
            };
            for i in 0..events.len() {
                let full = ctx.describe(i);
                if let Some(quick) = ctx.style_status(i) {
                    fast += 1;
                    assert_eq!(quick, (full.style, full.status.clone()), "event {i}");
                    assert_eq!(full.problem, None, "event {i}");
                }
            }
        }
        assert!(fast > 50, "{fast} rows took the quick path");
    }
}
