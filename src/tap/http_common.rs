//! What the HTTP proxies ([`super::llm_proxy`], [`super::http_proxy`]) share: which headers
//! are forwarded, headers as recorded pairs, the credentials to keep out of the record (the
//! headers', the URL's and those a request body hands an API for remote MCP servers), and
//! serving with a bounded graceful shutdown.

use axum::http::{HeaderMap, HeaderName, header};

use crate::wire::redact::is_credential_header;
use crate::wire::redact::scrub_secrets;

/// Headers that belong to one connection, not to the message (RFC 9110 section 7.6.1).
pub(crate) const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
];

/// The client's headers as they go upstream: without hop-by-hop headers (and those the
/// `Connection` header names) and without `Host`, which the client sets for the upstream.
pub(crate) fn forwarded_headers(headers: &HeaderMap) -> HeaderMap {
    without(headers, Some(&header::HOST))
}

pub(crate) fn without_hop_by_hop(headers: &HeaderMap) -> HeaderMap {
    without(headers, None)
}

/// The headers in their order (removing from a `HeaderMap` would reorder it), without the
/// hop-by-hop ones and `also`.
pub(crate) fn without(headers: &HeaderMap, also: Option<&HeaderName>) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let lower = name.as_str();
        if HOP_BY_HOP.contains(&lower) || named.iter().any(|n| n == lower) || Some(name) == also {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

/// Headers as `[name, value]` pairs in order, duplicates kept.
pub(crate) fn header_pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_string(), value)
        })
        .collect()
}

/// The secret parts of the credential headers (an `Authorization` value without its scheme).
pub(crate) fn secrets_in(headers: &HeaderMap) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in headers {
        if !is_credential_header(name.as_str()) {
            continue;
        }
        let Ok(value) = value.to_str() else { continue };
        let value = value.trim();
        out.push(value.to_string());
        if let Some((_, rest)) = value.split_once(' ') {
            out.push(rest.trim().to_string());
        }
        // Cookies: each `name=value` pair's value.
        for pair in value.split(';') {
            if let Some((_, v)) = pair.split_once('=') {
                out.push(v.trim().to_string());
            }
        }
    }
    out.retain(|s| s.len() >= 8);
    // Longest first, so a whole value is replaced before a part of it.
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// Scrubs `secrets` out of a body about to be recorded; returns the ranges replaced (the
/// event's `http.redacted`).
pub(crate) fn scrub(bytes: &mut Vec<u8>, secrets: &[String]) -> Vec<[usize; 2]> {
    scrub_secrets(bytes, secrets)
}

/// `upstream` without its userinfo (`https://user:pass@host` -> `https://host`): the proxies
/// forward the credentials the host sends and never make up an `Authorization` from the URL
/// (reqwest would send one for a URL with userinfo).
pub(crate) fn without_userinfo(upstream: &str) -> String {
    match reqwest::Url::parse(upstream) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => upstream.to_string(),
    }
}

/// The query a request goes upstream with: the upstream URL's own parameters (`--upstream
/// 'URL?api-version=...'`, set by whoever runs the proxy) first, then the client's, leaving
/// out a client parameter the upstream URL already names. `None` when neither has one.
pub(crate) fn merged_query(upstream: Option<&str>, client: Option<&str>) -> Option<String> {
    let upstream = upstream.filter(|q| !q.is_empty());
    let client = client.filter(|q| !q.is_empty());
    let name = |pair: &str| pair.split('=').next().unwrap_or("").to_string();
    match (upstream, client) {
        (None, None) => None,
        (Some(q), None) | (None, Some(q)) => Some(q.to_string()),
        (Some(up), Some(client)) => {
            let names: Vec<String> = up.split('&').map(name).collect();
            let mut out = up.to_string();
            for pair in client.split('&').filter(|p| !p.is_empty()) {
                if !names.contains(&name(pair)) {
                    out.push('&');
                    out.push_str(pair);
                }
            }
            Some(out)
        }
    }
}

/// `base` (an upstream URL, which may carry a query) joined with a request's
/// `path_and_query`: the request's path after the base's, and the two queries merged
/// ([`merged_query`]), so a base's query is never followed by a path.
pub(crate) fn join_upstream(base: &str, path_and_query: &str) -> String {
    let (base, base_query) = match base.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (base, None),
    };
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_and_query, None),
    };
    let mut url = format!("{}{path}", base.trim_end_matches('/'));
    if let Some(query) = merged_query(base_query, query) {
        url.push('?');
        url.push_str(&query);
    }
    url
}

/// A transport error and its causes, without the URL.
pub(crate) fn describe(err: &reqwest::Error) -> String {
    describe_chain(err)
}

/// Whether `name` is a header the proxy never forwards.
pub fn is_hop_by_hop(name: &HeaderName) -> bool {
    HOP_BY_HOP.contains(&name.as_str())
}

