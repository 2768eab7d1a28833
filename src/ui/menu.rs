//! The desktop's File menu and the "run a scenario" window.
//!
//! File: open (native dialog, or drop a `.jsonl` on the window), open recent, import another
//! tool's recording (Claude Desktop log, MCP Inspector history, HAR), run a shipped
//! scenario (any protocol revision it supports, the scripted model or a real provider when its
//! key is set), export the diagram, the whole viewer as one HTML file or OpenTelemetry spans
//! (to a file or an endpoint), quit. The rest of the
//! bar (View, Language) is `menu_bar`'s, the same in the browser.

use egui::{ComboBox, Ui};

use super::command::ExportFormat;
use super::desktop::Command;
use super::recent::RecentFiles;
use crate::host::agent::RunOptions;
use crate::host::scenario::Protocol;
use crate::host::scenario::shipped::{DEFAULT, SHIPPED, Shipped};
use crate::i18n::Words;
use crate::trace::import::Format as ImportFormat;
use crate::wire::api::ApiShape;

/// The state of the menu's one window.
#[derive(Debug)]
pub struct MenuState {
    /// The run window is open.
    pub run_open: bool,
    scenario: String,
    protocol: Option<Protocol>,
    /// `None`: the scenario's own model (the scripted one for every shipped scenario).
    provider: Option<ApiShape>,
    model: String,
}

impl Default for MenuState {
    fn default() -> Self {
        MenuState {
            run_open: false,
            scenario: DEFAULT.to_string(),
            protocol: None,
            provider: None,
            model: String::new(),
        }
    }
}

/// The File > Import entry of each format.
fn import_label(format: ImportFormat) -> &'static str {
    match format {
        ImportFormat::ClaudeDesktop => "menu.import_claude_desktop",
        ImportFormat::Inspector => "menu.import_inspector",
        ImportFormat::Har => "menu.import_har",
    }
}

/// The providers whose API key is set in the environment.
pub fn providers_with_keys() -> Vec<ApiShape> {
    ApiShape::ALL
        .into_iter()
        .filter(|s| {
            s.key_variables()
                .iter()
                .any(|v| std::env::var(v).is_ok_and(|k| !k.is_empty()))
        })
        .collect()
}

/// A sensible default model for a provider, editable in the window.
fn default_model(shape: ApiShape) -> &'static str {
    match shape {
        ApiShape::Anthropic => "claude-sonnet-4-5",
        ApiShape::Openai | ApiShape::OpenaiChat => "gpt-4.1-mini",
        ApiShape::Gemini => "gemini-2.5-flash",
    }
}

impl MenuState {
    /// The File menu. `has_trace` enables the exports.
    pub fn file_menu_ui(
        &mut self,
        ui: &mut Ui,
        recent: &RecentFiles,
        has_trace: bool,
        tr: Words<'_>,
    ) -> Option<Command> {
        let mut command = None;
        ui.menu_button(tr.get("menu.file"), |ui| {
            if ui.button(tr.get("menu.open")).clicked() {
                command = Some(Command::OpenDialog);
            }
            ui.menu_button(tr.get("menu.open_recent"), |ui| {
                if recent.paths.is_empty() {
                    ui.weak(tr.get("menu.open_recent_empty"));
                }
                for path in &recent.paths {
                    if ui.button(path.display().to_string()).clicked() {
                        command = Some(Command::Open(path.clone()));
                    }
                }
            });
            ui.menu_button(tr.get("menu.follow_session"), |ui| {
                let sessions = crate::tap::paths::sessions();
                if sessions.is_empty() {
                    ui.weak(tr.get("menu.follow_session_empty"));
                }
                for (name, dir) in sessions.into_iter().take(20) {
                    if ui.button(name).clicked() {
                        command = Some(Command::Follow(dir));
                    }
                }
            });
            ui.menu_button(tr.get("menu.import"), |ui| {
                for format in ImportFormat::ALL {
                    if ui.button(tr.get(import_label(format))).clicked() {
                        command = Some(Command::ImportDialog(format));
                    }
                }
            });
            if ui.button(tr.get("menu.run_scenario")).clicked() {
                self.run_open = true;
            }
            ui.add_enabled_ui(has_trace, |ui| {
                if ui.button(tr.get("compare_with.menu")).clicked() {
                    command = Some(Command::CompareWithDialog);
                }
                if ui.button(tr.get("compare_with.replay_menu")).clicked() {
                    command = Some(Command::ReplayAgainstWindow);
                }
            });
            ui.separator();
            ui.add_enabled_ui(has_trace, |ui| {
                ui.menu_button(tr.get("menu.export"), |ui| {
                    if ui.button(tr.get("menu.export_mermaid")).clicked() {
                        command = Some(Command::Export(ExportFormat::Mermaid));
                    }
                    if ui.button(tr.get("menu.export_svg")).clicked() {
                        command = Some(Command::Export(ExportFormat::Svg));
                    }
                    if ui.button(tr.get("menu.export_html")).clicked() {
                        command = Some(Command::Export(ExportFormat::Html));
                    }
                    if ui.button(tr.get("menu.export_otlp_file")).clicked() {
                        command = Some(Command::ExportOtlpFile);
                    }
                    if ui.button(tr.get("menu.export_otlp_endpoint")).clicked() {
                        command = Some(Command::ExportOtlpEndpoint);
                    }
                });
            });
            ui.separator();
            if ui.button(tr.get("menu.quit")).clicked() {
                command = Some(Command::Quit);
            }
        });
        command
    }

