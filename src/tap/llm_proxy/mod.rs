//! The LLM API proxy: a reverse proxy in front of an LLM API that records every exchange.
//!
//! A host pointed at it (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, Gemini CLI's
//! `GOOGLE_GEMINI_BASE_URL`) reaches its model through
//! Sightline without noticing: every request (any method, any path) goes to `upstream + path
//! (+ query)` with its body and headers unchanged, except hop-by-hop headers and `Host`; the
//! response's status and headers come back unchanged (hop-by-hop ones aside) and its body is
//! streamed back chunk by chunk as it arrives, so SSE flows unbuffered. It speaks the Anthropic
//! Messages API, OpenAI Responses and Chat Completions, Gemini (`/v1beta/models/<model>:
//! streamGenerateContent?alt=sse`, its JSON-array stream too), and anything else over
//! HTTP/1.1: it does not read the bodies it forwards.
//!
//! It lives in the tap because it is one: bytes pass unchanged, a copy goes to the
//! [`Recorder`]. What it records, as `llm-http` events:
//!
//! - the request, `host -> llm`, before it is forwarded: method, full upstream URL, the
//!   headers as forwarded (plus the `host` the upstream gets) and the exact body bytes;
//! - the response, `llm -> host`: status, headers as received, and the exact body as one event
//!   when it ends (a whole SSE stream is one event; the analysis reassembles it). A body the
//!   upstream cuts, or that the client stops reading (a disconnect mid-stream), is recorded as
//!   far as it went, followed by a `note` saying so;
//! - an upstream that cannot be reached: the client gets `502` with a JSON error body and the
//!   trace a `note`; one that sends no response headers within the header timeout (not applied
//!   to a GET): `504` and a `note`; a client that leaves before the headers came: a `note`;
//! - a request whose `Host` is not the proxy's listen address, or whose `Origin` is neither a
//!   loopback origin nor the proxy itself (DNS rebinding): `403` and a `note`, not forwarded;
//! - a request body over [`BODY_LIMIT`]: the request line and headers, a `note`, and `413`.
//!
//! Credentials never reach the trace: credential headers are redacted by
//! [`redact_headers`](crate::wire::redact::redact_headers), the upstream's userinfo and
//! credential query parameters (`key=`, `api_key=`...) are redacted in the recorded URL by
//! [`redact_url`](crate::wire::redact_url::redact_url), and the secret values found there are also scrubbed from the recorded bodies (an API
//! that echoes a key in an error would otherwise leak it). Only the record is changed; the
//! bytes forwarded are never touched.
//!
//! The request body is read whole before it is forwarded (LLM requests are single JSON
//! documents; at most [`BODY_LIMIT`] bytes).

mod stream;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::Recorder;
use super::http_common::header_pairs;
pub use super::http_common::{HEADER_TIMEOUT, is_hop_by_hop};
use super::http_exchange::{Front, Link, Sent, client_for, host_and_port, json_answer, pass_on};
use crate::trace::{Channel, HttpInfo, Lane};
use crate::wire::redact::redact_headers;
use stream::{Pending, RecordingStream};

pub use super::http_exchange::BODY_LIMIT;

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum LlmProxyError {
    #[error("the upstream `{0}` is not an http:// or https:// URL")]
    Upstream(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

struct Shared {
    link: Link,
    /// The upstream base (its query kept apart from its path): the request's path goes after
    /// the path, its query is merged with the base's (`http_common::join_upstream`).
    upstream: String,
}

/// The proxy, bound and ready: [`serve`](LlmProxy::serve) runs it.
pub struct LlmProxy {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl LlmProxy {
    /// Checks `upstream`, binds `listen` and builds the client. Must be called within a Tokio
    /// runtime.
    pub async fn bind(
        listen: SocketAddr,
        upstream: &str,
        recorder: Arc<Recorder>,
    ) -> Result<LlmProxy, LlmProxyError> {
        let parsed = reqwest::Url::parse(upstream).map_err(|_| {
            LlmProxyError::Upstream(crate::wire::redact_url::redact_url(upstream).0)
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(LlmProxyError::Upstream(
                crate::wire::redact_url::redact_url(upstream).0,
            ));
        }
        let upstream_host = host_and_port(&parsed);
        let client = client_for(parsed.host_str().unwrap_or_default())
            .map_err(|err| LlmProxyError::Client(err.to_string()))?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| LlmProxyError::Bind {
                addr: listen,
                source,
            })?;
        let addr = listener
            .local_addr()
            .map_err(|source| LlmProxyError::Bind {
                addr: listen,
                source,
            })?;
        Ok(LlmProxy {
            listener,
            addr,
            shared: Arc::new(Shared {
                link: Link::new(client, recorder, addr, upstream_host),
                upstream: super::http_common::without_userinfo(upstream),
            }),
        })
    }

    /// How long to wait for the upstream's response headers before answering `504` (and
    /// recording a note); `None` waits forever. A GET is never timed out.
    pub fn header_timeout(mut self, timeout: Option<Duration>) -> LlmProxy {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.link.header_timeout = timeout;
        }
        self
    }

    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `stop` completes; then stops accepting and gives exchanges in flight at
    /// most `grace` to end (an SSE stream may not).
    pub async fn serve(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
        grace: Duration,
    ) -> io::Result<()> {
        let router = Router::new().fallback(forward).with_state(self.shared);
        super::http_common::serve_with_grace(self.listener, router, stop, grace).await
    }
}

/// One exchange: record the request, forward it, stream the response back while keeping a copy.
async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |pq| pq.as_str())
        .to_string();
    let url = super::http_common::join_upstream(&shared.upstream, &path);
    let front = Front {
        name: "sightline llm-proxy",
        link: &shared.link,
        client_lane: Lane::Host,
        upstream_lane: Lane::Llm,
        channel: Channel::LlmHttp,
        error: error_response,
    };
    let Sent {
        response: upstream,
        secrets,
        recorded_url,
        ..
    } = match front.send(&parts, &url, body).await {
        Ok(sent) => sent,
        Err(refused) => return refused,
    };

    let status = upstream.status();
    let received = upstream.headers().clone();
    let mut response_headers = header_pairs(&received);
    redact_headers(&mut response_headers);
    let expected = upstream.content_length();
    let mut extra = crate::trace::Extra::new();
    let first_byte = crate::trace::format_time(crate::trace::now());
    extra.insert(crate::trace::FIRST_BYTE.into(), first_byte.into());
    let copy = RecordingStream {
        inner: Box::pin(upstream.bytes_stream()),
        received: Vec::new(),
        expected,
        pending: Some(Pending {
            recorder: shared.link.recorder.clone(),
            info: HttpInfo {
                status: Some(status.as_u16()),
                headers: HttpInfo::headers_of(response_headers),
                extra,
                ..HttpInfo::default()
            },
            secrets,
            url: recorded_url,
        }),
    };
    pass_on(status, &received, Body::from_stream(copy))
}

fn error_response(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "type": "error",
        "error": {"type": "proxy_error", "message": message}
    });
    json_answer(status, &body)
}

#[cfg(test)]
mod tests;
