//! The browser's half of the app: the viewer with a trace from bytes, or from the event stream
//! of `sightline serve`.
//!
//! The browser cannot start a process, open a file dialog or follow a file, and the page must
//! not do anything but show (a served page is read-only): so there is no File menu and no
//! [`Command`] at all. What is here is the trace's way in. An exported page hands its trace's
//! bytes to [`start`]; a served page names the server's stream (`live` in the config), whose
//! messages (one trace line each) arrive between frames and are taken in by [`poll`] as the
//! desktop takes in a followed file.
//!
//! A big exported trace is read a few milliseconds of each frame ([`Platform::loading`]): the
//! first frame shows the diagram of its first events, and the whole trace (its analysis, its
//! diagram and then its findings) replaces them once its last line is read.
//!
//! For tests and for people who drive the page from its console, the page also publishes what
//! it shows: `window.sightline.status()` (events, selection and its raw text, teaching mode,
//! narration, language, timings) and `window.sightline.a11y()` (egui's AccessKit tree: each
//! widget's role, label and rectangle, every arrow of the diagram among them).

use std::cell::RefCell;
use std::rc::Rc;

use egui::Ui;

use super::Tr;
use super::app::SightlineApp;
use super::store::{Source, TraceStore};
use crate::analysis::tokens::Carried;
use crate::trace::{Event, LoadWarning, Loading};

/// The browser carries out no command of its own: the page is read-only.
#[derive(Debug, Clone)]
pub enum Command {}

/// Lines of a served trace, as the stream delivered them, waiting for the next frame.
#[derive(Default)]
pub struct Inbox {
    lines: Vec<String>,
    title: Option<String>,
    /// Lines the server could not read (it reads the files; the page gets their numbers).
    warnings: Vec<LoadWarning>,
    /// The stream is open (false once the server has gone).
    connected: bool,
    /// Token counts of the requests among the lines (the server counts them).
    tokens: Carried,
}

/// The browser's state beside the viewer's.
#[derive(Default)]
pub struct Platform {
    /// Filled by the event stream's callbacks, emptied by [`poll`].
    pub(super) inbox: Option<Rc<RefCell<Inbox>>>,
    /// Where the served trace lives on the server (for the status bar).
    pub(super) source: String,
    /// Lines of the stream read so far (for warnings' line numbers), and their bytes.
    lines_seen: usize,
    bytes_seen: u64,
    /// The tab's memory is full: later lines are not taken in.
    full: bool,
    /// An exported trace still being read: the store holds its first events meanwhile.
    pub(super) loading: Option<Loading>,
    /// The token counts the page carries, and those the stream sent.
    pub(super) tokens: Carried,
}

impl Platform {
    /// Token counts: those the page carries (the web build links no tokenizer).
    pub fn tokenizer(&self) -> &dyn crate::analysis::tokens::Bpe {
        &self.tokens
    }

    /// Whether events are on their way.
    pub fn is_waiting(&self) -> bool {
        self.inbox.is_some() || self.loading.is_some()
    }

    /// The browser has no File menu.
    pub fn file_menu_ui(&mut self, _ui: &mut Ui, _has_trace: bool, _tr: Tr<'_>) -> Option<Command> {
        None
    }

    /// Comparing revisions runs scenarios: the desktop's.
    pub fn view_menu_ui(&mut self, _ui: &mut Ui, _tr: Tr<'_>) -> Option<Command> {
        None
    }

    /// A served trace is followed live.
    pub fn status_ui(&self, ui: &mut Ui, tr: Tr<'_>) {
        if let Some(loading) = &self.loading {
            ui.spinner();
            let read = format!("{:.0}%", loading.progress() * 100.0);
            ui.label(tr.f("app.loading", &[("path", read)]));
        }
        if let Some(inbox) = &self.inbox {
            if inbox.borrow().connected {
                ui.spinner();
            }
            ui.label(tr.f("app.following", &[("path", self.source.clone())]));
        }
    }

