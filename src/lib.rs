//! # Sightline
//!
//! Sightline makes the Model Context Protocol visible. It sits between a host and its MCP
//! servers (and, later, between the host and its LLM API), records every message that crosses
//! byte for byte, and turns the recording into something a person can read.
//!
//! # Layout
//!
//! Data flows one way, from bytes to pictures:
//!
//! - [`tap`]: raw bytes in, events out. Spawns a server, pumps its pipes unchanged, and hands
//!   every line that crossed to the recorder, which appends it to a trace file.
//! - [`trace`]: the event model, the trace file format (reader and writer), JSON-RPC
//!   classification and correlation (pairing, latency, protocol revision). Depends on nothing
//!   else in this crate.
//! - [`host`]: Sightline as the host: the agent loop, LLM API providers, the scripted model.
//! - [`analysis`]: the host's half of the analysis: LLM exchanges, tool-call chains
//!   (`tool_use` -> `tools/call` -> result -> `tool_result`), what each request showed the model.
//! - [`export`]: renderings of a loaded trace (the one-line-per-event summary).
//! - [`i18n`]: every text a participant reads, in English, Portuguese and Spanish (keys in
//!   `assets/i18n/`), and the language a process starts in (`--lang`, `LC_ALL`, `LANG`). Uses
//!   nothing else in the crate, so `analysis`, `export`, `cli` and `ui` all share it.
//! - [`servers`]: the built-in demo MCP servers (rmcp), runnable with no network and no npm.
//! - [`ui`]: the desktop app (eframe/egui): the live or saved trace as a sequence diagram, the
//!   inspector, what the model sees, replay and teaching mode. Nothing else depends on it.
//! - [`cli`]: the command line, parsed into settings and dispatched; `main` only calls it.
//!
//! # Features
//!
//! `native` (on by default) is everything that needs an operating system: [`tap`], [`host`],
//! [`servers`], [`cli`] and the desktop half of [`ui`] (live runs, followed files, file
//! dialogs). Without it the library is the viewer alone, `trace`, `i18n`, `analysis`, `export` and the
//! panels of `ui`, and builds for `wasm32-unknown-unknown`; `web` adds the browser's entry point
//! (`tools/build-web.sh`).

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
