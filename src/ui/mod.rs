//! The desktop app: a trace, live or saved, drawn as a sequence diagram.
//!
//! The first lesson must be visible at a glance: there is no line between the model and the
//! server; the host is in the middle. Everything here reads the data model built by
//! [`crate::trace`] and [`crate::analysis`]; nothing outside `ui` (and the CLI that launches it)
//! depends on egui.
//!
//! # Layout
//!
//! - [`app`]: [`SightlineApp`], the frame loop and the panel layout; `view_actions` applies the
//!   [`command::Command`]s panels return.
//! - [`platform`]: the one seam between the viewer and where it runs. On the desktop
//!   (feature `native`) it is `desktop`: [`live`] (a scenario running on a background thread,
//!   recorded into a file and a live sink), [`follow`] (files other processes write), file
//!   dialogs and exports (`actions`), the File menu and run window ([`menu`]), [`recent`] files
//!   and [`launch`] (the shipped scenarios are `host::scenario::shipped`'s). In the browser it is `web`: the trace from bytes
//!   or from `sightline serve`'s stream, and the page's entry point.
//! - [`store`]: the trace store (events, report, diagram model), append-only.
//! - Panels, each a struct owning only its UI state: [`diagram`] (rows chosen by [`rowset`],
//!   lanes spaced by what [`diagram_fit`] measured,
//!   painted by [`diagram_paint`] in the colours of [`theme`], explained by [`legend`]),
//!   [`inspector`] (with [`json_tree`]), [`model_view`], [`doctor_panel`], [`stats_panel`], [`list`],
//!   [`replay`], `menu_bar`, [`status`]; [`present`] (presentation mode for a projector) and
//!   [`compare`] (two traces side by side, synchronised, their differences named).
//! - [`badges`]: the doctor's, schema, poisoning and rug-pull findings, computed once per store
//!   change, and the badges that mark them on arrows and tools.
//! - every UI string comes from [`crate::i18n`] (English, Portuguese and Spanish, from
//!   `assets/i18n/`); the teaching-mode narration from
//!   [`crate::analysis::narration`].
//! - [`visible`]: control and invisible characters shown as `\u{…}`, never rendered raw.
//! - [`settings`]: what the user chose (language, zoom, teaching mode, tab, recent files),
//!   kept from one run to the next, apart from the state of this run.

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
