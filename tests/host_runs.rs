//! The host end to end: the real `sightline run` binary as a black box, judged by its trace.
//!
//! Each test runs a scenario (the embedded scripted model, the built-in servers, no network and
//! no key) or points the host at a tiny canned HTTP server, then reads the trace back with the
//! library and checks what crossed, in which order, between which lanes. Expected values are
//! computed with `sightline::wire::convert` from what the servers actually sent.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sightline::host::scenario::Scenario;
use sightline::trace::{Analysis, Channel, Event, Kind, Lane, LoadedTrace, Pairing};
use sightline::wire::api::ApiShape;
use sightline::wire::convert;

use crate::util::{self, repo};

/// How long one `sightline run` may take before the test fails.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// `_meta` key naming the revision of a 2026-07-28 request.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The API key of the provider-error runs; it must never reach the trace.
const SECRET: &str = "sk-test-SECRET-123";

/// Returns `Err(message)` from the enclosing function when `cond` is false.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Running `sightline run` and reading its trace
// ---------------------------------------------------------------------------------------------

/// One finished `sightline run`, with its trace loaded and analyzed.
struct Run {
    output: Output,
    stdout: String,
    stderr: String,
    trace_path: PathBuf,
    trace: LoadedTrace,
    analysis: Analysis,
    /// Index of each event by its `seq`.
    by_seq: HashMap<u64, usize>,
    _dir: tempfile::TempDir,
}

/// Runs `sightline run SCENARIO --trace FILE ARGS...` with no API key in its environment
/// (plus `env`), bounded by [`RUN_LIMIT`].
fn sightline_run(scenario: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = util::tempdir();
    let trace_path = dir.path().join("trace.jsonl");
    let mut cmd = Command::new(util::bin());
    cmd.arg("run")
        .arg(scenario)
        .arg("--trace")
        .arg(&trace_path)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = util::run(&mut cmd, RUN_LIMIT);
    let stdout = util::text(&output.stdout);
    let stderr = util::text(&output.stderr);
    let trace = sightline::trace::load(&trace_path).unwrap_or_else(|e| {
        panic!(
            "`sightline run {} {}` left no readable trace ({e}); status {}, stderr:\n{stderr}",
            scenario.display(),
            args.join(" "),
            output.status
        )
    });
    let analysis = sightline::trace::analyze(&trace.events);
    let by_seq = trace
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.seq, i))
        .collect();
    Run {
        output,
        stdout,
        stderr,
        trace_path,
        trace,
        analysis,
        by_seq,
        _dir: dir,
    }
}

impl Run {
    fn events(&self) -> &[Event] {
        &self.trace.events
    }

    /// The event with this `seq`.
    fn index_of(&self, seq: u64) -> Option<usize> {
        self.by_seq.get(&seq).copied()
    }

    /// The index of the event that answers the request at `index`, per `trace::analyze`.
    fn answer_of(&self, index: usize) -> Option<usize> {
        match self.analysis.derived[index].pairing {
            Pairing::AnsweredBy(seq) => self.index_of(seq),
            _ => None,
        }
    }

    /// Every JSON-RPC request with `method` on stdio, host -> server or server -> host.
    fn requests(&self, method: &str, from_server: bool) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                if from_server {
                    server_to_host(e)
                } else {
                    host_to_server(e)
                }
            })
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .filter(|(_, m)| m.get("id").is_some() && m["method"] == method)
            .collect()
    }

    /// Every notification with `method` on stdio from a server to the host.
    fn server_notifications(&self, method: &str) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| server_to_host(e))
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .filter(|(_, m)| m.get("id").is_none() && m["method"] == method)
            .collect()
    }

    /// Every result a server sent to a host request with `method` (by the analysis' pairing).
    fn results_of(&self, method: &str) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                server_to_host(e)
                    && self.analysis.derived[*i].kind == Kind::Response
                    && self.analysis.derived[*i].method.as_deref() == Some(method)
            })
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .collect()
    }

    /// Every LLM request body (host -> llm), in order.
    fn llm_requests(&self) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| is_llm_request(e))
            .map(|(i, e)| (i, llm_body(e)))
            .collect()
    }

    /// Every LLM response body (llm -> host), in order; streamed ones reassembled.
    fn llm_responses(&self) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| is_llm_response(e))
            .map(|(i, e)| (i, llm_body(e)))
            .collect()
    }

    /// Every note from `from` to `to`, with its text.
    fn notes(&self, from: &Lane, to: &Lane) -> Vec<(usize, String)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.channel == Channel::Note && &e.from == from && &e.to == to)
            .map(|(i, e)| (i, e.text().into_owned()))
            .collect()
    }

    /// What went wrong for a run that should have succeeded: status and stderr.
    fn describe(&self) -> String {
        format!(
            "status {}, trace {}, stderr:\n{}",
            self.output.status,
            self.trace_path.display(),
            self.stderr
        )
    }
}

fn host_to_server(e: &Event) -> bool {
    e.channel == Channel::Stdio && e.from == Lane::Host && e.to.is_server()
}

fn server_to_host(e: &Event) -> bool {
    e.channel == Channel::Stdio && e.from.is_server() && e.to == Lane::Host
}

fn is_llm_request(e: &Event) -> bool {
    e.channel == Channel::LlmHttp && e.from == Lane::Host && e.to == Lane::Llm
}

fn is_llm_response(e: &Event) -> bool {
    e.channel == Channel::LlmHttp && e.from == Lane::Llm && e.to == Lane::Host
}

/// The JSON-RPC message of a stdio event.
fn stdio_json(e: &Event) -> Option<Value> {
    serde_json::from_str(e.raw.as_deref()?).ok()
}

