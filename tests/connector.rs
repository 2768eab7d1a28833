//! When the LLM API is itself the MCP client (Anthropic's MCP connector, OpenAI's `mcp`
//! tools): the remote servers' credentials a request hands the API never reach a trace, through
//! the real `sightline llm-proxy`, while the API still gets them byte for byte (issue 36).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sightline::trace::{Channel, Event};

use crate::llm_proxy::{start_proxy, stop};
use crate::util;

const API_KEY: &str = "sk-ant-SECRET-api-key-1";
/// Anthropic's `mcp_servers[].authorization_token`; one long, one shorter than a key.
const TOKEN: &str = "mcp-oauth-SECRET-token-2";
const SHORT_TOKEN: &str = "s3cr3t";
/// OpenAI's `mcp` tool `headers.Authorization` and `authorization`.
const BEARER: &str = "mcp-bearer-SECRET-3";
const OAUTH: &str = "mcp-authorization-SECRET-4";

/// What the upstream answers one request with.
enum Answer {
    /// The request's body echoed (as an API echoes its request's tools): as JSON, or as one
    /// Server-Sent Event when the request asked for a stream.
    Echo,
    /// A recorded answer: content type and body.
    Canned(&'static str, &'static str),
}

/// An API upstream on 127.0.0.1 that keeps every request body it gets and gives the next of
/// its answers to each (echoes once they run out).
struct EchoApi {
    port: u16,
    seen: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl EchoApi {
    fn start() -> EchoApi {
        EchoApi::answering(Vec::new())
    }

    fn answering(answers: Vec<Answer>) -> EchoApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        std::thread::spawn(move || {
            let mut answers = answers.into_iter();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let body = read_body(&mut stream);
                let streamed = body.windows(14).any(|w| w == b"\"stream\":true");
                keep.lock().expect("lock").push(body.clone());
                let (kind, answer) = match answers.next().unwrap_or(Answer::Echo) {
                    Answer::Canned(kind, text) => (kind, text.as_bytes().to_vec()),
                    Answer::Echo if streamed => {
                        let mut sse = b"event: response.completed\ndata: ".to_vec();
                        sse.extend_from_slice(&body);
                        sse.extend_from_slice(b"\n\n");
                        ("text/event-stream", sse)
                    }
                    Answer::Echo => ("application/json", body),
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    answer.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&answer);
            }
        });
        EchoApi { port, seen }
    }
}

/// One HTTP/1.1 request's body (`content-length` bytes after the head).
fn read_body(stream: &mut TcpStream) -> Vec<u8> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                return data[end + 4..end + 4 + length].to_vec();
            }
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return Vec::new(),
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

/// POSTs `body` through the proxy on `port`; the answer's body.
fn post(port: u16, path: &str, body: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-api-key: {API_KEY}\r\n\
         anthropic-beta: mcp-client-2025-11-20\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let at = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(0, |i| i + 4);
    out[at..].to_vec()
}

fn anthropic_request(stream: bool) -> String {
    format!(
        r#"{{"model":"claude","max_tokens":64,"stream":{stream},"mcp_servers":[{{"type":"url","url":"https://weather.example/mcp","name":"weather","authorization_token":"{TOKEN}"}},{{"type":"url","url":"https://tour.example/mcp","name":"tour","authorization_token":"{SHORT_TOKEN}"}}],"tools":[{{"type":"mcp_toolset","mcp_server_name":"weather"}}],"messages":[{{"role":"user","content":"Weather in Seoul?"}}]}}"#
    )
}

fn openai_request(stream: bool) -> String {
    format!(
        r#"{{"model":"gpt","stream":{stream},"tools":[{{"type":"mcp","server_label":"weather","server_url":"https://weather.example/mcp","allowed_tools":["get_weather"],"require_approval":"never","headers":{{"Authorization":"Bearer {BEARER}","X-Region":"eu"}},"authorization":"{OAUTH}"}}],"input":"Weather in Seoul?"}}"#
    )
}

/// The trace's `llm-http` events, in order.
fn llm_events(trace: &std::path::Path) -> Vec<Event> {
    let loaded = util::load(trace);
    let llm = loaded.events.into_iter();
    llm.filter(|e| e.channel == Channel::LlmHttp).collect()
}

