//! The doctor panel: what `sightline doctor`, `validate`, `poison` and `pins` say about the
//! open trace, read from the store's cached [`crate::analysis::findings::Findings`].
//!
//! Per server and per tool: visible or not, the reason code, the evidence event (a link that
//! selects it) and the hint; then the schema violations, the poisoning findings (invisible
//! characters written as `\u{…}`, hidden text decoded) and the rug pulls, each with the two
//! definitions side by side and the changed lines highlighted. Of the violations, which may be
//! tens of thousands, only the lines in view are laid out.

use egui::{
    Align, Color32, Label, Layout, Rect, RichText, ScrollArea, Sense, Ui, UiBuilder, pos2, vec2,
};

use super::command::Command;
use super::store::TraceStore;
use super::theme::Palette;
use super::visible;
use crate::analysis::doctor::Basis;
use crate::analysis::findings::{self, RugPull};
use crate::i18n::Words;

/// UI memory of the panel (none yet: everything shown is in the store).
#[derive(Debug, Default)]
pub struct DoctorPanel {}

impl DoctorPanel {
    pub fn ui(&mut self, ui: &mut Ui, store: &TraceStore, tr: Words<'_>) -> Option<Command> {
        let mut command = None;
        ScrollArea::vertical()
            .id_salt("doctor-panel")
            .auto_shrink(false)
            .show(ui, |ui| {
                command = contents_ui(ui, store, tr);
            });
        command
    }
}

/// A link to the event with `seq`, if the trace has it.
fn evidence(ui: &mut Ui, store: &TraceStore, seq: Option<u64>, tr: Words<'_>) -> Option<Command> {
    let seq = seq?;
    let text = tr.fmt("doctor.evidence", &[("seq", &seq.to_string())]);
    let index = store.index_of_seq(seq)?;
    ui.link(text).clicked().then_some(Command::Select(index))
}

