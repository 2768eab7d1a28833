//! Provider tests over real HTTP on 127.0.0.1, against tiny servers that return canned bytes.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::*;
use crate::tap::{MemorySink, Recorder};
use crate::trace::Event;
use crate::wire::reassemble::tests::{
    ANTHROPIC_STREAM, CHAT_STREAM, GEMINI_STREAM, RESPONSES_STREAM, anthropic_expected,
    chat_expected, gemini_expected, responses_expected,
};

pub(super) const KEY: &str = "sk-test-0123456789abcdef";

/// What the server read: the request head (request line and headers) and the body.
#[derive(Debug, Default)]
pub(super) struct Received {
    pub head: String,
    pub body: Vec<u8>,
}

impl Received {
    /// Header `(name, value)` pairs in wire order.
    pub fn headers(&self) -> Vec<(String, String)> {
        self.head
            .split("\r\n")
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string()))
            .collect()
    }
}

/// A one-connection server: reads one request, then writes `parts` with a short pause between
/// them (so a stream arrives in several reads) and closes. With no parts it never answers.
pub(super) async fn serve(parts: Vec<String>) -> (String, JoinHandle<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let task = tokio::spawn(async move {
        let Ok((mut socket, _)) = listener.accept().await else {
            return Received::default();
        };
        let received = read_request(&mut socket).await;
        if parts.is_empty() {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        for part in parts {
            let _ = socket.write_all(part.as_bytes()).await;
            let _ = socket.flush().await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let _ = socket.shutdown().await;
        received
    });
    (format!("http://127.0.0.1:{port}"), task)
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Received {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return Received::default(),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    Received { head, body }
}

/// A whole HTTP/1.1 response with a content-length.
pub(super) fn response(status: &str, headers: &[(&str, &str)], body: &str) -> Vec<String> {
    let mut text = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    vec![text]
}

/// A streamed response: no content-length, the body in pieces, the end marked by closing.
fn streamed(body: &str, piece: usize) -> Vec<String> {
    let mut parts = vec![
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n".to_string(),
    ];
    let mut rest = body;
    while !rest.is_empty() {
        let mut cut = piece.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        parts.push(rest[..cut].to_string());
        rest = &rest[cut..];
    }
    parts
}

pub(super) fn config(shape: ApiShape, base_url: &str, stream: bool) -> ProviderConfig {
    ProviderConfig {
        shape,
        base_url: base_url.to_string(),
        model: "m-1".to_string(),
        api_key: Some(KEY.to_string()),
        stream,
        timeout: Duration::from_secs(10),
        extra_headers: Vec::new(),
    }
}

pub(super) fn recorder() -> (Arc<Recorder>, MemorySink) {
    let sink = MemorySink::default();
    (Recorder::start(vec![Box::new(sink.clone())]), sink)
}

/// Every recorded event, after checking that none holds the key anywhere.
pub(super) fn finished(recorder: &Recorder, sink: &MemorySink) -> Vec<Event> {
    recorder.finish();
    let events = sink.snapshot();
    for event in &events {
        let line = serde_json::to_string(event).expect("serialize event");
        assert!(
            !line.contains(KEY),
            "the key is in event {}: {line}",
            event.seq
        );
    }
    events
}

fn http(event: &Event) -> &HttpInfo {
    event.http().expect("an llm-http event has http info")
}

#[tokio::test]
async fn anthropic_exchange_is_recorded_exactly_and_without_the_key() {
    let answer = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}"#;
    let canned = response(
        "200 OK",
        &[
            ("content-type", "application/json"),
            ("request-id", "req_1"),
            ("set-cookie", "session=s3cr3t; Path=/"),
        ],
        answer,
    );
    let (base, server) = serve(canned).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::Anthropic, &base, false)).expect("provider");
    let body = json!({"model": "claude-x", "max_tokens": 64, "messages": [{"role": "user", "content": "héllo"}]});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);

    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.body,
        serde_json::from_str::<Value>(answer).expect("json")
    );
    assert_eq!((reply.request_seq, reply.response_seq), (0, 1));
    assert_eq!(events.len(), 2);

    // The request: exactly the bytes the server read, headers in wire order, key redacted.
    let request = &events[0];
    assert_eq!((&request.from, &request.to), (&Lane::Host, &Lane::Llm));
    assert_eq!(request.channel, Channel::LlmHttp);
    assert_eq!(request.bytes().as_deref(), Some(received.body.as_slice()));
    assert_eq!(
        serde_json::from_slice::<Value>(&received.body).ok(),
        Some(body)
    );
    let info = http(request);
    assert_eq!(info.method.as_deref(), Some("POST"));
    assert_eq!(
        info.url.as_deref(),
        Some(format!("{base}/v1/messages").as_str())
    );
    assert!(received.head.starts_with("POST /v1/messages HTTP/1.1"));
    let on_wire = received.headers();
    assert!(
        on_wire.contains(&("x-api-key".into(), KEY.into())),
        "{on_wire:?}"
    );
    let mut expected = on_wire.clone();
    redact_headers(&mut expected);
    assert_eq!(
        info.headers,
        HttpInfo::headers_of(expected),
        "recorded headers = wire headers, redacted"
    );
    let names: Vec<_> = info.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "x-api-key",
            "anthropic-version",
            "content-type",
            "accept",
            "user-agent",
            "host",
            "content-length"
        ]
    );
    assert_eq!(info.headers[0].1, "[redacted]");
    assert_eq!(info.headers[1].1, "2023-06-01");

    // The response: status, headers (cookie redacted), body as received.
    let answer_event = &events[1];
    assert_eq!(
        (&answer_event.from, &answer_event.to),
        (&Lane::Llm, &Lane::Host)
    );
    assert_eq!(answer_event.raw.as_deref(), Some(answer));
    let info = http(answer_event);
    assert_eq!(info.status, Some(200));
    assert!(
        info.headers
            .contains(&("request-id".into(), "req_1".into()))
    );
    assert!(
        info.headers
            .contains(&("set-cookie".into(), "[redacted]".into()))
    );
}

