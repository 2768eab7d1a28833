//! Credentials in URLs and command lines, redacted before they are recorded or printed.
//!
//! One rule for every place Sightline writes a URL (an event's `http.url`, a trace header's
//! `title`, a message on stderr) and every command line it records (a `spawn` event's
//! `command`, a proxy's title):
//!
//! - a URL's userinfo (`https://user:pass@host`) becomes `[redacted]@`, and the value of each
//!   query parameter with a credential-like name ([`is_credential_name`]: `key`, `api_key`,
//!   `token`, `access_token`, `password`, `sig`...) becomes `[redacted]`;
//! - in a command line, the value of a credential-named flag (`--api-key=V`, `--token V`,
//!   `--password V`) or environment assignment (`GITHUB_TOKEN=V`), a header argument
//!   (`Authorization: Bearer V`), a bare `Bearer V`, any value shaped like a well-known API
//!   key (`sk-...`, `ghp_...`, `xoxb-...`) and every URL in an argument, as above.
//!
//! The functions return what they removed too, so callers can scrub the same secrets out of
//! anything else they record.

use super::redact::{REDACTED, is_credential_header, redact_headers};

/// Parts of a query parameter or flag name that mark its value as a credential, beyond those
/// of header names (`key`, `token`, `secret`, `auth`).
const MORE_CREDENTIAL_PARTS: [&str; 5] = ["pass", "pwd", "credential", "signature", "cookie"];

/// Prefixes of well-known API key formats (OpenAI and Anthropic, GitHub, Slack, GitLab,
/// Google, AWS access keys).
const KEY_PREFIXES: [&str; 10] = [
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "glpat-",
    "AIza",
    "AKIA",
];

/// Whether a query parameter, flag or variable named `name` carries a credential (any case;
/// `-`, `_` and leading dashes ignored).
pub fn is_credential_name(name: &str) -> bool {
    let name = name.trim_start_matches('-').to_ascii_lowercase();
    if name.is_empty() {
        return false;
    }
    is_credential_header(&name)
        || MORE_CREDENTIAL_PARTS.iter().any(|part| name.contains(part))
        || matches!(name.as_str(), "sig" | "pw")
}

/// `url` with its userinfo and the values of its credential query parameters replaced by
/// `[redacted]`, and the secrets taken out (raw and percent-decoded), longest first.
pub fn redact_url(url: &str) -> (String, Vec<String>) {
    let (userinfo, values) = credential_parts(url);
    let mut secrets = Vec::new();
    if let Some([start, end]) = userinfo {
        let userinfo = &url[start..end];
        push_secret(&mut secrets, userinfo);
        for part in userinfo.split(':') {
            push_secret(&mut secrets, part);
        }
    }
    for &[start, end] in &values {
        push_secret(&mut secrets, &url[start..end]);
    }
    let mut out = String::with_capacity(url.len());
    let mut done = 0;
    for [start, end] in userinfo.into_iter().chain(values) {
        out.push_str(&url[done..start]);
        out.push_str(REDACTED);
        done = end;
    }
    out.push_str(&url[done..]);
    (out, sorted(secrets))
}

/// Where in `url` its credentials are, as `[start, end)` byte ranges in order: the userinfo
/// (`user:pass` of `https://user:pass@host`) and the value of each credential query
/// parameter: what [`redact_url`] replaces, for a caller that redacts a URL in place inside a
/// larger text (a JSON body).
pub fn credential_spans(url: &str) -> Vec<[usize; 2]> {
    let (userinfo, values) = credential_parts(url);
    userinfo.into_iter().chain(values).collect()
}

