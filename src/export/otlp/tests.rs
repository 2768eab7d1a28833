//! The mapping on small hand-written traces: SEP-414 trace context, server requests nested in
//! the client request they arrived during, progress as span events, retries linked.

use opentelemetry_proto::tonic::trace::v1::Span;

use super::{Options, ids, spans};
use crate::analysis::report;

fn trace(lines: &[(&str, &str, &str)]) -> Vec<Span> {
    let mut text = String::from(
        r#"{"sightline_trace":1,"created":"2026-12-01T08:00:00.000000Z","sightline_version":"0","title":"t"}"#,
    );
    for (n, (from, to, raw)) in lines.iter().enumerate() {
        let event = serde_json::json!({
            "seq": n, "time": format!("2026-12-01T08:00:00.{:06}Z", n * 10),
            "from": from, "to": to, "channel": "stdio", "raw": raw,
        });
        text.push('\n');
        text.push_str(&event.to_string());
    }
    let loaded = crate::trace::load_from_reader(text.as_bytes()).expect("trace");
    spans(
        &loaded.header,
        &loaded.events,
        &report(&loaded.events),
        &Options::default(),
    )
}

fn named<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span {name}"))
}

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[test]
fn a_callers_traceparent_is_the_parent_and_a_malformed_one_is_ignored() {
    let call = |id: u32, tp: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t{id}","_meta":{{"traceparent":"{tp}","tracestate":"k=v"}}}}}}"#
        )
    };
    let (good, bad) = (call(1, TP), call(2, "00-zz-00f067aa0ba902b7-01"));
    let spans = trace(&[
        ("host", "server:s", &good),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        ),
        ("host", "server:s", &bad),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}"#,
        ),
    ]);
    let root = &spans[0];
    let joined = named(&spans, "tools/call t1");
    let caller = ids::parse_traceparent(TP).expect("valid");
    assert_eq!(joined.trace_id, caller.trace_id);
    assert_eq!(joined.parent_span_id, caller.span_id);
    assert_eq!(joined.trace_state, "k=v");
    assert_eq!(
        joined.links[0].span_id, root.span_id,
        "linked back to the recording"
    );
    let ours = named(&spans, "tools/call t2");
    assert_eq!(ours.trace_id, root.trace_id);
    assert_eq!(ours.parent_span_id, root.span_id);
    assert_eq!(ours.status.as_ref().map(|s| s.code), Some(2));
}

#[test]
fn server_requests_nest_and_progress_becomes_events() {
    let spans = trace(&[
        (
            "host",
            "server:s",
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","_meta":{"progressToken":"p1"}}}"#,
        ),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}"#,
        ),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}"#,
        ),
        (
            "host",
            "server:s",
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"no sampling"}}"#,
        ),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#,
        ),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        ),
    ]);
    let call = named(&spans, "tools/call ask");
    assert_eq!(call.kind, 3);
    assert_eq!(call.events.len(), 1);
    assert_eq!(call.events[0].name, "notifications/progress");
    let sampling = named(&spans, "sampling/createMessage");
    assert_eq!(
        sampling.kind, 2,
        "a server's request is SERVER from the client's side"
    );
    assert_eq!(sampling.parent_span_id, call.span_id);
    let attr = |s: &Span, k: &str| {
        s.attributes
            .iter()
            .find(|a| a.key == k)
            .and_then(|a| a.value.clone())
    };
    let code = attr(sampling, "error.type").and_then(|v| v.value);
    assert_eq!(
        code,
        Some(
            opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue("-32601".into())
        )
    );
    assert_eq!(
        sampling.status.as_ref().map(|s| s.message.as_str()),
        Some("no sampling")
    );
    let changed = named(&spans, "notifications/tools/list_changed");
    assert_eq!(
        (changed.kind, changed.start_time_unix_nano),
        (2, changed.end_time_unix_nano)
    );
}

/// On recordings appended to one file (`seq`s that start again), the export follows a
/// request to its answer and a response to its request in the same recording (where it took
/// the first event with the `seq`, in the first recording).
#[test]
fn the_export_follows_a_pairing_within_its_recording() {
    use crate::trace::Pairing;
    let events = crate::analysis::fixtures::restarted_seqs();
    let text = crate::analysis::fixtures::RECORDINGS[0];
    let header = crate::trace::load_from_reader(text.as_bytes())
        .expect("fixture")
        .header;
    let report = report(&events);
    let options = Options::default();
    let ctx = super::Ctx::new(&header, &events, &report, &options, None);
    let alone = crate::analysis::fixtures::restarted_pairs();
    for (i, d) in report.rpc.derived.iter().enumerate() {
        let followed = match d.pairing {
            Pairing::AnsweredBy(seq) => ctx.later(seq, i),
            Pairing::Answers(seq) => ctx.earlier(seq, i),
            _ => None,
        };
        assert_eq!(followed, alone[i], "event {i}");
    }
    assert!(alone.iter().flatten().count() > 50);
}