#[tokio::test]
async fn openai_requests_carry_a_redacted_bearer_and_stream_true() {
    let (base, server) = serve(streamed(RESPONSES_STREAM, 97)).await;
    let (recorder, sink) = recorder();
    let mut config = config(ApiShape::Openai, &base, true);
    config.extra_headers = vec![("OpenAI-Project".into(), "proj_1".into())];
    let provider = Provider::new(config).expect("provider");
    let body = json!({"model": "gpt-x", "input": "hi"});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);

    assert!(received.head.starts_with("POST /v1/responses HTTP/1.1"));
    let sent: Value = serde_json::from_slice(&received.body).expect("json body");
    assert_eq!(
        sent,
        json!({"model": "gpt-x", "input": "hi", "stream": true})
    );
    assert_eq!(events[0].bytes().as_deref(), Some(received.body.as_slice()));
    let wire = received.headers();
    assert!(wire.contains(&("authorization".into(), format!("Bearer {KEY}"))));
    assert!(wire.contains(&("accept".into(), "text/event-stream".into())));
    let recorded = &http(&events[0]).headers;
    assert_eq!(
        recorded[0],
        ("authorization".into(), "Bearer [redacted]".into())
    );
    assert!(recorded.contains(&("openai-project".into(), "proj_1".into())));

    assert_eq!(reply.body, responses_expected());
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[1].raw.as_deref(),
        Some(RESPONSES_STREAM),
        "one event, exact SSE text"
    );
}

#[tokio::test]
async fn streamed_anthropic_answer_is_reassembled() {
    // Pieces of 7 bytes cut events, lines and the split `partial_json` fragments anywhere.
    let (base, server) = serve(streamed(ANTHROPIC_STREAM, 7)).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::Anthropic, &base, true)).expect("provider");
    let body = json!({"model": "claude-x", "max_tokens": 64, "messages": []});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);

    let sent: Value = serde_json::from_slice(&received.body).expect("json body");
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(reply.body, anthropic_expected());
    assert_eq!(
        reply.body["content"][1]["input"],
        json!({"city": "Paris", "days": 3})
    );
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].raw.as_deref(), Some(ANTHROPIC_STREAM));
    let info = http(&events[1]);
    assert_eq!(info.status, Some(200));
    assert_eq!(
        info.headers[0],
        (
            "content-type".into(),
            "text/event-stream; charset=utf-8".into()
        )
    );
}

#[tokio::test]
async fn streamed_chat_answer_is_reassembled_with_tool_call_fragments() {
    let (base, server) = serve(streamed(CHAT_STREAM, 64)).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::OpenaiChat, &base, true)).expect("provider");
    let body = json!({"model": "gpt-x", "messages": [], "stream": true});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);

    assert!(
        received
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1")
    );
    assert_eq!(received.body, serde_json::to_vec(&body).expect("bytes"));
    assert_eq!(reply.body, chat_expected());
    let calls = &reply.body["choices"][0]["message"]["tool_calls"];
    assert_eq!(
        calls[0]["function"]["arguments"],
        json!("{\"city\":\"Paris\"}")
    );
    assert_eq!(events[1].raw.as_deref(), Some(CHAT_STREAM));
}

