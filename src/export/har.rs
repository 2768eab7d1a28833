//! The HTTP parts of a trace as an HTTP Archive (HAR 1.2), which browsers' dev tools, proxies
//! and the peers that read HAR open: each Streamable HTTP exchange with an MCP server and each
//! LLM API exchange is one entry.
//!
//! An entry's request is the recorded request (method, URL, headers, body); its response the
//! status and headers of the first recorded response event and, as the body, what the events
//! held: an event stream (a `POST`'s or the standalone `GET` stream) is written back as its
//! `text/event-stream` text, one event per recorded event with its recorded `id`, `event` and
//! `retry`; any other response is its body. An MCP response belongs to the request its
//! `in_reply_to` names (recorded by the HTTP proxy, and by `import har`); an LLM response to
//! its request as [`crate::analysis::llm_exchanges`] pairs them. `time` runs from the request
//! to the last response event, `timings.wait` to the first byte where it was recorded.
//!
//! What a HAR has no field for goes in `_sightline` members (HAR's rule for custom fields),
//! so `sightline import har` gives the same events back: each event's lanes, channel and time
//! to the microsecond, its redacted byte ranges and its other recorded fields. Credentials
//! stay as recorded, `[redacted]`, and the entry's `comment` (and the log's) says so: a HAR
//! exported from a trace never holds a secret the trace did not.

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::analysis::LlmExchange;
use crate::trace::{Channel, Event, FIRST_BYTE, Header, format_time};
use crate::wire::redact::REDACTED;
use crate::wire::sse::SseEvent;

/// The `_sightline` member's format, bumped on an incompatible change.
pub const FORMAT: u64 = 1;

/// One HTTP exchange of the trace: the request's index and its responses' indices.
struct Exchange {
    request: usize,
    responses: Vec<usize>,
}

/// The HAR document of `events`' HTTP exchanges, in the order their requests were recorded.
pub fn har(header: &Header, events: &[Event], llm: &[LlmExchange]) -> Value {
    let exchanges = exchanges(events, llm);
    let redacted = exchanges.iter().any(|x| {
        std::iter::once(&x.request)
            .chain(&x.responses)
            .any(|&i| has_redaction(&events[i]))
    });
    let entries: Vec<Value> = exchanges.iter().map(|x| entry(events, x)).collect();
    let mut comment = format!(
        "Exported by Sightline from the trace \"{}\": {} HTTP exchanges (Streamable HTTP and LLM \
         APIs); event streams are written back from their recorded events.",
        header.title,
        entries.len()
    );
    if redacted {
        comment.push_str(&format!(
            " Credentials were redacted when recorded and stay {REDACTED} here."
        ));
    }
    json!({"log": {
        "version": "1.2",
        "creator": {"name": "Sightline", "version": env!("CARGO_PKG_VERSION")},
        "pages": [],
        "entries": entries,
        "comment": comment,
        "_sightline": {"format": FORMAT, "title": header.title, "created": header.created},
    }})
}

/// The requests of both kinds with their responses, in request order.
fn exchanges(events: &[Event], llm: &[LlmExchange]) -> Vec<Exchange> {
    let mut out: Vec<Exchange> = Vec::new();
    // `seq` of an MCP request -> its exchange.
    let mut asked: HashMap<u64, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.channel != Channel::Http {
            continue;
        }
        let Some(http) = e.http() else { continue };
        if http.method.is_some() {
            asked.insert(e.seq, out.len());
            out.push(Exchange {
                request: i,
                responses: Vec::new(),
            });
        } else if let Some(x) = http.extra.get("in_reply_to").and_then(Value::as_u64) {
            if let Some(&at) = asked.get(&x) {
                out[at].responses.push(i);
            }
        } else if let Some(last) = out
            .iter_mut()
            .rev()
            .find(|x| events[x.request].to == e.from)
        {
            // A response recorded without `in_reply_to`: its lane's last request.
            last.responses.push(i);
        }
    }
    out.extend(llm.iter().map(|x| Exchange {
        request: x.request,
        responses: x.response.into_iter().collect(),
    }));
    out.sort_by_key(|x| x.request);
    out
}

fn has_redaction(e: &Event) -> bool {
    e.http().is_some_and(|h| {
        !h.redacted.is_empty()
            || h.headers.iter().any(|(_, v)| v.contains(REDACTED))
            || h.url.as_deref().is_some_and(|u| u.contains(REDACTED))
    })
}

/// HAR `[{"name", "value"}]` of recorded header pairs.
fn headers(e: &Event) -> Vec<Value> {
    let pairs = e.http().map(|h| h.headers.as_slice()).unwrap_or_default();
    pairs
        .iter()
        .map(|(n, v)| json!({"name": n.as_str(), "value": v.as_str()}))
        .collect()
}

fn header<'e>(e: &'e Event, name: &str) -> Option<&'e str> {
    let http = e.http()?;
    let (_, v) = http
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
    Some(v.as_str())
}

