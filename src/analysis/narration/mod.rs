//! Teaching mode: one or two sentences that say what an event means, where it happens.
//!
//! The sentences follow the seed article's walk through MCP and function calling: the prompt
//! reaches the host; `initialize` negotiates capabilities and carries `instructions`;
//! `tools/list` is dynamic discovery; the LLM request's `tools` is the same list with one field
//! renamed; the model answers with `tool_use` and the host, not the model, sends `tools/call`;
//! the result goes back as `tool_result` and the loop ends when the model stops asking for
//! tools. Around that loop it points out what a workshop should notice: primitives other than
//! tools and who controls them, the server asking back (sampling, elicitation, roots), the
//! 2026-07-28 changes (`server/discover`, `_meta` on every request, `input_required` and the
//! retry, `subscriptions/listen`), a tool the host dropped, a description written for the
//! model (tool poisoning) or changed after the fact (rug pull), stderr, process events,
//! invalid lines and requests that never got an answer.
//!
//! Everything is read from the trace and its [`Report`]; the words come from [`Strings`]
//! (`narration.*` and `explain.*` keys), so this module holds no text for people. It does not
//! depend on egui.
//!
//! The module is split by what an event is: `notes` (the prompt, the answer, the host's
//! notes, process events), `llm` (the exchanges with the model), `requests`, `responses` and
//! `notifications` (JSON-RPC), `tools` (`tools/list` and `tools/call` results: discovery,
//! poisoning, rug pulls), `reasons` (Sightline's own English recorded in a trace, the host's
//! notes and reasons, said in the reader's language) and `words` (quoting and listing).

use serde_json::Value;

use crate::analysis::Report;
use crate::i18n::{Language, Strings, Words};
use crate::trace::{Channel, Derived, Event, Kind, Lane};

use words::{QUOTE_CHARS, quote, tidy};

/// `narration.<key>` with its placeholders filled in: `say!(n, "key", name = value, ...)`,
/// where each value is anything `Display`.
macro_rules! say {
    ($n:expr, $key:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $n.t($key, &[$((stringify!($name), $value.to_string().as_str())),*])
    };
}

mod llm;
mod notes;
mod notifications;
mod reasons;
mod requests;
mod responses;
#[cfg(test)]
mod tests;
mod tools;
mod words;

pub use reasons::{drop_reason, unanswered_reason};

/// One or two sentences about `events[index]` for the teaching mode, in `lang`. Empty when
/// `index` is out of range.
pub fn narrate(
    events: &[Event],
    report: &Report,
    index: usize,
    strings: &Strings,
    lang: Language,
) -> String {
    let (Some(event), Some(derived)) = (events.get(index), report.rpc.derived.get(index)) else {
        return String::new();
    };
    let n = Narrator {
        events,
        report,
        index,
        event,
        derived,
        strings,
        lang,
    };
    let sentences = match &event.channel {
        Channel::Note => vec![n.note()],
        Channel::Process => vec![n.process()],
        Channel::Stderr => {
            let text = quote(&event.text(), QUOTE_CHARS);
            vec![say!(n, "stderr", server = n.server(), text = text)]
        }
        Channel::LlmHttp => n.llm(),
        Channel::Stdio | Channel::Http => n.rpc(),
        Channel::Other(channel) => {
            vec![say!(
                n,
                "other",
                from = n.who(&event.from),
                channel = channel
            )]
        }
    };
    tidy(&sentences.join(" "))
}

/// A note the host writes while it runs (a dropped or renamed tool, a stale list, a call it
/// never offered: Sightline's English, as the trace records it), said as the narration says
/// it, in `lang`. `sightline run` prints its progress with it.
pub fn note_in(from: Lane, to: Lane, text: &str, lang: Language) -> String {
    let event = Event::with_bytes(
        0,
        chrono::DateTime::UNIX_EPOCH,
        from,
        to,
        Channel::Note,
        text.as_bytes().to_vec(),
    );
    let events = [event];
    let report = crate::analysis::report(&events);
    narrate(&events, &report, 0, crate::i18n::shared(), lang)
}

struct Narrator<'a> {
    events: &'a [Event],
    report: &'a Report,
    index: usize,
    event: &'a Event,
    derived: &'a Derived,
    strings: &'a Strings,
    lang: Language,
}

impl Narrator<'_> {
    /// The texts of the narration's language.
    pub(super) fn words(&self) -> Words<'_> {
        Words {
            strings: self.strings,
            lang: self.lang,
        }
    }

    /// A `narration.<key>` template, filled in (see [`say!`]).
    pub(super) fn t(&self, key: &str, args: &[(&str, &str)]) -> String {
        let key = format!("narration.{key}");
        self.strings.fmt(self.lang, &key, args)
    }

    /// A lane as the subject of a sentence: "The host", "The weather server".
    pub(super) fn who(&self, lane: &Lane) -> String {
        match lane {
            Lane::User => say!(self, "who_user"),
            Lane::Host => say!(self, "who_host"),
            // The model has no transport: what the LLM API sends a server is its platform's
            // own MCP client.
            Lane::Llm if self.is_api_client() => say!(self, "who_api_client"),
            Lane::Llm => say!(self, "who_model"),
            Lane::Server(name) => say!(self, "who_server", name = name),
            Lane::Other(name) => say!(self, "who_other", name = name),
        }
    }

    /// Whether this event is between an LLM API's own MCP client and a server (the API as MCP
    /// client: Anthropic's connector, OpenAI's `mcp` tools, recorded behind the HTTP proxy).
    pub(super) fn is_api_client(&self) -> bool {
        let e = self.event;
        (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm)
    }

    /// The name of the server this event is to or from.
    pub(super) fn server(&self) -> &str {
        let e = self.event;
        e.from
            .server_name()
            .or_else(|| e.to.server_name())
            .unwrap_or("?")
    }

    pub(super) fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.event.text()).ok()
    }

    pub(super) fn method(&self) -> &str {
        self.derived.method.as_deref().unwrap_or_default()
    }

    /// The derived detail (tool name, uri), or `?`.
    pub(super) fn detail(&self) -> &str {
        self.derived.detail.as_deref().unwrap_or("?")
    }

    /// A JSON-RPC message: what kind it is decides who narrates it.
    fn rpc(&self) -> Vec<String> {
        let d = self.derived;
        let from = self.who(&self.event.from);
        match d.kind {
            Kind::Invalid => {
                let problem =
                    crate::analysis::trace_error::why_invalid(d.problem()).say(self.words());
                let problem = quote(&problem, 120);
                vec![say!(self, "invalid", from = from, problem = problem)]
            }
            Kind::Request | Kind::Notification if self.event.from == Lane::Llm => {
                self.api_client(&from)
            }
            Kind::Request => self.request(&from),
            Kind::Notification => self.notification(&from),
            Kind::Error => {
                let (code, message) = d.error().unwrap_or_default();
                let method = d.method.as_deref().unwrap_or("?");
                let message = quote(message, 160);
                vec![say!(
                    self,
                    "error",
                    from = from,
                    method = method,
                    code = code,
                    message = message,
                )]
            }
            Kind::Response => self.response(&from),
            _ => vec![say!(self, "note", text = quote(&self.event.text(), 200))],
        }
    }
}