#[tokio::test]
async fn loopback_needs_no_key_and_a_v1_base_is_not_doubled() {
    let canned = response("200 OK", &[("content-type", "application/json")], "{}");
    let (base, server) = serve(canned).await;
    let (recorder, sink) = recorder();
    let mut config = config(ApiShape::OpenaiChat, &format!("{base}/v1/"), false);
    config.api_key = None;
    let provider = Provider::new(config).expect("provider");
    assert_eq!(provider.url(), format!("{base}/v1/chat/completions"));
    let reply = provider.send(&json!({}), &recorder).await.expect("reply");
    assert_eq!(reply.body, json!({}));
    let received = server.await.expect("server");
    assert!(
        received
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1")
    );
    assert!(!received.headers().iter().any(|(n, _)| n == "authorization"));
    finished(&recorder, &sink);
}

#[test]
fn a_missing_key_off_this_machine_fails_before_sending() {
    for (shape, variable) in [
        (ApiShape::Anthropic, "ANTHROPIC_API_KEY"),
        (ApiShape::Openai, "OPENAI_API_KEY"),
    ] {
        let mut config = config(shape, shape.default_base_url(), false);
        config.api_key = Some(" ".into());
        let err = Provider::new(config).expect_err("no key");
        let url = format!("{}{}", shape.default_base_url(), shape.path());
        assert_eq!(
            err.to_string(),
            format!("{variable} is not set (needed to call {url})")
        );
    }
    let mut config = config(ApiShape::Anthropic, "http://localhost:1", false);
    config.api_key = None;
    assert!(Provider::new(config).is_ok(), "loopback needs no key");
}

#[test]
fn bad_configurations_are_refused_without_showing_the_key() {
    let err = Provider::new(config(ApiShape::Anthropic, "not a url", false)).expect_err("url");
    assert!(
        err.to_string().contains("the base URL is not a URL"),
        "{err}"
    );
    let err = Provider::new(config(ApiShape::Anthropic, "ftp://x", false)).expect_err("scheme");
    assert!(err.to_string().contains("http:// or https://"), "{err}");
    let mut bad_key = config(ApiShape::Openai, "https://api.openai.com", false);
    bad_key.api_key = Some(format!("{KEY}\n"));
    let err = Provider::new(bad_key.clone()).expect_err("key with a newline");
    assert!(
        err.to_string().contains("the API key has characters"),
        "{err}"
    );
    assert!(!err.to_string().contains(KEY));
    assert!(!format!("{bad_key:?}").contains(KEY), "Debug hides the key");
    let provider = Provider::new(config(ApiShape::Openai, "https://api.openai.com", false));
    let shown = format!("{:?}", provider.expect("provider"));
    assert!(!shown.contains(KEY), "{shown}");
}

/// Gemini: the model and the stream are in the URL (`:streamGenerateContent?alt=sse`), the body
/// gets no `stream` field, the key travels as `x-goog-api-key` and is recorded redacted.
#[tokio::test]
async fn gemini_streams_by_its_url_with_the_key_in_x_goog_api_key() {
    let (base, server) = serve(streamed(GEMINI_STREAM, 61)).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::Gemini, &base, true)).expect("provider");
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);

    assert!(
        received
            .head
            .starts_with("POST /v1beta/models/m-1:streamGenerateContent?alt=sse HTTP/1.1"),
        "{}",
        received.head
    );
    let sent: Value = serde_json::from_slice(&received.body).expect("json body");
    assert_eq!(sent, body, "no `stream` field for Gemini");
    assert!(
        received
            .headers()
            .contains(&("x-goog-api-key".into(), KEY.into()))
    );
    assert_eq!(reply.body, gemini_expected());
    let info = http(&events[0]);
    assert_eq!(
        info.url.as_deref(),
        Some(format!("{base}/v1beta/models/m-1:streamGenerateContent?alt=sse").as_str())
    );
    assert!(
        info.headers
            .contains(&("x-goog-api-key".into(), "[redacted]".into()))
    );
    assert_eq!(events[1].raw.as_deref(), Some(GEMINI_STREAM));
}

/// A JSON array answer (`streamGenerateContent` without `alt=sse`) is merged like the SSE one;
/// a base URL that ends in the API version keeps it.
#[tokio::test]
async fn gemini_json_array_answer_and_versioned_base_url() {
    let records: Vec<&str> = GEMINI_STREAM
        .split("\r\n\r\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .collect();
    let array = format!("[{}]", records.join("\n,\r\n"));
    let canned = response("200 OK", &[("content-type", "application/json")], &array);
    let (base, server) = serve(canned).await;
    let (recorder, sink) = recorder();
    let config = config(ApiShape::Gemini, &format!("{base}/v1/"), false);
    let provider = Provider::new(config).expect("provider");
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let reply = provider.send(&body, &recorder).await.expect("reply");
    let received = server.await.expect("server");
    finished(&recorder, &sink);
    assert!(
        received
            .head
            .starts_with("POST /v1/models/m-1:generateContent HTTP/1.1"),
        "{}",
        received.head
    );
    assert_eq!(reply.body, gemini_expected());
}
