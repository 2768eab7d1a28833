//! The remote MCP servers' credentials a request hands an LLM API, kept out of the record.
//!
//! When the API itself is the MCP client, the host gives it the credentials for each remote
//! server in the request body: Anthropic's MCP connector as `mcp_servers[].authorization_token`,
//! OpenAI Responses' `{"type": "mcp"}` tools as `headers` (`Authorization: Bearer ...`) or
//! `authorization`. They are as secret as the API key, and a body is recorded byte for byte,
//! so the recorders ([`scrub_request`]) replace each of them in the recorded copy, at its exact
//! place in the JSON text, whatever its length, and list the place in the event's `redacted`
//! ranges like every other scrubbed secret. An `Authorization`-like value keeps its scheme
//! (`Bearer [redacted]`), as a recorded header does. The values are handed back too, so the
//! response (an API may echo its request's tools) is scrubbed of them as well.
//!
//! Which fields are credentials: in an `mcp_servers` entry or an `mcp` tool, every string
//! field whose name marks a credential ([`is_credential_header`]: `authorization_token`,
//! `authorization`, `api_key`...), in an `mcp` tool's `headers`, every header a recorded
//! header would be redacted for, and in the server's URL (`url`, `server_url`) its userinfo and
//! the values of its credential query parameters (`?api_key=`, `token=`: the rule of
//! [`redact_url`], marked in place, the rest of the URL kept). A string elsewhere in the body
//! that is one of those values whole (echoed in a prompt, a tool's input) goes too, whatever
//! its length: the same rule as for the fields.

use memchr::memmem;
use serde_json::Value;

use super::{is_credential_header, replace_spans, secret_spans};
use crate::wire::redact_url::{credential_spans, redact_url};

/// What [`scrub_request`] did to a recorded request body.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Scrubbed {
    /// Where `[redacted]` now sits, `[start, end)` in order: the event's `redacted` field.
    pub redacted: Vec<[usize; 2]>,
    /// The remote servers' credentials found in the body (the secret part of each), to be
    /// scrubbed out of the response too.
    pub connector_secrets: Vec<String>,
}

/// Scrubs a request body about to be recorded: every occurrence of `secrets` (the API key and
/// the like, as [`super::scrub_secrets`]) and every remote MCP server's credential the body
/// hands the API, in one pass.
pub fn scrub_request(bytes: &mut Vec<u8>, secrets: &[String]) -> Scrubbed {
    let credentials = credentials_in(bytes);
    let mut spans = secret_spans(bytes, secrets);
    if !credentials.is_empty() {
        spans.extend(literal_spans(bytes, &credentials));
        spans = union(spans);
    }
    let mut connector_secrets: Vec<String> = Vec::new();
    for c in credentials {
        match c.secret.is_empty() {
            true => connector_secrets.push(c.value),
            false => {
                let parts = c.secret.iter().filter_map(|&[s, e]| c.value.get(s..e));
                connector_secrets.extend(parts.map(str::to_string));
            }
        }
    }
    connector_secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    connector_secrets.dedup();
    Scrubbed {
        redacted: replace_spans(bytes, &spans),
        connector_secrets,
    }
}

/// One credential's value as the JSON holds it (decoded), and where in it the secret parts
/// are when not all of it is secret (after the scheme of `Bearer abc`; a URL's userinfo and
/// credential parameters): `[start, end)` ranges, empty for the whole value.
#[derive(Debug, PartialEq, Eq)]
struct Credential {
    value: String,
    secret: Vec<[usize; 2]>,
}

/// The remote servers' credentials in a request body (empty unless it is JSON naming them).
fn credentials_in(bytes: &[u8]) -> Vec<Credential> {
    // Cheap gate: most bodies (and every MCP message through the HTTP proxy) name neither.
    if memmem::find(bytes, b"mcp").is_none() {
        return Vec::new();
    }
    let Ok(body) = serde_json::from_slice::<Value>(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let servers = body.get("mcp_servers").and_then(Value::as_array);
    for server in servers.into_iter().flatten() {
        credential_fields(server, &mut out);
        url_credentials(server.get("url"), &mut out);
    }
    let tools = body.get("tools").and_then(Value::as_array);
    let mcp_tools = tools
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("mcp"));
    for tool in mcp_tools {
        credential_fields(tool, &mut out);
        url_credentials(tool.get("server_url"), &mut out);
        let headers = tool.get("headers").and_then(Value::as_object);
        for (name, value) in headers.into_iter().flatten() {
            if let Some(value) = value.as_str().filter(|_| is_credential_header(name)) {
                out.push(credential(value));
            }
        }
    }
    out.retain(|c| !c.value.is_empty());
    out
}

