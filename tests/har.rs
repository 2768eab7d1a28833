//! `export --format har` and `import har`: the HTTP parts of real traces (the TS SDK's HTTP
//! client and server-everything through `proxy --http`, with SSE on the `POST`s and the `GET`
//! stream; a shipped scenario's LLM API exchanges) exported and imported again give the same
//! events; the HAR has the fields HAR 1.2 requires; redacted credentials stay redacted and the
//! HAR says so; hostile HARs (bad JSON, missing fields, huge bodies) are refused naming where.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn sightline(args: &[&str]) -> Output {
    run(Command::new(bin()).args(args), LIMIT)
}

/// `trace` exported as HAR to `dir/NAME.har`, parsed.
fn exported(trace: &Path, dir: &Path, name: &str) -> (PathBuf, Value) {
    let har = dir.join(format!("{name}.har"));
    let out = sightline(&["export", s(trace), "--format", "har", "--out", s(&har)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value = read_json(&har);
    (har, value)
}

/// The HTTP and LLM API events of a trace as JSON lines, numbered from 0 in order, with each
/// `in_reply_to` renumbered alike: what a HAR of it holds.
fn http_events(trace: &Path) -> Vec<Value> {
    let loaded = load(trace);
    let kept: Vec<_> = loaded
        .events
        .iter()
        .filter(|e| e.channel.as_str() == "http" || e.channel.as_str() == "llm-http")
        .collect();
    let renumbered: std::collections::HashMap<u64, usize> =
        kept.iter().enumerate().map(|(i, e)| (e.seq, i)).collect();
    kept.iter()
        .enumerate()
        .map(|(i, e)| {
            let mut v = serde_json::to_value(e).expect("an event as JSON");
            v["seq"] = i.into();
            if let Some(at) = v.pointer_mut("/http/in_reply_to") {
                *at = renumbered[&at.as_u64().expect("a seq")].into();
            }
            v
        })
        .collect()
}

/// Exported, imported again: the same events.
fn assert_round_trip(trace: &Path, dir: &Path, name: &str) -> Value {
    let (har, value) = exported(trace, dir, name);
    let back = dir.join(format!("{name}-back.jsonl"));
    let out = sightline(&["import", "har", s(&har), "--trace", s(&back)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (before, after) = (http_events(trace), http_events(&back));
    assert!(!before.is_empty());
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a, b);
    }
    value
}

/// The members HAR 1.2 requires, with their types, in every entry.
fn assert_har_1_2(har: &Value) {
    let log = &har["log"];
    assert_eq!(log["version"], "1.2");
    assert!(log["creator"]["name"].is_string() && log["creator"]["version"].is_string());
    let entries = log["entries"].as_array().expect("entries");
    assert!(!entries.is_empty());
    for e in entries {
        let started = e["startedDateTime"].as_str().expect("startedDateTime");
        assert!(
            chrono::DateTime::parse_from_rfc3339(started).is_ok(),
            "{started}"
        );
        let time = e["time"].as_f64().expect("time");
        let (req, res) = (&e["request"], &e["response"]);
        for key in ["method", "url", "httpVersion"] {
            assert!(req[key].is_string(), "request.{key}: {e}");
        }
        for key in ["cookies", "headers", "queryString"] {
            assert!(req[key].is_array(), "request.{key}: {e}");
        }
        assert!(
            req["headersSize"].is_i64() && req["bodySize"].is_i64(),
            "{e}"
        );
        if let Some(post) = req.get("postData") {
            assert!(
                post["mimeType"].is_string() && post["text"].is_string(),
                "{e}"
            );
        }
        assert!(
            res["status"].is_u64() && res["statusText"].is_string(),
            "{e}"
        );
        for key in ["httpVersion", "redirectURL"] {
            assert!(res[key].is_string(), "response.{key}: {e}");
        }
        for key in ["cookies", "headers"] {
            assert!(res[key].is_array(), "response.{key}: {e}");
        }
        assert!(
            res["headersSize"].is_i64() && res["bodySize"].is_i64(),
            "{e}"
        );
        let content = &res["content"];
        assert!(
            content["size"].is_u64() && content["mimeType"].is_string(),
            "{e}"
        );
        assert!(e["cache"].is_object());
        let t = &e["timings"];
        let sum: f64 = ["send", "wait", "receive"]
            .iter()
            .map(|k| t[*k].as_f64().expect("a timing"))
            .sum();
        assert!((sum - time).abs() < 0.01, "timings {t} against time {time}");
        for h in req["headers"].as_array().into_iter().flatten() {
            assert!(h["name"].is_string() && h["value"].is_string());
        }
    }
}

#[test]
fn an_http_session_with_event_streams_comes_back_from_its_har_as_it_was() {
    require_npm_peers();
    let dir = tempdir();
    let (_server, upstream) = crate::replay_http::everything();
    let trace = crate::replay_http::recorded_with(dir.path(), &upstream, "http-roots-client.mjs");
    let har = assert_round_trip(&trace, dir.path(), "roots");
    assert_har_1_2(&har);
    let entries = har["log"]["entries"].as_array().expect("entries");
    // The standalone GET stream, its roots/list as SSE text; the DELETE that ends it.
    let get = entries
        .iter()
        .find(|e| e["request"]["method"] == "GET")
        .expect("the GET stream");
    let body = get["response"]["content"]["text"].as_str().unwrap_or("");
    assert_eq!(get["response"]["content"]["mimeType"], "text/event-stream");
    assert!(
        body.contains("data: {") && body.contains("roots/list"),
        "{body}"
    );
    assert!(entries.iter().any(|e| e["request"]["method"] == "DELETE"));
    assert!(
        har["log"]["comment"]
            .as_str()
            .unwrap_or("")
            .contains("Sightline")
    );
}

#[test]
fn a_scenarios_llm_exchanges_come_back_from_its_har_as_they_were() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &["--stream"]);
    let har = assert_round_trip(&trace, dir.path(), "weather");
    assert_har_1_2(&har);
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 2, "two turns of the loop");
    let content = &entries[0]["response"]["content"];
    let mime = content["mimeType"].as_str().unwrap_or("");
    assert!(mime.starts_with("text/event-stream"), "{mime}");
    assert!(
        content["text"]
            .as_str()
            .unwrap_or("")
            .contains("event: message_start")
    );
    assert_eq!(entries[0]["_sightline"]["channel"], "llm-http");
}

