//! Renderings of a loaded trace for people and other tools.
//!
//! Each exporter reads a trace and its [`crate::analysis::Report`] and writes text; none of them
//! changes the trace. `handout` is a printable page for a class (the diagram, then each step
//! narrated with its raw message). `mermaid` and `svg` draw the sequence diagram built by
//! [`crate::analysis::diagram`], the same model the app draws; `otlp` maps the trace to
//! OpenTelemetry spans and sends them to a tracing backend.

pub mod check;
pub mod context;
pub mod diff;
pub mod handout;
pub mod html;
pub mod mermaid;
pub mod otlp;
pub mod replay;
pub mod summary;
pub mod svg;

#[cfg(test)]
mod tests;
