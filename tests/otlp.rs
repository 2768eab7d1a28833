//! `sightline export --format otlp`: every scenario, both revisions and an external host's
//! session, decoded back with the OTLP protobuf types from the file (`--out`) and from what a
//! receiver on 127.0.0.1 got over OTLP/HTTP (`--endpoint`), and checked against the
//! conventions; endpoints that refuse, fail or hang.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as V;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use sightline::analysis::report;
use sightline::trace::{Kind, Lane};

use crate::util::*;

const SPAN_INTERNAL: i32 = 1;
const SPAN_SERVER: i32 = 2;
const SPAN_CLIENT: i32 = 3;

/// What a receiver got: path, headers (lower-case names), body, per request.
type Got = Mutex<Vec<(String, Vec<(String, String)>, Vec<u8>)>>;

/// What the receiver answers.
#[derive(Clone, Copy)]
pub enum Answer {
    Ok,
    Status(u16),
    /// Read the request, never answer.
    Hang,
}

/// A plain HTTP/1.1 OTLP receiver on 127.0.0.1: keeps each request's path, headers and body.
pub struct Receiver {
    pub url: String,
    pub got: Arc<Got>,
    stop: Arc<AtomicBool>,
}

impl Receiver {
    pub fn start(answer: Answer) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        listener.set_nonblocking(true).expect("nonblocking");
        let got = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (g, s) = (got.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let (g, s) = (g.clone(), s.clone());
                        std::thread::spawn(move || serve(conn, answer, &g, &s));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Receiver { url, got, stop }
    }

    /// Every request body decoded as OTLP protobuf.
    pub fn requests(&self) -> Vec<ExportTraceServiceRequest> {
        self.got
            .lock()
            .expect("lock")
            .iter()
            .map(|(path, headers, body)| {
                assert_eq!(path, "/v1/traces");
                let ct = headers.iter().find(|(k, _)| k == "content-type");
                assert_eq!(ct.map(|(_, v)| v.as_str()), Some("application/x-protobuf"));
                ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP protobuf")
            })
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(conn: TcpStream, answer: Answer, got: &Got, stop: &AtomicBool) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(20)));
    let mut writer = conn.try_clone().expect("clone");
    let mut reader = BufReader::new(conn);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        got.lock().expect("lock").push((path, headers, body));
        let status = match answer {
            Answer::Ok => 200,
            Answer::Status(s) => s,
            Answer::Hang => {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
        };
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: 7\r\n\r\nnope {}",
            if status == 200 { "ok" } else { ":(" }
        );
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn export(trace: &Path, extra: &[&str]) -> std::process::Output {
    run(
        Command::new(bin())
            .arg("export")
            .arg(trace)
            .args(["--format", "otlp"])
            .args(extra)
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_HEADERS"),
        Duration::from_secs(60),
    )
}

/// The spans of an OTLP/JSON file, one `ExportTraceServiceRequest` per line.
pub fn spans_of_file(path: &Path) -> Vec<Span> {
    let text = std::fs::read_to_string(path).expect("read OTLP/JSON");
    text.lines()
        .flat_map(|line| {
            let r: ExportTraceServiceRequest = serde_json::from_str(line).expect("OTLP/JSON");
            flatten(r)
        })
        .collect()
}

pub fn flatten(r: ExportTraceServiceRequest) -> Vec<Span> {
    r.resource_spans
        .into_iter()
        .flat_map(|rs| rs.scope_spans)
        .flat_map(|ss| ss.spans)
        .collect()
}

pub fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a V> {
    s.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref()?.value.as_ref())
}

pub fn attr_str<'a>(s: &'a Span, key: &str) -> Option<&'a str> {
    match attr(s, key) {
        Some(V::StringValue(v)) => Some(v),
        _ => None,
    }
}

