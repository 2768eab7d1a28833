//! The desktop's half of the app: what a browser cannot do.
//!
//! The viewer (store, diagram, inspector, what the model sees, doctor, list, teaching mode) is
//! the same everywhere. On the desktop it also runs scenarios live ([`super::live`]), follows
//! files other processes write ([`super::follow`]), opens, imports and exports files through
//! native dialogs ([`super::actions`]), remembers recent files and quits. All of that is held
//! by [`Platform`] and asked for with [`Command`]; the browser's counterpart is `ui::web`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use egui::Ui;

use super::actions::Picking;
use super::app::SightlineApp;
use super::follow::Following;
use super::live::{LiveRun, RunStatus};
use super::menu::MenuState;
use super::recent::RecentFiles;
use super::settings::Settings;
use super::store::TraceStore;
use crate::host::agent::RunOptions;
use crate::i18n::Words;

/// A request only the desktop can carry out (defined with the viewer's commands, which carry it).
pub use super::command::PlatformCommand as Command;

/// The desktop's state beside the viewer's.
pub struct Platform {
    pub(super) live: Option<LiveRun>,
    /// The live run's elicitation questions, shown as a dialog.
    pub(super) elicit: super::elicit::ElicitDialog,
    /// A trace or session other processes are writing, while one is shown.
    pub(super) following: Option<Following>,
    /// A file dialog running on its own thread: what the picked file is for, and where its
    /// path comes back.
    pub(super) dialog: Option<(Picking, Receiver<Option<PathBuf>>)>,
    pub(super) recent: RecentFiles,
    pub(super) menu: MenuState,
    /// File > Export > OpenTelemetry: its window and the export running.
    pub(super) otlp: super::otlp_export::OtlpExport,
    /// Wakes the UI from background threads (the live run); a no-op in tests.
    pub(super) wake: Arc<dyn Fn() + Send + Sync>,
    pub(super) quit: bool,
    /// View > Compare's two runs, while they run.
    pub(super) comparing: Option<super::compare_run::CompareRuns>,
    /// File > Replay against...: its window and the replay under way.
    pub(super) replay_against: super::compare_with::ReplayAgainst,
}

impl Default for Platform {
    fn default() -> Self {
        Platform {
            live: None,
            elicit: Default::default(),
            following: None,
            dialog: None,
            recent: RecentFiles::default(),
            menu: MenuState::default(),
            otlp: Default::default(),
            wake: Arc::new(|| {}),
            quit: false,
            comparing: None,
            replay_against: Default::default(),
        }
    }
}

impl Platform {
    /// Token counts: the tokenizer itself.
    pub fn tokenizer(&self) -> &'static dyn crate::analysis::tokens::Bpe {
        crate::analysis::tokens::own()
    }

    /// Whether events are on their way (the diagram says "waiting" rather than "no trace").
    pub fn is_waiting(&self) -> bool {
        self.live.is_some() || self.following.is_some() || self.comparing.is_some()
    }

    /// `work` (the findings, where no thread computes them) with a frame's
    /// [`super::store::STEP_BUDGET`]; what it returns.
    pub fn work(&mut self, work: impl FnOnce(std::time::Duration) -> bool) -> bool {
        work(super::store::STEP_BUDGET)
    }

    /// The File menu.
    pub fn file_menu_ui(&mut self, ui: &mut Ui, has_trace: bool, tr: Words<'_>) -> Option<Command> {
        self.menu.file_menu_ui(ui, &self.recent, has_trace, tr)
    }

    /// The desktop's part of the View menu: compare a scenario under both revisions.
    pub fn view_menu_ui(&mut self, ui: &mut Ui, tr: Words<'_>) -> Option<Command> {
        super::compare_run::view_menu_ui(ui, tr)
    }

    /// What a live run is doing, in the status bar.
    pub fn status_ui(&self, ui: &mut Ui, tr: Words<'_>) {
        if self.otlp.is_running() {
            ui.spinner();
            ui.label(tr.get("otlp.running"));
        }
        if let Some(run) = &self.live {
            ui.spinner();
            ui.label(tr.fmt("app.running", &[("scenario", &run.title)]));
            if let Some(line) = run.last_progress() {
                ui.weak(super::visible::escape(&line).into_owned());
            }
        }
    }

    /// The recent-files list, for the settings.
    pub fn recent_paths(&self) -> Vec<PathBuf> {
        self.recent.paths.clone()
    }

    /// The recent-files list of saved settings.
    pub fn set_recent_paths(&mut self, paths: Vec<PathBuf>) {
        self.recent = RecentFiles::from_paths(paths);
    }

    /// The run window, when open.
    pub fn windows_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) -> Option<super::Command> {
        self.otlp.window_ui(ctx, tr);
        self.elicit.window_ui(ctx, tr);
        let replay = self
            .replay_against
            .window_ui(ctx, tr)
            .map(|target| super::Command::from(Command::ReplayAgainst(target)));
        self.menu
            .run_window_ui(ctx, tr)
            .map(super::Command::from)
            .or(replay)
    }
}

