//! The HTTP half of `wrap`: a server reached by `url` is pointed at a local `http-proxy` on a
//! port of its own, with the upstream kept in the path, so `--undo` reads it back from the URL.

use super::jsonc::{Edits, Node};
use super::{Action, Format, HttpRoute, MARK, PROXY_HOST, WrapOptions};

/// The local proxy URL for `upstream`, or why there is none.
fn local_url(upstream: &str, port: u16) -> Result<String, String> {
    match upstream.split_once("://") {
        Some((scheme @ ("http" | "https"), rest)) if !rest.is_empty() => {
            Ok(format!("http://{PROXY_HOST}:{port}/{MARK}/{scheme}/{rest}"))
        }
        _ => Err(format!(
            "`url` `{}` is not an http:// or https:// URL",
            crate::wire::redact_url::redact_url(upstream).0
        )),
    }
}

/// Reads a local proxy URL back: its port, the prefix the proxy strips, and the upstream.
/// `None` for any other URL.
pub(super) fn parse_local(url: &str) -> Option<HttpRoute> {
    let rest = url.strip_prefix(&format!("http://{PROXY_HOST}:"))?;
    let (port, rest) = rest.split_once('/')?;
    let port: u16 = port.parse().ok()?;
    let rest = rest.strip_prefix(MARK)?.strip_prefix('/')?;
    let (scheme, rest) = rest.split_once('/')?;
    if !matches!(scheme, "http" | "https") || rest.is_empty() {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    Some(HttpRoute {
        name: String::new(),
        port,
        prefix: format!("/{MARK}/{scheme}/{authority}"),
        upstream: format!("{scheme}://{rest}"),
    })
}

/// Points an HTTP server at a local proxy on a port of its own.
pub(super) fn wrap_http(
    format: Format,
    server: &Node,
    options: &WrapOptions,
    taken: &mut Vec<u16>,
    edits: &mut Edits,
) -> Action {
    let Some(url) = server.get("url").map(|m| &m.value) else {
        return Action::Skipped("an HTTP server without a `url`".into());
    };
    let Some(upstream) = url.as_str() else {
        return Action::Skipped("`url` is not a string".into());
    };
    if parse_local(upstream).is_some() {
        return Action::AlreadyWrapped;
    }
    let Some(port) = (options.http_port..=u16::MAX)
        .find(|p| *p != 0 && !taken.contains(p) && (options.port_is_free)(*p))
    else {
        return Action::Skipped(format!("no free local port from {}", options.http_port));
    };
    match local_url(upstream, port) {
        Ok(local) => {
            taken.push(port);
            edits.replace(url.start, url.end, format.quote(&local));
            Action::Wrapped
        }
        Err(why) => Action::Skipped(why),
    }
}

/// Whether a server is reached over HTTP.
pub(super) fn is_http(server: &Node) -> bool {
    let kind = server
        .get("type")
        .and_then(|m| m.value.as_str())
        .unwrap_or("");
    server.get("url").is_some() || matches!(kind, "http" | "sse" | "streamable-http")
}
