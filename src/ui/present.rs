//! Presentation mode (View > Present, `F5`): the diagram and its narration for a projector.
//!
//! A room reads a screen from metres away, often washed out by daylight, so the mode changes
//! the whole interface rather than the diagram alone: a global scale (egui's zoom factor, so
//! every text, arrow and margin grows together), a light theme with black text on white,
//! every panel but the diagram hidden, and the narration of the current step in large type
//! under it. It steps like teaching mode (which it turns on): Space, → and ↓ go on, ← ↑ and
//! Backspace go back, Home and End jump; Esc (or `F5` again) leaves and puts back the scale,
//! the theme and the teaching mode that were there before.

use egui::{Color32, Key, Modifiers, RichText, Stroke, Ui, Visuals};

use crate::i18n::Words;

/// The scale a projector gets unless the settings say otherwise.
pub const DEFAULT_SCALE: f32 = 1.6;

/// The scales `+` and `-` step through while presenting (the last one is remembered in the
/// settings): a small room, a hall.
pub const SCALES: [f32; 7] = [1.0, 1.25, 1.6, 2.0, 2.5, 3.0, 4.0];

/// The scale after `scale`, one step `up` or down [`SCALES`], staying inside it.
pub fn step_scale(scale: f32, up: bool) -> f32 {
    let next = if up {
        SCALES.iter().find(|s| **s > scale + 0.01)
    } else {
        SCALES.iter().rev().find(|s| **s < scale - 0.01)
    };
    next.copied().unwrap_or(scale)
}

/// What presentation mode changed, to put it back on leaving.
#[derive(Debug, Clone)]
struct Saved {
    zoom: f32,
    theme: egui::ThemePreference,
    light: std::sync::Arc<egui::Style>,
}

/// The state of presentation mode.
#[derive(Debug)]
pub struct Presentation {
    /// The mode is on (the next frame applies or undoes the look).
    pub active: bool,
    /// The global scale while presenting (egui's zoom factor).
    pub scale: f32,
    /// Whether teaching mode was on before presenting (put back on leaving).
    pub was_teaching: bool,
    /// Whether the scale shrinks (down to 1, never below the app's own size) until the whole
    /// diagram fits the screen: on until the presenter sizes it with `+` or `-`.
    pub fit: bool,
    saved: Option<Saved>,
}

impl Default for Presentation {
    fn default() -> Self {
        Presentation {
            active: false,
            scale: DEFAULT_SCALE,
            was_teaching: false,
            fit: true,
            saved: None,
        }
    }
}

/// A key press presentation mode understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    Next,
    Previous,
    First,
    Last,
    Leave,
    /// `+` (or `=`): everything larger.
    Larger,
    /// `-`: everything smaller.
    Smaller,
}

impl Presentation {
    /// Applies the projector look when the mode has just been turned on, and puts the old
    /// one back when it has just been turned off; then it returns whether teaching mode was
    /// on before presenting.
    pub fn sync(&mut self, ctx: &egui::Context) -> Option<bool> {
        match (&self.saved, self.active) {
            (None, true) => {
                self.saved = Some(Saved {
                    zoom: ctx.zoom_factor(),
                    theme: ctx.options(|o| o.theme_preference),
                    light: ctx.style_of(egui::Theme::Light),
                });
                ctx.set_visuals_of(egui::Theme::Light, projector_visuals());
                ctx.set_theme(egui::ThemePreference::Light);
                ctx.set_zoom_factor(self.scale);
                self.fit = true;
                None
            }
            (Some(_), false) => {
                let saved = self.saved.take()?;
                ctx.set_style_of(egui::Theme::Light, saved.light);
                ctx.set_theme(saved.theme);
                ctx.set_zoom_factor(saved.zoom);
                Some(self.was_teaching)
            }
            _ => None,
        }
    }

    /// The keys pressed this frame that presentation mode acts on (consumed, so the diagram
    /// does not also move its selection).
    pub fn keys(ui: &Ui) -> Vec<Press> {
        let mut keys = Vec::new();
        ui.input_mut(|i| {
            let none = Modifiers::NONE;
            for (key, what) in [
                (Key::Space, Press::Next),
                (Key::ArrowRight, Press::Next),
                (Key::ArrowDown, Press::Next),
                (Key::PageDown, Press::Next),
                (Key::ArrowLeft, Press::Previous),
                (Key::ArrowUp, Press::Previous),
                (Key::PageUp, Press::Previous),
                (Key::Backspace, Press::Previous),
                (Key::Home, Press::First),
                (Key::End, Press::Last),
                (Key::Escape, Press::Leave),
                (Key::Plus, Press::Larger),
                (Key::Equals, Press::Larger),
                (Key::Minus, Press::Smaller),
            ] {
                while i.consume_key(none, key) {
                    keys.push(what);
                }
            }
        });
        keys
    }

    /// The narration of the current step, large, with the step number and the keys.
    pub fn narration_ui(ui: &mut Ui, text: &str, index: usize, count: usize, tr: Words<'_>) {
        egui::Frame::new()
            .fill(Color32::WHITE)
            .stroke(Stroke::new(2.0, Color32::BLACK))
            .inner_margin(14.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(tr.fmt(
                            "present.step",
                            &[
                                ("index", &(index + 1).to_string()),
                                ("count", &count.to_string()),
                            ],
                        ))
                        .strong()
                        .size(15.0),
                    );
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(RichText::new(tr.get("present.hint")).size(13.0));
                    });
                });
                ui.label(RichText::new(text).size(24.0).color(Color32::BLACK));
            });
    }
}

/// Black on white, with strong outlines: what stays legible on a washed-out projector.
pub fn projector_visuals() -> Visuals {
    let mut v = Visuals::light();
    v.override_text_color = Some(Color32::BLACK);
    v.panel_fill = Color32::WHITE;
    v.window_fill = Color32::WHITE;
    v.extreme_bg_color = Color32::WHITE;
    v.faint_bg_color = Color32::from_gray(0xee);
    v.window_stroke = Stroke::new(1.5, Color32::BLACK);
    v.widgets.noninteractive.fg_stroke = Stroke::new(1.5, Color32::BLACK);
    v.widgets.noninteractive.bg_stroke = Stroke::new(1.0, Color32::from_gray(0x40));
    v.widgets.inactive.fg_stroke = Stroke::new(1.5, Color32::BLACK);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_projector_look_is_recognised_and_the_ordinary_one_is_not() {
        use crate::ui::theme::is_projector;
        assert!(is_projector(&projector_visuals()));
        assert!(!is_projector(&Visuals::light()));
        assert!(!is_projector(&Visuals::dark()));
    }
}