/// An event's own fields a HAR has no place for, for the importer: its time to the
/// microsecond, lanes, redacted ranges and other `http` fields, and a response event's own
/// status (an event stream's later events have none).
fn sightline_event(e: &Event) -> Value {
    let mut out = Map::new();
    out.insert("time".into(), format_time(e.time).into());
    out.insert("from".into(), e.from.to_string().into());
    out.insert("to".into(), e.to.to_string().into());
    if let Some(http) = e.http() {
        if http.method.is_none() {
            out.insert("status".into(), json!(http.status));
        }
        if !http.redacted.is_empty() {
            out.insert("redacted".into(), json!(http.redacted));
        }
        if !http.extra.is_empty() {
            out.insert("http".into(), Value::Object((*http.extra).clone()));
        }
    }
    Value::Object(out)
}

/// Milliseconds from `a` to `b`, with the microseconds.
fn ms(a: &Event, b: chrono::DateTime<chrono::Utc>) -> f64 {
    (b - a.time).num_microseconds().unwrap_or(0).max(0) as f64 / 1000.0
}

fn entry(events: &[Event], x: &Exchange) -> Value {
    let request = &events[x.request];
    let responses: Vec<&Event> = x.responses.iter().map(|&i| &events[i]).collect();
    let http = request.http();
    let url = http.and_then(|h| h.url.as_deref()).unwrap_or_default();
    let body = request.text();
    let query: Vec<Value> = url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(q))
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            json!({"name": name, "value": value})
        })
        .collect();
    let mut req = json!({
        "method": http.and_then(|h| h.method.as_deref()).unwrap_or("GET"),
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": headers(request),
        "queryString": query,
        "headersSize": -1,
        "bodySize": request.bytes().map_or(0, |b| b.len()),
    });
    if !body.is_empty() {
        let mime = header(request, "content-type").unwrap_or("application/json");
        req["postData"] = json!({"mimeType": mime, "text": body});
    }
    let first = responses.first().copied();
    let mime = first
        .and_then(|r| header(r, "content-type"))
        .unwrap_or_default()
        .to_string();
    let stream = mime.to_ascii_lowercase().starts_with("text/event-stream")
        && request.channel == Channel::Http;
    let mut content = json!({"size": 0, "mimeType": mime});
    let (text, size, base64) = response_body(&responses, stream);
    content["size"] = size.into();
    content["text"] = text.into();
    if base64 {
        content["encoding"] = "base64".into();
    }
    let last = responses.last().map_or(request.time, |r| r.time);
    let first_byte = first
        .and_then(|r| r.http())
        .and_then(|h| h.extra.get(FIRST_BYTE))
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc))
        .or(first.map(|r| r.time));
    let total = ms(request, last);
    let wait = first_byte.map_or(total, |t| ms(request, t).min(total));
    let mut out = json!({
        "startedDateTime": format_time(request.time),
        "time": total,
        "request": req,
        "response": {
            "status": first.and_then(|r| r.http()).and_then(|h| h.status).unwrap_or(0),
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": first.map(headers).unwrap_or_default(),
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": wait, "receive": total - wait},
        "_sightline": {
            "channel": request.channel.as_str(),
            "request": sightline_event(request),
            "responses": responses.iter().map(|r| sightline_event(r)).collect::<Vec<_>>(),
        },
    });
    if std::iter::once(request)
        .chain(responses.iter().copied())
        .any(has_redaction)
    {
        out["comment"] = format!(
            "Credentials were redacted when Sightline recorded this exchange: they read \
             {REDACTED} here (headers, URL parameters, or the body ranges in _sightline)."
        )
        .into();
    }
    if responses.is_empty() {
        out["comment"] = "No response was recorded.".into();
    }
    out
}

/// The response body: an event stream's events as their text, else the one event's body
/// (base64 when it is not UTF-8). With its size in bytes.
fn response_body(responses: &[&Event], stream: bool) -> (String, usize, bool) {
    if stream {
        let text: String = responses
            .iter()
            .map(|r| {
                let extra = r.http().map(|h| &h.extra);
                let field = |k: &str| extra.and_then(|x| x.get(k));
                SseEvent {
                    event: field("sse_event")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    data: r.text().into_owned(),
                    id: field("sse_id").and_then(Value::as_str).map(str::to_string),
                    retry: field("retry").and_then(Value::as_u64),
                    raw_data: None,
                }
                .text()
            })
            .collect();
        let size = text.len();
        return (text, size, false);
    }
    let Some(bytes) = responses.first().and_then(|r| r.bytes()) else {
        return (String::new(), 0, false);
    };
    match std::str::from_utf8(&bytes) {
        Ok(text) => (text.to_string(), bytes.len(), false),
        Err(_) => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            (b64, bytes.len(), true)
        }
    }
}