/// The userinfo's range, and the ranges of the credential query parameters' values.
fn credential_parts(url: &str) -> (Option<[usize; 2]>, Vec<[usize; 2]>) {
    let mut userinfo = None;
    let mut rest = 0;
    // The authority's userinfo.
    if let Some(scheme_end) = url.find("://") {
        let authority_start = scheme_end + 3;
        let authority_len = url[authority_start..]
            .find(['/', '?', '#'])
            .unwrap_or(url.len() - authority_start);
        let authority = &url[authority_start..authority_start + authority_len];
        if let Some(at) = authority.rfind('@') {
            userinfo = Some([authority_start, authority_start + at]);
            rest = authority_start + at;
        }
    }
    let mut values = Vec::new();
    let Some(mark) = url[rest..].find('?') else {
        return (userinfo, values);
    };
    let query_start = rest + mark + 1;
    let query_end = url[query_start..]
        .find('#')
        .map_or(url.len(), |f| query_start + f);
    let mut at = query_start;
    for param in url[query_start..query_end].split('&') {
        if let Some((name, value)) = param.split_once('=')
            && is_credential_name(&percent_decode(name).unwrap_or_else(|| name.to_string()))
            && !value.is_empty()
        {
            let start = at + name.len() + 1;
            values.push([start, start + value.len()]);
        }
        at += param.len() + 1;
    }
    (userinfo, values)
}

/// A command line (program first) with credentials replaced by `[redacted]`.
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut value_next = false;
    for (i, arg) in argv.iter().enumerate() {
        if value_next && !arg.starts_with("--") {
            value_next = false;
            out.push(REDACTED.to_string());
            continue;
        }
        value_next = false;
        let redacted = redact_arg(arg);
        if i > 0
            && arg.starts_with('-')
            && !arg.contains('=')
            && arg.len() > 1
            && is_credential_name(arg)
        {
            value_next = true;
        }
        out.push(redacted);
    }
    out
}

/// One argument on its own: `NAME=VALUE` forms, headers, bearer tokens, key shapes, URLs.
fn redact_arg(arg: &str) -> String {
    if let Some((name, _)) = arg.split_once('=')
        && !name.is_empty()
        && !name.contains([' ', ':', '/'])
        && is_credential_name(name)
    {
        return format!("{name}={REDACTED}");
    }
    if let Some((name, value)) = arg.split_once(':')
        && !name.is_empty()
        && !value.starts_with("//")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && is_credential_header(name)
    {
        let space = &value[..value.len() - value.trim_start().len()];
        let mut pair = [(name.to_string(), value.trim().to_string())];
        redact_headers(&mut pair);
        return format!("{name}:{space}{}", pair[0].1);
    }
    let mut text = arg.to_string();
    if let Some(at) = find_ignore_case(&text, "bearer ") {
        let token_start = at + "bearer ".len();
        let token_end = text[token_start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |n| token_start + n);
        if token_end > token_start {
            text.replace_range(token_start..token_end, REDACTED);
        }
    }
    text = redact_key_shapes(&text);
    redact_urls_in(&text)
}

/// Every token that starts like a well-known API key (and is long enough to be one).
fn redact_key_shapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for prefix in KEY_PREFIXES {
            if let Some(at) = rest.find(prefix) {
                let boundary = at == 0
                    || !rest[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric());
                let len = rest[at..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .unwrap_or(rest.len() - at);
                if boundary && len >= prefix.len() + 8 {
                    out.push_str(&rest[..at]);
                    out.push_str(REDACTED);
                    rest = &rest[at + len..];
                    continue 'scan;
                }
            }
        }
        out.push_str(rest);
        break;
    }
    out
}

/// Each `scheme://...` in `text` (up to whitespace) through [`redact_url`].
fn redact_urls_in(text: &str) -> String {
    let Some(sep) = text.find("://") else {
        return text.to_string();
    };
    let start = text[..sep]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+.-".contains(c)))
        .map_or(0, |n| n + 1);
    let end = text[sep..]
        .find(char::is_whitespace)
        .map_or(text.len(), |n| sep + n);
    let (url, _) = redact_url(&text[start..end]);
    format!("{}{url}{}", &text[..start], redact_urls_in(&text[end..]))
}

fn find_ignore_case(text: &str, needle: &str) -> Option<usize> {
    text.to_ascii_lowercase().find(needle)
}

fn push_secret(secrets: &mut Vec<String>, value: &str) {
    if let Some(decoded) = percent_decode(value) {
        secrets.push(decoded);
    }
    secrets.push(value.to_string());
}

fn sorted(mut secrets: Vec<String>) -> Vec<String> {
    secrets.retain(|s| !s.is_empty());
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    secrets
}

