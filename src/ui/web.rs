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
//! first frame shows the diagram of its first events, the next ones extend it with the events
//! read meanwhile ([`super::store::TraceStore::grow`]), and its findings are computed once its last line is
//! read, a few milliseconds of each frame too: no frame stops for the whole trace.
//!
//! For tests and for people who drive the page from its console, the page also publishes what
//! it shows: `window.sightline.status()` (events, selection and its raw text, teaching mode,
//! narration, language, timings) and `window.sightline.a11y()` (egui's AccessKit tree: each
//! widget's role, label and rectangle, every arrow of the diagram among them).

use std::cell::RefCell;
use std::rc::Rc;

use egui::Ui;

use super::app::SightlineApp;
use crate::analysis::tokens::Carried;
use crate::i18n::Words;
use crate::trace::{Event, LineProblem, LoadWarning, Loading};

/// The browser carries out no command of its own (the page is read-only).
pub use super::command::PlatformCommand as Command;

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
    /// Lines of the stream taken so far (for warnings' line numbers), and their bytes.
    lines_seen: usize,
    /// The last of those, not parsed yet: the next frames parse them.
    queued: std::collections::VecDeque<String>,
    bytes_seen: u64,
    /// The tab's memory is full: later lines are not taken in.
    full: bool,
    /// An exported trace still being read: the store holds its first events meanwhile.
    pub(super) loading: Option<Loading>,
    /// The token counts the page carries, and those the stream sent.
    pub(super) tokens: Carried,
    /// The longest time a frame spent reading and taking in events, in milliseconds.
    pub(super) longest_read_ms: f64,
    /// What the last frame took in all (eframe's measure: update, tessellation, painting)
    /// and its update alone, set by the page before each frame.
    pub(super) last_frame_ms: Option<(f64, f64)>,
    /// This frame's time for our own work: reading the trace, then the findings.
    work: FrameWork,
}

/// A frame's time for our own work ([`Platform::work_left`], [`super::budget::work_ms`]).
#[derive(Default)]
struct FrameWork {
    /// When this frame began (its update: the panels come next).
    frame: Option<web_time::Instant>,
    /// When this frame's work began, and how long it may last.
    started: Option<(web_time::Instant, f64)>,
    /// How long the last frame's work lasted, in milliseconds.
    last_ms: f64,
    /// When the reader last did something (egui's clock, in seconds).
    last_input: Option<f64>,
    /// Whether nobody has acted for a while ([`super::budget::is_quiet`]).
    quiet: bool,
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

    /// Starts this frame, before its panels: whether the reader acts.
    fn begin_frame(&mut self, ctx: &egui::Context) {
        let (now, input) = ctx.input(|i| (i.time, !i.events.is_empty()));
        if input {
            self.work.last_input = Some(now);
        }
        self.work = FrameWork {
            frame: Some(web_time::Instant::now()),
            started: None,
            last_ms: self.work.last_ms,
            last_input: self.work.last_input,
            quiet: super::budget::is_quiet(now, self.work.last_input),
        };
    }

    /// Starts this frame's work, after its panels: its time is what they and the last
    /// frame's painting leave of a frame ([`super::budget::work_ms`]).
    fn begin_work(&mut self) {
        let now = web_time::Instant::now();
        let panels = self
            .work
            .frame
            .map_or(0.0, |f| now.duration_since(f).as_secs_f64() * 1000.0);
        let paint = self
            .last_frame_ms
            .map_or(0.0, |(all, update)| (all - update).max(0.0));
        let allowed = super::budget::work_ms(self.work.quiet, panels, paint);
        self.work.started = Some((now, allowed));
        self.work.last_ms = 0.0;
    }

    /// How long the last frame's work (or this one's so far) lasted, in milliseconds.
    pub(super) fn last_work_ms(&self) -> f64 {
        self.work.last_ms
    }

    /// What is left of this frame's time for our work.
    fn work_left(&self) -> std::time::Duration {
        let Some((started, allowed)) = self.work.started else {
            return std::time::Duration::from_secs_f64(super::budget::MAX_WORK_MS / 1000.0);
        };
        std::time::Duration::from_secs_f64(allowed / 1000.0).saturating_sub(started.elapsed())
    }

    /// `work` (the findings) with what is left of this frame's time; when nothing is left it
    /// is not called and the next frame goes on. True while work is left (the caller asks
    /// for another frame), as `work` returns.
    pub fn work(&mut self, work: impl FnOnce(std::time::Duration) -> bool) -> bool {
        let left = self.work_left();
        let more = left.is_zero() || work(left);
        if let Some((started, _)) = self.work.started {
            self.work.last_ms = started.elapsed().as_secs_f64() * 1000.0;
        }
        more
    }

    fn note_read(&mut self, started: web_time::Instant) {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        self.longest_read_ms = self.longest_read_ms.max(ms);
        if let Some((started, _)) = self.work.started {
            self.work.last_ms = started.elapsed().as_secs_f64() * 1000.0;
        }
    }

