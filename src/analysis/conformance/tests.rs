use super::schema::schema_at;
use super::*;
use crate::analysis::explain::REVISIONS;
use crate::trace::{Channel, Lane, analyze};

const H: &str = "host";
const S: &str = "server:s";

fn trace(lines: &[(&str, &str, &str)]) -> Vec<Event> {
    let t0 = chrono::DateTime::parse_from_rfc3339("2026-11-29T22:00:00Z")
        .expect("time")
        .with_timezone(&chrono::Utc);
    lines
        .iter()
        .enumerate()
        .map(|(i, (from, to, raw))| {
            Event::with_bytes(
                i as u64,
                t0 + chrono::Duration::milliseconds(i as i64),
                Lane::from(*from),
                Lane::from(*to),
                Channel::Stdio,
                raw.as_bytes().to_vec(),
            )
        })
        .collect()
}

fn run(lines: &[(&str, &str, &str)]) -> Conformance {
    let events = trace(lines);
    check(&events, &analyze(&events))
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn pointers(c: &Conformance) -> Vec<(&str, &str, &str)> {
    c.violations
        .iter()
        .map(|v| (v.definition.as_str(), v.pointer.as_str(), v.rule.as_str()))
        .collect()
}

#[test]
fn method_tables_come_from_the_schemas() {
    for (i, revision) in REVISIONS.iter().enumerate() {
        let s = schema_at(i);
        assert_eq!(s.revision, *revision);
        assert_eq!(
            s.client_requests.get("tools/call").map(String::as_str),
            Some("CallToolRequest"),
            "{revision}"
        );
        assert_eq!(
            s.server_notifications
                .get("notifications/tools/list_changed")
                .map(String::as_str),
            Some("ToolListChangedNotification")
        );
        assert_eq!(s.result_for("CallToolRequest"), "CallToolResult");
        assert_eq!(s.result_for("ListToolsRequest"), "ListToolsResult");
    }
    let old = schema_at(0);
    assert_eq!(old.error_definition, "JSONRPCError");
    assert_eq!(old.result_for("PingRequest"), "Result");
    assert!(
        old.server_requests
            .as_ref()
            .expect("2024 has ServerRequest")["roots/list"]
            == "ListRootsRequest"
    );
    let new = schema_at(4);
    assert_eq!(new.error_definition, "JSONRPCErrorResponse");
    assert!(new.server_requests.is_none());
    assert!(!new.client_requests.contains_key("initialize"));
    assert_eq!(new.client_requests["server/discover"], "DiscoverRequest");
    assert_eq!(new.result_for("DiscoverRequest"), "DiscoverResult");
    assert_eq!(
        new.client_notifications["notifications/cancelled"],
        "ClientNotification"
    );
    assert_eq!(
        schema_at(3).client_requests["tasks/result"],
        "GetTaskPayloadRequest"
    );
    assert_eq!(
        schema_at(3).result_for("GetTaskPayloadRequest"),
        "GetTaskPayloadResult"
    );
}

#[test]
fn a_clean_handshake_validates_clean() {
    let c = run(&[(H, S, INIT), (S, H, INIT_OK), (H, S, INITIALIZED)]);
    assert_eq!(c.violations, []);
    assert_eq!(c.checked, 3);
    assert!(c.unknown.is_empty());
}

#[test]
fn initialize_without_client_info_is_caught() {
    let broken = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
    let c = run(&[(H, S, broken), (S, H, INIT_OK)]);
    assert_eq!(
        pointers(&c),
        [("InitializeRequest", "/params/clientInfo", "required")]
    );
    let v = &c.violations[0];
    assert_eq!((v.event, v.seq), (0, 0));
    assert_eq!(v.revision, "2025-11-25");
    assert!(
        v.message.english().contains("clientInfo"),
        "{:?}",
        v.message
    );
}

#[test]
fn a_tool_without_input_schema_is_caught() {
    let c = run(&[
        (H, S, INIT),
        (S, H, INIT_OK),
        (H, S, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"get_weather","description":"d"}]}}"#,
        ),
    ]);
    assert_eq!(
        pointers(&c),
        [("ListToolsResult", "/result/tools/1/inputSchema", "required")]
    );
    assert_eq!(c.violations[0].seq, 3);
}

#[test]
fn a_broken_content_block_is_reported_inside_its_branch() {
    let c = run(&[
        (H, S, INIT),
        (S, H, INIT_OK),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"},{"type":"text"},{"type":"image","data":"AA=="}]}}"#,
        ),
    ]);
    assert_eq!(
        pointers(&c),
        [
            ("CallToolResult", "/result/content/1/text", "required"),
            ("CallToolResult", "/result/content/2/mimeType", "required"),
        ]
    );
}

