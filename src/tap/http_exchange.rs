//! The first half of one exchange, the same for both recording proxies (Streamable HTTP and
//! LLM API): a foreign request is refused (`403`, DNS rebinding protection); the body is read up
//! to [`BODY_LIMIT`] (over it: the request line and headers are recorded with a note, and
//! `413`); the request is recorded, then sent upstream within the header timeout (`504`), or
//! the upstream cannot be reached (`502`). Each refusal is answered in the proxy's own error
//! shape and recorded as a note. Each proxy then streams the response back its own way.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;

use super::Recorder;
use super::http_common::{
    ClientLeft, Outgoing, SendError, describe, header_timeout_applies, outgoing, refuse_foreign,
    send_with_timeout,
};
use crate::trace::{Channel, Lane};
use crate::wire::redact::scrub_secret_str;

/// The largest request body accepted (the Anthropic API's own limit).
pub const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// One proxy, as the first half of an exchange needs it.
pub(crate) struct Front<'a> {
    /// How the proxy names itself in its notes and error answers (`sightline proxy`).
    pub name: &'static str,
    pub recorder: &'a Arc<Recorder>,
    pub client: &'a reqwest::Client,
    /// Where the proxy listens: the `Host` every request must name.
    pub listen: SocketAddr,
    /// The `host` the upstream gets, for the record.
    pub upstream_host: &'a str,
    /// How long to wait for the upstream's response headers (not for a GET).
    pub header_timeout: Option<Duration>,
    /// The client's lane, the upstream's, and the channel requests are recorded on.
    pub client_lane: Lane,
    pub upstream_lane: Lane,
    pub channel: Channel,
    /// The proxy's error answer: a JSON-RPC error, or an API error body.
    pub error: fn(StatusCode, &str) -> Response,
}

/// A request recorded and sent: the upstream's response (headers received), and what
/// recording the response needs.
pub(crate) struct Sent {
    pub response: reqwest::Response,
    /// Credentials of the request, kept out of every record of the response.
    pub secrets: Vec<String>,
    /// The upstream URL with credential query parameters redacted.
    pub recorded_url: String,
    /// The `seq` of the recorded request.
    pub request_seq: u64,
}

impl Front<'_> {
    /// Checks, reads, records and sends one request to `url`; `Err` is the answer to give the
    /// client instead (already recorded).
    pub(crate) async fn send(
        &self,
        parts: &Parts,
        url: &str,
        body: Body,
    ) -> Result<Sent, Response> {
        let (client, upstream) = (&self.client_lane, &self.upstream_lane);
        if let Some(why) = refuse_foreign(&parts.headers, self.listen) {
            let message = format!(
                "{}: refused {why} (DNS rebinding protection); not forwarded",
                self.name
            );
            self.recorder
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
                let Outgoing { info, .. } =
                    outgoing(&parts.method, &parts.headers, url, self.upstream_host, &[]);
                self.recorder.batch(|b| {
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
            self.upstream_host,
            &body,
        );
        let request_seq = self.recorder.record_http(
            client.clone(),
            upstream.clone(),
            self.channel.clone(),
            info,
            recorded_body,
        );

        let left = ClientLeft::arm(
            self.recorder.clone(),
            client.clone(),
            upstream.clone(),
            format!("{}: {} {recorded_url}", self.name, parts.method),
        );
        let request = self
            .client
            .request(parts.method.clone(), url)
            .headers(headers)
            .body(body);
        let timeout = self
            .header_timeout
            .filter(|_| header_timeout_applies(&parts.method));
        let sent = send_with_timeout(request, timeout).await;
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
                self.recorder
                    .record_note(upstream.clone(), client.clone(), &message);
                Err((self.error)(StatusCode::GATEWAY_TIMEOUT, &message))
            }
            Err(SendError::Transport(err)) => {
                let mut detail = describe(&err.without_url());
                for secret in &secrets {
                    scrub_secret_str(&mut detail, secret);
                }
                let message = format!(
                    "{}: cannot reach the upstream {recorded_url}: {detail}",
                    self.name
                );
                self.recorder
                    .record_note(upstream.clone(), client.clone(), &message);
                Err((self.error)(StatusCode::BAD_GATEWAY, &message))
            }
        }
    }
}
