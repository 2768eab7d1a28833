//! What panels ask the app to do. Panels only read the store and their own state; anything
//! that changes the selection, the data or the files comes back as a [`Command`] that the app
//! applies after the frame's panels have drawn.
//!
//! The viewer's own commands work everywhere; what touches files, processes or the window
//! ([`PlatformCommand`]: open, import, run, export, quit on the desktop) is carried out by the
//! platform. It is defined here all the same, so that a panel asking for it does not depend on
//! the platform, which depends on the panels.

use crate::i18n::Language;

#[cfg(feature = "native")]
mod desktop;
#[cfg(feature = "native")]
pub use desktop::PlatformCommand;

/// The browser carries out no command of its own: the page is read-only.
#[cfg(not(feature = "native"))]
#[derive(Debug, Clone)]
pub enum PlatformCommand {}

/// The two diagram exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Mermaid,
    Svg,
    /// The whole viewer and the trace in one HTML file (`sightline export --format html`).
    Html,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Mermaid => "mmd",
            ExportFormat::Svg => "svg",
            ExportFormat::Html => "html",
        }
    }
}

/// A request to the app.
#[derive(Debug, Clone)]
pub enum Command {
    /// Select an event (by index) and bring it into view everywhere.
    Select(usize),
    /// Set the message list's filter to `filter` (the display-filter language) and select
    /// event `select`: a bar of the IO graph shows its events.
    ShowEvents {
        filter: String,
        select: usize,
    },
    SetLanguage(Language),
    /// Turn teaching mode (replay with narration) on or off.
    SetTeaching(bool),
    /// Turn presentation mode (large type, projector theme, panels hidden) on or off.
    SetPresenting(bool),
    /// Show the settings window (View > Settings…).
    OpenSettings,
    /// Give the whole interface this scale (the settings window; kept with the settings).
    SetUiScale(f32),
    /// Leave the compare view.
    CloseCompare,
    /// What only the platform the app runs on can do.
    Platform(PlatformCommand),
}

impl From<PlatformCommand> for Command {
    fn from(command: PlatformCommand) -> Command {
        Command::Platform(command)
    }
}
