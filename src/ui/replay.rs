//! Replay and teaching mode: step through a trace one event at a time, with narration.
//!
//! The cursor is an event index; the diagram and the list reveal events up to it. Play
//! advances the cursor at the chosen speed; the scrubber jumps anywhere. The narration of the
//! current step ([`crate::analysis::narration::narrate`]) is computed once per step and language.

use egui::{RichText, Slider, Ui};

use super::command::Command;
use super::store::TraceStore;
use crate::i18n::Language;
use crate::i18n::Words;

/// Playback speeds offered, in steps per second.
pub const SPEEDS: [f32; 5] = [0.5, 1.0, 2.0, 4.0, 10.0];

/// State of the replay.
#[derive(Debug)]
pub struct Replay {
    /// Teaching mode is on: rows after the cursor are hidden.
    pub active: bool,
    /// The last event revealed.
    pub cursor: usize,
    pub playing: bool,
    /// Steps per second while playing.
    pub speed: f32,
    /// When the last automatic step happened (egui time, seconds).
    last_step: f64,
    /// The narration shown: (cursor, language, store generation, text).
    narration: Option<(usize, Language, u64, String)>,
}

impl Default for Replay {
    fn default() -> Self {
        Replay {
            active: false,
            cursor: 0,
            playing: false,
            speed: 1.0,
            last_step: 0.0,
            narration: None,
        }
    }
}

impl Replay {
    /// The last event to show, when teaching mode hides the rest.
    pub fn upto(&self) -> Option<usize> {
        self.active.then_some(self.cursor)
    }

    /// The narration of the current step, computed when the step, language or data change.
    pub fn narration(&mut self, store: &TraceStore, tr: Words<'_>) -> &str {
        let key = (self.cursor, tr.lang, store.generation);
        let stale = self
            .narration
            .as_ref()
            .is_none_or(|(c, l, g, _)| (*c, *l, *g) != key);
        if stale {
            let text = if store.is_empty() {
                String::new()
            } else {
                let cursor = self.cursor.min(store.len() - 1);
                crate::analysis::narration::narrate(
                    &store.events,
                    &store.report,
                    cursor,
                    tr.strings,
                    tr.lang,
                )
            };
            self.narration = Some((key.0, key.1, key.2, text));
        }
        self.narration.as_ref().map_or("", |n| n.3.as_str())
    }

    /// Moves the cursor by `delta` steps, within the trace.
    pub fn step(&mut self, store: &TraceStore, delta: isize) -> Option<Command> {
        if store.is_empty() {
            return None;
        }
        let last = store.len() - 1;
        let next = self.cursor.saturating_add_signed(delta).min(last);
        if next == self.cursor && delta != 0 {
            self.playing = false;
            return None;
        }
        self.cursor = next;
        Some(Command::Select(next))
    }

    /// The controls and the narration.
    pub fn ui(&mut self, ui: &mut Ui, store: &TraceStore, tr: Words<'_>) -> Option<Command> {
        let mut command = None;
        let last = store.len().saturating_sub(1);
        self.cursor = self.cursor.min(last);
        ui.horizontal_wrapped(|ui| {
            if ui.button(tr.get("replay.first")).clicked() {
                command = self.step(store, -(self.cursor as isize));
            }
            if ui.button(tr.get("replay.previous")).clicked() {
                command = self.step(store, -1);
            }
            let play = if self.playing {
                tr.get("replay.pause")
            } else {
                tr.get("replay.play")
            };
            if ui.button(play).clicked() {
                self.playing = !self.playing;
                self.last_step = ui.input(|i| i.time);
            }
            if ui.button(tr.get("replay.next")).clicked() {
                command = self.step(store, 1);
            }
            if ui.button(tr.get("replay.last")).clicked() {
                command = self.step(store, (last - self.cursor) as isize);
            }
            ui.label(tr.get("replay.speed"));
            let speed = |s: f32| tr.fmt("replay.speed_value", &[("speed", &s.to_string())]);
            egui::ComboBox::from_id_salt("replay-speed")
                .selected_text(speed(self.speed))
                .width(60.0)
                .show_ui(ui, |ui| {
                    for s in SPEEDS {
                        ui.selectable_value(&mut self.speed, s, speed(s));
                    }
                });
            let mut cursor = self.cursor;
            let slider = Slider::new(&mut cursor, 0..=last).show_value(false);
            if ui.add(slider).changed() {
                self.cursor = cursor;
                command = Some(Command::Select(cursor));
            }
            ui.label(tr.fmt(
                "replay.position",
                &[
                    ("index", &(self.cursor + 1).to_string()),
                    ("count", &store.len().to_string()),
                ],
            ));
        });
        if self.playing {
            let now = ui.input(|i| i.time);
            let period = 1.0 / f64::from(self.speed.max(0.1));
            if now - self.last_step >= period {
                self.last_step = now;
                command = self.step(store, 1).or(command);
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(period / 2.0));
        }
        let text = self.narration(store, tr).to_string();
        egui::Frame::group(ui.style())
            .fill(ui.visuals().faint_bg_color)
            .inner_margin(10.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(RichText::new(text).size(17.0));
            });
        command
    }
}
