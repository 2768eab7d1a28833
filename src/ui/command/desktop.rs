//! The requests only the desktop can carry out: files, processes, the window.
//!
//! They are the platform's, but panels (the File menu, the run window) ask for them through a
//! [`super::Command`], so they are defined here, beside the viewer's commands, where a panel
//! names them without reaching up to the platform that carries them out.

use std::path::PathBuf;

use super::ExportFormat;
use crate::host::agent::RunOptions;
use crate::trace::import::Format as ImportFormat;

/// A request only the desktop can carry out.
#[derive(Debug, Clone)]
pub enum PlatformCommand {
    /// Open a trace file.
    Open(PathBuf),
    /// Show a trace file or session folder live as other processes write it.
    Follow(PathBuf),
    /// Show the native file dialog to pick a trace.
    OpenDialog,
    /// Show the native file dialog to pick a file of another tool's to import.
    ImportDialog(ImportFormat),
    /// Import `file` (written as a trace to `trace`, by default a new file in the data dir's
    /// `traces/`) and open the result.
    Import {
        format: ImportFormat,
        file: PathBuf,
        trace: Option<PathBuf>,
    },
    /// Run a shipped scenario live.
    Run {
        scenario: String,
        options: Box<RunOptions>,
    },
    /// Run a shipped scenario under both revisions and show the two side by side.
    CompareScenario(String),
    /// Show the native file dialog to pick a trace to compare the current one with.
    CompareWithDialog,
    /// Compare the current trace with this one, side by side, with `diff`'s findings.
    CompareWith(PathBuf),
    /// Show the "Replay against..." window.
    ReplayAgainstWindow,
    /// Replay the current trace against a server command or a Streamable HTTP URL, then
    /// compare the recording with the replay.
    ReplayAgainst(String),
    /// Export the current trace (the diagram, or the whole viewer as HTML).
    Export(ExportFormat),
    /// Export the current trace as OpenTelemetry spans to an OTLP/JSON file (off the UI thread).
    ExportOtlpFile,
    /// Open the window that sends the current trace to an OTLP/HTTP endpoint.
    ExportOtlpEndpoint,
    /// Close the app window.
    Quit,
}
