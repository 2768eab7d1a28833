//! Credential redaction for recorded HTTP headers and bodies.
//!
//! Headers are redacted by name when they are recorded, so a trace never holds a credential:
//! `authorization`, `proxy-authorization`, `x-api-key`, `api-key`, `cookie`, `set-cookie`, and
//! every header whose name contains `key`, `token`, `secret` or `auth`. Authorization values
//! keep their scheme (`Bearer [redacted]`) so the trace still shows how the host authenticated.
//!
//! One exception keeps rate-limit bookkeeping readable: a header whose name contains
//! `ratelimit` (`anthropic-ratelimit-input-tokens-remaining`, `x-ratelimit-reset-tokens`) is
//! kept when its value is plainly a count, a duration or a timestamp (`1000`, `6m0s`,
//! `2026-11-29T22:52:27Z`). Any other value in such a header is redacted like the rest.

use memchr::memmem;

// By path, so the fuzz crate, which compiles this file by path too, finds it.
#[path = "redact/connector.rs"]
mod connector;

pub use connector::{Scrubbed, scrub_request};

/// What a redacted value (or the secret part of it) is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Header names whose value is a credential whatever it looks like.
const CREDENTIAL_NAMES: [&str; 6] = [
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
    "set-cookie",
];

/// Parts of a header name that mark it as carrying a credential.
const CREDENTIAL_PARTS: [&str; 4] = ["key", "token", "secret", "auth"];

/// Whether a header's value must not be recorded (`name` in any case).
pub fn is_credential_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_NAMES.contains(&name.as_str())
        || CREDENTIAL_PARTS.iter().any(|part| name.contains(part))
}

/// Replaces the value of every credential header with `[redacted]`, keeping order, names and
/// duplicates. `authorization: Bearer sk-...` becomes `Bearer [redacted]`.
pub fn redact_headers(headers: &mut [(String, String)]) {
    for (name, value) in headers.iter_mut() {
        if is_credential_header(name) && !is_rate_limit_figure(name, value) {
            *value = redacted_value(name, value);
        }
    }
}

/// The recorded form of a credential header's value.
fn redacted_value(name: &str, value: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        // `<scheme> <credentials>`: the scheme is a single token such as Bearer or Basic.
        if let Some((scheme, rest)) = value.trim_start().split_once(' ')
            && !scheme.is_empty()
            && !rest.trim().is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return format!("{scheme} {REDACTED}");
        }
    }
    REDACTED.to_string()
}

/// A rate-limit header holding a count, a duration or a timestamp rather than a credential.
fn is_rate_limit_figure(name: &str, value: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let rate_limit = lower.contains("ratelimit") || lower.contains("rate-limit");
    let figure = !value.is_empty()
        && value.len() <= 40
        && value.starts_with(|c: char| c.is_ascii_digit())
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || ".:-+, TZsmh".contains(c));
    rate_limit && figure && !lower.contains("secret") && !lower.contains("api-key")
}

/// Replaces every occurrence of each of `secrets` (those of 8 bytes or more; at one place the
/// longest that matches) with `[redacted]`, in one pass. Shorter secrets are left alone:
/// replacing them would mangle ordinary text, and no real API key is that short. Returns where the replacements sit
/// in the result, as `[start, end)` byte ranges in order: what a recorded event lists in its
/// `redacted` field, so the trace never claims exact bytes where it holds none.
pub fn scrub_secrets(bytes: &mut Vec<u8>, secrets: &[String]) -> Vec<[usize; 2]> {
    let spans = secret_spans(bytes, secrets);
    replace_spans(bytes, &spans)
}

/// Where `secrets` (those of 8 bytes or more) occur in `bytes`, as `[start, end)` ranges in
/// order, none overlapping: at one place the longest that matches.
pub(crate) fn secret_spans(bytes: &[u8], secrets: &[String]) -> Vec<[usize; 2]> {
    let mut needles: Vec<&[u8]> = secrets
        .iter()
        .map(|s| s.as_bytes())
        .filter(|s| s.len() >= 8)
        .collect();
    needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut spans = Vec::new();
    let mut from = 0;
    loop {
        // The earliest match; at equal places the longest (the needles are longest first).
        let next = needles
            .iter()
            .filter_map(|n| memmem::find(&bytes[from..], n).map(|at| (from + at, n.len())))
            .min_by_key(|(at, _)| *at);
        let Some((at, len)) = next else { break };
        spans.push([at, at + len]);
        from = at + len;
    }
    spans
}

/// Replaces each of `spans` (`[start, end)` in order, none overlapping) with `[redacted]`;
/// returns where the replacements sit in the result.
pub(crate) fn replace_spans(bytes: &mut Vec<u8>, spans: &[[usize; 2]]) -> Vec<[usize; 2]> {
    if spans.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut ranges = Vec::with_capacity(spans.len());
    let mut done = 0;
    for &[start, end] in spans {
        let (start, end) = (start.max(done), end.min(bytes.len()));
        if start > end {
            continue;
        }
        out.extend_from_slice(&bytes[done..start]);
        ranges.push([out.len(), out.len() + REDACTED.len()]);
        out.extend_from_slice(REDACTED.as_bytes());
        done = end;
    }
    out.extend_from_slice(&bytes[done..]);
    *bytes = out;
    ranges
}

