//! Tool pinning and rug pulls: has a tool's definition changed since it was approved?
//!
//! A server sends its tools' definitions at run time, in every `tools/list` result, so a tool
//! approved on day one can ask for the user's API keys on day seven (the Rug Pull, named by
//! Invariant Labs in April 2025). The specification does not require a host to ask again when
//! a definition changes. Sightline checks two ways:
//!
//! - **Within one trace**: every `tools/list` result of a server is compared with the previous
//!   one (typically after `notifications/tools/list_changed`). The same name with a different
//!   definition is a [`Finding::RugPull`]; the same definition under a new name is
//!   [`Finding::Renamed`]; other tools that came or went are [`Finding::Added`] and
//!   [`Finding::Removed`].
//! - **Against the pin file** ([`PinStore`]): `sightline pins accept TRACE` records the SHA-256
//!   of each tool's definition (and the definition itself, for the diff); a later trace whose
//!   definition hashes differently is a [`Finding::PinChanged`], the same rug pull across
//!   sessions.
//!
//! # What is hashed
//!
//! The tool's whole definition as the server sent it (`name`, `title`, `description`,
//! `inputSchema`, `outputSchema`, `annotations`, `_meta`, and any field a later revision adds),
//! serialized as canonical JSON ([`canonical_json`]):
//!
//! - object keys sorted by code point (Rust `str` order), no whitespace;
//! - numbers by value, not spelling: a number with an integral value below 10^21 is written
//!   as an integer (`1`, `1.0` and `1e0` are all `1`), other numbers in the shortest form that
//!   reads back to the same `f64` (`0.1`, `1.5e-7`, `1e300`), and `-0` is `0`;
//! - strings with only `"`, `\` and the control characters below U+0020 escaped, everything
//!   else as it is. Strings are **not** Unicode-normalised (no NFC): Sightline has no
//!   normalisation tables, and two spellings that look alike but differ in code points are a
//!   real change for the model, which reads code points.
//!
//! The hex SHA-256 of that text is the pin. Key order and number spelling do not change it;
//! any change of content does.
//!
//! # Server identity
//!
//! Pins are kept per server: `serverInfo.name` from the `initialize` (or `server/discover`)
//! result, plus the command line from the `process` spawn event when the trace has one. A trace
//! whose server has no pins under its exact identity is checked against the pins of a server
//! with the same name, if any.
//!
//! Everything here is local: definitions are read from the trace and the pin file and never
//! sent anywhere.

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};
use sha2::{Digest as _, Sha256};

use crate::trace::{Analysis, Channel, Event, Kind, Lane, Pairing};

/// Environment variable naming the pin file (overridden by `--pins FILE`).
pub const PINS_ENV: &str = "SIGHTLINE_PINS";
/// The `version` written in the pin file.
pub const PIN_FILE_VERSION: u32 = 1;

// ---------------------------------------------------------------------------------------------
// Canonical JSON and hashing

/// `value` as canonical JSON on one line (see the module documentation for the rules).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, 0);
    out
}

/// `value` as canonical JSON, indented by two spaces, one member per line, ending with a
/// newline: the form rug-pull diffs are computed on.
pub fn canonical_json_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2), 0);
    out.push('\n');
    out
}

/// The canonical spelling of a JSON number.
pub fn canonical_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let x = n.as_f64().unwrap_or(0.0);
    if x == 0.0 {
        // Also -0.0.
        "0".to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e21 {
        format!("{x:.0}")
    } else if x.abs() >= 1e-6 && x.abs() < 1e21 {
        // Rust prints the shortest decimal that reads back to the same f64.
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn write_value(out: &mut String, value: &Value, indent: Option<usize>, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&canonical_number(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_string(out, key);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push('}');
        }
    }
}

fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(width) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lowercase hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The pin of a tool definition: hex SHA-256 of its canonical JSON.
pub fn tool_hash(definition: &Value) -> String {
    sha256_hex(&canonical_json(definition))
}

/// The hash of a definition without its `name`: equal for the same tool under a new name.
pub fn shape_hash(definition: &Value) -> String {
    let mut shape = definition.clone();
    if let Value::Object(map) = &mut shape {
        map.shift_remove("name");
    }
    tool_hash(&shape)
}

// ---------------------------------------------------------------------------------------------
// What the trace says

/// Who a server is, for pinning: its `serverInfo.name` and, for stdio, its command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ServerId {
    pub name: String,
    /// Program and arguments from the spawn event, when the trace has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(command) = &self.command {
            write!(f, " ({})", command.join(" "))?;
        }
        Ok(())
    }
}

/// One tool definition as a server listed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// `name`, or empty when the definition has none.
    pub name: String,
    /// The definition exactly as received (every field).
    pub definition: Value,
    /// [`canonical_json`] of `definition`.
    pub canonical: String,
    /// Hex SHA-256 of `canonical`: the pin.
    pub sha256: String,
    /// `seq` of the `tools/list` result event it came in.
    pub seq: u64,
}

