//! What panels ask the app to do. Panels only read the store and their own state; anything
//! that changes the selection, the data or the files comes back as a [`Command`] that the app
//! applies after the frame's panels have drawn.

use std::path::PathBuf;

use super::i18n::Language;
use crate::host::agent::RunOptions;
use crate::trace::import::Format as ImportFormat;

/// The two diagram exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Mermaid,
    Svg,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Mermaid => "mmd",
            ExportFormat::Svg => "svg",
        }
    }
}

/// A request to the app.
#[derive(Debug, Clone)]
pub enum Command {
    /// Select an event (by index) and bring it into view everywhere.
    Select(usize),
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
        options: RunOptions,
    },
    /// Export the diagram of the current trace.
    Export(ExportFormat),
    SetLanguage(Language),
    /// Turn teaching mode (replay with narration) on or off.
    SetTeaching(bool),
    /// Close the app window.
    Quit,
}
