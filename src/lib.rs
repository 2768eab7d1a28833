//! # Sightline
//!
//! Sightline makes the Model Context Protocol visible. It sits between a host and its MCP
//! servers, and between the host and its LLM API, records every message that crosses byte for
//! byte, and turns the recording into something a person can read.
//!
//! # Layout
//!
//! Data flows one way, from bytes to pictures:
//!
//! - [`tap`]: raw bytes in, events out. Spawns a server, pumps its pipes unchanged, and hands
//!   every line that crossed to the recorder, which appends it to a trace file; the Streamable
//!   HTTP and LLM API recording proxies; rewriting host configs (`wrap`).
//! - [`trace`]: the event model, the trace file format (reader and writer), JSON-RPC
//!   classification and correlation (pairing, latency, protocol revision), sessions of several
//!   files, importers of foreign logs. Depends on nothing else in this crate.
//! - [`wire`]: the LLM wire formats as pure code (no I/O): the API shapes, conversions between
//!   MCP and each shape, what the model sees, SSE, reassembly of streamed answers, redaction of
//!   headers, bodies, URLs and command lines, W3C `traceparent`. Depends on nothing else.
//! - [`host`]: Sightline as the host: scenarios, the agent loop, LLM API providers, the
//!   scripted model, sampling through the model, replay against a live server.
//! - [`servers`]: the built-in demo MCP servers (rmcp), runnable with no network and no npm.
//! - [`analysis`]: what a loaded trace means: LLM exchanges, tool-call chains
//!   (`tool_use` -> `tools/call` -> result -> `tool_result`), the diagram model, narration,
//!   the doctor, conformance, pins, poisoning, diff and check, revision comparison.
//! - [`export`]: renderings of a loaded trace: summary, Mermaid, SVG, HTML, OTLP, and the
//!   reports of diff, check and replay (text, JUnit, SARIF).
//! - [`i18n`]: every text a participant reads, in English, Portuguese and Spanish (keys in
//!   `assets/i18n/`), and the language a process starts in (`--lang`, `LC_ALL`, `LANG`). Uses
//!   nothing else in the crate, so `analysis`, `export`, `cli` and `ui` all share it.
//! - [`ui`]: the desktop app (eframe/egui), also built for the browser: the live or saved trace
//!   as a sequence diagram, the inspector, what the model sees, replay, teaching and
//!   presentation modes, the compare view. Nothing but `cli` depends on it.
//! - [`cli`]: the command line, parsed into settings and dispatched; `main` only calls it.
//!
//! The rules: `trace`, `wire`, `servers` and `i18n` use no other module; no two top-level
//! modules use each other; only `cli` uses `ui`.
//!
//! # Features
//!
//! `native` (on by default) is everything that needs an operating system: [`tap`], [`host`],
//! [`servers`], [`cli`] and the desktop half of [`ui`] (live runs, followed files, file
//! dialogs). Without it the library is the viewer alone, `trace`, `wire`, `i18n`, `analysis`,
//! `export` and the panels of `ui`, and builds for `wasm32-unknown-unknown`; `web` adds the
//! browser's entry point (`tools/build-web.sh`).

pub mod analysis;
#[cfg(feature = "native")]
pub mod cli;
pub mod export;
#[cfg(feature = "native")]
pub mod host;
pub mod i18n;
#[cfg(feature = "native")]
pub mod servers;
#[cfg(feature = "native")]
pub mod tap;
pub mod trace;
pub mod ui;
pub mod wire;
