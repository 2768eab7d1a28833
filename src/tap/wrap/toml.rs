//! Codex's `~/.codex/config.toml`, read so that `wrap` edits it in place like the JSON configs.
//!
//! Codex keeps its servers in `[mcp_servers.NAME]` tables (`command`, `args`, `env`, `url`,
//! `startup_timeout_sec`...), inline tables (`weather = { command = "node" }`) or dotted keys
//! (`weather.command = "node"`) in a file that also holds the user's model, providers and
//! comments. `toml_edit` parses it and says where every key and value sits; this module turns
//! that into the same tree of byte spans the JSONC reader gives ([`super::jsonc::Node`]), so
//! the one rewriting logic of `wrap` works on both, and everything it does not touch stays
//! byte for byte. What differs is only how a member is written and removed: a new `args` goes
//! on its own line after `command` (in the file's line ending, with the key's indentation and
//! dotted prefix), or after `, ` inside an inline table; unwrapping takes that line away again.
//!
//! A JSON string literal is a TOML basic string except for U+007F, which TOML wants escaped
//! ([`quote`]); the original command is copied back as written, literal `'...'` strings too.

use serde_json::{Map, Value};
use toml_edit::{Document, Item, Key, Table};

use super::jsonc::{Edits, Kind, Member, Node};

/// A TOML syntax error, with where it is (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses `text` into a tree of spans (tables and inline tables are objects).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let doc = document(text)?;
    Ok(table_node(doc.as_table(), 0, text.len()))
}

/// The whole document as plain JSON (dates and times as their text, non-finite floats as
/// `"inf"`, `"-inf"`, `"nan"`).
pub fn to_json(text: &str) -> Result<Value, SyntaxError> {
    let doc = document(text)?;
    Ok(item_json(doc.as_item()))
}

/// A TOML basic string holding `s`.
pub fn quote(s: &str) -> String {
    Value::from(s).to_string().replace('\u{7f}', "\\u007F")
}

/// Where and what to insert so that `server` gets `key = value` right after its member
/// `after`.
pub fn add_member(text: &str, server: &Node, after: &Member, key: &str, value: &str) -> Edit {
    if is_inline(text, server) {
        return (after.value.end, format!(", {key} = {value}"));
    }
    let line_start = text[..after.key_start].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..after.key_start];
    let (content_end, newline) = line_end(text, after.value.end);
    (content_end, format!("{newline}{prefix}{key} = {value}"))
}

/// Removes the `index`th member of `server`: from an inline table with its separator, from a
/// table with its line (the line break before it, so the line before is left as it was).
pub fn remove_member(
    text: &str,
    edits: &mut Edits,
    server: &Node,
    members: &[Member],
    index: usize,
) {
    if is_inline(text, server) {
        return edits.remove_member(members, index);
    }
    let member = &members[index];
    let line_start = text[..member.key_start].rfind('\n').map_or(0, |i| i + 1);
    let (content_end, _) = line_end(text, member.value.end);
    let before = text[..line_start]
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t).len());
    match before {
        Some(start) => edits.replace(start, content_end, ""),
        None => {
            let next = text[content_end..]
                .find('\n')
                .map_or(text.len(), |i| content_end + i + 1);
            edits.replace(line_start, next, "");
        }
    }
}

/// A text edit: at this byte, insert this.
pub type Edit = (usize, String);

fn document(text: &str) -> Result<Document<&str>, SyntaxError> {
    Document::parse(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let at = (0..=at)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        let before = &text[..at];
        SyntaxError {
            line: before.matches('\n').count() + 1,
            column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
            message: e.message().trim().to_string(),
        }
    })
}

/// Whether a server is written as an inline table (`{ ... }`).
fn is_inline(text: &str, server: &Node) -> bool {
    text.get(server.start..).is_some_and(|t| t.starts_with('{'))
}

/// The end of the line `at` is on, before its line break, and that line break (`\r\n`, or
/// `\n`, also at the end of the file).
fn line_end(text: &str, at: usize) -> (usize, &'static str) {
    match text[at..].find('\n') {
        Some(i) if text[..at + i].ends_with('\r') => (at + i - 1, "\r\n"),
        Some(i) => (at + i, "\n"),
        None => (text.len(), "\n"),
    }
}

fn key_start(key: &Key) -> usize {
    key.span().map_or(0, |s| s.start)
}

fn table_node(table: &Table, start: usize, end: usize) -> Node {
    let members = table
        .iter()
        .filter_map(|(name, _)| {
            let (key, item) = table.get_key_value(name)?;
            Some(Member {
                key: name.to_string(),
                key_start: key_start(key),
                value: item_node(item, key_start(key))?,
            })
        })
        .collect();
    Node {
        start,
        end,
        kind: Kind::Object(members),
    }
}

/// A key's item as a node; `key_at` places tables without a header of their own (dotted keys,
/// tables only implied by a deeper header).
fn item_node(item: &Item, key_at: usize) -> Option<Node> {
    match item {
        Item::None => None,
        Item::Table(t) => {
            let span = t.span().unwrap_or(key_at..key_at);
            Some(table_node(t, span.start, span.end))
        }
        Item::ArrayOfTables(tables) => Some(Node {
            start: key_at,
            end: key_at,
            kind: Kind::Array(
                tables
                    .iter()
                    .map(|t| {
                        let span = t.span().unwrap_or(key_at..key_at);
                        table_node(t, span.start, span.end)
                    })
                    .collect(),
            ),
        }),
        Item::Value(v) => Some(value_node(v)),
    }
}

fn value_node(value: &toml_edit::Value) -> Node {
    let span = value.span().unwrap_or(0..0);
    let kind = match value {
        toml_edit::Value::String(s) => Kind::String(s.value().clone()),
        toml_edit::Value::Array(a) => Kind::Array(a.iter().map(value_node).collect()),
        toml_edit::Value::InlineTable(t) => Kind::Object(
            t.iter()
                .filter_map(|(name, _)| {
                    let (key, item) = t.get_key_value(name)?;
                    Some(Member {
                        key: name.to_string(),
                        key_start: key_start(key),
                        value: item_node(item, key_start(key))?,
                    })
                })
                .collect(),
        ),
        _ => Kind::Scalar,
    };
    Node {
        start: span.start,
        end: span.end,
        kind,
    }
}

fn item_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), item_json(v)))
                .collect::<Map<_, _>>(),
        ),
        Item::ArrayOfTables(tables) => Value::Array(
            tables
                .iter()
                .map(|t| item_json(&Item::Table(t.clone())))
                .collect(),
        ),
        Item::Value(v) => value_json(v),
    }
}

fn value_json(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => serde_json::Number::from_f64(*f.value())
            .map_or_else(|| Value::String(f.value().to_string()), Value::Number),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(value_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), value_json(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}