impl ToolDef {
    pub fn new(definition: Value, seq: u64) -> Self {
        let name = definition
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let canonical = canonical_json(&definition);
        let sha256 = sha256_hex(&canonical);
        ToolDef {
            name,
            definition,
            canonical,
            sha256,
            seq,
        }
    }

    /// Hash of the definition without `name` (see [`shape_hash`]).
    pub fn shape_sha256(&self) -> String {
        shape_hash(&self.definition)
    }

    /// The definition as indented canonical JSON.
    pub fn pretty(&self) -> String {
        canonical_json_pretty(&self.definition)
    }
}

/// One complete listing of a server's tools: a `tools/list` result, with the pages that
/// followed it (requests carrying a `cursor`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolList {
    pub lane: Lane,
    pub server: ServerId,
    /// `seq` of the (first page's) result event.
    pub seq: u64,
    pub tools: Vec<ToolDef>,
    /// `false` when the last page received still had a `nextCursor`.
    pub complete: bool,
}

impl ToolList {
    /// The first tool of this name.
    pub fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// A server's `instructions`, from an `initialize` or `server/discover` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Instructions {
    pub lane: Lane,
    pub server: ServerId,
    pub text: String,
    /// `seq` of the result event.
    pub seq: u64,
}

/// Every tool listing and every `instructions` text of a trace, in trace order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Definitions {
    pub lists: Vec<ToolList>,
    pub instructions: Vec<Instructions>,
}

#[derive(Default)]
struct LaneState {
    name: Option<String>,
    command: Option<Vec<String>>,
    /// Index in `lists` of the listing a next page would continue.
    open: Option<usize>,
}

impl LaneState {
    fn id(&self, lane: &Lane) -> ServerId {
        ServerId {
            name: self
                .name
                .clone()
                .or_else(|| lane.server_name().map(str::to_string))
                .unwrap_or_else(|| lane.to_string()),
            command: self.command.clone(),
        }
    }
}

fn parse(event: &Event) -> Option<Value> {
    serde_json::from_slice(&event.bytes()?).ok()
}

/// Reads every tool listing and `instructions` out of a trace. `rpc` is the trace's
/// [`crate::trace::analyze`] result (`Report::rpc`).
pub fn definitions(events: &[Event], rpc: &Analysis) -> Definitions {
    let index_of: HashMap<u64, usize> =
        events.iter().enumerate().map(|(i, e)| (e.seq, i)).collect();
    let mut lanes: HashMap<Lane, LaneState> = HashMap::new();
    let mut out = Definitions::default();
    for (i, event) in events.iter().enumerate() {
        if event.channel == Channel::Process {
            let Some(info) = &event.process else { continue };
            let Some(lane) = [&event.from, &event.to].into_iter().find(|l| l.is_server()) else {
                continue;
            };
            if info.event == "spawn" {
                lanes.insert(
                    lane.clone(),
                    LaneState {
                        command: (!info.command.is_empty()).then(|| info.command.clone()),
                        ..LaneState::default()
                    },
                );
            }
            continue;
        }
        if !event.channel.carries_jsonrpc() || !event.from.is_server() {
            continue;
        }
        let Some(d) = rpc.derived.get(i) else {
            continue;
        };
        if d.kind != Kind::Response {
            continue;
        }
        let method = d.method.as_deref().unwrap_or_default();
        if !matches!(method, "initialize" | "server/discover" | "tools/list") {
            continue;
        }
        let Some(result) = parse(event).and_then(|v| v.get("result").cloned()) else {
            continue;
        };
        let lane = event.from.clone();
        let state = lanes.entry(lane.clone()).or_default();
        if method == "tools/list" {
            let cursor = match d.pairing {
                Pairing::Answers(seq) => index_of
                    .get(&seq)
                    .and_then(|&r| parse(&events[r]))
                    .and_then(|v| v.pointer("/params/cursor").cloned())
                    .filter(|c| !c.is_null()),
                _ => None,
            };
            let tools: Vec<ToolDef> = result
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter(|t| t.is_object())
                        .map(|t| ToolDef::new(t.clone(), event.seq))
                        .collect()
                })
                .unwrap_or_default();
            let more = result.get("nextCursor").is_some_and(|c| !c.is_null());
            match (cursor, state.open) {
                (Some(_), Some(open)) => {
                    let list = &mut out.lists[open];
                    list.tools.extend(tools);
                    list.complete = !more;
                }
                _ => {
                    out.lists.push(ToolList {
                        lane: lane.clone(),
                        server: state.id(&lane),
                        seq: event.seq,
                        tools,
                        complete: !more,
                    });
                    state.open = Some(out.lists.len() - 1);
                }
            }
            if !more {
                state.open = None;
            }
            continue;
        }
        let name = result
            .pointer("/serverInfo/name")
            .or_else(|| {
                result
                    .get("_meta")
                    .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
                    .and_then(|info| info.get("name"))
            })
            .and_then(Value::as_str);
        if let Some(name) = name {
            state.name = Some(name.to_string());
        }
        if let Some(text) = result.get("instructions").and_then(Value::as_str) {
            out.instructions.push(Instructions {
                lane: lane.clone(),
                server: state.id(&lane),
                text: text.to_string(),
                seq: event.seq,
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Findings

/// How one field differs between two definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

/// One field that differs, as a dotted path (`description`, `inputSchema.properties.notes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    pub path: String,
    pub change: Change,
}

impl fmt::Display for FieldChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.change {
            Change::Changed => f.write_str(&self.path),
            Change::Added => write!(f, "{} (added)", self.path),
            Change::Removed => write!(f, "{} (removed)", self.path),
        }
    }
}