/// The string fields of `entry` whose names mark a credential.
fn credential_fields(entry: &Value, out: &mut Vec<Credential>) {
    let fields = entry.as_object().into_iter().flatten();
    for (_, value) in fields.filter(|(name, _)| is_credential_header(name)) {
        if let Some(value) = value.as_str() {
            out.push(credential(value));
        }
    }
}

/// A server URL's credentials: the URL, its secret parts marked, and each of them (raw and
/// percent-decoded) as a value of its own, for the strings that echo one whole.
fn url_credentials(url: Option<&Value>, out: &mut Vec<Credential>) {
    let Some(url) = url.and_then(Value::as_str) else {
        return;
    };
    let secret = credential_spans(url);
    if secret.is_empty() {
        return;
    }
    out.push(Credential {
        value: url.to_string(),
        secret,
    });
    for value in redact_url(url).1 {
        out.push(Credential {
            value,
            secret: Vec::new(),
        });
    }
}

/// A credential's value; `<scheme> <secret>` keeps its scheme, as a recorded header does.
fn credential(value: &str) -> Credential {
    let scheme = value.split_once(' ').and_then(|(scheme, rest)| {
        let plain = !scheme.is_empty()
            && !rest.trim().is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-');
        plain.then(|| value.len() - rest.len())
    });
    Credential {
        value: value.to_string(),
        secret: scheme.map_or_else(Vec::new, |at| vec![[at, value.len()]]),
    }
}

/// Where, in the JSON text, each string literal holding one of `credentials` has its secret:
/// the literal's content (or, for a value with secret parts and written without escapes, those
/// parts: the part after a scheme, a URL's credentials).
fn literal_spans(bytes: &[u8], credentials: &[Credential]) -> Vec<[usize; 2]> {
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &bytes[at..]).map(|i| at + i) {
        let Some(close) = closing_quote(bytes, open + 1) else {
            break;
        };
        let content = &bytes[open + 1..close];
        let escaped = content.contains(&b'\\');
        let decoded = if escaped {
            serde_json::from_slice::<String>(&bytes[open..=close]).ok()
        } else {
            std::str::from_utf8(content).ok().map(str::to_string)
        };
        if let Some(found) = decoded.and_then(|d| credentials.iter().find(|c| c.value == d)) {
            match found.secret.is_empty() || escaped {
                true => spans.push([open + 1, close]),
                false => {
                    let parts = found.secret.iter();
                    spans.extend(parts.map(|&[s, e]| [open + 1 + s, open + 1 + e]));
                }
            }
        }
        at = close + 1;
    }
    spans
}

/// The index of the quote closing a JSON string whose content starts at `from`.
fn closing_quote(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[from..]).map(|i| from + i) {
        if bytes[i] == b'"' {
            return Some(i);
        }
        from = i + 2;
        if from > bytes.len() {
            return None;
        }
    }
    None
}

