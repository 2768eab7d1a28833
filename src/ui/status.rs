//! The status bar: where the events come from, how many there are, what the platform is doing
//! (a live run on the desktop), and the last notice (load warnings, export results, errors).

use egui::{RichText, Ui};

use super::platform::Platform;
use super::store::{Source, TraceStore};
use crate::i18n::Words;

/// A message for the status bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub is_error: bool,
}

pub fn status_ui(
    ui: &mut Ui,
    store: &TraceStore,
    platform: &Platform,
    notice: Option<&Notice>,
    tr: Words<'_>,
) {
    ui.horizontal_wrapped(|ui| {
        if !store.title.is_empty() {
            ui.label(RichText::new(&store.title).strong());
        }
        match &store.source {
            Source::File(p) | Source::Live { path: p, .. } => {
                ui.monospace(p.display().to_string());
            }
            Source::Follow(p) => {
                ui.spinner();
                ui.label(tr.fmt("app.following", &[("path", &p.display().to_string())]));
            }
            Source::Memory => {}
        }
        ui.label(tr.fmt("app.events", &[("count", &store.len().to_string())]));
        platform.status_ui(ui, tr);
        if !store.warnings.is_empty() {
            let text = tr.fmt(
                "app.load_warnings",
                &[
                    ("count", &store.warnings.len().to_string()),
                    (
                        "path",
                        &store
                            .source
                            .path()
                            .map_or_else(|| store.title.clone(), |p| p.display().to_string()),
                    ),
                ],
            );
            let first = crate::analysis::trace_error::FIRST_OF_A_KIND;
            let list: Vec<String> =
                crate::analysis::trace_error::warnings_once(&store.warnings, first)
                    .iter()
                    .take(20)
                    .map(|said| said.say(tr))
                    .collect();
            ui.colored_label(ui.visuals().warn_fg_color, text)
                .on_hover_text(list.join("\n"));
        }
        if let Some(n) = notice.filter(|n| !n.text.is_empty()) {
            let color = if n.is_error {
                ui.visuals().error_fg_color
            } else {
                ui.visuals().text_color()
            };
            ui.separator();
            ui.colored_label(color, &n.text);
        }
    });
}
