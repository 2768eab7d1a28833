//! What can go wrong talking to an LLM API, each as one line that names the URL.

use std::time::Duration;

use serde_json::Value;

/// A failed exchange with an LLM API. Every message is one line and names the URL.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The configuration cannot work (a base URL that is not a URL, a header that is not valid).
    #[error("invalid provider configuration for {url}: {detail}")]
    Config { url: String, detail: String },
    /// No API key for an endpoint that is not on this machine. Nothing was sent.
    #[error("{variable} is not set (needed to call {url})")]
    MissingKey { variable: &'static str, url: String },
    /// Connection refused, DNS, TLS: no response arrived.
    #[error("cannot reach {url}: {detail}")]
    Unreachable { url: String, detail: String },
    /// No response (not even a status line) within the configured time.
    #[error("no response from {url} within {} s", secs(*.timeout))]
    Timeout { url: String, timeout: Duration },
    /// The status and headers arrived but the body did not finish in time.
    #[error("{url} did not finish its response within {} s ({status}, {received} bytes received)", secs(*.timeout))]
    BodyTimeout {
        url: String,
        status: u16,
        timeout: Duration,
        received: usize,
    },
    /// The connection broke while the body was arriving.
    #[error("{url} answered {status} but the connection broke mid-body: {detail}")]
    BodyCut {
        url: String,
        status: u16,
        detail: String,
    },
    /// 401 or 403. `variable` holds the key; `key_sent` says whether one was sent.
    #[error("{url} refused the API key ({status}): {message} ({})", key_hint(*.key_sent, .variable))]
    Unauthorized {
        url: String,
        status: u16,
        message: String,
        variable: &'static str,
        key_sent: bool,
    },
    /// 429. `retry_after` in seconds, from `retry-after` (or `retry-after-ms`).
    #[error("rate limited by {url} (429), {}{}", retry_phrase(*.retry_after), message_suffix(.message))]
    RateLimited {
        url: String,
        retry_after: Option<u64>,
        message: String,
    },
    /// Any other status that is not 2xx.
    #[error("{url} answered {status}: {message}")]
    Status {
        url: String,
        status: u16,
        message: String,
    },
    /// A 2xx whose body is not JSON.
    #[error("{url} answered {status} with a body that is not JSON: {snippet}")]
    NotJson {
        url: String,
        status: u16,
        snippet: String,
    },
    /// A 2xx event stream that does not make a complete answer.
    #[error("{url} answered {status} with a stream that could not be reassembled: {detail}")]
    BadStream {
        url: String,
        status: u16,
        detail: String,
    },
}

impl ProviderError {
    /// The HTTP status, when a response arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            ProviderError::BodyTimeout { status, .. }
            | ProviderError::BodyCut { status, .. }
            | ProviderError::Unauthorized { status, .. }
            | ProviderError::Status { status, .. }
            | ProviderError::NotJson { status, .. }
            | ProviderError::BadStream { status, .. } => Some(*status),
            ProviderError::RateLimited { .. } => Some(429),
            _ => None,
        }
    }

    /// How long the API asked to wait before retrying, for a 429 that said so.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } => retry_after.map(Duration::from_secs),
            _ => None,
        }
    }
}

/// `0.3`, `30`, `1.5`: a duration in seconds without trailing zeros.
pub(crate) fn secs(duration: Duration) -> String {
    format!("{}", duration.as_secs_f64())
}

fn key_hint(key_sent: bool, variable: &str) -> String {
    match key_sent {
        true => format!("check {variable}"),
        false => format!("no API key was sent; set {variable}"),
    }
}

fn retry_phrase(retry_after: Option<u64>) -> String {
    match retry_after {
        Some(secs) => format!("retry after {secs} s"),
        None => "no retry-after given".to_string(),
    }
}

fn message_suffix(message: &str) -> String {
    match message.is_empty() {
        true => String::new(),
        false => format!(": {message}"),
    }
}

/// The first `max` characters of `text` on one line: control characters become spaces,
/// runs of whitespace one space, and a cut is marked with `…`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let words: Vec<&str> = text
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .collect();
    crate::wire::text::clip_words(&words.join(" "), max).into_owned()
}