/// The fields that differ between two definitions. Objects are compared member by member;
/// arrays and scalars as a whole (by canonical value, so `1` and `1.0` are equal).
pub fn changed_fields(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    compare_fields(&mut Vec::new(), before, after, &mut out);
    out
}

fn compare_fields(path: &mut Vec<String>, a: &Value, b: &Value, out: &mut Vec<FieldChange>) {
    let here = |path: &[String]| {
        if path.is_empty() {
            "(whole definition)".to_string()
        } else {
            path.join(".")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push(key.clone());
                match (x.get(key), y.get(key)) {
                    (Some(a), Some(b)) => compare_fields(path, a, b, out),
                    (Some(_), None) => out.push(FieldChange {
                        path: here(path),
                        change: Change::Removed,
                    }),
                    (None, Some(_)) => out.push(FieldChange {
                        path: here(path),
                        change: Change::Added,
                    }),
                    (None, None) => {}
                }
                path.pop();
            }
        }
        _ => {
            if canonical_json(a) != canonical_json(b) {
                out.push(FieldChange {
                    path: here(path),
                    change: Change::Changed,
                });
            }
        }
    }
}

/// A unified line diff of two pretty-printed canonical definitions.
pub fn definition_diff(before: &str, after: &str, before_label: &str, after_label: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(before_label, after_label)
        .to_string()
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// What pinning found. `server` is the server's `serverInfo.name` (its lane name when the
/// trace has no handshake).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// Within the trace: a tool kept its name but its definition changed between two
    /// `tools/list` results.
    RugPull {
        server: String,
        tool: String,
        /// `seq` of the earlier `tools/list` result.
        before_seq: u64,
        /// `seq` of the later `tools/list` result.
        after_seq: u64,
        before_sha256: String,
        after_sha256: String,
        changed: Vec<FieldChange>,
        /// Unified diff of the pretty-printed canonical definitions.
        diff: String,
    },
    /// Within the trace: the same definition (all but `name`) came back under another name.
    Renamed {
        server: String,
        from: String,
        to: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Within the trace: a tool that was not in the previous listing.
    Added {
        server: String,
        tool: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Within the trace: a tool of the previous listing that is gone.
    Removed {
        server: String,
        tool: String,
        before_seq: u64,
        after_seq: u64,
    },
    /// Against the pin file: the definition differs from the pinned one (a rug pull across
    /// sessions).
    PinChanged {
        server: String,
        tool: String,
        /// `seq` of the `tools/list` result with the new definition.
        seq: u64,
        pinned_at: String,
        pinned_sha256: String,
        sha256: String,
        changed: Vec<FieldChange>,
        diff: String,
    },
    /// Against the pin file: a pinned definition listed under a new name.
    PinRenamed {
        server: String,
        pinned: String,
        tool: String,
        seq: u64,
        pinned_at: String,
    },
    /// Against the pin file: the server has pins, but none for this tool.
    NotPinned {
        server: String,
        tool: String,
        seq: u64,
    },
    /// Against the pin file: the server has no pins at all.
    ServerNotPinned { server: String, seq: u64 },
}

impl Finding {
    /// A changed definition, within the trace or against the pin file.
    pub fn is_rug_pull(&self) -> bool {
        matches!(self, Finding::RugPull { .. } | Finding::PinChanged { .. })
    }

    /// `seq` of the `tools/list` result the finding is about (the later one for comparisons).
    pub fn seq(&self) -> u64 {
        match self {
            Finding::RugPull { after_seq, .. }
            | Finding::Renamed { after_seq, .. }
            | Finding::Added { after_seq, .. }
            | Finding::Removed { after_seq, .. } => *after_seq,
            Finding::PinChanged { seq, .. }
            | Finding::PinRenamed { seq, .. }
            | Finding::NotPinned { seq, .. }
            | Finding::ServerNotPinned { seq, .. } => *seq,
        }
    }

    /// The finding on one line (the diff, when there is one, is in [`Finding::diff`]).
    pub fn headline(&self) -> String {
        let fields = |changed: &[FieldChange]| {
            changed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Finding::RugPull {
                server,
                tool,
                before_seq,
                after_seq,
                changed,
                ..
            } => format!(
                "rug pull: {server}/{tool} changed between tools/list results #{before_seq} and \
                 #{after_seq}; changed: {}",
                fields(changed)
            ),
            Finding::Renamed {
                server,
                from,
                to,
                before_seq,
                after_seq,
            } => format!(
                "renamed: {server}/{from} is now {to}, same definition (tools/list results \
                 #{before_seq} -> #{after_seq})"
            ),
            Finding::Added {
                server,
                tool,
                before_seq,
                after_seq,
            } => format!(
                "added: {server}/{tool} in tools/list result #{after_seq} (not in #{before_seq})"
            ),
            Finding::Removed {
                server,
                tool,
                before_seq,
                after_seq,
            } => format!(
                "removed: {server}/{tool} is not in tools/list result #{after_seq} (was in \
                 #{before_seq})"
            ),
            Finding::PinChanged {
                server,
                tool,
                seq,
                pinned_at,
                pinned_sha256,
                sha256,
                changed,
                ..
            } => format!(
                "rug pull: {server}/{tool} differs from its pin (pinned {pinned_at}, sha256 {} \
                 -> {}) in tools/list result #{seq}; changed: {}",
                short(pinned_sha256),
                short(sha256),
                fields(changed)
            ),
            Finding::PinRenamed {
                server,
                pinned,
                tool,
                seq,
                pinned_at,
            } => format!(
                "renamed since pinned: {server}/{pinned} (pinned {pinned_at}) is listed as \
                 {tool}, same definition, in tools/list result #{seq}"
            ),
            Finding::NotPinned { server, tool, seq } => {
                format!("not pinned: {server}/{tool} (tools/list result #{seq})")
            }
            Finding::ServerNotPinned { server, seq } => format!(
                "not pinned: server {server} has no pins (tools/list result #{seq}); \
                 `sightline pins accept TRACE` pins its tools"
            ),
        }
    }

    /// The line diff of a changed definition.
    pub fn diff(&self) -> Option<&str> {
        match self {
            Finding::RugPull { diff, .. } | Finding::PinChanged { diff, .. } => Some(diff),
            _ => None,
        }
    }
}

/// Compares every listing of each server with the previous listing of the same server (same
/// lane), in trace order. A listing whose pagination did not finish only yields rug pulls
/// (a missing tool may be on a page that never came).
pub fn compare_lists(lists: &[ToolList]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut previous: HashMap<&Lane, &ToolList> = HashMap::new();
    for list in lists {
        if let Some(before) = previous.get(&list.lane) {
            compare_two(before, list, &mut out);
        }
        previous.insert(&list.lane, list);
    }
    out
}

fn compare_two(before: &ToolList, after: &ToolList, out: &mut Vec<Finding>) {
    let server = after.server.name.clone();
    for tool in &after.tools {
        let Some(old) = before.tool(&tool.name) else {
            continue;
        };
        if old.sha256 == tool.sha256 {
            continue;
        }
        let label = |t: &ToolDef| {
            format!(
                "{} in tools/list result #{} (sha256 {})",
                t.name,
                t.seq,
                short(&t.sha256)
            )
        };
        out.push(Finding::RugPull {
            server: server.clone(),
            tool: tool.name.clone(),
            before_seq: old.seq,
            after_seq: tool.seq,
            before_sha256: old.sha256.clone(),
            after_sha256: tool.sha256.clone(),
            changed: changed_fields(&old.definition, &tool.definition),
            diff: definition_diff(&old.pretty(), &tool.pretty(), &label(old), &label(tool)),
        });
    }
    if !(before.complete && after.complete) {
        return;
    }
    let mut removed: Vec<&ToolDef> = before
        .tools
        .iter()
        .filter(|t| after.tool(&t.name).is_none())
        .collect();
    let added: Vec<&ToolDef> = after
        .tools
        .iter()
        .filter(|t| before.tool(&t.name).is_none())
        .collect();
    for tool in added {
        let shape = tool.shape_sha256();
        if let Some(pos) = removed.iter().position(|r| r.shape_sha256() == shape) {
            let old = removed.remove(pos);
            out.push(Finding::Renamed {
                server: server.clone(),
                from: old.name.clone(),
                to: tool.name.clone(),
                before_seq: old.seq,
                after_seq: tool.seq,
            });
        } else {
            out.push(Finding::Added {
                server: server.clone(),
                tool: tool.name.clone(),
                before_seq: before.seq,
                after_seq: tool.seq,
            });
        }
    }
    for old in removed {
        out.push(Finding::Removed {
            server: server.clone(),
            tool: old.name.clone(),
            before_seq: old.seq,
            after_seq: after.seq,
        });
    }
}

// ---------------------------------------------------------------------------------------------
// The pin file

/// One pinned tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    pub tool: String,
    /// Hex SHA-256 of `definition`.
    pub sha256: String,
    /// When it was pinned (RFC 3339, UTC).
    pub pinned_at: String,
    /// The pinned definition as canonical JSON, kept for the diff when it changes.
    pub definition: String,
}

impl Pin {
    fn value(&self) -> Value {
        serde_json::from_str(&self.definition).unwrap_or(Value::Null)
    }
}

/// The pins of one server identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerPins {
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub tools: Vec<Pin>,
}

