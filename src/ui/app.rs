//! The app: one trace store, the panels' UI state, and the commands that change them.
//!
//! Each frame: take in what arrived since the last frame (a live run, followed files, a served
//! stream: [`super::platform`]'s business; the analysis is redone only then), draw the panels
//! (they read the store and return [`Command`]s), then apply the commands. Layout: the menu bar
//! at the top, teaching mode's controls and narration under it, the message list at the left,
//! the inspector / what-the-model-sees / doctor / statistics tabs at the right, the sequence diagram in the
//! middle and a status bar at the bottom. The same app runs on the desktop and in the browser;
//! where they differ is [`super::platform::Platform`].

use egui::{CentralPanel, Panel, RichText, Ui};

use super::command::Command;
use super::compare::CompareView;
use super::diagram::{DiagramView, RowSet};
use super::doctor_panel::DoctorPanel;
use super::inspector::Inspector;
use super::list::MessageList;
use super::model_view::ModelView;
use super::platform::Platform;
use super::present::{Presentation, Press, step_scale};
use super::replay::Replay;
use super::settings_window::SettingsWindow;
use super::stats_panel::StatsPanel;
use super::status::Notice;
use super::store::{Source, TraceStore};
use crate::i18n::Words;
use crate::i18n::{Language, Strings};
use crate::trace::Event;

/// The tabs of the right-hand panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Tab {
    Inspector,
    ModelView,
    Doctor,
    Stats,
}

/// The Sightline app.
pub struct SightlineApp {
    pub(super) store: TraceStore,
    pub(super) selected: Option<usize>,
    pub(super) strings: Strings,
    pub(super) lang: Language,
    pub(super) tab: Tab,
    pub(super) diagram: DiagramView,
    pub(super) inspector: Inspector,
    pub(super) model_view: ModelView,
    pub(super) doctor: DoctorPanel,
    pub(super) stats: StatsPanel,
    pub(super) list: MessageList,
    pub(super) replay: Replay,
    pub(super) notice: Option<Notice>,
    /// Presentation mode (View > Present, F5).
    pub(super) present: Presentation,
    /// View > Settings…, and the interface's scale it sets.
    pub(super) settings_window: SettingsWindow,
    /// Two traces side by side, while shown (`sightline open A B`, View > Compare).
    pub(super) compare: Option<CompareView>,
    /// What only the desktop (live runs, files, dialogs) or only the browser (a served stream)
    /// does.
    pub(super) platform: Platform,
    /// Whether [`Self::install_fonts`] has given the context the app's fonts.
    fonts_installed: bool,
}

impl SightlineApp {
    pub(super) fn with_store(store: TraceStore) -> SightlineApp {
        SightlineApp {
            store,
            selected: None,
            // The texts the analyses say their findings with (`Said`), parsed once for the
            // process: parsing them again for the findings took the browser 30 ms of a frame.
            strings: crate::i18n::shared().clone(),
            lang: Language::En,
            tab: Tab::Inspector,
            diagram: DiagramView::default(),
            inspector: Inspector::default(),
            model_view: ModelView::default(),
            doctor: DoctorPanel::default(),
            stats: StatsPanel::default(),
            list: MessageList::default(),
            replay: Replay::default(),
            notice: None,
            present: Presentation::default(),
            settings_window: SettingsWindow::default(),
            compare: None,
            platform: Platform::default(),
            fonts_installed: false,
        }
    }

    /// The app showing events already in memory.
    pub fn from_events(title: impl Into<String>, events: Vec<Event>) -> SightlineApp {
        SightlineApp::with_store(TraceStore::new(title.into(), Source::Memory, events))
    }

    pub fn store(&self) -> &TraceStore {
        &self.store
    }

