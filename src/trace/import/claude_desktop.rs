//! Claude Desktop's MCP logs: `mcp-server-NAME.log` (one server) and `mcp.log` (all of them).
//!
//! Claude Desktop writes one line per thing it saw, for example:
//!
//! ```text
//! 2025-06-11T10:00:00.000Z [weather] [info] Initializing server...
//! 2025-06-11T10:00:00.120Z [weather] [info] Message from client: {"jsonrpc":"2.0","id":0,...} { metadata: undefined }
//! weather MCP server running on stdio
//! 2025-06-11T10:00:00.310Z [weather] [info] Message from server: {"jsonrpc":"2.0","id":0,...} { metadata: undefined }
//! ```
//!
//! - `Message from client: JSON` becomes a `stdio` event `host -> server:NAME`, and
//!   `Message from server: JSON` one `server:NAME -> host`. The payload is exactly the text of
//!   the JSON value (its end is found by parsing, so the trailing `{ metadata: ... }` is not
//!   part of it).
//! - Any other timestamped line (Claude Desktop's own remarks: `Initializing server...`,
//!   `Server started and connected successfully`, errors) becomes a `note` event
//!   `host -> server:NAME` holding the text after the level.
//! - A line without a timestamp is the server's own stderr, which Claude Desktop copies as it
//!   is: a `stderr` event `server:NAME -> host` at the time of the line before it.
//!
//! NAME is the bracketed name of the line (or of the line before, for stderr and for
//! `TIME [LEVEL] ...` lines that name no server, as in `mcp.log`), unless the caller gives one. A line that cannot be read (a message whose JSON is broken, stderr before
//! any timestamp) is reported by number and skipped.

use chrono::{DateTime, Utc};

use super::{ImportWarning, Imported};
use crate::trace::event::{Channel, Event, Lane};

/// Parses a whole log. `name` overrides the server names found in the lines.
pub fn parse(text: &str, name: Option<&str>) -> Imported {
    let mut out = Imported::default();
    let mut last: Option<(DateTime<Utc>, String)> = None;
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let mut warn = |message: String| {
            out.warnings.push(ImportWarning {
                unit: "line",
                number,
                message,
            })
        };
        let parsed = match parse_prefix(line) {
            Some(prefix) => prefix,
            None => {
                // The server's stderr, copied verbatim.
                let Some((time, server)) = &last else {
                    warn(
                        "no timestamp before this line (not a Claude Desktop MCP log line)".into(),
                    );
                    continue;
                };
                let server = name.unwrap_or(server);
                push(
                    &mut out.events,
                    *time,
                    Lane::server(server),
                    Lane::Host,
                    Channel::Stderr,
                    line,
                );
                continue;
            }
        };
        let server = match (name, parsed.server, &last) {
            (Some(name), _, _) | (None, Some(name), _) => name.to_string(),
            (None, None, Some((_, previous))) => previous.clone(),
            (None, None, None) => "claude-desktop".to_string(),
        };
        last = Some((parsed.time, server.clone()));
        let (from, to, payload) = if let Some(rest) = parsed.message.strip_prefix(CLIENT) {
            (Lane::Host, Lane::server(&server), Some(rest))
        } else if let Some(rest) = parsed.message.strip_prefix(SERVER) {
            (Lane::server(&server), Lane::Host, Some(rest))
        } else {
            (Lane::Host, Lane::server(&server), None)
        };
        match payload {
            None => push(
                &mut out.events,
                parsed.time,
                from,
                to,
                Channel::Note,
                parsed.message,
            ),
            Some(rest) => match json_prefix(rest) {
                Ok(json) => push(&mut out.events, parsed.time, from, to, Channel::Stdio, json),
                Err(err) => warn(format!("the message is not readable JSON: {err}")),
            },
        }
    }
    out
}

const LEVELS: [&str; 5] = ["info", "warn", "warning", "error", "debug"];
const CLIENT: &str = "Message from client: ";
const SERVER: &str = "Message from server: ";

struct Prefix<'a> {
    time: DateTime<Utc>,
    /// `None` for lines about no one server.
    server: Option<&'a str>,
    /// The text after `[level] `.
    message: &'a str,
}

