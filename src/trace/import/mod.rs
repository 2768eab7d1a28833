//! Importing other tools' recordings as Sightline events.
//!
//! - [`claude_desktop`]: Claude Desktop's MCP logs (`mcp-server-NAME.log`, `mcp.log`).
//! - [`har`]: HAR files holding Streamable HTTP traffic.
//!
//! An importer never fails on a bad line or entry: it reports it as an [`ImportWarning`] (by
//! 1-based line or entry number) and goes on. Like the rest of [`crate::trace`], this module
//! depends on nothing else in the crate; what it needs from elsewhere (header redaction, the SSE
//! parser) the caller passes in as [`HttpHooks`].

pub mod claude_desktop;
pub mod har;

use std::fmt;

use super::event::Event;

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
}

/// The parts of HTTP handling that live outside the trace module.
#[derive(Clone, Copy)]
pub struct HttpHooks {
    /// Redacts credential values in `[name, value]` pairs, in place (headers and URL query
    /// parameters both go through it).
    pub redact: fn(&mut [(String, String)]),
    /// Splits an SSE body into the `data` of each event, in order.
    pub sse_data: fn(&[u8]) -> Vec<String>,
}