/// The body of an `llm-http` event as JSON; an SSE body is reassembled (Anthropic events) into
/// the body a non-streamed request would have got. `Null` when it is neither.
fn llm_body(e: &Event) -> Value {
    let text = e.text();
    if is_sse(&text) {
        return anthropic_sse_to_body(&text);
    }
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn is_sse(text: &str) -> bool {
    text.starts_with("event:") || text.starts_with("data:")
}

/// A minimal reassembly of an Anthropic Messages event stream, independent of the crate's:
/// content blocks from `content_block_start`, text and `input_json_delta` appended from
/// `content_block_delta`, `stop_reason` from `message_delta`.
fn anthropic_sse_to_body(text: &str) -> Value {
    let mut message = Map::new();
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial_json: HashMap<usize, String> = HashMap::new();
    for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
        let Ok(event) = serde_json::from_str::<Value>(data.trim()) else {
            continue;
        };
        let index = event["index"].as_u64().unwrap_or(0) as usize;
        match event["type"].as_str().unwrap_or("") {
            "message_start" => {
                if let Some(m) = event["message"].as_object() {
                    message = m.clone();
                }
            }
            "content_block_start" => {
                if blocks.len() <= index {
                    blocks.resize(index + 1, Value::Null);
                }
                blocks[index] = event["content_block"].clone();
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => {
                        if let Some(block) = blocks.get_mut(index) {
                            let joined = format!(
                                "{}{}",
                                block["text"].as_str().unwrap_or(""),
                                delta["text"].as_str().unwrap_or("")
                            );
                            block["text"] = Value::String(joined);
                        }
                    }
                    "input_json_delta" => partial_json
                        .entry(index)
                        .or_default()
                        .push_str(delta["partial_json"].as_str().unwrap_or("")),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event["delta"].get("stop_reason") {
                    message.insert("stop_reason".into(), reason.clone());
                }
            }
            _ => {}
        }
    }
    for (index, json) in partial_json {
        if let Some(block) = blocks.get_mut(index) {
            block["input"] = serde_json::from_str(&json).unwrap_or(Value::Null);
        }
    }
    message.insert("content".into(), Value::Array(blocks));
    Value::Object(message)
}

/// One tool call the model asked for, read straight from the response body.
#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    /// The arguments as an object (OpenAI's `arguments` string parsed).
    arguments: Value,
}

fn parse_arguments_string(raw: &Value) -> Value {
    match raw.as_str() {
        Some(s) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        None => Value::Null,
    }
}

fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The tool calls in a response body: Anthropic `tool_use` blocks, Responses `function_call`
/// items, Chat `tool_calls`.
fn model_calls(shape: ApiShape, body: &Value) -> Vec<Call> {
    let empty = Vec::new();
    match shape {
        ApiShape::Anthropic => body["content"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| Call {
                id: string(&b["id"]),
                name: string(&b["name"]),
                arguments: b["input"].clone(),
            })
            .collect(),
        ApiShape::Openai => body["output"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|item| item["type"] == "function_call")
            .map(|item| Call {
                id: string(&item["call_id"]),
                name: string(&item["name"]),
                arguments: parse_arguments_string(&item["arguments"]),
            })
            .collect(),
        ApiShape::OpenaiChat => body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|c| Call {
                id: string(&c["id"]),
                name: string(&c["function"]["name"]),
                arguments: parse_arguments_string(&c["function"]["arguments"]),
            })
            .collect(),
    }
}

/// The provider's stop signal: Anthropic `stop_reason`, Responses `status`, Chat
/// `finish_reason`.
fn stop_reason(shape: ApiShape, body: &Value) -> String {
    match shape {
        ApiShape::Anthropic => string(&body["stop_reason"]),
        ApiShape::Openai => string(&body["status"]),
        ApiShape::OpenaiChat => string(&body["choices"][0]["finish_reason"]),
    }
}

/// The text of a response body.
fn answer_text(shape: ApiShape, body: &Value) -> String {
    let empty = Vec::new();
    match shape {
        ApiShape::Anthropic => body["content"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|b| b["type"] == "text")
            .map(|b| string(&b["text"]))
            .collect(),
        ApiShape::Openai => body["output"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|item| item["type"] == "message")
            .flat_map(|item| item["content"].as_array().unwrap_or(&empty))
            .filter(|part| part["type"] == "output_text")
            .map(|part| string(&part["text"]))
            .collect(),
        ApiShape::OpenaiChat => string(&body["choices"][0]["message"]["content"]),
    }
}

