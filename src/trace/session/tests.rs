use std::io::Write as _;

use super::*;
use crate::trace::{Channel, HttpInfo, Lane, TraceWriter};

fn at(ms: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + ms).unwrap_or_default()
}

fn event(seq: u64, ms: i64, from: Lane, to: Lane, raw: &str) -> Event {
    Event::with_bytes(
        seq,
        at(ms),
        from,
        to,
        Channel::Stdio,
        raw.as_bytes().to_vec(),
    )
}

fn write(path: &Path, title: &str, events: &[Event]) {
    let mut w = TraceWriter::create(path, &Header::new(title)).expect("create");
    for e in events {
        w.append(e).expect("append");
    }
    w.flush().expect("flush");
}

#[test]
fn a_folder_merges_by_time_keeping_each_members_order_and_origin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = || Lane::server("weather");
    write(
        &dir.path().join("a-llm.jsonl"),
        "llm",
        &[
            event(0, 0, Lane::Host, Lane::Llm, "request 1"),
            event(1, 30, Lane::Llm, Lane::Host, "tool_use"),
            event(2, 90, Lane::Host, Lane::Llm, "request 2"),
        ],
    );
    write(
        &dir.path().join("b-weather.jsonl"),
        "weather",
        &[
            event(0, 50, Lane::Host, w(), "tools/call"),
            event(1, 60, w(), Lane::Host, "result"),
            // A clock stepped back: still after its predecessor in this member.
            event(2, 55, w(), Lane::Host, "late log"),
        ],
    );
    std::fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
    std::fs::write(dir.path().join("junk.jsonl"), "{\"a\":1}\n").expect("write");
    let loaded = load_dir(dir.path()).expect("load");
    let order: Vec<&str> = loaded
        .events
        .iter()
        .map(|e| e.raw.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        order,
        [
            "request 1",
            "tool_use",
            "tools/call",
            "result",
            "late log",
            "request 2"
        ]
    );
    let seqs: Vec<u64> = loaded.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4, 5]);
    assert_eq!(
        loaded.events[2].extra().get("origin"),
        Some(&Value::from("b-weather.jsonl#0"))
    );
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0]
            .problem
            .to_string()
            .starts_with("junk.jsonl: not a Sightline trace")
    );
    assert_eq!(
        loaded
            .header
            .extra
            .get("members")
            .map(|m| m.to_string())
            .as_deref(),
        Some(r#"["a-llm.jsonl","b-weather.jsonl"]"#)
    );
}

#[test]
fn in_reply_to_follows_the_renumbering() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = || Lane::server("everything");
    write(
        &dir.path().join("a.jsonl"),
        "a",
        &[event(0, 0, Lane::Host, Lane::Llm, "x")],
    );
    let mut post = event(0, 10, Lane::Host, s(), "{}");
    post.channel = Channel::Http;
    post.set_http(Some(HttpInfo {
        method: Some("POST".into()),
        ..HttpInfo::default()
    }));
    let mut answer = event(1, 20, s(), Lane::Host, "{}");
    answer.channel = Channel::Http;
    answer
        .extra_mut()
        .insert("in_reply_to".into(), Value::from(0));
    write(&dir.path().join("b.jsonl"), "b", &[post, answer]);
    let loaded = load_dir(dir.path()).expect("load");
    assert_eq!(
        loaded.events[2].extra().get("in_reply_to"),
        Some(&Value::from(1))
    );
}

#[test]
fn following_reads_appended_lines_and_new_files_and_waits_for_newlines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write(&a, "a", &[event(0, 0, Lane::Host, Lane::Llm, "one")]);
    let mut follower = Follower::new(dir.path()).expect("follow");
    assert_eq!(follower.poll().len(), 1);
    assert!(follower.poll().is_empty());

    // Half a line, then the rest.
    let line = serde_json::to_string(&event(1, 5, Lane::Llm, Lane::Host, "two")).expect("json");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&a)
        .expect("open");
    file.write_all(&line.as_bytes()[..10]).expect("write");
    file.flush().expect("flush");
    assert!(follower.poll().is_empty());
    file.write_all(&line.as_bytes()[10..]).expect("write");
    file.write_all(b"\n").expect("write");
    let got = follower.poll();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].seq, 1);
    assert_eq!(got[0].raw.as_deref(), Some("two"));

    // A new member joins.
    write(
        &dir.path().join("b.jsonl"),
        "b",
        &[event(0, 7, Lane::Host, Lane::server("w"), "three")],
    );
    let got = follower.poll();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].seq, 2);
    assert_eq!(follower.member_count(), 2);
    assert!(follower.warnings.is_empty(), "{:?}", follower.warnings);
}

#[test]
fn a_single_file_keeps_its_seqs_and_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write(&a, "solo", &[event(5, 0, Lane::Host, Lane::Llm, "x")]);
    let mut follower = Follower::new(&a).expect("follow");
    let got = follower.poll();
    assert_eq!(got[0].seq, 5);
    assert!(!got[0].extra().contains_key("origin"));
    assert_eq!(follower.header().title, "solo");
}

#[test]
fn an_empty_folder_is_not_a_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        load_dir(dir.path()),
        Err(TraceError::BadHeader(_))
    ));
}
