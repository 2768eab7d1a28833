//! The desktop app: a trace, live or saved, drawn as a sequence diagram.
//!
//! The first lesson must be visible at a glance: there is no line between the model and the
//! server; the host is in the middle. Everything here reads the data model built by
//! [`crate::trace`] and [`crate::analysis`]; nothing outside `ui` (and the CLI that launches it)
//! depends on egui.
//!
//! # Layout
//!
//! The parts stand in layers, and each uses only its own layer and those below
//! (`tests/architecture/ui_layers.rs` keeps it so), from the bottom:
//!
//! - **Base**, what every part shares and that knows no trace: [`command`] (what panels ask
//!   for, the platform's requests among them), [`theme`] (colours), [`visible`] (control and
//!   invisible characters shown as `\u{…}`, never raw), [`lanes`] (a lane's title),
//!   [`rowset`] (which rows are drawn), [`budget`] (a browser frame's time), `sys` (the
//!   processor's and the system's calls beyond `std`).
//! - **Store**: [`store`], the one copy of the data (events, report, diagram model, findings
//!   from [`crate::analysis::findings`]), append-only; [`store::search`] answers which events a
//!   filter matches.
//! - **Panels**, each a struct owning only its UI state, reading the store and returning
//!   [`command::Command`]s: [`diagram`] (lanes spaced by what `diagram_fit` measured, painted
//!   by `diagram_paint`, explained by `legend`, findings marked by [`badges`]), [`inspector`]
//!   (with [`json_tree`]), [`model_view`], [`doctor_panel`], [`stats_panel`], [`list`],
//!   [`replay`], [`settings_window`], [`present`] (presentation mode), [`compare`] (two
//!   traces side by side).
//! - **Shell**: [`app`] ([`SightlineApp`], the frame loop and the panel layout;
//!   `view_actions` applies the commands), `menu_bar`, [`status`], [`settings`] (what the
//!   user chose, kept from one run to the next), and [`platform`], the one seam between the
//!   viewer and where it runs. On the desktop (feature `native`) it is `desktop`: [`live`]
//!   runs, [`follow`]ed files, dialogs and exports (`actions`), the File menu ([`menu`]),
//!   [`recent`] files and [`launch`]; in the browser it is `web`. The app holds the platform
//!   and the platform acts on the app, so the shell's parts may use one another.
//!
//! Every UI string comes from [`crate::i18n`] (English, Portuguese and Spanish, from
//! `assets/i18n/`), the teaching-mode narration from [`crate::analysis::narration`].

pub mod app;
pub mod badges;
pub mod budget;
pub mod command;
pub mod compare;
pub mod diagram;
mod diagram_fit;
mod diagram_paint;
pub mod doctor_panel;
pub mod inspector;
pub mod json_tree;
mod lanes;
mod legend;
pub mod list;
mod menu_bar;
pub mod model_view;
pub mod present;
pub mod replay;
mod rowset;
pub mod settings;
pub mod settings_window;
pub mod stats_panel;
pub mod status;
pub mod store;
mod sys;
pub mod theme;
mod view_actions;
pub mod visible;

// The seam: what only the desktop can do, or what only the browser does, and nothing else.
#[cfg(feature = "native")]
mod actions;
#[cfg(feature = "native")]
pub mod compare_run;
#[cfg(feature = "native")]
pub mod compare_with;
#[cfg(feature = "native")]
pub mod desktop;
#[cfg(feature = "native")]
pub mod elicit;
#[cfg(feature = "native")]
pub mod follow;
#[cfg(feature = "native")]
pub mod language;
#[cfg(feature = "native")]
pub mod live;
#[cfg(feature = "native")]
pub mod menu;
#[cfg(feature = "native")]
mod otlp_export;
#[cfg(feature = "native")]
pub use desktop as platform;
#[cfg(feature = "native")]
pub mod recent;
#[cfg(not(feature = "native"))]
pub mod web;
#[cfg(not(feature = "native"))]
pub use web as platform;

pub use crate::i18n::{Language, Strings};
pub use app::{SightlineApp, Tab};
pub use command::{Command, ExportFormat};
#[cfg(feature = "native")]
pub use desktop::{Command as DesktopCommand, Start, launch};
pub use settings::Settings;