#[test]
fn redacted_credentials_stay_redacted_and_the_har_says_so() {
    let dir = tempdir();
    let trace = dir.path().join("imported.jsonl");
    let fixture = repo("tests/fixtures/import/streamable-http.har");
    let out = sightline(&["import", "har", s(&fixture), "--trace", s(&trace)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (har, value) = exported(&trace, dir.path(), "again");
    let written = std::fs::read_to_string(&har).expect("the HAR");
    assert!(!written.contains("sk-har-SECRET-4242"));
    assert!(written.contains("Bearer [redacted]"));
    assert!(
        value["log"]["comment"]
            .as_str()
            .unwrap_or("")
            .contains("redacted")
    );
    let entry = &value["log"]["entries"][0];
    assert!(
        entry["comment"].as_str().unwrap_or("").contains("redacted"),
        "{entry}"
    );
    // A foreign HAR's SSE responses now name their request, and go out again as a stream.
    let body = entry["response"]["content"]["text"].as_str().unwrap_or("");
    assert_eq!(body.matches("data: ").count(), 2, "{body}");
    assert_round_trip(&trace, dir.path(), "twice");
}

#[test]
fn a_hostile_har_is_refused_or_skipped_naming_where() {
    let dir = tempdir();
    let import = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let out = dir.path().join(format!("{name}.jsonl"));
        let got = sightline(&["import", "har", s(&path), "--trace", s(&out)]);
        (got.status.code(), self::text(&got.stderr))
    };
    let (code, stderr) = import("bad.har", "{\"log\": {\"entries\": [\n  {,\n]}}");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.har: not JSON (line 2, column"),
        "{stderr}"
    );
    let (code, stderr) = import("none.har", r#"{"log": {}}"#);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no `log.entries` array"), "{stderr}");
    let entry = |response: &str| {
        format!(
            r#"{{"startedDateTime":"2026-12-07T00:00:00Z","time":1,"request":{{"method":"POST","url":"http://127.0.0.1:1/mcp","headers":[],"postData":{{"text":"{{}}"}}}},"response":{response}}}"#
        )
    };
    let good = entry(r#"{"status":202,"headers":[],"content":{"text":""}}"#);
    let huge = entry(&format!(
        r#"{{"status":200,"headers":[],"content":{{"mimeType":"application/json","text":"{}"}}}}"#,
        "x".repeat(33 << 20)
    ));
    let (code, stderr) = import(
        "mixed.har",
        &format!(r#"{{"log":{{"entries":[{good},{{"request":{{}}}},{huge}]}}}}"#),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("entry 2: no `startedDateTime` (skipped)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("entry 3: `response.content.text` is 34603008 bytes, over the 32 MiB"),
        "{stderr}"
    );
    let (code, stderr) = import(
        "only-huge.har",
        &format!(r#"{{"log":{{"entries":[{huge}]}}}}"#),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("over the 32 MiB"), "{stderr}");
    let lying = entry(
        r#"{"status":200,"headers":[],"content":{"mimeType":"text/event-stream","text":"data: 1\n\n"}},"_sightline":{"channel":"http","responses":[{},{}]}"#,
    );
    let (code, stderr) = import(
        "lying.har",
        &format!(r#"{{"log":{{"entries":[{lying}]}}}}"#),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains("entry 1: `_sightline.responses` names 2 response events, the body holds 1"),
        "{stderr}"
    );
}