/// No event between the model and a server, either way.
fn assert_no_model_server_traffic(run: &Run, what: &str) {
    let direct: Vec<String> = run
        .events()
        .iter()
        .filter(|e| {
            (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm)
        })
        .map(|e| format!("#{} {} -> {} ({})", e.seq, e.from, e.to, e.channel.as_str()))
        .collect();
    assert!(
        direct.is_empty(),
        "{what}: the model and a server talked directly: {direct:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// 1. The weather loop, in order, for each provider shape
// ---------------------------------------------------------------------------------------------

#[test]
fn weather_loop_in_order_for_each_provider_shape() {
    let scenario_path = repo("scenarios/weather.toml");
    let scenario = Scenario::load(&scenario_path).expect("scenarios/weather.toml loads");
    let cases = [
        ("scripted", ApiShape::Anthropic, false),
        ("openai", ApiShape::Openai, false),
        ("openai-chat", ApiShape::OpenaiChat, false),
        ("scripted", ApiShape::Anthropic, true),
    ];
    for (provider, shape, stream) in cases {
        let mut args = vec!["--provider", provider, "--no-summary"];
        if stream {
            args.push("--stream");
        }
        let what = format!(
            "weather --provider {provider}{}",
            if stream { " --stream" } else { "" }
        );
        let run = sightline_run(&scenario_path, &args, &[]);
        assert!(run.output.status.success(), "{what}: {}", run.describe());
        check_weather_loop(&run, shape, stream, &scenario.prompt, &what);
    }
}

/// The first index after `after` whose event satisfies `pred`.
fn next_after(run: &Run, after: usize, pred: impl Fn(&Event) -> bool) -> Option<usize> {
    run.events()
        .iter()
        .enumerate()
        .skip(after + 1)
        .find(|(_, e)| pred(e))
        .map(|(i, _)| i)
}

fn check_weather_loop(run: &Run, shape: ApiShape, stream: bool, prompt: &str, what: &str) {
    let events = run.events();
    let server = Lane::server("weather");

    // user -> host: the prompt.
    let prompt_at = events
        .iter()
        .position(|e| {
            e.channel == Channel::Note
                && e.from == Lane::User
                && e.to == Lane::Host
                && e.text() == prompt
        })
        .unwrap_or_else(|| panic!("{what}: no user -> host note with the prompt"));

    // The tools/list the server answered: what the model must see.
    let (list_at, list_request) = run
        .requests("tools/list", false)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{what}: the host never sent tools/list"));
    let list_result_at = run
        .answer_of(list_at)
        .unwrap_or_else(|| panic!("{what}: tools/list (#{list_at}) has no paired response"));
    let list_result = stdio_json(&events[list_result_at]).expect("tools/list result is JSON");
    assert_eq!(events[list_result_at].from, server, "{what}");
    assert_eq!(list_result["id"], list_request["id"], "{what}: paired ids");
    let listed = list_result["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: tools/list result has no tools: {list_result}"));
    let expected_tools: Vec<Value> = listed
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("tool name");
            convert::tool_to_api(shape, tool, name).expect("weather tools are valid")
        })
        .collect();

    // host -> llm: the first request, with exactly the converted tools.
    let request_at = next_after(run, prompt_at, is_llm_request)
        .unwrap_or_else(|| panic!("{what}: no LLM request after the prompt"));
    assert!(
        list_result_at < request_at,
        "{what}: the LLM request (#{request_at}) precedes the tools/list result (#{list_result_at})"
    );
    let request = llm_body(&events[request_at]);
    assert_eq!(
        request["tools"],
        Value::Array(expected_tools),
        "{what}: the request's tools are not tool_to_api of the listed tools"
    );

    // llm -> host: the tool call.
    let reply_at = next_after(run, request_at, is_llm_response)
        .unwrap_or_else(|| panic!("{what}: no LLM response after #{request_at}"));
    let reply_text = events[reply_at].text();
    if stream {
        assert!(
            is_sse(&reply_text),
            "{what}: the streamed response is not SSE: {:.120}",
            reply_text
        );
    } else {
        assert!(
            serde_json::from_str::<Value>(&reply_text).is_ok(),
            "{what}: the response is not a JSON body: {:.120}",
            reply_text
        );
    }
    let reply = llm_body(&events[reply_at]);
    let calls = model_calls(shape, &reply);
    assert_eq!(calls.len(), 1, "{what}: expected one tool call in {reply}");
    let call = &calls[0];
    assert_eq!(call.name, "get_weather", "{what}");
    assert!(!call.id.is_empty(), "{what}: the tool call has no id");
    assert!(call.arguments.is_object(), "{what}: arguments {call:?}");

    // host -> server: tools/call with the model's arguments.
    let call_at = next_after(run, reply_at, |e| {
        host_to_server(e)
            && stdio_json(e).is_some_and(|m| m["method"] == "tools/call" && m.get("id").is_some())
    })
    .unwrap_or_else(|| panic!("{what}: no tools/call after the model's answer #{reply_at}"));
    assert_eq!(events[call_at].to, server, "{what}");
    let call_message = stdio_json(&events[call_at]).expect("tools/call is JSON");
    assert_eq!(call_message["params"]["name"], "get_weather", "{what}");
    assert_eq!(
        call_message["params"]["arguments"], call.arguments,
        "{what}: tools/call arguments differ from the model's"
    );

    // server -> host: its result.
    let result_at = next_after(run, call_at, |e| {
        server_to_host(e)
            && stdio_json(e)
                .is_some_and(|m| m["id"] == call_message["id"] && m.get("result").is_some())
    })
    .unwrap_or_else(|| panic!("{what}: no result for tools/call #{call_at}"));
    assert_eq!(events[result_at].from, server, "{what}");

    // host -> llm: the tool result under the same call id.
    let second_at = next_after(run, result_at, is_llm_request)
        .unwrap_or_else(|| panic!("{what}: no LLM request after the tool result #{result_at}"));
    let second = llm_body(&events[second_at]);
    assert_eq!(
        convert::tool_result_ids_in_request(shape, &second),
        vec![call.id.clone()],
        "{what}: the second request does not return the result for call {}",
        call.id
    );

    // llm -> host: the final answer.
    let final_at = next_after(run, second_at, is_llm_response)
        .unwrap_or_else(|| panic!("{what}: no final LLM response"));
    if stream {
        assert!(
            is_sse(&events[final_at].text()),
            "{what}: final response not SSE"
        );
    }
    let final_body = llm_body(&events[final_at]);
    let expected_stop = match shape {
        ApiShape::Anthropic => "end_turn",
        ApiShape::Openai => "completed",
        ApiShape::OpenaiChat => "stop",
    };
    assert_eq!(stop_reason(shape, &final_body), expected_stop, "{what}");
    assert!(
        model_calls(shape, &final_body).is_empty(),
        "{what}: the final answer still calls tools"
    );
    let answer = answer_text(shape, &final_body);
    assert!(answer.contains("Seoul"), "{what}: answer {answer:?}");

    // The narration names the stop field of this shape, and for OpenAI that `arguments`
    // is a JSON string the host parses.
    let report = sightline::analysis::report(events);
    let strings = sightline::i18n::Strings::embedded();
    let say = |i| {
        sightline::analysis::narration::narrate(
            events,
            &report,
            i,
            &strings,
            sightline::i18n::Language::En,
        )
    };
    // What the SDK adds: `$schema` in the listed schema, in the model's tools entry, named.
    let dialect = "http://json-schema.org/draft-07/schema#";
    assert_eq!(
        list_result["result"]["tools"][0]["inputSchema"]["$schema"], dialect,
        "{what}"
    );
    let listed = say(list_result_at);
    assert!(
        listed.contains(&format!("carries $schema ({dialect})")),
        "{what}: {listed}"
    );
    let field = shape.stop_field();
    let asks = say(reply_at);
    assert!(
        asks.contains(&format!("stops with {field} ")),
        "{what}: {asks}"
    );
    assert_eq!(
        asks.contains("arguments arrive as a JSON string"),
        shape != ApiShape::Anthropic,
        "{what}: {asks}"
    );
    let ends = say(final_at);
    assert!(
        ends.contains(&format!("stops with {field} {expected_stop}")),
        "{what}: {ends}"
    );

    // host -> user: the answer.
    let note_at = next_after(run, final_at, |e| {
        e.channel == Channel::Note && e.from == Lane::Host && e.to == Lane::User
    })
    .unwrap_or_else(|| panic!("{what}: no host -> user note after the final answer"));
    assert_eq!(events[note_at].text(), answer, "{what}");
    assert!(
        run.stdout.contains(&format!("): {answer}")),
        "{what}: stdout does not show the answer:\n{}",
        run.stdout
    );

    assert_eq!(run.llm_requests().len(), 2, "{what}: two model turns");
    assert_no_model_server_traffic(run, what);
}

// ---------------------------------------------------------------------------------------------
// 2. Every scenario, under each revision it declares
// ---------------------------------------------------------------------------------------------

