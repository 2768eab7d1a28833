//! The first half of one exchange, the same for both recording proxies (Streamable HTTP and
//! LLM API): a foreign request is refused (`403`, DNS rebinding protection); the body is read up
//! to [`BODY_LIMIT`] (over it: the request line and headers are recorded with a note, and
//! `413`); the request is recorded, then sent upstream within the header timeout (`504`), or
//! the upstream cannot be reached (`502`). Each refusal is answered in the proxy's own error
//! shape and recorded as a note. Each proxy then streams the response back its own way, and
//! passes it on with [`pass_on`]. Here too what both keep for every exchange ([`Link`]), the
//! client they forward with, and their JSON answers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::Recorder;
use super::http_common::{
    ClientLeft, HEADER_TIMEOUT, Outgoing, SendError, describe, header_timeout_applies,
    is_loopback_host, outgoing, refuse_foreign, send_with_timeout, without_hop_by_hop,
};
use crate::trace::{Channel, Lane};
use crate::wire::redact::scrub_secret_str;
use axum::body::Bytes;

/// The largest request body accepted ([`crate::trace::BODY_LIMIT`]).
pub const BODY_LIMIT: usize = crate::trace::BODY_LIMIT;

/// What each proxy keeps for every exchange, the same for both.
pub(crate) struct Link {
    pub client: reqwest::Client,
    pub recorder: Arc<Recorder>,
    /// Where the proxy listens: the `Host` every request must name.
    pub listen: SocketAddr,
    /// The `host` the upstream gets (`HOST[:PORT]`), for the record.
    pub upstream_host: String,
    /// How long to wait for the upstream's response headers (not for a GET).
    pub header_timeout: Option<Duration>,
}

impl Link {
    /// A proxy's link listening on `listen`, with the default header timeout.
    pub(crate) fn new(
        client: reqwest::Client,
        recorder: Arc<Recorder>,
        listen: SocketAddr,
        upstream_host: String,
    ) -> Link {
        Link {
            client,
            recorder,
            listen,
            upstream_host,
            header_timeout: Some(HEADER_TIMEOUT),
        }
    }
}

/// One proxy, as the first half of an exchange needs it.
pub(crate) struct Front<'a> {
    /// How the proxy names itself in its notes and error answers (`sightline proxy`).
    pub name: &'static str,
    pub link: &'a Link,
    /// The client's lane, the upstream's, and the channel requests are recorded on.
    pub client_lane: Lane,
    pub upstream_lane: Lane,
    pub channel: Channel,
    /// The proxy's error answer: a JSON-RPC error, or an API error body.
    pub error: fn(StatusCode, &str) -> Response,
}

/// The client a proxy forwards with: redirects passed back rather than followed, 30 s to
/// connect, and no system proxy in the way of a loopback upstream.
pub(crate) fn client_for(host: &str) -> reqwest::Result<reqwest::Client> {
    let mut builder = super::client::http()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(30));
    if is_loopback_host(host) {
        builder = builder.no_proxy();
    }
    builder.build()
}

/// `HOST[:PORT]` of an upstream URL: the `Host` a request to it names.
pub(crate) fn host_and_port(url: &reqwest::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        (None, _) => String::new(),
    }
}

/// The response the client gets: the upstream's status and headers (hop-by-hop ones dropped)
/// over `body`, the stream that records the response as it passes.
pub(crate) fn pass_on(status: StatusCode, received: &HeaderMap, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = without_hop_by_hop(received);
    response
}

/// A proxy's own answer: `body` as JSON with `status`.
pub(crate) fn json_answer(status: StatusCode, body: &serde_json::Value) -> Response {
    let content_type = [(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    )];
    (status, content_type, body.to_string()).into_response()
}

/// A request recorded and sent: the upstream's response (headers received), and what
/// recording the response needs.
pub(crate) struct Sent<R = reqwest::Response> {
    pub response: R,
    /// Credentials of the request, kept out of every record of the response.
    pub secrets: Vec<String>,
    /// The upstream URL with credential query parameters redacted.
    pub recorded_url: String,
    /// The `seq` of the recorded request.
    pub request_seq: u64,
}

/// A request checked, read and recorded, ready to go upstream.
pub(crate) struct Recorded {
    /// The headers to send: the client's, without hop-by-hop headers and `Host`.
    pub headers: HeaderMap,
    pub body: Bytes,
    /// How long to wait for the response headers.
    pub timeout: Option<Duration>,
    secrets: Vec<String>,
    recorded_url: String,
    request_seq: u64,
    left: ClientLeft,
}

