//! The tap: raw bytes in, events out.
//!
//! The tap sits on the pipes between an MCP client and a server process. It forwards every
//! chunk it reads the moment it reads it, unchanged; a copy of each completed line goes to the
//! [`Recorder`], which stamps it before the chunk is passed on (so an answer never gets an
//! earlier `seq` than the line it answers). It knows bytes, lines and processes; it does not know JSON-RPC (that is
//! [`crate::trace`]'s job, on load).
//!
//! - [`lines`]: cutting a byte stream into newline-delimited records without holding a line twice.
//! - [`long_line`]: where a line too long to hold waits (a temporary file) until it is recorded.
//! - [`recorder`]: one clock, one sequence, each event written to the trace before it is forwarded.
//! - [`stdio`]: spawning a server and pumping its stdin, stdout and stderr.
//! - [`wrap`]: rewriting a host's MCP server config so its stdio servers run behind the tap and
//!   its HTTP servers behind the HTTP proxy.
//! - [`llm_proxy`]: a reverse proxy in front of an LLM API, recording each HTTP exchange.
//! - [`http_proxy`]: a reverse proxy for MCP over Streamable HTTP, recording each message.
//! - [`paths`]: where traces and sessions go by default (the data directory).
//! - [`runtime`]: the async runtimes the crate starts, on one thread or a pool.
//! - [`client`]: the HTTP client every outgoing request starts from, and its TLS back end.

pub mod client;
mod http_common;
mod http_exchange;
pub mod http_proxy;
pub mod lines;
pub mod llm_proxy;
pub mod long_line;
pub mod paths;
pub mod recorder;
pub mod runtime;
pub mod stdio;
pub mod wrap;

/// For `sightline mock`'s listener: the same request checks and shutdown as the proxies'.
pub(crate) use http_common::{refuse_foreign, serve_with_grace};
pub use lines::Lines;
pub use recorder::{
    Batch, EventSink, HttpRecord, LineBatch, LongBatch, MemorySink, Recorder, RecorderReport,
};
pub use stdio::{ExitOutcome, ServerCommand, StdioTap, TapError};
