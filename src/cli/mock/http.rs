//! The mock over Streamable HTTP, at `http://LISTEN/mcp`: the same axum serving, request
//! checks and bounded shutdown as the recording proxies (`tap::serve_with_grace`,
//! `tap::refuse_foreign`), answering from the recording.
//!
//! A `POST` of a request is answered with `application/json`, or with a Server-Sent Events
//! stream when the recording streamed it or the server sent anything with it (progress, a log,
//! a request of its own); a request the recording left unanswered (`subscriptions/listen`)
//! keeps its stream open. A `POST` of a notification or of the client's answer gets `202`.
//! What the recorded server sent on the standalone `GET` stream goes on the client's `GET`
//! stream (queued until the client opens one), and a `GET` is `405` when the recorded client
//! never opened one. The `initialize` answer carries the recorded `Mcp-Session-Id`; `DELETE`
//! ends nothing and gets `200`. Requests are answered one at a time, in the order they came.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use tokio::sync::{mpsc, watch};

use crate::analysis::mock::answer::{Mock, Reply, span};
use crate::cli::errors::Saying;
use crate::i18n::{Said, Words};
use crate::wire::sse::SseEvent;

/// The largest request body accepted ([`crate::trace::BODY_LIMIT`]).
const BODY_LIMIT: usize = crate::trace::BODY_LIMIT;

struct Served {
    mock: Mutex<Mock>,
    listen: SocketAddr,
    /// The recorded client opened the standalone `GET` stream; the recorded session id.
    listened: bool,
    session: Option<String>,
    streams: Mutex<Streams>,
    /// Becomes `true` on a stop signal: every open stream ends.
    stopping: watch::Receiver<bool>,
    words: Words<'static>,
}

/// The open response streams.
#[derive(Default)]
struct Streams {
    /// The client's `GET` stream, and what waits for one.
    get: Option<mpsc::UnboundedSender<String>>,
    queued: Vec<String>,
    /// The streams of turns that wait for the client's answer (or never end).
    turns: HashMap<u64, mpsc::UnboundedSender<String>>,
}

impl Streams {
    /// Sends `line` on the `GET` stream, or keeps it for the next one.
    fn listen(&mut self, line: String) {
        let line = match &self.get {
            Some(tx) => match tx.send(line) {
                Ok(()) => return,
                Err(mpsc::error::SendError(line)) => line,
            },
            None => line,
        };
        self.get = None;
        self.queued.push(line);
    }
}

