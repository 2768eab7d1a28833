//! The desktop app: a trace, live or saved, drawn as a sequence diagram.
//!
//! The first lesson must be visible at a glance: there is no line between the model and the
//! server; the host is in the middle. Everything here reads the data model built by
//! [`crate::trace`] and [`crate::analysis`]; nothing outside `ui` (and the CLI that launches it)
//! depends on egui.
//!
//! # Layout
//!
//! - [`app`]: [`SightlineApp`], the frame loop and the panel layout; [`actions`] applies the
//!   [`command::Command`]s panels return.
//! - [`store`]: the trace store (events, report, diagram model), append-only.
//! - [`live`]: a scenario running on a background thread, recorded into a file and a live sink.
//! - Panels, each a struct owning only its UI state: [`diagram`] (rows chosen by [`rowset`],
//!   painted by [`diagram_paint`] in the colours of [`theme`], explained by [`legend`]),
//!   [`inspector`] (with [`json_tree`]), [`model_view`], [`doctor_panel`], [`list`],
//!   [`replay`], [`menu`], [`status`].
//! - [`badges`]: the doctor's, schema, poisoning and rug-pull findings, computed once per store
//!   change, and the badges that mark them on arrows and tools.
//! - [`i18n`] and [`narration`]: every UI string and the teaching-mode narration, in English,
//!   Portuguese and Spanish, from `assets/i18n/`.
//! - [`visible`]: control and invisible characters shown as `\u{…}`, never rendered raw.
//! - [`scenarios`]: the shipped scenarios, embedded so the app runs from any directory.

mod actions;
pub mod app;
pub mod badges;
pub mod command;
pub mod diagram;
mod diagram_paint;
pub mod doctor_panel;
pub mod follow;
pub mod i18n;
pub mod inspector;
pub mod json_tree;
mod legend;
pub mod list;
pub mod live;
pub mod menu;
pub mod model_view;
pub mod narration;
pub mod recent;
pub mod replay;
mod rowset;
pub mod scenarios;
mod status;
pub mod store;
pub mod theme;
pub mod visible;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

pub use app::{SightlineApp, Tab};
pub use command::{Command, ExportFormat};
pub use i18n::{Language, Strings};

/// The UI strings in the language chosen, handed to every panel.
#[derive(Clone, Copy)]
pub struct Tr<'a> {
    pub strings: &'a Strings,
    pub lang: Language,
}

impl Tr<'_> {
    /// The text of `key`.
    pub fn t(&self, key: &str) -> String {
        self.strings.get(self.lang, key).to_string()
    }

    /// The text of `key` with its `{name}` placeholders filled in.
    pub fn f(&self, key: &str, args: &[(&str, String)]) -> String {
        let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.strings.fmt(self.lang, key, &args)
    }
}

/// A lane's title in the UI language (server and unknown lanes keep their names).
pub fn lane_title(tr: Tr<'_>, lane: &crate::analysis::diagram::LaneInfo) -> String {
    use crate::analysis::diagram::LaneKind;
    match lane.kind {
        LaneKind::User => tr.t("diagram.lane_user"),
        LaneKind::Host => tr.t("diagram.lane_host"),
        LaneKind::Llm => tr.t("diagram.lane_llm"),
        LaneKind::Server => tr.f("diagram.lane_server", &[("name", lane.title.clone())]),
        LaneKind::Other => lane.title.clone(),
    }
}

/// What the app shows first.
#[derive(Debug, Clone)]
pub enum Start {
    /// Run the default scenario live (`sightline` with no arguments).
    Live,
    /// Open a saved trace (`sightline open TRACE`).
    Open(PathBuf),
    /// Show a trace file or session folder live as proxies write it (`sightline open --follow`).
    Follow(PathBuf),
}

/// The commands that work without a display, for the message when there is none.
const HEADLESS_HELP: &str = "Without a display, use the headless commands:
  sightline run SCENARIO                          run a scenario, print the conversation and a summary
  sightline summary TRACE                         one line per event of a saved trace
  sightline export TRACE --format mermaid|svg     the sequence diagram for Markdown or slides";

/// Whether a window could be opened at all (an X11 or Wayland display is named).
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the app window and runs it until it is closed.
pub fn launch(start: Start) -> anyhow::Result<ExitCode> {
    if !has_display() {
        eprintln!(
            "sightline: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the app cannot open a window.\n{HEADLESS_HELP}"
        );
        return Ok(ExitCode::from(2));
    }
    // Open the trace first, so a bad path is an ordinary command-line error.
    let opened = match &start {
        Start::Open(path) => Some(SightlineApp::from_trace(path)?),
        Start::Follow(path) => {
            crate::trace::Follower::new(path)?;
            None
        }
        Start::Live => None,
    };
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport: egui::ViewportBuilder::default()
            .with_title("Sightline")
            .with_app_id("sightline")
            .with_inner_size([1400.0, 900.0])
            .with_min_inner_size([800.0, 500.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    let recent = recent::RecentFiles::load(recent::RecentFiles::default_file());
    let result = eframe::run_native(
        "Sightline",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let app = match (opened, start) {
                (Some(app), _) => app,
                (None, Start::Follow(path)) => {
                    SightlineApp::follow(&path, Arc::new(move || ctx.request_repaint()))
                }
                (None, _) => SightlineApp::live(
                    scenarios::DEFAULT,
                    crate::host::agent::RunOptions::default(),
                    Arc::new(move || ctx.request_repaint()),
                ),
            };
            Ok(Box::new(app.with_recent(recent)))
        }),
    );
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("sightline: cannot open a window: {e}\n{HEADLESS_HELP}");
            Ok(ExitCode::from(2))
        }
    }
}
