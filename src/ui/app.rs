//! The app: one trace store, the panels' UI state, and the commands that change them.
//!
//! Each frame: take in what a live run recorded since the last frame (the analysis is redone
//! only then), draw the panels (they read the store and return [`Command`]s), then apply the
//! commands. Layout: the menu bar at the top, teaching mode's controls and narration under it,
//! the message list at the left, the inspector / what-the-model-sees / doctor tabs at the right, the
//! sequence diagram in the middle and a status bar at the bottom.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use egui::{CentralPanel, Panel, RichText, Ui};

use super::Tr;
use super::command::Command;
use super::diagram::{DiagramView, RowSet};
use super::doctor_panel::DoctorPanel;
use super::follow::Following;
use super::i18n::{Language, Strings};
use super::inspector::Inspector;
use super::list::MessageList;
use super::live::{LiveRun, RunStatus};
use super::menu::MenuState;
use super::model_view::ModelView;
use super::recent::RecentFiles;
use super::replay::Replay;
use super::store::{Source, TraceStore};
use crate::host::agent::RunOptions;
use crate::trace::Event;

/// The tabs of the right-hand panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Inspector,
    ModelView,
    Doctor,
}

/// A message for the status bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub is_error: bool,
}

/// The Sightline desktop app.
pub struct SightlineApp {
    pub(super) store: TraceStore,
    pub(super) live: Option<LiveRun>,
    /// A trace or session other processes are writing, while one is shown.
    pub(super) following: Option<Following>,
    pub(super) selected: Option<usize>,
    pub(super) strings: Strings,
    pub(super) lang: Language,
    pub(super) tab: Tab,
    pub(super) diagram: DiagramView,
    pub(super) inspector: Inspector,
    pub(super) model_view: ModelView,
    pub(super) doctor: DoctorPanel,
    pub(super) list: MessageList,
    pub(super) replay: Replay,
    pub(super) menu: MenuState,
    pub(super) recent: RecentFiles,
    pub(super) notice: Option<Notice>,
    /// A file dialog running on its own thread: what the picked file is for, and where its
    /// path comes back.
    pub(super) dialog: Option<(super::actions::Picking, Receiver<Option<PathBuf>>)>,
    /// Wakes the UI from background threads (the live run); a no-op in tests.
    pub(super) wake: Arc<dyn Fn() + Send + Sync>,
    pub(super) quit: bool,
    fonts_installed: bool,
}

impl SightlineApp {
    fn with_store(store: TraceStore) -> SightlineApp {
        SightlineApp {
            store,
            live: None,
            following: None,
            selected: None,
            strings: Strings::embedded(),
            lang: Language::En,
            tab: Tab::Inspector,
            diagram: DiagramView::default(),
            inspector: Inspector::default(),
            model_view: ModelView::default(),
            doctor: DoctorPanel::default(),
            list: MessageList::default(),
            replay: Replay::default(),
            menu: MenuState::default(),
            recent: RecentFiles::in_memory(),
            notice: None,
            dialog: None,
            wake: Arc::new(|| {}),
            quit: false,
            fonts_installed: false,
        }
    }

    /// The app showing a saved trace.
    pub fn from_trace(path: &Path) -> anyhow::Result<SightlineApp> {
        let store = TraceStore::open(path)?;
        Ok(SightlineApp::with_store(store))
    }

    /// The app showing events already in memory.
    pub fn from_events(title: impl Into<String>, events: Vec<Event>) -> SightlineApp {
        SightlineApp::with_store(TraceStore::new(title.into(), Source::Memory, events))
    }

    /// The app running a shipped scenario live. `wake` is called when the run makes progress.
    pub fn live(
        scenario: &str,
        options: RunOptions,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> SightlineApp {
        let mut app = SightlineApp::from_events("", Vec::new());
        app.wake = wake;
        app.apply(Command::Run {
            scenario: scenario.to_string(),
            options,
        });
        app
    }

    /// Keeps the recent-files list in `recent` (the app's data dir in normal use).
    pub fn with_recent(mut self, recent: RecentFiles) -> SightlineApp {
        if let Some(path) = self.store.source.path().filter(|_| self.live.is_none()) {
            let path = path.to_path_buf();
            self.recent = recent;
            self.recent.push(&path);
        } else {
            self.recent = recent;
        }
        self
    }

    pub fn store(&self) -> &TraceStore {
        &self.store
    }

    /// The selected event's index.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    pub fn language(&self) -> Language {
        self.lang
    }

    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    pub fn tab(&self) -> Tab {
        self.tab
    }

    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    pub fn recent(&self) -> &RecentFiles {
        &self.recent
    }

    /// The live run, while one is shown.
    pub fn live_run(&mut self) -> Option<&mut LiveRun> {
        self.live.as_mut()
    }

    /// The narration of the current replay step, in the current language.
    pub fn narration(&mut self) -> String {
        let tr = Tr {
            strings: &self.strings,
            lang: self.lang,
        };
        self.replay.narration(&self.store, tr).to_string()
    }

    /// Whether the user asked to quit (the window closes).
    pub fn wants_quit(&self) -> bool {
        self.quit
    }

    /// Applies a command as if a panel had returned it.
    pub fn apply(&mut self, command: Command) {
        super::actions::apply(self, command);
    }

    /// The message list and its filter.
    pub fn list_mut(&mut self) -> &mut MessageList {
        &mut self.list
    }

    pub fn set_tab(&mut self, tab: Tab) {
        self.tab = tab;
    }

