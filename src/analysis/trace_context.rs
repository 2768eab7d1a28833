//! SEP-414 trace context in requests: a `traceparent` in `params._meta` that is not a valid W3C
//! value is a violation `validate` reports (the OpenTelemetry export ignores such a value and
//! keeps the span in the recording's trace; [`crate::wire::traceparent`] reads both).

use serde_json::Value;

use super::conformance::Violation;
use crate::trace::{Analysis, Event, Kind};
use crate::wire::traceparent;

/// One violation per request or notification whose `params._meta.traceparent` is malformed.
pub fn violations(events: &[Event], analysis: &Analysis) -> Vec<Violation> {
    let mut out = Vec::new();
    for (index, (event, d)) in events.iter().zip(&analysis.derived).enumerate() {
        if !event.channel.carries_jsonrpc()
            || !matches!(d.kind, Kind::Request | Kind::Notification)
            || !event.text().contains("traceparent")
        {
            continue;
        }
        let Some(value) = event
            .bytes()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|m| m.pointer("/params/_meta/traceparent").cloned())
        else {
            continue;
        };
        let message = match &value {
            Value::String(s) => traceparent::problem(s),
            other => Some(format!(
                "`{}` is not a W3C traceparent (not a string); the OpenTelemetry export ignores it",
                other.to_string().chars().take(80).collect::<String>()
            )),
        };
        if let Some(message) = message {
            out.push(Violation {
                event: index,
                seq: event.seq,
                revision: d.revision.as_deref().unwrap_or("any").to_string(),
                definition: "traceparent (SEP-414)".into(),
                pointer: "/params/_meta/traceparent".into(),
                rule: "format".into(),
                message,
            });
        }
    }
    out
}