/// The checks every export must pass, against the trace's own analysis.
fn check(trace: &Path, spans: &[Span], content: bool) {
    let loaded = load(trace);
    let r = report(&loaded.events);
    let trace_ids: HashSet<&[u8]> = spans.iter().map(|s| s.trace_id.as_slice()).collect();
    assert_eq!(trace_ids.len(), 1, "one recording, one trace id");
    let ids: HashMap<&[u8], &Span> = spans.iter().map(|s| (s.span_id.as_slice(), s)).collect();
    assert_eq!(ids.len(), spans.len(), "span ids are unique");
    let roots: Vec<&Span> = spans
        .iter()
        .filter(|s| s.parent_span_id.is_empty())
        .collect();
    assert_eq!(
        roots.len(),
        1,
        "one root: {:?}",
        roots.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    assert!(
        roots[0].name.starts_with("invoke_agent"),
        "{}",
        roots[0].name
    );
    assert_eq!(roots[0].kind, SPAN_INTERNAL);
    for s in spans {
        assert!(s.end_time_unix_nano >= s.start_time_unix_nano, "{}", s.name);
        if !s.parent_span_id.is_empty() {
            assert!(
                ids.contains_key(s.parent_span_id.as_slice()),
                "{}: parent missing",
                s.name
            );
        }
        if !content {
            for key in [
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.tool.call.arguments",
                "gen_ai.tool.call.result",
            ] {
                assert!(
                    attr(s, key).is_none(),
                    "{}: {key} without --otlp-content",
                    s.name
                );
            }
        }
    }

    // One MCP span per request, named `{method} {target}`, CLIENT from the client's side.
    let mcp: Vec<&Span> = spans
        .iter()
        .filter(|s| attr(s, "mcp.method.name").is_some())
        .collect();
    let requests: Vec<usize> = (0..loaded.events.len())
        .filter(|&i| {
            let e = &loaded.events[i];
            r.rpc.derived[i].kind == Kind::Request
                && e.channel.carries_jsonrpc()
                && (e.to.is_server() || e.from.is_server())
        })
        .collect();
    let request_spans: Vec<&&Span> = mcp
        .iter()
        .filter(|s| attr(s, "jsonrpc.request.id").is_some())
        .collect();
    assert_eq!(
        request_spans.len(),
        requests.len(),
        "one span per MCP request"
    );
    for (s, &i) in request_spans.iter().zip(&requests) {
        let e = &loaded.events[i];
        let method = r.rpc.derived[i].method.as_deref().expect("method");
        assert_eq!(attr_str(s, "mcp.method.name"), Some(method));
        let target = attr_str(s, "gen_ai.tool.name").or(attr_str(s, "gen_ai.prompt.name"));
        match target {
            Some(t) => assert_eq!(s.name, format!("{method} {t}")),
            None => assert_eq!(s.name, method),
        }
        let expected_kind = if e.from == Lane::Host {
            SPAN_CLIENT
        } else {
            SPAN_SERVER
        };
        assert_eq!(s.kind, expected_kind, "{}", s.name);
        assert!(attr_str(s, "network.transport").is_some());
        assert_eq!(
            attr_str(s, "mcp.protocol.version"),
            r.rpc.derived[i].revision.as_deref(),
            "{}",
            s.name
        );
        if method == "tools/call" {
            assert_eq!(attr_str(s, "gen_ai.operation.name"), Some("execute_tool"));
        }
        if let Some(V::StringValue(kind)) = attr(s, "error.type") {
            assert_eq!(
                s.status.as_ref().map(|st| st.code),
                Some(2),
                "{}: {kind}",
                s.name
            );
        }
    }

    // One chat span per LLM exchange: the loop's under the root, those the host made for a
    // server's sampling request under that request's span.
    let all_chats: Vec<&Span> = spans
        .iter()
        .filter(|s| attr_str(s, "gen_ai.operation.name") == Some("chat"))
        .collect();
    let (chats, sampling): (Vec<&Span>, Vec<&Span>) = all_chats
        .iter()
        .partition(|s| s.parent_span_id == roots[0].span_id);
    assert_eq!(
        sampling.len(),
        r.sampling.len(),
        "one chat per sampling exchange"
    );
    for s in &sampling {
        let parent = ids[s.parent_span_id.as_slice()];
        // The server's request, or on 2026-07-28 the leg its `input_required` answered.
        let asked = (parent.kind, parent.name.as_str()) == (SPAN_SERVER, "sampling/createMessage")
            || (parent.kind == SPAN_CLIENT
                && attr(parent, "sightline.mcp.input_required") == Some(&V::BoolValue(true)));
        assert!(asked, "{} under {}", s.name, parent.name);
        assert!(parent.start_time_unix_nano <= s.start_time_unix_nano);
    }
    assert_eq!(chats.len(), r.llm.len());
    for (s, x) in chats.iter().zip(&r.llm) {
        assert_eq!(s.kind, SPAN_CLIENT);
        let model = x.model.as_deref().expect("model");
        assert_eq!(s.name, format!("chat {model}"));
        assert!(matches!(
            attr_str(s, "gen_ai.provider.name"),
            Some("anthropic" | "openai")
        ));
        assert_eq!(attr_str(s, "gen_ai.request.model"), Some(model));
        assert!(
            matches!(attr(s, "gen_ai.usage.input_tokens"), Some(V::IntValue(n)) if *n > 0),
            "{s:?}"
        );
        assert!(matches!(attr(s, "gen_ai.usage.output_tokens"), Some(V::IntValue(n)) if *n > 0));
        assert!(attr_str(s, "gen_ai.response.id").is_some());
        assert!(
            matches!(attr(s, "gen_ai.response.finish_reasons"), Some(V::ArrayValue(a)) if a.values.len() == 1)
        );
        assert_eq!(s.parent_span_id, roots[0].span_id);
    }

    // One execute_tool span per model call, parent of the tools/call that carried it.
    let tools: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool "))
        .collect();
    assert_eq!(tools.len(), r.chains.len());
    for (s, chain) in tools.iter().zip(&r.chains) {
        assert_eq!(s.kind, SPAN_INTERNAL);
        assert_eq!(
            attr_str(s, "gen_ai.tool.call.id"),
            Some(chain.call_id.as_str())
        );
        assert_eq!(s.name, format!("execute_tool {}", chain.tool));
        if let Some(call) = chain.tools_call {
            let pos = requests.iter().position(|&i| i == call).expect("a request");
            let mcp_span = request_spans[pos];
            assert_eq!(
                mcp_span.parent_span_id, s.span_id,
                "tools/call under execute_tool"
            );
        }
    }
}

fn spans_by_both_routes(trace: &Path, extra: &[&str]) -> Vec<Span> {
    let dir = tempdir();
    let out = dir.path().join("spans.json");
    let o = export(
        trace,
        &[&["--out", out.to_str().expect("utf-8")], extra].concat(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let from_file = spans_of_file(&out);
    let receiver = Receiver::start(Answer::Ok);
    let o = export(
        trace,
        &[&["--endpoint", receiver.url.as_str()], extra].concat(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!("sent {} spans", from_file.len())),
        "{}",
        text(&o.stderr)
    );
    let sent: Vec<Span> = receiver.requests().into_iter().flat_map(flatten).collect();
    assert_eq!(
        sent, from_file,
        "the file and the wire carry the same spans"
    );
    from_file
}

#[test]
fn every_scenario_and_both_revisions_export_by_the_conventions() {
    let dir = tempdir();
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&scenarios)
        .expect("scenarios")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".toml")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    let mut revisions_seen = HashSet::new();
    for name in &names {
        for revision in ["2025-11-25", "2026-07-28"] {
            let trace = dir.path().join(format!("{name}-{revision}.jsonl"));
            run_scenario_to(name, &trace, &["--protocol", revision]);
            let spans = spans_by_both_routes(&trace, &[]);
            check(&trace, &spans, false);
            for s in &spans {
                if let Some(v) = attr_str(s, "mcp.protocol.version") {
                    revisions_seen.insert(v.to_string());
                }
            }
        }
    }
    assert!(
        revisions_seen.contains("2025-11-25") && revisions_seen.contains("2026-07-28"),
        "{revisions_seen:?}"
    );
}

#[test]
fn the_weather_loop_nests_as_the_conventions_draw_it() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let spans = spans_by_both_routes(&trace, &["--otlp-content"]);
    check(&trace, &spans, true);
    let spans: Vec<Span> = spans;
    let names: Vec<&str> = spans
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !n.starts_with("notifications/"))
        .collect();
    assert_eq!(
        names,
        [
            "invoke_agent sightline",
            "initialize",
            "tools/list",
            "chat scripted",
            "execute_tool get_weather",
            "tools/call get_weather",
            "chat scripted"
        ]
    );
    let by_name = |n: &'static str| spans.iter().filter(move |s| s.name == n);
    let call = by_name("tools/call get_weather")
        .next()
        .expect("tools/call");
    assert_eq!(
        attr_str(call, "gen_ai.tool.call.arguments"),
        Some(r#"{"location":"Seoul"}"#)
    );
    assert!(attr_str(call, "gen_ai.tool.call.result").is_some_and(|r| r.contains("Seoul: 15C")));
    assert_eq!(attr_str(call, "jsonrpc.request.id"), Some("2"));
    assert_eq!(attr_str(call, "network.transport"), Some("pipe"));
    let tool = by_name("execute_tool get_weather")
        .next()
        .expect("execute_tool");
    assert_eq!(attr_str(tool, "gen_ai.tool.call.id"), Some("toolu_sl_0_0"));
    let second = by_name("chat scripted").nth(1).expect("the second turn");
    let input = attr_str(second, "gen_ai.input.messages").expect("input messages");
    let input: serde_json::Value = serde_json::from_str(input).expect("JSON");
    assert_eq!(input[0]["role"], "user");
    assert_eq!(
        input[0]["parts"][0]["content"],
        "What's the weather in Seoul right now?"
    );
    assert_eq!(input[2]["parts"][0]["type"], "tool_call_response");
    // `notifications/initialized` goes out with no request open: a zero-length CLIENT span.
    let initialized = spans
        .iter()
        .find(|s| s.name == "notifications/initialized")
        .expect("the notification");
    assert_eq!(initialized.kind, SPAN_CLIENT);
    assert_eq!(
        initialized.start_time_unix_nano,
        initialized.end_time_unix_nano
    );
}