/// `TIME [NAME] [LEVEL] MESSAGE`, or `None` when the line does not start that way.
fn parse_prefix(line: &str) -> Option<Prefix<'_>> {
    let (time, rest) = line.split_once(' ')?;
    let time = DateTime::parse_from_rfc3339(time).ok()?.with_timezone(&Utc);
    let rest = rest.strip_prefix('[')?;
    let (server, rest) = rest.split_once("] ")?;
    // `TIME [LEVEL] MESSAGE`: a line of Claude Desktop's own about no one server (mcp.log).
    if LEVELS.contains(&server) && !rest.starts_with('[') {
        return Some(Prefix {
            time,
            server: None,
            message: rest,
        });
    }
    // The level is optional in older logs.
    let message = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((level, after)) if !level.contains(' ') => after.strip_prefix(' ').unwrap_or(after),
        _ => rest,
    };
    Some(Prefix {
        time,
        server: Some(server),
        message,
    })
}

/// The text of the JSON value at the start of `rest`, exactly as written.
fn json_prefix(rest: &str) -> Result<&str, serde_json::Error> {
    let trimmed = rest.trim_start();
    let mut stream =
        serde_json::Deserializer::from_str(trimmed).into_iter::<serde::de::IgnoredAny>();
    match stream.next() {
        Some(Ok(_)) => Ok(&trimmed[..stream.byte_offset()]),
        Some(Err(err)) => Err(err),
        None => Err(serde::de::Error::custom(
            "no JSON after `Message from ...:`",
        )),
    }
}

fn push(
    events: &mut Vec<Event>,
    time: DateTime<Utc>,
    from: Lane,
    to: Lane,
    channel: Channel,
    text: &str,
) {
    let seq = events.len() as u64;
    events.push(Event::with_bytes(
        seq,
        time,
        from,
        to,
        channel,
        text.as_bytes().to_vec(),
    ));
}

/// `mcp-server-weather.log` -> `weather`.
pub fn name_from_file(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix("mcp-server-")?
        .strip_suffix(".log")
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = concat!(
        "2025-06-11T10:00:00.000Z [weather] [info] Initializing server...\n",
        "2025-06-11T10:00:00.100Z [weather] [info] Message from client: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"a\":\"} {\"}} { metadata: undefined }\n",
        "weather MCP server running on stdio\n",
        "2025-06-11T10:00:00.200Z [weather] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}} { metadata: undefined }\r\n",
        "2025-06-11T10:00:00.300Z [weather] [info] Message from client: {\"jsonrpc\":\"2.0\",\"id\":1,\"meth\n",
        "\n",
        "2025-06-11T10:00:00.400Z [info] Shutting down\n",
    );

    #[test]
    fn messages_notes_and_stderr_in_order() {
        let got = parse(LOG, None);
        let kinds: Vec<_> = got
            .events
            .iter()
            .map(|e| {
                (
                    e.seq,
                    e.channel.as_str(),
                    e.from.to_string(),
                    e.to.to_string(),
                )
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (0, "note", "host".into(), "server:weather".into()),
                (1, "stdio", "host".into(), "server:weather".into()),
                (2, "stderr", "server:weather".into(), "host".into()),
                (3, "stdio", "server:weather".into(), "host".into()),
                (4, "note", "host".into(), "server:weather".into()),
            ]
        );
        assert_eq!(
            got.events[1].raw.as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"a":"} {"}}"#)
        );
        assert_eq!(got.events[0].raw.as_deref(), Some("Initializing server..."));
        assert_eq!(got.events[2].time, got.events[1].time);
        assert_eq!(got.warnings.len(), 1);
        assert_eq!(got.warnings[0].number, 5);
    }

    #[test]
    fn name_override_and_file_names() {
        let got = parse(LOG, Some("w"));
        assert_eq!(got.events[1].to, Lane::server("w"));
        assert_eq!(name_from_file("mcp-server-weather.log"), Some("weather"));
        assert_eq!(name_from_file("mcp.log"), None);
    }

    #[test]
    fn stderr_before_any_timestamp_is_reported() {
        let got = parse("hello\n", None);
        assert!(got.events.is_empty());
        assert_eq!(got.warnings[0].number, 1);
    }
}
