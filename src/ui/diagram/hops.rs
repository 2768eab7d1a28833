//! The arrows inside a row's exchange ([`crate::analysis::diagram::Hop`]), painted in its
//! block: the leads above the row's own arrow, the others under it, each a line of its own,
//! drawn as rows are so they read the same (a tool run on one lifeline is a note on it).

use super::super::diagram_paint::{Canvas, Drawn};
use super::DrawnLabel;
use crate::analysis::diagram::{Diagram, RowText};
use crate::i18n::Language;

/// Paints the hops of row `row`, whose block starts at screen `top`, labelled in `lang`;
/// returns their labels.
pub(super) fn paint(
    canvas: &Canvas<'_>,
    diagram: &Diagram,
    row: usize,
    top: f32,
    lang: Language,
) -> Vec<DrawnLabel> {
    let event = diagram.rows[row].event();
    let row_h = canvas.geo.row_h;
    let mut drawn = Vec::with_capacity(diagram.hops(row).len());
    for (line, hop) in diagram.hop_lines(row) {
        let label = hop.label_in(lang);
        let text = RowText {
            label: label.clone(),
            detail: None,
            problem: None,
        };
        let y = top + line as f32 * row_h;
        let Drawn { rect, elided } = canvas.row(&hop.row(event), &text, false, y, false);
        drawn.push(DrawnLabel {
            event: Some(event),
            text: label,
            rect,
            elided,
            bar: false,
        });
    }
    drawn
}