    /// The run window, when open.
    pub fn run_window_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) -> Option<Command> {
        if !self.run_open {
            return None;
        }
        let mut command = None;
        let mut open = self.run_open;
        egui::Window::new(tr.get("run.title"))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                command = self.run_form_ui(ui, tr);
            });
        self.run_open = open && command.is_none();
        command
    }

    fn run_form_ui(&mut self, ui: &mut Ui, tr: Words<'_>) -> Option<Command> {
        let shipped = Shipped::find(&self.scenario).unwrap_or(SHIPPED[0]);
        let scenario = shipped.load().ok();
        egui::Grid::new("run-form").num_columns(2).show(ui, |ui| {
            ui.label(tr.get("run.choose"));
            ComboBox::from_id_salt("run-scenario")
                .selected_text(shipped.name)
                .show_ui(ui, |ui| {
                    for s in SHIPPED {
                        ui.selectable_value(&mut self.scenario, s.name.to_string(), s.name);
                    }
                });
            ui.end_row();
            ui.label(tr.get("run.protocol"));
            let revisions: Vec<Protocol> = scenario
                .as_ref()
                .map(|s| s.revisions.clone())
                .unwrap_or_default();
            let default = tr.get("run.protocol_default").to_string();
            ComboBox::from_id_salt("run-protocol")
                .selected_text(
                    self.protocol
                        .map_or(default.clone(), |p| p.as_str().to_string()),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.protocol, None, &default);
                    for p in revisions.into_iter().chain([Protocol::Auto]) {
                        ui.selectable_value(&mut self.protocol, Some(p), p.as_str());
                    }
                });
            ui.end_row();
            ui.label(tr.get("run.provider"));
            let keys = providers_with_keys();
            ui.vertical(|ui| {
                ui.radio_value(&mut self.provider, None, tr.get("run.scripted"));
                for shape in &keys {
                    if ui
                        .radio_value(&mut self.provider, Some(*shape), shape.as_str())
                        .changed()
                    {
                        self.model = default_model(*shape).to_string();
                    }
                }
                if keys.is_empty() {
                    ui.weak(tr.get("run.no_keys"));
                }
                if self.provider.is_some() {
                    ui.horizontal(|ui| {
                        ui.label(tr.get("run.model_name"));
                        ui.text_edit_singleline(&mut self.model);
                    });
                }
            });
            ui.end_row();
        });
        if let Some(s) = &scenario {
            ui.separator();
            ui.label(egui::RichText::new(&s.title).strong());
            egui::ScrollArea::vertical()
                .max_height(180.0)
                .show(ui, |ui| ui.label(reflow(&s.explanation)));
        }
        ui.separator();
        let mut command = None;
        if ui.button(tr.get("run.start")).clicked() {
            let options = RunOptions {
                shape: self.provider,
                model: self
                    .provider
                    .map(|_| self.model.trim().to_string())
                    .filter(|m| !m.is_empty()),
                protocol: self.protocol,
                lang: tr.lang,
                ..RunOptions::default()
            };
            command = Some(Command::Run {
                scenario: shipped.name.to_string(),
                options: Box::new(options),
            });
        }
        command
    }
}

/// Scenario explanations are wrapped at 100 columns in their TOML files; the window wraps them
/// itself, so single line breaks become spaces and blank lines stay paragraph breaks.
fn reflow(text: &str) -> String {
    text.trim()
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}
