//! Replaying to a Streamable HTTP server: through the ordinary HTTP recording proxy
//! ([`crate::tap::http_proxy`]) on a loopback port, so the replay is recorded exactly as a
//! host's session through `sightline proxy --http` would be.
//!
//! Each recorded message is one `POST` with its recorded headers, except those of the old
//! connection and session (`Host`, `Content-Length`, `Mcp-Session-Id`, hop-by-hop ones) and
//! any the recording redacted: the session id is the one the new server gives. The answer is
//! read from a JSON body or from the response's event stream, where the server's own requests
//! are answered from the recording (a `POST` each). A `4xx` without a JSON-RPC answer is a
//! rejection, reported as a difference; a server that cannot be reached stops the replay.
//!
//! Where the recorded client opened the standalone `GET` stream, the replay opens it at the
//! same point (after as many messages, with its recorded headers and the new session's id) and
//! waits for its response headers, so the server has it before the next message; the
//! server's requests that arrive there get the recorded answers (a `POST` each), whether they
//! come while an answer is awaited or between two messages. A `405` means the server offers
//! no stream: nothing more is done. A recorded `DELETE` ends the new session too; the stream is
//! closed at the end.

use std::cell::RefCell;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{Answers, Connection, Listen, Outcome, Plan, Rec, ReplayError, Replayed, Step};
use crate::i18n::Said;
use crate::tap::http_proxy::HttpProxy;
use crate::trace::{Lane, Shared};
use crate::wire::sse::SseParser;

/// Recorded headers not sent again: the old connection's and session's.
const NOT_REPLAYED: [&str; 9] = [
    "host",
    "content-length",
    "mcp-session-id",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "accept-encoding",
    "last-event-id",
    "te",
];

struct Http {
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
    /// The proxy's address, `http://127.0.0.1:PORT/`.
    url: String,
    session: Option<HeaderValue>,
    /// The revision to name in `MCP-Protocol-Version` when the recording has no headers (a
    /// stdio recording replayed over HTTP): the one the new server's `initialize` chose.
    version: Option<String>,
    timeout: Duration,
    /// Requests the recording never saw answered (a listen stream), left running.
    background: Vec<tokio::task::JoinHandle<()>>,
    /// Where the recording opened the standalone `GET` stream, until the replay opens it.
    listen: Option<Listen>,
    listening: Option<Listening>,
    /// Messages sent so far, of `steps`.
    sent: usize,
    steps: usize,
}

/// The standalone `GET` stream, once opened: the task reading it, and the server's requests
/// that came on it, for the driving thread to answer (it holds the recorded answers).
struct Listening {
    requests: mpsc::UnboundedReceiver<Value>,
    task: tokio::task::JoinHandle<()>,
}

/// Whether `response` is an event stream.
fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"))
}

