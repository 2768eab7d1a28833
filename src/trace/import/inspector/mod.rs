//! MCP Inspector history exports (github.com/modelcontextprotocol/inspector).
//!
//! The Inspector is where many people first watch an MCP server; this module turns what it
//! saves into a trace, so its history can be drawn and checked like a Sightline recording.
//!
//! What the Inspector saves (read from its source, v2.3.0):
//!
//! - **v2 web client, Protocol panel, Export** (`clients/web/src/App.tsx` `onExportProtocol`,
//!   file `inspector-protocol[-pinned|-unpinned]-SERVER-TIME.json`, see
//!   `clients/web/src/lib/downloadFile.ts`): a JSON array of `MessageEntry`
//!   (`core/mcp/types.ts`): `{id, timestamp, direction, origin, message, response?, duration?,
//!   clientError?}`. `message` is the JSON-RPC message as sent or received; a response is
//!   folded into its request's entry (`core/mcp/state/messageLogState.ts`) with `duration`, the
//!   milliseconds between the two. `origin` (`client` or `server`) says who sent `message`.
//! - **v2 Console panel, Export**: `[{timestamp, message}]`, the server's stderr lines.
//! - **v1** (`client/src/components/HistoryAndNotifications.tsx`) has no export: the History
//!   panel keeps `{request, response}` JSON strings (`{method, params}` and the bare result, or
//!   `{error: MESSAGE}`; no `jsonrpc`, no `id`, no time) and Server Notifications keeps
//!   `{method, params}`; only one item at a time can be copied. An array of such items, as
//!   assembled from those copies, is read too.
//! - The CLI mode (`--cli`) prints one method's result, not a history: it is refused with a
//!   message saying so. Its one stream of entries, `--method logging/tail`
//!   (`clients/cli/src/handlers/run-method.ts`), prints the server's `notifications/message`
//!   as JSON Lines of `MessageEntry`: read line by line.
//!
//! Each message becomes a `stdio` event (the export does not say which transport carried it)
//! `host -> server:NAME` or back, its payload the message re-serialized with its members in
//! their order, unknown ones kept. A folded response becomes its own event from the other side
//! at `timestamp + duration`. Ids are kept as they are; v1 items, which have none, get
//! `"jsonrpc":"2.0"` and the item's number as `id` (the event says `"enveloped": true`). The
//! rest of an entry (its `id`, `clientError`, fields not known here) is kept in the first
//! event's `inspector` member. When every entry has a timestamp the events are ordered by time;
//! otherwise every event gets a synthetic time, the file's modification time plus 1 ms per
//! event in file order, and [`Imported::synthetic_times`] is set. NAME is the caller's, else
//! the `serverInfo.name` of an `initialize` answer, else `inspector`. An entry that cannot be
//! read is reported by its 1-based number and skipped.

use chrono::{DateTime, SubsecRound as _, TimeDelta, Utc};
use serde_json::{Map, Value};

use super::{ImportWarning, Imported};
use crate::trace::event::{Channel, Event, Lane};

/// Why a file could not be read as an Inspector export at all.
#[derive(Debug, thiserror::Error)]
pub enum InspectorError {
    #[error("not JSON (line {line}, column {column}): {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "not an MCP Inspector history: expected a JSON array of entries (what the Protocol \
         panel's Export saves) or JSON Lines of them{hint}"
    )]
    NotAnArray { hint: &'static str },
}

/// Requests a server sends to the client; other requests are the client's.
const SERVER_REQUESTS: [&str; 3] = ["sampling/createMessage", "elicitation/create", "roots/list"];
/// Notifications the client sends; other notifications are the server's.
const CLIENT_NOTIFICATIONS: [&str; 3] = [
    "notifications/initialized",
    "notifications/roots/list_changed",
    "notifications/cancelled",
];

/// One message of the history, before it gets its time and `seq`.
struct Item {
    time: Option<DateTime<Utc>>,
    from_server: bool,
    channel: Channel,
    text: String,
    inspector: Option<Map<String, Value>>,
}