/// Serves `mock` at `http://LISTEN/mcp` until a stop signal.
pub(super) fn serve(
    mock: Mock,
    listen: SocketAddr,
    words: Words<'static>,
    name: &str,
    count: usize,
) -> anyhow::Result<ExitCode> {
    let runtime = super::super::edges::proxy_runtime()?;
    runtime.block_on(async {
        let failed = |e: std::io::Error| {
            Saying(
                Said::new("cli_error.mock_listen")
                    .with("addr", listen)
                    .with_said("why", Said::io(&e)),
            )
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(failed)?;
        let addr = listener.local_addr().map_err(failed)?;
        let (stop, stopping) = watch::channel(false);
        let served = Arc::new(Served {
            listened: mock.recording().listened,
            session: mock.recording().session_id.clone(),
            mock: Mutex::new(mock),
            listen: addr,
            streams: Mutex::new(Streams::default()),
            stopping,
            words,
        });
        let router = axum::Router::new()
            .route("/mcp", axum::routing::any(handle))
            .with_state(served);
        let url = format!("http://{addr}/mcp");
        eprintln!(
            "{}",
            words.fmt(
                "mock_text.serving_http",
                &[("name", name), ("count", &count.to_string()), ("url", &url)]
            )
        );
        let stopped = async move {
            super::super::edges::stopped().await;
            let _ = stop.send(true);
        };
        let grace = super::super::edges::GRACE;
        crate::tap::serve_with_grace(listener, router, stopped, grace)
            .await
            .map_err(failed)?;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn handle(State(served): State<Arc<Served>>, request: Request) -> Response {
    if let Some(why) = crate::tap::refuse_foreign(request.headers(), served.listen) {
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    match *request.method() {
        Method::POST => {
            let body = request.into_body();
            match axum::body::to_bytes(body, BODY_LIMIT).await {
                Ok(body) => post(&served, &String::from_utf8_lossy(&body)),
                Err(e) => (StatusCode::PAYLOAD_TOO_LARGE, e.to_string()).into_response(),
            }
        }
        Method::GET => listen(&served),
        Method::DELETE => StatusCode::OK.into_response(),
        _ => not_allowed(),
    }
}

fn not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    let allow = HeaderValue::from_static("GET, POST, DELETE");
    response.headers_mut().insert(header::ALLOW, allow);
    response
}

fn post(served: &Served, body: &str) -> Response {
    let object = body.trim_start().starts_with('{') && span(body, &[]).is_some();
    let reply = match served.mock.lock() {
        Ok(mut mock) => mock.reply(body),
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let Reply::Send(lines) = reply else {
        return StatusCode::ACCEPTED.into_response();
    };
    if let Some(method) = &lines.unrecorded {
        let w = served.words;
        eprintln!("{}", w.fmt("mock_text.unrecorded", &[("method", method)]));
    }
    if !object {
        // Not a JSON-RPC message: the parse error, as the answer to a bad request.
        let text = lines.out.into_iter().map(|o| o.text).collect::<String>();
        let json = [(header::CONTENT_TYPE, "application/json")];
        return (StatusCode::BAD_REQUEST, json, text).into_response();
    }
    let request =
        !lines.resumed && span(body, &["method"]).is_some() && span(body, &["id"]).is_some();
    let initialize = span(body, &["method"]).is_some_and(|(s, e)| &body[s..e] == "\"initialize\"");
    let Ok(mut streams) = served.streams.lock() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    // What goes with the answer: a new request's own response, a resumed turn's open stream
    // (the answer to a notification, or a stream that is gone: the `GET` stream).
    let own_stream = match request {
        true => None,
        false => streams.turns.get(&lines.turn).cloned(),
    };
    let (own, elsewhere): (Vec<_>, Vec<_>) = lines
        .out
        .into_iter()
        .partition(|o| !o.listen && (request || own_stream.is_some()));
    elsewhere.into_iter().for_each(|o| streams.listen(o.text));
    let open = lines.more || !lines.answered;
    if !request {
        if let Some(tx) = own_stream {
            own.into_iter().for_each(|o| drop(tx.send(o.text)));
        }
        if !open {
            streams.turns.remove(&lines.turn);
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let mut response = match (own.as_slice(), lines.streamed || open) {
        ([one], false) => {
            let mut r = one.text.clone().into_response();
            let json = HeaderValue::from_static("application/json");
            r.headers_mut().insert(header::CONTENT_TYPE, json);
            r
        }
        _ => {
            let (tx, rx) = mpsc::unbounded_channel();
            own.into_iter().for_each(|o| drop(tx.send(o.text)));
            // A turn that waits for the client, or a request the recording left unanswered
            // (`subscriptions/listen`), keeps its stream open: until the turn ends, the client
            // leaves or the mock stops.
            if open {
                streams.turns.insert(lines.turn, tx);
            }
            sse(received(rx, served))
        }
    };
    if initialize
        && let Some(id) = served.session.as_deref()
        && let Ok(id) = HeaderValue::from_str(id)
    {
        response.headers_mut().insert("mcp-session-id", id);
    }
    response
}

/// The lines sent to `rx`, until its sender is dropped or the mock stops.
fn received(
    rx: mpsc::UnboundedReceiver<String>,
    served: &Served,
) -> futures_util::stream::BoxStream<'static, String> {
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (line, rx))
    });
    let mut stopping = served.stopping.clone();
    let stopped = async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    lines.take_until(stopped).boxed()
}

/// The client's standalone `GET` stream: what waited for it, then what comes.
fn listen(served: &Served) -> Response {
    if !served.listened {
        return not_allowed();
    }
    let (tx, rx) = mpsc::unbounded_channel();
    if let Ok(mut streams) = served.streams.lock() {
        for line in std::mem::take(&mut streams.queued) {
            let _ = tx.send(line);
        }
        streams.get = Some(tx);
    }
    sse(received(rx, served))
}

/// `lines` as a Server-Sent Events response, one `message` event each.
fn sse(lines: futures_util::stream::BoxStream<'static, String>) -> Response {
    let events = lines.map(|data| {
        let event = SseEvent {
            event: Some("message".into()),
            data,
            ..SseEvent::default()
        };
        Ok::<_, Infallible>(Bytes::from(event.text()))
    });
    let mut response = Body::from_stream(events).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
