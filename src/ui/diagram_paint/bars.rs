//! A request's activation bar: the receiver busy from the request to its response, drawn on its
//! lifeline under the rows, with the latency beside it when the row is lit. Where it went is
//! handed back, so the picture checks can find a label that crosses it.

use egui::{Align2, Color32, CornerRadius, FontId, Painter, Rect, Stroke, StrokeKind, pos2};

/// A request's activation bar on the receiver's lifeline, from the request to its response,
/// with its `label` right of it; returns where the bar and the label went.
pub fn activation(
    painter: &Painter,
    x: f32,
    y0: f32,
    y1: f32,
    color: Color32,
    label: Option<&str>,
) -> (Rect, Option<Rect>) {
    let rect = Rect::from_min_max(pos2(x - 3.0, y0), pos2(x + 3.0, y1));
    painter.rect_filled(rect, CornerRadius::same(1), color.gamma_multiply(0.35));
    painter.rect_stroke(
        rect,
        CornerRadius::same(1),
        Stroke::new(1.0, color),
        StrokeKind::Inside,
    );
    let label = label.map(|label| {
        painter.text(
            pos2(x + 6.0, (y0 + y1) / 2.0),
            Align2::LEFT_CENTER,
            label,
            FontId::proportional(11.0),
            color,
        )
    });
    (rect, label)
}
