//! Correlation on small hand-made traces: one test per rule of [`super`].

use super::*;
use chrono::{Duration, TimeZone, Utc};

/// Builds events from (from, to, raw) with 1 ms between them; `!exit` makes a process exit.
fn trace(lines: &[(&str, &str, &str)]) -> Vec<Event> {
    let t0 = Utc
        .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
        .single()
        .expect("time");
    lines
        .iter()
        .enumerate()
        .map(|(i, (from, to, raw))| {
            let time = t0 + Duration::milliseconds(i as i64);
            if *raw == "!exit" {
                let mut e = Event::with_bytes(
                    i as u64,
                    time,
                    (*from).into(),
                    (*to).into(),
                    Channel::Process,
                    vec![],
                );
                e.raw = None;
                e.set_process(Some(crate::trace::ProcessInfo {
                    event: "exit".into(),
                    signal: Some(9),
                    ..Default::default()
                }));
                return e;
            }
            Event::with_bytes(
                i as u64,
                time,
                (*from).into(),
                (*to).into(),
                Channel::Stdio,
                raw.as_bytes().to_vec(),
            )
        })
        .collect()
}

const H: &str = "host";
const S: &str = "server:s";

#[test]
fn colliding_ids_pair_by_direction() {
    let events = trace(&[
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        ),
        (S, H, r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
        (H, S, r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#),
        (
            S,
            H,
            r#"{"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"x"}},"jsonrpc":"2.0","id":0}"#,
        ),
    ]);
    let a = analyze(&events);
    assert_eq!(a.derived[0].pairing, Pairing::AnsweredBy(3));
    assert_eq!(a.derived[1].pairing, Pairing::AnsweredBy(2));
    assert_eq!(a.derived[2].pairing, Pairing::Answers(1));
    assert_eq!(a.derived[2].method.as_deref(), Some("roots/list"));
    assert_eq!(a.derived[3].pairing, Pairing::Answers(0));
    assert_eq!(a.derived[3].latency_us(), Some(3000));
    assert_eq!(a.derived[3].revision.as_deref(), Some("2025-11-25"));
    assert_eq!(a.sessions[0].1.server_name.as_deref(), Some("x"));
}

#[test]
fn string_and_number_ids_do_not_pair() {
    let events = trace(&[
        (H, S, r#"{"jsonrpc":"2.0","id":"1","method":"a"}"#),
        (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
    ]);
    let a = analyze(&events);
    assert!(a.derived[0].is_unanswered());
    assert_eq!(a.derived[1].pairing, Pairing::Orphan);
}

#[test]
fn server_death_leaves_request_unanswered() {
    let events = trace(&[
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":-5,"method":"tools/call","params":{"name":"die"}}"#,
        ),
        (S, H, "!exit"),
        (S, H, r#"{"jsonrpc":"2.0","id":-5,"result":{}}"#),
    ]);
    let a = analyze(&events);
    assert_eq!(
        a.derived[0].pairing,
        Pairing::Unanswered("the server exited first (event #1)".into())
    );
    assert_eq!(a.derived[0].detail.as_deref(), Some("die"));
    assert_eq!(a.derived[2].pairing, Pairing::Orphan);
}

#[test]
fn stateless_revision_mrtr_and_subscriptions() {
    let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    let events = trace(&[
        (
            H,
            S,
            &format!(r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{{m}}}}}"#),
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tour"}}}}"#,
        ),
        (
            H,
            S,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"confirm",{m}}}}}"#
            ),
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"abc","inputRequests":{}}}"#,
        ),
        (
            H,
            S,
            &format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"confirm","requestState":"abc",{m}}}}}"#
            ),
        ),
        (
            H,
            S,
            &format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{{{m}}}}}"#
            ),
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
        ),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
        ),
    ]);
    let a = analyze(&events);
    assert_eq!(a.derived[0].revision.as_deref(), Some("2026-07-28"));
    assert!(a.sessions[0].1.stateless);
    assert_eq!(a.sessions[0].1.server_name.as_deref(), Some("tour"));
    assert!(a.derived[3].input_required);
    assert_eq!(a.derived[4].retry_of(), Some(2));
    assert_eq!(a.derived[6].subscription(), Some(5));
    assert_eq!(a.derived[7].subscription(), Some(5));
    assert_eq!(a.derived[5].pairing, Pairing::Cancelled(8));
    assert!(a.derived[4].is_unanswered());
}

#[test]
fn a_reused_pending_id_leaves_the_earlier_request_unanswered() {
    let events = trace(&[
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
        ),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}"#,
        ),
        (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
    ]);
    let a = analyze(&events);
    let why = "its id was reused by event #1 before any response";
    assert_eq!(a.derived[0].pairing, Pairing::Unanswered(why.into()));
    assert_eq!(a.derived[1].pairing, Pairing::AnsweredBy(2));
}

#[test]
fn invalid_lines_are_kept_with_a_reason() {
    let events = trace(&[
        (S, H, "debug: listing tools"),
        (S, H, r#"{"hello":"world"}"#),
    ]);
    let a = analyze(&events);
    assert_eq!(a.derived[0].kind, Kind::Invalid);
    assert!(a.derived[0].problem().is_some_and(
        |p| p.why == crate::trace::Invalidity::NotJson && p.to_string().starts_with("not JSON")
    ));
    assert_eq!(a.derived[1].kind, Kind::Invalid);
}

#[test]
fn a_derived_record_is_small_and_keeps_any_latency() {
    assert!(
        std::mem::size_of::<Derived>() <= 80,
        "one per event: keep it small"
    );
    let mut d = Derived::plain(Kind::Request);
    assert_eq!(d.latency_us(), None);
    for us in [0, 1, -5, i64::MAX, i64::MIN + 1] {
        d.set_latency_us(Some(us));
        assert_eq!(d.latency_us(), Some(us));
    }
    d.set_latency_us(None);
    assert_eq!(d.latency_us(), None);
}

#[test]
fn an_answer_shares_the_string_id_of_its_request() {
    let events = trace(&[
        (
            "host",
            "server:s",
            r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#,
        ),
        (
            "server:s",
            "host",
            r#"{"jsonrpc":"2.0","id":"p1","result":{}}"#,
        ),
    ]);
    let a = analyze(&events);
    assert_eq!(a.derived[1].pairing, Pairing::Answers(0));
    match (&a.derived[0].id, &a.derived[1].id) {
        (Some(RpcId::String(asked)), Some(RpcId::String(answered))) => {
            assert_eq!(asked, "p1");
            assert!(Shared::ptr_eq(asked, answered), "one copy of the id");
        }
        other => panic!("{other:?}"),
    }
}
