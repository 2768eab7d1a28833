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
//! The standalone `GET` stream is not opened; a recorded `DELETE` ends the new session too.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::oneshot;

use super::{Answers, Connection, Outcome, Plan, Rec, ReplayError, Replayed, Step};
use crate::tap::http_proxy::HttpProxy;
use crate::trace::Lane;
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
}

impl Http {
    fn headers(&self, recorded: &[(String, String)]) -> HeaderMap {
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
}

/// What an answer's HTTP response came to.
async fn read_answer(
    response: reqwest::Response,
    id: Option<&Value>,
    answers: &mut Answers,
    answer_post: &(dyn Fn(String) -> reqwest::RequestBuilder + Sync),
) -> Outcome {
    let status = response.status();
    if status.as_u16() == 202 {
        return Outcome::Sent;
    }
    let stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    if stream {
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
                    if let Some(line) = answers.answer(&msg) {
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
        return Outcome::Stopped(message.trim_start_matches("sightline proxy: ").to_string());
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
        self.rt.block_on(async {
            let exchange = async {
                let response = match request.send().await {
                    Ok(r) => r,
                    Err(e) => return Outcome::Stopped(format!("cannot reach the HTTP tap: {e}")),
                };
                if let Some(s) = response.headers().get("mcp-session-id") {
                    *session = Some(s.clone());
                }
                read_answer(response, id.as_ref(), answers, &answer_post).await
            };
            let outcome = tokio::time::timeout(limit, exchange)
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ReplayError::Socket)?;
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
    let client = reqwest::Client::builder()
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
    };
    let out = super::drive(plan, &mut conn, &recorder, &Lane::server(name), timeout);
    if plan.delete && conn.session.is_some() {
        let headers = conn.headers(&[]);
        let delete = conn.client.delete(&conn.url).headers(headers).send();
        let _ = conn
            .rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(5), delete).await });
    }
    for task in conn.background.drain(..) {
        task.abort();
    }
    let _ = stop.send(());
    let _ = conn.rt.block_on(serving);
    Ok(out)
}