/// Parses a whole export. `name` is the server's name (from `--name` or the file name);
/// `mtime` is the file's modification time, the start of synthetic times.
pub fn parse(
    text: &str,
    name: Option<&str>,
    mtime: DateTime<Utc>,
) -> Result<Imported, InspectorError> {
    let (unit, entries) = split_entries(text)?;
    let mut out = Imported::default();
    let mut items = Vec::new();
    for (number, entry) in entries {
        match entry.and_then(|entry| read_entry(entry, number)) {
            Ok(mut got) => items.append(&mut got),
            Err(message) => out.warnings.push(ImportWarning {
                unit,
                number,
                message,
            }),
        }
    }
    let server = name
        .map(str::to_string)
        .or_else(|| items.iter().find_map(server_info_name))
        .unwrap_or_else(|| "inspector".to_string());
    if items.iter().all(|i| i.time.is_some()) {
        // A folded response's time is later than the entries after its request.
        items.sort_by_key(|i| i.time);
    } else {
        out.synthetic_times = true;
        for (k, item) in items.iter_mut().enumerate() {
            item.time = Some(mtime + TimeDelta::milliseconds(k as i64));
        }
    }
    for item in items {
        let (from, to) = if item.from_server {
            (Lane::server(&server), Lane::Host)
        } else {
            (Lane::Host, Lane::server(&server))
        };
        let time = item.time.unwrap_or(mtime).trunc_subsecs(6);
        let mut event = Event::with_bytes(
            out.events.len() as u64,
            time,
            from,
            to,
            item.channel,
            item.text.into_bytes(),
        );
        if let Some(inspector) = item.inspector {
            event
                .extra_mut()
                .insert("inspector".into(), Value::Object(inspector));
        }
        out.events.push(event);
    }
    Ok(out)
}

/// The numbered entries of the file: a JSON array (`"entry"` 1, 2, ...), or JSON Lines as
/// `inspector --cli --method logging/tail` prints them (`"line"` numbers).
type Entries = Vec<(usize, Result<Value, String>)>;

fn split_entries(text: &str) -> Result<(&'static str, Entries), InspectorError> {
    let json_error = |e: serde_json::Error| InspectorError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let cli_hint = "; one object is what `inspector --cli` prints: one method's result, with no \
                    request to pair it with";
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(entries)) => {
            Ok(("entry", (1..).zip(entries.into_iter().map(Ok)).collect()))
        }
        Ok(Value::Object(obj))
            if !["message", "request", "method"]
                .iter()
                .any(|k| obj.contains_key(*k)) =>
        {
            Err(InspectorError::NotAnArray { hint: cli_hint })
        }
        Ok(entry @ Value::Object(_)) => Ok(("line", vec![(1, Ok(entry))])),
        Ok(_) => Err(InspectorError::NotAnArray { hint: "" }),
        Err(whole) => {
            let lines: Entries = text
                .lines()
                .enumerate()
                .filter(|(_, line)| !line.trim().is_empty())
                .map(|(i, line)| {
                    let entry = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"));
                    (i + 1, entry)
                })
                .collect();
            match lines.first() {
                Some((_, Ok(_))) if lines.len() > 1 => Ok(("line", lines)),
                _ => Err(json_error(whole)),
            }
        }
    }
}