    /// The browser has no File menu.
    pub fn file_menu_ui(
        &mut self,
        _ui: &mut Ui,
        _has_trace: bool,
        _tr: Words<'_>,
    ) -> Option<Command> {
        None
    }

    /// Comparing revisions runs scenarios: the desktop's.
    pub fn view_menu_ui(&mut self, _ui: &mut Ui, _tr: Words<'_>) -> Option<Command> {
        None
    }

    /// A served trace is followed live.
    pub fn status_ui(&self, ui: &mut Ui, tr: Words<'_>) {
        if let Some(loading) = &self.loading {
            ui.spinner();
            let read = format!("{:.0}%", loading.progress() * 100.0);
            ui.label(tr.fmt("app.loading", &[("path", &read)]));
        }
        if let Some(inbox) = &self.inbox {
            if inbox.borrow().connected {
                ui.spinner();
            }
            ui.label(tr.fmt("app.following", &[("path", &self.source)]));
        }
    }

    /// The browser keeps no recent files.
    pub fn recent_paths(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// The browser keeps no recent files.
    pub fn set_recent_paths(&mut self, _paths: Vec<std::path::PathBuf>) {}

    /// No windows of its own.
    pub fn windows_ui(&mut self, _ctx: &egui::Context, _tr: Words<'_>) -> Option<super::Command> {
        None
    }
}

pub(super) fn apply(_app: &mut SightlineApp, command: Command) {
    match command {}
}

/// How much of an exported trace that is still being read a frame reads between looks at
/// the clock (reading and analysing a line take about 50 µs in a loaded browser: some 20
/// lines); it reads for the frame's time for our work ([`Platform::work_left`]).
const READ_STEP: usize = 4 << 10;
/// Lines of a served trace parsed between looks at the clock.
const READ_LINES: usize = 32;

/// Starts a frame: whether the reader acts (the work after the panels gets less of a frame
/// while they do).
pub(super) fn poll(app: &mut SightlineApp, ctx: &egui::Context) {
    app.platform.begin_frame(ctx);
}

/// Our work, with what the panels left of the frame: reads more of an exported trace, or
/// takes in the lines the stream delivered since the last frame; then the findings. What is
/// read shows in the next frame.
pub(super) fn after_panels(app: &mut SightlineApp, ctx: &egui::Context) {
    app.platform.begin_work();
    if read(app, ctx) {
        app.step_findings(ctx);
    }
}

/// Reads for this frame's work: false while an exported trace is still being read (its
/// findings wait for its last line).
fn read(app: &mut SightlineApp, ctx: &egui::Context) -> bool {
    let left = app.platform.work_left();
    if let Some(loading) = &mut app.platform.loading {
        // The first frame draws the first events at once; the next ones read the rest, each
        // a few milliseconds, and take in what they read as a followed trace takes in what its
        // files gained (the analysis and the diagram extended, not made again).
        if ctx.cumulative_pass_nr() == 0 {
            ctx.request_repaint();
            return false;
        }
        let started = web_time::Instant::now();
        let mut done = false;
        while !done && started.elapsed() < left {
            done = loading.step(READ_STEP);
            let (events, warnings) = loading.take();
            app.store.grow(events);
            app.store.warnings.extend(warnings);
        }
        app.platform.note_read(started);
        if !done {
            ctx.request_repaint();
            return false;
        }
        // Every event is in: the findings now, a few milliseconds of each frame.
        app.platform.loading = None;
        app.store.settle();
    }
    let Some(inbox) = &app.platform.inbox else {
        return true;
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
    let waiting = app.store.len() + app.platform.queued.len();
    let lines = within_budget(&mut app.platform, waiting, lines, &mut app.store.warnings);
    app.platform.lines_seen += lines.len();
    app.platform.queued.extend(lines);
    app.store.warnings.extend(served_warnings);
    // The lines a few milliseconds a frame, as an exported trace's (a page that connects to a
    // big session gets all of it at once); the findings once all are in.
    let started = web_time::Instant::now();
    let platform = &mut app.platform;
    while !platform.queued.is_empty() && !platform.work_left().is_zero() {
        let before = platform.lines_seen - platform.queued.len();
        let n = platform.queued.len().min(READ_LINES);
        let some: Vec<String> = platform.queued.drain(..n).collect();
        let (events, warnings) = parse_lines(&some, before);
        app.store.grow(events);
        app.store.warnings.extend(warnings);
    }
    platform.note_read(started);
    if platform.queued.is_empty() {
        app.store.settle();
    } else {
        ctx.request_repaint();
    }
    true
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
                problem: LineProblem::TabFull {
                    events: e.events,
                    needed_mb: e.needed_mb,
                    budget_mb: e.budget_mb,
                },
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
        match Event::from_line(line.as_bytes()) {
            Ok(event) => events.push(event),
            Err(e) => warnings.push(LoadWarning {
                line: before + i + 2,
                problem: LineProblem::NotEvent {
                    detail: e.to_string(),
                },
            }),
        }
    }
    (events, warnings)
}

#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub use entry::{a11y, start, status};

#[cfg(all(feature = "web", target_arch = "wasm32"))]
mod entry;