fn contents_ui(ui: &mut Ui, store: &TraceStore, tr: Words<'_>) -> Option<Command> {
    let mut command = None;
    let palette = Palette::for_visuals(ui.visuals());
    let ok = palette.response;
    let bad = palette.error;
    let f = &store.findings;
    let d = &f.diagnosis;

    ui.heading(tr.get("panel.doctor"));
    if store.is_empty() {
        ui.weak(tr.get("app.no_trace"));
        return None;
    }
    if !store.findings.is_ready() {
        ui.spinner();
        return None;
    }
    ui.label(match d.basis {
        Basis::LastRequest { seq, shape } => tr.fmt(
            "doctor.basis_request",
            &[("seq", &seq.to_string()), ("shape", &format!("{shape:?}"))],
        ),
        Basis::WouldBe { shape } => {
            tr.fmt("doctor.basis_would_be", &[("shape", &format!("{shape:?}"))])
        }
    });
    if let Some(line) = crate::analysis::doctor::host_line(d, tr) {
        ui.label(RichText::new(line).strong());
    }
    // The naming rule of the host in force, to say under which name each tool is shown.
    let scheme = d
        .host
        .as_ref()
        .and_then(|h| crate::analysis::hosts::find(&h.id))
        .map(|p| p.naming.rule.scheme.as_str());

    ui.separator();
    ui.label(RichText::new(tr.get("doctor.servers")).strong());
    if d.servers.is_empty() {
        ui.weak(tr.get("doctor.no_servers"));
    }
    for s in &d.servers {
        ui.horizontal_wrapped(|ui| {
            let color = if s.failed() { bad } else { ok };
            ui.label(
                RichText::new(visible::escape(&s.server))
                    .monospace()
                    .strong()
                    .color(color),
            );
            ui.label(tr.fmt(
                "doctor.listed",
                &[
                    ("visible", &s.visible.to_string()),
                    ("listed", &s.listed.to_string()),
                ],
            ));
            if let Some(code) = s.code {
                ui.label(RichText::new(code.as_str()).monospace().color(bad));
            }
            command = evidence(ui, store, s.seq, tr).or(command.take());
        });
        if s.code.is_some() && !s.detail.is_empty() {
            ui.label(visible::escape(&s.detail_in(tr)));
        }
        if !s.hint.is_empty() {
            ui.weak(tr.fmt("doctor.hint", &[("hint", &s.hint_in(tr))]));
        }
    }

    ui.separator();
    ui.label(RichText::new(tr.get("doctor.tools")).strong());
    for t in &d.tools {
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(1.0, if t.visible { ok } else { bad }))
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    let name = match &t.server {
                        Some(s) => format!("{s}/{}", t.tool),
                        None => t.tool.clone(),
                    };
                    ui.label(RichText::new(visible::escape(&name)).monospace().strong());
                    let (mark, key, color) = if t.visible {
                        ("+", "doctor.visible", ok)
                    } else {
                        ("x", "doctor.not_visible", bad)
                    };
                    ui.colored_label(color, format!("{mark} {}", tr.get(key)));
                    ui.label(RichText::new(t.code.as_str()).monospace().color(color));
                    command = evidence(ui, store, t.seq, tr).or(command.take());
                });
                if let (Some(shown), Some(rule)) = (&t.host_name, scheme)
                    && *shown != t.tool
                {
                    ui.label(
                        RichText::new(tr.fmt(
                            "doctor.host_name",
                            &[("name", &visible::escape(shown)), ("rule", rule)],
                        ))
                        .monospace(),
                    );
                }
                if !t.detail.is_empty() {
                    ui.label(visible::escape(&t.detail_in(tr)));
                }
                if !t.hint.is_empty() {
                    ui.weak(tr.fmt("doctor.hint", &[("hint", &t.hint_in(tr))]));
                }
            });
    }

    ui.separator();
    ui.label(
        RichText::new(tr.fmt(
            "doctor.violations",
            &[("count", &f.violations.len().to_string())],
        ))
        .strong(),
    );
    if f.violations.is_empty() {
        ui.weak(tr.get("doctor.no_violations"));
    }
    command = violations_ui(ui, store, &palette, tr).or(command);

    ui.separator();
    ui.label(
        RichText::new(tr.fmt(
            "doctor.poisoning",
            &[("count", &f.poison.len().to_string())],
        ))
        .strong(),
    );
    if f.poison.is_empty() {
        ui.weak(tr.get("doctor.no_poisoning"));
    }
    for p in &f.poison {
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(1.0, bad))
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    let tool = p.tool.as_deref().unwrap_or("instructions");
                    ui.label(
                        RichText::new(visible::escape(&format!(
                            "{}/{tool} · {}",
                            p.server, p.field
                        )))
                        .monospace()
                        .strong(),
                    );
                    ui.label(
                        RichText::new(format!("{} ({})", p.kind.code(), p.severity.as_str()))
                            .color(bad),
                    );
                    command = evidence(ui, store, Some(p.seq), tr).or(command.take());
                });
                // The excerpt already writes invisible characters as \u{…}.
                ui.label(RichText::new(p.excerpt_in(tr)).monospace());
                ui.label(p.explanation_in(crate::i18n::Words {
                    strings: tr.strings,
                    lang: tr.lang,
                }));
                if let Some(hidden) = &p.hidden {
                    ui.label(
                        RichText::new(
                            tr.fmt("doctor.hidden", &[("text", &visible::escape(hidden))]),
                        )
                        .color(bad),
                    );
                }
            });
    }

    ui.separator();
    ui.label(
        RichText::new(tr.fmt(
            "doctor.rug_pulls",
            &[("count", &f.rug_pulls.len().to_string())],
        ))
        .strong(),
    );
    if f.rug_pulls.is_empty() {
        ui.weak(tr.get("doctor.no_rug_pulls"));
    }
    for (k, r) in f.rug_pulls.iter().enumerate() {
        ui.label(RichText::new(visible::escape(r.headline(tr))).color(bad));
        ui.horizontal_wrapped(|ui| {
            command = evidence(ui, store, Some(r.before_seq), tr).or(command.take());
            ui.label("→");
            command = evidence(ui, store, Some(r.after_seq), tr).or(command.take());
        });
        egui::CollapsingHeader::new(tr.get("doctor.side_by_side"))
            .id_salt(("rug-pull", k))
            .default_open(true)
            .show(ui, |ui| diff_ui(ui, r, &palette, tr));
    }
    command
}

