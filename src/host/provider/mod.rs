//! HTTP clients for the four LLM API shapes, recording every request and response.
//!
//! [`Provider::send`] serializes the request body once, records exactly those bytes as an
//! `llm-http` event from the host to the LLM, sends exactly those bytes, and records the
//! response (status, headers, body exactly as received) from the LLM to the host, before it
//! looks at the answer. A streamed answer (`text/event-stream`) is recorded as one event when
//! the stream ends and reassembled into the body the request would have got without
//! streaming ([`reassemble`]). Credentials are redacted from recorded headers ([`redact`]);
//! the API key is scrubbed from anything else that would be recorded.
//!
//! [`reassemble`]: crate::wire::reassemble
//! [`redact`]: crate::wire::redact
//!
//! When something goes wrong the trace still ends with the failing exchange: the response, if
//! one arrived, or a `note` from the LLM lane saying why none did.
//!
//! - [`error`]: [`ProviderError`], one line per failure, naming the URL.
//! - `request` / `response`: the endpoint and headers sent; reading the status and body.

pub mod error;
mod request;
mod response;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

pub use error::ProviderError;

use crate::tap::Recorder;
use crate::trace::{Channel, HttpInfo, Lane, Shared};
use crate::wire::api::ApiShape;
use crate::wire::redact::{self, REDACTED, is_credential_header, redact_headers};
use crate::wire::sse;
use request::{endpoint, is_loopback, request_headers};

/// What the importers ([`crate::trace::import`]) need for HTTP: this module's header redaction
/// and SSE parser. One definition for `sightline import` and the app's File > Import.
pub fn import_hooks() -> crate::trace::import::HttpHooks {
    crate::trace::import::HttpHooks {
        redact: redact_headers,
        sse_data: |bytes| {
            sse::SseParser::parse(bytes)
                .into_iter()
                .map(|e| e.data)
                .collect()
        },
        is_llm: |url| ApiShape::from_url(url).is_some(),
    }
}

/// How to reach one LLM API.
#[derive(Clone)]
pub struct ProviderConfig {
    pub shape: ApiShape,
    /// `https://api.anthropic.com`, `http://127.0.0.1:PORT`; the shape's path is appended
    /// (a trailing `/v1` is not doubled: `http://localhost:11434/v1` works too).
    pub base_url: String,
    /// The model asked for: Gemini names it in the path (`/v1beta/models/<model>:...`); the
    /// other shapes carry it in the body and ignore this.
    pub model: String,
    /// Required unless the base URL is on this machine (`localhost`, `127.0.0.0/8`, `::1`).
    pub api_key: Option<String>,
    /// Ask for a streamed answer: `"stream": true` is set in the request body (Gemini: the
    /// request goes to `:streamGenerateContent?alt=sse` instead, with the body unchanged).
    pub stream: bool,
    /// For the whole exchange, from sending the request to the last byte of the answer.
    pub timeout: Duration,
    /// Sent after the standard headers; one with the name of a standard header replaces it.
    pub extra_headers: Vec<(String, String)>,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut headers = self.extra_headers.clone();
        redact_headers(&mut headers);
        f.debug_struct("ProviderConfig")
            .field("shape", &self.shape)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| REDACTED))
            .field("stream", &self.stream)
            .field("timeout", &self.timeout)
            .field("extra_headers", &headers)
            .finish()
    }
}

/// What came back from a successful exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderReply {
    /// The response body; for a streamed answer, the equivalent non-streamed body.
    pub body: Value,
    /// `seq` of the recorded request event.
    pub request_seq: u64,
    /// `seq` of the recorded response event.
    pub response_seq: u64,
    pub status: u16,
}

