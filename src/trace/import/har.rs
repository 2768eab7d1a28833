//! HAR files (HTTP Archive 1.2, as browsers' dev tools and proxies save them, and as
//! `sightline export --format har` writes them) holding MCP Streamable HTTP traffic and LLM API
//! exchanges.
//!
//! Each entry becomes:
//! - a request event `host -> server:NAME` on the `http` channel (or `host -> llm` on
//!   `llm-http` when the URL is an LLM API's, [`HttpHooks::is_llm`]): the body as `raw` (empty
//!   for GET and DELETE), with [`HttpInfo`] method, URL and headers, at `startedDateTime`;
//! - response events the other way, at `startedDateTime` + `time`: one per SSE event (its
//!   `data`) when an MCP response is `text/event-stream`, else one holding the body (empty for
//!   a 202; an LLM API's stream whole, as the LLM proxy records it). Each carries the status
//!   and `in_reply_to` (its request's `seq`, as the HTTP proxy records it); the first also
//!   carries the response headers.
//!
//! Sightline's own export adds `_sightline` members (HAR's rule for custom fields) with what a
//! HAR has no field for: each event's lanes, time to the microsecond, status, redacted ranges
//! and other `http` fields; with them the events are the exported ones again.
//!
//! Header values and URL query parameters go through the caller's redaction hook before they
//! become events, so credentials (`Authorization`, cookies, API keys) never reach a trace.
//! NAME is the caller's, or the URL's host. An entry that cannot be read (a missing field, a
//! body over [`BODY_LIMIT`], `_sightline` members that do not fit its body) is reported by its
//! 1-based number and skipped whole. Entries overlap (a GET stream stays open while POSTs come
//! and go), so the events are sorted by time before they are numbered.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{HttpHooks, ImportWarning, Imported};
use crate::trace::BODY_LIMIT;
use crate::trace::event::{Channel, Event, HttpInfo, Lane};

/// Why a HAR file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum HarError {
    #[error("not JSON (line {line}, column {column}): {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("not a HAR file: no `log.entries` array")]
    NoEntries,
}