/// `spans` sorted and with overlapping ones joined.
fn union(mut spans: Vec<[usize; 2]>) -> Vec<[usize; 2]> {
    spans.sort_unstable();
    let mut out: Vec<[usize; 2]> = Vec::with_capacity(spans.len());
    for [start, end] in spans {
        match out.last_mut() {
            Some(last) if start <= last[1] => last[1] = last[1].max(end),
            _ => out.push([start, end]),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::redact::REDACTED;

    fn scrubbed(body: &str, secrets: &[&str]) -> (String, Scrubbed) {
        let mut bytes = body.as_bytes().to_vec();
        let secrets: Vec<String> = secrets.iter().map(|s| s.to_string()).collect();
        let result = scrub_request(&mut bytes, &secrets);
        for [start, end] in &result.redacted {
            assert_eq!(&bytes[*start..*end], REDACTED.as_bytes(), "{result:?}");
        }
        (String::from_utf8(bytes).expect("UTF-8"), result)
    }

    #[test]
    fn anthropic_authorization_tokens_are_redacted_in_place_whatever_their_length() {
        let body = r#"{"model":"m","mcp_servers":[{"type":"url","url":"https://a.example/mcp","name":"a","authorization_token":"tok-AAAA-1234567"},{"type":"url","url":"https://b.example/mcp","name":"b","authorization_token":"short"}],"tools":[{"type":"mcp_toolset","mcp_server_name":"a"}],"messages":[]}"#;
        let (text, result) = scrubbed(body, &["sk-ant-KEY-12345"]);
        assert_eq!(
            text,
            body.replace("tok-AAAA-1234567", REDACTED)
                .replace("\"short\"", "\"[redacted]\"")
        );
        assert_eq!(result.redacted.len(), 2);
        assert_eq!(result.connector_secrets, ["tok-AAAA-1234567", "short"]);
        // The names and URLs stay readable.
        assert!(text.contains(r#""name":"a""#) && text.contains("https://b.example/mcp"));
    }

    #[test]
    fn openai_mcp_headers_keep_their_scheme_and_other_headers_stay() {
        let body = r#"{"model":"m","tools":[{"type":"mcp","server_label":"dmcp","server_url":"https://d.example/mcp","headers":{"Authorization":"Bearer mcp-SECRET-999","X-Tenant":"acme","X-Api-Key":"k-77777777"},"authorization":"oauth-TOKEN-1","require_approval":"never"}],"input":"hi"}"#;
        let (text, result) = scrubbed(body, &[]);
        assert!(
            text.contains(r#""Authorization":"Bearer [redacted]""#),
            "{text}"
        );
        assert!(text.contains(r#""X-Tenant":"acme""#));
        assert!(text.contains(r#""X-Api-Key":"[redacted]""#));
        assert!(text.contains(r#""authorization":"[redacted]""#));
        assert!(!text.contains("SECRET") && !text.contains("TOKEN") && !text.contains("7777"));
        assert_eq!(result.redacted.len(), 3);
        assert!(
            result
                .connector_secrets
                .contains(&"mcp-SECRET-999".to_string())
        );
    }

    #[test]
    fn escaped_tokens_and_key_overlaps_are_scrubbed_whole() {
        // The token written with an escape, and an API key inside another token.
        let body = r#"{"mcp_servers":[{"name":"a","url":"u","authorization_token":"t\u006Fk-ESCAPED"},{"name":"b","url":"u","authorization_token":"pre-sk-KEY-123456-post"}]}"#;
        let (text, result) = scrubbed(body, &["sk-KEY-123456"]);
        assert_eq!(
            text,
            r#"{"mcp_servers":[{"name":"a","url":"u","authorization_token":"[redacted]"},{"name":"b","url":"u","authorization_token":"[redacted]"}]}"#
        );
        assert_eq!(result.redacted.len(), 2);
    }

    #[test]
    fn credentials_in_a_server_url_go_and_the_url_stays() {
        let body = r#"{"model":"m","mcp_servers":[{"type":"url","url":"https://me:pw1@a.example/mcp?api_key=k1&x=1&token=t-22","name":"a"}],"tools":[{"type":"mcp","server_label":"b","server_url":"https://b.example/mcp?access_token=zz9"}],"messages":[{"role":"user","content":"my key is k1, and zz9"},{"role":"user","content":"k1"}]}"#;
        let (text, result) = scrubbed(body, &[]);
        assert!(
            text.contains(r#""url":"https://[redacted]@a.example/mcp?api_key=[redacted]&x=1&token=[redacted]""#),
            "{text}"
        );
        assert!(text.contains(r#""server_url":"https://b.example/mcp?access_token=[redacted]""#));
        // A short value echoed whole is a credential still; inside other text it is not
        // (too short to find safely: the rule for every secret).
        assert!(text.contains(r#""content":"[redacted]""#), "{text}");
        assert!(text.contains("my key is k1, and zz9"), "{text}");
        assert!(!text.contains("pw1") && !text.contains("t-22"));
        assert_eq!(result.redacted.len(), 5, "{result:?}");
        for secret in ["me:pw1", "k1", "t-22", "zz9"] {
            assert!(
                result.connector_secrets.contains(&secret.to_string()),
                "{secret}"
            );
        }
    }

    #[test]
    fn bodies_without_remote_servers_scrub_as_before() {
        let body = r#"{"tools":[{"type":"function","name":"f","headers":{"Authorization":"Bearer nope-not-mcp"}}],"key":"sk-KEY-123456"}"#;
        let (text, result) = scrubbed(body, &["sk-KEY-123456"]);
        assert!(text.contains("nope-not-mcp") && !text.contains("sk-KEY"));
        assert_eq!(result.redacted.len(), 1);
        assert!(result.connector_secrets.is_empty());
        let (text, result) = scrubbed("not json mcp_servers", &[]);
        assert_eq!(text, "not json mcp_servers");
        assert_eq!(result, Scrubbed::default());
    }
}
