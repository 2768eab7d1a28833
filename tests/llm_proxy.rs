//! `sightline llm-proxy` as a real process in front of the scripted model: bodies pass through
//! byte for byte, streams reassemble, every exchange is recorded once, and no key is recorded.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline::host::scripted::{Script, ScriptedModel};
use sightline::trace::{Channel, Event, Lane};
use sightline::wire::api::ApiShape;
use sightline::wire::reassemble::reassemble;
use sightline::wire::sse::SseParser;

use crate::util::{self, free_port, header};

const SCRIPT: &str = r#"
[[script]]
say = "Let me check."
call = [{ tool = "get_weather", arguments = { location = "Seoul" } }]
"#;

const ANTHROPIC_KEY: &str = "sk-ant-SECRET";
const OPENAI_KEY: &str = "sk-SECRET";
const QUERY_KEY: &str = "qk-SECRET-in-the-url";

/// Starts `sightline llm-proxy` and waits until it accepts connections.
pub(crate) fn start_proxy(upstream: &str, trace: &Path) -> (Child, u16) {
    let port = free_port();
    let child = Command::new(util::bin())
        .args(["llm-proxy", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--upstream", upstream, "--trace"])
        .arg(trace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sightline llm-proxy");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "llm-proxy never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, port)
}

/// SIGTERM, then its output once it has flushed the trace and exited.
pub(crate) fn stop(child: Child) -> String {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: signalling a child we spawned and have not yet reaped.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let out = util::wait_with_deadline(child, Duration::from_secs(15));
    assert!(out.status.success(), "llm-proxy exit: {out:?}");
    util::text(&out.stderr)
}

fn request(shape: ApiShape, stream: bool) -> Value {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}}});
    match shape {
        ApiShape::Anthropic => json!({
            "model": "scripted", "max_tokens": 256, "stream": stream,
            "tools": [{"name": "get_weather", "description": "d", "input_schema": schema}],
            "messages": [{"role": "user", "content": "Weather in Seoul?"}]
        }),
        ApiShape::Openai => json!({
            "model": "scripted", "stream": stream,
            "tools": [{"type": "function", "name": "get_weather", "description": "d", "parameters": schema}],
            "input": [{"role": "user", "content": "Weather in Seoul?"}]
        }),
        ApiShape::OpenaiChat if stream => json!({
            "model": "scripted", "stream": true, "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function":
                {"name": "get_weather", "description": "d", "parameters": schema}}],
            "messages": [{"role": "user", "content": "Weather in Seoul?"}]
        }),
        ApiShape::OpenaiChat => json!({
            "model": "scripted", "stream": stream,
            "tools": [{"type": "function", "function":
                {"name": "get_weather", "description": "d", "parameters": schema}}],
            "messages": [{"role": "user", "content": "Weather in Seoul?"}]
        }),
        // Gemini asks for a stream in its URL (`gemini_through_llm_proxy`).
        ApiShape::Gemini => json!({
            "contents": [{"role": "user", "parts": [{"text": "Weather in Seoul?"}]}],
            "tools": [{"functionDeclarations": [
                {"name": "get_weather", "description": "d", "parametersJsonSchema": schema}]}]
        }),
    }
}

/// The path (and query) each shape is posted to; the Anthropic one carries a key in the query.
fn path(shape: ApiShape) -> String {
    match shape {
        ApiShape::Anthropic => format!("{}?beta=true&key={QUERY_KEY}", shape.path()),
        _ => shape.path().to_string(),
    }
}

struct Reply {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

async fn post(client: &reqwest::Client, base: &str, shape: ApiShape, body: &[u8]) -> Reply {
    let mut req = client
        .post(format!("{base}{}", path(shape)))
        .header("content-type", "application/json")
        .body(body.to_vec());
    req = match shape {
        ApiShape::Anthropic => req
            .header("x-api-key", ANTHROPIC_KEY)
            .header("anthropic-version", "2023-06-01"),
        _ => req.header("authorization", format!("Bearer {OPENAI_KEY}")),
    };
    let response = req.send().await.expect("POST");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = response.bytes().await.expect("body").to_vec();
    Reply {
        status,
        content_type,
        body,
    }
}

/// The body with the clock-dependent `created` / `created_at` numbers zeroed.
fn without_clock(body: &[u8]) -> String {
    let text = String::from_utf8(body.to_vec()).expect("UTF-8 body");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\"created") {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let colon = tail.find(':').expect("a field");
        out.push_str(&tail[..=colon]);
        let value = &tail[colon + 1..];
        let digits = value.len() - value.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('0');
        }
        rest = &value[digits..];
    }
    out.push_str(rest);
    out
}

/// Drops the clock-dependent fields, and a Chat `refusal: null` (a stream has no such delta).
fn strip_created(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("created");
            map.remove("created_at");
            if map.get("refusal") == Some(&Value::Null) {
                map.remove("refusal");
            }
            map.values_mut().for_each(strip_created);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_created),
        _ => {}
    }
}

