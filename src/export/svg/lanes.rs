//! Where the SVG's lifelines stand: each gap between two neighbouring lanes is at least as wide
//! as the widest text drawn on an arrow between them, so a long label or detail ends before its
//! arrow does instead of running over the next lifeline and into the lesson band. The rule is
//! the app's ([`crate::analysis::diagram::layout`]); here the widths are estimated from
//! character counts, as the SVG has no fonts to measure with. A wide diagram is a wide SVG:
//! viewers scroll.
//!
//! What the rows ask is gathered one row at a time and kept per pair of lanes and per lane, so
//! the memory is bounded by the lanes, not the rows, whatever the size of the streamed trace.

use std::collections::HashMap;

use super::{BOX_W, CHAR_W, TIME_W};
use crate::analysis::diagram::layout::{self, Need};
use crate::analysis::diagram::{Diagram, LaneKind, Row};

/// Distance between neighbouring lifelines, at least.
const LANE_W: f64 = 220.0;
/// Distance between the LLM lifeline and the first server's, at least: room for the lesson.
const GAP_W: f64 = 300.0;
/// Width of one character of the detail's 10.5px text, by the label's 12px one.
const DETAIL_CHAR_W: f64 = CHAR_W * 10.5 / 12.0;
/// Space between a label and its detail (`dx` of the detail's `tspan`).
pub(super) const DETAIL_DX: f64 = 8.0;
/// How far right of an arrow's left end its text starts.
pub(super) const ARROW_TEXT_DX: f64 = 10.0;
/// Room kept between an arrow's text and the lifeline it ends on (clear of the arrowhead).
pub(super) const ARROW_TEXT_END: f64 = 14.0;
/// How far right of its lifeline a note's text starts, and the room kept after it.
pub(super) const NOTE_TEXT_DX: f64 = 14.0;
const NOTE_TEXT_END: f64 = 12.0;
/// Room between the rightmost drawing and the SVG's right edge.
const RIGHT_MARGIN: f64 = 16.0;

/// The estimated width of a row's text: its label at 12px, then its detail (if any) at 10.5px.
pub(super) fn text_w(label: &str, detail: &str) -> f64 {
    let label = label.chars().count() as f64 * CHAR_W;
    match detail.chars().count() {
        0 => label,
        n => label + DETAIL_DX + n as f64 * DETAIL_CHAR_W,
    }
}

/// The widest text seen on an arrow between each pair of lanes and in a note on each lane.
#[derive(Debug, Default)]
pub(super) struct Needs {
    arrows: HashMap<(usize, usize), f64>,
    notes: HashMap<usize, f64>,
}

/// The lanes' places in the SVG.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Lanes {
    /// Each lifeline's x.
    pub xs: Vec<f64>,
    /// The SVG's width: the last header and every note inside it.
    pub width: f64,
}

impl Needs {
    /// Row `row`, drawn with a text `text_w` wide, asks its lanes for room.
    pub(super) fn add(&mut self, row: &Row, text_w: f64) {
        if row.is_arrow() {
            let key = (row.from().min(row.to()), row.from().max(row.to()));
            let need = ARROW_TEXT_DX + text_w + ARROW_TEXT_END;
            let have = self.arrows.entry(key).or_insert(0.0);
            *have = have.max(need);
        } else {
            let need = NOTE_TEXT_DX + text_w + NOTE_TEXT_END;
            let have = self.notes.entry(row.from()).or_insert(0.0);
            *have = have.max(need);
        }
    }

    /// The lanes of `d` placed: at least [`LANE_W`] apart ([`GAP_W`] between the LLM API and
    /// the first server, for the lesson), further where an arrow's text needs it.
    pub(super) fn place(&self, d: &Diagram) -> Lanes {
        let n = d.lanes.len();
        let min_gap: Vec<f32> = d
            .lanes
            .windows(2)
            .map(|w| match (w[0].kind, w[1].kind) {
                (LaneKind::Llm, LaneKind::Server) => GAP_W as f32,
                _ => LANE_W as f32,
            })
            .collect();
        // Whole pixels, so that the positions add up exactly and read well in the SVG.
        let needs: Vec<Need> = self
            .arrows
            .iter()
            .map(|(&(from, to), &width)| Need::Arrow {
                from,
                to,
                width: width.ceil() as f32,
            })
            .collect();
        let placed = layout::place(n, &min_gap, 0.0, &needs);
        let first = TIME_W + BOX_W / 2.0 + 10.0;
        let xs: Vec<f64> = placed.x.iter().map(|&x| first + f64::from(x)).collect();
        let last_x = xs.last().copied().unwrap_or(first);
        let notes = self
            .notes
            .iter()
            .filter_map(|(&lane, &w)| Some(xs.get(lane)? + w));
        let right = notes.fold(last_x + BOX_W, f64::max);
        Lanes {
            xs,
            width: (right + RIGHT_MARGIN).ceil(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LANE_W, Needs, text_w};
    use crate::analysis::diagram::{Diagram, LaneInfo, LaneKind, Row, Status, Style};
    use crate::trace::Lane;

    fn diagram(kinds: &[(Lane, LaneKind)]) -> Diagram {
        let lanes = kinds.iter().map(|(lane, kind)| LaneInfo {
            lane: lane.clone(),
            title: String::new(),
            kind: *kind,
        });
        let mut d = Diagram::default();
        d.lanes.extend(lanes);
        d
    }

    #[test]
    fn a_gap_grows_to_the_widest_text_of_an_arrow_between_its_lanes() {
        let d = diagram(&[
            (Lane::User, LaneKind::User),
            (Lane::Host, LaneKind::Host),
            (Lane::Llm, LaneKind::Llm),
        ]);
        let mut needs = Needs::default();
        let short = Needs::default().place(&d);
        assert_eq!(short.xs[1] - short.xs[0], LANE_W);
        let arrow = Row::new(0, 2, 1, Style::LlmResponse, Status::Ok);
        let wide = text_w(&"x".repeat(60), &"y".repeat(40));
        needs.add(&arrow, wide);
        needs.add(&Row::new(1, 1, 2, Style::LlmRequest, Status::Ok), 10.0);
        let placed = needs.place(&d);
        assert_eq!(placed.xs[0], short.xs[0]);
        assert_eq!(placed.xs[1] - placed.xs[0], LANE_W);
        assert_eq!(placed.xs[2] - placed.xs[1], (10.0 + wide + 14.0).ceil());
        // A long note on the first lane widens the SVG, not the gaps.
        needs.add(&Row::new(2, 0, 0, Style::Note, Status::Ok), 2000.0);
        let noted = needs.place(&d);
        assert_eq!(noted.xs, placed.xs);
        assert!(noted.width >= noted.xs[0] + 2000.0, "{noted:?}");
    }
}