/// Parses a whole HAR file.
pub fn parse(text: &str, name: Option<&str>, hooks: HttpHooks) -> Result<Imported, HarError> {
    let root: Value = serde_json::from_str(text).map_err(|e| HarError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let entries = root
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .ok_or(HarError::NoEntries)?;
    let mut out = Imported::default();
    for (index, entry) in entries.iter().enumerate() {
        let before = out.events.len();
        if let Err(message) = import_entry(entry, name, hooks, &mut out.events) {
            // Nothing of an entry that cannot be read: not its request alone either.
            out.events.truncate(before);
            out.warnings.push(ImportWarning {
                unit: "entry",
                number: index + 1,
                message,
            });
        }
    }
    // Entries overlap (a long GET stream, concurrent POSTs): a trace is in time order, so the
    // events are sorted by time (each entry's own order kept among equal times) and numbered.
    // Each event remembers its index before the sort, so a response's `in_reply_to` can name
    // its request's `seq` after it.
    let mut order: Vec<usize> = (0..out.events.len()).collect();
    order.sort_by_key(|&i| out.events[i].time);
    let mut seq_of = vec![0u64; order.len()];
    for (seq, &i) in order.iter().enumerate() {
        seq_of[i] = seq as u64;
    }
    let mut events: Vec<Option<Event>> = std::mem::take(&mut out.events)
        .into_iter()
        .map(Some)
        .collect();
    for (seq, &i) in order.iter().enumerate() {
        let Some(mut event) = events[i].take() else {
            continue;
        };
        event.seq = seq as u64;
        if let Some(http) = event.http_mut()
            && let Some(at) = http.extra.remove(REPLY_TO)
        {
            let at = at.as_u64().and_then(|a| seq_of.get(a as usize)).copied();
            if let Some(request) = at {
                http.extra.insert(IN_REPLY_TO.into(), Value::from(request));
            }
        }
        out.events.push(event);
    }
    Ok(out)
}

/// One entry's events, in order: the request first. `in_reply_to` is the request's `seq`
/// within the file's renumbering, set once the events are sorted ([`parse`]).
fn import_entry(
    entry: &Value,
    name: Option<&str>,
    hooks: HttpHooks,
    events: &mut Vec<Event>,
) -> Result<(), String> {
    let started = entry
        .get("startedDateTime")
        .and_then(Value::as_str)
        .ok_or("no `startedDateTime`")?;
    let started = DateTime::parse_from_rfc3339(started)
        .map_err(|e| format!("`startedDateTime` is not a date ({e}): {started}"))?
        .with_timezone(&Utc);
    let request = entry.get("request").ok_or("no `request`")?;
    let response = entry.get("response").ok_or("no `response`")?;
    let method = request
        .get("method")
        .and_then(Value::as_str)
        .ok_or("no `request.method`")?;
    let url = request
        .get("url")
        .and_then(Value::as_str)
        .ok_or("no `request.url`")?;
    // What Sightline's own export keeps beside the HAR fields (`export --format har`).
    let ours = entry.get("_sightline");
    let mine = |key: &str| ours.and_then(|o| o.get(key));
    let llm = match mine("channel").and_then(Value::as_str) {
        Some(channel) => channel == Channel::LlmHttp.as_str(),
        None => (hooks.is_llm)(url),
    };
    let channel = if llm { Channel::LlmHttp } else { Channel::Http };
    let server = name.map_or_else(|| host_of(url), str::to_string);
    let (client, peer) = match llm {
        true => (Lane::Host, Lane::Llm),
        false => (Lane::Host, Lane::server(&server)),
    };
    let elapsed = entry.get("time").and_then(Value::as_f64).unwrap_or(0.0);
    let answered = super::after_ms(started, elapsed, "time")?;
    let time_of = |t: DateTime<Utc>| {
        use chrono::SubsecRound as _;
        t.trunc_subsecs(6)
    };

    let request_body = request
        .pointer("/postData/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    if request_body.len() > BODY_LIMIT {
        return Err(too_big("request.postData.text", request_body.len()));
    }
    let mut headers = header_pairs(request.get("headers"));
    (hooks.redact)(&mut headers);
    let recorded = Recorded::of(mine("request"), time_of(started), &client, &peer)?;
    let mut request_event = recorded.event(
        events.len(),
        channel.clone(),
        request_body.as_bytes().to_vec(),
    );
    request_event.set_http(Some(recorded.http(HttpInfo {
        method: Some(method.into()),
        url: Some(redact_url(url, hooks).into()),
        headers: HttpInfo::headers_of(headers),
        ..HttpInfo::default()
    })));
    let request_index = events.len();
    events.push(request_event);

    let status = response
        .get("status")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
        .ok_or("no `response.status`")?;
    let mut headers = header_pairs(response.get("headers"));
    (hooks.redact)(&mut headers);
    let content = response.get("content");
    let text = content
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if text.len() > BODY_LIMIT.div_ceil(3) * 4 {
        return Err(too_big("response.content.text", text.len()));
    }
    let body = if content
        .and_then(|c| c.get("encoding"))
        .and_then(Value::as_str)
        == Some("base64")
    {
        base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|e| format!("response body is not valid base64: {e}"))?
    } else {
        text.as_bytes().to_vec()
    };
    if body.len() > BODY_LIMIT {
        return Err(too_big("response.content.text", body.len()));
    }
    let mime = content
        .and_then(|c| c.get("mimeType"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .or_else(|| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                .map(|(_, v)| v.clone())
        })
        .unwrap_or_default();
    let stream = mime.to_ascii_lowercase().starts_with("text/event-stream");
    let bodies: Vec<Vec<u8>> = if stream && !llm {
        (hooks.sse_data)(&body)
            .into_iter()
            .map(String::into_bytes)
            .collect()
    } else {
        vec![body]
    };
    let bodies = if bodies.is_empty() && mine("responses").is_none() {
        vec![Vec::new()]
    } else {
        bodies
    };
    let ours: Vec<Value> = match mine("responses").and_then(Value::as_array) {
        Some(list) if list.len() != bodies.len() => {
            return Err(format!(
                "`_sightline.responses` names {} response events, the body holds {}",
                list.len(),
                bodies.len()
            ));
        }
        Some(list) => list.clone(),
        None => vec![Value::Null; bodies.len()],
    };
    for (i, (body, ours)) in bodies.into_iter().zip(&ours).enumerate() {
        let ours = (!ours.is_null()).then_some(ours);
        let recorded = Recorded::of(ours, time_of(answered), &peer, &client)?;
        let mut e = recorded.event(events.len(), channel.clone(), body);
        let mut http = recorded.http(HttpInfo {
            status: recorded.status.unwrap_or(Some(status)),
            headers: if i == 0 {
                HttpInfo::headers_of(std::mem::take(&mut headers))
            } else {
                Vec::new()
            },
            ..HttpInfo::default()
        });
        if !llm {
            // Which request this answers, by its index until the events are numbered.
            http.extra
                .insert(REPLY_TO.into(), Value::from(request_index));
        } else {
            http.extra.remove(IN_REPLY_TO);
        }
        e.set_http(Some(http));
        events.push(e);
    }
    Ok(())
}

/// The key an entry's response events name their request's index by while importing, and
/// the one the trace keeps (the request's `seq`, as the HTTP proxy records it).
const REPLY_TO: &str = "\u{0}reply_to";
const IN_REPLY_TO: &str = "in_reply_to";

fn too_big(field: &str, len: usize) -> String {
    format!(
        "`{field}` is {len} bytes, over the {} MiB a recorded body may have",
        BODY_LIMIT >> 20
    )
}

/// One event's own fields as Sightline's export kept them (`_sightline.request`, one of
/// `_sightline.responses`), or the HAR's own: the time, the lanes, the redacted byte ranges and
/// the other recorded `http` fields.
struct Recorded {
    time: DateTime<Utc>,
    from: Lane,
    to: Lane,
    redacted: Vec<[usize; 2]>,
    extra: serde_json::Map<String, Value>,
    /// A response event's own status, when the export said (an event stream's later events
    /// have none).
    status: Option<Option<u16>>,
}

impl Recorded {
    fn of(
        ours: Option<&Value>,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
    ) -> Result<Self, String> {
        let mut out = Recorded {
            time,
            from: from.clone(),
            to: to.clone(),
            redacted: Vec::new(),
            extra: serde_json::Map::new(),
            status: None,
        };
        let Some(ours) = ours else {
            return Ok(out);
        };
        if let Some(t) = ours.get("time").and_then(Value::as_str) {
            out.time = DateTime::parse_from_rfc3339(t)
                .map_err(|e| format!("`_sightline` time is not a date ({e}): {t}"))?
                .with_timezone(&Utc);
        }
        if let Some(lane) = ours.get("from").and_then(Value::as_str) {
            out.from = Lane::from(lane);
        }
        if let Some(lane) = ours.get("to").and_then(Value::as_str) {
            out.to = Lane::from(lane);
        }
        if let Some(ranges) = ours.get("redacted") {
            out.redacted = serde_json::from_value(ranges.clone())
                .map_err(|e| format!("`_sightline` redacted ranges: {e}"))?;
        }
        if let Some(status) = ours.get("status") {
            out.status = Some(status.as_u64().and_then(|s| u16::try_from(s).ok()));
        }
        if let Some(Value::Object(extra)) = ours.get("http") {
            out.extra = extra.clone();
        }
        Ok(out)
    }

    fn event(&self, seq: usize, channel: Channel, body: Vec<u8>) -> Event {
        Event::with_bytes(
            seq as u64,
            self.time,
            self.from.clone(),
            self.to.clone(),
            channel,
            body,
        )
    }

    fn http(&self, mut info: HttpInfo) -> HttpInfo {
        info.redacted = self.redacted.clone();
        for (k, v) in &self.extra {
            info.extra.insert(k.clone(), v.clone());
        }
        info
    }
}

/// HAR headers `[{"name":..,"value":..}]` as pairs, in order.
fn header_pairs(headers: Option<&Value>) -> Vec<(String, String)> {
    headers
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| {
            Some((
                h.get("name")?.as_str()?.to_string(),
                h.get("value")?.as_str()?.to_string(),
            ))
        })
        .collect()
}

