//! What rows of the Streamable HTTP transport say beyond their JSON-RPC message.
//!
//! Many `http` events carry no message: a `GET` opening the standalone SSE stream, a `DELETE`
//! ending a session, a `202 Accepted`, an SSE priming event, a `404` page. Without this module
//! they would all read `http: `; here each is named from its request line, status and SSE
//! fields, and says which request it answers (`in_reply_to`, recorded by the HTTP proxy).
//! Rows that do carry a message show its HTTP status when it is not `200`, and any `4xx` or
//! `5xx` is drawn as an error, whatever its body. The words around the wire's (what a request
//! does, why a status is refused) are the reader's (`label.http_*`); methods, paths and status
//! lines stay as sent.

use super::{Context, LABEL_CHARS, NAME_CHARS, Parts, Text, visible};
use crate::analysis::diagram::{Status, Style};
use crate::i18n::Words;
use crate::trace::{Event, HttpInfo, Kind};

/// `404 Not Found`, or the bare code when it has no standard reason.
fn status_text(code: u16) -> String {
    match http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("{code} {reason}"),
        None => code.to_string(),
    }
}

/// The path of a URL (`/mcp` for `http://127.0.0.1:3001/mcp?x=1`), cut for a label.
fn path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |at| &rest[at..]);
    let path = path.split(['?', '#']).next().unwrap_or("/");
    visible(path, NAME_CHARS)
}

fn header<'a>(h: &'a HttpInfo, name: &str) -> Option<&'a str> {
    h.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn is_event_stream(h: &HttpInfo) -> bool {
    header(h, "content-type").is_some_and(|v| {
        v.split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
    })
}

fn extra_str(h: &HttpInfo, key: &str) -> Option<String> {
    let value = h.extra.get(key)?;
    Some(match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    })
}

/// An HTTP failure status that is not a failure: a server may answer `405` to the standalone
/// `GET` stream and to a `DELETE`, both optional in the transport: the key that says why.
fn allowed_refusal(code: u16, request: Option<&Event>) -> Option<&'static str> {
    let method = request?.http()?.method.as_deref()?;
    match (code, method) {
        (405, "GET") => Some("label.http_no_stream"),
        (405, "DELETE") => Some("label.http_no_end"),
        _ => None,
    }
}

/// What a failure status most likely means in the transport: the key that says it.
fn failure_hint(code: u16, request: Option<&Event>) -> Option<&'static str> {
    let had_session = request
        .and_then(|r| r.http())
        .is_some_and(|h| header(h, "mcp-session-id").is_some());
    match code {
        404 if had_session => Some("label.http_session_gone"),
        401 => Some("label.http_unauthorized"),
        _ => None,
    }
}