#[test]
fn a_value_that_fits_no_branch_reports_the_union() {
    let c = run(&[
        (H, S, INIT),
        (S, H, INIT_OK),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        ),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"video","url":"x"}]}}"#,
        ),
    ]);
    assert_eq!(
        pointers(&c),
        [("CallToolResult", "/result/content/0", "anyOf")]
    );
}

#[test]
fn revisions_and_unknown_methods() {
    let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let list = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{m}}}}}"#);
    let ext = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"x/ext","params":{{{m}}}}}"#);
    let c = run(&[
        (H, S, &list),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}"#,
        ),
        (H, S, &ext),
        (S, H, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#),
        (S, H, r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
        (S, H, r#"{"jsonrpc":"2.0","method":"notifications/x"}"#),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"nope"}}"#,
        ),
    ]);
    assert_eq!(
        pointers(&c),
        [("ServerRequest", "", "revision")],
        "{:#?}",
        c.violations
    );
    assert_eq!(c.violations[0].revision, "2026-07-28");
    assert!(
        c.violations[0]
            .message
            .english()
            .contains("no server-to-client requests")
    );
    assert_eq!(c.unknown.get("x/ext"), Some(&2));
    assert_eq!(c.unknown.get("notifications/x"), Some(&1));
    assert_eq!(c.checked, 4, "list, its result, roots/list, the error");
}

#[test]
fn the_2026_result_must_say_its_type() {
    let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"confirm",{m}}}}}"#
    );
    let c = run(&[
        (H, S, &call),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"abc"}}"#,
        ),
        (H, S, &call.replace(r#""id":1"#, r#""id":2"#)),
        (S, H, r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
    ]);
    assert_eq!(
        pointers(&c),
        [("CallToolResult", "/result/resultType", "required")]
    );
    assert_eq!(c.violations[0].seq, 3);
}

#[test]
fn initialize_is_checked_under_the_negotiated_revision() {
    // rmcp asks for 2026-07-28 in a legacy initialize; the server answers 2025-11-25.
    let ask = INIT.replace("2025-11-25", "2026-07-28");
    let c = run(&[(H, S, &ask), (S, H, INIT_OK), (H, S, INITIALIZED)]);
    assert_eq!(c.violations, []);
    assert_eq!(c.checked, 3);
    // An unknown revision is checked as 2025-11-25.
    let ask = INIT.replace("2025-11-25", "1999-01-01");
    let answer = INIT_OK.replace("2025-11-25", "1999-01-01");
    let c = run(&[(H, S, &ask), (S, H, &answer)]);
    assert_eq!(c.violations, []);
    assert_eq!(c.checked, 2);
}

#[test]
fn old_revisions_use_their_own_names() {
    let init = INIT.replace("2025-11-25", "2024-11-05");
    let ok = INIT_OK.replace("2025-11-25", "2024-11-05");
    let c = run(&[
        (H, S, &init),
        (S, H, &ok),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}"#,
        ),
        (S, H, r#"{"jsonrpc":"2.0","id":1,"error":{"code":"bad"}}"#),
    ]);
    assert_eq!(
        pointers(&c),
        [
            ("ReadResourceRequest", "/params/uri", "required"),
            ("JSONRPCError", "/error/code", "type"),
            ("JSONRPCError", "/error/message", "required"),
        ],
        "{:#?}",
        c.violations
    );
    assert!(c.violations.iter().all(|v| v.revision == "2024-11-05"));
}