#[test]
fn every_scenario_runs_green_under_its_revisions() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 10,
        "expected the shipped scenarios, found {paths:?}"
    );

    let mut failures = Vec::new();
    let mut runs = 0;
    let mut failed_runs = 0;
    for path in &paths {
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let scenario = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scenario.revisions.is_empty(), "{name}: no revisions");
        for revision in &scenario.revisions {
            let revision = revision.as_str();
            let run = sightline_run(path, &["--protocol", revision], &[]);
            runs += 1;
            // Both kinds of check, so one problem does not hide another.
            let mut problems: Vec<String> = generic_checks(&run).err().into_iter().collect();
            if run.output.status.success() {
                problems.extend(scenario_fact(&name, revision, &run).err());
            }
            if !problems.is_empty() {
                let kept = keep_trace(&run, &format!("{name}-{revision}"));
                failed_runs += 1;
                for problem in problems {
                    failures.push(format!("{name} --protocol {revision}: {problem} [{kept}]"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failed_runs} of {runs} scenario runs failed:\n- {}",
        failures.join("\n- ")
    );
}

/// Copies a failed run's trace where it outlives the test; returns where, for the message.
fn keep_trace(run: &Run, stem: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("host_runs");
    let kept = dir.join(format!("{stem}.jsonl"));
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::copy(&run.trace_path, &kept)) {
        Ok(_) => format!("trace kept in {}", kept.display()),
        Err(e) => format!("trace not kept: {e}"),
    }
}

/// Exit 0, a clean trace, every request answered, an answer on stdout.
fn generic_checks(run: &Run) -> Result<(), String> {
    ensure!(run.output.status.success(), "{}", run.describe());
    ensure!(
        run.stdout.contains("== answer"),
        "no `== answer` on stdout:\n{}",
        run.stdout
    );
    ensure!(
        run.trace.warnings.is_empty(),
        "the trace loads with warnings: {:?}",
        run.trace.warnings
    );
    let invalid: Vec<String> = run
        .analysis
        .derived
        .iter()
        .zip(run.events())
        .filter(|(d, _)| d.kind == Kind::Invalid)
        .map(|(d, e)| format!("#{} ({:?})", e.seq, d.problem()))
        .collect();
    ensure!(invalid.is_empty(), "invalid events: {invalid:?}");
    let unanswered: Vec<String> = run
        .analysis
        .derived
        .iter()
        .zip(run.events())
        .filter(|(d, _)| d.is_unanswered())
        .map(|(d, e)| {
            format!(
                "#{} {} -> {} {} ({:?})",
                e.seq,
                e.from,
                e.to,
                d.method.as_deref().unwrap_or("?"),
                d.pairing
            )
        })
        .collect();
    ensure!(unanswered.is_empty(), "unanswered requests: {unanswered:?}");
    Ok(())
}

/// The one fact each shipped scenario exists to show.
fn scenario_fact(name: &str, revision: &str, run: &Run) -> Result<(), String> {
    match name {
        "weather" | "revision-2026-07-28" => lifecycle_fact(revision, run),
        "list-changed" => list_changed_fact(revision, run),
        "multi-round-trip" => multi_round_trip_fact(revision, run),
        "rug-pull" => rug_pull_fact(run),
        "two-servers" => two_servers_fact(run),
        "primitives-tour" => primitives_tour_fact(revision, run),
        "tool-error-and-image" => tool_error_and_image_fact(run),
        "tool-poisoning" => tool_poisoning_fact(run),
        // Covered in depth by `invisible_tool_is_dropped_and_the_model_says_so`.
        "invisible-tool" => Ok(()),
        _ => Ok(()),
    }
}

/// 2025-11-25 starts with `initialize`; 2026-07-28 with `server/discover` and every request
/// names its revision in `_meta`.
fn lifecycle_fact(revision: &str, run: &Run) -> Result<(), String> {
    let initialize = run.requests("initialize", false);
    let discover = run.requests("server/discover", false);
    match revision {
        "2025-11-25" => {
            ensure!(
                initialize.len() == 1,
                "{} initialize requests",
                initialize.len()
            );
            ensure!(discover.is_empty(), "server/discover sent on 2025-11-25");
            let (at, request) = &initialize[0];
            ensure!(
                request["params"]["protocolVersion"] == "2025-11-25",
                "initialize asks for {}",
                request["params"]["protocolVersion"]
            );
            let result = run
                .answer_of(*at)
                .and_then(|i| stdio_json(&run.events()[i]))
                .ok_or("initialize has no result")?;
            ensure!(
                result["result"]["protocolVersion"] == "2025-11-25",
                "initialize negotiated {}",
                result["result"]["protocolVersion"]
            );
        }
        _ => {
            ensure!(
                discover.len() == 1,
                "{} server/discover requests",
                discover.len()
            );
            ensure!(initialize.is_empty(), "initialize sent on {revision}");
            let requests: Vec<Value> = run
                .events()
                .iter()
                .filter(|e| host_to_server(e))
                .filter_map(stdio_json)
                .filter(|m| m.get("method").is_some() && m.get("id").is_some())
                .collect();
            ensure!(requests.len() >= 3, "only {} host requests", requests.len());
            for m in &requests {
                ensure!(
                    m["params"]["_meta"][META_PROTOCOL_VERSION] == revision,
                    "{} does not name {revision} in _meta: {m}",
                    m["method"]
                );
            }
        }
    }
    let sessions: Vec<_> = run.analysis.sessions.iter().collect();
    ensure!(
        sessions
            .iter()
            .all(|(_, s)| s.revision.as_deref() == Some(revision)),
        "analyze reports sessions {sessions:?}, not {revision}"
    );
    Ok(())
}

fn list_changed_fact(revision: &str, run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    ensure!(requests.len() >= 2, "{} LLM requests", requests.len());
    let first = convert::tool_names_in_request(ApiShape::Anthropic, &requests[0].1);
    let second = convert::tool_names_in_request(ApiShape::Anthropic, &requests[1].1);
    ensure!(
        second.len() == first.len() + 1,
        "tools {first:?} then {second:?}: not one more"
    );
    let added: Vec<&String> = second.iter().filter(|n| !first.contains(n)).collect();
    ensure!(
        added == ["bonus_fact"],
        "added tools {added:?}, not [bonus_fact]"
    );
    let changed = run.server_notifications("notifications/tools/list_changed");
    ensure!(!changed.is_empty(), "no notifications/tools/list_changed");
    let (at, _) = &changed[0];
    ensure!(
        *at < requests[1].0,
        "list_changed (#{at}) after the second LLM request"
    );
    if revision == "2026-07-28" {
        let listen = run.analysis.derived[*at]
            .subscription()
            .ok_or("list_changed is not on a subscriptions/listen stream")?;
        let listen_at = run.index_of(listen).ok_or("no such listen request")?;
        let message = stdio_json(&run.events()[listen_at]).unwrap_or_default();
        ensure!(
            message["method"] == "subscriptions/listen",
            "the stream #{listen} is {}",
            message["method"]
        );
    }
    Ok(())
}

fn multi_round_trip_fact(revision: &str, run: &Run) -> Result<(), String> {
    if revision != "2026-07-28" {
        return Ok(());
    }
    let (result_at, _) = run
        .results_of("tools/call")
        .into_iter()
        .find(|(_, m)| m["result"]["resultType"] == "input_required")
        .ok_or("no tools/call result with resultType input_required")?;
    ensure!(
        run.analysis.derived[result_at].input_required,
        "analyze does not mark #{result_at} input_required"
    );
    let Pairing::Answers(first_call) = run.analysis.derived[result_at].pairing else {
        return Err(format!("#{result_at} answers no request"));
    };
    let retry = run
        .requests("tools/call", false)
        .into_iter()
        .find(|(i, _)| *i > result_at && run.analysis.derived[*i].retry_of() == Some(first_call))
        .ok_or(format!("no later tools/call with retry_of #{first_call}"))?;
    let params = &retry.1["params"];
    ensure!(
        params.get("inputResponses").is_some() || params.get("requestState").is_some(),
        "the retry carries neither inputResponses nor requestState: {params}"
    );
    Ok(())
}

/// The `description` of the tool named `name` in a list of MCP tools or API tools.
fn description_of(tools: &Value, name: &str) -> Option<String> {
    tools.as_array()?.iter().find_map(|t| {
        let t = t.get("function").unwrap_or(t);
        (t["name"] == name).then(|| string(&t["description"]))
    })
}

fn rug_pull_fact(run: &Run) -> Result<(), String> {
    let lists: Vec<String> = run
        .results_of("tools/list")
        .iter()
        .filter_map(|(_, m)| description_of(&m["result"]["tools"], "get_fact"))
        .collect();
    ensure!(
        lists.len() >= 2,
        "{} tools/list results with get_fact",
        lists.len()
    );
    ensure!(
        lists[0] != lists[1],
        "get_fact's description did not change: {:?}",
        lists[0]
    );
    let requests = run.llm_requests();
    ensure!(requests.len() >= 2, "{} LLM requests", requests.len());
    for (n, (_, body)) in requests.iter().take(2).enumerate() {
        let sent = description_of(&body["tools"], "get_fact");
        ensure!(
            sent.as_ref() == Some(&lists[n]),
            "LLM request {n} sends get_fact as {sent:?}, the server listed {:?}",
            lists[n]
        );
    }
    Ok(())
}

fn two_servers_fact(run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    let (_, first) = requests.first().ok_or("no LLM request")?;
    let names = convert::tool_names_in_request(ApiShape::Anthropic, first);
    let notes = run.notes(&Lane::Host, &Lane::Host);
    for server in ["weather", "forecast"] {
        let api_name = format!("{server}__get_weather");
        ensure!(names.contains(&api_name), "tools {names:?} lack {api_name}");
        ensure!(
            notes.iter().any(|(_, text)| text.contains("`get_weather`")
                && text.contains(&format!("server `{server}`"))
                && text.contains(&format!("`{api_name}`"))),
            "no host note maps {server}'s get_weather to {api_name}: {notes:?}"
        );
        let called = run.requests("tools/call", false).into_iter().any(|(i, m)| {
            run.events()[i].to == Lane::server(server) && m["params"]["name"] == "get_weather"
        });
        ensure!(called, "server {server} never got tools/call get_weather");
    }
    Ok(())
}

fn primitives_tour_fact(revision: &str, run: &Run) -> Result<(), String> {
    for method in ["resources/read", "prompts/get"] {
        let requests = run.requests(method, false);
        ensure!(!requests.is_empty(), "the host never sent {method}");
        ensure!(
            requests.iter().all(|(i, _)| run.answer_of(*i).is_some()),
            "{method} not answered"
        );
    }
    if revision == "2025-11-25" {
        for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
            let requests = run.requests(method, true);
            ensure!(!requests.is_empty(), "the server never sent {method}");
            for (i, _) in &requests {
                let answer = run
                    .answer_of(*i)
                    .ok_or(format!("{method} (#{i}) not answered"))?;
                let e = &run.events()[answer];
                let m = stdio_json(e).unwrap_or_default();
                ensure!(
                    e.from == Lane::Host && m.get("result").is_some(),
                    "{method} (#{i}) answered by #{answer} {} -> {}: {m}",
                    e.from,
                    e.to
                );
            }
        }
        ensure!(
            !run.server_notifications("notifications/progress")
                .is_empty(),
            "no notifications/progress"
        );
    } else {
        ensure!(
            run.analysis.derived.iter().any(|d| d.input_required),
            "no input_required result on {revision}"
        );
        ensure!(
            run.analysis.derived.iter().any(|d| d.retry_of().is_some()),
            "no retry on {revision}"
        );
    }
    sampling_goes_through_the_model(revision, run)?;
    elicitation_goes_to_the_user(revision, run)?;
    ensure!(
        run.events().iter().any(|e| e.from == Lane::Host
            && e.to == Lane::Host
            && e.text().contains("roots/list")
            && e.text().contains("its own configuration")),
        "no host note saying roots come from the host's configuration"
    );
    Ok(())
}

