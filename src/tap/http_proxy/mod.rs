//! The Streamable HTTP proxy: a reverse proxy in front of an MCP server's HTTP endpoint that
//! records every JSON-RPC message crossing it.
//!
//! A host pointed at it reaches the server through Sightline without noticing: `POST`, `GET`
//! and `DELETE` (any method) go to the upstream endpoint with their body and headers unchanged
//! (`Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`, `Authorization`...), except hop-by-hop headers and `Host`; the response's
//! status and headers come back unchanged (hop-by-hop ones aside) and its body is streamed back
//! chunk by chunk as it arrives.
//!
//! A request to `/` or to the upstream's own path goes to the upstream URL itself; any other
//! path (and query) goes to that path on the upstream's origin. Behind a prefix
//! ([`HttpProxy::strip_prefix`], as `sightline wrap --serve` uses), the prefix is taken off
//! first.
//!
//! What it records, as `http` events between `host` and `server:NAME` (or, in front of a server
//! an LLM API connects to itself, between `llm` and `server:NAME`: [`HttpProxy::client_lane`]):
//!
//! - each request before it is forwarded: method, upstream URL, headers and the body (one
//!   JSON-RPC message or a batch array, as sent; `""` for a `GET` or `DELETE`);
//! - a response that is not `text/event-stream` (JSON, a `202`, a `4xx`, a `5xx`): one event
//!   with status, headers and the whole body when it ends;
//! - an SSE response (on a `POST` or on the standalone `GET` stream): each SSE event's `data` as
//!   its own event the moment the event is complete, before its bytes are passed on, with the
//!   SSE fields in the `http` object as `sse_id`, `sse_event` and `retry`. Priming events (empty
//!   `data`) are recorded too, with an empty payload. The first event of the stream carries the
//!   status and headers;
//! - a response cut short or a client that leaves mid-stream: a `note` after what was recorded;
//!   an unreachable upstream: `502` to the client and a `note`;
//! - a request whose `Host` is not the address the proxy listens on, or whose `Origin` is
//!   neither a loopback origin nor the proxy itself (DNS rebinding): `403` to the client and a
//!   `note`; it is not forwarded;
//! - an upstream that sends no response headers within the header timeout (not applied to a
//!   GET): `504` and a `note`; a client that leaves before the headers came: a `note`;
//! - a request body over [`BODY_LIMIT`](super::llm_proxy::BODY_LIMIT): the request line and
//!   headers, a `note`, and `413`.
//!
//! Credentials never reach the trace: credential headers are redacted, credential query
//! parameters too, and their values are scrubbed from recorded bodies.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::json;

use futures_util::{Stream, TryStreamExt};

use super::Recorder;
use super::http_common::{describe, header_pairs, is_loopback_host, send_with_timeout};
use super::http_exchange::{Front, Link, Sent, client_for, host_and_port, json_answer, pass_on};
use crate::trace::{Channel, HttpInfo, Lane};
use crate::wire::redact::redact_headers;
use crate::wire::sse::SseParser;

mod stream;
mod upstream;

use stream::{Held, Mode, RecordingStream};
use upstream::Upstream;

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpProxyError {
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
    /// The upstream endpoint, as given.
    upstream: reqwest::Url,
    server: Lane,
    /// The lane of the server's MCP client: the host, or the LLM API when the API itself is
    /// the client (Anthropic's MCP connector, OpenAI's `mcp` tools).
    client: Lane,
    /// Taken off the start of request paths (empty: none).
    prefix: String,
    /// A loopback `http://` upstream, reached over connections run on each exchange's task
    /// (see [`upstream`]); `None`: through the link's client.
    direct: Option<Arc<Upstream>>,
}

/// The proxy, bound and ready: [`serve`](HttpProxy::serve) runs it.
pub struct HttpProxy {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    shared: Shared,
}

