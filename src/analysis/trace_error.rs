//! Why a trace could not be read, said in each language: the command line's errors and the
//! app's notice when a file will not open. `trace` uses no other module, so its errors keep
//! their English `Display`; their words live here, worded from each variant's fields.

use crate::i18n::Said;
use crate::trace::TraceError;

/// `e` as a sentence each language can say (`cli_error.trace_*`).
pub fn said(e: &TraceError) -> Said {
    match e {
        TraceError::Open { path, source } => Said::new("cli_error.trace_open")
            .with("path", path.display())
            .with_said("why", Said::io(source)),
        TraceError::Write { path, source } => Said::new("cli_error.trace_write")
            .with("path", path.display())
            .with_said("why", Said::io(source)),
        TraceError::Spilled(source) => {
            Said::new("cli_error.trace_spilled").with_said("why", Said::io(source))
        }
        TraceError::Read { line, source } => Said::new("cli_error.trace_read")
            .with("line", line)
            .with_said("why", Said::io(source)),
        TraceError::Empty => Said::new("cli_error.trace_empty"),
        TraceError::BadHeader(why) => Said::new("cli_error.trace_header").with("why", why),
        TraceError::TooNew { found, supported } => Said::new("cli_error.trace_too_new")
            .with("found", found)
            .with("supported", supported),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Language, Words};

    #[test]
    fn each_language_says_why_a_trace_did_not_open_and_english_is_the_errors_own() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let errors = [
            TraceError::Open {
                path: "/t.jsonl".into(),
                source: io(),
            },
            TraceError::Write {
                path: "/t.jsonl".into(),
                source: io(),
            },
            TraceError::Spilled(io()),
            TraceError::Read {
                line: 3,
                source: io(),
            },
            TraceError::Empty,
            TraceError::BadHeader("expected value".into()),
            TraceError::TooNew {
                found: 9,
                supported: 1,
            },
        ];
        for e in errors {
            let en = said(&e).english();
            assert_eq!(en, e.to_string());
            for lang in [Language::Pt, Language::Es] {
                let text = said(&e).say(Words::of(lang));
                assert_ne!(text, en, "{lang:?}");
            }
        }
    }
}
