use std::path::Path;

use super::*;
use crate::analysis::canonical::*;
use crate::analysis::definitions::*;
use crate::trace::{Channel, Event, analyze};
use chrono::{TimeZone as _, Utc};
use serde_json::{Value, json};

fn hash_of(text: &str) -> String {
    tool_hash(&serde_json::from_str(text).expect("json"))
}

#[test]
fn key_order_and_number_spelling_do_not_change_the_hash() {
    let a = r#"{"name":"add","inputSchema":{"type":"object","minimum":1,"maximum":2.5,"x":-0}}"#;
    let b = r#"{ "inputSchema": {"x": 0.0, "maximum": 25e-1, "type":"object", "minimum": 1.0},
                 "name": "add" }"#;
    let c =
        r#"{"inputSchema":{"maximum":2.5,"minimum":1E0,"type":"object","x":-0.0},"name":"add"}"#;
    assert_eq!(hash_of(a), hash_of(b));
    assert_eq!(hash_of(a), hash_of(c));
    assert_eq!(
        canonical_json(&serde_json::from_str(b).expect("json")),
        r#"{"inputSchema":{"maximum":2.5,"minimum":1,"type":"object","x":0},"name":"add"}"#
    );
    assert_eq!(hash_of(a).len(), 64);
}

#[test]
fn a_description_change_changes_the_hash() {
    let a = json!({"name": "get_fact", "description": "A fact."});
    let b = json!({"name": "get_fact", "description": "A fact. "});
    assert_ne!(tool_hash(&a), tool_hash(&b));
    // Looks the same, is not the same: no Unicode normalisation.
    let nfc = json!({"name": "caf\u{e9}"});
    let nfd = json!({"name": "cafe\u{301}"});
    assert_ne!(tool_hash(&nfc), tool_hash(&nfd));
}

#[test]
fn numbers_have_one_spelling() {
    let spell = |s: &str| canonical_json(&serde_json::from_str(s).expect("json"));
    assert_eq!(
        spell("[1.0, -0, -0.0, 1e2, 0.1, 1.5e-7, 1e300, 18446744073709551615]"),
        "[1,0,0,100,0.1,1.5e-7,1e300,18446744073709551615]"
    );
    assert_eq!(spell(r#""a\"\\\n\u0001é""#), r#""a\"\\\n\u0001é""#);
    assert_eq!(spell("1e21"), "1e21");
    assert_eq!(spell("123456789012345678901234"), "1.2345678901234569e23");
}

#[test]
fn pretty_form_and_changed_fields() {
    let v1 = json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
        "properties": {"topic": {"type": "string"}}}});
    let v2 = json!({"name": "t", "description": "d2", "inputSchema": {"type": "object",
        "properties": {"topic": {"type": "string"}, "notes": {"type": "string"}}},
        "annotations": {"readOnlyHint": true}});
    assert_eq!(
        canonical_json_pretty(&json!({"b": [1, {}], "a": {}})),
        "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {}\n  ]\n}\n"
    );
    let changed: Vec<String> = changed_fields(&v1, &v2)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        changed,
        [
            "annotations (added)",
            "description",
            "inputSchema.properties.notes (added)"
        ]
    );
    let diff = definition_diff(
        &canonical_json_pretty(&v1),
        &canonical_json_pretty(&v2),
        "before",
        "after",
    );
    assert!(diff.contains("-  \"description\": \"d\","), "{diff}");
    assert!(diff.contains("+  \"description\": \"d2\","), "{diff}");
    assert!(diff.contains("+      \"notes\": {"), "{diff}");
}

/// A trace with one server whose listings are given as `tools` arrays.
fn trace(listings: &[Value]) -> Vec<Event> {
    let t0 = Utc
        .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
        .single()
        .expect("time");
    let mut events = Vec::new();
    let mut push = |from: &str, to: &str, channel: Channel, raw: String| {
        let seq = events.len() as u64;
        let time = t0 + chrono::Duration::milliseconds(seq as i64);
        let mut e = Event::with_bytes(seq, time, from.into(), to.into(), channel, raw.into_bytes());
        if e.channel == Channel::Process {
            e.raw = None;
            e.set_process(Some(crate::trace::ProcessInfo {
                event: "spawn".into(),
                command: vec!["demo".into(), "s".into()],
                ..Default::default()
            }));
        }
        events.push(e);
    };
    push("host", "server:s", Channel::Process, String::new());
    push(
        "host",
        "server:s",
        Channel::Stdio,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.into(),
    );
    push(
        "server:s",
        "host",
        Channel::Stdio,
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"srv"},"instructions":"hi"}}"#.into(),
    );
    for (i, tools) in listings.iter().enumerate() {
        let id = i + 1;
        push(
            "host",
            "server:s",
            Channel::Stdio,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        );
        push(
            "server:s",
            "host",
            Channel::Stdio,
            json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}).to_string(),
        );
    }
    events
}

fn lists(events: &[Event]) -> Vec<ToolList> {
    definitions(events, &analyze(events)).lists
}

#[test]
fn listings_and_instructions_come_out_of_the_trace() {
    let events = trace(&[
        json!([{"name": "a"}]),
        json!([{"name": "a"}, {"name": "b"}]),
    ]);
    let defs = definitions(&events, &analyze(&events));
    assert_eq!(defs.lists.len(), 2);
    assert_eq!(defs.lists[0].seq, 4);
    assert_eq!(defs.lists[1].seq, 6);
    assert_eq!(
        defs.lists[1].server,
        ServerId {
            name: "srv".into(),
            command: Some(vec!["demo".into(), "s".into()])
        }
    );
    assert_eq!(defs.lists[1].server.to_string(), "srv (demo s)");
    assert_eq!(defs.instructions[0].text, "hi");
    assert_eq!(defs.instructions[0].seq, 2);
}

