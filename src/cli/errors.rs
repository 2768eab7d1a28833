//! The errors a participant meets, said in the language of the command (`--lang`, else the
//! locale): a trace that cannot be opened, a scenario that is not valid, a `--set` key the
//! format does not have, a server that does not start, a flag that is not one.
//!
//! The library's errors keep their English `Display` (logs, JSON, tests that grep them). Here
//! each cause of an error's chain is recognised by its type and variant, never by its text:
//! a library error that knows how to say itself ([`ScenarioError::said`]), a trace's
//! ([`trace_error::said`], which the app says too), a failed run's ([`host_said`]: a server's,
//! an LLM API's, the `tap`'s, which the app says too), an operating system's error by
//! its kind, and the command line's own errors raised as [`Saying`] or wrapped in what the
//! command was doing ([`Within`], said with [`Context::within`] where anyhow would take a
//! `context`). A cause none of these knows is printed as it is.

use std::error::Error;
use std::fmt;

use crate::analysis::trace_error;
use crate::host::agent::RunError;
use crate::host::mcp::ConnectError;
use crate::host::provider::ProviderError;
use crate::host::said as host_said;
use crate::host::scenario::ScenarioError;
use crate::i18n::{Said, Words};
use crate::tap::TapError;
use crate::trace::TraceError;

/// An error the command line raises itself, as a sentence; its `Display` is the English.
#[derive(Debug, Clone)]
pub struct Saying(pub Said);

impl fmt::Display for Saying {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.english())
    }
}

impl Error for Saying {}

/// What the command line was doing when a cause failed (anyhow's `context`), as a sentence:
/// its `Display` is the English, its source the cause, so the chain goes on after it.
#[derive(Debug)]
pub struct Within {
    said: Said,
    source: Box<dyn Error + Send + Sync + 'static>,
}

impl fmt::Display for Within {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.said.english())
    }
}

impl Error for Within {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.source)
    }
}

/// anyhow's `context`, said in the command's language: the context is a [`Said`].
pub trait Context<T> {
    /// The error, if any, within what `said` says the command was doing.
    fn within(self, said: impl FnOnce() -> Said) -> anyhow::Result<T>;
}

impl<T, E: Into<Box<dyn Error + Send + Sync + 'static>>> Context<T> for Result<T, E> {
    fn within(self, said: impl FnOnce() -> Said) -> anyhow::Result<T> {
        self.map_err(|e| {
            anyhow::Error::new(Within {
                said: said(),
                source: e.into(),
            })
        })
    }
}

/// `Err` of a [`Saying`] of `said`, for `?`.
pub fn fail<T>(said: Said) -> anyhow::Result<T> {
    Err(Saying(said).into())
}

/// One cause of an error's chain as a sentence, when its type is one of those recognised
/// (see the module documentation).
pub fn said(cause: &(dyn Error + 'static)) -> Option<Said> {
    if let Some(s) = cause.downcast_ref::<Saying>() {
        return Some(s.0.clone());
    }
    if let Some(w) = cause.downcast_ref::<Within>() {
        return Some(w.said.clone());
    }
    if let Some(e) = cause.downcast_ref::<ScenarioError>() {
        return Some(e.said());
    }
    if let Some(e) = cause.downcast_ref::<TraceError>() {
        return Some(trace_error::said(e));
    }
    if let Some(e) = cause.downcast_ref::<RunError>() {
        return Some(host_said::run(e));
    }
    if let Some(e) = cause.downcast_ref::<ProviderError>() {
        return Some(host_said::provider(e));
    }
    if let Some(e) = cause.downcast_ref::<ConnectError>() {
        return Some(host_said::connect(e));
    }
    if let Some(e) = cause.downcast_ref::<TapError>() {
        return Some(host_said::tap(e));
    }
    if let Some(e) = cause.downcast_ref::<std::io::Error>() {
        return Some(Said::io(e));
    }
    None
}

/// The causes of a chain joined by `: ` in the language of `w`, leaving out each cause whose
/// English text the English of the causes before it already holds (an OS error a typed
/// error's message quotes), as [`super::exit::message`] does.
pub fn chain_in<'a>(causes: impl Iterator<Item = &'a (dyn Error + 'static)>, w: Words) -> String {
    let (mut english, mut out) = (String::new(), String::new());
    for cause in causes {
        let text = cause.to_string();
        if text.is_empty() || english.contains(&text) {
            continue;
        }
        english.push_str(&text);
        english.push_str(": ");
        if !out.is_empty() {
            out.push_str(": ");
        }
        match said(cause) {
            Some(said) => out.push_str(&said.say(w)),
            None => out.push_str(&text),
        }
    }
    out
}

/// An `anyhow` error and its causes in the language of `w` (see [`chain_in`]).
pub fn message_in(err: &anyhow::Error, w: Words) -> String {
    chain_in(err.chain().map(|c| c as &(dyn Error + 'static)), w)
}

/// A library error and its sources in the language of `w` (see [`chain_in`]).
pub fn error_in(err: &(dyn Error + 'static), w: Words) -> String {
    chain_in(std::iter::successors(Some(err), |e| (*e).source()), w)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::i18n::Language;

    #[test]
    fn a_trace_that_cannot_be_opened_is_said_once_in_each_language() {
        let err = anyhow::Error::new(TraceError::Open {
            path: PathBuf::from("/x.jsonl"),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        let en = message_in(&err, Words::of(Language::En));
        let os = std::io::Error::from(std::io::ErrorKind::NotFound).to_string();
        assert_eq!(en, format!("cannot open trace /x.jsonl: {os}"));
        let pt = message_in(&err, Words::of(Language::Pt));
        assert!(
            pt.starts_with("não foi possível abrir o trace /x.jsonl"),
            "{pt}"
        );
        assert!(
            !pt.contains("os error"),
            "the OS's text is not repeated: {pt}"
        );
    }

    #[test]
    fn the_english_of_a_server_that_does_not_start_or_answer_is_the_errors_own() {
        let spawn = ConnectError::Tap(TapError::Spawn {
            program: "/no/server".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
            hint: " (is it installed and on PATH?)",
        });
        let timeout = ConnectError::Timeout {
            server: "mute".into(),
            request: "`initialize`".into(),
            timeout: std::time::Duration::from_secs(1),
        };
        let protocol = ConnectError::Protocol {
            server: "s".into(),
            what: "initialize",
            message: "boom".into(),
        };
        for e in [spawn, timeout, protocol] {
            let said = host_said::connect(&e);
            assert_eq!(said.english(), e.to_string());
            assert_ne!(said.say(Words::of(Language::Pt)), e.to_string());
        }
    }

    #[test]
    fn causes_of_no_known_type_are_kept_as_they_are() {
        let err = anyhow::Error::new(Saying(Said::new("cli_error.trace_empty")))
            .context("while reading notes.txt");
        let es = message_in(&err, Words::of(Language::Es));
        assert!(es.starts_with("while reading notes.txt: "), "{es}");
        assert!(!es.contains("trace is empty"), "{es}");
    }
}