/// The messages of one entry (a v2 `MessageEntry`, a Console line, a v1 history item, or a
/// bare message), or why it cannot be read.
fn read_entry(entry: Value, number: usize) -> Result<Vec<Item>, String> {
    let Value::Object(mut entry) = entry else {
        return Err("not a JSON object".into());
    };
    let time = match entry.get("timestamp") {
        None => None,
        Some(Value::String(t)) => Some(
            DateTime::parse_from_rfc3339(t)
                .map_err(|e| format!("`timestamp` is not a date ({e}): {t}"))?
                .with_timezone(&Utc),
        ),
        Some(other) => return Err(format!("`timestamp` is not a string: {other}")),
    };
    if let Some(message) = entry.remove("message") {
        return match message {
            Value::Object(message) => message_entry(entry, message, time),
            // The Console export: one stderr line.
            Value::String(line) => Ok(vec![Item {
                time,
                from_server: true,
                channel: Channel::Stderr,
                text: line,
                inspector: None,
            }]),
            _ => Err("`message` is neither a JSON-RPC object nor a text".into()),
        };
    }
    if let Some(request) = entry.remove("request") {
        return v1_item(entry, request, number);
    }
    if entry.contains_key("url") && entry.contains_key("requestHeaders") {
        return Err(
            "a Network panel entry (HTTP), not a message: export the Protocol panel".into(),
        );
    }
    if entry.contains_key("method") || entry.contains_key("result") || entry.contains_key("error") {
        // A message on its own, as v1's Server Notifications list holds them.
        let from_server = sent_by_server(None, &entry);
        let (text, enveloped) = envelope(entry, None);
        return Ok(vec![stdio(time, from_server, text, marker(enveloped))]);
    }
    Err("neither a Protocol entry (`message`) nor a History item (`request`)".into())
}

/// A v2 `MessageEntry`: its message and, when folded in, the answer.
fn message_entry(
    mut rest: Map<String, Value>,
    message: Map<String, Value>,
    time: Option<DateTime<Utc>>,
) -> Result<Vec<Item>, String> {
    let from_server = match rest.get("origin").and_then(Value::as_str) {
        Some("server") => true,
        Some("client") => false,
        _ => sent_by_server(rest.get("direction").and_then(Value::as_str), &message),
    };
    let response = rest.remove("response");
    let answered = match (time, rest.get("duration").and_then(Value::as_f64)) {
        (Some(t), Some(ms)) => Some(super::after_ms(t, ms, "duration")?),
        _ => time,
    };
    let mut items = vec![stdio(
        time,
        from_server,
        Value::Object(message).to_string(),
        Some(rest),
    )];
    if let Some(response) = response.filter(|r| !r.is_null()) {
        items.push(stdio(answered, !from_server, response.to_string(), None));
    }
    Ok(items)
}

/// A v1 History item: `{request, response?}`, each a JSON text or a value.
fn v1_item(
    mut rest: Map<String, Value>,
    request: Value,
    number: usize,
) -> Result<Vec<Item>, String> {
    let Value::Object(request) = json_or_value(request, "request")? else {
        return Err("`request` is not a JSON object".into());
    };
    let response = match rest.remove("response") {
        None | Some(Value::Null) => None,
        Some(r) => Some(json_or_value(r, "response")?),
    };
    let is_request = !request
        .get("method")
        .and_then(Value::as_str)
        .is_some_and(|m| m.starts_with("notifications/"));
    let id = request
        .get("id")
        .cloned()
        .unwrap_or_else(|| Value::from(number));
    let (text, enveloped) = envelope(request, is_request.then(|| id.clone()));
    let mut inspector = rest;
    inspector.extend(marker(enveloped).unwrap_or_default());
    let answer = match response {
        Some(response) if is_request => {
            let enveloped = response.get("jsonrpc").is_none();
            let text = Value::Object(v1_answer(id, response)).to_string();
            Some(stdio(None, true, text, marker(enveloped)))
        }
        // v1 records a notification that failed to send with `{error}`; nothing crossed back.
        Some(response) => {
            inspector.insert("response".into(), response);
            None
        }
        None => None,
    };
    let mut items = vec![stdio(None, false, text, Some(inspector))];
    items.extend(answer);
    Ok(items)
}