    /// The browser keeps no recent files.
    pub fn recent_paths(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// The browser keeps no recent files.
    pub fn set_recent_paths(&mut self, _paths: Vec<std::path::PathBuf>) {}

    /// No windows of its own.
    pub fn windows_ui(&mut self, _ctx: &egui::Context, _tr: Tr<'_>) -> Option<super::Command> {
        None
    }
}

pub(super) fn apply(_app: &mut SightlineApp, command: Command) {
    match command {}
}

/// How long a frame reads an exported trace that is still being read, and how much it reads
/// between looks at the clock: most of a frame at 30 Hz, the rest left to drawing it.
const READ_BUDGET: std::time::Duration = std::time::Duration::from_millis(25);
const READ_STEP: usize = 64 << 10;

/// Reads more of an exported trace, or takes in the lines the stream delivered since the last
/// frame.
pub(super) fn poll(app: &mut SightlineApp, ctx: &egui::Context) {
    if let Some(loading) = &mut app.platform.loading {
        // The first frame draws the first events at once; the next ones read the rest.
        let started = web_time::Instant::now();
        let mut done = false;
        while !done && ctx.cumulative_pass_nr() > 0 && started.elapsed() < READ_BUDGET {
            done = loading.step(READ_STEP);
        }
        if !done {
            ctx.request_repaint();
            return;
        }
        if let Some(loading) = app.platform.loading.take() {
            let loaded = loading.finish();
            let generation = app.store.generation + 1;
            let title = std::mem::take(&mut app.store.title);
            app.store = TraceStore::new(title, Source::Memory, loaded.events);
            app.store.warnings = loaded.warnings;
            app.store.generation = generation;
        }
    }
    let Some(inbox) = &app.platform.inbox else {
        return;
    };
    let (lines, title, served_warnings, tokens) = {
        let mut inbox = inbox.borrow_mut();
        (
            std::mem::take(&mut inbox.lines),
            inbox.title.take(),
            std::mem::take(&mut inbox.warnings),
            std::mem::take(&mut inbox.tokens),
        )
    };
    app.platform.tokens.extend(tokens);
    if let Some(title) = title {
        app.store.title = title;
    }
    let lines = within_budget(
        &mut app.platform,
        app.store.len(),
        lines,
        &mut app.store.warnings,
    );
    let (events, warnings) = parse_lines(&lines, app.platform.lines_seen);
    app.platform.lines_seen += lines.len();
    app.store.append(events);
    app.store.warnings.extend(served_warnings);
    app.store.warnings.extend(warnings);
}

/// The lines that still fit in the tab's memory ([`crate::export::html::fits_in_a_tab`]); at
/// the first that does not, a warning, and no more lines from then on (what is shown stays).
fn within_budget(
    platform: &mut Platform,
    events: usize,
    mut lines: Vec<String>,
    warnings: &mut Vec<LoadWarning>,
) -> Vec<String> {
    if platform.full {
        return Vec::new();
    }
    let mut bytes = platform.bytes_seen;
    for (i, line) in lines.iter().enumerate() {
        bytes += line.len() as u64 + 1;
        if let Err(e) = crate::export::html::fits_in_a_tab(events + i + 1, bytes) {
            platform.full = true;
            warnings.push(LoadWarning {
                line: platform.lines_seen + i + 2,
                message: format!(
                    "{e}: the page shows the events before this line and no later ones; open \
                     the trace in the app"
                ),
            });
            lines.truncate(i);
            break;
        }
    }
    platform.bytes_seen = bytes;
    lines
}

/// Trace lines to events; a line that is not one becomes a warning, as when a file is loaded.
/// `before` is how many lines came earlier (the header is line 1).
fn parse_lines(lines: &[String], before: usize) -> (Vec<Event>, Vec<LoadWarning>) {
    let mut events = Vec::with_capacity(lines.len());
    let mut warnings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Event>(line) {
            Ok(event) => events.push(event),
            Err(e) => warnings.push(LoadWarning {
                line: before + i + 2,
                message: e.to_string(),
            }),
        }
    }
    (events, warnings)
}

#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub use entry::{a11y, start, status};

#[cfg(all(feature = "web", target_arch = "wasm32"))]
mod entry;