/// An HTTP client for one LLM API.
pub struct Provider {
    client: reqwest::Client,
    config: ProviderConfig,
    /// The URL as recorded and shown: userinfo and credential query parameters redacted.
    url: String,
    /// The URL requests go to.
    send_url: String,
    /// What must never be recorded: the API key and the credentials in the URL.
    secrets: Vec<String>,
    /// Request headers in the order they are sent, credentials included.
    headers: Vec<(String, String)>,
    /// The `host` header the transport sends after them.
    host: String,
    header_map: HeaderMap,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("url", &self.url)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// Checks the configuration and builds the client. Fails with
    /// [`ProviderError::MissingKey`] when there is no key for an endpoint off this machine.
    pub fn new(config: ProviderConfig) -> Result<Provider, ProviderError> {
        let send_url = endpoint(&config.base_url, config.shape, &config.model, config.stream);
        let (url, mut secrets) = crate::wire::redact_url::redact_url(&send_url);
        secrets.extend(config.api_key.clone());
        let invalid = |detail: String| ProviderError::Config {
            url: url.clone(),
            detail,
        };
        let parsed = reqwest::Url::parse(&send_url)
            .map_err(|err| invalid(format!("the base URL is not a URL ({err})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid(format!(
                "the base URL must start with http:// or https://, not {}://",
                parsed.scheme()
            )));
        }
        let loopback = is_loopback(&parsed);
        let host = match (parsed.host_str(), parsed.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_string(),
            (None, _) => return Err(invalid("the base URL has no host".into())),
        };
        let key = config.api_key.as_deref().filter(|k| !k.trim().is_empty());
        if key.is_none() && !loopback {
            return Err(ProviderError::MissingKey {
                variable: config.shape.key_variable(),
                url,
            });
        }
        let headers = request_headers(&config, key);
        let mut header_map = HeaderMap::new();
        for (name, value) in &headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| invalid(format!("`{name}` is not a valid header name")))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                let what = match is_credential_header(name.as_str()) {
                    true => "the API key".to_string(),
                    false => format!("the value of `{name}`"),
                };
                invalid(format!("{what} has characters not allowed in a header"))
            })?;
            value.set_sensitive(is_credential_header(name.as_str()));
            header_map.append(name, value);
        }
        let mut builder = crate::tap::client::http().redirect(reqwest::redirect::Policy::none());
        if loopback {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|err| invalid(format!("cannot build the HTTP client ({err})")))?;
        Ok(Provider {
            client,
            config,
            url,
            send_url,
            secrets,
            headers,
            host,
            header_map,
        })
    }

    /// The full URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// POSTs `body` to the endpoint, recording the request (host -> llm) and the response
    /// (llm -> host) as `llm-http` events. Returns the response body as JSON: for a streamed
    /// response, the equivalent non-streamed body reassembled from the SSE events.
    pub async fn send(
        &self,
        body: &Value,
        recorder: &Recorder,
    ) -> Result<ProviderReply, ProviderError> {
        self.send_with_headers(body, &[], recorder).await
    }

    /// [`send`](Self::send) with `extra` headers on this request only (after the configured
    /// ones), for example the host's mark on a request it sends for a server's sampling.
    pub async fn send_with_headers(
        &self,
        body: &Value,
        extra: &[(&str, &str)],
        recorder: &Recorder,
    ) -> Result<ProviderReply, ProviderError> {
        let deadline = Instant::now() + self.config.timeout;
        let bytes = self.request_body(body)?;
        let mut recorded_body = bytes.clone();
        // The remote MCP servers' credentials the body hands the API (`mcp_servers`, an `mcp`
        // tool's `headers`) are scrubbed too, here and from the response.
        let scrubbed = redact::scrub_request(&mut recorded_body, &self.secrets);
        let redacted = scrubbed.redacted;
        let mut secrets = self.secrets.clone();
        secrets.extend(scrubbed.connector_secrets);
        let mut header_map = self.header_map.clone();
        let mut headers = self.headers.clone();
        for (name, value) in extra {
            let (Ok(header), Ok(header_value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) else {
                return Err(ProviderError::Config {
                    url: self.url.clone(),
                    detail: format!("the header `{name}` cannot be sent"),
                });
            };
            header_map.append(header, header_value);
            headers.push((name.to_string(), value.to_string()));
        }
        // What the transport adds after our headers, so the record matches the wire.
        headers.push(("host".into(), self.host.clone()));
        headers.push(("content-length".into(), bytes.len().to_string()));
        let request_info = HttpInfo {
            method: Some("POST".into()),
            url: Some(self.url.as_str().into()),
            headers: self.recorded(headers),
            redacted,
            ..HttpInfo::default()
        };
        let request_seq = recorder.record_http(
            Lane::Host,
            Lane::Llm,
            Channel::LlmHttp,
            request_info,
            recorded_body,
        );
        tracing::debug!(url = %self.url, bytes = bytes.len(), "sending LLM API request");
        let request = self
            .client
            .post(&self.send_url)
            .headers(header_map)
            .body(bytes);
        let mut response = match timeout_at(deadline, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(err)) if err.is_timeout() => return Err(self.no_response(recorder, None)),
            Ok(Err(err)) => return Err(self.no_response(recorder, Some(&err))),
            Err(_) => return Err(self.no_response(recorder, None)),
        };
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_string(), value)
            })
            .collect();
        let mut received = Vec::new();
        let mut broken = None;
        loop {
            match timeout_at(deadline, response.chunk()).await {
                Ok(Ok(Some(chunk))) => received.extend_from_slice(&chunk),
                Ok(Ok(None)) => break,
                Ok(Err(err)) if !err.is_timeout() => {
                    broken = Some(ProviderError::BodyCut {
                        url: self.url.clone(),
                        status,
                        detail: error::describe_transport(&err),
                    });
                    break;
                }
                Ok(Err(_)) | Err(_) => {
                    broken = Some(ProviderError::BodyTimeout {
                        url: self.url.clone(),
                        status,
                        timeout: self.config.timeout,
                        received: received.len(),
                    });
                    break;
                }
            }
        }
        // The key must not reach the trace, nor the caller, even if the API echoes it.
        let redacted = scrub_logged(&self.url, &mut received, &secrets);
        let response_info = HttpInfo {
            status: Some(status),
            headers: self.recorded(headers.clone()),
            redacted,
            ..HttpInfo::default()
        };
        let response_seq = recorder.record_http(
            Lane::Llm,
            Lane::Host,
            Channel::LlmHttp,
            response_info,
            received.clone(),
        );
        if let Some(err) = broken {
            recorder.record_note(Lane::Llm, Lane::Host, &err.to_string());
            return Err(err);
        }
        let body = self.interpret(status, &headers, &received)?;
        Ok(ProviderReply {
            body,
            request_seq,
            response_seq,
            status,
        })
    }

    /// The request body serialized once; `"stream": true` added when streaming is asked for
    /// (not for Gemini, whose URL says it and whose API refuses the field).
    fn request_body(&self, body: &Value) -> Result<Vec<u8>, ProviderError> {
        let serialized = match body {
            Value::Object(fields)
                if self.config.stream
                    && self.config.shape != ApiShape::Gemini
                    && fields.get("stream") != Some(&true.into()) =>
            {
                let mut fields = fields.clone();
                fields.insert("stream".into(), Value::Bool(true));
                serde_json::to_vec(&fields)
            }
            _ => serde_json::to_vec(body),
        };
        serialized.map_err(|err| ProviderError::Config {
            url: self.url.clone(),
            detail: format!("the request body cannot be serialized ({err})"),
        })
    }

    /// Headers as they are recorded: credentials redacted, the key scrubbed from the rest.
    fn recorded(&self, mut headers: Vec<(String, String)>) -> Vec<(Shared, Shared)> {
        redact_headers(&mut headers);
        for secret in &self.secrets {
            for (_, value) in headers.iter_mut() {
                redact::scrub_secret_str(value, secret);
            }
        }
        HttpInfo::headers_of(headers)
    }

    /// The error for an exchange that got no response, recorded as a note.
    fn no_response(&self, recorder: &Recorder, err: Option<&reqwest::Error>) -> ProviderError {
        let err = match err {
            Some(err) => ProviderError::Unreachable {
                url: self.url.clone(),
                detail: error::describe_transport(err),
            },
            None => ProviderError::Timeout {
                url: self.url.clone(),
                timeout: self.config.timeout,
            },
        };
        recorder.record_note(Lane::Llm, Lane::Host, &err.to_string());
        err
    }
}

/// Scrubs `secrets` (the key, the URL's credentials, the request's remote MCP servers') out of
/// a response body from `url`; returns where.
fn scrub_logged(url: &str, bytes: &mut Vec<u8>, secrets: &[String]) -> Vec<[usize; 2]> {
    let redacted = redact::scrub_secrets(bytes, secrets);
    if !redacted.is_empty() {
        tracing::warn!(url = %url, "a credential appeared in a response body; it is recorded as [redacted]");
    }
    redacted
}