#[test]
fn tool_errors_are_errors_and_nothing_secret_leaves() {
    let dir = tempdir();
    let trace = dir.path().join("errors.jsonl");
    run_scenario_to("tool-error-and-image", &trace, &[]);
    let spans = spans_by_both_routes(&trace, &[]);
    check(&trace, &spans, false);
    let failed: Vec<&Span> = spans
        .iter()
        .filter(|s| attr_str(s, "error.type") == Some("tool_error"))
        .collect();
    assert!(
        !failed.is_empty(),
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for s in failed {
        assert_eq!(s.status.as_ref().map(|st| st.code), Some(2));
    }
    // The file holds no header and no credential of any kind.
    let out = dir.path().join("all.json");
    let o = export(
        &trace,
        &["--out", out.to_str().expect("utf-8"), "--otlp-content"],
    );
    assert!(o.status.success());
    let json = std::fs::read_to_string(&out)
        .expect("read")
        .to_ascii_lowercase();
    for word in ["authorization", "x-api-key", "redacted"] {
        assert!(!json.contains(word), "{word} in the export");
    }
}

#[test]
fn the_json_file_follows_the_otlp_json_mapping() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let out = dir.path().join("spans.json");
    assert!(
        export(&trace, &["--out", out.to_str().expect("utf-8")])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&out).expect("read");
    let v: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
    let span = &v["resourceSpans"][0]["scopeSpans"][0]["spans"][1];
    // Hex ids (not base64), 64-bit integers as strings, enums as numbers, camelCase keys.
    let hex = |s: &serde_json::Value, n: usize| {
        s.as_str().is_some_and(|s| {
            s.len() == n
                && s.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        })
    };
    assert!(hex(&span["traceId"], 32), "{span}");
    assert!(
        hex(&span["spanId"], 16) && hex(&span["parentSpanId"], 16),
        "{span}"
    );
    assert!(
        span["startTimeUnixNano"]
            .as_str()
            .is_some_and(|s| s.parse::<u64>().is_ok()),
        "{span}"
    );
    assert_eq!(span["kind"], 3);
    let resource = &v["resourceSpans"][0]["resource"]["attributes"];
    assert_eq!(resource[0]["key"], "service.name");
    assert_eq!(resource[0]["value"]["stringValue"], "sightline");
    let int = v["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .flat_map(|s| s["attributes"].as_array().cloned().unwrap_or_default())
        .find(|a| a["key"] == "gen_ai.usage.input_tokens")
        .expect("usage");
    assert!(int["value"]["intValue"].is_string(), "{int}");
}

#[test]
fn an_external_hosts_session_is_one_trace() {
    require_npm_peers();
    let dir = tempdir();
    let session = crate::sessions::record_external_session(dir.path());
    let spans = spans_by_both_routes(&session, &[]);
    check(&session, &spans, false);
    assert_eq!(
        spans.iter().filter(|s| s.name.starts_with("chat ")).count(),
        2
    );
    let tool = spans
        .iter()
        .find(|s| s.name == "execute_tool get_weather")
        .expect("execute_tool");
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call get_weather")
        .expect("tools/call");
    assert_eq!(call.parent_span_id, tool.span_id);
    assert_eq!(spans[0].name, "invoke_agent");
}

#[test]
fn endpoints_that_refuse_fail_or_hang_are_one_line_errors() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    const SECRET: &str = "Bearer sk-otlp-SECRET-123";
    let auth = format!("Authorization={SECRET}");
    let refused = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    let unauthorized = Receiver::start(Answer::Status(401));
    let unavailable = Receiver::start(Answer::Status(503));
    let hanging = Receiver::start(Answer::Hang);
    for (url, wanted) in [
        (refused.as_str(), "cannot reach OTLP endpoint"),
        (unauthorized.url.as_str(), "answered HTTP 401"),
        (unavailable.url.as_str(), "answered HTTP 503"),
        (hanging.url.as_str(), "did not answer within 300ms"),
    ] {
        let o = run(
            Command::new(bin())
                .arg("export")
                .arg(&trace)
                .args([
                    "--format",
                    "otlp",
                    "--endpoint",
                    url,
                    "--otlp-header",
                    &auth,
                ])
                .env("OTEL_EXPORTER_OTLP_TIMEOUT", "300"),
            Duration::from_secs(30),
        );
        let err = text(&o.stderr);
        // Status 1: the backend refused, failed or hung (docs/otel.md); 2 stays for trouble
        // with the command itself (below).
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(wanted) && err.contains(&format!("{url}/v1/traces")),
            "{err}"
        );
        assert!(!err.contains("sk-otlp"), "{err}");
    }
    // Trouble with the command itself (not an http(s) URL, a header that is not K=V) stays
    // status 2, and still shows no header value.
    for extra in [
        [
            "--endpoint",
            "ftp://127.0.0.1:4318",
            "--otlp-header",
            auth.as_str(),
        ],
        ["--endpoint", refused.as_str(), "--otlp-header", SECRET],
    ] {
        let o = export(&trace, &extra);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("sk-otlp"), "{err}");
    }
    // The backend got the header (it is sent, just never shown); 503 was retried.
    let got = unauthorized.got.lock().expect("lock");
    assert!(
        got[0]
            .1
            .iter()
            .any(|(k, v)| k == "authorization" && v == SECRET)
    );
    assert!(
        unavailable.got.lock().expect("lock").len() > 1,
        "503 is retried"
    );
}