impl Http {
    fn headers(&self, recorded: &[(Shared, Shared)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in recorded {
            let lower = name.to_ascii_lowercase();
            if NOT_REPLAYED.contains(&lower.as_str()) || value.contains("[redacted]") {
                continue;
            }
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(lower.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                map.append(n, v);
            }
        }
        let defaults = [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        for (name, value) in defaults {
            if !map.contains_key(name) {
                map.insert(name, HeaderValue::from_static(value));
            }
        }
        if !map.contains_key("mcp-protocol-version")
            && let Some(v) = self
                .version
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
        {
            map.insert("mcp-protocol-version", v);
        }
        if let Some(session) = &self.session {
            map.insert("mcp-session-id", session.clone());
        }
        map
    }

    fn post(&self, headers: HeaderMap, body: String) -> reqwest::RequestBuilder {
        self.client.post(&self.url).headers(headers).body(body)
    }

    /// Opens the standalone `GET` stream as the recording did, and waits (up to the timeout)
    /// for its response headers: from then on the server has it. Its requests are passed on
    /// to [`answer_listened`](Self::answer_listened) and to a waiting exchange.
    fn open_stream(&mut self, listen: &Listen) {
        let recorded = |name: &str| {
            listen
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        let mut headers = self.headers(&listen.headers);
        if !recorded("content-type") {
            headers.remove("content-type");
        }
        if !recorded("accept") {
            headers.insert("accept", HeaderValue::from_static("text/event-stream"));
        }
        let request = self.client.get(&self.url).headers(headers);
        let (tx, requests) = mpsc::unbounded_channel();
        let (opened_tx, opened) = oneshot::channel::<()>();
        let task = self.rt.spawn(async move {
            let Ok(mut response) = request.send().await else {
                return;
            };
            let _ = opened_tx.send(());
            // A 405 (no stream offered) or any other answer: read to its end (so the tap
            // records it), nothing to answer.
            if !is_event_stream(&response) {
                let _ = response.bytes().await;
                return;
            }
            let mut parser = SseParser::new();
            while let Ok(Some(chunk)) = response.chunk().await {
                for event in parser.feed(&chunk) {
                    let Ok(msg) = serde_json::from_str::<Value>(&event.data) else {
                        continue;
                    };
                    if msg.get("method").is_some()
                        && msg.get("id").is_some()
                        && tx.send(msg).is_err()
                    {
                        return;
                    }
                }
            }
        });
        let _ = self
            .rt
            .block_on(async { tokio::time::timeout(self.timeout, opened).await });
        self.listening = Some(Listening { requests, task });
    }

    /// Answers the server's requests that came on the `GET` stream while no answer was
    /// awaited.
    fn answer_listened(&mut self, answers: &mut Answers) {
        let Some(listening) = &mut self.listening else {
            return;
        };
        let mut lines = Vec::new();
        while let Ok(msg) = listening.requests.try_recv() {
            lines.extend(answers.answer(&msg));
        }
        for line in lines {
            let post = self.post(self.headers(&[]), line).send();
            let _ = self
                .rt
                .block_on(async { tokio::time::timeout(self.timeout, post).await });
        }
    }

    /// Opens the `GET` stream if the recording opened it before message number `sent`.
    fn listen_before(&mut self, sent: usize) {
        if let Some(listen) = self.listen.take_if(|l| l.after <= sent) {
            self.open_stream(&listen);
        }
    }
}

/// What an answer's HTTP response came to.
async fn read_answer(
    response: reqwest::Response,
    id: Option<&Value>,
    answers: &RefCell<&mut Answers>,
    answer_post: &(dyn Fn(String) -> reqwest::RequestBuilder + Sync),
) -> Outcome {
    let status = response.status();
    if status.as_u16() == 202 {
        return Outcome::Sent;
    }
    if is_event_stream(&response) {
        let mut response = response;
        let mut parser = SseParser::new();
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => {
                    return Outcome::Rejected(format!("HTTP {status}: the stream broke: {e}"));
                }
            };
            for event in parser.feed(&chunk) {
                let Ok(msg) = serde_json::from_str::<Value>(&event.data) else {
                    continue;
                };
                if msg.get("method").is_some() {
                    let line = answers.borrow_mut().answer(&msg);
                    if let Some(line) = line {
                        // Accepted with a 202; its exchange is recorded by the proxy.
                        let _ = answer_post(line).send().await;
                    }
                } else if id.is_some() && msg.get("id") == id {
                    return Outcome::Answer(msg);
                }
            }
        }
        return match id {
            None => Outcome::Sent,
            Some(_) => Outcome::Rejected(format!(
                "HTTP {status}: the event stream ended without an answer"
            )),
        };
    }
    let body = response.bytes().await.unwrap_or_default();
    let text = String::from_utf8_lossy(&body);
    let msg = serde_json::from_slice::<Value>(&body).ok();
    if let Some(msg) = msg.as_ref()
        && id.is_some()
        && msg.get("id") == id
    {
        return Outcome::Answer(msg.clone());
    }
    // The proxy's own answer when the server cannot be reached (it recorded a note).
    if status.as_u16() == 502 && text.contains("sightline proxy: cannot reach") {
        let message = msg
            .as_ref()
            .and_then(|m| m.pointer("/error/message"))
            .and_then(Value::as_str)
            .unwrap_or("the server cannot be reached");
        let message = message.trim_start_matches("sightline proxy: ").to_string();
        return Outcome::Stopped(Said::new("replay_stop.proxy").with("message", message));
    }
    if status.as_u16() == 504 && text.contains("sightline proxy:") {
        return Outcome::Timeout;
    }
    if status.is_success() && id.is_none() {
        return Outcome::Sent;
    }
    let shown: String = text.chars().take(200).collect();
    Outcome::Rejected(format!("HTTP {status}: {}", shown.trim()))
}

impl Connection for Http {
    fn exchange(
        &mut self,
        step: &Step,
        line: &str,
        wait: Option<Duration>,
        answers: &mut Answers,
    ) -> Outcome {
        self.listen_before(self.sent);
        self.sent += 1;
        self.answer_listened(answers);
        let headers = self.headers(&step.headers);
        let request = self.post(headers.clone(), line.to_string());
        if step.request && wait.is_none() {
            // Never answered in the recording (a listen stream): sent, not waited for.
            self.background.push(self.rt.spawn(async move {
                if let Ok(mut r) = request.send().await {
                    while let Ok(Some(_)) = r.chunk().await {}
                }
            }));
            return Outcome::Sent;
        }
        let id = step
            .request
            .then(|| serde_json::from_str::<Value>(line).ok())
            .flatten()
            .and_then(|v| v.get("id").cloned());
        let limit = wait.unwrap_or(self.timeout);
        let client = self.client.clone();
        let url = self.url.clone();
        let answer_post = move |body: String| {
            let mut h = headers.clone();
            h.remove("mcp-method");
            h.remove("mcp-name");
            client.post(&url).headers(h).body(body)
        };
        let session = &mut self.session;
        let version = &mut self.version;
        let mut listened = self.listening.as_mut().map(|l| &mut l.requests);
        let answers = RefCell::new(answers);
        self.rt.block_on(async {
            let exchange = async {
                let response = match request.send().await {
                    Ok(r) => r,
                    Err(e) => {
                        let why = Said::new("replay_stop.no_http_tap").with("detail", e);
                        return Outcome::Stopped(why);
                    }
                };
                if let Some(s) = response.headers().get("mcp-session-id") {
                    *session = Some(s.clone());
                }
                read_answer(response, id.as_ref(), &answers, &answer_post).await
            };
            // The server's requests on the GET stream are answered while this one waits (its
            // answer may depend on them).
            let with_listened = async {
                tokio::pin!(exchange);
                loop {
                    let next = async {
                        match listened.as_mut() {
                            Some(requests) => requests.recv().await,
                            None => std::future::pending().await,
                        }
                    };
                    tokio::select! {
                        outcome = &mut exchange => break outcome,
                        Some(msg) = next => {
                            let line = answers.borrow_mut().answer(&msg);
                            if let Some(line) = line {
                                let _ = answer_post(line).send().await;
                            }
                        }
                    }
                }
            };
            let outcome = tokio::time::timeout(limit, with_listened)
                .await
                .unwrap_or(Outcome::Timeout);
            if let Outcome::Answer(msg) = &outcome
                && step.method == "initialize"
                && let Some(v) = msg
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
            {
                *version = Some(v.to_string());
            }
            outcome
        })
    }