impl HttpProxy {
    /// Checks `upstream`, binds `listen` and builds the client; `name` names the server lane.
    /// Must be called within a Tokio runtime.
    pub async fn bind(
        listen: SocketAddr,
        upstream: &str,
        name: &str,
        recorder: Arc<Recorder>,
    ) -> Result<HttpProxy, HttpProxyError> {
        let parsed = reqwest::Url::parse(upstream).map_err(|_| {
            HttpProxyError::Upstream(crate::wire::redact_url::redact_url(upstream).0)
        })?;
        let Some(host) = parsed.host_str().map(str::to_string) else {
            return Err(HttpProxyError::Upstream(
                crate::wire::redact_url::redact_url(upstream).0,
            ));
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(HttpProxyError::Upstream(
                crate::wire::redact_url::redact_url(upstream).0,
            ));
        }
        // Credentials in the URL are not sent: the proxy forwards what the host sends.
        let mut parsed = parsed;
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        let upstream_host = host_and_port(&parsed);
        let direct = (parsed.scheme() == "http" && is_loopback_host(&host))
            .then(|| parsed.socket_addrs(|| Some(80)).ok())
            .flatten()
            .filter(|addrs| !addrs.is_empty())
            .and_then(|addrs| Upstream::new(addrs, &upstream_host))
            .map(Arc::new);
        let client = client_for(&host).map_err(|err| HttpProxyError::Client(err.to_string()))?;
        let bind_err = |source| HttpProxyError::Bind {
            addr: listen,
            source,
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(bind_err)?;
        let addr = listener.local_addr().map_err(bind_err)?;
        Ok(HttpProxy {
            listener,
            addr,
            shared: Shared {
                link: Link::new(client, recorder, addr, upstream_host),
                upstream: parsed,
                server: Lane::server(name),
                client: Lane::Host,
                prefix: String::new(),
                direct,
            },
        })
    }

    /// Serves the upstream under `prefix`: `PREFIX/mcp` goes where `/mcp` would. Paths that
    /// do not start with it go upstream unchanged.
    pub fn strip_prefix(mut self, prefix: &str) -> HttpProxy {
        self.shared.prefix = prefix.trim_end_matches('/').to_string();
        self
    }

    /// Records the server's client on `lane` rather than `host`: [`Lane::Llm`] in front of a
    /// server an LLM API connects to itself, whose MCP client is the API platform's.
    pub fn client_lane(mut self, lane: Lane) -> HttpProxy {
        self.shared.client = lane;
        self
    }

    /// How long to wait for the upstream's response headers before answering `504` (and
    /// recording a note); `None` waits forever. A GET is never timed out.
    pub fn header_timeout(mut self, timeout: Option<Duration>) -> HttpProxy {
        self.shared.link.header_timeout = timeout;
        self
    }

    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `stop` completes; then stops accepting and gives exchanges in flight at
    /// most `grace` to end (a standalone SSE stream may never end).
    pub async fn serve(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
        grace: Duration,
    ) -> io::Result<()> {
        let router = Router::new()
            .fallback(forward)
            .with_state(Arc::new(self.shared));
        super::http_common::serve_with_grace(self.listener, router, stop, grace).await
    }
}

/// `path_and_query` without `prefix` when it starts with it (as whole path segments).
fn without_prefix(prefix: &str, path_and_query: &str) -> String {
    match path_and_query.strip_prefix(prefix) {
        Some(rest) if !prefix.is_empty() && rest.is_empty() => "/".into(),
        Some(rest) if !prefix.is_empty() && rest.starts_with('?') => format!("/{rest}"),
        Some(rest) if !prefix.is_empty() && rest.starts_with('/') => rest.into(),
        _ => path_and_query.into(),
    }
}

/// Where a request for `path_and_query` goes upstream: the upstream URL's query (an
/// `?api_key=` its runner gave) merged with the request's, never replaced by it.
fn upstream_url(upstream: &reqwest::Url, path_and_query: &str) -> String {
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_and_query, None),
    };
    let query = super::http_common::merged_query(upstream.query(), query);
    if path == "/" || path == upstream.path() {
        let mut url = upstream.clone();
        url.set_query(query.as_deref());
        return url.to_string();
    }
    let origin = upstream.origin().ascii_serialization();
    match query {
        Some(query) => format!("{origin}{path}?{query}"),
        None => format!("{origin}{path}"),
    }
}

/// The upstream's response body as it reaches the proxy; `Err` says why it was cut.
type UpstreamBytes = std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, String>> + Send>>;

/// The upstream's response: status, headers and the body to read.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: UpstreamBytes,
    /// Whether the body comes from another task (the pooled client's connection), so what
    /// is already waiting shows only after yielding to it.
    yield_for_more: bool,
}

