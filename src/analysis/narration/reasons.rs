//! Sightline's own English, recorded in a trace, said again in the reader's language.
//!
//! A trace stores facts as they were written when it was recorded: the host's notes ("host
//! drops tool `x` of server `s`: filtered by host configuration (`deny`)", "the user answers:
//! accept …") and the reasons `trace::analyze` gives for a request that got no answer. Those
//! sentences are Sightline's words, not data, so a Portuguese or Spanish class must not read
//! them in English. This file recognises each one by its fixed wording (the texts `host`,
//! `wire::catalog`, `wire::convert` and `trace::analyze` write) and rebuilds it from
//! `narration.*` keys; what it does not recognise is quoted as it is, as data.

use super::Narrator;
use super::words::{QUOTE_CHARS, backticked, quote};
use crate::i18n::Words;
use crate::trace::Lane;

impl Narrator<'_> {
    /// A note the host wrote that [`Narrator::note`] does not have a sentence for: the user
    /// lane of an elicitation, roots from the host's configuration, a sampling request the host
    /// could not answer. `None` for any other text.
    pub(super) fn host_note(&self, text: &str) -> Option<String> {
        let ticks = backticked(text);
        let tick = |i: usize| ticks.get(i).copied().unwrap_or("?");
        let e = self.event;
        match (&e.from, &e.to) {
            (Lane::Host, Lane::User) if text.starts_with("server `") => {
                let (_, question) = text.split_once("` asks the user: ")?;
                let question = quote(question, QUOTE_CHARS);
                Some(say!(
                    self,
                    "note_elicit_ask",
                    server = tick(0),
                    text = question
                ))
            }
            (Lane::User, Lane::Host) => {
                let answer = text.strip_prefix("the user answers: ")?;
                Some(match answer.split_once(' ') {
                    Some(("accept", content)) => {
                        let content = quote(content, QUOTE_CHARS);
                        say!(self, "note_elicit_accept", content = content)
                    }
                    _ => say!(self, "note_elicit_answer", action = answer.trim()),
                })
            }
            (Lane::Host, Lane::Host) if text.starts_with("host answers roots/list of server `") => {
                let roots = text
                    .split_once("(no model, no user): ")
                    .map_or("", |(_, r)| r);
                let roots = quote(roots, QUOTE_CHARS);
                Some(say!(self, "note_roots", server = tick(0), roots = roots))
            }
            (Lane::Host, Lane::Host)
                if text.starts_with("host has no model to answer the sampling request") =>
            {
                Some(say!(self, "note_no_sampler", server = tick(0)))
            }
            _ => None,
        }
    }

    /// Why the host dropped a tool (the text after `host drops tool …: `), in the reader's
    /// language; an unknown reason is quoted as recorded.
    pub(super) fn drop_reason(&self, why: &str) -> String {
        Say(self.words()).drop_reason(why)
    }
}

impl Say<'_> {
    fn drop_reason(&self, why: &str) -> String {
        let ticks = backticked(why);
        let tick = |i: usize| ticks.get(i).copied().unwrap_or("?");
        if why == "filtered by host configuration (`deny`)" {
            return say!(self, "why_denied");
        }
        if why.starts_with("name `") && why.contains("` is already taken by server `") {
            return say!(self, "why_taken", name = tick(0), server = tick(1));
        }
        if why.starts_with("the host drops every tool of server `") {
            return say!(self, "why_server_dropped", server = tick(0), tool = tick(1));
        }
        if why == "the tool has no inputSchema" {
            return say!(self, "why_no_schema");
        }
        if let Some(found) = why
            .strip_prefix("inputSchema is ")
            .and_then(|r| r.strip_suffix(", not a JSON Schema object"))
        {
            let found = self.json_kind(found);
            return say!(self, "why_schema_not_object", found = found);
        }
        if let Some(found) = why
            .strip_prefix("inputSchema has ")
            .and_then(|r| r.split_once(", but the APIs accept only"))
            .map(|(found, _)| found)
        {
            let found = match found {
                "no \"type\"" => say!(self, "why_no_type"),
                other => other.to_string(),
            };
            return say!(self, "why_schema_type", found = found);
        }
        if let Some(rest) = why.strip_prefix("tool name ")
            && let Some((name, rest)) = rest.split_once(" does not match the provider pattern ")
            && let Some((pattern, problem)) = rest.split_once(": ")
        {
            let problem = self.name_problem(problem);
            let name = name.trim_matches('"');
            return say!(
                self,
                "why_bad_name",
                name = name,
                pattern = pattern,
                problem = problem
            );
        }
        say!(self, "quoted", text = quote(why, 160))
    }

    /// What is wrong with a tool name, as `wire::convert` words it.
    fn name_problem(&self, problem: &str) -> String {
        if problem == "it is empty" {
            return say!(self, "name_empty");
        }
        if let Some(rest) = problem.strip_prefix("character ")
            && let Some((c, rest)) = rest.split_once(" at position ")
            && let Some(position) = rest.strip_suffix(" is not allowed")
        {
            return say!(self, "name_char", char = c, position = position);
        }
        if let Some(rest) = problem.strip_prefix("it is ")
            && let Some((length, rest)) = rest.split_once(" characters long, at most ")
            && let Some(max) = rest.strip_suffix(" are allowed")
        {
            return say!(self, "name_long", length = length, max = max);
        }
        say!(self, "quoted", text = quote(problem, 160))
    }

    /// A JSON type as `wire::convert` names it ("an array").
    fn json_kind(&self, kind: &str) -> String {
        let key = match kind {
            "null" => "json_null",
            "a boolean" => "json_boolean",
            "a number" => "json_number",
            "a string" => "json_string",
            "an array" => "json_array",
            "an object" => "json_object",
            other => return other.to_string(),
        };
        self.t(key, &[])
    }
}

/// `narration.<key>` of one language, for the sentences below that have no event to narrate.
struct Say<'a>(Words<'a>);

impl Say<'_> {
    fn t(&self, key: &str, args: &[(&str, &str)]) -> String {
        self.0.fmt(&format!("narration.{key}"), args)
    }
}

/// Why a host dropped a tool, as `host`, `wire::catalog` and `wire::convert` word it (the
/// text after `host drops tool …: `), said in `words`' language; English keeps the recorded
/// words (the doctor quotes them), an unknown reason in another language is quoted.
pub fn drop_reason(words: Words, why: &str) -> String {
    if words.lang == crate::i18n::Language::En {
        return why.to_string();
    }
    Say(words).drop_reason(why)
}

/// Why a request never got an answer, as `trace::analyze` words it, said in `words`'
/// language (the narration and `summary` both say it); an unknown reason is quoted.
pub fn unanswered_reason(words: Words, reason: &str) -> String {
    let say = Say(words);
    let event = |text: &str| {
        text.split_once('#')
            .map(|(_, n)| n.trim_end_matches(|c: char| !c.is_ascii_digit()))
            .unwrap_or("?")
            .to_string()
    };
    if reason == "no response before the trace ended" {
        say!(say, "unanswered_end")
    } else if reason.starts_with("the server exited first") {
        say!(say, "unanswered_exit", seq = event(reason))
    } else if reason.starts_with("its id was reused by event #") {
        say!(say, "unanswered_reused", seq = event(reason))
    } else {
        say!(say, "quoted", text = quote(reason, 160))
    }
}