/// The URL with each query parameter's value passed through the redaction hook by name.
fn redact_url(url: &str, hooks: HttpHooks) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (p.to_string(), String::new()),
        })
        .collect();
    let before = pairs.clone();
    (hooks.redact)(&mut pairs);
    let query: Vec<String> = pairs
        .iter()
        .zip(&before)
        .zip(query.split('&'))
        .map(|(((k, v), (_, old)), original)| {
            if v == old {
                original.to_string()
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    let mut out = format!("{base}?{}", query.join("&"));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `https://mcp.example.com:8443/mcp` -> `mcp.example.com`.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if authority.starts_with('[') {
        authority
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    if host.is_empty() {
        "http".into()
    } else {
        host.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(pairs: &mut [(String, String)]) {
        for (k, v) in pairs {
            if k.eq_ignore_ascii_case("authorization") || k == "api_key" {
                *v = "[redacted]".into();
            }
        }
    }

    fn sse(bytes: &[u8]) -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .split("\n\n")
            .filter_map(|block| {
                let data: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                (!data.is_empty()).then(|| data.join("\n"))
            })
            .collect()
    }

    const HOOKS: HttpHooks = HttpHooks {
        redact,
        sse_data: sse,
        is_llm: |url| url.ends_with("/v1/messages"),
    };

    #[test]
    fn sse_response_becomes_one_event_per_message_and_credentials_go() {
        let har = r#"{"log":{"entries":[
          {"startedDateTime":"2025-06-11T10:00:00.000Z","time":12.5,
           "request":{"method":"POST","url":"http://localhost:3000/mcp?api_key=s3cret&x=1",
             "headers":[{"name":"Authorization","value":"Bearer s3cret"}],
             "postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}"}},
           "response":{"status":200,"headers":[{"name":"Content-Type","value":"text/event-stream"}],
             "content":{"mimeType":"text/event-stream","text":"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"}}},
          {"request":{}}
        ]}}"#;
        let got = parse(har, None, HOOKS).expect("har");
        assert_eq!(got.events.len(), 3);
        assert_eq!(got.warnings.len(), 1);
        assert_eq!(got.warnings[0].number, 2);
        let req = got.events[0].http().expect("http");
        assert_eq!(
            req.url.as_deref(),
            Some("http://localhost:3000/mcp?api_key=[redacted]&x=1")
        );
        assert_eq!(req.headers[0].1, "[redacted]");
        assert_eq!(got.events[0].to, Lane::server("localhost"));
        assert_eq!(got.events[1].raw.as_deref(), Some(r#"{"a":1}"#));
        assert_eq!(got.events[2].raw.as_deref(), Some(r#"{"b":2}"#));
        assert_eq!(
            (got.events[2].time - got.events[0].time).num_microseconds(),
            Some(12_500)
        );
        assert!(
            !serde_json::to_string(&got.events)
                .unwrap()
                .contains("s3cret")
        );
    }

    #[test]
    fn overlapping_entries_become_events_in_time_order() {
        let har = r#"{"log":{"entries":[
          {"startedDateTime":"2025-06-11T10:00:00.000Z","time":5000,
           "request":{"method":"GET","url":"http://localhost:3000/mcp","headers":[]},
           "response":{"status":200,"headers":[],
             "content":{"mimeType":"text/event-stream","text":"data: {\"late\":1}\n\n"}}},
          {"startedDateTime":"2025-06-11T10:00:01.000Z","time":10,
           "request":{"method":"POST","url":"http://localhost:3000/mcp","headers":[],
             "postData":{"text":"{}"}},
           "response":{"status":202,"headers":[],"content":{"text":""}}}
        ]}}"#;
        let got = parse(har, None, HOOKS).expect("har");
        let times: Vec<_> = got.events.iter().map(|e| e.time).collect();
        assert!(times.is_sorted(), "{times:?}");
        let seqs: Vec<u64> = got.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3]);
        assert_eq!(got.events[3].raw.as_deref(), Some(r#"{"late":1}"#));
    }

    #[test]
    fn broken_json_names_line_and_column() {
        let err = parse("{\n  \"log\": [,\n", None, HOOKS).unwrap_err();
        assert!(matches!(err, HarError::Json { line: 2, .. }), "{err}");
    }
}
