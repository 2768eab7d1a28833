//! Why a trace could not be read, said in each language: the command line's errors and the
//! app's notice when a file will not open, and the warnings about the lines the loader skipped
//! or found odd. `trace` uses no other module, so its errors and warnings keep their English
//! `Display`; their words live here, worded from each variant's fields. What a library wrote
//! (the JSON reader's complaint, the system's) is quoted as it is.

use crate::i18n::Said;
use crate::trace::{Invalidity, LineProblem, LoadWarning, Problem, TraceError};

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

/// Why a payload is not a valid JSON-RPC message, as words each language can say
/// (`invalid_message.*`); the JSON reader's complaint and the `jsonrpc` member are quoted.
pub fn invalid(problem: &Problem) -> Said {
    let (head, why) = invalid_parts(problem);
    match why {
        Some(why) => Said::new("invalid_message.with_why")
            .with_said("head", head)
            .with_said("why", why),
        None => head,
    }
}

/// [`invalid`] in two parts: the reason, and what explains it when there is more (the JSON
/// reader's complaint, the rule a batch breaks). A diagram row's label says the reason and
/// leaves the rest to its detail; the parts are kept apart here rather than cut from the
/// sentence, since a reason may hold parentheses of its own.
pub fn invalid_parts(problem: &Problem) -> (Said, Option<Said>) {
    let (key, why): (&'static str, Option<&'static str>) = match problem.why {
        Invalidity::NotUtf8 => ("invalid_message.not_utf8", None),
        Invalidity::Batch => ("invalid_message.batch", Some("invalid_message.batch_why")),
        Invalidity::NotObject => ("invalid_message.not_object", None),
        Invalidity::EmptyLine => ("invalid_message.empty_line", None),
        Invalidity::NotJson => (
            "invalid_message.not_json",
            Some("invalid_message.not_json_why"),
        ),
        Invalidity::WrongVersion => ("invalid_message.wrong_version", None),
        Invalidity::NoVersion => (
            "invalid_message.no_version",
            Some("invalid_message.no_version_why"),
        ),
        Invalidity::BadId => ("invalid_message.bad_id", None),
        Invalidity::MethodNotString => ("invalid_message.method_not_string", None),
        Invalidity::NullIdRequest => ("invalid_message.null_id_request", None),
        Invalidity::ResultAndError => ("invalid_message.result_and_error", None),
        Invalidity::Neither => (
            "invalid_message.neither",
            Some("invalid_message.neither_why"),
        ),
        Invalidity::ResultWithoutId => ("invalid_message.result_without_id", None),
        Invalidity::NoPayload => (
            "invalid_message.no_payload",
            Some("invalid_message.no_payload_why"),
        ),
    };
    // The reader's complaint is the explanation of "not JSON"; a batch's size is in its head.
    let detail = problem.detail();
    let (head, why) = match problem.why {
        Invalidity::NotJson => (
            Said::new(key),
            why.map(|w| Said::new(w).with("detail", detail)),
        ),
        _ => (Said::new(key).with("detail", detail), why.map(Said::new)),
    };
    (head, why)
}

/// Why an invalid message is invalid ([`invalid`]), or, for one whose reason was not recorded,
/// that it is not JSON-RPC (`invalid_message.unknown`).
pub fn why_invalid(problem: Option<&Problem>) -> Said {
    problem.map_or_else(|| Said::new("invalid_message.unknown"), invalid)
}

/// A load warning as a sentence each language can say (`trace_warning.*`): `line N: …`.
pub fn warning(w: &LoadWarning) -> Said {
    Said::new("trace_warning.line")
        .with("line", w.line)
        .with_said("problem", line_problem(&w.problem))
}

/// How many warnings of one kind [`warnings_once`] says before it counts the rest.
pub const FIRST_OF_A_KIND: usize = 3;