/// Where the server's question is on the wire: the `sampling/createMessage` (or
/// `elicitation/create`) request on 2025-11-25, the `input_required` result that carries it on
/// 2026-07-28; and where the host's answer goes back (its result, or the retry).
fn question_and_answer(
    revision: &str,
    run: &Run,
    method: &str,
    tool: &str,
) -> Result<(usize, usize), String> {
    if revision == "2025-11-25" {
        let (asked, _) = run
            .requests(method, true)
            .into_iter()
            .next()
            .ok_or(format!("the server never sent {method}"))?;
        let answered = run
            .answer_of(asked)
            .ok_or(format!("{method} not answered"))?;
        return Ok((asked, answered));
    }
    let calls: Vec<usize> = run
        .requests("tools/call", false)
        .into_iter()
        .filter(|(_, m)| m["params"]["name"] == tool)
        .map(|(i, _)| i)
        .collect();
    let first = *calls.first().ok_or(format!("no tools/call {tool}"))?;
    let asked = run
        .answer_of(first)
        .filter(|a| run.analysis.derived[*a].input_required)
        .ok_or(format!("tools/call {tool} got no input_required result"))?;
    let retry = *calls
        .get(1)
        .ok_or(format!("tools/call {tool} was not retried"))?;
    Ok((asked, retry))
}