    /// The selected event's index.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// The diagram's labels and lane titles drawn in the last frame, and where its rows were
    /// visible: what a check that no label is cut or overlaps another reads.
    pub fn drawn_labels(&self) -> (&[super::diagram::DrawnLabel], egui::Rect) {
        (self.diagram.drawn(), self.diagram.clip())
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

    /// The narration of the current replay step, in the current language.
    pub fn narration(&mut self) -> String {
        let tr = Words {
            strings: &self.strings,
            lang: self.lang,
        };
        self.replay.narration(&self.store, tr).to_string()
    }

    /// Applies a command as if a panel had returned it.
    pub fn apply(&mut self, command: Command) {
        super::view_actions::apply(self, command);
    }

    /// The message list and its filter.
    pub fn list_mut(&mut self) -> &mut MessageList {
        &mut self.list
    }

    pub fn set_tab(&mut self, tab: Tab) {
        self.tab = tab;
    }

    /// Whether presentation mode is on.
    pub fn presenting(&self) -> bool {
        self.present.active
    }

    /// The scale presentation mode gives the whole interface.
    pub fn presentation_scale(&self) -> f32 {
        self.present.scale
    }

    /// The global scale of the interface outside presentation mode (View > Settings…).
    pub fn ui_scale(&self) -> f32 {
        self.settings_window.ui_scale
    }

    /// The compare view, while shown.
    pub fn compare(&self) -> Option<&CompareView> {
        self.compare.as_ref()
    }

    pub fn compare_mut(&mut self) -> Option<&mut CompareView> {
        self.compare.as_mut()
    }

    /// Shows two traces side by side (the first stays the app's trace when the view closes).
    pub fn show_compare(&mut self, view: CompareView) {
        self.compare = Some(view);
    }

    /// Gives `ctx` the app's fonts. Called where the context is made (eframe's creation
    /// closure, native and web), before the first pass: fonts set during a pass replace the
    /// defaults egui has just loaded for it, so the first frame would load fonts twice.
    pub fn install_fonts(&mut self, ctx: &egui::Context) {
        install_fonts(ctx);
        self.fonts_installed = true;
    }

    /// Draws the whole app into `ui` and applies what the panels asked for.
    pub fn ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_installed {
            // A context made without [`Self::install_fonts`] (a test harness).
            self.install_fonts(&ctx);
        }
        super::platform::poll(self, &ctx);
        self.panels(ui);
        // The browser's own work (reading the trace, the findings) with what the panels left
        // of the frame.
        super::platform::after_panels(self, &ctx);
    }

    /// Works on the findings for the platform's share of this frame ([`Platform::work`]), if
    /// they are not ready.
    pub(super) fn step_findings(&mut self, ctx: &egui::Context) {
        if !self.store.findings.is_ready() {
            // The findings of a big trace are computed in the background: look again soon. With
            // no threads (the browser), each frame after the first works on them a few ms.
            let findings = &self.store.findings;
            if ctx.cumulative_pass_nr() > 0 && self.platform.work(|left| findings.step(left)) {
                ctx.request_repaint();
            } else {
                ctx.request_repaint_after(std::time::Duration::from_millis(100));
            }
        }
    }

