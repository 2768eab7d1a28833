//! Schema conformance and token cost on real traffic: every message of traces recorded against
//! the built-in servers (every shipped scenario, both revisions) and against
//! `@modelcontextprotocol/server-everything` validates against the official MCP schema of its
//! revision; hand-broken messages are caught, with the right pointers, by the library and by
//! `sightline validate`; and the tools each LLM request carried are counted in tokens.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use sightline::analysis::conformance::{Conformance, check};
use sightline::analysis::{report, tokens};
use sightline::host::scenario::Protocol;
use sightline::trace::{Event, Header, Kind, LoadedTrace, write_trace};
use sightline::wire::api::ApiShape;

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(60);

fn scenarios() -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    all.sort();
    assert!(all.len() >= 10, "the shipped scenarios: {all:?}");
    all
}

/// `sightline run SCENARIO --protocol REVISION [ARGS]` into `dir`; returns the loaded trace.
fn run_scenario(dir: &Path, scenario: &Path, revision: &str, args: &[&str]) -> LoadedTrace {
    let name = scenario.file_stem().expect("stem").to_string_lossy();
    let trace = dir.join(format!("{name}.{revision}.{}.jsonl", args.join("_")));
    let mut extra = vec!["--protocol", revision];
    extra.extend_from_slice(args);
    run_scenario_to(&scenario.display().to_string(), &trace, &extra);
    load(&trace)
}

fn conformance(trace: &LoadedTrace) -> Conformance {
    check(&trace.events, &analyze(trace))
}

fn rpc_messages(trace: &LoadedTrace) -> usize {
    analyze(trace)
        .derived
        .iter()
        .filter(|d| {
            matches!(
                d.kind,
                Kind::Request | Kind::Notification | Kind::Response | Kind::Error
            )
        })
        .count()
}