/// The article's lesson: sampling asks the *client's model*. Between the server's question and
/// the host's answer there is an LLM request (marked as sampling for this server) and its
/// response, and the model's text is what the server got back.
fn sampling_goes_through_the_model(revision: &str, run: &Run) -> Result<(), String> {
    let (asked, answered) =
        question_and_answer(revision, run, "sampling/createMessage", "summarize")?;
    let between = asked + 1..answered;
    let request = between
        .clone()
        .find(|&i| is_llm_request(&run.events()[i]))
        .ok_or(format!(
            "no LLM request between the sampling question #{asked} and its answer #{answered}"
        ))?;
    let marked = run.events()[request].http.as_ref().is_some_and(|h| {
        h.headers
            .iter()
            .any(|(k, v)| k == "x-sightline-sampling-for" && v == "tour")
    });
    ensure!(
        marked,
        "the sampling LLM request #{request} is not marked as sampling for tour"
    );
    let body = llm_body(&run.events()[request]);
    ensure!(
        body.get("tools").is_none(),
        "a sampling request offers tools: {body}"
    );
    let response = between
        .clone()
        .find(|&i| i > request && is_llm_response(&run.events()[i]))
        .ok_or(format!(
            "no LLM response before the sampling answer #{answered}"
        ))?;
    let said = answer_text(ApiShape::Anthropic, &llm_body(&run.events()[response]));
    ensure!(
        !said.is_empty(),
        "the model said nothing to the sampling request"
    );
    let summarize_result = run
        .requests("tools/call", false)
        .into_iter()
        .filter(|(_, m)| m["params"]["name"] == "summarize")
        .filter_map(|(i, _)| run.answer_of(i))
        .filter_map(|a| stdio_json(&run.events()[a]))
        .map(|m| m.to_string())
        .collect::<String>();
    ensure!(
        summarize_result.contains(&said),
        "the model's sampling answer {said:?} is not what the server got back: {summarize_result}"
    );
    Ok(())
}

/// Elicitation asks the *user*: the host shows the question on the user lane and brings back
/// the user's answer, between the server's question and the host's answer.
fn elicitation_goes_to_the_user(revision: &str, run: &Run) -> Result<(), String> {
    let (asked, answered) =
        question_and_answer(revision, run, "elicitation/create", "confirm_action")?;
    let events = &run.events()[asked + 1..answered];
    ensure!(
        events.iter().any(|e| e.from == Lane::Host
            && e.to == Lane::User
            && e.text().contains("asks the user")),
        "no host -> user question between #{asked} and #{answered}"
    );
    ensure!(
        events.iter().any(|e| e.from == Lane::User
            && e.to == Lane::Host
            && e.text().contains("the user answers")),
        "no user -> host answer between #{asked} and #{answered}"
    );
    ensure!(
        !events.iter().any(is_llm_request),
        "elicitation went to the model instead of the user"
    );
    Ok(())
}

fn tool_error_and_image_fact(run: &Run) -> Result<(), String> {
    let responses = run.llm_responses();
    let (_, first) = responses.first().ok_or("no LLM response")?;
    let calls = model_calls(ApiShape::Anthropic, first);
    let id_of = |name: &str| {
        calls
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.id.clone())
            .ok_or(format!("the model did not call {name}: {calls:?}"))
    };
    let (chart, divide) = (id_of("chart")?, id_of("divide")?);
    let requests = run.llm_requests();
    let (_, second) = requests.get(1).ok_or("no second LLM request")?;
    let results: Vec<&Value> = second["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    let result_for = |id: &str| {
        results
            .iter()
            .find(|b| b["tool_use_id"] == id)
            .copied()
            .ok_or(format!("no tool_result for {id}: {results:?}"))
    };
    let divide_result = result_for(&divide)?;
    ensure!(
        divide_result["is_error"] == true,
        "divide's tool_result is not is_error: {divide_result}"
    );
    let chart_result = result_for(&chart)?;
    ensure!(
        chart_result["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "image")),
        "chart's tool_result has no image block: {chart_result}"
    );
    ensure!(
        chart_result.get("is_error").is_none_or(|v| v == false),
        "chart's tool_result is an error: {chart_result}"
    );
    Ok(())
}

