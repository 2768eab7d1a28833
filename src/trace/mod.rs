//! The trace: Sightline's one data model, shared by the recorder, the summary, and every later view.
//!
//! A trace is what crossed, in the order it crossed, on one clock: a header followed by
//! [`Event`]s, stored as JSON Lines (see `docs/trace-format.md`). Only facts that were observed
//! are stored. Everything that is interpretation (JSON-RPC kind, method, which response answers
//! which request, latency, protocol revision) is computed on load by [`analyze`], so a trace
//! recorded today gains tomorrow's analysis for free.
//!
//! This module depends on nothing else in the crate: the tap writes it, views read it.

mod analyze;
mod append_only;
mod derived;
pub mod encoding;
mod envelope;
mod escape;
mod event;
mod event_de;
mod file;
pub mod halves;
pub mod import;
mod jsonrpc;
mod lane;
mod seqs;
pub mod session;
mod shared;
mod stop_note;
mod warning;
mod writer;

pub use analyze::{
    Analysis, Analyzer, Derived, Kind, PENDING_AT_END, Pairing, analyze, latency_us,
};
pub use append_only::AppendOnly;
pub use event::{
    BODY_LIMIT, Channel, Event, Extra, FIRST_BYTE, Header, HttpInfo, Lane, ProcessInfo,
    TRACE_FORMAT_VERSION, format_time, now, signal_name,
};
pub use file::{
    LineProblem, LoadWarning, LoadedTrace, Loading, TraceError, load, load_from_reader, trace_bytes,
};
pub use jsonrpc::{Invalidity, Message, MessageKind, Problem, RpcId, classify, classify_text};
pub use seqs::Seqs;
pub use session::Follower;
pub use shared::Shared;
pub use stop_note::StopNote;
pub use writer::{TraceWriter, write_trace};

/// The events of a trace that grows while others read them (the app's store).
pub type Events = AppendOnly<Event>;