/// A short description of what an error body says: `error.message` (Anthropic, OpenAI),
/// a plain `error` or `message` or `detail` string (gateways, local servers), else the first
/// 200 characters of the body.
pub(crate) fn error_message(body: &[u8]) -> String {
    if let Ok(json) = serde_json::from_slice::<Value>(body) {
        let candidates = [
            json.pointer("/error/message"),
            json.get("error"),
            json.get("message"),
            json.get("detail"),
            json.pointer("/detail/0/msg"),
        ];
        if let Some(text) = candidates.into_iter().flatten().find_map(Value::as_str) {
            return one_line(text, 200);
        }
    }
    body_snippet(body)
}

/// The first 200 characters of a body on one line, or `(empty body)`.
pub(crate) fn body_snippet(body: &[u8]) -> String {
    let text = one_line(&String::from_utf8_lossy(body), 200);
    match text.is_empty() {
        true => "(empty body)".to_string(),
        false => text,
    }
}

/// Seconds from a `retry-after` header (delay-seconds or an HTTP date) or, failing that, from
/// `retry-after-ms` (rounded up).
pub(crate) fn retry_after(headers: &[(String, String)]) -> Option<u64> {
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    if let Some(value) = find("retry-after") {
        if let Ok(secs) = value.parse::<u64>() {
            return Some(secs);
        }
        if let Ok(secs) = value.parse::<f64>()
            && secs.is_finite()
            && secs >= 0.0
        {
            return Some(secs.ceil() as u64);
        }
        if let Ok(date) = chrono::DateTime::parse_from_rfc2822(value) {
            let wait = date.timestamp() - chrono::Utc::now().timestamp();
            return Some(wait.max(0) as u64);
        }
    }
    let ms = find("retry-after-ms")?.parse::<f64>().ok()?;
    (ms.is_finite() && ms >= 0.0).then(|| (ms / 1000.0).ceil() as u64)
}

/// What a transport error says, without reqwest's generic outer layer: the chain of causes,
/// e.g. `tcp connect error: Connection refused (os error 111)`.
pub(crate) fn describe_transport(err: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        let noise = text.starts_with("client error (");
        if !noise && !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    match parts.is_empty() {
        true => one_line(&err.to_string(), 300),
        false => one_line(&parts.join(": "), 300),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_and_cuts() {
        assert_eq!(one_line("  a\n\n b\tc\r\n", 200), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("ab cdef", 3), "ab…");
        assert_eq!(one_line("", 3), "");
    }

    #[test]
    fn error_messages_from_common_bodies() {
        let anthropic = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(error_message(anthropic), "invalid x-api-key");
        assert_eq!(
            error_message(br#"{"error":"model 'x' not found"}"#),
            "model 'x' not found"
        );
        assert_eq!(
            error_message(br#"{"object":"error","message":"bad"}"#),
            "bad"
        );
        assert_eq!(error_message(br#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(
            error_message(b"<html>\n<b>502</b></html>"),
            "<html> <b>502</b></html>"
        );
        assert_eq!(error_message(b""), "(empty body)");
    }

    #[test]
    fn retry_after_in_its_forms() {
        let h = |name: &str, value: &str| vec![(name.to_string(), value.to_string())];
        assert_eq!(retry_after(&h("Retry-After", "7")), Some(7));
        assert_eq!(retry_after(&h("retry-after", "1.2")), Some(2));
        assert_eq!(retry_after(&h("retry-after-ms", "1500")), Some(2));
        assert_eq!(retry_after(&h("retry-after", "soon")), None);
        let past = "Wed, 21 Oct 2015 07:28:00 GMT";
        assert_eq!(retry_after(&h("retry-after", past)), Some(0));
        assert_eq!(retry_after(&[]), None);
    }

    #[test]
    fn messages_are_single_lines_with_the_url() {
        let url = "http://127.0.0.1:9/v1/messages".to_string();
        let err = ProviderError::Timeout {
            url: url.clone(),
            timeout: Duration::from_millis(300),
        };
        assert_eq!(
            err.to_string(),
            format!("no response from {url} within 0.3 s")
        );
        let err = ProviderError::RateLimited {
            url: url.clone(),
            retry_after: Some(7),
            message: String::new(),
        };
        assert_eq!(
            err.to_string(),
            format!("rate limited by {url} (429), retry after 7 s")
        );
        assert_eq!(err.retry_after(), Some(Duration::from_secs(7)));
        assert_eq!(err.status(), Some(429));
    }
}
