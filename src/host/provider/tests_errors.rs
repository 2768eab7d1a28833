//! Failing exchanges: each error is one line naming the URL, and the trace ends with the
//! failing exchange (the response when one arrived, else a note saying why none did).

use std::time::{Duration, Instant};

use serde_json::json;

use super::tests::{config, finished, recorder, response, serve};
use super::*;
use crate::trace::Event;

/// Sends a small request to a server answering `parts`; returns the error and the trace.
async fn fail(shape: ApiShape, parts: Vec<String>) -> (String, ProviderError, Vec<Event>) {
    let (base, server) = serve(parts).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(shape, &base, false)).expect("provider");
    let err = provider
        .send(&json!({"model": "m"}), &recorder)
        .await
        .expect_err("an error");
    server.abort();
    let events = finished(&recorder, &sink);
    assert!(!err.to_string().contains('\n'), "one line: {err}");
    assert!(
        err.to_string().contains(provider.url()),
        "names the URL: {err}"
    );
    (provider.url().to_string(), err, events)
}

/// The trace is the request then the response with `status` and `body`.
fn ends_with_response(events: &[Event], status: u16, body: &str) {
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].channel, Channel::LlmHttp);
    let last = &events[1];
    assert_eq!((&last.from, &last.to), (&Lane::Llm, &Lane::Host));
    assert_eq!(last.channel, Channel::LlmHttp);
    assert_eq!(last.http().and_then(|h| h.status), Some(status));
    assert_eq!(last.raw.as_deref(), Some(body));
}

/// The trace is the request then a note from the LLM lane with the error's text.
fn ends_with_note(events: &[Event], err: &ProviderError) {
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].channel, Channel::LlmHttp);
    let note = &events[1];
    assert_eq!(note.channel, Channel::Note);
    assert_eq!((&note.from, &note.to), (&Lane::Llm, &Lane::Host));
    assert_eq!(note.raw.as_deref(), Some(err.to_string().as_str()));
}

#[tokio::test]
async fn connection_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let base = format!("http://127.0.0.1:{port}");
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::Anthropic, &base, false)).expect("provider");
    let err = provider
        .send(&json!({"model": "m"}), &recorder)
        .await
        .expect_err("refused");
    let events = finished(&recorder, &sink);
    let text = err.to_string();
    assert!(matches!(err, ProviderError::Unreachable { .. }), "{err:?}");
    assert!(
        text.starts_with(&format!("cannot reach {base}/v1/messages: ")),
        "{text}"
    );
    assert!(text.to_lowercase().contains("refused"), "{text}");
    assert!(!text.contains('\n'));
    ends_with_note(&events, &err);
}

#[tokio::test]
async fn unauthorized_names_the_key_variable() {
    let body =
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    let canned = response(
        "401 Unauthorized",
        &[("content-type", "application/json")],
        body,
    );
    let (url, err, events) = fail(ApiShape::Anthropic, canned).await;
    assert_eq!(
        err.to_string(),
        format!("{url} refused the API key (401): invalid x-api-key (check ANTHROPIC_API_KEY)")
    );
    assert_eq!(err.status(), Some(401));
    ends_with_response(&events, 401, body);
}

#[tokio::test]
async fn forbidden_for_openai() {
    let body = r#"{"error":{"message":"You do not have access to this model.","type":"invalid_request_error","code":null}}"#;
    let canned = response(
        "403 Forbidden",
        &[("content-type", "application/json")],
        body,
    );
    let (url, err, events) = fail(ApiShape::OpenaiChat, canned).await;
    assert_eq!(
        err.to_string(),
        format!(
            "{url} refused the API key (403): You do not have access to this model. (check OPENAI_API_KEY)"
        )
    );
    ends_with_response(&events, 403, body);
}

#[tokio::test]
async fn rate_limited_with_retry_after() {
    let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#;
    let headers = [
        ("content-type", "application/json"),
        ("retry-after", "17"),
        ("anthropic-ratelimit-requests-remaining", "0"),
    ];
    let (url, err, events) = fail(
        ApiShape::Anthropic,
        response("429 Too Many Requests", &headers, body),
    )
    .await;
    assert_eq!(
        err.to_string(),
        format!(
            "rate limited by {url} (429), retry after 17 s: Number of requests has exceeded your rate limit"
        )
    );
    assert_eq!(err.retry_after(), Some(Duration::from_secs(17)));
    ends_with_response(&events, 429, body);
    let recorded = &events[1].http().expect("http").headers;
    assert!(recorded.contains(&("retry-after".into(), "17".into())));
    assert!(recorded.contains(&("anthropic-ratelimit-requests-remaining".into(), "0".into())));
}

#[tokio::test]
async fn server_error() {
    let body = r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;
    let canned = response(
        "500 Internal Server Error",
        &[("content-type", "application/json")],
        body,
    );
    let (url, err, events) = fail(ApiShape::Anthropic, canned).await;
    assert_eq!(
        err.to_string(),
        format!("{url} answered 500: Internal server error")
    );
    ends_with_response(&events, 500, body);
}