    /// Takes in the events a live run recorded since the last frame.
    fn poll_live(&mut self, ctx: &egui::Context) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let new = live.poll();
        self.store.append(new);
        match live.status() {
            RunStatus::Running => ctx.request_repaint_after(std::time::Duration::from_millis(50)),
            status => {
                let last = live.poll();
                self.store.append(last);
                let path = live.trace_path.clone();
                let title = live.title.clone();
                self.live = None;
                super::actions::run_finished(self, &title, &path, status);
            }
        }
    }

    /// Takes in what the followed files gained since the last look.
    fn poll_following(&mut self, ctx: &egui::Context) {
        let Some(following) = self.following.as_mut() else {
            return;
        };
        let new = following.poll();
        let warnings = following.new_warnings();
        if !new.is_empty() {
            self.store.title = following.title();
        }
        self.store.append(new);
        self.store.warnings.extend(warnings);
        ctx.request_repaint_after(super::follow::POLL_EVERY);
    }

    /// The app following a trace file or session folder as other processes write it.
    pub fn follow(path: &Path, wake: Arc<dyn Fn() + Send + Sync>) -> SightlineApp {
        let mut app = SightlineApp::from_events("", Vec::new());
        app.wake = wake;
        app.apply(Command::Follow(path.to_path_buf()));
        app
    }

    /// Reads the followed files now (tests; the app polls every frame, at most every 200 ms).
    pub fn poll_following_now(&mut self) {
        if let Some(following) = self.following.as_mut() {
            let new = following.poll_now();
            self.store.append(new);
        }
    }

    /// Draws the whole app into `ui` and applies what the panels asked for.
    pub fn ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_installed {
            install_fonts(&ctx);
            self.fonts_installed = true;
        }
        self.poll_live(&ctx);
        self.poll_following(&ctx);
        if !self.store.findings.is_ready() {
            // The findings of a big trace are computed in the background: look again soon.
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        super::actions::poll_dialog(self);
        super::actions::take_dropped_files(self, &ctx);

        let tr = Tr {
            strings: &self.strings,
            lang: self.lang,
        };
        let mut commands: Vec<Command> = Vec::new();
        let store = &self.store;

        Panel::top("menu-bar").show(ui, |ui| {
            commands.extend(self.menu.bar_ui(
                ui,
                &self.recent,
                self.replay.active,
                !store.is_empty(),
                tr,
            ));
        });
        if self.replay.active {
            Panel::top("teaching").show(ui, |ui| {
                ui.label(RichText::new(tr.t("panel.narration")).strong());
                commands.extend(self.replay.ui(ui, store, tr));
            });
        }
        Panel::bottom("status-bar").show(ui, |ui| {
            super::status::status_ui(ui, store, self.live.as_ref(), self.notice.as_ref(), tr);
        });
        Panel::left("message-list")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                ui.label(RichText::new(tr.t("panel.messages")).strong());
                commands.extend(
                    self.list
                        .ui(ui, store, self.selected, self.replay.upto(), tr),
                );
            });
        Panel::right("side")
            .resizable(true)
            .default_size(380.0)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.tab, Tab::Inspector, tr.t("panel.inspector"));
                    ui.selectable_value(
                        &mut self.tab,
                        Tab::ModelView,
                        tr.t("panel.what_model_sees"),
                    );
                    let found = store.findings.marked_events();
                    let doctor = if !store.findings.is_ready() {
                        format!("{} (…)", tr.t("panel.doctor"))
                    } else if found == 0 {
                        tr.t("panel.doctor")
                    } else {
                        format!("{} ({found})", tr.t("panel.doctor"))
                    };
                    ui.selectable_value(&mut self.tab, Tab::Doctor, doctor);
                });
                ui.separator();
                let command = match self.tab {
                    Tab::Inspector => self.inspector.ui(ui, store, self.selected, tr),
                    Tab::ModelView => {
                        self.model_view
                            .ui(ui, store, self.selected, self.replay.upto(), tr)
                    }
                    Tab::Doctor => self.doctor.ui(ui, store, tr),
                };
                commands.extend(command);
            });
        CentralPanel::default().show(ui, |ui| {
            if store.is_empty() {
                ui.weak(tr.t(if self.live.is_some() || self.following.is_some() {
                    "diagram.empty"
                } else {
                    "app.no_trace"
                }));
            }
            let filtered = if self.list.limit_diagram {
                self.list.matches(store)
            } else {
                None
            };
            let upto = self.replay.upto().map(|u| u + 1);
            let rows = match (filtered, upto) {
                (Some(hits), Some(n)) => RowSet::Subset(&hits[..hits.partition_point(|&i| i < n)]),
                (Some(hits), None) => RowSet::Subset(hits),
                (None, Some(n)) => RowSet::All(n.min(store.diagram.rows.len())),
                (None, None) => RowSet::All(store.diagram.rows.len()),
            };
            commands.extend(self.diagram.ui(ui, store, rows, self.selected, tr));
        });
        commands.extend(self.menu.run_window_ui(&ctx, tr));

        for command in commands {
            self.apply(command);
        }
    }
}

/// egui's default proportional font lacks arrows (`→`, `⇄`) that the UI and traces use; the
/// bundled monospace font has them, so it becomes the proportional font's fallback.
fn install_fonts(ctx: &egui::Context) {
    let mut fonts = egui::FontDefinitions::default();
    if fonts.font_data.contains_key("Hack") {
        let family = fonts
            .families
            .entry(egui::FontFamily::Proportional)
            .or_default();
        if !family.iter().any(|f| f == "Hack") {
            family.push("Hack".to_string());
        }
    }
    ctx.set_fonts(fonts);
}

impl eframe::App for SightlineApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        SightlineApp::ui(self, ui);
        if self.quit {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}
