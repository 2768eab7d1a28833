//! Who may talk to Sightline's own HTTP listeners, decided from a request's text alone.
//!
//! `serve`, `proxy --http` and `llm-proxy` listen on the loopback by default and answer only
//! requests addressed to it (a web page elsewhere must not reach them by rebinding a DNS
//! name); `serve` off the loopback asks for a token in the query; a reconnecting page resumes
//! its event stream from `Last-Event-ID`. Each of those is a parse of attacker-chosen text, so
//! it lives here, pure and std-only, where the fuzz crate compiles it (`fuzz_targets/gate.rs`)
//! and every listener shares one answer.

use std::net::IpAddr;

/// `localhost`, `127.0.0.1`, `[::1]` and the like: a host name (no port) on this machine.
pub fn is_loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost")
        || name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name)
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether a `Host` header value (`name[:port]`, `[v6][:port]`) names the loopback.
pub fn host_is_loopback(host: &str) -> bool {
    is_loopback_name(host_name(host))
}

/// The name part of a `Host` value: its port (digits after the last `:`) taken off, unless
/// that `:` is inside a bare IPv6 address (which a valid `Host` brackets, and then it is not a
/// loopback name either).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`: the name is the bracketed part, brackets kept.
        return match rest.find(']') {
            Some(end) => match &rest[end + 1..] {
                "" => host,
                port if port.strip_prefix(':').is_some_and(is_port) => &host[..end + 2],
                _ => "",
            },
            None => "",
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if is_port(port) && !name.contains(':') => name,
        _ => host,
    }
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The value of the first `name=` parameter of a query string, as written (not decoded: a
/// token is hex, and a decoded comparison would accept more spellings than one).
pub fn query_param<'q>(query: Option<&'q str>, name: &str) -> Option<&'q str> {
    query?.split('&').find_map(|pair| {
        pair.strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('='))
    })
}

/// Compares two secrets without stopping at the first difference.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The index of the first event to send to a stream that last saw event `last_event_id`
/// (0 when the header is absent or not a number; an id past every event resumes after them
/// all, never wraps to the first).
pub fn resume_from(last_event_id: Option<&str>) -> usize {
    last_event_id
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(0, |last| last.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_pass() {
        for yes in [
            "127.0.0.1:6300",
            "localhost:6300",
            "LOCALHOST",
            "[::1]:6300",
            "[::1]",
            "127.0.0.1",
            "127.9.9.9:1",
            // Not a valid Host (unbracketed), but it names this machine all the same.
            "::1",
        ] {
            assert!(host_is_loopback(yes), "{yes}");
        }
        for no in [
            "evil.example:6300",
            "192.168.1.5:6300",
            "",
            "[::1]x",
            "[::1]:",
            "[::1",
            "localhost.evil.example",
            "127.0.0.1.evil.example:80",
            "localhost:80:80",
        ] {
            assert!(!host_is_loopback(no), "{no}");
        }
    }

    #[test]
    fn query_parameters_are_matched_whole() {
        assert_eq!(query_param(Some("a=1&token=xyz"), "token"), Some("xyz"));
        assert_eq!(query_param(Some("tokens=xyz"), "token"), None);
        assert_eq!(query_param(Some("token"), "token"), None);
        assert_eq!(query_param(Some("token="), "token"), Some(""));
        assert_eq!(query_param(None, "token"), None);
    }

    #[test]
    fn secrets_are_compared_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert!(same_secret("", ""));
    }

    #[test]
    fn a_stream_resumes_after_the_last_event_it_saw() {
        assert_eq!(resume_from(None), 0);
        assert_eq!(resume_from(Some("x")), 0);
        assert_eq!(resume_from(Some("-1")), 0);
        assert_eq!(resume_from(Some("4")), 5);
        assert_eq!(resume_from(Some(&usize::MAX.to_string())), usize::MAX);
    }
}
