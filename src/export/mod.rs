//! Renderings of a loaded trace for people and other tools.
//!
//! Each exporter reads a trace and its [`crate::trace::Analysis`] and writes text; none of them
//! changes the trace.

pub mod summary;
