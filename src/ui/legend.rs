//! The diagram's legend: a sample line and a name for each style and each kind of problem,
//! drawn with the same colours and dashes as the rows (see [`super::theme`]).

use egui::{Color32, CornerRadius, Painter, Rect, Sense, Shape, Stroke, Ui, Vec2, pos2, vec2};

use super::theme::{self, Palette};
use crate::analysis::diagram::Style;
use crate::i18n::Words;

/// The legend: what each colour and line means.
pub fn legend_ui(ui: &mut Ui, palette: &Palette, tr: Words<'_>) {
    let items = [
        (palette.request, Style::Request, false, "legend.request"),
        (palette.response, Style::Response, false, "legend.response"),
        (
            palette.notification,
            Style::Notification,
            false,
            "legend.notification",
        ),
        (palette.llm, Style::LlmRequest, false, "legend.llm"),
        (palette.note_text, Style::Note, false, "legend.note"),
        (palette.process, Style::Stderr, false, "legend.stderr"),
        (palette.error, Style::Error, true, "legend.error"),
        (palette.invalid, Style::Invalid, true, "legend.invalid"),
        (
            palette.unanswered,
            Style::Request,
            true,
            "legend.unanswered",
        ),
        (palette.problem, Style::Request, true, "legend.problem"),
    ];
    for (color, style, bold, key) in items {
        let (rect, _) = ui.allocate_exact_size(vec2(26.0, 14.0), Sense::hover());
        sample(ui.painter(), rect, color, style, bold);
        ui.label(egui::RichText::new(tr.get(key)).small());
    }
}

/// A sample of a row style for the legend: a short line with its head.
fn sample(painter: &Painter, rect: Rect, color: Color32, style: Style, bold: bool) {
    let y = rect.center().y;
    let stroke = Stroke::new(if bold { 2.4 } else { 1.4 }, color);
    let line = [pos2(rect.left(), y), pos2(rect.right() - 6.0, y)];
    match style {
        Style::Notification => painter.extend(Shape::dashed_line(&line, stroke, 2.5, 3.0)),
        s if theme::dashed(s) => painter.extend(Shape::dashed_line(&line, stroke, 5.0, 3.0)),
        Style::Note | Style::Stderr | Style::Process => {
            painter.rect_filled(
                rect.shrink2(vec2(2.0, 3.0)),
                CornerRadius::same(2),
                color.gamma_multiply(0.4),
            );
            return;
        }
        _ => {
            painter.line_segment(line, stroke);
        }
    }
    let tip = pos2(rect.right(), y);
    painter.add(Shape::convex_polygon(
        vec![tip, tip - Vec2::new(6.0, 3.5), tip - Vec2::new(6.0, -3.5)],
        color,
        Stroke::NONE,
    ));
}
