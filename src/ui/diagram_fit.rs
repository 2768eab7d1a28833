//! What the diagram's lanes must make room for: the widest label seen between each pair of
//! lanes ([`Seen`], measured from the rows in view only), and what was drawn last frame
//! ([`DrawnLabel`]), which the checks that no label is cut or overlaps another read.

use egui::Rect;

use super::diagram_paint::{self as paint, Geometry};
use super::store::TraceStore;
use crate::analysis::diagram::layout::Need;

/// A label drawn in the last frame: the row it belongs to, its text, and where it went.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnLabel {
    /// The row's event, `None` for a lane's title.
    pub event: Option<usize>,
    pub text: String,
    pub rect: Rect,
    /// Cut with `…` to fit.
    pub elided: bool,
}

/// The widest label seen between each pair of lanes and on each lane, since the trace, the
/// zoom or the language last changed. Gaps only grow while scrolling, so lanes do not jump
/// back and forth as rows come and go; only rows in view are ever measured.
#[derive(Debug, Default)]
pub(super) struct Seen {
    key: u64,
    needs: std::collections::HashMap<(usize, usize, bool), f32>,
}

impl Seen {
    pub(super) fn keep(&mut self, key: u64) {
        if key != self.key {
            self.key = key;
            self.needs.clear();
        }
    }

    /// Remembers what a row needs; whether that is more than before.
    pub(super) fn add(&mut self, need: Need) -> bool {
        let (k, w) = match need {
            Need::Arrow { from, to, width } => ((from.min(to), from.max(to), true), width),
            Need::Note { lane, width } => ((lane, lane, false), width),
            Need::Header { .. } => return false,
        };
        let slot = self.needs.entry(k).or_insert(0.0);
        let grew = w > *slot + 0.5;
        *slot = slot.max(w);
        grew
    }

    /// What the label of `row`, `label_w` wide, needs of the layout `geo`.
    pub(super) fn need(geo: &Geometry, store: &TraceStore, row: usize, label_w: f32) -> Need {
        let row = &store.diagram.rows[row];
        if row.is_arrow() {
            let mcp = paint::is_mcp(&store.events[row.event()].channel);
            geo.arrow_need(row, mcp, label_w)
        } else {
            Need::Note {
                lane: row.from(),
                width: geo.note_w(label_w),
            }
        }
    }

    pub(super) fn needs(&self) -> Vec<Need> {
        self.needs
            .iter()
            .map(|(&(from, to, arrow), &width)| match arrow {
                true => Need::Arrow { from, to, width },
                false => Need::Note { lane: from, width },
            })
            .collect()
    }
}
