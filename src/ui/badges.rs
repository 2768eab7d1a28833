//! The badges that mark findings on the diagram's arrows and in what the model sees.
//!
//! What was found, and under which event, is [`crate::analysis::findings`]'s; here it is drawn:
//! a badge coloured by the most serious kind of an event's marks, its accessible label, and a
//! tooltip that says each mark in the reader's language.

use egui::{Color32, FontId, Painter, Rect, pos2, vec2};

use super::theme::Palette;
use crate::analysis::findings::{Gravity, Mark, MarkKind};
use crate::i18n::Words;

/// The colour of a kind of finding: that of its gravity.
pub fn color(kind: MarkKind, palette: &Palette) -> Color32 {
    match kind.gravity() {
        Gravity::Problem => palette.problem,
        Gravity::Invalid => palette.invalid,
        Gravity::Danger => palette.error,
    }
}

/// The badge's text as painted: `!` and the number of findings (the bundled fonts have no
/// warning sign; the accessible label has one, see [`row_label`]).
pub fn badge_text(marks: &[Mark]) -> String {
    format!("! {}", marks.len())
}

/// The accessible label of a row with marks: `#<seq> <label> ⚠ <count>`.
pub fn row_label(seq: u64, label: &str, marks: &[Mark]) -> String {
    if marks.is_empty() {
        format!("#{seq} {label}")
    } else {
        format!("#{seq} {label} ⚠ {}", marks.len())
    }
}

/// The hover text listing `marks`, one per line, each with its kind.
pub fn tooltip(marks: &[Mark], tr: Words<'_>) -> String {
    let mut out = tr.fmt("badge.title", &[("count", &marks.len().to_string())]);
    for m in marks {
        out.push_str(&format!(
            "\n- {}: {}",
            tr.get(m.kind.key()),
            super::visible::escape(&m.text)
        ));
        if let Some(why) = &m.why {
            out.push_str(&format!("\n  {}", super::visible::escape(&why.render(tr))));
        }
    }
    out
}

/// Paints a badge whose left edge is at `left`, vertically centred on `y`; returns its rect.
pub fn paint(painter: &Painter, left: f32, y: f32, marks: &[Mark], palette: &Palette) -> Rect {
    let color = marks
        .first()
        .map_or(palette.problem, |m| color(m.kind, palette));
    let font = FontId::proportional(10.5);
    let galley = painter.layout_no_wrap(badge_text(marks), font, Color32::WHITE);
    let size = galley.size() + vec2(8.0, 2.0);
    let rect = Rect::from_min_size(pos2(left, y - size.y / 2.0), size);
    painter.rect_filled(rect, 4.0, color);
    painter.galley(rect.center() - galley.size() / 2.0, galley, Color32::WHITE);
    rect
}

/// A badge as a widget (the model view), with its tooltip.
pub fn badge_ui(ui: &mut egui::Ui, text: &str, color: Color32, hover: &str) -> egui::Response {
    let label = egui::RichText::new(text)
        .small()
        .strong()
        .color(Color32::WHITE)
        .background_color(color);
    ui.label(label).on_hover_text(hover)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoning_badge_explains_itself_in_the_language_of_the_ui() {
        use crate::analysis::poison::{Arg, Said};
        use crate::i18n::{Language, Strings};
        let strings = Strings::embedded();
        let marks = [Mark {
            kind: MarkKind::Poison,
            text: "evil/add description: conceal-from-user (danger)".into(),
            why: Some(Said::new(
                "poison_why.conceal",
                vec![("text", Arg::Text("never tell the user".into()))],
            )),
        }];
        let tip = |lang| {
            tooltip(
                &marks,
                Words {
                    strings: &strings,
                    lang,
                },
            )
        };
        let pt = tip(Language::Pt);
        assert!(
            pt.contains(
                "\"never tell the user\": o texto pede ao modelo que deixe o usuário de fora"
            ),
            "{pt}"
        );
        assert!(tip(Language::Es).contains("deje al usuario al margen"));
        assert!(tip(Language::En).contains("keep the user out of the loop"));
    }

    #[test]
    fn row_labels_keep_their_prefix() {
        let marks = [Mark {
            kind: MarkKind::Poison,
            text: "x".into(),
            why: None,
        }];
        assert_eq!(
            row_label(7, "result tools/list", &[]),
            "#7 result tools/list"
        );
        assert_eq!(
            row_label(7, "result tools/list", &marks),
            "#7 result tools/list ⚠ 1"
        );
    }
}