fn tool_poisoning_fact(run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    let (_, first) = requests.first().ok_or("no LLM request")?;
    let description = description_of(&first["tools"], "add").ok_or("no `add` tool sent")?;
    ensure!(
        description.contains("<IMPORTANT>"),
        "add's description lacks <IMPORTANT>: {description:?}"
    );
    let (_, call) = run
        .requests("tools/call", false)
        .into_iter()
        .find(|(_, m)| m["params"]["name"] == "add")
        .ok_or("no tools/call add")?;
    ensure!(
        call["params"]["arguments"].get("sidenote").is_some(),
        "tools/call add has no sidenote: {call}"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// 3. A tool name the provider would reject
// ---------------------------------------------------------------------------------------------

#[test]
fn invisible_tool_is_dropped_and_the_model_says_so() {
    let path = repo("scenarios/invisible-tool.toml");
    let run = sightline_run(&path, &["--no-summary"], &[]);
    assert!(run.output.status.success(), "{}", run.describe());
    let says = "I don't have a tool called `weather.lookup`";
    let answer_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("== answer"))
        .unwrap_or_else(|| panic!("no answer on stdout:\n{}", run.stdout));
    assert!(answer_line.contains(says), "{answer_line}");
    assert!(
        run.notes(&Lane::Host, &Lane::User)
            .iter()
            .any(|(_, t)| t.contains(says)),
        "the host -> user note lacks the answer"
    );

    // The server did list it: tools/list succeeded.
    let listed = run
        .results_of("tools/list")
        .first()
        .map(|(_, m)| m["result"]["tools"].clone())
        .expect("a tools/list result");
    assert!(
        description_of(&listed, "weather.lookup").is_some(),
        "{listed}"
    );

    let requests = run.llm_requests();
    let (request_at, request) = requests.first().expect("an LLM request");
    let names = convert::tool_names_in_request(ApiShape::Anthropic, request);
    assert!(!names.iter().any(|n| n == "weather.lookup"), "{names:?}");
    assert!(names.iter().any(|n| n == "get_time"), "{names:?}");

    let drop_note = run
        .notes(&Lane::Host, &Lane::Host)
        .into_iter()
        .find(|(_, t)| t.contains("`weather.lookup`"))
        .unwrap_or_else(|| panic!("no host -> host note names `weather.lookup`"));
    assert!(
        drop_note.1.contains(convert::API_NAME_PATTERN),
        "the note does not give the reason (the pattern): {}",
        drop_note.1
    );
    assert!(
        drop_note.0 < *request_at,
        "the drop note (#{}) comes after the LLM request (#{request_at})",
        drop_note.0
    );
    assert_no_model_server_traffic(&run, "invisible-tool");

    // The same scenario with a host that drops the whole server: no tools at all.
    let mut table: toml::Table = std::fs::read_to_string(&path)
        .expect("read scenario")
        .parse()
        .expect("scenario is TOML");
    table
        .entry("host")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .expect("[host] is a table")
        .insert("on_invalid_tool".into(), "drop-server".into());
    let dir = util::tempdir();
    let variant = dir.path().join("invisible-tool-drop-server.toml");
    std::fs::write(&variant, toml::to_string(&table).expect("serialize")).expect("write");
    let run = sightline_run(&variant, &["--no-summary"], &[]);
    assert!(
        run.output.status.success(),
        "drop-server: {}",
        run.describe()
    );
    let requests = run.llm_requests();
    let (request_at, request) = requests.first().expect("an LLM request");
    assert!(
        request
            .get("tools")
            .is_none_or(|t| t.as_array().is_some_and(Vec::is_empty)),
        "drop-server: the request still has tools: {}",
        request["tools"]
    );
    let notes = run.notes(&Lane::Host, &Lane::Host);
    assert!(
        notes
            .iter()
            .any(|(i, t)| i < request_at && t.contains("`get_time`")),
        "drop-server: no note before the request says get_time is dropped: {notes:?}"
    );
    assert!(
        run.stdout.contains(says),
        "drop-server: the model should still say it has no such tool:\n{}",
        run.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Provider errors
// ---------------------------------------------------------------------------------------------

/// A one-shot LLM API on 127.0.0.1: every connection gets the same canned response; each
/// request received (headers and body) is sent back to the test.
struct FakeApi {
    port: u16,
    requests: mpsc::Receiver<Vec<u8>>,
    stop: Arc<AtomicBool>,
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn fake_api(response: String) -> FakeApi {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        let deadline = Instant::now() + RUN_LIMIT;
        while !stopped.load(Ordering::SeqCst) && Instant::now() < deadline {
            match listener.accept() {
                Ok((stream, _)) => {
                    let request = serve_one(stream, response.as_bytes());
                    if tx.send(request).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(_) => return,
            }
        }
    });
    FakeApi {
        port,
        requests: rx,
        stop,
    }
}

/// Reads one request (headers, then `Content-Length` bytes of body), writes `response`, closes.
fn serve_one(mut stream: TcpStream, response: &[u8]) -> Vec<u8> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break Some(at + 4);
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break None,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    };
    if let Some(end) = header_end {
        let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while request.len() < end + length {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => request.extend_from_slice(&buf[..n]),
            }
        }
    }
    let _ = stream.write_all(response);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
    request
}

/// A raw HTTP/1.1 response with a JSON (or not) body and `Connection: close`.
fn http_response(status: &str, extra_headers: &[&str], body: &str) -> String {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for h in extra_headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    format!("{head}\r\n{body}")
}

#[test]
fn provider_errors_end_the_run_with_one_clear_line() {
    struct Case {
        name: &'static str,
        response: Option<String>,
        status: Option<u16>,
        says: &'static [&'static str],
    }
    let cases = [
        Case {
            name: "401",
            response: Some(http_response(
                "401 Unauthorized",
                &["request-id: req_test_401"],
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            )),
            status: Some(401),
            says: &["401", "invalid x-api-key"],
        },
        Case {
            name: "429",
            response: Some(http_response(
                "429 Too Many Requests",
                &["retry-after: 7"],
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
            )),
            status: Some(429),
            says: &["429", "retry after 7"],
        },
        Case {
            name: "500",
            // An API that echoes the key: it must still not reach the trace.
            response: Some(http_response(
                "500 Internal Server Error",
                &[],
                r#"{"type":"error","error":{"type":"api_error","message":"Internal server error for key sk-test-SECRET-123"}}"#,
            )),
            status: Some(500),
            says: &["500", "Internal server error"],
        },
        Case {
            name: "200 not JSON",
            response: Some(http_response("200 OK", &[], "not json at all")),
            status: Some(200),
            says: &["not JSON", "not json at all"],
        },
        Case {
            name: "connection refused",
            response: None,
            status: None,
            says: &["cannot reach"],
        },
    ];
    let scenario = repo("scenarios/weather.toml");
    for case in cases {
        let what = case.name;
        let (api, port) = match case.response {
            Some(response) => {
                let api = fake_api(response);
                let port = api.port;
                (Some(api), port)
            }
            None => {
                let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
                let port = listener.local_addr().expect("addr").port();
                drop(listener);
                (None, port)
            }
        };
        let base = format!("http://127.0.0.1:{port}");
        let url = format!("{base}/v1/messages");
        let run = sightline_run(
            &scenario,
            &[
                "--provider",
                "anthropic",
                "--model",
                "claude-test",
                "--base-url",
                &base,
                "--no-summary",
            ],
            &[("ANTHROPIC_API_KEY", SECRET)],
        );

        assert!(
            !run.output.status.success(),
            "{what}: the run succeeded:\n{}",
            run.stdout
        );
        let failed: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("sightline: run failed:"))
            .collect();
        assert_eq!(
            failed.len(),
            1,
            "{what}: expected one `sightline: run failed:` line, stderr:\n{}",
            run.stderr
        );
        let line = failed[0];
        assert!(
            line.contains(&url),
            "{what}: the line does not name {url}: {line}"
        );
        for needle in case.says {
            assert!(
                line.contains(needle),
                "{what}: the line lacks {needle:?}: {line}"
            );
        }
        assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);

        // The key went over the wire (so redaction is the recorder's doing)...
        if let Some(api) = &api {
            let received = api
                .requests
                .recv_timeout(Duration::from_secs(5))
                .unwrap_or_else(|_| panic!("{what}: the fake API got no request"));
            let head = util::text(&received).to_ascii_lowercase();
            assert!(
                head.starts_with("post /v1/messages "),
                "{what}: {}",
                head.lines().next().unwrap_or("")
            );
            assert!(
                head.contains(&format!("x-api-key: {}", SECRET.to_ascii_lowercase())),
                "{what}: the key was not sent"
            );
        }
        // ...and is nowhere in the trace, nor in what the user saw.
        let file = std::fs::read_to_string(&run.trace_path).expect("read trace");
        assert!(
            !file.contains(SECRET),
            "{what}: the API key is in the trace"
        );
        assert!(
            !run.stderr.contains(SECRET) && !run.stdout.contains(SECRET),
            "{what}: the API key was printed"
        );

        let events = run.events();
        let llm: Vec<usize> = (0..events.len())
            .filter(|&i| events[i].channel == Channel::LlmHttp)
            .collect();
        let request_at = *llm
            .iter()
            .find(|&&i| is_llm_request(&events[i]))
            .unwrap_or_else(|| panic!("{what}: no LLM request recorded"));
        let request_http = events[request_at].http.as_ref().expect("request http info");
        assert_eq!(request_http.url.as_deref(), Some(url.as_str()), "{what}");
        assert!(
            request_http
                .headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case("x-api-key") && v == "[redacted]"),
            "{what}: the recorded request headers do not show x-api-key [redacted]: {:?}",
            request_http.headers
        );
        let last = *llm.last().expect("an llm-http event");
        match case.status {
            Some(status) => {
                let e = &events[last];
                assert!(
                    is_llm_response(e),
                    "{what}: the last llm-http event is {} -> {}",
                    e.from,
                    e.to
                );
                assert_eq!(
                    e.http.as_ref().and_then(|h| h.status),
                    Some(status),
                    "{what}"
                );
                if status == 200 {
                    assert_eq!(e.text(), "not json at all", "{what}");
                }
            }
            None => {
                assert_eq!(
                    last, request_at,
                    "{what}: the last llm-http event is not the request"
                );
                let note = next_after(&run, last, |e| !e.from.is_server() && !e.to.is_server())
                    .unwrap_or_else(|| panic!("{what}: nothing follows the request"));
                let e = &events[note];
                assert!(
                    e.channel == Channel::Note && e.from == Lane::Llm && e.to == Lane::Host,
                    "{what}: the request is followed by #{} {} -> {} {}",
                    e.seq,
                    e.from,
                    e.to,
                    e.channel.as_str()
                );
                assert!(
                    e.text().contains("cannot reach"),
                    "{what}: note {:?}",
                    e.text()
                );
            }
        }
        assert_no_model_server_traffic(&run, what);
        drop(api);
    }
}