/// One exchange: record the request, forward it, stream the response back while recording it.
async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let host = shared.client.clone();
    let server = shared.server.clone();
    let path = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let url = upstream_url(&shared.upstream, &without_prefix(&shared.prefix, path));
    let front = Front {
        name: "sightline proxy",
        link: &shared.link,
        client_lane: host.clone(),
        upstream_lane: server.clone(),
        channel: Channel::Http,
        error: error_response,
    };
    let sent = match &shared.direct {
        Some(direct) => send_direct(&front, direct, &parts, &url, body).await,
        None => send_pooled(&front, &parts, &url, body).await,
    };
    let Sent {
        response: answer,
        secrets,
        recorded_url,
        request_seq,
    } = match sent {
        Ok(sent) => sent,
        Err(refused) => return refused,
    };
    let Answer {
        status,
        headers: received,
        body: inner,
        yield_for_more,
    } = answer;
    let mut response_headers = header_pairs(&received);
    redact_headers(&mut response_headers);
    let mode = if is_event_stream(&received) {
        Mode::Sse(SseParser::new())
    } else {
        Mode::Whole(Vec::new())
    };
    let mut copy = RecordingStream {
        inner,
        yield_for_more,
        mode,
        received: 0,
        expected: upstream_content_length(&received),
        first: Some(HttpInfo {
            status: Some(status.as_u16()),
            headers: HttpInfo::headers_of(response_headers),
            ..HttpInfo::default()
        }),
        done: false,
        recorder: shared.link.recorder.clone(),
        from: server,
        to: host,
        secrets,
        url: recorded_url,
        request_seq,
        queued: Vec::new(),
        ending: None,
        held: Held::Nothing,
        yields: 0,
    };
    copy.record_if_empty();
    pass_on(status, &received, Body::from_stream(copy))
}

/// Records and sends one request over a connection run on this task (see [`upstream`]).
async fn send_direct(
    front: &Front<'_>,
    direct: &Arc<Upstream>,
    parts: &Parts,
    url: &str,
    body: Body,
) -> Result<Sent<Answer>, Response> {
    let mut recorded = front.record(parts, url, body).await?;
    let target = reqwest::Url::parse(url).map_or_else(
        |_| "/".to_string(),
        |u| match u.query() {
            Some(query) => format!("{}?{query}", u.path()),
            None => u.path().to_string(),
        },
    );
    let headers = std::mem::take(&mut recorded.headers);
    let body = std::mem::take(&mut recorded.body);
    let sending = direct.send(parts.method.clone(), &target, headers, body);
    let sent = send_with_timeout(sending, recorded.timeout).await;
    let sent = front.answered(recorded, sent)?;
    let (head, body) = sent.response;
    let head = head.into_parts().0;
    Ok(Sent {
        response: Answer {
            status: head.status,
            headers: head.headers,
            body: Box::pin(body),
            yield_for_more: false,
        },
        secrets: sent.secrets,
        recorded_url: sent.recorded_url,
        request_seq: sent.request_seq,
    })
}

/// Records and sends one request with the link's pooled client.
async fn send_pooled(
    front: &Front<'_>,
    parts: &Parts,
    url: &str,
    body: Body,
) -> Result<Sent<Answer>, Response> {
    let sent = front.send(parts, url, body).await?;
    let upstream = sent.response;
    let status = upstream.status();
    let headers = upstream.headers().clone();
    let body = upstream
        .bytes_stream()
        .map_err(|err| describe(&err.without_url()));
    Ok(Sent {
        response: Answer {
            status,
            headers,
            body: Box::pin(body),
            yield_for_more: true,
        },
        secrets: sent.secrets,
        recorded_url: sent.recorded_url,
        request_seq: sent.request_seq,
    })
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
        })
}

fn upstream_content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn error_response(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32000, "message": message}
    });
    json_answer(status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_go_to_the_endpoint_or_its_origin() {
        let up = reqwest::Url::parse("http://127.0.0.1:3001/mcp").expect("url");
        assert_eq!(upstream_url(&up, "/"), "http://127.0.0.1:3001/mcp");
        assert_eq!(
            upstream_url(&up, "/mcp?a=1"),
            "http://127.0.0.1:3001/mcp?a=1"
        );
        assert_eq!(upstream_url(&up, "/other"), "http://127.0.0.1:3001/other");
    }

    #[test]
    fn a_prefix_comes_off_whole_segments_only() {
        let p = "/sightline/https/example.com";
        assert_eq!(
            without_prefix(p, "/sightline/https/example.com/mcp?a=1"),
            "/mcp?a=1"
        );
        assert_eq!(without_prefix(p, "/sightline/https/example.com"), "/");
        assert_eq!(
            without_prefix(p, "/sightline/https/example.com?a=1"),
            "/?a=1"
        );
        assert_eq!(
            without_prefix(p, "/sightline/https/example.com.evil/x"),
            "/sightline/https/example.com.evil/x"
        );
        assert_eq!(without_prefix(p, "/.well-known/x"), "/.well-known/x");
        assert_eq!(without_prefix("", "/mcp"), "/mcp");
    }
}