pub(super) fn apply(app: &mut SightlineApp, command: Command) {
    super::actions::apply(app, command);
}

/// Takes in what a live run recorded and what followed files gained since the last frame,
/// the answer of a file dialog, and a trace dropped on the window.
pub(super) fn poll(app: &mut SightlineApp, ctx: &egui::Context) {
    poll_live(app, ctx);
    app.platform.elicit.poll();
    poll_following(app, ctx);
    super::compare_run::poll(app, ctx);
    super::compare_with::poll(app, ctx);
    super::actions::poll_dialog(app);
    poll_otlp(app);
    super::actions::take_dropped_files(app, ctx);
    app.step_findings(ctx);
}

/// Nothing: the desktop's work is done by [`poll`], before the panels.
pub(super) fn after_panels(_app: &mut SightlineApp, _ctx: &egui::Context) {}

fn poll_live(app: &mut SightlineApp, ctx: &egui::Context) {
    let Some(live) = app.platform.live.as_mut() else {
        return;
    };
    let new = live.poll();
    app.store.append(new);
    match live.status() {
        RunStatus::Running => ctx.request_repaint_after(std::time::Duration::from_millis(50)),
        status => {
            let last = live.poll();
            app.store.append(last);
            let path = live.trace_path.clone();
            let title = live.title.clone();
            app.platform.live = None;
            super::actions::run_finished(app, &title, &path, status);
        }
    }
}

fn poll_otlp(app: &mut SightlineApp) {
    if let Some(target) = app.platform.otlp.take_pending() {
        let wake = app.platform.wake.clone();
        app.platform.otlp.start(&app.store, target, wake);
    }
    if let Some(outcome) = app.platform.otlp.poll() {
        let (text, is_error) = match outcome {
            Ok(line) => (line, false),
            Err(line) => (line, true),
        };
        app.notice = Some(super::status::Notice { text, is_error });
    }
}

fn poll_following(app: &mut SightlineApp, ctx: &egui::Context) {
    let Some(following) = app.platform.following.as_mut() else {
        return;
    };
    let new = following.poll();
    let warnings = following.new_warnings();
    if !new.is_empty() {
        app.store.title = following.title();
    }
    app.store.append(new);
    app.store.warnings.extend(warnings);
    ctx.request_repaint_after(super::follow::POLL_EVERY);
}

impl SightlineApp {
    /// The app showing a saved trace.
    pub fn from_trace(path: &std::path::Path) -> anyhow::Result<SightlineApp> {
        let store = TraceStore::open(path)?;
        Ok(SightlineApp::with_store(store))
    }