/// The schema violations, one line each (cut, the whole line in its tooltip). A trace may
/// have tens of thousands: their block is allocated whole and only the lines in view are laid
/// out, so the tab costs a frame the same whatever their number.
fn violations_ui(
    ui: &mut Ui,
    store: &TraceStore,
    palette: &Palette,
    tr: Words<'_>,
) -> Option<Command> {
    let violations = &store.findings.violations;
    let row_h = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    let (block, _) = ui.allocate_exact_size(
        vec2(ui.available_width(), row_h * violations.len() as f32),
        Sense::hover(),
    );
    let clip = ui.clip_rect();
    let first = ((clip.top() - block.top()) / row_h).floor().max(0.0) as usize;
    let last = ((clip.bottom() - block.top()) / row_h).ceil().max(0.0) as usize;
    let mut command = None;
    for (k, v) in violations.iter().enumerate().take(last).skip(first) {
        let row = Rect::from_min_size(
            pos2(block.left(), block.top() + k as f32 * row_h),
            vec2(block.width(), row_h),
        );
        let builder = UiBuilder::new()
            .id_salt(("violation", k))
            .max_rect(row)
            .layout(Layout::left_to_right(Align::Center));
        ui.scope_builder(builder, |ui| {
            // The violation knows its event: with `seq`s that repeat, its `seq` may name another.
            if v.event < store.len()
                && ui
                    .link(tr.fmt("doctor.evidence", &[("seq", &v.seq.to_string())]))
                    .clicked()
            {
                command = Some(Command::Select(v.event));
            }
            ui.label(
                RichText::new(visible::escape(findings::pointer(v)))
                    .monospace()
                    .color(palette.invalid),
            );
            ui.add(Label::new(visible::escape(&v.message.say(tr))).truncate());
        });
    }
    command
}

/// The changed definitions under the compare view's differences, each side by side.
pub fn definitions_ui(ui: &mut Ui, definitions: &[RugPull], tr: Words<'_>) {
    if definitions.is_empty() {
        return;
    }
    let title = tr.fmt(
        "compare_with.definitions",
        &[("count", &definitions.len().to_string())],
    );
    egui::CollapsingHeader::new(RichText::new(title).strong())
        .id_salt("compare-definitions")
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .max_height(260.0)
                .show(ui, |ui| {
                    for r in definitions {
                        ui.label(RichText::new(visible::escape(r.headline(tr))).strong());
                        diff_ui(ui, r, &Palette::for_visuals(ui.visuals()), tr);
                    }
                });
        });
}

/// The two definitions of a rug pull in two columns, changed lines highlighted.
fn diff_ui(ui: &mut Ui, r: &RugPull, palette: &Palette, tr: Words<'_>) {
    let removed = palette.error.gamma_multiply(0.25);
    let added = palette.response.gamma_multiply(0.25);
    ScrollArea::horizontal()
        .id_salt(("rug-pull-diff", r.before_seq, r.after_seq, &r.tool))
        .show(ui, |ui| {
            egui::Grid::new(("rug-pull-grid", r.before_seq, r.after_seq, &r.tool))
                .striped(false)
                .spacing([12.0, 0.0])
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(
                            tr.fmt("doctor.before", &[("seq", &r.before_seq.to_string())]),
                        )
                        .strong(),
                    );
                    ui.label(
                        RichText::new(tr.fmt("doctor.after", &[("seq", &r.after_seq.to_string())]))
                            .strong(),
                    );
                    ui.end_row();
                    for row in &r.rows {
                        cell(ui, row.before.as_deref(), row.changed, removed);
                        cell(ui, row.after.as_deref(), row.changed, added);
                        ui.end_row();
                    }
                });
        });
}

fn cell(ui: &mut Ui, line: Option<&str>, changed: bool, highlight: Color32) {
    let text = line.map_or_else(String::new, |l| visible::escape(l).into_owned());
    let mut rich = RichText::new(text).monospace();
    if changed && line.is_some() {
        rich = rich.background_color(highlight);
    }
    ui.label(rich);
}
