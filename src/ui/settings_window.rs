//! View > Settings…: the window where the user changes what [`super::settings::Settings`]
//! keeps, for now the interface's global scale (egui's zoom factor: type, panels and diagram
//! alike, for a room's screen or a teacher's eyes). Presentation mode has a scale of its own
//! and puts this one back when it ends.

use egui::Ui;

use super::command::Command;
use crate::i18n::Words;

/// The interface scales the window offers.
pub const UI_SCALES: [f32; 8] = [0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0];

/// The scale the interface has unless the settings say otherwise.
pub const DEFAULT_UI_SCALE: f32 = 1.0;

/// Whether `scale` is one the window offers (a hand-edited settings file may hold others).
pub fn is_ui_scale(scale: f32) -> bool {
    UI_SCALES.iter().any(|s| (s - scale).abs() < 0.001)
}

/// A scale as the window labels it: `125%`.
pub fn percent(scale: f32) -> String {
    format!("{:.0}%", scale * 100.0)
}

/// The interface's scale, and whether the window is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsWindow {
    pub open: bool,
    /// The chosen global scale (one of [`UI_SCALES`]).
    pub ui_scale: f32,
    /// The scale last given to egui; `None` until the first frame, or after a change.
    applied: Option<f32>,
}

impl Default for SettingsWindow {
    fn default() -> Self {
        SettingsWindow {
            open: false,
            ui_scale: DEFAULT_UI_SCALE,
            applied: None,
        }
    }
}

impl SettingsWindow {
    /// A new scale, given to egui on the next frame.
    pub fn set_scale(&mut self, scale: f32) {
        self.ui_scale = scale;
        self.applied = None;
    }

    /// Gives egui the chosen scale when it has not had it yet (the first frame, a change):
    /// egui's own zoom keys still work in between, as they do in any egui app.
    pub fn apply_scale(&mut self, ctx: &egui::Context) {
        if self.applied != Some(self.ui_scale) {
            ctx.set_zoom_factor(self.ui_scale);
            self.applied = Some(self.ui_scale);
        }
    }

    /// The window, when open; a command when a setting changes.
    pub fn window_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) -> Option<Command> {
        if !self.open {
            return None;
        }
        let mut open = true;
        let mut command = None;
        egui::Window::new(tr.get("settings.title"))
            .open(&mut open)
            .resizable(false)
            .show(ctx, |ui| command = self.scale_ui(ui, tr));
        self.open = open;
        command
    }

    fn scale_ui(&self, ui: &mut Ui, tr: Words<'_>) -> Option<Command> {
        let mut command = None;
        ui.label(egui::RichText::new(tr.get("settings.ui_scale")).strong());
        ui.horizontal_wrapped(|ui| {
            for scale in UI_SCALES {
                let chosen = (scale - self.ui_scale).abs() < 0.001;
                if ui.selectable_label(chosen, percent(scale)).clicked() {
                    command = Some(Command::SetUiScale(scale));
                }
            }
        });
        ui.weak(tr.get("settings.ui_scale_hint"));
        command
    }
}