impl Context<'_> {
    /// The request an HTTP response answers, from the `in_reply_to` the proxy records: named by
    /// the response, so the last event with that `seq` at or before it ([`Analysis::earlier`]).
    ///
    /// [`Analysis::earlier`]: crate::trace::Analysis::earlier
    fn replied_to(&self, i: usize, h: &HttpInfo) -> Option<usize> {
        let seq = h.extra.get("in_reply_to")?.as_u64()?;
        self.report.rpc.earlier(self.events, seq, i)
    }

    /// `to #3 notifications/initialized`, `to #18 DELETE /mcp`.
    fn to_request(&self, request: usize, words: Words) -> String {
        let e = &self.events[request];
        let method = self
            .report
            .rpc
            .derived
            .get(request)
            .filter(|d| matches!(d.kind, Kind::Request | Kind::Notification))
            .and_then(|d| d.method.as_deref());
        let what = match (method, e.http()) {
            (Some(m), _) => visible(m, NAME_CHARS),
            (
                None,
                Some(HttpInfo {
                    method: Some(m),
                    url,
                    ..
                }),
            ) => format!("{m} {}", path(url.as_deref().unwrap_or("/"))),
            _ => String::new(),
        };
        let seq = e.seq.to_string();
        words
            .fmt("label.http_to_request", &[("seq", &seq), ("what", &what)])
            .trim_end()
            .to_string()
    }

    /// An `http` event that carries no message: a request line or a status.
    pub(super) fn http_exchange(&self, i: usize, e: &Event, h: &HttpInfo, words: Words) -> Text {
        let mut parts = Parts::default();
        let mut status = Status::Ok;
        let mut style = Style::Response;
        let label = match (&h.method, h.status) {
            (Some(method), _) => {
                style = Style::Request;
                let url = h.url.as_deref().unwrap_or("/");
                let what = match method.as_str() {
                    "GET" if header(h, "last-event-id").is_some() => {
                        Some("label.http_resume_stream")
                    }
                    "GET"
                        if header(h, "accept").is_some_and(|a| a.contains("text/event-stream")) =>
                    {
                        Some("label.http_open_stream")
                    }
                    "DELETE" => Some("label.http_end_session"),
                    "POST" => Some("label.http_no_body"),
                    _ => None,
                };
                if let Some(id) = header(h, "last-event-id") {
                    let id = visible(id, NAME_CHARS);
                    parts.add(words.fmt("label.http_after_event", &[("id", &id)]));
                }
                if let Some(session) = header(h, "mcp-session-id") {
                    let id = visible(session, 8);
                    parts.add(words.fmt("label.http_session", &[("id", &id)]));
                }
                let request = format!("{method} {}", path(url));
                match what {
                    Some(key) => words.fmt(key, &[("request", &request)]),
                    None => request,
                }
            }
            (None, Some(code)) => {
                let reply = self.replied_to(i, h);
                let request = reply.map(|r| &self.events[r]);
                let sse_id = extra_str(h, "sse_id");
                let primes = sse_id.is_some()
                    || h.extra.contains_key("sse_event")
                    || h.extra.contains_key("retry");
                let label = if primes {
                    if code != 200 {
                        parts.add(status_text(code));
                    }
                    match &sse_id {
                        Some(id) => {
                            words.fmt("label.http_priming_id", &[("id", &visible(id, NAME_CHARS))])
                        }
                        None => words.get("label.http_priming").to_string(),
                    }
                } else if is_event_stream(h) {
                    words.fmt("label.http_stream_empty", &[("status", &status_text(code))])
                } else {
                    status_text(code)
                };
                if let Some(retry) = extra_str(h, "retry") {
                    parts.add(words.fmt("label.http_retry", &[("ms", &retry)]));
                }
                if code >= 400 {
                    match allowed_refusal(code, request) {
                        Some(why) => parts.add(words.get(why)),
                        None => {
                            status = Status::Error;
                            style = Style::Error;
                            parts.add(failure_hint(code, request).map_or("", |k| words.get(k)));
                        }
                    }
                }
                if let Some(r) = reply {
                    parts.add(self.to_request(r, words));
                }
                label
            }
            (None, None) => {
                style = Style::Note;
                format!("{}: {}", e.channel.as_str(), e.text())
            }
        };
        Text {
            style,
            status,
            problem: None,
            label: visible(&label, LABEL_CHARS),
            detail: parts.done(),
        }
    }

    /// A JSON-RPC row (or an invalid payload) carried on HTTP: its status in the detail when it
    /// is not `200`, and a `4xx` or `5xx` makes it an error. A body that is not JSON-RPC under
    /// such a status is an error page rather than an invalid message; a `405` the transport
    /// allows is not an error, whatever its body.
    pub(super) fn http_status(
        &self,
        i: usize,
        e: &Event,
        h: &HttpInfo,
        mut text: Text,
        words: Words,
    ) -> Text {
        let Some(code) = h.status.filter(|&c| c != 200) else {
            return text;
        };
        let request = self.replied_to(i, h).map(|r| &self.events[r]);
        let refusal = allowed_refusal(code, request);
        if refusal.is_some() || (code >= 400 && text.status == Status::Invalid) {
            let mut parts = Parts::default();
            parts.add(
                refusal
                    .or_else(|| failure_hint(code, request))
                    .map_or("", |k| words.get(k)),
            );
            parts.add(format!("\"{}\"", visible(e.text().trim(), 50)));
            if let Some(r) = self.replied_to(i, h) {
                parts.add(self.to_request(r, words));
            }
            let (style, status) = match refusal {
                Some(_) => (Style::Response, Status::Ok),
                None => (Style::Error, Status::Error),
            };
            return Text {
                style,
                status,
                problem: None,
                label: visible(&status_text(code), LABEL_CHARS),
                detail: parts.done(),
            };
        }
        let mut parts = Parts::default();
        parts.add(status_text(code));
        if code >= 400 {
            text.status = Status::Error;
            parts.add(failure_hint(code, request).map_or("", |k| words.get(k)));
        }
        parts.add(text.detail.take().unwrap_or_default());
        text.detail = parts.done();
        text
    }
}