    /// The app running a shipped scenario live. `wake` is called when the run makes progress.
    pub fn live(
        scenario: &str,
        options: RunOptions,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> SightlineApp {
        let mut app = SightlineApp::from_events("", Vec::new());
        app.platform.wake = wake;
        app.apply(
            Command::Run {
                scenario: scenario.to_string(),
                options: Box::new(options),
            }
            .into(),
        );
        app
    }

    /// The app following a trace file or session folder as other processes write it.
    pub fn follow(path: &std::path::Path, wake: Arc<dyn Fn() + Send + Sync>) -> SightlineApp {
        let mut app = SightlineApp::from_events("", Vec::new());
        app.platform.wake = wake;
        app.apply(Command::Follow(path.to_path_buf()).into());
        app
    }

    /// Puts the trace the app opened at the top of the recent-files list.
    pub fn with_opened_in_recent(mut self) -> SightlineApp {
        if let Some(path) = self
            .store
            .source
            .path()
            .filter(|_| self.platform.live.is_none())
        {
            let path = path.to_path_buf();
            self.platform.recent.push(&path);
        }
        self
    }

    pub fn recent(&self) -> &RecentFiles {
        &self.platform.recent
    }

    /// The elicitation question the dialog shows, if any: the asking server and its message.
    pub fn elicitation(&self) -> Option<(&str, &str)> {
        self.platform.elicit.question()
    }

    /// The live run, while one is shown.
    pub fn live_run(&mut self) -> Option<&mut LiveRun> {
        self.platform.live.as_mut()
    }

    /// Whether the user asked to quit (the window closes).
    pub fn wants_quit(&self) -> bool {
        self.platform.quit
    }

    /// Reads the followed files now (tests; the app polls every frame, at most every 200 ms).
    pub fn poll_following_now(&mut self) {
        if let Some(following) = self.platform.following.as_mut() {
            let new = following.poll_now();
            self.store.append(new);
        }
    }
}

impl eframe::App for SightlineApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        SightlineApp::ui(self, ui);
        if self.platform.quit {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// Keeps the user's choices for the next run (eframe calls this on close and now and then).
    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings());
    }
}

/// The settings an earlier run saved in `storage`; the first time, the defaults with the
/// recent-files list an earlier version kept.
fn saved_settings(storage: Option<&dyn eframe::Storage>) -> Settings {
    storage
        .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
        .unwrap_or_else(|| Settings {
            recent: RecentFiles::legacy(&RecentFiles::legacy_file()),
            // Nothing saved yet: the system's language (LC_ALL, LC_MESSAGES, LANG).
            language: crate::i18n::Language::from_env(),
            ..Settings::default()
        })
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
    /// Two saved traces side by side (`sightline open A B`).
    Compare(PathBuf, PathBuf),
}

/// The commands that work without a display, for the message when there is none.
const HEADLESS_HELP: &str = "Without a display, use the headless commands:
  sightline run SCENARIO                          run a scenario, print the conversation and a summary
  sightline summary TRACE                         one line per event of a saved trace
  sightline export TRACE --format mermaid|svg|html  the diagram for Markdown or slides, or the viewer in one HTML file
  sightline serve TRACE|SESSION_DIR               the viewer in a browser, following the trace live";

/// Whether a window could be opened at all (an X11 or Wayland display is named).
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the app window and runs it until it is closed.
pub fn launch(start: Start) -> anyhow::Result<ExitCode> {
    launch_in(start, None)
}

/// [`launch`] in the language `--lang` names, if it does (else the one remembered, else the
/// system's: [`super::language`]).
pub fn launch_in(start: Start, lang: Option<crate::i18n::Language>) -> anyhow::Result<ExitCode> {
    if !has_display() {
        eprintln!(
            "sightline: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the app cannot open a window.\n{HEADLESS_HELP}"
        );
        return Ok(ExitCode::from(2));
    }
    // Open the trace first, so a bad path is an ordinary command-line error.
    let opened = match &start {
        Start::Open(path) => Some(SightlineApp::from_trace(path)?),
        Start::Compare(a, b) => Some(SightlineApp::compare_traces(a, b)?),
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
        persistence_path: Some(super::live::data_dir().join("app.ron")),
        ..Default::default()
    };
    let result = eframe::run_native(
        "Sightline",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut app = match (opened, start) {
                (Some(app), _) => app,
                (None, Start::Follow(path)) => {
                    SightlineApp::follow(&path, Arc::new(move || ctx.request_repaint()))
                }
                (None, _) => SightlineApp::live(
                    crate::host::scenario::shipped::DEFAULT,
                    RunOptions::default(),
                    Arc::new(move || ctx.request_repaint()),
                ),
            };
            let settings = saved_settings(cc.storage);
            app.install_fonts(&cc.egui_ctx);
            Ok(Box::new(
                app.with_settings(settings)
                    .with_opened_in_recent()
                    .with_language_flag(lang),
            ))
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
