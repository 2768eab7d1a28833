//! OTLP/HTTP: where spans go (flags and the standard `OTEL_EXPORTER_OTLP_*` variables), and
//! sending one request with retries and backoff.
//!
//! Retries follow the OTLP/HTTP spec: a refused or broken connection, a timeout, 429, 502, 503
//! and 504 are transient and retried with exponential backoff; any other status is final.
//! Header values are credentials (`Authorization`, tenant keys): they are sent, never shown:
//! neither `Debug` nor any error prints them. The URL may carry credentials too (userinfo, a
//! `?token=` parameter): it is sent as given and shown only as [`Endpoint::shown`], redacted by
//! `wire::redact_url`, in every error, log line and trace note.

use std::fmt;
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;

use crate::wire::redact::scrub_secret_str;
use crate::wire::redact_url::redact_url;

/// The body encoding (`--otlp-protocol`, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`, the OTLP default.
    Protobuf,
    /// `http/json`.
    Json,
}

impl Protocol {
    pub fn parse(s: &str) -> Option<Protocol> {
        match s {
            "http/protobuf" => Some(Protocol::Protobuf),
            "http/json" => Some(Protocol::Json),
            _ => None,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// A resolved OTLP/HTTP traces endpoint.
#[derive(Clone)]
pub struct Endpoint {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub protocol: Protocol,
    /// Per request (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds; default 10 s).
    pub timeout: Duration,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Endpoint")
            .field("url", &self.shown())
            .field("headers", &names)
            .field("protocol", &self.protocol)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why an endpoint could not be set up or a request failed. Each names the endpoint as
/// [`Endpoint::shown`] (its credentials redacted) and never a header's value.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("no OTLP endpoint: give --endpoint URL or set OTEL_EXPORTER_OTLP_ENDPOINT")]
    NoEndpoint,
    #[error("{0}")]
    Config(String),
    #[error("OTLP endpoint {endpoint} answered HTTP {status}{detail}")]
    Status {
        endpoint: String,
        status: u16,
        detail: String,
    },
    #[error("OTLP endpoint {endpoint} did not answer within {timeout:?}")]
    Timeout { endpoint: String, timeout: Duration },
    #[error("cannot reach OTLP endpoint {endpoint}: {detail}")]
    Connect { endpoint: String, detail: String },
}

impl SendError {
    fn retryable(&self) -> bool {
        match self {
            SendError::Status { status, .. } => matches!(status, 429 | 502 | 503 | 504),
            SendError::Timeout { .. } | SendError::Connect { .. } => true,
            _ => false,
        }
    }
}

/// `k=v,k2=v2` (values percent-decoded), as `OTEL_EXPORTER_OTLP_HEADERS` spells headers.
fn env_headers(s: &str) -> Result<Vec<(String, String)>, SendError> {
    s.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                // The key is shown, the value is not.
                SendError::Config(format!(
                    "OTEL_EXPORTER_OTLP_HEADERS: `{}` is not KEY=VALUE",
                    pair.split('=').next().unwrap_or("").trim()
                ))
            })?;
            Ok((k.trim().to_string(), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Adds `/v1/traces` to a base URL with no path (`http://host:4318`), as the OTLP spec does for
/// `OTEL_EXPORTER_OTLP_ENDPOINT`; a URL with a path is used as it is.
fn traces_url(base: &str, force_suffix: bool) -> Result<String, SendError> {
    let shown = redact_url(base).0;
    let url = reqwest::Url::parse(base)
        .map_err(|e| SendError::Config(format!("OTLP endpoint `{shown}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(SendError::Config(format!(
            "OTLP endpoint `{shown}` is not http:// or https://"
        )));
    }
    if force_suffix || url.path() == "/" || url.path().is_empty() {
        // Into the path, before a query or fragment the URL may carry (`?token=`).
        let after_scheme = base.find("://").map_or(0, |i| i + 3);
        let end = base[after_scheme..]
            .find(['?', '#'])
            .map_or(base.len(), |i| after_scheme + i);
        let (path, rest) = base.split_at(end);
        Ok(format!("{}/v1/traces{rest}", path.trim_end_matches('/')))
    } else {
        Ok(base.to_string())
    }
}

impl Endpoint {
    /// The URL as it may be printed or recorded: userinfo and credential query parameters
    /// replaced by `[redacted]` (`wire::redact_url`).
    pub fn shown(&self) -> String {
        redact_url(&self.url).0
    }

    /// `text` (a backend's or a transport's words) with the URL's credentials taken out.
    fn scrubbed(&self, mut text: String) -> String {
        for secret in redact_url(&self.url).1 {
            scrub_secret_str(&mut text, &secret);
        }
        text
    }

    /// The endpoint from flags, falling back to the standard variables (read through `env`):
    /// `--endpoint` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as is) else
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; headers from the variables, then
    /// `--otlp-header K=V` (later wins).
    pub fn resolve(
        url: Option<&str>,
        headers: &[String],
        protocol: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Endpoint, SendError> {
        let url = match (url, env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
            (Some(u), _) => traces_url(u, false)?,
            (None, Some(u)) if !u.is_empty() => traces_url(&u, false)?,
            _ => match env("OTEL_EXPORTER_OTLP_ENDPOINT").filter(|u| !u.is_empty()) {
                Some(base) => traces_url(&base, true)?,
                None => return Err(SendError::NoEndpoint),
            },
        };
        let mut all = Vec::new();
        for var in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        ] {
            if let Some(v) = env(var) {
                all.extend(env_headers(&v).map_err(|e| {
                    SendError::Config(e.to_string().replace("OTEL_EXPORTER_OTLP_HEADERS", var))
                })?);
            }
        }
        for h in headers {
            let (k, v) = h.split_once('=').ok_or_else(|| {
                // Only a `Name: value` header's name is shown: the text may be all credential.
                SendError::Config(match h.split_once(':') {
                    Some((name, _)) if !name.trim().is_empty() && !name.contains(' ') => format!(
                        "--otlp-header `{}: ...` is not KEY=VALUE (write {}=VALUE)",
                        name.trim(),
                        name.trim()
                    ),
                    _ => "an --otlp-header is not KEY=VALUE (its text is not shown: it may be \
                          a credential)"
                        .to_string(),
                })
            })?;
            all.retain(|(name, _): &(String, String)| !name.eq_ignore_ascii_case(k.trim()));
            all.push((k.trim().to_string(), v.to_string()));
        }
        let protocol = match protocol
            .map(str::to_string)
            .or_else(|| env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
            .or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"))
        {
            None => Protocol::Protobuf,
            Some(p) => Protocol::parse(&p).ok_or_else(|| {
                SendError::Config(format!(
                    "OTLP protocol `{p}`: Sightline speaks http/protobuf and http/json (no gRPC)"
                ))
            })?,
        };
        let timeout = env("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
            .or_else(|| env("OTEL_EXPORTER_OTLP_TIMEOUT"))
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis);
        Ok(Endpoint {
            url,
            headers: all,
            protocol,
            timeout,
        })
    }
}

/// Sends OTLP requests to one endpoint.
pub struct Sender {
    endpoint: Endpoint,
    client: reqwest::Client,
    /// Attempts per request (1 = no retry).
    pub attempts: u32,
    /// Wait before the first retry; doubled for each next one.
    pub backoff: Duration,
}

impl Sender {
    /// A sender to `endpoint` through a client made from `client` (`tap::client::http`, which
    /// this module may not use, so its TLS back end is the rest of the process's).
    pub fn new(endpoint: Endpoint, client: reqwest::ClientBuilder) -> Result<Sender, SendError> {
        let client = client
            .timeout(endpoint.timeout)
            .build()
            .map_err(|e| SendError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Sender {
            endpoint,
            client,
            attempts: 4,
            backoff: Duration::from_millis(250),
        })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Encodes and sends one request, retrying transient failures with backoff.
    pub async fn send(&self, request: &ExportTraceServiceRequest) -> Result<(), SendError> {
        let body = match self.endpoint.protocol {
            Protocol::Protobuf => super::to_protobuf(request),
            Protocol::Json => super::to_json(request).into_bytes(),
        };
        let mut wait = self.backoff;
        let mut attempt = 1;
        loop {
            match self.post(body.clone()).await {
                Ok(()) => return Ok(()),
                Err(err) if err.retryable() && attempt < self.attempts => {
                    tracing::debug!("{err}; retrying in {wait:?}");
                    tokio::time::sleep(wait).await;
                    wait *= 2;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    async fn post(&self, body: Vec<u8>) -> Result<(), SendError> {
        let endpoint = &self.endpoint;
        let mut request = self
            .client
            .post(&endpoint.url)
            .header("content-type", endpoint.protocol.content_type())
            .body(body);
        for (k, v) in &endpoint.headers {
            request = request.header(k.as_str(), v.as_str());
        }
        let response = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        // A short piece of the backend's explanation helps; it holds no header of ours.
        let text = response.text().await.unwrap_or_default();
        let text: String = text.chars().filter(|c| !c.is_control()).take(160).collect();
        Err(SendError::Status {
            endpoint: endpoint.shown(),
            status: status.as_u16(),
            detail: if text.trim().is_empty() {
                String::new()
            } else {
                endpoint.scrubbed(format!(": {}", text.trim()))
            },
        })
    }

    fn transport_error(&self, e: &reqwest::Error) -> SendError {
        let endpoint = self.endpoint.shown();
        if e.is_timeout() {
            return SendError::Timeout {
                endpoint,
                timeout: self.endpoint.timeout,
            };
        }
        // The innermost cause says what happened (connection refused, DNS); reqwest's own text
        // repeats the URL.
        let mut detail = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            detail = s.to_string();
            source = s.source();
        }
        let detail = self.endpoint.scrubbed(detail);
        SendError::Connect { endpoint, detail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn endpoints_and_headers_follow_the_otlp_variables() {
        let e = Endpoint::resolve(
            None,
            &[],
            None,
            &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")]),
        )
        .expect("base");
        assert_eq!(e.url, "http://c:4318/v1/traces");
        assert_eq!(e.protocol, Protocol::Protobuf);
        let e = Endpoint::resolve(
            None,
            &["x-tenant=b".into()],
            Some("http/json"),
            &env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/"),
                (
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                    "http://t/api/public/otel/v1/traces",
                ),
                (
                    "OTEL_EXPORTER_OTLP_HEADERS",
                    "Authorization=Basic%20c2VjcmV0,x-tenant=a",
                ),
            ]),
        )
        .expect("traces");
        assert_eq!(e.url, "http://t/api/public/otel/v1/traces");
        assert_eq!(e.protocol, Protocol::Json);
        assert_eq!(
            e.headers,
            [
                ("Authorization".to_string(), "Basic c2VjcmV0".to_string()),
                ("x-tenant".to_string(), "b".to_string())
            ]
        );
        let shown = format!("{e:?}");
        assert!(
            shown.contains("Authorization") && !shown.contains("c2VjcmV0"),
            "{shown}"
        );
        assert!(matches!(
            Endpoint::resolve(None, &[], None, &env(&[])),
            Err(SendError::NoEndpoint)
        ));
        let err = Endpoint::resolve(
            Some("http://c"),
            &["Authorization: Bearer sk-1".into()],
            None,
            &env(&[]),
        )
        .expect_err("no =");
        assert!(!err.to_string().contains("sk-1"), "{err}");
        assert!(err.to_string().contains("Authorization"), "{err}");
        let err = Endpoint::resolve(Some("http://c"), &["Bearer sk-2".into()], None, &env(&[]))
            .expect_err("no = and no name");
        assert!(!err.to_string().contains("sk-2"), "{err}");
        assert!(Endpoint::resolve(Some("http://c"), &[], Some("grpc"), &env(&[])).is_err());
        assert_eq!(
            Endpoint::resolve(Some("http://c:4318"), &[], None, &env(&[]))
                .expect("flag")
                .url,
            "http://c:4318/v1/traces"
        );
    }
}
