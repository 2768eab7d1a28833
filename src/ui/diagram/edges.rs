//! Lanes scrolled out of view sideways, named at the header's edges.
//!
//! A diagram wider than its view (a narrow window, both panels open, many lanes) scrolls
//! sideways rather than cutting its labels. Then the last lanes, often the servers where the
//! lesson ends, would start out of sight with nothing to say they exist: each edge of the
//! header names the lanes beyond it, and a click brings them into view.

use egui::{Button, Rect, Ui, pos2, vec2};

use super::super::diagram_paint::{Geometry, TIME_W};
use crate::i18n::Words;

/// Draws a button at each edge of `header` beyond which lanes lie, `dx` being where x = 0 of
/// the layout is on screen; returns the horizontal scroll offset a click asks for.
pub(super) fn markers(
    ui: &mut Ui,
    geo: &Geometry,
    titles: &[String],
    (header, dx): (Rect, f32),
    tr: Words<'_>,
) -> Option<f32> {
    let left_edge = header.left() + TIME_W;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for (i, &x) in geo.lane_x.iter().enumerate() {
        // Half the title's width: a box is its title and 8 px each side.
        let half = geo.box_w.get(i).copied().unwrap_or(0.0) / 2.0 - 8.0;
        if x + dx + half > header.right() {
            after.push(i);
        } else if x + dx - half < left_edge {
            before.push(i);
        }
    }
    let mut scroll = None;
    let size = vec2(44.0, header.height() - 8.0);
    let edges = [
        (&after, header.right() - size.x - 2.0, true),
        (&before, left_edge + 2.0, false),
    ];
    for (lanes, left, right) in edges {
        let (Some(&first), Some(&last)) = (lanes.first(), lanes.last()) else {
            continue;
        };
        let rect = Rect::from_min_size(pos2(left, header.top() + 4.0), size);
        let names: Vec<&str> = lanes.iter().map(|&i| titles[i].as_str()).collect();
        let names = names.join(", ");
        let hover = tr.fmt("diagram.lanes_beyond", &[("lanes", &names)]);
        let text = format!("{} {}", if right { "▶" } else { "◀" }, lanes.len());
        if ui
            .put(rect, Button::new(text))
            .on_hover_text(hover)
            .clicked()
        {
            // The far lane's box brought whole into view, from the side it was beyond.
            let view = header.right() - left_edge;
            let to = match right {
                true => geo.lane_x[last] + geo.box_w[last] / 2.0 + 8.0 - TIME_W - view,
                false => geo.lane_x[first] - geo.box_w[first] / 2.0 - 8.0 - TIME_W,
            };
            scroll = Some(to.max(0.0));
        }
    }
    scroll
}