    fn finish(&mut self, answers: &mut Answers) {
        // A stream the recording opened after its last message (not after a stop).
        if self.sent == self.steps {
            self.listen_before(self.sent);
        }
        self.answer_listened(answers);
    }
}

/// Replays `plan` against the Streamable HTTP endpoint `url`, through an HTTP proxy on a
/// loopback port recording as `server:<name>`, waiting at most `timeout` for each answer. The
/// recorder is not finished: the caller does that.
pub fn replay_http(
    plan: &Plan,
    url: &str,
    name: &str,
    recorder: Rec,
    timeout: Duration,
) -> Result<Replayed, ReplayError> {
    let rt = crate::tap::runtime::pool(Some(2)).map_err(ReplayError::Socket)?;
    let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let proxy = rt
        .block_on(HttpProxy::bind(listen, url, name, recorder.clone()))
        .map_err(|e| ReplayError::Http(e.to_string()))?
        .header_timeout(Some(timeout));
    let addr = proxy.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = rt.spawn(proxy.serve(
        async move {
            let _ = stopped.await;
        },
        Duration::from_secs(1),
    ));
    let client = crate::tap::client::http()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ReplayError::Http(e.to_string()))?;
    let mut conn = Http {
        rt,
        client,
        url: format!("http://{addr}/"),
        session: None,
        version: None,
        timeout,
        background: Vec::new(),
        listen: plan.listen.clone(),
        listening: None,
        sent: 0,
        steps: plan.steps.len(),
    };
    let out = super::drive(plan, &mut conn, &recorder, &Lane::server(name), timeout);
    if plan.delete && conn.session.is_some() {
        let headers = conn.headers(&[]);
        let delete = conn.client.delete(&conn.url).headers(headers).send();
        let _ = conn
            .rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(5), delete).await });
    }
    if let Some(listening) = conn.listening.take() {
        // After a DELETE the server ends the stream itself; else (or if it does not) it is
        // closed here.
        let mut task = listening.task;
        if plan.delete {
            let _ = conn
                .rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(1), &mut task).await });
        }
        task.abort();
    }
    for task in conn.background.drain(..) {
        task.abort();
    }
    let _ = stop.send(());
    let _ = conn.rt.block_on(serving);
    Ok(out)
}