/// Waits until the trace holds `n` `llm-http` events (the response is recorded as its stream
/// ends, and written by the recorder thread a moment later).
pub(crate) fn llm_events(trace: &Path, n: usize) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events: Vec<Event> = util::load(trace)
            .events
            .into_iter()
            .filter(|e| e.channel == Channel::LlmHttp)
            .collect();
        if events.len() >= n || Instant::now() > deadline {
            return events;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn llm_proxy_passes_every_shape_through_unchanged_and_records_no_key() {
    let dir = util::tempdir();
    let trace = dir.path().join("llm.jsonl");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let script = Script::from_toml(SCRIPT).expect("script");
    let model = runtime
        .block_on(ScriptedModel::start(
            script,
            SocketAddr::from(([127, 0, 0, 1], 0)),
        ))
        .expect("scripted model");
    let upstream = model.base_url();
    let (proxy, port) = start_proxy(&upstream, &trace);
    let proxied = format!("http://127.0.0.1:{port}");
    let client = sightline::tap::client::http()
        .no_proxy()
        .build()
        .expect("client");

    let mut exchanges = Vec::new();
    // Gemini streams by its URL, not its body: `gemini_through_llm_proxy` has it.
    for shape in [ApiShape::Anthropic, ApiShape::Openai, ApiShape::OpenaiChat] {
        for stream in [false, true] {
            let body = serde_json::to_vec(&request(shape, stream)).expect("json");
            let direct = runtime.block_on(post(&client, &upstream, shape, &body));
            let through = runtime.block_on(post(&client, &proxied, shape, &body));
            assert_eq!(through.status, 200, "{shape:?} stream={stream}");
            assert_eq!(through.status, direct.status);
            assert_eq!(through.content_type, direct.content_type);
            assert_eq!(
                without_clock(&through.body),
                without_clock(&direct.body),
                "{shape:?} stream={stream}: the body changed on the way"
            );
            exchanges.push((shape, stream, body, through.body));
        }
    }

    let events = llm_events(&trace, 2 * exchanges.len());
    assert_eq!(events.len(), 2 * exchanges.len(), "{events:#?}");
    let mut plain: Option<Value> = None;
    for ((shape, stream, sent, received), pair) in exchanges.iter().zip(events.chunks(2)) {
        let (req, resp) = (&pair[0], &pair[1]);
        let what = format!("{shape:?} stream={stream}");
        assert_eq!((&req.from, &req.to), (&Lane::Host, &Lane::Llm), "{what}");
        assert_eq!((&resp.from, &resp.to), (&Lane::Llm, &Lane::Host), "{what}");
        let info = req.http().expect("request http info");
        assert_eq!(info.method.as_deref(), Some("POST"));
        let expected_url = match shape {
            ApiShape::Anthropic => format!("{upstream}{}?beta=true&key=[redacted]", shape.path()),
            _ => format!("{upstream}{}", shape.path()),
        };
        assert_eq!(info.url.as_deref(), Some(expected_url.as_str()), "{what}");
        match shape {
            ApiShape::Anthropic => {
                assert_eq!(header(req, "x-api-key"), Some("[redacted]"));
                assert_eq!(header(req, "anthropic-version"), Some("2023-06-01"));
            }
            _ => assert_eq!(header(req, "authorization"), Some("Bearer [redacted]")),
        }
        assert_eq!(
            req.bytes().expect("request body").as_ref(),
            &sent[..],
            "{what}"
        );
        assert_eq!(resp.http().and_then(|h| h.status), Some(200));
        assert_eq!(
            resp.bytes().expect("response body").as_ref(),
            &received[..],
            "{what}: the recorded response is not what the client got"
        );
        let mut body: Value = if *stream {
            let events = SseParser::parse(received);
            assert!(events.len() > 2, "{what}: {} SSE events", events.len());
            reassemble(*shape, &events).expect("reassembles")
        } else {
            serde_json::from_slice(received).expect("JSON body")
        };
        strip_created(&mut body);
        if *shape == ApiShape::OpenaiChat {
            // The scripted model counts prompt tokens by request size, and the streamed Chat
            // request is longer by its `stream_options`.
            body.as_object_mut().map(|o| o.remove("usage"));
        }
        match plain.take() {
            None => plain = Some(body),
            Some(plain) => assert_eq!(body, plain, "{what}: reassembled stream != plain body"),
        }
    }

    // A non-streamed round trip, direct and through the proxy, for the record.
    let body = serde_json::to_vec(&request(ApiShape::Anthropic, false)).expect("json");
    let time = |base: &str| {
        let start = Instant::now();
        for _ in 0..50 {
            runtime.block_on(post(&client, base, ApiShape::Anthropic, &body));
        }
        start.elapsed() / 50
    };
    let (direct, through) = (time(&upstream), time(&proxied));
    eprintln!(
        "llm-proxy round trip (non-streamed, mean of 50): direct {direct:?}, through the proxy \
         {through:?}, added {:?}",
        through.saturating_sub(direct)
    );

    let stderr = stop(proxy);
    assert!(
        stderr.contains(&format!("listening on http://127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(stderr.contains(&trace.display().to_string()), "{stderr}");
    let file = std::fs::read_to_string(&trace).expect("trace");
    for secret in [ANTHROPIC_KEY, OPENAI_KEY, QUERY_KEY, "SECRET"] {
        assert!(!file.contains(secret), "`{secret}` reached the trace");
    }

    let out = util::run(
        Command::new(util::bin()).arg("summary").arg(&trace),
        Duration::from_secs(20),
    );
    let summary = util::text(&out.stdout);
    for line in [
        "anthropic request: 1 tool [get_weather]",
        "openai request: 1 tool [get_weather]",
        "openai-chat request: 1 tool [get_weather]",
        "(streamed)",
    ] {
        assert!(summary.contains(line), "no `{line}` in:\n{summary}");
    }
    runtime.block_on(model.shutdown());
}

#[test]
fn an_unreachable_upstream_gets_502_and_a_note() {
    let dir = util::tempdir();
    let trace = dir.path().join("down.jsonl");
    let dead = format!("http://127.0.0.1:{}", free_port());
    let (proxy, port) = start_proxy(&dead, &trace);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let client = sightline::tap::client::http()
        .no_proxy()
        .build()
        .expect("client");
    let body = serde_json::to_vec(&request(ApiShape::OpenaiChat, false)).expect("json");
    let reply = runtime.block_on(post(
        &client,
        &format!("http://127.0.0.1:{port}"),
        ApiShape::OpenaiChat,
        &body,
    ));
    assert_eq!(reply.status, 502);
    let error: Value = serde_json::from_slice(&reply.body).expect("a JSON error body");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot reach the upstream")),
        "{error}"
    );
    stop(proxy);
    let events = util::load(&trace).events;
    assert!(
        events
            .iter()
            .any(|e| e.channel == Channel::Note && e.text().contains("cannot reach the upstream")),
        "{events:#?}"
    );
    let file = std::fs::read_to_string(&trace).expect("trace");
    assert!(!file.contains("SECRET"));
}

#[test]
fn llm_proxy_refuses_a_remote_listen_address_unless_allowed() {
    let out = util::run(
        Command::new(util::bin()).args([
            "llm-proxy",
            "--listen",
            "0.0.0.0:0",
            "--upstream",
            "http://127.0.0.1:9",
            "--trace",
            "/dev/null",
        ]),
        Duration::from_secs(20),
    );
    assert!(!out.status.success());
    assert!(util::text(&out.stderr).contains("--allow-remote"));
}

/// Sightline's own host, `sightline run`, through the proxy: the host's trace and the proxy's
/// trace hold the same LLM exchanges, byte for byte.
#[test]
fn sightline_run_through_the_llm_proxy_sees_what_the_proxy_records() {
    let dir = util::tempdir();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/weather.toml");
    let text = std::fs::read_to_string(&scenario).expect("scenario");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let model = runtime
        .block_on(ScriptedModel::start(
            Script::from_toml(&text).expect("script"),
            SocketAddr::from(([127, 0, 0, 1], 0)),
        ))
        .expect("scripted model");
    let proxy_trace = dir.path().join("proxy.jsonl");
    let run_trace = dir.path().join("run.jsonl");
    let (proxy, port) = start_proxy(&model.base_url(), &proxy_trace);
    let mut total = 0;
    for (provider, stream) in [
        ("anthropic", true),
        ("openai-chat", false),
        ("gemini", true),
    ] {
        let mut cmd = Command::new(util::bin());
        cmd.arg("run")
            .arg(&scenario)
            .args(["--provider", provider, "--model", "scripted-via-proxy"])
            .args(["--base-url", &format!("http://127.0.0.1:{port}")])
            .arg("--trace")
            .arg(&run_trace)
            .arg("--no-summary")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY");
        if stream {
            cmd.arg("--stream");
        }
        let out = util::run(&mut cmd, Duration::from_secs(60));
        assert!(out.status.success(), "{provider}: {out:?}");
        let host: Vec<Event> = util::load(&run_trace)
            .events
            .into_iter()
            .filter(|e| e.channel == Channel::LlmHttp)
            .collect();
        assert_eq!(host.len(), 4, "{provider}: two exchanges: {host:#?}");
        total += host.len();
        let recorded = llm_events(&proxy_trace, total);
        assert_eq!(recorded.len(), total, "{provider}: one event per message");
        let recorded = &recorded[recorded.len() - host.len()..];
        for (h, p) in host.iter().zip(recorded) {
            assert_eq!((&h.from, &h.to), (&p.from, &p.to));
            assert_eq!(h.bytes(), p.bytes(), "{provider}: a body differs");
        }
    }
    stop(proxy);
    runtime.block_on(model.shutdown());
    // The proxy notes when each answer's headers came: time to first byte, then to last.
    let out = util::run(
        Command::new(util::bin())
            .args(["stats", "--json", "--by", "model"])
            .arg(&proxy_trace),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    let timed = v["llm"].as_array().expect("llm requests");
    assert_eq!(timed.len(), total / 2, "{v:#}");
    for r in timed {
        let first = r["first_byte_us"].as_i64().expect("first byte noted");
        let last = r["last_byte_us"].as_i64().expect("last byte");
        assert!((0..=last).contains(&first), "{r:#}");
    }
}