    /// The menus, panels and windows of one frame, and what they asked for.
    fn panels(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        // F5 turns presentation mode on and off from anywhere.
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F5)) {
            self.apply(Command::SetPresenting(!self.present.active));
        }
        if let Some(teaching) = self.present.sync(&ctx) {
            self.apply(Command::SetTeaching(teaching));
        }
        self.store.set_lang(self.lang);
        if self.present.active {
            return self.present_ui(ui);
        }
        self.settings_window.apply_scale(&ctx);

        let tr = Words {
            strings: &self.strings,
            lang: self.lang,
        };
        let mut commands: Vec<Command> = Vec::new();
        let store = &self.store;

        Panel::top("menu-bar").show(ui, |ui| {
            commands.extend(super::menu_bar::bar_ui(
                ui,
                &mut self.platform,
                self.replay.active,
                !store.is_empty() && self.compare.is_none(),
                tr,
            ));
        });
        if self.replay.active {
            Panel::top("teaching").show(ui, |ui| {
                ui.label(RichText::new(tr.get("panel.narration")).strong());
                commands.extend(self.replay.ui(ui, store, tr));
            });
        }
        Panel::bottom("status-bar").show(ui, |ui| {
            super::status::status_ui(ui, store, &self.platform, self.notice.as_ref(), tr);
        });
        if let Some(compare) = self.compare.as_mut() {
            CentralPanel::default().show(ui, |ui| {
                if compare.ui(ui, tr).is_some() {
                    commands.push(Command::CloseCompare);
                }
            });
            commands.extend(self.platform.windows_ui(&ctx, tr));
            commands.extend(self.settings_window.window_ui(&ctx, tr));
            for command in commands {
                self.apply(command);
            }
            return;
        }
        Panel::left("message-list")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                ui.label(RichText::new(tr.get("panel.messages")).strong());
                commands.extend(
                    self.list
                        .ui(ui, store, self.selected, self.replay.upto(), tr),
                );
            });
        Panel::right("side")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                // The tabs wrap rather than widen the panel past its size.
                ui.horizontal_wrapped(|ui| {
                    ui.selectable_value(&mut self.tab, Tab::Inspector, tr.get("panel.inspector"));
                    ui.selectable_value(
                        &mut self.tab,
                        Tab::ModelView,
                        tr.get("panel.what_model_sees"),
                    );
                    let found = store.findings.marked_events();
                    let doctor = if !store.findings.is_ready() {
                        format!("{} (…)", tr.get("panel.doctor"))
                    } else if found == 0 {
                        tr.get("panel.doctor").to_string()
                    } else {
                        format!("{} ({found})", tr.get("panel.doctor"))
                    };
                    ui.selectable_value(&mut self.tab, Tab::Doctor, doctor);
                    ui.selectable_value(&mut self.tab, Tab::Stats, tr.get("panel.stats"));
                });
                ui.separator();
                let command = match self.tab {
                    Tab::Inspector => self.inspector.ui(ui, store, self.selected, tr),
                    Tab::ModelView => {
                        let bpe = self.platform.tokenizer();
                        let upto = self.replay.upto();
                        self.model_view.ui(ui, store, bpe, self.selected, upto, tr)
                    }
                    Tab::Doctor => self.doctor.ui(ui, store, tr),
                    Tab::Stats => {
                        let bpe = self.platform.tokenizer();
                        self.stats.ui(ui, store, bpe, tr)
                    }
                };
                commands.extend(command);
            });
        CentralPanel::default().show(ui, |ui| {
            if store.is_empty() {
                ui.weak(tr.get(if self.platform.is_waiting() {
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
        commands.extend(self.platform.windows_ui(&ctx, tr));
        commands.extend(self.settings_window.window_ui(&ctx, tr));

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

impl SightlineApp {
    /// The frame in presentation mode: the diagram up to the current step, the narration
    /// large under it, nothing else.
    pub(super) fn present_ui(&mut self, ui: &mut Ui) {
        let mut commands: Vec<Command> = Vec::new();
        for press in Presentation::keys(ui) {
            let last = self.store.len().saturating_sub(1) as isize;
            let cursor = self.replay.cursor as isize;
            let command = match press {
                Press::Next => self.replay.step(&self.store, 1),
                Press::Previous => self.replay.step(&self.store, -1),
                Press::First => self.replay.step(&self.store, -cursor),
                Press::Last => self.replay.step(&self.store, last - cursor),
                Press::Leave => Some(Command::SetPresenting(false)),
                Press::Larger | Press::Smaller => {
                    self.present.fit = false;
                    self.present.scale = step_scale(self.present.scale, press == Press::Larger);
                    ui.ctx().set_zoom_factor(self.present.scale);
                    None
                }
            };
            commands.extend(command);
        }
        let tr = Words {
            strings: &self.strings,
            lang: self.lang,
        };
        let text = self.replay.narration(&self.store, tr).to_string();
        let (index, count) = (self.replay.cursor, self.store.len());
        egui::Panel::bottom("present-narration").show(ui, |ui| {
            Presentation::narration_ui(ui, &text, index, count, tr);
        });
        let store = &self.store;
        egui::CentralPanel::default().show(ui, |ui| {
            let shown = (self.replay.cursor + 1).min(store.diagram.rows.len());
            let rows = RowSet::All(shown);
            commands.extend(self.diagram.ui(ui, store, rows, self.selected, tr));
        });
        if self.present.fit {
            self.fit_scale(ui.ctx());
        }
        for command in commands {
            self.apply(command);
        }
    }
}

impl SightlineApp {
    /// Shrinks the projector's scale until the diagram, as wide as its labels need, fits the
    /// screen whole (a 1280 px projector cuts the server lane off at 1.6): never below 1, so
    /// no text gets smaller than the app's own, and never above the scale chosen. Widths are
    /// in points, which the scale does not change, so one step settles it.
    fn fit_scale(&self, ctx: &egui::Context) {
        let (needed, shown) = self.diagram.widths();
        if needed <= 0.0 || shown <= 0.0 {
            return;
        }
        let zoom = ctx.zoom_factor();
        let fits = (zoom * shown / needed).clamp(1.0, self.present.scale.max(1.0));
        if (fits - zoom).abs() > 0.01 {
            ctx.set_zoom_factor(fits);
            ctx.request_repaint();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SightlineApp;

    /// Whether the proportional family falls back on the bundled monospace font (its arrows).
    fn has_arrows(ctx: &egui::Context) -> bool {
        ctx.fonts(|f| {
            f.definitions()
                .families
                .get(&egui::FontFamily::Proportional)
                .is_some_and(|family| family.iter().any(|name| name == "Hack"))
        })
    }

    #[test]
    fn fonts_installed_where_the_context_is_made_are_those_of_the_first_pass() {
        let ctx = egui::Context::default();
        let mut app = SightlineApp::from_events("t", Vec::new());
        app.install_fonts(&ctx);
        let mut first = None;
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            // Before the app draws anything: the fonts egui loaded for this pass.
            first = Some(has_arrows(ui.ctx()));
            app.ui(ui);
        });
        out.textures_delta.clear();
        assert_eq!(first, Some(true));

        // Without it, the first pass starts with egui's defaults and the app replaces them.
        let ctx = egui::Context::default();
        let mut app = SightlineApp::from_events("t", Vec::new());
        let mut first = None;
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            first = Some(has_arrows(ui.ctx()));
            app.ui(ui);
        });
        out.textures_delta.clear();
        assert_eq!(first, Some(false));
        assert!(has_arrows(&ctx));
    }
}