/// `%XX` and `+` decoded; `None` when there is nothing to decode or the result is not UTF-8.
fn percent_decode(value: &str) -> Option<String> {
    if !value.contains('%') && !value.contains('+') {
        return None;
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn urls_lose_userinfo_and_credential_parameters() {
        let (url, secrets) = redact_url(
            "https://me:s3cret%21pw@api.example.com:8443/v1/x?alt=sse&key=AIzaXYZ&api_key=a%2Bb&sig=abc#f",
        );
        assert_eq!(
            url,
            "https://[redacted]@api.example.com:8443/v1/x?alt=sse&key=[redacted]&api_key=[redacted]&sig=[redacted]#f"
        );
        for secret in [
            "s3cret%21pw",
            "s3cret!pw",
            "me",
            "AIzaXYZ",
            "a%2Bb",
            "a+b",
            "abc",
        ] {
            assert!(
                secrets.contains(&secret.to_string()),
                "{secret} in {secrets:?}"
            );
        }
        assert_eq!(
            redact_url("http://h/v1/messages?beta=true").0,
            "http://h/v1/messages?beta=true"
        );
        assert!(redact_url("http://h/p").1.is_empty());
        assert_eq!(
            redact_url("http://h/p?token=a%2Bb#frag").0,
            "http://h/p?token=[redacted]#frag"
        );
        assert_eq!(
            redact_url("https://tok@github.com/a@b").0,
            "https://[redacted]@github.com/a@b"
        );
        assert_eq!(redact_url("not a url").0, "not a url");
        assert_eq!(
            redact_url("http://h/?%74oken=x").0,
            "http://h/?%74oken=[redacted]"
        );
    }

    #[test]
    fn credential_spans_are_where_redact_url_puts_its_marks() {
        let url = "https://me:pw@h.example/mcp?x=1&api_key=abc&token=t2#f?token=no";
        let spans = credential_spans(url);
        let found: Vec<&str> = spans.iter().map(|&[s, e]| &url[s..e]).collect();
        assert_eq!(found, ["me:pw", "abc", "t2"]);
        let mut marked = url.to_string();
        for &[start, end] in spans.iter().rev() {
            marked.replace_range(start..end, REDACTED);
        }
        assert_eq!(marked, redact_url(url).0);
        assert!(credential_spans("https://h.example/mcp?alt=sse").is_empty());
    }

    #[test]
    fn command_lines_lose_credential_values() {
        let redacted = redact_argv(&argv(&[
            "node",
            "server.js",
            "--api-key=sk-live-0123456789abcdef",
            "--token",
            "tok_abcdef",
            "--password",
            "hunter2",
            "--auth",
            "--verbose",
            "GITHUB_TOKEN=ghp_abc",
            "--header",
            "Authorization: Bearer abc.def",
            "Bearer xyz",
            "--url=https://u:p@h.example/mcp?access_token=t",
            "prefix-sk-proj-0123456789abcdef",
            "sk-ant-api03-0123456789abcdef",
            "--port",
            "8080",
        ]));
        assert_eq!(
            redacted,
            argv(&[
                "node",
                "server.js",
                "--api-key=[redacted]",
                "--token",
                "[redacted]",
                "--password",
                "[redacted]",
                "--auth",
                "--verbose",
                "GITHUB_TOKEN=[redacted]",
                "--header",
                "Authorization: Bearer [redacted]",
                "Bearer [redacted]",
                "--url=https://[redacted]@h.example/mcp?access_token=[redacted]",
                "prefix-[redacted]",
                "[redacted]",
                "--port",
                "8080",
            ])
        );
        // The program and ordinary arguments are kept.
        let plain = argv(&[
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/home/me",
        ]);
        assert_eq!(redact_argv(&plain), plain);
    }

    /// Gemini's `?key=` (the REST API's query form of the key) and `alt=sse` beside it: the
    /// key goes, the rest of the path and query stays as sent.
    #[test]
    fn gemini_key_in_the_query_is_redacted() {
        let url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaSyD-0123456789abcdef";
        let (redacted, secrets) = redact_url(url);
        assert_eq!(
            redacted,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=[redacted]"
        );
        assert_eq!(secrets, ["AIzaSyD-0123456789abcdef"]);
        let argv = redact_argv(&argv(&[
            "curl",
            url,
            "-H",
            "x-goog-api-key: AIzaSyD-0123456789abcdef",
        ]));
        assert!(argv.iter().all(|a| !a.contains("AIzaSyD")), "{argv:?}");
    }
}
