//! SEP-414 trace context in requests: a `traceparent` in `params._meta` that is not a valid W3C
//! value is a violation `validate` reports (the OpenTelemetry export ignores such a value and
//! keeps the span in the recording's trace; [`crate::wire::traceparent`] reads both).

use serde_json::Value;

use super::conformance::Violation;
use crate::i18n::Said;
use crate::trace::{Analysis, Event, Kind};
use crate::wire::traceparent::{self, Problem};

/// The violation of event `index`, if it is a request or notification with a malformed
/// `params._meta.traceparent`.
pub fn violation(events: &[Event], analysis: &Analysis, index: usize) -> Option<Violation> {
    let (event, d) = (events.get(index)?, analysis.derived.get(index)?);
    if !event.channel.carries_jsonrpc()
        || !matches!(d.kind, Kind::Request | Kind::Notification)
        || !event.text().contains("traceparent")
    {
        return None;
    }
    let value = event
        .bytes()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|m| m.pointer("/params/_meta/traceparent").cloned())?;
    let problem = match &value {
        Value::String(s) => traceparent::problem(s),
        other => Some(Problem::NotString(
            other.to_string().chars().take(80).collect(),
        )),
    }?;
    Some(Violation {
        event: index,
        seq: event.seq,
        revision: d.revision.as_deref().unwrap_or("any").to_string(),
        definition: "traceparent (SEP-414)".into(),
        pointer: "/params/_meta/traceparent".into(),
        rule: "format".into(),
        message: said(&problem),
    })
}

/// `problem` as a sentence each language can say (`schema_text.traceparent_*`); the value is
/// quoted as it is.
pub fn said(problem: &Problem) -> Said {
    match problem {
        Problem::Malformed(value) => Said::new("schema_text.traceparent").with("value", value),
        Problem::NotString(value) => {
            Said::new("schema_text.traceparent_not_string").with("value", value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Language, Words};

    #[test]
    fn a_bad_traceparent_is_said_in_each_language_and_english_is_the_problems_own() {
        let problems = [
            traceparent::problem("00-xyz").expect("malformed"),
            Problem::NotString("12".into()),
        ];
        for problem in problems {
            assert_eq!(said(&problem).english(), problem.to_string());
            for (lang, words) in [
                (Language::Pt, "não é um traceparent"),
                (Language::Es, "no es un traceparent"),
            ] {
                let text = said(&problem).say(Words::of(lang));
                assert!(text.contains(words), "{lang:?}: {text}");
                assert!(!text.contains("ignores it"), "{lang:?}: {text}");
            }
        }
    }
}
