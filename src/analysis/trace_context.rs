//! SEP-414 trace context in requests: a `traceparent` in `params._meta` that is not a valid W3C
//! value is a violation `validate` reports (the OpenTelemetry export ignores such a value and
//! keeps the span in the recording's trace; [`crate::wire::traceparent`] reads both).

use serde_json::Value;

use super::conformance::Violation;
use crate::trace::{Analysis, Event, Kind};
use crate::wire::traceparent;

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
    let message = match &value {
        Value::String(s) => traceparent::problem(s),
        other => Some(format!(
            "`{}` is not a W3C traceparent (not a string); the OpenTelemetry export ignores it",
            other.to_string().chars().take(80).collect::<String>()
        )),
    }?;
    Some(Violation {
        event: index,
        seq: event.seq,
        revision: d.revision.as_deref().unwrap_or("any").to_string(),
        definition: "traceparent (SEP-414)".into(),
        pointer: "/params/_meta/traceparent".into(),
        rule: "format".into(),
        message: crate::i18n::Said::plain(message),
    })
}