/// Every `redacted` range of `event` holds `[redacted]`; how many there are.
fn redacted_ranges(event: &Event) -> usize {
    let bytes = event.bytes().expect("a body");
    let ranges = &event.http().expect("HTTP details").redacted;
    for [start, end] in ranges {
        assert_eq!(&bytes[*start..*end], b"[redacted]", "{ranges:?}");
    }
    ranges.len()
}

#[test]
fn remote_server_credentials_never_reach_the_trace_through_llm_proxy() {
    let api = EchoApi::start();
    let dir = util::tempdir();
    let trace = dir.path().join("llm.jsonl");
    let (proxy, port) = start_proxy(&format!("http://127.0.0.1:{}", api.port), &trace);
    let sent = [
        ("/v1/messages", anthropic_request(false)),
        ("/v1/messages", anthropic_request(true)),
        ("/v1/responses", openai_request(false)),
        ("/v1/responses", openai_request(true)),
    ];
    let mut answers = Vec::new();
    for (path, body) in &sent {
        answers.push(post(port, path, body));
    }
    let stderr = stop(proxy);

    // The API got every credential, byte for byte; the host got the echo unchanged.
    let seen = api.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), sent.len());
    for ((_, body), (got, answer)) in sent.iter().zip(seen.iter().zip(&answers)) {
        assert_eq!(got, body.as_bytes(), "forwarded unchanged");
        let answer = String::from_utf8_lossy(answer);
        assert!(answer.contains(body.as_str()), "echoed unchanged: {answer}");
    }

    // Neither the trace nor stderr holds one of them; each place is marked.
    let text = String::from_utf8_lossy(&std::fs::read(&trace).expect("trace")).into_owned();
    for secret in [API_KEY, TOKEN, BEARER, OAUTH, "\"s3cr3t\""] {
        assert!(!text.contains(secret), "{secret} in the trace:\n{text}");
        assert!(!stderr.contains(secret), "{secret} in stderr:\n{stderr}");
    }
    let llm = llm_events(&trace);
    assert_eq!(llm.len(), 2 * sent.len(), "{llm:?}");
    for (i, pair) in llm.chunks(2).enumerate() {
        let (request, response) = (&pair[0], &pair[1]);
        let recorded = String::from_utf8_lossy(&request.bytes().expect("body")).into_owned();
        if i < 2 {
            // Anthropic: both tokens, whatever their length; names and URLs stay readable.
            assert_eq!(redacted_ranges(request), 2, "{recorded}");
            assert!(recorded.contains(r#""authorization_token":"[redacted]""#));
            assert!(recorded.contains(r#""name":"weather""#) && recorded.contains("tour.example"));
        } else {
            // OpenAI: the header keeps its scheme, the other header stays.
            assert_eq!(redacted_ranges(request), 2, "{recorded}");
            assert!(recorded.contains(r#""Authorization":"Bearer [redacted]""#));
            assert!(recorded.contains(r#""authorization":"[redacted]""#));
            assert!(recorded.contains(r#""X-Region":"eu""#));
        }
        // The echoed response: the long credentials scrubbed there too, and said so.
        assert!(redacted_ranges(response) >= 1, "{response:?}");
    }
}

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("fixtures/connector/", $name))
    };
}

const JSON: &str = "application/json";
const SSE: &str = "text/event-stream";

/// Both APIs' hosted-MCP exchanges, JSON and streamed, an approval round trip and two bad
/// blocks, through the real llm-proxy: the trace holds them byte for byte and `summary` says
/// which server's tool the API's MCP client listed and called, and what does not add up.
#[test]
fn both_apis_hosted_mcp_shapes_through_llm_proxy_are_read_and_said() {
    let streamed = |body: &str| body.replacen('{', r#"{"stream":true,"#, 1);
    let anthropic = fixture!("anthropic_request.json");
    let openai = fixture!("openai_request.json");
    let exchanges: Vec<(&str, String, &str, &str)> = vec![
        (
            "/v1/messages",
            anthropic.into(),
            JSON,
            fixture!("anthropic_response.json"),
        ),
        (
            "/v1/messages",
            streamed(anthropic),
            SSE,
            fixture!("anthropic_stream.sse"),
        ),
        (
            "/v1/responses",
            openai.into(),
            JSON,
            fixture!("openai_response.json"),
        ),
        (
            "/v1/responses",
            streamed(openai),
            SSE,
            fixture!("openai_stream.sse"),
        ),
        (
            "/v1/responses",
            fixture!("openai_approval_request.json").into(),
            JSON,
            fixture!("openai_approval_response.json"),
        ),
        (
            "/v1/responses",
            fixture!("openai_approved_request.json").into(),
            JSON,
            fixture!("openai_approved_response.json"),
        ),
        (
            "/v1/messages",
            anthropic.into(),
            JSON,
            fixture!("anthropic_bad_response.json"),
        ),
    ];
    let api = EchoApi::answering(
        exchanges
            .iter()
            .map(|(_, _, kind, text)| Answer::Canned(kind, text))
            .collect(),
    );
    let sent: Vec<(&str, &String)> = exchanges.iter().map(|(p, b, _, _)| (*p, b)).collect();
    let answers: Vec<&str> = exchanges.iter().map(|(_, _, _, text)| *text).collect();
    let dir = util::tempdir();
    let trace = dir.path().join("llm.jsonl");
    let (proxy, port) = start_proxy(&format!("http://127.0.0.1:{}", api.port), &trace);
    for ((path, body), answer) in sent.iter().zip(&answers) {
        let got = post(port, path, body);
        assert_eq!(got, answer.as_bytes(), "passed on unchanged");
    }
    stop(proxy);

    // Recorded byte for byte, in order.
    let llm = llm_events(&trace);
    assert_eq!(llm.len(), 2 * sent.len());
    for (pair, answer) in llm.chunks(2).zip(&answers) {
        assert_eq!(pair[1].bytes().as_deref(), Some(answer.as_bytes()));
    }

    let out = util::run(
        std::process::Command::new(util::bin())
            .arg("summary")
            .arg(&trace),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let summary = util::text(&out.stdout);
    let count = |needle: &str| summary.matches(needle).count();
    // Servers named, credentials said redacted, no nameless tool.
    assert_eq!(
        count(
            "the API itself is the MCP client of weather (https://weather.example/mcp; allowed: get_weather; its credential [redacted])"
        ),
        3,
        "{summary}"
    );
    assert_eq!(
        count("allowed: get_weather; approval: never"),
        2,
        "{summary}"
    );
    assert!(
        !summary.contains("mcp_toolset") && !summary.contains("0 tools []"),
        "{summary}"
    );
    // Each call said as the API's MCP client's, JSON and streamed alike.
    let call =
        r#"the API's MCP client -> server weather: tools/call get_weather {"location":"Seoul"}"#;
    assert_eq!(count(call), 5, "{summary}");
    assert_eq!(count(r#"-> "Sunny, 24°C""#), 5, "{summary}");
    assert_eq!(
        count("the API's MCP client -> server weather: tools/list -> 1 tool: get_weather"),
        3,
        "{summary}"
    );
    // The approval round trip.
    assert!(summary.contains("the API asks the host to approve server weather's get_weather"));
    assert!(summary.contains("; approves mcpr_01"), "{summary}");
    assert!(!summary.contains("kept, not read"), "{summary}");
    // Bad input: kept, said.
    assert!(
        summary.contains("!! content[0]: names server `nowhere`, which the request never declared")
    );
    assert!(summary.contains("!! content[1]: an mcp_tool_result for mcptoolu_99"));
    assert!(
        summary.contains("content[1] -> error: unknown tool"),
        "{summary}"
    );

    drawn_as_the_apis_client(&trace);
    judged_counted_and_exported(&trace);
}

/// The doctor judges the remote server's tools from what the API said, `check --expect-tool`
/// counts the API's calls, and OTLP has an `execute_tool` span per call under its chat span.
fn judged_counted_and_exported(trace: &std::path::Path) {
    let run = |args: &[&str]| {
        util::run(
            std::process::Command::new(util::bin()).args(args),
            Duration::from_secs(60),
        )
    };
    let path = trace.to_str().expect("a UTF-8 path");
    let out = run(&["doctor", path]);
    let doctor = util::text(&out.stdout);
    assert!(
        doctor.contains(
            "server weather (remote: the LLM API is its MCP client), https://weather.example/mcp"
        ),
        "{doctor}"
    );
    assert!(
        doctor.contains("get_weather: called 5× by the API's MCP client"),
        "{doctor}"
    );
    assert!(
        doctor.contains("remote server the LLM API connects to itself"),
        "{doctor}"
    );
    assert!(!doctor.contains("no MCP server in this trace"), "{doctor}");

    let out = run(&["check", path, "--expect-tool", "weather/get_weather"]);
    assert!(out.status.success(), "{out:?}");
    let out = run(&["check", path, "--forbid-tool", "get_weather"]);
    assert!(!out.status.success(), "{out:?}");
    let text = util::text(&out.stdout);
    assert!(text.matches("get_weather").count() >= 6, "{text}");
    let out = run(&["check", path, "--expect-tool", "get_forecast"]);
    assert!(!out.status.success(), "{out:?}");

    let dir = util::tempdir();
    let file = dir.path().join("spans.json");
    let out = util::export(trace, "otlp", &["--out", file.to_str().expect("path")]);
    assert!(out.status.success(), "{out:?}");
    let json = std::fs::read_to_string(&file).expect("spans");
    let spans: Vec<serde_json::Value> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|r| {
            r.pointer("/resourceSpans/0/scopeSpans/0/spans")
                .and_then(serde_json::Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let tools: Vec<&serde_json::Value> = spans
        .iter()
        .filter(|s| s["name"] == "execute_tool get_weather")
        .collect();
    assert_eq!(tools.len(), 6, "{json}");
    for tool in tools {
        let parent = spans
            .iter()
            .find(|s| s["spanId"] == tool["parentSpanId"])
            .expect("a parent span");
        assert!(
            parent["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("chat ")),
            "{parent}"
        );
    }
}

/// The diagram: a lane per remote server on the API's side, the API's MCP client's arrows to
/// it (list, calls with arguments and results, the approval round trip with the host), none
/// from the host; Mermaid, SVG and the handout's narration say the same.
fn drawn_as_the_apis_client(trace: &std::path::Path) {
    let out = util::export(trace, "mermaid", &[]);
    assert!(out.status.success(), "{out:?}");
    let mermaid = util::text(&out.stdout);
    let has = |needle: &str| mermaid.contains(needle);
    assert!(
        has("participant R1 as weather (remote: the LLM API is its MCP client)"),
        "{mermaid}"
    );
    assert!(has("participant R2 as nowhere (remote"), "{mermaid}");
    assert_eq!(
        mermaid.matches("L->>R1: tools/list").count(),
        3,
        "{mermaid}"
    );
    assert_eq!(
        mermaid
            .matches("L->>R1: tools/call get_weather {\"location\":\"Seoul\"}")
            .count(),
        5,
        "{mermaid}"
    );
    assert_eq!(mermaid.matches("R1-->>L: result Sunny, 24°C").count(), 5);
    assert!(has("L->>H: mcp_approval_request get_weather"), "{mermaid}");
    assert!(
        has("H-->>L: mcp_approval_response approve mcpr_01"),
        "{mermaid}"
    );
    assert!(has("L->>R2: tools/call get_weather"), "{mermaid}");
    assert!(
        has("Note over L: content#91;1#93; error unknown tool"),
        "{mermaid}"
    );
    for lane in ["R1", "R2"] {
        for from in ["H", "U"] {
            let arrow = format!("{from}->>{lane}");
            assert!(!has(&arrow), "{arrow} in {mermaid}");
        }
    }

    let out = util::export(trace, "svg", &[]);
    assert!(out.status.success(), "{out:?}");
    let svg = util::text(&out.stdout);
    // The API's client's 20 arrows, and the user's words of each request that opens a turn.
    let users = mermaid.matches("U->>H:").count();
    assert!(users >= 1, "{mermaid}");
    assert_eq!(
        svg.matches(r#"<g class="hop">"#).count(),
        20 + users,
        "{svg}"
    );
    assert!(svg.contains("tools/call get_weather"));

    let out = util::export(trace, "handout", &["--md", "--lang", "pt"]);
    assert!(out.status.success(), "{out:?}");
    let handout = util::text(&out.stdout);
    assert!(
        handout.contains("a plataforma da API é o host, com seu próprio cliente MCP"),
        "{handout}"
    );
    assert!(handout.contains("O próprio cliente MCP da API chamou weather/get_weather"));
}