impl ServerPins {
    pub fn id(&self) -> ServerId {
        ServerId {
            name: self.server.clone(),
            command: self.command.clone(),
        }
    }
}

/// The pin file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinFile {
    pub version: u32,
    #[serde(default)]
    pub servers: Vec<ServerPins>,
}

impl Default for PinFile {
    fn default() -> Self {
        PinFile {
            version: PIN_FILE_VERSION,
            servers: Vec::new(),
        }
    }
}

/// [`PinStore::path_for`] with the environment variable's value given.
fn path_from(flag: Option<&Path>, env: Option<std::ffi::OsString>) -> anyhow::Result<PathBuf> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = env.filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    match directories::ProjectDirs::from("", "", "sightline") {
        Some(dirs) => Ok(dirs.data_dir().join("pins.json")),
        None => bail!(
            "cannot find the user's data directory (no home directory?); pass --pins FILE \
             or set {PINS_ENV}"
        ),
    }
}

/// A tool `accept` pinned.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub server: ServerId,
    pub tool: String,
    pub sha256: String,
    /// The hash it replaced; `None` for a new pin.
    pub previous: Option<String>,
}

/// The pin file, loaded. Nothing is written until [`PinStore::save`].
#[derive(Debug, Clone, PartialEq)]
pub struct PinStore {
    pub path: PathBuf,
    pub file: PinFile,
}

