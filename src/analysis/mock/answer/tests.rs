use serde_json::Value;

use super::*;
use crate::analysis::mock::tests::weather;
use crate::trace::analyze;

fn mock(in_order: bool) -> Mock {
    let events = weather();
    let rec = Recording::read(&events, &analyze(&events), None).expect("a recording");
    Mock::new(rec, in_order)
}

fn lines(reply: &Reply) -> Vec<String> {
    match reply {
        Reply::Send(lines) => lines.out.iter().map(|o| o.text.clone()).collect(),
        Reply::Nothing => Vec::new(),
    }
}

fn parsed(line: &str) -> Value {
    serde_json::from_str(line).expect("JSON")
}

#[test]
fn an_answer_is_the_recorded_bytes_under_the_callers_id() {
    let mut m = mock(false);
    let reply = m.reply(
        r#"{"jsonrpc":"2.0","id":"c-1","method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"other"}}}"#,
    );
    let recorded = weather()[1].text().into_owned();
    assert_eq!(
        lines(&reply),
        [recorded.replacen(r#""id":0"#, r#""id":"c-1""#, 1)]
    );
    // Keys in another order and `_meta` do not count.
    let call = r#"{"id": 9, "jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"units":"C","location":"Lima"},"name":"get_weather"}}"#;
    let got = lines(&m.reply(call));
    assert_eq!(got.len(), 1);
    assert_eq!(parsed(&got[0])["id"], 9);
    assert!(got[0].contains("Lima: 20C"));
    // The client's answers to the server's requests need none.
    assert_eq!(
        m.reply(r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#),
        Reply::Nothing
    );
}

#[test]
fn what_the_server_sent_meanwhile_comes_in_its_place_with_the_callers_token() {
    let mut m = mock(false);
    let call = r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"_meta":{"progressToken":"p41"},"name":"get_weather","arguments":{"location":"Seoul","units":"C"}}}"#;
    let got = lines(&m.reply(call));
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(parsed(&got[0])["method"], "notifications/progress");
    assert_eq!(parsed(&got[0])["params"]["progressToken"], "p41");
    assert_eq!(parsed(&got[1])["id"], 41);
    // A notification plays what followed it once: the server's `roots/list`.
    let init = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let first = lines(&m.reply(init));
    assert_eq!(parsed(&first[0])["method"], "roots/list");
    assert_eq!(m.reply(init), Reply::Nothing);
}

#[test]
fn repeats_get_the_first_answer_or_with_in_order_each_in_turn() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Seoul","units":"C"}}}"#;
    let texts = |in_order: bool| -> Vec<String> {
        let mut m = mock(in_order);
        (0..3)
            .map(|_| {
                let got = lines(&m.reply(call));
                let last = got.last().map(|l| parsed(l)).unwrap_or_default();
                let text = &last["result"]["content"][0]["text"];
                text.as_str().unwrap_or("").to_string()
            })
            .collect()
    };
    assert_eq!(texts(false), ["Seoul: 15C", "Seoul: 15C", "Seoul: 15C"]);
    assert_eq!(texts(true), ["Seoul: 15C", "Seoul: 16C", "Seoul: 16C"]);
}

#[test]
fn an_unrecorded_request_is_an_error_naming_the_nearest_recorded_one() {
    let mut m = mock(false);
    let paris = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Paris","units":"C"}}}"#;
    let got = parsed(&lines(&m.reply(paris))[0]);
    assert_eq!(got["id"], 5);
    assert_eq!(got["error"]["code"], -32602);
    let message = got["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("nearest recorded request is #5 tools/call")
            && message.ends_with("differs at /arguments/location"),
        "{message}"
    );
    assert_eq!(got["error"]["data"]["nearest"]["seq"], 5);
    let list = r#"{"jsonrpc":"2.0","id":6,"method":"tools/lisst"}"#;
    let got = parsed(&lines(&m.reply(list))[0]);
    assert_eq!(got["error"]["code"], -32601);
    let message = got["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("has no tools/lisst request"), "{message}");
    assert!(message.contains("#5 tools/call"), "{message}");
    // `ping` is owed an empty result; text that is not JSON a parse error.
    let ping = lines(&m.reply(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#));
    assert_eq!(ping, [r#"{"jsonrpc":"2.0","id":7,"result":{}}"#]);
    let bad = parsed(&lines(&m.reply("{not json"))[0]);
    assert_eq!(bad["error"]["code"], -32700);
    assert_eq!(bad["id"], Value::Null);
}

#[test]
fn a_span_is_the_exact_bytes_of_one_value() {
    let raw = r#"{ "id" : 12.50, "params": {"_meta": {"progressToken": "x\"y"}}}"#;
    let (s, e) = span(raw, &["id"]).expect("an id");
    assert_eq!(&raw[s..e], "12.50");
    let (s, e) = span(raw, &["params", "_meta", "progressToken"]).expect("a token");
    assert_eq!(&raw[s..e], r#""x\"y""#);
    assert_eq!(
        splice(raw, &["id"], r#""a""#).as_deref(),
        Some(r#"{ "id" : "a", "params": {"_meta": {"progressToken": "x\"y"}}}"#)
    );
    assert_eq!(span(raw, &["nothing"]), None);
    assert_eq!(span("[1]", &["id"]), None);
}

/// The recorded client answered the server's `roots/list` before the server went on: the
/// mock waits for the live client's answer there, then sends the rest.
#[test]
fn after_a_server_request_the_rest_waits_for_the_clients_answer() {
    use crate::analysis::mock::tests::stdio;
    use serde_json::json;
    let events = stdio(&[
        (
            true,
            json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
            "params": {"name": "roots"}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        ),
        (
            true,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"data": "got roots"}}),
        ),
        (
            false,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"content": []}}),
        ),
    ]);
    let rec = Recording::read(&events, &analyze(&events), None).expect("a recording");
    let mut m = Mock::new(rec, false);
    let Reply::Send(first) =
        m.reply(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"roots"}}"#)
    else {
        panic!("lines");
    };
    assert_eq!(first.out.len(), 1);
    assert!(first.more && !first.answered && !first.resumed);
    assert_eq!(parsed(&first.out[0].text)["method"], "roots/list");
    // Another answer than the one awaited resumes nothing.
    assert_eq!(
        m.reply(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#),
        Reply::Nothing
    );
    let Reply::Send(rest) = m.reply(r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#) else {
        panic!("the rest");
    };
    assert!(rest.resumed && rest.answered && !rest.more);
    assert_eq!(rest.turn, first.turn);
    let got: Vec<Value> = rest.out.iter().map(|o| parsed(&o.text)).collect();
    assert_eq!(got[0]["method"], "notifications/message");
    assert_eq!(got[1]["id"], 9);
}