#[test]
fn within_a_trace_changes_renames_additions_and_removals() {
    let events = trace(&[
        json!([{"name": "fact", "description": "v1"}, {"name": "old", "description": "x"},
               {"name": "gone", "description": "g"}]),
        json!([{"description": "v2", "name": "fact"}, {"name": "new", "description": "x"},
               {"name": "extra"}]),
    ]);
    let findings = compare_lists(&lists(&events));
    assert_eq!(findings.len(), 4, "{findings:#?}");
    match &findings[0] {
        Finding::RugPull {
            server,
            tool,
            before_seq,
            after_seq,
            changed,
            diff,
            ..
        } => {
            assert_eq!((server.as_str(), tool.as_str()), ("srv", "fact"));
            assert_eq!((*before_seq, *after_seq), (4, 6));
            assert_eq!(changed[0].path, "description");
            assert!(diff.contains("+  \"description\": \"v2\","), "{diff}");
        }
        other => panic!("not a rug pull: {other:?}"),
    }
    assert!(findings[0].is_rug_pull());
    assert_eq!(
        findings[1],
        Finding::Renamed {
            server: "srv".into(),
            from: "old".into(),
            to: "new".into(),
            before_seq: 4,
            after_seq: 6
        }
    );
    assert!(matches!(&findings[2], Finding::Added { tool, .. } if tool == "extra"));
    assert!(matches!(&findings[3], Finding::Removed { tool, .. } if tool == "gone"));
}

#[test]
fn unchanged_listings_find_nothing() {
    let events = trace(&[
        json!([{"name": "a", "inputSchema": {"type": "object", "maximum": 1}}]),
        json!([{"inputSchema": {"maximum": 1.0, "type": "object"}, "name": "a"}]),
    ]);
    assert_eq!(compare_lists(&lists(&events)), []);
}

#[test]
fn pin_store_accept_list_check_forget() {
    let path = Path::new("nested/pins.json");
    let day1 = trace(&[json!([{"name": "fact", "description": "v1"},
                              {"name": "other", "description": "o"}])]);
    let day7 = trace(&[json!([{"name": "fact", "description": "v2"},
                              {"name": "renamed", "description": "o"},
                              {"name": "brand_new"}])]);
    let mut store = PinStore::empty(path);
    assert!(
        store
            .check(&lists(&day1))
            .iter()
            .any(|f| matches!(f, Finding::ServerNotPinned { server, .. } if server == "srv"))
    );
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
        .single()
        .expect("t");
    let accepted = store.accept(&lists(&day1), now);
    assert_eq!(accepted.len(), 2);
    assert!(accepted.iter().all(|a| a.previous.is_none()));
    let text = store.to_text().expect("encode");

    let store = PinStore::parse(path, &text).expect("reread");
    let pins: Vec<(String, String)> = store
        .pins()
        .map(|(s, p)| (s.server.clone(), p.tool.clone()))
        .collect();
    assert_eq!(
        pins,
        [
            ("srv".into(), "fact".into()),
            ("srv".into(), "other".into())
        ]
    );
    let (_, pin) = store.pins().next().expect("pin");
    assert_eq!(pin.pinned_at, "2026-11-29T12:00:00Z");
    assert_eq!(pin.definition, r#"{"description":"v1","name":"fact"}"#);

    assert_eq!(store.check(&lists(&day1)), []);
    let findings = check_trace(&lists(&day7), Some(&store));
    assert_eq!(findings.len(), 3, "{findings:#?}");
    match &findings[0] {
        Finding::PinChanged {
            tool, seq, diff, ..
        } => {
            assert_eq!((tool.as_str(), *seq), ("fact", 4));
            assert!(diff.contains("-  \"description\": \"v1\","), "{diff}");
            assert!(diff.contains("+  \"description\": \"v2\","), "{diff}");
            assert!(diff.contains("as pinned 2026-11-29T12:00:00Z"), "{diff}");
        }
        other => panic!("not a pin change: {other:?}"),
    }
    assert!(findings[0].is_rug_pull());
    assert!(matches!(&findings[1],
        Finding::PinRenamed { pinned, tool, .. } if pinned == "other" && tool == "renamed"));
    assert!(matches!(&findings[2], Finding::NotPinned { tool, .. } if tool == "brand_new"));

    // Accepting the new definitions replaces the old pin of `fact`.
    let mut store = store;
    let accepted = store.accept(&lists(&day7), now);
    let fact = accepted.iter().find(|a| a.tool == "fact").expect("fact");
    assert!(fact.previous.as_deref().is_some_and(|p| p != fact.sha256));
    assert!(!store.check(&lists(&day7)).iter().any(Finding::is_rug_pull));

    assert_eq!(store.forget("srv/other"), [("srv".into(), "other".into())]);
    assert_eq!(store.forget("nobody"), []);
    assert_eq!(store.forget("srv (demo s)").len(), 3);
    assert!(store.file.servers.is_empty());
    let text = store.to_text().expect("encode");
    assert_eq!(
        PinStore::parse(path, &text).expect("reread").pins().count(),
        0
    );
}

#[test]
fn a_newer_pin_file_is_refused() {
    let path = Path::new("pins.json");
    let err = PinStore::parse(path, r#"{"version": 99, "servers": []}"#).expect_err("newer");
    assert!(
        matches!(err, PinFileError::TooNew { version: 99, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "pins.json has version 99; this Sightline reads version 1"
    );
    let err = PinStore::parse(path, "[]").expect_err("not a pin file");
    assert!(
        err.to_string()
            .starts_with("pins.json is not a Sightline pin file"),
        "{err}"
    );
}