/// A trace's load warnings as sentences, each kind said for its first `first` lines and the
/// rest of that kind counted in one sentence (the line of the first and of the last): a trace
/// with 2,000 events out of time order says four lines, not 2,000, and nothing is hidden
/// (every kind is said, and the count is exact). The kinds are the problem's variant, per file
/// of a session folder. Sentences keep the order of the warnings; the counts follow them.
pub fn warnings_once(warnings: &[LoadWarning], first: usize) -> Vec<Said> {
    struct Kind {
        key: (Option<String>, std::mem::Discriminant<LineProblem>),
        seen: usize,
        first_line: usize,
        last_line: usize,
    }
    fn key_of(p: &LineProblem) -> (Option<String>, std::mem::Discriminant<LineProblem>) {
        match p {
            LineProblem::InFile { file, problem } => {
                (Some(file.clone()), std::mem::discriminant(problem.as_ref()))
            }
            other => (None, std::mem::discriminant(other)),
        }
    }
    let mut kinds: Vec<Kind> = Vec::new();
    let mut said = Vec::new();
    for w in warnings {
        let key = key_of(&w.problem);
        let kind = match kinds.iter().position(|k| k.key == key) {
            Some(i) => &mut kinds[i],
            None => {
                kinds.push(Kind {
                    key,
                    seen: 0,
                    first_line: w.line,
                    last_line: w.line,
                });
                kinds.last_mut().expect("just pushed")
            }
        };
        kind.seen += 1;
        kind.last_line = w.line;
        if kind.seen <= first {
            said.push(warning(w));
        }
    }
    for kind in kinds.iter().filter(|k| k.seen > first) {
        said.push(
            Said::new("trace_warning.more_alike")
                .with("count", kind.seen - first)
                .with("line", kind.first_line)
                .with("last", kind.last_line),
        );
    }
    said
}