#[tokio::test]
async fn a_body_that_is_not_json() {
    let body = "<html>\n<head><title>Gateway</title></head>\n<body>".to_string() + &"x".repeat(300);
    let canned = response("200 OK", &[("content-type", "text/html")], &body);
    let (url, err, events) = fail(ApiShape::OpenaiChat, canned).await;
    let text = err.to_string();
    let prefix = format!(
        "{url} answered 200 with a body that is not JSON: <html> <head><title>Gateway</title></head> <body>xxx"
    );
    assert!(text.starts_with(&prefix), "{text}");
    assert!(text.ends_with('…'), "cut at 200 characters: {text}");
    ends_with_response(&events, 200, &body);
}

#[tokio::test]
async fn a_stream_that_breaks_off_is_recorded_then_refused() {
    let parts = vec![
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n".to_string(),
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[],\"stop_reason\":null}}\n\n".to_string(),
    ];
    let raw = parts[1].clone();
    let (url, err, events) = fail(ApiShape::Anthropic, parts).await;
    assert_eq!(
        err.to_string(),
        format!(
            "{url} answered 200 with a stream that could not be reassembled: the stream ended before `message_stop`"
        )
    );
    ends_with_response(&events, 200, &raw);
}

#[tokio::test]
async fn timeout_when_the_server_never_answers() {
    let (base, server) = serve(Vec::new()).await;
    let (recorder, sink) = recorder();
    let mut config = config(ApiShape::Openai, &base, false);
    config.timeout = Duration::from_millis(300);
    let provider = Provider::new(config).expect("provider");
    let started = Instant::now();
    let err = provider
        .send(&json!({"model": "m"}), &recorder)
        .await
        .expect_err("timeout");
    let waited = started.elapsed();
    server.abort();
    let events = finished(&recorder, &sink);
    assert!(waited >= Duration::from_millis(290), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(
        err.to_string(),
        format!("no response from {base}/v1/responses within 0.3 s")
    );
    ends_with_note(&events, &err);
}

#[tokio::test]
async fn timeout_in_the_middle_of_a_body() {
    // Headers and part of the body, then silence: the partial response is recorded, then a note.
    let parts = vec![
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"id\":"
            .to_string(),
    ];
    let (base, server) = serve_then_hang(parts).await;
    let (recorder, sink) = recorder();
    let mut config = config(ApiShape::Anthropic, &base, false);
    config.timeout = Duration::from_millis(300);
    let provider = Provider::new(config).expect("provider");
    let err = provider
        .send(&json!({"model": "m"}), &recorder)
        .await
        .expect_err("timeout");
    server.abort();
    let events = finished(&recorder, &sink);
    assert_eq!(
        err.to_string(),
        format!(
            "{base}/v1/messages did not finish its response within 0.3 s (200, 6 bytes received)"
        )
    );
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[1].raw.as_deref(), Some("{\"id\":"));
    assert_eq!(events[2].channel, Channel::Note);
    assert_eq!(events[2].raw.as_deref(), Some(err.to_string().as_str()));
}

/// Like `serve`, but keeps the connection open without a word after writing `parts`.
async fn serve_then_hang(parts: Vec<String>) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let task = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let Ok((mut socket, _)) = listener.accept().await else {
            return;
        };
        let mut buf = [0u8; 4096];
        let _ = socket.read(&mut buf).await;
        for part in parts {
            let _ = socket.write_all(part.as_bytes()).await;
        }
        tokio::time::sleep(Duration::from_secs(60)).await;
    });
    (format!("http://127.0.0.1:{port}"), task)
}

/// A request that hands the API a remote MCP server's token (Anthropic's MCP connector): the
/// server gets it, the trace does not, in the request or in a response that echoes it.
#[tokio::test]
async fn a_remote_servers_token_is_sent_but_never_recorded() {
    const TOKEN: &str = "mcp-oauth-token-0123456789";
    let echo = format!(
        r#"{{"type":"error","error":{{"type":"invalid_request_error","message":"token {TOKEN} refused"}}}}"#
    );
    let (base, server) = serve(response("400 Bad Request", &[], &echo)).await;
    let (recorder, sink) = recorder();
    let provider = Provider::new(config(ApiShape::Anthropic, &base, false)).expect("provider");
    let body = json!({"model": "m", "messages": [], "mcp_servers": [
        {"type": "url", "url": "https://r.example/mcp", "name": "r", "authorization_token": TOKEN}
    ]});
    let _ = provider.send(&body, &recorder).await;
    let received = server.await.expect("server");
    let events = finished(&recorder, &sink);
    assert!(String::from_utf8_lossy(&received.body).contains(TOKEN));
    assert_eq!(events.len(), 2, "{events:?}");
    for event in &events {
        let line = serde_json::to_string(event).expect("serialize");
        assert!(
            !line.contains(TOKEN),
            "the token is in event {}: {line}",
            event.seq
        );
        let bytes = event.bytes().expect("a body");
        let ranges = &event.http().expect("http").redacted;
        assert_eq!(ranges.len(), 1, "said where: {line}");
        let [start, end] = ranges[0];
        assert_eq!(&bytes[start..end], b"[redacted]");
    }
}