/// [`scrub_secrets`] for one secret in a string.
pub fn scrub_secret_str(text: &mut String, secret: &str) {
    if secret.len() >= 8 && text.contains(secret) {
        *text = text.replace(secret, REDACTED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn credentials_are_redacted_in_place_and_order_is_kept() {
        let mut headers = pairs(&[
            ("x-api-key", "sk-ant-api03-secret"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
            ("Authorization", "Bearer sk-proj-abcdef"),
            ("Proxy-Authorization", "Basic dXNlcjpwYXNz"),
            ("cookie", "session=abc"),
            ("set-cookie", "a=1; Path=/"),
            ("set-cookie", "b=2; Path=/"),
            ("api-key", "azure-key"),
            ("X-Goog-Api-Key", "g"),
            ("x-session-token", "t"),
            ("client-secret", "s"),
            ("x-auth", "a"),
            ("openai-organization", "org-123"),
            ("request-id", "req_1"),
        ]);
        redact_headers(&mut headers);
        assert_eq!(
            headers,
            pairs(&[
                ("x-api-key", "[redacted]"),
                ("anthropic-version", "2023-06-01"),
                ("content-type", "application/json"),
                ("Authorization", "Bearer [redacted]"),
                ("Proxy-Authorization", "Basic [redacted]"),
                ("cookie", "[redacted]"),
                ("set-cookie", "[redacted]"),
                ("set-cookie", "[redacted]"),
                ("api-key", "[redacted]"),
                ("X-Goog-Api-Key", "[redacted]"),
                ("x-session-token", "[redacted]"),
                ("client-secret", "[redacted]"),
                ("x-auth", "[redacted]"),
                ("openai-organization", "org-123"),
                ("request-id", "req_1"),
            ])
        );
    }

    #[test]
    fn authorization_without_a_scheme_is_redacted_whole() {
        let mut headers = pairs(&[
            ("authorization", "sk-bare-key"),
            ("authorization", "Bearer "),
            ("authorization", "weird/scheme value"),
        ]);
        redact_headers(&mut headers);
        assert!(
            headers.iter().all(|(_, v)| v == "[redacted]"),
            "{headers:?}"
        );
    }

    #[test]
    fn rate_limit_figures_stay_readable_but_odd_values_do_not() {
        let mut headers = pairs(&[
            ("anthropic-ratelimit-input-tokens-remaining", "39000"),
            ("anthropic-ratelimit-tokens-reset", "2026-11-29T22:52:27Z"),
            ("x-ratelimit-reset-tokens", "6m0s"),
            ("x-ratelimit-remaining-tokens", "sk-looks-like-a-key"),
            ("x-ratelimit-secret", "123"),
        ]);
        redact_headers(&mut headers);
        assert_eq!(
            headers,
            pairs(&[
                ("anthropic-ratelimit-input-tokens-remaining", "39000"),
                ("anthropic-ratelimit-tokens-reset", "2026-11-29T22:52:27Z"),
                ("x-ratelimit-reset-tokens", "6m0s"),
                ("x-ratelimit-remaining-tokens", "[redacted]"),
                ("x-ratelimit-secret", "[redacted]"),
            ])
        );
    }

    #[test]
    fn scrubbing_several_secrets_reports_where_the_replacements_are() {
        let secrets = [
            "sk-test-12345678".to_string(),
            "sk-test-1234567890".into(),
            "short".into(),
        ];
        let mut bytes = b"a sk-test-1234567890 b sk-test-12345678 short".to_vec();
        let ranges = scrub_secrets(&mut bytes, &secrets);
        assert_eq!(bytes, b"a [redacted] b [redacted] short");
        assert_eq!(ranges, [[2, 12], [15, 25]]);
        for [start, end] in ranges {
            assert_eq!(&bytes[start..end], REDACTED.as_bytes());
        }
        assert!(scrub_secrets(&mut bytes, &secrets).is_empty());
    }

    #[test]
    fn secrets_are_scrubbed_from_bytes_and_text() {
        let secret = ["sk-test-12345678".to_string()];
        let mut bytes = b"key sk-test-12345678 and again sk-test-12345678.".to_vec();
        assert_eq!(scrub_secrets(&mut bytes, &secret).len(), 2);
        assert_eq!(bytes, b"key [redacted] and again [redacted].");
        let mut short = b"abc".to_vec();
        assert!(scrub_secrets(&mut short, &["abc".into()]).is_empty());
        let mut text = "echo sk-test-12345678".to_string();
        scrub_secret_str(&mut text, "sk-test-12345678");
        assert_eq!(text, "echo [redacted]");
    }

    /// Gemini: Gemini CLI (Google's SDK) sends its key as `x-goog-api-key`; Vertex AI and some
    /// gateways as `x-goog-api-key` or `authorization: Bearer`. None is recorded.
    #[test]
    fn gemini_key_headers_are_redacted() {
        let mut headers = pairs(&[
            ("x-goog-api-key", "AIzaSyD-0123456789abcdefghijklmnopqrstu"),
            ("X-Goog-Api-Client", "google-genai-sdk/1.30.0 gl-node/v22"),
            ("x-goog-user-project", "my-project"),
            ("content-type", "application/json"),
        ]);
        redact_headers(&mut headers);
        assert_eq!(
            headers,
            pairs(&[
                ("x-goog-api-key", REDACTED),
                ("X-Goog-Api-Client", "google-genai-sdk/1.30.0 gl-node/v22"),
                ("x-goog-user-project", "my-project"),
                ("content-type", "application/json"),
            ])
        );
        assert!(is_credential_header("X-GOOG-API-KEY"));
    }
}
