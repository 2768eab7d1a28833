//! What the HTTP proxies ([`super::llm_proxy`], [`super::http_proxy`]) share: which headers
//! are forwarded, headers as recorded pairs, the credentials to keep out of the record, and
//! serving with a bounded graceful shutdown.

use axum::http::{HeaderMap, HeaderName, header};

use crate::wire::redact::is_credential_header;
use crate::wire::redact::scrub_secret;

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

pub(crate) fn scrub(bytes: &mut Vec<u8>, secrets: &[String]) {
    for secret in secrets {
        scrub_secret(bytes, secret);
    }
}

/// A transport error and its causes, without the URL.
pub(crate) fn describe(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
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
    let (recorded_url, url_secrets) = super::llm_proxy::redact_url(url);
    secrets.extend(url_secrets);
    let mut recorded_headers = header_pairs(&headers);
    recorded_headers.push(("host".into(), upstream_host.to_string()));
    crate::wire::redact::redact_headers(&mut recorded_headers);
    let mut recorded_body = body.to_vec();
    scrub(&mut recorded_body, &secrets);
    let info = crate::trace::HttpInfo {
        method: Some(method.to_string()),
        url: Some(recorded_url.clone()),
        headers: recorded_headers,
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