/// The scenario's explanation says how each shape carries an image and an error; keep it true:
/// Responses gets an `input_image`, Chat a description, and neither OpenAI shape an error flag
/// (the error is text starting with `Error`).
#[test]
fn tool_error_and_image_convert_as_the_explanation_says_for_openai_shapes() {
    let path = repo("scenarios/tool-error-and-image.toml");
    for (provider, image_as) in [("openai", "input_image"), ("openai-chat", "[image: ")] {
        let run = sightline_run(&path, &["--provider", provider], &[]);
        assert!(run.output.status.success(), "{}", run.describe());
        let requests = run.llm_requests();
        let (_, second) = requests.get(1).expect("a second LLM request");
        let outputs: Vec<String> = match provider {
            "openai" => second["input"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|item| item["type"] == "function_call_output")
                .map(|item| item["output"].to_string())
                .collect(),
            _ => second["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].to_string())
                .collect(),
        };
        assert_eq!(outputs.len(), 2, "{provider}: {second}");
        assert!(
            outputs.iter().any(|o| o.contains(image_as)),
            "{provider}: the image is not carried as {image_as}: {outputs:?}"
        );
        assert!(
            outputs.iter().any(|o| o.starts_with("\"Error")),
            "{provider}: the error is not text starting with Error: {outputs:?}"
        );
        assert!(
            !second.to_string().contains("is_error"),
            "{provider}: {second}"
        );
    }
    let text = std::fs::read_to_string(&path).expect("scenario");
    assert!(
        text.contains("input_image") && text.contains("no error flag"),
        "{text}"
    );
}

/// The article's demo prints the server's instructions and the cost of the tools: `run` and
/// `summary` do too (with and without the summary).
#[test]
fn run_and_summary_show_instructions_and_the_tools_token_cost() {
    let path = repo("scenarios/weather.toml");
    for args in [&[][..], &["--no-summary"][..]] {
        let run = sightline_run(&path, args, &[]);
        assert!(run.output.status.success(), "{}", run.describe());
        for needle in [
            "-- server:weather instructions: ",
            "-- the model saw 1 tool in request #",
            "get_weather ~",
            "tool-use system prompt Anthropic adds: 286-675 tokens",
        ] {
            assert!(
                run.stdout.contains(needle),
                "{args:?}: no {needle:?} in\n{}",
                run.stdout
            );
        }
    }
    let run = sightline_run(&path, &[], &[]);
    let summary = Command::new(util::bin())
        .args(["summary", &run.trace_path.display().to_string()])
        .output()
        .expect("summary");
    let text = String::from_utf8_lossy(&summary.stdout);
    assert!(
        text.contains("-- the model saw 1 tool in request #"),
        "{text}"
    );
    assert!(text.contains("-- server:weather instructions: "), "{text}");
}

/// `run --set` changes one knob of a scenario for one run: two-servers with
/// `host.prefix=never` is the host where the first server's tool wins and the other one
/// disappears, as the scenario's explanation invites a class to try. A key the format does
/// not know is one clear line, exit 2.
#[test]
fn run_set_changes_one_knob_without_editing_the_scenario() {
    let dir = util::tempdir();
    let trace = dir.path().join("two.jsonl");
    util::run_scenario_to("two-servers", &trace, &["--set", "host.prefix=never"]);
    let loaded = util::load(&trace);
    let notes: Vec<String> = loaded
        .events
        .iter()
        .filter(|e| e.channel == Channel::Note && e.from == Lane::Host && e.to == Lane::Host)
        .map(|e| e.text().into_owned())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("is already taken by server `weather`")),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("weather__get_weather")),
        "{notes:?}"
    );

    let scenario = repo("scenarios/two-servers.toml");
    let out = Command::new(util::bin())
        .arg("run")
        .arg(&scenario)
        .args(["--set", "host.prefx=never", "--trace"])
        .arg(dir.path().join("bad.jsonl"))
        .output()
        .expect("sightline runs");
    assert_eq!(out.status.code(), Some(2));
    let err = util::text(&out.stderr);
    assert!(err.contains("prefx") && err.lines().count() == 1, "{err}");
}