#[test]
fn every_shipped_scenario_validates_clean_under_both_revisions() {
    let dir = tempdir();
    let jobs: Vec<(PathBuf, &str)> = scenarios()
        .into_iter()
        .flat_map(|s| Protocol::SPOKEN.map(|r| (s.clone(), r.as_str())))
        .collect();
    // Two at a time: each run is a host, a scripted model and one or two servers.
    let results: Vec<(String, LoadedTrace)> = std::thread::scope(|scope| {
        jobs.chunks(2)
            .flat_map(|pair| {
                let handles: Vec<_> = pair
                    .iter()
                    .map(|(s, r)| {
                        let dir = dir.path();
                        scope.spawn(move || {
                            let what = format!("{} {r}", s.file_stem().unwrap().to_string_lossy());
                            (what, run_scenario(dir, s, r, &[]))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("run"))
                    .collect::<Vec<_>>()
            })
            .collect()
    });
    let mut total = 0;
    for (what, trace) in &results {
        let c = conformance(trace);
        assert_eq!(c.violations, [], "{what}");
        assert!(c.unknown.is_empty(), "{what}: {:?}", c.unknown);
        assert_eq!(c.unpaired, 0, "{what}");
        assert_eq!(
            c.checked,
            rpc_messages(trace),
            "{what}: every JSON-RPC message is checked"
        );
        // `--revision` is the host's: where only the API's own MCP client talks to the server
        // (mcp-connector), the platform speaks its revision whatever the host would.
        let api_client_only = trace
            .events
            .iter()
            .filter(|e| e.to.is_server())
            .all(|e| e.from == sightline::trace::Lane::Llm);
        let first = if what.ends_with("2026-07-28") && !api_client_only {
            "DiscoverRequest"
        } else {
            "InitializeRequest"
        };
        assert!(
            c.definitions.contains_key(first) && c.definitions.contains_key("ListToolsResult"),
            "{what}: {:?}",
            c.definitions
        );
        total += c.checked;
    }
    assert!(total >= 200, "{total} messages checked in all");
}

/// `node CLIENT server-everything` through `sightline proxy`; returns the trace.
fn everything_through_proxy(dir: &Path, client: &str) -> LoadedTrace {
    require_npm_peers();
    let trace = dir.join(format!("{client}.jsonl"));
    let mut cmd = Command::new("node");
    cmd.arg(peer(client))
        .arg(bin())
        .args(["proxy", "--name", "everything", "--trace"])
        .arg(&trace)
        .arg("--")
        .args(everything_server());
    let out = run(&mut cmd, LIMIT);
    assert!(
        out.status.success(),
        "{client} failed: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    load(&trace)
}

#[test]
fn server_everything_validates_clean() {
    let dir = tempdir();
    let mut seen = std::collections::BTreeSet::new();
    for client in ["everything-client.mjs", "everything-tour.mjs"] {
        let trace = everything_through_proxy(dir.path(), client);
        let c = conformance(&trace);
        assert_eq!(c.violations, [], "{client}");
        assert!(c.unknown.is_empty(), "{client}: {:?}", c.unknown);
        assert_eq!(c.checked, rpc_messages(&trace), "{client}");
        seen.extend(c.definitions.into_keys());
    }
    // The tour reaches (nearly) every message type of 2025-11-25, in both directions.
    for definition in [
        "InitializeRequest",
        "InitializeResult",
        "InitializedNotification",
        "PingRequest",
        "SetLevelRequest",
        "ListToolsResult",
        "CallToolRequest",
        "CallToolResult",
        "CreateTaskResult",
        "GetTaskRequest",
        "GetTaskResult",
        "GetTaskPayloadResult",
        "GetTaskPayloadRequest",
        "TaskStatusNotification",
        "ListTasksResult",
        "ListResourcesResult",
        "ListResourceTemplatesResult",
        "ReadResourceResult",
        "SubscribeRequest",
        "UnsubscribeRequest",
        "ListPromptsResult",
        "GetPromptResult",
        "CompleteResult",
        "ListRootsRequest",
        "ListRootsResult",
        "CreateMessageRequest",
        "CreateMessageResult",
        "ElicitRequest",
        "ElicitResult",
        "ProgressNotification",
        "CancelledNotification",
        "LoggingMessageNotification",
        "ToolListChangedNotification",
        "RootsListChangedNotification",
        "JSONRPCErrorResponse",
    ] {
        assert!(seen.contains(definition), "no {definition} in {seen:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-broken messages
// ---------------------------------------------------------------------------------------------

/// The index of the first event whose JSON satisfies `pred`.
fn find(events: &[Event], pred: impl Fn(&Value) -> bool) -> usize {
    events
        .iter()
        .position(|e| serde_json::from_str::<Value>(&e.text()).is_ok_and(|v| pred(&v)))
        .expect("the message to break")
}

/// Rewrites the JSON of event `i` with `f`.
fn edit(events: &mut [Event], i: usize, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&events[i].text()).expect("json");
    f(&mut v);
    events[i].raw = Some(serde_json::to_string(&v).expect("json").into());
}

fn object(v: &mut Value, pointer: &str) -> serde_json::Map<String, Value> {
    v.pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .clone()
}

#[test]
fn hand_broken_messages_are_caught_with_the_right_pointer() {
    let dir = tempdir();
    let scenario = repo("scenarios/weather.toml");

    // 2025-11-25: an initialize without clientInfo, a tool without inputSchema, a text block
    // whose text is a number.
    let mut events = run_scenario(dir.path(), &scenario, "2025-11-25", &[]).events;
    let init = find(&events, |v| v["method"] == "initialize");
    edit(&mut events, init, |v| {
        let mut params = object(v, "/params");
        params.remove("clientInfo");
        v["params"] = Value::Object(params);
    });
    let list = find(&events, |v| v.pointer("/result/tools/0").is_some());
    edit(&mut events, list, |v| {
        let mut tool = object(v, "/result/tools/0");
        tool.remove("inputSchema");
        v["result"]["tools"][0] = Value::Object(tool);
    });
    let call = find(&events, |v| v.pointer("/result/content/0/text").is_some());
    edit(&mut events, call, |v| {
        v["result"]["content"][0]["text"] = 15.into()
    });

    let path = dir.path().join("broken.jsonl");
    write_trace(&path, &Header::new("broken"), &events).expect("write");
    let c = conformance(&load(&path));
    let got: Vec<(u64, &str, &str, &str, &str)> = c
        .violations
        .iter()
        .map(|v| {
            (
                v.seq,
                v.revision.as_str(),
                v.definition.as_str(),
                v.pointer.as_str(),
                v.rule.as_str(),
            )
        })
        .collect();
    let seq = |i: usize| events[i].seq;
    assert_eq!(
        got,
        [
            (
                seq(init),
                "2025-11-25",
                "InitializeRequest",
                "/params/clientInfo",
                "required"
            ),
            (
                seq(list),
                "2025-11-25",
                "ListToolsResult",
                "/result/tools/0/inputSchema",
                "required"
            ),
            (
                seq(call),
                "2025-11-25",
                "CallToolResult",
                "/result/content/0/text",
                "type"
            ),
        ]
    );

    // The command line says the same, one line per violation, and exits 1.
    let out = run(Command::new(bin()).arg("validate").arg(&path), LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with(&format!(
            "#{} 2025-11-25 InitializeRequest /params/clientInfo: ",
            seq(init)
        )),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "#{} 2025-11-25 ListToolsResult /result/tools/0/inputSchema: ",
            seq(list)
        )),
        "{stdout}"
    );
    assert!(lines[3].starts_with("3 violations in "), "{stdout}");
    let out = run(
        Command::new(bin()).arg("validate").arg(&path).arg("--json"),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(json["violations"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        json["violations"][1]["pointer"],
        "/result/tools/0/inputSchema"
    );
    assert_eq!(json["violations"][1]["event"], list);

    // 2026-07-28: a tools/call result without resultType; a request without the required
    // client capabilities in _meta.
    let mut events = run_scenario(dir.path(), &scenario, "2026-07-28", &[]).events;
    let call = find(&events, |v| v.pointer("/result/content").is_some());
    edit(&mut events, call, |v| {
        let mut result = object(v, "/result");
        result.remove("resultType");
        v["result"] = Value::Object(result);
    });
    let list = find(&events, |v| v["method"] == "tools/list");
    edit(&mut events, list, |v| {
        let mut meta = object(v, "/params/_meta");
        meta.remove("io.modelcontextprotocol/clientCapabilities");
        v["params"]["_meta"] = Value::Object(meta);
    });
    let path = dir.path().join("broken-2026.jsonl");
    write_trace(&path, &Header::new("broken"), &events).expect("write");
    let c = conformance(&load(&path));
    let got: Vec<(u64, &str, &str)> = c
        .violations
        .iter()
        .map(|v| (v.seq, v.definition.as_str(), v.pointer.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                events[list].seq,
                "ListToolsRequest",
                "/params/_meta/io.modelcontextprotocol~1clientCapabilities"
            ),
            (events[call].seq, "CallToolResult", "/result/resultType"),
        ]
    );
    assert!(c.violations.iter().all(|v| v.revision == "2026-07-28"));

    // A clean trace exits 0.
    let clean = dir.path().join("clean.jsonl");
    let trace = run_scenario(
        dir.path(),
        &scenario,
        "2025-11-25",
        &["--provider", "scripted"],
    );
    write_trace(&clean, &trace.header, &trace.events).expect("write");
    let out = run(Command::new(bin()).arg("validate").arg(&clean), LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with("0 violations in "));
}

// ---------------------------------------------------------------------------------------------
// Token cost
// ---------------------------------------------------------------------------------------------

#[test]
fn tool_tokens_of_real_requests_in_all_three_shapes() {
    let dir = tempdir();
    let scenario = repo("scenarios/weather.toml");
    let mut per_shape = Vec::new();
    for (provider, shape) in [
        ("scripted", ApiShape::Anthropic),
        ("openai", ApiShape::Openai),
        ("openai-chat", ApiShape::OpenaiChat),
    ] {
        let mut args = vec!["--provider", provider];
        if provider != "scripted" {
            args.extend(["--model", "scripted"]);
        }
        let trace = run_scenario(dir.path(), &scenario, "2025-11-25", &args);
        let r = report(&trace.events);
        let counts = tokens::tool_tokens(&r, &tokens::Tiktoken);
        assert_eq!(
            counts.len(),
            r.llm.len(),
            "{provider}: one record per request"
        );
        assert!(
            counts.len() >= 2,
            "{provider}: the weather loop makes two requests"
        );
        for t in &counts {
            assert_eq!(t.shape, shape);
            assert_eq!(t.exact, shape != ApiShape::Anthropic, "{provider}");
            let names: Vec<&str> = t.tools.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["get_weather"], "{provider}");
            assert_eq!(t.total, t.tools[0].1);
            assert!((20..200).contains(&t.total), "{provider}: {}", t.total);
            let expected_overhead = match shape {
                ApiShape::Anthropic => (286, 675),
                _ => (12, 19),
            };
            assert_eq!(t.overhead, expected_overhead);
        }
        // The same tool, the same count, request after request.
        assert!(counts.windows(2).all(|w| w[0].tools == w[1].tools));
        per_shape.push((shape, counts[0].total));
    }
    // Chat Completions nests the function one level deeper than Responses: more tokens.
    assert!(per_shape[2].1 > per_shape[1].1, "{per_shape:?}");
}