/// A v1 answer as a JSON-RPC response: `{error: "MCP error -32602: ..."}` becomes an error
/// (with the code when the message starts with it), anything else a result.
fn v1_answer(id: Value, response: Value) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("jsonrpc".into(), "2.0".into());
    out.insert("id".into(), id);
    match response {
        Value::Object(obj) if obj.contains_key("jsonrpc") => return obj,
        Value::Object(obj) if obj.len() == 1 && obj.get("error").is_some_and(Value::is_string) => {
            let message = obj.get("error").and_then(Value::as_str).unwrap_or_default();
            let mut error = Map::new();
            if let Some(code) = message
                .strip_prefix("MCP error ")
                .and_then(|m| m.split_once(':'))
                .and_then(|(code, _)| code.parse::<i64>().ok())
            {
                error.insert("code".into(), code.into());
            }
            error.insert("message".into(), message.into());
            out.insert("error".into(), Value::Object(error));
        }
        result => {
            out.insert("result".into(), result);
        }
    }
    out
}

/// The message as text, with `"jsonrpc":"2.0"` (and `id`, when given and missing) put first
/// when it has no `jsonrpc` member; and whether that was done.
fn envelope(message: Map<String, Value>, id: Option<Value>) -> (String, bool) {
    if message.contains_key("jsonrpc") {
        return (Value::Object(message).to_string(), false);
    }
    let mut out = Map::new();
    out.insert("jsonrpc".into(), "2.0".into());
    if let Some(id) = id.filter(|_| !message.contains_key("id")) {
        out.insert("id".into(), id);
    }
    out.extend(message);
    (Value::Object(out).to_string(), true)
}

/// The `inspector` member of an event whose `jsonrpc` (and `id`) the importer added.
fn marker(enveloped: bool) -> Option<Map<String, Value>> {
    enveloped.then(|| Map::from_iter([("enveloped".to_string(), Value::Bool(true))]))
}

/// A value that v1 stored as a JSON text, parsed; any other value as it is.
fn json_or_value(value: Value, what: &str) -> Result<Value, String> {
    match value {
        Value::String(text) => {
            serde_json::from_str(&text).map_err(|e| format!("`{what}` is not readable JSON: {e}"))
        }
        other => Ok(other),
    }
}

/// Who sent a message whose entry does not say: by its method.
fn sent_by_server(direction: Option<&str>, message: &Map<String, Value>) -> bool {
    let is_request = direction.map_or(message.contains_key("id"), |d| d == "request");
    match message.get("method").and_then(Value::as_str) {
        None => true, // a response: most answer the client's requests
        Some(m) if is_request => SERVER_REQUESTS.contains(&m),
        Some(m) => !CLIENT_NOTIFICATIONS.contains(&m),
    }
}

fn stdio(
    time: Option<DateTime<Utc>>,
    from_server: bool,
    text: String,
    inspector: Option<Map<String, Value>>,
) -> Item {
    Item {
        time,
        from_server,
        channel: Channel::Stdio,
        text,
        inspector: inspector.filter(|m| !m.is_empty()),
    }
}

/// `serverInfo.name` of an `initialize` answer.
fn server_info_name(item: &Item) -> Option<String> {
    if !item.from_server || item.channel != Channel::Stdio {
        return None;
    }
    let value: Value = serde_json::from_str(&item.text).ok()?;
    let name = value.pointer("/result/serverInfo/name")?.as_str()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// `inspector-protocol-weather-2026-08-19T12-00-00.000Z.json` -> `weather` (the Inspector's id
/// for the server; the pinned and unpinned exports too).
pub fn name_from_file(file_name: &str) -> Option<&str> {
    let rest = file_name
        .strip_prefix("inspector-")?
        .strip_suffix(".json")?;
    let rest = [
        "protocol-pinned-",
        "protocol-unpinned-",
        "protocol-",
        "console-",
    ]
    .iter()
    .find_map(|kind| rest.strip_prefix(kind))?;
    // The time is ISO 8601 with `:` as `-`: `2026-08-19T12-00-00.000Z`, 24 characters.
    let cut = rest.len().checked_sub(25)?;
    let (server, time) = rest.split_at_checked(cut)?;
    (time.starts_with('-') && time.ends_with('Z') && !server.is_empty()).then_some(server)
}

#[cfg(test)]
mod tests;
