use super::*;
use crate::tap::http_common::{forwarded_headers, secrets_in};
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

/// An upstream whose SSE body the test feeds chunk by chunk.
async fn feeding_upstream() -> (String, tokio::sync::mpsc::UnboundedSender<&'static str>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<&'static str>();
    let rx = Arc::new(tokio::sync::Mutex::new(Some(rx)));
    let route = axum::routing::post(move || {
        let rx = rx.clone();
        async move {
            let rx = rx.lock().await.take().expect("one request");
            let chunks = futures_util::stream::unfold(rx, |mut rx| async move {
                let chunk = rx.recv().await?;
                Some((Ok::<_, io::Error>(Bytes::from_static(chunk.as_bytes())), rx))
            });
            let mut response = Response::new(Body::from_stream(chunks));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = Router::new().route("/v1/messages", route);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{addr}"), tx)
}

#[tokio::test]
async fn sse_flows_unbuffered_and_a_client_leaving_mid_stream_is_recorded() {
    let sink = crate::tap::MemorySink::default();
    let recorder = Recorder::start(vec![Box::new(sink.clone())]);
    let (upstream, feed) = feeding_upstream().await;
    let listen = SocketAddr::from(([127, 0, 0, 1], 0));
    let proxy = LlmProxy::bind(listen, &upstream, recorder.clone())
        .await
        .expect("bind");
    let base = format!("http://{}", proxy.local_addr());
    tokio::spawn(proxy.serve(std::future::pending(), Duration::ZERO));
    let client = crate::tap::client::http()
        .no_proxy()
        .build()
        .expect("client");
    let mut response = client
        .post(format!("{base}/v1/messages"))
        .header("x-api-key", "sk-ant-SECRET")
        .body("{}")
        .send()
        .await
        .expect("response");
    assert_eq!(response.status(), 200);
    // Each event reaches the client before the upstream sends the next one.
    for event in ["event: ping\ndata: {}\n\n", "data: {\"n\":1}\n\n"] {
        feed.send(event).expect("feed");
        let chunk = tokio::time::timeout(Duration::from_secs(5), response.chunk())
            .await
            .expect("the event was held back")
            .expect("chunk")
            .expect("not the end");
        assert_eq!(chunk, event.as_bytes());
    }
    drop(response);
    drop(client);
    // The proxy notices the client is gone when it next writes.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let events = loop {
        let events = sink.snapshot();
        if events.iter().any(|e| e.channel == Channel::Note) {
            break events;
        }
        assert!(tokio::time::Instant::now() < deadline, "{events:#?}");
        let _ = feed.send("data: {\"n\":2}\n\n");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let response = events
        .iter()
        .find(|e| e.from == Lane::Llm && e.channel == Channel::LlmHttp)
        .expect("the response was recorded");
    assert!(
        response
            .text()
            .starts_with("event: ping\ndata: {}\n\ndata: {\"n\":1}\n\n"),
        "{}",
        response.text()
    );
    let note = events
        .iter()
        .find(|e| e.channel == Channel::Note)
        .expect("note");
    assert!(
        note.text().contains("client disconnected"),
        "{}",
        note.text()
    );
    assert!(note.seq > response.seq);
    recorder.finish();
    let all = format!("{:?}", sink.snapshot());
    assert!(!all.contains("SECRET"), "{all}");
}

#[test]
fn hop_by_hop_headers_and_the_ones_connection_names_are_dropped() {
    let mut headers = HeaderMap::new();
    headers.insert("connection", HeaderValue::from_static("keep-alive, x-hop"));
    headers.insert("x-hop", HeaderValue::from_static("1"));
    headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
    headers.insert("host", HeaderValue::from_static("127.0.0.1:1"));
    headers.insert("x-api-key", HeaderValue::from_static("sk-ant-SECRET"));
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    let out = forwarded_headers(&headers);
    let names: Vec<&str> = out.keys().map(HeaderName::as_str).collect();
    assert_eq!(names, ["x-api-key", "content-type"]);
    assert!(is_hop_by_hop(&header::TRANSFER_ENCODING));
}

#[test]
fn secrets_come_from_credential_headers_without_their_scheme() {
    let mut headers = HeaderMap::new();
    headers.insert(
        "authorization",
        HeaderValue::from_static("Bearer sk-SECRET-1234"),
    );
    headers.insert(
        "cookie",
        HeaderValue::from_static("a=short; session=abcdefghij"),
    );
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    let secrets = secrets_in(&headers);
    assert!(
        secrets.contains(&"sk-SECRET-1234".to_string()),
        "{secrets:?}"
    );
    assert!(secrets.contains(&"abcdefghij".to_string()), "{secrets:?}");
    assert!(!secrets.iter().any(|s| s.contains("json")));
}