#[test]
fn checking_a_slice_at_a_time_finds_what_checking_at_once_finds() {
    // A task-augmented request and its answer in different slices, a violation in each
    // half, a result with no request.
    let task = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{"ttl":1000}}}"#;
    let lines = [
        (H, S, INIT),
        (S, H, INIT_OK),
        (H, S, INITIALIZED),
        (
            H,
            S,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#,
        ),
        (H, S, task),
        (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#),
        (S, H, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
        (
            S,
            H,
            r#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":1}}"#,
        ),
    ];
    let events = trace(&lines);
    let analysis = analyze(&events);
    let whole = check(&events, &analysis);
    assert!(whole.violations.len() >= 2, "{:#?}", whole.violations);
    assert!(
        pointers(&whole).iter().any(|p| p.0 == "CreateTaskResult"),
        "{:#?}",
        whole.violations
    );
    for slice in [1, 2, 3] {
        let mut checker = Checker::default();
        let mut steps = 1;
        while !checker.step(&events, &analysis, slice) {
            steps += 1;
        }
        assert_eq!(steps, lines.len().div_ceil(slice));
        assert_eq!(checker.finish(), whole, "slices of {slice}");
    }
}

/// Messages that repeat one checked before (but for the id) take its outcome: the same
/// violations, each at its own event, as checking every message afresh finds.
#[test]
fn repeated_messages_have_the_outcome_of_checking_them_afresh() {
    let call = |id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t"}}}}"#)
    };
    let bad = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call"}}"#);
    let odd = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":7}}"#);
    let answer = |id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text"}}]}}}}"#)
    };
    let task = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","task":{{}}}}}}"#
        )
    };
    let mut owned: Vec<(&str, &str, String)> = vec![
        (H, S, INIT.to_string()),
        (S, H, INIT_OK.to_string()),
        (H, S, INITIALIZED.to_string()),
    ];
    for (n, id) in ["1", "\"a\"", "22", "-3", "1.5", "01", "\"b\"", "\"b\""]
        .into_iter()
        .enumerate()
    {
        let make = [call, bad, odd, task][n % 4];
        owned.push((H, S, make(id)));
        owned.push((S, H, answer(id)));
        owned.push((H, S, make(id)));
    }
    let lines: Vec<(&str, &str, &str)> =
        owned.iter().map(|(f, t, r)| (*f, *t, r.as_str())).collect();
    let events = trace(&lines);
    let analysis = analyze(&events);
    let mut cached = Checker::default();
    while !cached.step(&events, &analysis, usize::MAX) {}
    let hits = cached.seen.hits;
    let cached = cached.finish();
    let mut afresh = Checker {
        seen: repeat::Seen::none(),
        ..Checker::default()
    };
    while !afresh.step(&events, &analysis, usize::MAX) {}
    assert_eq!(cached, afresh.finish());
    assert!(hits >= 10, "{hits}");
    let at = |seq: u64| cached.violations.iter().filter(|v| v.seq == seq).count();
    assert!(
        at(6) > 0 && at(8) > 0 && at(15) > 0,
        "{:#?}",
        cached.violations
    );
    assert!(cached.violations.len() >= 8, "{:#?}", cached.violations);
}

#[test]
fn the_shipped_schemas_are_valid_json_schemas() {
    // The validators are compiled from a reference into each document, which is no longer
    // checked against its meta-schema on every compile: it is checked here.
    for (i, revision) in crate::analysis::explain::REVISIONS.iter().enumerate() {
        let document = &schema_at(i).document;
        if let Err(e) = jsonschema::meta::validate(document) {
            panic!("{revision}: {e}");
        }
    }
}

/// The table of the messages checked has room for the whole trace's from the first step: it
/// never grows (moving all it holds, in one step) in the middle of a check.
#[test]
fn the_messages_remembered_have_room_from_the_first_step() {
    let calls: Vec<String> = (0..200)
        .map(|k| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{k},"method":"tools/call","params":{{"name":"t","arguments":{{"k":{k}}}}}}}"#
            )
        })
        .collect();
    let lines: Vec<(&str, &str, &str)> = std::iter::once((H, S, INIT))
        .chain(calls.iter().map(|c| (H, S, c.as_str())))
        .collect();
    let events = trace(&lines);
    let analysis = analyze(&events);
    let mut checker = Checker::default();
    checker.step(&events, &analysis, 1);
    let room = checker.seen.room();
    while !checker.step(&events, &analysis, 1) {}
    assert!(room >= calls.len(), "{room}");
    assert_eq!(checker.seen.room(), room);
}

/// The answer to a task-augmented request is checked as a `CreateTaskResult` though an
/// earlier event has the request's `seq` (out of order: a binary search found that one): the
/// request is the last event with its `seq`, as everywhere else ([`crate::trace::Seqs`]).
#[test]
fn a_task_answer_finds_its_request_when_its_seq_repeats() {
    let task = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{"ttl":1000}}}"#;
    let mut events = trace(&[
        (H, S, INIT),
        (S, H, INIT_OK),
        (H, S, INITIALIZED),
        (H, S, INITIALIZED),
        (H, S, task),
        (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#),
    ]);
    for (e, seq) in events.iter_mut().zip([0, 1, 5, 9, 5, 6]) {
        e.seq = seq;
    }
    let c = check(&events, &analyze(&events));
    assert!(
        pointers(&c).iter().any(|p| p.0 == "CreateTaskResult"),
        "{:#?}",
        c.violations
    );
}