/// Serves `router` on `listener` until `stop` completes; then stops accepting and gives the
/// exchanges in flight at most `grace` to end (a standalone SSE stream may never end).
pub(crate) async fn serve_with_grace(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    grace: std::time::Duration,
) -> std::io::Result<()> {
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<()>();
    // No Nagle delay: an SSE event or a small JSON answer goes out the moment it is written.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let serving = axum::serve(listener, router).with_graceful_shutdown(async move {
        stop.await;
        let _ = stopped_tx.send(());
    });
    let mut serving = std::pin::pin!(serving.into_future());
    tokio::select! {
        done = &mut serving => done,
        _ = stopped_rx => {
            match tokio::time::timeout(grace, serving).await {
                Ok(done) => done,
                Err(_) => Ok(()),
            }
        }
    }
}

/// A client's request as it goes upstream, and as it is recorded.
pub(crate) struct Outgoing {
    /// The headers to send: the client's, without hop-by-hop headers and `Host`.
    pub headers: axum::http::HeaderMap,
    /// Credentials found in the headers and the URL, kept out of every record.
    pub secrets: Vec<String>,
    /// The URL with credential query parameters redacted.
    pub recorded_url: String,
    /// The request line and headers (plus the `host` the upstream gets), redacted.
    pub info: crate::trace::HttpInfo,
    /// The body with any credential scrubbed out.
    pub recorded_body: Vec<u8>,
}

/// Prepares one request for forwarding to `url` and for the record.
pub(crate) fn outgoing(
    method: &axum::http::Method,
    client_headers: &HeaderMap,
    url: &str,
    upstream_host: &str,
    body: &[u8],
) -> Outgoing {
    let headers = forwarded_headers(client_headers);
    let mut secrets = secrets_in(&headers);
    let (recorded_url, url_secrets) = crate::wire::redact_url::redact_url(url);
    secrets.extend(url_secrets);
    let mut recorded_headers = header_pairs(&headers);
    recorded_headers.push(("host".into(), upstream_host.to_string()));
    crate::wire::redact::redact_headers(&mut recorded_headers);
    let mut recorded_body = body.to_vec();
    // The remote MCP servers' credentials a request hands an API that is itself their client
    // (`mcp_servers`, an `mcp` tool's `headers`) go too, and out of the response as well.
    let scrubbed = crate::wire::redact::scrub_request(&mut recorded_body, &secrets);
    let redacted = scrubbed.redacted;
    secrets.extend(scrubbed.connector_secrets);
    let info = crate::trace::HttpInfo {
        method: Some(method.as_str().into()),
        url: Some(recorded_url.as_str().into()),
        headers: crate::trace::HttpInfo::headers_of(recorded_headers),
        redacted,
        ..crate::trace::HttpInfo::default()
    };
    Outgoing {
        headers,
        secrets,
        recorded_url,
        info,
        recorded_body,
    }
}

/// Why a request must not be served (DNS rebinding protection), or `None` when it may be.
///
/// `Host` must name the address the proxy listens on: a loopback name or address (or, when it
/// listens on a non-loopback address with `--allow-remote`, that address or any IP address when
/// it listens on all of them) and the listen port. A page on `evil.example` that rebinds its
/// name to 127.0.0.1 still sends `Host: evil.example`, so it is refused. An `Origin`, when
/// present, must be a loopback origin or the `Host` itself. Browsers send `Origin` on every
/// cross-origin request; programs (SDKs, curl) usually send none, and are served.
pub(crate) fn refuse_foreign(headers: &HeaderMap, listen: std::net::SocketAddr) -> Option<String> {
    let Some(host) = headers.get(header::HOST) else {
        return Some("a request without a Host header".into());
    };
    let host = String::from_utf8_lossy(host.as_bytes()).trim().to_string();
    if !host_matches(&host, listen) {
        return Some(format!(
            "a request for Host `{host}`, which is not the address it listens on ({listen})"
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = String::from_utf8_lossy(origin.as_bytes())
            .trim()
            .to_string();
        let same = reqwest::Url::parse(&origin).is_ok_and(|url| {
            url.host_str().is_some_and(|h| {
                let with_port = match url.port_or_known_default() {
                    Some(port) => format!("{h}:{port}"),
                    None => h.to_string(),
                };
                with_port.eq_ignore_ascii_case(&host)
            })
        });
        if !is_loopback_origin(&origin) && !same {
            return Some(format!(
                "a request with Origin `{origin}`, which is neither a loopback origin nor the \
                 proxy itself"
            ));
        }
    }
    None
}

/// Whether a `Host` value (`name[:port]`) names `listen`.
fn host_matches(host: &str, listen: std::net::SocketAddr) -> bool {
    let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    if authority.port_u16().unwrap_or(80) != listen.port() {
        return false;
    }
    let name = authority.host();
    let ip = name
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>();
    if listen.ip().is_loopback() {
        return is_loopback_host(name);
    }
    match ip {
        Ok(ip) => listen.ip().is_unspecified() || ip == listen.ip() || ip.is_loopback(),
        Err(_) => name.eq_ignore_ascii_case("localhost"),
    }
}

/// `localhost`, `127.0.0.1`, `[::1]` and the like (one answer for every listener).
pub(crate) use crate::wire::gate::is_loopback_name as is_loopback_host;

/// Whether an `Origin` header value names a page served from this machine.
pub(crate) fn is_loopback_origin(origin: &str) -> bool {
    reqwest::Url::parse(origin.trim()).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https") && url.host_str().is_some_and(is_loopback_host)
    })
}