#[test]
fn a_malformed_traceparent_is_reported_by_validate_and_ignored_by_export() {
    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const BAD: &str = "00-4BF92F3577B34DA6-nothex-01";
    let call = |id: u32, tp: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"Seoul"}},"_meta":{{"traceparent":"{tp}"}}}}}}"#
        )
    };
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        call(1, GOOD),
        call(2, BAD),
    ]
    .join("\n")
        + "\n";
    let dir = tempdir();
    let trace = dir.path().join("tp.jsonl");
    let o = run_with_input(
        Command::new(bin())
            .args(["proxy", "--name", "weather", "--trace"])
            .arg(&trace)
            .args(["--", bin(), "demo-server", "weather"]),
        input.as_bytes(),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let loaded = load(&trace);
    let bad_seq = loaded
        .events
        .iter()
        .find(|e| e.text().contains(BAD))
        .expect("the bad call is recorded")
        .seq;

    let v = run(
        Command::new(bin()).arg("validate").arg(&trace),
        Duration::from_secs(30),
    );
    let report = text(&v.stdout);
    assert_eq!(v.status.code(), Some(1), "{report}");
    let line = report
        .lines()
        .find(|l| l.contains("traceparent"))
        .unwrap_or_else(|| panic!("no traceparent line in {report}"));
    assert!(line.starts_with(&format!("#{bad_seq} ")), "{line}");
    assert!(
        line.contains(BAD) && line.contains("/params/_meta/traceparent"),
        "{line}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("traceparent")).count(),
        1,
        "the valid one is not reported: {report}"
    );

    let out = dir.path().join("tp.otlp.json");
    let e = export(&trace, &["--out", out.to_str().expect("path")]);
    assert!(e.status.success(), "{}", text(&e.stderr));
    let spans = spans_of_file(&out);
    let root = &spans[0];
    let id = |s: &&Span| attr_str(s, "jsonrpc.request.id").map(str::to_string);
    let calls: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "tools/call get_weather")
        .collect();
    let joined = calls
        .iter()
        .find(|s| id(s).as_deref() == Some("1"))
        .expect("1");
    let ignored = calls
        .iter()
        .find(|s| id(s).as_deref() == Some("2"))
        .expect("2");
    let caller = sightline::wire::traceparent::parse_traceparent(GOOD).expect("valid");
    assert_eq!(joined.trace_id, caller.trace_id);
    assert_eq!(joined.parent_span_id, caller.span_id);
    assert_eq!(
        ignored.trace_id, root.trace_id,
        "the malformed one is ignored"
    );
    assert_eq!(ignored.parent_span_id, root.span_id);
}