impl PinStore {
    /// Where the pins live: `flag` (`--pins FILE`), else `$SIGHTLINE_PINS`, else `pins.json`
    /// in the user's data directory (`~/.local/share/sightline` on Linux).
    pub fn path_for(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
        path_from(flag, std::env::var_os(PINS_ENV))
    }

    /// Loads the pin file at `path`; a missing file is an empty store.
    pub fn open(path: &Path) -> anyhow::Result<PinStore> {
        let file = match std::fs::read_to_string(path) {
            Ok(text) => {
                let file: PinFile = serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a Sightline pin file", path.display()))?;
                if file.version > PIN_FILE_VERSION {
                    bail!(
                        "{} has version {}; this Sightline reads version {PIN_FILE_VERSION}",
                        path.display(),
                        file.version
                    );
                }
                file
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => PinFile::default(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Ok(PinStore {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Writes the pin file (through a temporary file and a rename), creating its directory.
    pub fn save(&self) -> anyhow::Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&self.file).context("cannot encode pins")?;
        text.push('\n');
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("cannot replace {}", self.path.display()))
    }

    /// Every pin, with its server.
    pub fn pins(&self) -> impl Iterator<Item = (&ServerPins, &Pin)> {
        self.file
            .servers
            .iter()
            .flat_map(|s| s.tools.iter().map(move |p| (s, p)))
    }

    /// The pins of `id`: exact identity first, else a server of the same name.
    pub fn server(&self, id: &ServerId) -> Option<&ServerPins> {
        let servers = &self.file.servers;
        servers
            .iter()
            .find(|s| s.server == id.name && s.command == id.command)
            .or_else(|| servers.iter().find(|s| s.server == id.name))
    }

    /// Pins every tool of the last complete listing of each server in `lists` (other pins of
    /// the server are kept).
    pub fn accept(&mut self, lists: &[ToolList], now: DateTime<Utc>) -> Vec<Accepted> {
        let pinned_at = now.to_rfc3339_opts(SecondsFormat::Secs, true);
        let mut last: Vec<&ToolList> = Vec::new();
        for list in lists.iter().filter(|l| l.complete) {
            match last.iter_mut().find(|l| l.lane == list.lane) {
                Some(slot) => *slot = list,
                None => last.push(list),
            }
        }
        let mut out = Vec::new();
        for list in last {
            let id = &list.server;
            let index = match self
                .file
                .servers
                .iter()
                .position(|s| s.server == id.name && s.command == id.command)
            {
                Some(index) => index,
                None => {
                    self.file.servers.push(ServerPins {
                        server: id.name.clone(),
                        command: id.command.clone(),
                        tools: Vec::new(),
                    });
                    self.file.servers.len() - 1
                }
            };
            let entry = &mut self.file.servers[index];
            let mut seen = HashSet::new();
            for tool in list.tools.iter().filter(|t| seen.insert(t.name.clone())) {
                let pin = Pin {
                    tool: tool.name.clone(),
                    sha256: tool.sha256.clone(),
                    pinned_at: pinned_at.clone(),
                    definition: tool.canonical.clone(),
                };
                let previous = match entry.tools.iter_mut().find(|p| p.tool == tool.name) {
                    Some(existing) if existing.sha256 == tool.sha256 => {
                        Some(existing.sha256.clone())
                    }
                    Some(existing) => Some(std::mem::replace(existing, pin).sha256),
                    None => {
                        entry.tools.push(pin);
                        None
                    }
                };
                out.push(Accepted {
                    server: id.clone(),
                    tool: tool.name.clone(),
                    sha256: tool.sha256.clone(),
                    previous,
                });
            }
            entry.tools.sort_by(|a, b| a.tool.cmp(&b.tool));
        }
        out
    }

    /// Forgets `SERVER` (every identity with that name, or the one whose
    /// [`ServerId`] display is `target`) or `SERVER/TOOL`. Returns what was removed as
    /// (server, tool) pairs.
    pub fn forget(&mut self, target: &str) -> Vec<(String, String)> {
        let mut removed = Vec::new();
        let whole = |s: &ServerPins| s.server == target || s.id().to_string() == target;
        if self.file.servers.iter().any(whole) {
            self.file.servers.retain(|s| {
                if whole(s) {
                    removed.extend(s.tools.iter().map(|p| (s.server.clone(), p.tool.clone())));
                    false
                } else {
                    true
                }
            });
            return removed;
        }
        let Some((server, tool)) = target.rsplit_once('/') else {
            return removed;
        };
        for s in &mut self.file.servers {
            if s.server == server || s.id().to_string() == server {
                s.tools.retain(|p| {
                    let hit = p.tool == tool;
                    if hit {
                        removed.push((s.server.clone(), p.tool.clone()));
                    }
                    !hit
                });
            }
        }
        self.file.servers.retain(|s| !s.tools.is_empty());
        removed
    }

    /// Checks every definition in `lists` against the pins. Each distinct definition of a
    /// tool is reported once.
    pub fn check(&self, lists: &[ToolList]) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut seen: HashSet<(ServerId, String, String)> = HashSet::new();
        let mut unpinned_servers: HashSet<ServerId> = HashSet::new();
        for list in lists {
            let server = list.server.name.clone();
            let Some(pins) = self.server(&list.server) else {
                if unpinned_servers.insert(list.server.clone()) {
                    out.push(Finding::ServerNotPinned {
                        server,
                        seq: list.seq,
                    });
                }
                continue;
            };
            for tool in &list.tools {
                let key = (list.server.clone(), tool.name.clone(), tool.sha256.clone());
                if !seen.insert(key) {
                    continue;
                }
                if let Some(pin) = pins.tools.iter().find(|p| p.tool == tool.name) {
                    if pin.sha256 == tool.sha256 {
                        continue;
                    }
                    let pinned = pin.value();
                    let before = format!(
                        "{} as pinned {} (sha256 {})",
                        pin.tool,
                        pin.pinned_at,
                        short(&pin.sha256)
                    );
                    let after = format!(
                        "{} in tools/list result #{} (sha256 {})",
                        tool.name,
                        tool.seq,
                        short(&tool.sha256)
                    );
                    out.push(Finding::PinChanged {
                        server: server.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                        pinned_at: pin.pinned_at.clone(),
                        pinned_sha256: pin.sha256.clone(),
                        sha256: tool.sha256.clone(),
                        changed: changed_fields(&pinned, &tool.definition),
                        diff: definition_diff(
                            &canonical_json_pretty(&pinned),
                            &tool.pretty(),
                            &before,
                            &after,
                        ),
                    });
                    continue;
                }
                let shape = tool.shape_sha256();
                let renamed = pins
                    .tools
                    .iter()
                    .find(|p| list.tool(&p.tool).is_none() && shape_hash(&p.value()) == shape);
                out.push(match renamed {
                    Some(pin) => Finding::PinRenamed {
                        server: server.clone(),
                        pinned: pin.tool.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                        pinned_at: pin.pinned_at.clone(),
                    },
                    None => Finding::NotPinned {
                        server: server.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                    },
                });
            }
        }
        out
    }
}

/// Everything `sightline pins check` reports: changes within the trace, then against the
/// pins (when a store is given).
pub fn check_trace(lists: &[ToolList], store: Option<&PinStore>) -> Vec<Finding> {
    let mut out = compare_lists(lists);
    if let Some(store) = store {
        out.extend(store.check(lists));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::analyze;
    use chrono::TimeZone as _;
    use serde_json::json;

    fn hash_of(text: &str) -> String {
        tool_hash(&serde_json::from_str(text).expect("json"))
    }

    #[test]
    fn key_order_and_number_spelling_do_not_change_the_hash() {
        let a =
            r#"{"name":"add","inputSchema":{"type":"object","minimum":1,"maximum":2.5,"x":-0}}"#;
        let b = r#"{ "inputSchema": {"x": 0.0, "maximum": 25e-1, "type":"object", "minimum": 1.0},
                     "name": "add" }"#;
        let c = r#"{"inputSchema":{"maximum":2.5,"minimum":1E0,"type":"object","x":-0.0},"name":"add"}"#;
        assert_eq!(hash_of(a), hash_of(b));
        assert_eq!(hash_of(a), hash_of(c));
        assert_eq!(
            canonical_json(&serde_json::from_str(b).expect("json")),
            r#"{"inputSchema":{"maximum":2.5,"minimum":1,"type":"object","x":0},"name":"add"}"#
        );
        assert_eq!(hash_of(a).len(), 64);
    }

    #[test]
    fn a_description_change_changes_the_hash() {
        let a = json!({"name": "get_fact", "description": "A fact."});
        let b = json!({"name": "get_fact", "description": "A fact. "});
        assert_ne!(tool_hash(&a), tool_hash(&b));
        // Looks the same, is not the same: no Unicode normalisation.
        let nfc = json!({"name": "caf\u{e9}"});
        let nfd = json!({"name": "cafe\u{301}"});
        assert_ne!(tool_hash(&nfc), tool_hash(&nfd));
    }

    #[test]
    fn numbers_have_one_spelling() {
        let spell = |s: &str| canonical_json(&serde_json::from_str(s).expect("json"));
        assert_eq!(
            spell("[1.0, -0, -0.0, 1e2, 0.1, 1.5e-7, 1e300, 18446744073709551615]"),
            "[1,0,0,100,0.1,1.5e-7,1e300,18446744073709551615]"
        );
        assert_eq!(spell(r#""a\"\\\n\u0001é""#), r#""a\"\\\n\u0001é""#);
        assert_eq!(spell("1e21"), "1e21");
        assert_eq!(spell("123456789012345678901234"), "1.2345678901234569e23");
    }

    #[test]
    fn pretty_form_and_changed_fields() {
        let v1 = json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
            "properties": {"topic": {"type": "string"}}}});
        let v2 = json!({"name": "t", "description": "d2", "inputSchema": {"type": "object",
            "properties": {"topic": {"type": "string"}, "notes": {"type": "string"}}},
            "annotations": {"readOnlyHint": true}});
        assert_eq!(
            canonical_json_pretty(&json!({"b": [1, {}], "a": {}})),
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {}\n  ]\n}\n"
        );
        let changed: Vec<String> = changed_fields(&v1, &v2)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            changed,
            [
                "annotations (added)",
                "description",
                "inputSchema.properties.notes (added)"
            ]
        );
        let diff = definition_diff(
            &canonical_json_pretty(&v1),
            &canonical_json_pretty(&v2),
            "before",
            "after",
        );
        assert!(diff.contains("-  \"description\": \"d\","), "{diff}");
        assert!(diff.contains("+  \"description\": \"d2\","), "{diff}");
        assert!(diff.contains("+      \"notes\": {"), "{diff}");
    }

    /// A trace with one server whose listings are given as `tools` arrays.
    fn trace(listings: &[Value]) -> Vec<Event> {
        let t0 = Utc
            .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
            .single()
            .expect("time");
        let mut events = Vec::new();
        let mut push = |from: &str, to: &str, channel: Channel, raw: String| {
            let seq = events.len() as u64;
            let time = t0 + chrono::Duration::milliseconds(seq as i64);
            let mut e =
                Event::with_bytes(seq, time, from.into(), to.into(), channel, raw.into_bytes());
            if e.channel == Channel::Process {
                e.raw = None;
                e.process = Some(Box::new(crate::trace::ProcessInfo {
                    event: "spawn".into(),
                    command: vec!["demo".into(), "s".into()],
                    ..Default::default()
                }));
            }
            events.push(e);
        };
        push("host", "server:s", Channel::Process, String::new());
        push(
            "host",
            "server:s",
            Channel::Stdio,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.into(),
        );
        push(
            "server:s",
            "host",
            Channel::Stdio,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"srv"},"instructions":"hi"}}"#.into(),
        );
        for (i, tools) in listings.iter().enumerate() {
            let id = i + 1;
            push(
                "host",
                "server:s",
                Channel::Stdio,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
            );
            push(
                "server:s",
                "host",
                Channel::Stdio,
                json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}).to_string(),
            );
        }
        events
    }

    fn lists(events: &[Event]) -> Vec<ToolList> {
        definitions(events, &analyze(events)).lists
    }

    #[test]
    fn listings_and_instructions_come_out_of_the_trace() {
        let events = trace(&[
            json!([{"name": "a"}]),
            json!([{"name": "a"}, {"name": "b"}]),
        ]);
        let defs = definitions(&events, &analyze(&events));
        assert_eq!(defs.lists.len(), 2);
        assert_eq!(defs.lists[0].seq, 4);
        assert_eq!(defs.lists[1].seq, 6);
        assert_eq!(
            defs.lists[1].server,
            ServerId {
                name: "srv".into(),
                command: Some(vec!["demo".into(), "s".into()])
            }
        );
        assert_eq!(defs.lists[1].server.to_string(), "srv (demo s)");
        assert_eq!(defs.instructions[0].text, "hi");
        assert_eq!(defs.instructions[0].seq, 2);
    }

    #[test]
    fn within_a_trace_changes_renames_additions_and_removals() {
        let events = trace(&[
            json!([{"name": "fact", "description": "v1"}, {"name": "old", "description": "x"},
                   {"name": "gone", "description": "g"}]),
            json!([{"description": "v2", "name": "fact"}, {"name": "new", "description": "x"},
                   {"name": "extra"}]),
        ]);
        let findings = compare_lists(&lists(&events));
        assert_eq!(findings.len(), 4, "{findings:#?}");
        match &findings[0] {
            Finding::RugPull {
                server,
                tool,
                before_seq,
                after_seq,
                changed,
                diff,
                ..
            } => {
                assert_eq!((server.as_str(), tool.as_str()), ("srv", "fact"));
                assert_eq!((*before_seq, *after_seq), (4, 6));
                assert_eq!(changed[0].path, "description");
                assert!(diff.contains("+  \"description\": \"v2\","), "{diff}");
            }
            other => panic!("not a rug pull: {other:?}"),
        }
        assert!(findings[0].is_rug_pull());
        assert_eq!(
            findings[1],
            Finding::Renamed {
                server: "srv".into(),
                from: "old".into(),
                to: "new".into(),
                before_seq: 4,
                after_seq: 6
            }
        );
        assert!(matches!(&findings[2], Finding::Added { tool, .. } if tool == "extra"));
        assert!(matches!(&findings[3], Finding::Removed { tool, .. } if tool == "gone"));
    }

    #[test]
    fn unchanged_listings_find_nothing() {
        let events = trace(&[
            json!([{"name": "a", "inputSchema": {"type": "object", "maximum": 1}}]),
            json!([{"inputSchema": {"maximum": 1.0, "type": "object"}, "name": "a"}]),
        ]);
        assert_eq!(compare_lists(&lists(&events)), []);
    }

    #[test]
    fn pin_store_accept_list_check_forget() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("nested/pins.json");
        // SIGHTLINE_PINS names the file when there is no flag; the flag wins; the default is
        // pins.json in the data directory.
        let env = Some(path.clone().into_os_string());
        let resolved = path_from(None, env.clone()).expect("path");
        assert_eq!(resolved, path);
        assert_eq!(
            path_from(Some(Path::new("x.json")), env).expect("path"),
            Path::new("x.json")
        );
        if let Ok(default) = path_from(None, Some("".into())) {
            assert!(
                default.ends_with("sightline/pins.json"),
                "{}",
                default.display()
            );
        }

        let day1 = trace(&[json!([{"name": "fact", "description": "v1"},
                                  {"name": "other", "description": "o"}])]);
        let day7 = trace(&[json!([{"name": "fact", "description": "v2"},
                                  {"name": "renamed", "description": "o"},
                                  {"name": "brand_new"}])]);
        let mut store = PinStore::open(&resolved).expect("open missing file");
        assert!(
            store
                .check(&lists(&day1))
                .iter()
                .any(|f| matches!(f, Finding::ServerNotPinned { server, .. } if server == "srv"))
        );
        let now = Utc
            .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
            .single()
            .expect("t");
        let accepted = store.accept(&lists(&day1), now);
        assert_eq!(accepted.len(), 2);
        assert!(accepted.iter().all(|a| a.previous.is_none()));
        store.save().expect("save");

        let store = PinStore::open(&resolved).expect("reopen");
        let pins: Vec<(String, String)> = store
            .pins()
            .map(|(s, p)| (s.server.clone(), p.tool.clone()))
            .collect();
        assert_eq!(
            pins,
            [
                ("srv".into(), "fact".into()),
                ("srv".into(), "other".into())
            ]
        );
        let (_, pin) = store.pins().next().expect("pin");
        assert_eq!(pin.pinned_at, "2026-11-29T12:00:00Z");
        assert_eq!(pin.definition, r#"{"description":"v1","name":"fact"}"#);

        assert_eq!(store.check(&lists(&day1)), []);
        let findings = check_trace(&lists(&day7), Some(&store));
        assert_eq!(findings.len(), 3, "{findings:#?}");
        match &findings[0] {
            Finding::PinChanged {
                tool, seq, diff, ..
            } => {
                assert_eq!((tool.as_str(), *seq), ("fact", 4));
                assert!(diff.contains("-  \"description\": \"v1\","), "{diff}");
                assert!(diff.contains("+  \"description\": \"v2\","), "{diff}");
                assert!(diff.contains("as pinned 2026-11-29T12:00:00Z"), "{diff}");
            }
            other => panic!("not a pin change: {other:?}"),
        }
        assert!(findings[0].is_rug_pull());
        assert!(matches!(&findings[1],
            Finding::PinRenamed { pinned, tool, .. } if pinned == "other" && tool == "renamed"));
        assert!(matches!(&findings[2], Finding::NotPinned { tool, .. } if tool == "brand_new"));

        // Accepting the new definitions replaces the old pin of `fact`.
        let mut store = store;
        let accepted = store.accept(&lists(&day7), now);
        let fact = accepted.iter().find(|a| a.tool == "fact").expect("fact");
        assert!(fact.previous.as_deref().is_some_and(|p| p != fact.sha256));
        assert!(!store.check(&lists(&day7)).iter().any(Finding::is_rug_pull));

        assert_eq!(store.forget("srv/other"), [("srv".into(), "other".into())]);
        assert_eq!(store.forget("nobody"), []);
        assert_eq!(store.forget("srv (demo s)").len(), 3);
        assert!(store.file.servers.is_empty());
        store.save().expect("save");
        assert_eq!(PinStore::open(&resolved).expect("reopen").pins().count(), 0);
    }

    #[test]
    fn a_newer_pin_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("pins.json");
        std::fs::write(&path, r#"{"version": 99, "servers": []}"#).expect("write");
        let err = PinStore::open(&path).expect_err("newer version");
        assert!(err.to_string().contains("version 99"), "{err}");
    }
}
