//! A collapsible, syntax-coloured JSON tree over `serde_json::Value`.
//!
//! Written here because the JSON tree crates do not support egui 0.37 yet. It stays responsive
//! on large bodies because it is lazy twice over: a collapsed node lays out nothing below it,
//! and an open node shows only its first [`PAGE`] children until asked for more. Big arrays
//! and objects start collapsed. Strings go through [`super::visible`], so hidden characters
//! show as escapes.

use std::collections::HashMap;

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Ui};
use serde_json::Value;

use super::visible;

/// Children shown per step of "show more".
pub const PAGE: usize = 50;
/// Containers with more children than this start collapsed.
const OPEN_LIMIT: usize = 12;
/// Containers deeper than this start collapsed.
const OPEN_DEPTH: usize = 3;

/// Syntax colours, for the light or the dark theme.
#[derive(Debug, Clone, Copy)]
pub struct JsonColors {
    pub key: Color32,
    pub string: Color32,
    pub number: Color32,
    pub literal: Color32,
    pub punct: Color32,
    pub warn: Color32,
}

impl JsonColors {
    pub fn for_ui(ui: &Ui) -> JsonColors {
        if ui.visuals().dark_mode {
            JsonColors {
                key: Color32::from_rgb(0x8c, 0xc4, 0xff),
                string: Color32::from_rgb(0xa5, 0xd6, 0x8a),
                number: Color32::from_rgb(0xf2, 0xb4, 0x6d),
                literal: Color32::from_rgb(0xd4, 0x9c, 0xf0),
                punct: Color32::GRAY,
                warn: Color32::from_rgb(0xff, 0x70, 0x60),
            }
        } else {
            JsonColors {
                key: Color32::from_rgb(0x0b, 0x4f, 0x9c),
                string: Color32::from_rgb(0x2b, 0x7a, 0x0b),
                number: Color32::from_rgb(0xa8, 0x50, 0x00),
                literal: Color32::from_rgb(0x80, 0x20, 0xa0),
                punct: Color32::DARK_GRAY,
                warn: Color32::from_rgb(0xc0, 0x10, 0x10),
            }
        }
    }
}

/// UI memory of the tree: how many children each open node shows. Keyed by JSON pointer.
#[derive(Debug, Default)]
pub struct JsonTree {
    shown: HashMap<String, usize>,
}

impl JsonTree {
    /// Forgets "show more" choices (a new body was selected).
    pub fn reset(&mut self) {
        self.shown.clear();
    }

    /// Draws `value`. `id_salt` keeps trees of different bodies apart; `more` labels the
    /// "show more" button given how many children are hidden.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        id_salt: &str,
        value: &Value,
        more: &dyn Fn(usize) -> String,
    ) {
        let colors = JsonColors::for_ui(ui);
        let font = FontId::monospace(12.5);
        let ctx = Ctx {
            colors,
            font,
            more,
            salt: id_salt,
        };
        match value {
            Value::Object(_) | Value::Array(_) => self.children(ui, &ctx, "", value, 0),
            scalar => {
                let mut job = LayoutJob::default();
                ctx.scalar(&mut job, scalar);
                ui.label(job);
            }
        }
    }

    fn children(&mut self, ui: &mut Ui, ctx: &Ctx<'_>, path: &str, value: &Value, depth: usize) {
        let limit = *self.shown.get(path).unwrap_or(&PAGE);
        let total = match value {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        let entries: Box<dyn Iterator<Item = (String, &Value)>> = match value {
            Value::Object(m) => Box::new(m.iter().map(|(k, v)| (k.clone(), v))),
            Value::Array(a) => Box::new(a.iter().enumerate().map(|(i, v)| (i.to_string(), v))),
            _ => Box::new(std::iter::empty()),
        };
        let is_array = value.is_array();
        for (key, child) in entries.take(limit) {
            let child_path = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
            self.entry(ui, ctx, &child_path, &key, is_array, child, depth);
        }
        if total > limit {
            let hidden = total - limit;
            if ui.small_button((ctx.more)(hidden)).clicked() {
                self.shown.insert(path.to_string(), limit + PAGE);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn entry(
        &mut self,
        ui: &mut Ui,
        ctx: &Ctx<'_>,
        path: &str,
        key: &str,
        in_array: bool,
        value: &Value,
        depth: usize,
    ) {
        let mut head = LayoutJob::default();
        ctx.key(&mut head, key, in_array);
        match value {
            Value::Object(m) if !m.is_empty() => {
                ctx.punct(&mut head, &format!("{{…}} {}", m.len()));
            }
            Value::Array(a) if !a.is_empty() => {
                ctx.punct(&mut head, &format!("[…] {}", a.len()));
            }
            scalar => {
                ctx.scalar(&mut head, scalar);
                ui.label(head);
                return;
            }
        }
        let len = match value {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        egui::CollapsingHeader::new(head)
            .id_salt((ctx.salt, path))
            .default_open(depth < OPEN_DEPTH && len <= OPEN_LIMIT)
            .show(ui, |ui| self.children(ui, ctx, path, value, depth + 1));
    }
}

struct Ctx<'a> {
    colors: JsonColors,
    font: FontId,
    more: &'a dyn Fn(usize) -> String,
    salt: &'a str,
}

impl Ctx<'_> {
    fn fmt(&self, color: Color32) -> TextFormat {
        TextFormat::simple(self.font.clone(), color)
    }

    fn key(&self, job: &mut LayoutJob, key: &str, in_array: bool) {
        if in_array {
            job.append(key, 0.0, self.fmt(self.colors.punct));
        } else {
            job.append("\"", 0.0, self.fmt(self.colors.key));
            visible::append(
                job,
                key,
                self.font.clone(),
                self.colors.key,
                self.colors.warn,
                false,
            );
            job.append("\"", 0.0, self.fmt(self.colors.key));
        }
        job.append(": ", 0.0, self.fmt(self.colors.punct));
    }

    fn punct(&self, job: &mut LayoutJob, text: &str) {
        job.append(text, 0.0, self.fmt(self.colors.punct));
    }

    fn scalar(&self, job: &mut LayoutJob, value: &Value) {
        match value {
            Value::String(s) => {
                job.append("\"", 0.0, self.fmt(self.colors.string));
                visible::append(
                    job,
                    s,
                    self.font.clone(),
                    self.colors.string,
                    self.colors.warn,
                    false,
                );
                job.append("\"", 0.0, self.fmt(self.colors.string));
            }
            Value::Number(n) => job.append(&n.to_string(), 0.0, self.fmt(self.colors.number)),
            Value::Bool(b) => job.append(&b.to_string(), 0.0, self.fmt(self.colors.literal)),
            Value::Null => job.append("null", 0.0, self.fmt(self.colors.literal)),
            Value::Object(m) if m.is_empty() => self.punct(job, "{}"),
            Value::Array(a) if a.is_empty() => self.punct(job, "[]"),
            _ => self.punct(job, "…"),
        }
    }
}