/// How long a proxy waits for an upstream's response headers by default (`--header-timeout`).
/// A GET (MCP's standalone SSE stream, which a server may open only when it has something to
/// say) is never timed out.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Whether the header timeout applies to a request with `method`.
pub(crate) fn header_timeout_applies(method: &axum::http::Method) -> bool {
    method != axum::http::Method::GET
}

/// Records a note when dropped while armed: the client left (its connection closed, so the
/// handler was dropped) before the upstream answered.
pub(crate) struct ClientLeft {
    recorder: std::sync::Arc<super::Recorder>,
    from: crate::trace::Lane,
    to: crate::trace::Lane,
    what: String,
    since: std::time::Instant,
    armed: bool,
}

impl ClientLeft {
    pub(crate) fn arm(
        recorder: std::sync::Arc<super::Recorder>,
        from: crate::trace::Lane,
        to: crate::trace::Lane,
        what: String,
    ) -> ClientLeft {
        ClientLeft {
            recorder,
            from,
            to,
            what,
            since: std::time::Instant::now(),
            armed: true,
        }
    }

    pub(crate) fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for ClientLeft {
    fn drop(&mut self) {
        if self.armed {
            let note = format!(
                "{}: the client left after {:.1} s, before the upstream sent its response headers",
                self.what,
                self.since.elapsed().as_secs_f64()
            );
            self.recorder
                .record_note(self.from.clone(), self.to.clone(), &note);
        }
    }
}

/// Waits for `sent` (the upstream's response headers), giving up after `timeout` (when given).
pub(crate) async fn send_with_timeout<T>(
    sent: impl std::future::Future<Output = Result<T, String>>,
    timeout: Option<std::time::Duration>,
) -> Result<T, SendError> {
    match timeout {
        Some(limit) => match tokio::time::timeout(limit, sent).await {
            Ok(result) => result.map_err(SendError::Transport),
            Err(_) => Err(SendError::Timeout(limit)),
        },
        None => sent.await.map_err(SendError::Transport),
    }
}

pub(crate) enum SendError {
    /// Why the upstream could not be reached, without the URL (credentials not yet scrubbed).
    Transport(String),
    Timeout(std::time::Duration),
}

/// An error and its causes, each after a colon.
pub(crate) fn describe_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_origins_pass() {
        assert!(is_loopback_origin("http://localhost:6274"));
        assert!(is_loopback_origin("http://127.0.0.1"));
        assert!(is_loopback_origin("https://[::1]:8080"));
        assert!(!is_loopback_origin("http://evil.example"));
        assert!(!is_loopback_origin("http://127.0.0.1.evil.example"));
        assert!(!is_loopback_origin("null"));
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut out = HeaderMap::new();
        for (name, value) in pairs {
            out.insert(*name, axum::http::HeaderValue::from_static(value));
        }
        out
    }

    #[test]
    fn host_must_name_the_listen_address() {
        let local: std::net::SocketAddr = "127.0.0.1:3001".parse().expect("addr");
        let ok = |pairs| refuse_foreign(&headers(pairs), local).is_none();
        assert!(ok(&[("host", "127.0.0.1:3001")]));
        assert!(ok(&[("host", "localhost:3001")]));
        assert!(ok(&[("host", "[::1]:3001")]));
        assert!(!ok(&[("host", "evil.example:3001")]));
        assert!(!ok(&[("host", "127.0.0.1:3002")]));
        assert!(!ok(&[("host", "127.0.0.1")]));
        assert!(!ok(&[]));
        assert!(ok(&[
            ("host", "127.0.0.1:3001"),
            ("origin", "http://localhost:6274")
        ]));
        assert!(!ok(&[
            ("host", "127.0.0.1:3001"),
            ("origin", "http://evil.example")
        ]));
        let all: std::net::SocketAddr = "0.0.0.0:8080".parse().expect("addr");
        let remote = |pairs| refuse_foreign(&headers(pairs), all).is_none();
        assert!(remote(&[("host", "192.168.1.20:8080")]));
        assert!(remote(&[
            ("host", "192.168.1.20:8080"),
            ("origin", "http://192.168.1.20:8080")
        ]));
        assert!(!remote(&[("host", "evil.example:8080")]));
        assert!(!remote(&[
            ("host", "192.168.1.20:8080"),
            ("origin", "http://evil.example")
        ]));
    }
}
