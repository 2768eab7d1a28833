//! What the diagram's lanes must make room for: the widest label seen between each pair of
//! lanes ([`Seen`], measured from the rows in view only), and what was drawn last frame
//! ([`DrawnLabel`]), which the checks that no label is cut or overlaps another label or an
//! activation bar read.

use egui::{Rect, Ui};

use super::diagram_paint::{self as paint, Geometry};
use super::rowset::{Lines, RowSet};
use super::store::TraceStore;
use crate::analysis::diagram::layout::Need;
use crate::analysis::diagram::{Hop, RowText};

/// A label drawn in the last frame: the row it belongs to, its text, and where it went.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnLabel {
    /// The row's event, `None` for a lane's title.
    pub event: Option<usize>,
    pub text: String,
    pub rect: Rect,
    /// Cut with `…` to fit.
    pub elided: bool,
    /// An activation bar with its latency (`text`), not a label: no label may cross it.
    pub bar: bool,
}

/// The widest label seen between each pair of lanes and on each lane, since the trace, the
/// zoom or the language last changed. Gaps only grow while scrolling, so lanes do not jump
/// back and forth as rows come and go; only rows in view are ever measured.
#[derive(Debug, Default)]
pub(super) struct Seen {
    key: u64,
    needs: std::collections::HashMap<(usize, usize, bool), f32>,
}

/// Where the diagram stood last frame, which decides the rows measured in this one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scroll {
    pub zoom: f32,
    pub offset_y: f32,
    pub view_h: f32,
}

impl Seen {
    /// The geometry for this frame: the rows about to be in view (from last frame's scroll
    /// offset) are measured, and the gaps grow to what they and the rows seen before need.
    /// Returns it with the texts of those rows, `(first position, texts)`, to draw them with.
    /// `titles` are the lanes' and the host's client's.
    pub(super) fn measure(
        &mut self,
        ui: &Ui,
        store: &TraceStore,
        (rows, lines): (RowSet<'_>, &Lines),
        (titles, client): (&[String], &str),
        width: f32,
        scroll: Scroll,
    ) -> (Geometry, (usize, Vec<RowText>)) {
        let diagram = &store.diagram;
        let (row_h, _, _) = Geometry::base(scroll.zoom);
        let painter = ui.painter();
        let measure = |text: &str, font: egui::FontId| {
            painter
                .layout_no_wrap(text.to_string(), font, egui::Color32::WHITE)
                .size()
                .x
        };
        let titles_w: Vec<f32> = diagram
            .lanes
            .iter()
            .zip(titles)
            .map(|(lane, title)| {
                let w = measure(title, paint::title_font());
                match lane.kind {
                    crate::analysis::diagram::LaneKind::Host => {
                        w.max(measure(client, paint::client_font()) + 14.0)
                    }
                    _ => w,
                }
            })
            .collect();
        let mut key = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(
            &(
                scroll.zoom.to_bits(),
                titles,
                store.events.first().map(|e| e.time),
            ),
            &mut key,
        );
        self.keep(std::hash::Hasher::finish(&key));
        // A first guess, to know how wide the lanes' margins are.
        let guess = Geometry::new(diagram, scroll.zoom, width, &titles_w, &self.needs());
        let (first, last) = lines.in_view(scroll.offset_y, scroll.offset_y + scroll.view_h, row_h);
        let font = paint::row_font(row_h);
        let texts: Vec<RowText> = (first..last)
            .map(|pos| store.row_text(rows.get(pos)))
            .collect();
        for (pos, text) in (first..last).zip(&texts) {
            let label_w = measure(&text.label, font.clone());
            self.add(Seen::need(&guess, store, rows.get(pos), label_w));
            for hop in diagram.hops(rows.get(pos)) {
                let label_w = measure(&hop.label_in(store.lang), font.clone());
                self.add(Seen::hop_need(&guess, hop, label_w));
            }
        }
        let geo = Geometry::new(diagram, scroll.zoom, width, &titles_w, &self.needs());
        (geo, (first, texts))
    }

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

    /// What a hop's label, `label_w` wide, needs of the layout `geo`.
    pub(super) fn hop_need(geo: &Geometry, hop: &Hop, label_w: f32) -> Need {
        let row = hop.row(0);
        match row.is_arrow() {
            true => geo.arrow_need(&row, false, label_w),
            false => Need::Note {
                lane: row.from(),
                width: geo.note_w(label_w),
            },
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