/// What is wrong with a line, as a sentence (see [`warning`]).
pub fn line_problem(problem: &LineProblem) -> Said {
    let detail = |key: &'static str, detail: &str| Said::new(key).with("detail", detail);
    match problem {
        LineProblem::Truncated { bytes, detail: why } => Said::new("trace_warning.truncated")
            .with("bytes", bytes)
            .with_said(
                "detail",
                why.as_deref()
                    .map_or_else(Said::empty, |d| detail("trace_warning.json_detail", d)),
            ),
        LineProblem::NotEvent { detail: d } => detail("trace_warning.not_event", d),
        LineProblem::BothPayloads => Said::new("trace_warning.both_payloads"),
        LineProblem::BadBase64 { detail: d } => detail("trace_warning.bad_base64", d),
        LineProblem::SeqGap { seq, expected } => Said::new("trace_warning.seq_gap")
            .with("seq", seq)
            .with("expected", expected),
        LineProblem::TimeBackwards {
            time,
            ms,
            previous_line,
            before,
        } => Said::new("trace_warning.time_backwards")
            .with("time", time)
            .with("ms", format!("{ms:.3}"))
            .with("previous_line", previous_line)
            .with("before", before),
        LineProblem::ReadStopped { detail: d } => detail("trace_warning.read_stopped", d),
        LineProblem::ReadRetry { detail: d } => detail("trace_warning.read_retry", d),
        LineProblem::Shrank { from, to } => Said::new("trace_warning.shrank")
            .with("from", from)
            .with("to", to),
        LineProblem::CannotOpen { detail: d } => detail("trace_warning.cannot_open", d),
        LineProblem::NotTrace { detail: d } => detail("trace_warning.not_trace", d),
        LineProblem::TooNew { found, supported } => Said::new("trace_warning.too_new")
            .with("found", found)
            .with("supported", supported),
        LineProblem::InFile { file, problem } => Said::new("trace_warning.in_file")
            .with("file", file)
            .with_said("problem", line_problem(problem)),
        LineProblem::TabFull {
            events,
            needed_mb,
            budget_mb,
        } => Said::new("trace_warning.tab_full")
            .with("events", events)
            .with("needed_mb", needed_mb)
            .with("budget_mb", budget_mb),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Language, Words};

    #[test]
    fn repeated_warnings_are_said_a_few_times_then_counted() {
        let backwards = |line: usize| LoadWarning {
            line,
            problem: LineProblem::TimeBackwards {
                time: "t".into(),
                ms: 1.0,
                previous_line: line - 1,
                before: "b".into(),
            },
        };
        let mut warnings: Vec<LoadWarning> = (3..2003).map(backwards).collect();
        warnings.insert(
            1,
            LoadWarning {
                line: 4,
                problem: LineProblem::BothPayloads,
            },
        );
        let said: Vec<String> = warnings_once(&warnings, FIRST_OF_A_KIND)
            .iter()
            .map(|s| s.say(Words::of(Language::En)))
            .collect();
        assert_eq!(said.len(), 5, "{said:#?}");
        assert!(said[0].starts_with("line 3: time"), "{said:#?}");
        assert!(
            said[1].starts_with("line 4: the event has both"),
            "{said:#?}"
        );
        assert!(said[3].starts_with("line 5: time"), "{said:#?}");
        assert_eq!(
            said[4],
            "1997 more lines with the problem of line 3, the last on line 2002"
        );
        let few: Vec<LoadWarning> = (3..6).map(backwards).collect();
        assert_eq!(warnings_once(&few, FIRST_OF_A_KIND).len(), 3);
    }

    #[test]
    fn each_reason_a_message_is_invalid_is_said_and_english_is_the_traces_own() {
        let payloads: [&[u8]; 13] = [
            b"\xff\xfe not utf8",
            b"[1,2]",
            b"3",
            b"  ",
            b"debug: hello",
            br#"{"jsonrpc":"1.0","id":1,"method":"a"}"#,
            br#"{"id":1,"method":"a"}"#,
            br#"{"jsonrpc":"2.0","id":{},"method":"a"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            br#"{"jsonrpc":"2.0","id":null,"method":"a"}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            br#"{"jsonrpc":"2.0","id":1}"#,
            br#"{"jsonrpc":"2.0","result":{}}"#,
        ];
        let mut seen = std::collections::HashSet::new();
        let problems = payloads
            .iter()
            .map(|bytes| crate::trace::classify(bytes).problem.expect("invalid"))
            .chain([Problem::new(Invalidity::NoPayload)]);
        for problem in problems {
            assert!(seen.insert(problem.why), "{problem}");
            assert_eq!(invalid(&problem).english(), problem.to_string());
            for lang in [Language::Pt, Language::Es] {
                let text = invalid(&problem).say(Words::of(lang));
                assert_ne!(text, problem.to_string(), "{lang:?}");
                assert!(
                    !["not ", "without", "must", "request", "both"]
                        .iter()
                        .any(|w| text.contains(w)),
                    "{lang:?}: {text}"
                );
            }
        }
    }

    #[test]
    fn a_message_invalid_for_no_recorded_reason_is_not_json_rpc_in_each_language() {
        let said = |lang| why_invalid(None).say(Words::of(lang));
        assert_eq!(said(Language::En), "not JSON-RPC");
        assert_eq!(said(Language::Pt), "não é JSON-RPC");
        assert_eq!(said(Language::Es), "no es JSON-RPC");
        let problem = Problem::new(Invalidity::EmptyLine);
        assert_eq!(why_invalid(Some(&problem)).english(), "an empty line");
    }

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

    #[test]
    fn each_language_says_what_is_wrong_with_a_line_and_english_is_the_warnings_own() {
        let detail = || "expected value at line 1 column 1".to_string();
        let problems = [
            LineProblem::Truncated {
                bytes: 12,
                detail: Some(detail()),
            },
            LineProblem::Truncated {
                bytes: 12,
                detail: None,
            },
            LineProblem::NotEvent { detail: detail() },
            LineProblem::BothPayloads,
            LineProblem::BadBase64 { detail: detail() },
            LineProblem::SeqGap {
                seq: 9,
                expected: 4,
            },
            LineProblem::TimeBackwards {
                time: "12:00:00.000".into(),
                ms: 1.5,
                previous_line: 3,
                before: "12:00:00.001".into(),
            },
            LineProblem::ReadStopped { detail: detail() },
            LineProblem::ReadRetry { detail: detail() },
            LineProblem::Shrank { from: 9, to: 2 },
            LineProblem::CannotOpen { detail: detail() },
            LineProblem::NotTrace { detail: detail() },
            LineProblem::TooNew {
                found: 9,
                supported: 1,
            },
            LineProblem::InFile {
                file: "a.jsonl".into(),
                problem: Box::new(LineProblem::NotEvent { detail: detail() }),
            },
            LineProblem::TabFull {
                events: 4_000_000,
                needed_mb: 3_200,
                budget_mb: 3_072,
            },
        ];
        for problem in problems {
            let w = LoadWarning {
                line: 7,
                problem: problem.clone(),
            };
            assert_eq!(warning(&w).english(), w.to_string());
            for lang in [Language::Pt, Language::Es] {
                let text = warning(&w).say(Words::of(lang));
                assert_ne!(text, w.to_string(), "{lang:?}");
                assert!(!text.starts_with("line 7"), "{lang:?}: {text}");
                assert!(
                    !text.contains("skipped")
                        && !text.contains("is not")
                        && !text.contains("no later ones"),
                    "{lang:?}: {text}"
                );
            }
        }
    }
}