impl Front<'_> {
    /// Checks, reads, records and sends one request to `url` with the link's client; `Err` is
    /// the answer to give the client instead (already recorded).
    pub(crate) async fn send(
        &self,
        parts: &Parts,
        url: &str,
        body: Body,
    ) -> Result<Sent, Response> {
        let mut recorded = self.record(parts, url, body).await?;
        let request = self
            .link
            .client
            .request(parts.method.clone(), url)
            .headers(std::mem::take(&mut recorded.headers))
            .body(std::mem::take(&mut recorded.body));
        let sent = send_with_timeout(
            async {
                request
                    .send()
                    .await
                    .map_err(|err| describe(&err.without_url()))
            },
            recorded.timeout,
        )
        .await;
        self.answered(recorded, sent)
    }

    /// Checks, reads and records one request to `url`; `Err` is the answer to give the client
    /// instead (already recorded). Send it, then hand what came back to
    /// [`answered`](Front::answered).
    pub(crate) async fn record(
        &self,
        parts: &Parts,
        url: &str,
        body: Body,
    ) -> Result<Recorded, Response> {
        let (client, upstream) = (&self.client_lane, &self.upstream_lane);
        if let Some(why) = refuse_foreign(&parts.headers, self.link.listen) {
            let message = format!(
                "{}: refused {why} (DNS rebinding protection); not forwarded",
                self.name
            );
            self.link
                .recorder
                .record_note(client.clone(), upstream.clone(), &message);
            return Err((self.error)(StatusCode::FORBIDDEN, &message));
        }
        let body = match axum::body::to_bytes(body, BODY_LIMIT).await {
            Ok(body) => body,
            Err(err) => {
                let message = format!(
                    "{}: cannot read the request body ({err}; the limit is {} MiB): not \
                     forwarded, answered 413",
                    self.name,
                    BODY_LIMIT >> 20
                );
                let Outgoing { info, .. } = outgoing(
                    &parts.method,
                    &parts.headers,
                    url,
                    &self.link.upstream_host,
                    &[],
                );
                self.link.recorder.batch(|b| {
                    b.record_http(
                        client.clone(),
                        upstream.clone(),
                        self.channel.clone(),
                        info,
                        Vec::new(),
                    );
                    b.record_note(client.clone(), upstream.clone(), &message);
                });
                return Err((self.error)(StatusCode::PAYLOAD_TOO_LARGE, &message));
            }
        };
        let Outgoing {
            headers,
            secrets,
            recorded_url,
            info,
            recorded_body,
        } = outgoing(
            &parts.method,
            &parts.headers,
            url,
            &self.link.upstream_host,
            &body,
        );
        let request_seq = self.link.recorder.record_http(
            client.clone(),
            upstream.clone(),
            self.channel.clone(),
            info,
            recorded_body,
        );

        let left = ClientLeft::arm(
            self.link.recorder.clone(),
            client.clone(),
            upstream.clone(),
            format!("{}: {} {recorded_url}", self.name, parts.method),
        );
        let timeout = self
            .link
            .header_timeout
            .filter(|_| header_timeout_applies(&parts.method));
        Ok(Recorded {
            headers,
            body,
            timeout,
            secrets,
            recorded_url,
            request_seq,
            left,
        })
    }

    /// What the upstream answered to a [`Recorded`] request: its response, or the answer to
    /// give the client instead (`504`, `502`; recorded as a note).
    // The `Err` is the response itself, handed straight back to axum (as `send` does).
    #[allow(clippy::result_large_err)]
    pub(crate) fn answered<R>(
        &self,
        recorded: Recorded,
        sent: Result<R, SendError>,
    ) -> Result<Sent<R>, Response> {
        let (client, upstream) = (&self.client_lane, &self.upstream_lane);
        let Recorded {
            secrets,
            recorded_url,
            request_seq,
            left,
            ..
        } = recorded;
        left.disarm();
        match sent {
            Ok(response) => Ok(Sent {
                response,
                secrets,
                recorded_url,
                request_seq,
            }),
            Err(SendError::Timeout(limit)) => {
                let message = format!(
                    "{}: the upstream {recorded_url} sent no response headers within {} s; \
                     answered 504",
                    self.name,
                    limit.as_secs_f64()
                );
                self.link
                    .recorder
                    .record_note(upstream.clone(), client.clone(), &message);
                Err((self.error)(StatusCode::GATEWAY_TIMEOUT, &message))
            }
            Err(SendError::Transport(mut detail)) => {
                for secret in &secrets {
                    scrub_secret_str(&mut detail, secret);
                }
                let message = format!(
                    "{}: cannot reach the upstream {recorded_url}: {detail}",
                    self.name
                );
                self.link
                    .recorder
                    .record_note(upstream.clone(), client.clone(), &message);
                Err((self.error)(StatusCode::BAD_GATEWAY, &message))
            }
        }
    }
}
