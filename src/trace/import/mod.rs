//! Importing other tools' recordings as Sightline events.
//!
//! - [`claude_desktop`]: Claude Desktop's MCP logs (`mcp-server-NAME.log`, `mcp.log`).
//! - [`har`]: HAR files holding Streamable HTTP traffic.
//! - [`inspector`]: the MCP Inspector's Protocol (history) exports.
//!
//! An importer never fails on a bad line or entry: it reports it as an [`ImportWarning`] (by
//! 1-based line or entry number) and goes on; a file in which nothing at all could be read is
//! not the named format, and [`import_file`] refuses it ([`ImportError::NothingMatched`]). Like the rest of [`crate::trace`], this module
//! depends on nothing else in the crate; what it needs from elsewhere (header redaction, the SSE
//! parser) the caller passes in as [`HttpHooks`]. [`import_file`] is the one way from a file to
//! a header and events, for `sightline import` and the app's File > Import alike.

pub mod claude_desktop;
pub mod har;
pub mod inspector;

use std::fmt;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::event::{Event, Header};

/// What an importer could not use. Importing goes on without it.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportWarning {
    /// `"line"` for line-based logs, `"entry"` for HAR entries.
    pub unit: &'static str,
    /// 1-based number of the line or entry.
    pub number: usize,
    pub message: String,
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.unit, self.number, self.message)
    }
}

/// The events an importer produced (seq 0, 1, 2, ... in source order) and what it skipped.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    pub events: Vec<Event>,
    pub warnings: Vec<ImportWarning>,
    /// The file had no times: the events' times are made up (see [`inspector`]).
    pub synthetic_times: bool,
}

/// The parts of HTTP handling that live outside the trace module.
#[derive(Clone, Copy)]
pub struct HttpHooks {
    /// Redacts credential values in `[name, value]` pairs, in place (headers and URL query
    /// parameters both go through it).
    pub redact: fn(&mut [(String, String)]),
    /// Splits an SSE body into the `data` of each event, in order.
    pub sse_data: fn(&[u8]) -> Vec<String>,
    /// Whether a URL is an LLM API's (its exchange goes on the `llm-http` channel, between
    /// `host` and `llm`, its body whole).
    pub is_llm: fn(&str) -> bool,
}

/// `time` plus a duration in milliseconds as another tool recorded it (a negative one counts
/// as 0), or why not: a duration that would end past any date (`"time": 1e300`) is the entry's
/// problem, reported as its warning, never an overflow.
fn after_ms(time: DateTime<Utc>, ms: f64, field: &str) -> Result<DateTime<Utc>, String> {
    // `as` saturates: a huge duration becomes i64::MAX microseconds, which checked_add refuses.
    let us = (ms.max(0.0) * 1000.0) as i64;
    time.checked_add_signed(chrono::TimeDelta::microseconds(us))
        .ok_or_else(|| format!("`{field}` is {ms} ms: it would end after any date"))
}

/// The formats Sightline imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Desktop's MCP logs: `mcp-server-NAME.log` or `mcp.log`.
    ClaudeDesktop,
    /// An MCP Inspector Protocol export (or a v1 History copy).
    Inspector,
    /// A HAR file holding MCP Streamable HTTP traffic.
    Har,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::ClaudeDesktop, Format::Inspector, Format::Har];

    /// What a file of this format is, for "not ..." messages.
    pub fn what(self) -> &'static str {
        match self {
            Format::ClaudeDesktop => "a Claude Desktop log",
            Format::Inspector => "an MCP Inspector export",
            Format::Har => "a HAR of MCP traffic",
        }
    }

    /// The name on the command line: `claude-desktop`, `inspector`, `har`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeDesktop => "claude-desktop",
            Format::Inspector => "inspector",
            Format::Har => "har",
        }
    }
}

/// Why a file could not be imported at all. The message is whole (path and cause), for a
/// status line as much as for the command line.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    /// Nothing in the file could be read as the format: a file of another kind (a README given
    /// as a Claude Desktop log), not an empty import to write.
    #[error("{path}: not {what} (no {unit} matched{first})")]
    NothingMatched {
        path: String,
        what: &'static str,
        unit: &'static str,
        /// `; the first: ...` when the importer said why it skipped something other than the
        /// format's shape (empty for Claude Desktop logs, where it is always "no timestamp").
        first: String,
    },
    #[error("{path}: {error}")]
    Har { path: String, error: har::HarError },
    #[error("{path}: {error}")]
    Inspector {
        path: String,
        error: inspector::InspectorError,
    },
}

/// A file imported: the header to write before the events, and what was skipped.
#[derive(Debug, Clone)]
pub struct ImportedFile {
    pub header: Header,
    pub imported: Imported,
}

/// Reads and imports `path`. `name` overrides the server name; the default comes from the file
/// name (`mcp-server-NAME.log`, `inspector-protocol-NAME-TIME.json`), else from the file's
/// contents. The header's title is the command line that would do the same; synthetic times
/// are marked in the header as `"synthetic_times": true`.
pub fn import_file(
    format: Format,
    path: &Path,
    name: Option<&str>,
    hooks: HttpHooks,
) -> Result<ImportedFile, ImportError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| ImportError::Read {
        path: shown.clone(),
        error,
    })?;
    // A byte-order mark (Windows tools write one) is not part of the text; UTF-16 is decoded.
    let text = super::encoding::decode_lossy(&bytes);
    let file_name = path.file_name().map(|n| n.to_string_lossy());
    let file_name = file_name.as_deref().unwrap_or_default();
    let imported = match format {
        Format::ClaudeDesktop => {
            let name = name.or_else(|| claude_desktop::name_from_file(file_name));
            claude_desktop::parse(&text, name)
        }
        Format::Har => har::parse(&text, name, hooks).map_err(|error| ImportError::Har {
            path: shown.clone(),
            error,
        })?,
        Format::Inspector => {
            let name = name.or_else(|| inspector::name_from_file(file_name));
            let mtime: DateTime<Utc> = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .map_or_else(|_| super::event::now(), DateTime::from);
            inspector::parse(&text, name, mtime).map_err(|error| ImportError::Inspector {
                path: shown.clone(),
                error,
            })?
        }
    };
    if imported.events.is_empty() && (!imported.warnings.is_empty() || text.trim().is_empty()) {
        let (unit, first) = match (format, imported.warnings.first()) {
            (Format::ClaudeDesktop, _) => ("line", String::new()),
            (_, Some(w)) => (w.unit, format!("; {w}")),
            (_, None) => ("entry", String::new()),
        };
        return Err(ImportError::NothingMatched {
            path: shown,
            what: format.what(),
            unit,
            first,
        });
    }
    let mut header = Header::new(format!("sightline import {} {shown}", format.as_str()));
    if imported.synthetic_times {
        header
            .extra
            .insert("synthetic_times".into(), Value::Bool(true));
    }
    Ok(ImportedFile { header, imported })
}
