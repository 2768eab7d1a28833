//! Narration of what is not a protocol message: the user's prompt, the host's answer and its
//! notes (a dropped, renamed or never-offered tool, a stale list, bad arguments; the notes of
//! elicitation, roots and sampling are read in `reasons`), and the server process starting,
//! failing to start and exiting.

use super::Narrator;
use super::words::{QUOTE_CHARS, backticked, quote};
use crate::trace::{Lane, signal_name};

impl Narrator<'_> {
    /// The prompt, the answer, and the host's notes (recognised by the texts `host::agent`
    /// writes: a dropped tool, a renamed tool, a stale list, a call it never offered).
    pub(super) fn note(&self) -> String {
        let text = self.event.text();
        let ticks = backticked(&text);
        let tick = |i: usize| ticks.get(i).copied().unwrap_or("?");
        let starts = |prefix: &str| self.event.from == Lane::Host && text.starts_with(prefix);
        if let Some(sentence) = self.host_note(&text) {
            return sentence;
        }
        match (&self.event.from, &self.event.to) {
            (Lane::User, _) => say!(self, "prompt", text = quote(&text, QUOTE_CHARS)),
            (Lane::Host, Lane::User) => say!(self, "answer", text = quote(&text, QUOTE_CHARS)),
            (Lane::Llm, _) => say!(self, "note_llm", text = quote(&text, 200)),
            _ if starts("host drops tool `") => {
                let why = text.split_once("`: ").map_or("", |(_, why)| why);
                let why = self.drop_reason(why);
                say!(
                    self,
                    "note_dropped",
                    tool = tick(0),
                    server = tick(1),
                    why = why
                )
            }
            _ if starts("host shows tool `") => {
                let (tool, server, api_name) = (tick(0), tick(1), tick(2));
                say!(
                    self,
                    "note_renamed",
                    tool = tool,
                    server = server,
                    api_name = api_name
                )
            }
            _ if starts("host ignores notifications/tools/list_changed") => {
                say!(self, "note_stale")
            }
            _ if starts("the model called `") => say!(self, "note_not_offered", tool = tick(0)),
            _ if starts("the model's arguments for `") => {
                say!(self, "note_bad_arguments", tool = tick(0))
            }
            _ => say!(self, "note", text = quote(&text, 200)),
        }
    }

    pub(super) fn process(&self) -> String {
        let server = self.server();
        let Some(info) = self.event.process() else {
            return say!(self, "note", text = quote(&self.event.text(), 200));
        };
        match info.event.as_str() {
            "spawn" => {
                // The program's file name is enough; the full path is in the inspector.
                let mut words: Vec<&str> = info.command.iter().map(String::as_str).collect();
                if let Some(program) = words.first_mut() {
                    *program = program.rsplit('/').next().unwrap_or(program);
                }
                let command = quote(&words.join(" "), QUOTE_CHARS);
                say!(self, "spawn", server = server, command = command)
            }
            "spawn-failed" => {
                let detail = info.detail.as_deref().unwrap_or("?");
                say!(self, "spawn_failed", server = server, detail = detail)
            }
            "exit" => match (info.code, info.signal) {
                (_, Some(signal)) => {
                    let signal = format!("{} ({signal})", signal_name(signal));
                    say!(self, "exit_signal", server = server, signal = signal)
                }
                (Some(code), None) => say!(self, "exit", server = server, code = code),
                (None, None) => say!(self, "exit", server = server, code = "?"),
            },
            other => say!(self, "note", text = other),
        }
    }
}
