//! The tap: raw bytes in, events out.
//!
//! The tap sits on the pipes between an MCP client and a server process. It forwards every
//! chunk it reads the moment it reads it, unchanged, and only afterwards cuts a copy into lines
//! for the [`Recorder`]. It knows bytes, lines and processes; it does not know JSON-RPC (that is
//! [`crate::trace`]'s job, on load).
//!
//! - [`lines`]: cutting a byte stream into newline-delimited records without holding a line twice.
//! - [`recorder`]: one clock, one sequence, one writer thread appending to the trace.
//! - [`stdio`]: spawning a server and pumping its stdin, stdout and stderr.

pub mod lines;
pub mod recorder;
pub mod stdio;

pub use recorder::{EventSink, MemorySink, Recorder, RecorderReport};
pub use stdio::{ExitOutcome, ServerCommand, StdioTap, TapError};
