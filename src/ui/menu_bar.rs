//! The menu bar: the platform's File menu (the desktop's; the browser has none), View
//! (teaching mode, presentation mode, on the desktop the comparison of two revisions, and the
//! settings window) and
//! Language (English, Portuguese, Spanish, switched at run time, also one click away at the
//! right of the bar).

use egui::Ui;

use super::command::Command;
use super::platform::Platform;
use crate::i18n::Language;
use crate::i18n::Words;

/// The bar. `has_trace` enables the exports.
pub(super) fn bar_ui(
    ui: &mut Ui,
    platform: &mut Platform,
    teaching: bool,
    has_trace: bool,
    tr: Words<'_>,
) -> Option<Command> {
    let mut command = None;
    egui::MenuBar::new().ui(ui, |ui| {
        if let Some(c) = platform.file_menu_ui(ui, has_trace, tr) {
            command = Some(c.into());
        }
        ui.menu_button(tr.get("menu.view"), |ui| {
            let mut on = teaching;
            if ui.checkbox(&mut on, tr.get("menu.teaching_mode")).changed() {
                command = Some(Command::SetTeaching(on));
            }
            if ui
                .add_enabled(
                    has_trace,
                    egui::Button::new(tr.get("present.menu")).shortcut_text("F5"),
                )
                .clicked()
            {
                command = Some(Command::SetPresenting(true));
            }
            if let Some(c) = platform.view_menu_ui(ui, tr) {
                command = Some(c.into());
            }
            ui.separator();
            if ui.button(tr.get("menu.settings")).clicked() {
                command = Some(Command::OpenSettings);
            }
        });
        ui.menu_button(tr.get("menu.language"), |ui| {
            for lang in Language::ALL {
                let selected = lang == tr.lang;
                if ui.selectable_label(selected, lang.name()).clicked() {
                    command = Some(Command::SetLanguage(lang));
                }
            }
        });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            for lang in Language::ALL.into_iter().rev() {
                if ui
                    .selectable_label(lang == tr.lang, lang.code().to_uppercase())
                    .on_hover_text(lang.name())
                    .clicked()
                {
                    command = Some(Command::SetLanguage(lang));
                }
            }
        });
    });
    command
}
