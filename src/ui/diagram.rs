//! The sequence diagram panel: sticky lane headers, a time column, one arrow per row.
//!
//! It draws [`crate::analysis::diagram::Diagram`] (the pure model) with [`super::diagram_paint`].
//! Rows have a fixed height, so the visible ones are found by arithmetic and only they are laid
//! out, painted and given an accessibility node (`#<seq> <label>`, a button; with findings,
//! `#<seq> <label> ⚠ <n>`, and a badge painted after the label that lists them in its
//! tooltip): the cost of a frame does not depend on the length of the trace. Zoom scales row
//! height and lane width (Ctrl+wheel or the buttons); the arrow keys, Page Up/Down, Home and End
//! move the selection; Enter jumps to the selected row's request or response.

use egui::{Rect, ScrollArea, Sense, Stroke, Ui, pos2, vec2};

use super::command::Command;
pub use super::diagram_fit::DrawnLabel;
use super::diagram_fit::{Scroll, Seen};
use super::diagram_paint::{self as paint, Canvas, Drawn, Geometry, HEADER_H, TIME_W};
use super::rowset::Lines;
pub use super::rowset::RowSet;
use super::store::TraceStore;
use super::theme::Palette;
use crate::analysis::diagram::{RowText, Style};
use crate::i18n::Words;

mod edges;
mod hops;
mod keys;

/// The zooms offered (Ctrl+wheel, the toolbar's − and +).
pub const ZOOM: std::ops::RangeInclusive<f32> = 0.4..=3.0;

/// UI memory of the diagram; the data is in the [`TraceStore`].
#[derive(Debug)]
pub struct DiagramView {
    /// Scale of row height and lane width (1 = 26 px rows, 170 px lanes).
    pub zoom: f32,
    /// An event to scroll into view on the next frame.
    reveal: Option<usize>,
    /// The row under the pointer last frame.
    hovered: Option<usize>,
    /// Scroll offset and viewport height of last frame.
    last_offset_y: f32,
    last_view_h: f32,
    /// A horizontal scroll offset to go to on the next frame (a click on a header's edge).
    scroll_x: Option<f32>,
    /// What the labels seen so far need of the layout.
    seen: Seen,
    /// The labels drawn last frame, for checks that none is cut or overlaps another.
    drawn: Vec<DrawnLabel>,
    /// Where the rows were visible last frame.
    clip: Rect,
    /// How wide the diagram was laid out last frame (its lanes sized to their labels).
    width: f32,
}

impl Default for DiagramView {
    fn default() -> Self {
        DiagramView {
            zoom: 1.0,
            reveal: None,
            hovered: None,
            last_offset_y: 0.0,
            last_view_h: 400.0,
            scroll_x: None,
            seen: Seen::default(),
            drawn: Vec::new(),
            clip: Rect::NOTHING,
            width: 0.0,
        }
    }
}

impl DiagramView {
    /// Scrolls the row of `event` into view on the next frame.
    pub fn reveal(&mut self, event: usize) {
        self.reveal = Some(event);
    }

    pub fn hovered_row(&self) -> Option<usize> {
        self.hovered
    }

    /// The labels and lane titles drawn in the last frame.
    pub fn drawn(&self) -> &[DrawnLabel] {
        &self.drawn
    }

    /// Where rows were visible in the last frame (right of it, they are scrolled out of view).
    pub fn clip(&self) -> Rect {
        self.clip
    }

    /// How wide the diagram wants to be and how wide its view was, last frame: what a
    /// projector's scale is fitted to.
    pub fn widths(&self) -> (f32, f32) {
        (self.width, self.clip.width())
    }

    /// Draws the toolbar, the headers and the visible rows.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        rows: RowSet<'_>,
        selected: Option<usize>,
        tr: Words<'_>,
    ) -> Option<Command> {
        let palette = Palette::for_visuals(ui.visuals());
        let mut command = self.toolbar_ui(ui, &palette, tr);
        let diagram = &store.diagram;
        let selected_row = selected.and_then(|e| diagram.row_of_event(e));
        if let Some(event) = self.keyboard(ui, store, rows, selected_row) {
            command = Some(Command::Select(event));
        }

        let titles: Vec<String> = diagram
            .lanes
            .iter()
            .map(|l| super::lanes::lane_title(tr, l))
            .collect();
        let client = tr.get("diagram.mcp_client");
        let scroll = Scroll {
            zoom: self.zoom,
            offset_y: self.last_offset_y,
            view_h: self.last_view_h,
        };
        let width = ui.available_width();
        let lines = Lines::new(diagram, rows);
        let (geo, measured) =
            self.seen
                .measure(ui, store, (rows, &lines), (&titles, client), width, scroll);
        self.width = geo.width;
        let (header_rect, _) =
            ui.allocate_exact_size(vec2(ui.available_width(), HEADER_H), Sense::hover());
        let mut area = ScrollArea::both()
            .id_salt("sequence-diagram")
            .auto_shrink(false)
            .content_margin(0.0)
            .stick_to_bottom(selected.is_none());
        if let Some(offset) = self.reveal_offset(store, rows, &lines, geo.row_h) {
            area = area.vertical_scroll_offset(offset);
        }
        if let Some(x) = self.scroll_x.take() {
            area = area.horizontal_scroll_offset(x);
        }
        let total_h = lines.total() as f32 * geo.row_h + geo.row_h * 2.0;
        let lesson = diagram.lesson(tr);
        let out = area.show_viewport(ui, |ui, viewport| {
            ui.set_width(geo.width);
            ui.set_height(total_h);
            self.rows_ui(
                ui,
                store,
                (rows, &lines),
                selected_row,
                &geo,
                &palette,
                viewport,
                measured,
                tr,
            )
        });
        let (clicked, viewport) = out.inner;
        self.last_offset_y = viewport.min.y;
        self.last_view_h = viewport.height();
        if let Some(event) = clicked {
            command = Some(Command::Select(event));
        }

        // The headers follow the horizontal scroll of the rows below them.
        let painter = ui.painter_at(header_rect);
        painter.rect_filled(header_rect, 0.0, ui.visuals().panel_fill);
        let canvas = Canvas {
            painter: &painter,
            geo: &geo,
            palette: &palette,
            dx: header_rect.left() - viewport.min.x,
        };
        for (lane, Drawn { rect, elided }) in canvas.header(diagram, &titles, header_rect, client) {
            // A remote server's title is short; who its client is, one hover away.
            if diagram.lanes[lane].kind == crate::analysis::diagram::LaneKind::Remote {
                let title = crate::export::lane_title(tr, &diagram.lanes[lane]);
                ui.interact(rect, ui.scope_id().with(("lane", lane)), Sense::hover())
                    .on_hover_text(title);
            }
            self.drawn.push(DrawnLabel {
                event: None,
                text: titles[lane].clone(),
                rect,
                elided,
                bar: false,
            });
        }
        canvas.lesson(header_rect, &lesson);
        // Where the rows are seen: the header is wider by the vertical scroll bar.
        let seen = header_rect.with_max_x(self.clip.right().min(header_rect.right()));
        let edge = (seen, canvas.dx);
        if let Some(x) = edges::markers(ui, &geo, &titles, edge, tr) {
            self.scroll_x = Some(x);
        }
        painter.text(
            pos2(header_rect.left() + 6.0, header_rect.center().y),
            egui::Align2::LEFT_CENTER,
            tr.get("inspector.time"),
            egui::FontId::proportional(12.0),
            palette.muted,
        );

        // Ctrl+wheel zooms while the pointer is over the diagram.
        if ui.rect_contains_pointer(out.inner_rect) {
            let z = ui.input(|i| i.zoom_delta());
            if (z - 1.0).abs() > f32::EPSILON {
                self.zoom = (self.zoom * z).clamp(*ZOOM.start(), *ZOOM.end());
            }
        }
        command
    }

    fn toolbar_ui(&mut self, ui: &mut Ui, palette: &Palette, tr: Words<'_>) -> Option<Command> {
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("−")
                .on_hover_text(tr.get("diagram.zoom_out"))
                .clicked()
            {
                self.zoom = (self.zoom / 1.2).max(*ZOOM.start());
            }
            ui.label(format!("{:.0}%", self.zoom * 100.0));
            if ui
                .button("+")
                .on_hover_text(tr.get("diagram.zoom_in"))
                .clicked()
            {
                self.zoom = (self.zoom * 1.2).min(*ZOOM.end());
            }
            ui.separator();
            super::legend::legend_ui(ui, palette, tr);
        });
        None
    }

    /// Paints the visible rows and gives each an accessible, clickable response.
    #[allow(clippy::too_many_arguments)]
    fn rows_ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        (rows, lines): (RowSet<'_>, &Lines),
        selected_row: Option<usize>,
        geo: &Geometry,
        palette: &Palette,
        viewport: Rect,
        measured: (usize, Vec<RowText>),
        tr: Words<'_>,
    ) -> (Option<usize>, Rect) {
        let diagram = &store.diagram;
        let origin = ui.max_rect().min;
        let dx = origin.x;
        let (first, last) = lines.in_view(viewport.min.y, viewport.max.y, geo.row_h);
        // The top of the row at a position's own arrow (its leads, the hops drawn above it,
        // come first), and of its whole block.
        let block_y = |pos: usize| origin.y + lines.top(pos) as f32 * geo.row_h;
        let arrow_y = |pos: usize| block_y(pos) + diagram.leads(rows.get(pos)) as f32 * geo.row_h;
        let painter = ui.painter().clone();
        let clip = ui.clip_rect();
        // Rows are hit only where they show: right of the time column, inside the view.
        let rows_clip = Rect::from_min_max(pos2(clip.left() + TIME_W, clip.top()), clip.max);
        let canvas = Canvas {
            painter: &painter,
            geo,
            palette,
            dx,
        };
        canvas.lesson_band(clip.top(), clip.bottom());
        canvas.lifelines(clip.top(), clip.bottom());

        // Interact first, so this frame's hover is painted this frame.
        let mut clicked = None;
        let mut hovered = None;
        let id = ui.scope_id().with("rows");
        // What the rows in view say, computed once per frame (the diagram stores no text): those
        // measured before the scroll area are drawn as they are.
        // Rows that came into view since (a jump, a reveal) are measured now, and drawn again
        // next frame if they need wider gaps.
        let (m_first, mut m_texts) = measured;
        let font = paint::row_font(geo.row_h);
        let mut grew = false;
        let texts: Vec<RowText> = (first..last)
            .map(
                |pos| match pos.checked_sub(m_first).and_then(|k| m_texts.get_mut(k)) {
                    Some(t) => std::mem::replace(
                        t,
                        RowText {
                            label: String::new(),
                            detail: None,
                            problem: None,
                        },
                    ),
                    None => {
                        let text = store.row_text(rows.get(pos));
                        let label_w = painter
                            .layout_no_wrap(text.label.clone(), font.clone(), egui::Color32::WHITE)
                            .size()
                            .x;
                        grew |= self
                            .seen
                            .add(Seen::need(geo, store, rows.get(pos), label_w));
                        text
                    }
                },
            )
            .collect();
        if grew {
            ui.ctx().request_repaint();
        }
        self.drawn.clear();
        self.clip = clip;
        for pos in first..last {
            let r = rows.get(pos);
            let row = &diagram.rows[r];
            let text = &texts[pos - first];
            let mcp = paint::is_mcp(&store.events[row.event()].channel);
            let (x0, x1) = geo.span(row, mcp);
            let y = block_y(pos);
            let h = lines.height(pos) as f32 * geo.row_h;
            let rect = Rect::from_min_max(pos2(x0 + dx - 6.0, y), pos2(x1 + dx + 6.0, y + h))
                .intersect(rows_clip);
            let response = ui.interact(rect, id.with(r), Sense::click());
            let marks = store.findings.marks(row.event());
            let seq = store.events[row.event()].seq;
            let label = super::badges::row_label(seq, &text.label, marks);
            response
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, label.clone()));
            if response.hovered() {
                hovered = Some(r);
            }
            if response.clicked() {
                clicked = Some(row.event());
            }
            if response.double_clicked()
                && let Some(pair) = row.pair()
            {
                clicked = Some(diagram.rows[pair].event());
            }
            // The whole label (cut when too long to draw), its detail, its findings.
            let mut hover = format!("#{seq} {}", text.label);
            if let Some(detail) = &text.detail {
                hover.push('\n');
                hover.push_str(detail);
            }
            if !marks.is_empty() {
                hover.push('\n');
                hover.push_str(&super::badges::tooltip(marks, tr));
            }
            for hop in diagram.hops(r) {
                hover.push_str("\n· ");
                hover.push_str(&hop.label_in(store.lang));
            }
            response.on_hover_text(hover);
        }
        self.hovered = hovered;

        // Bands behind the rows: the tool-call chain, the pair, the selection.
        let band = |pos: usize, color| {
            let (y, h) = (block_y(pos), lines.height(pos) as f32 * geo.row_h);
            painter.rect_filled(
                Rect::from_min_max(pos2(clip.left(), y), pos2(clip.right(), y + h)),
                0.0,
                color,
            );
        };
        let focus = [selected_row, hovered];
        for r in focus.iter().flatten() {
            let row = &diagram.rows[*r];
            for c in diagram.chain(*r) {
                if let Some(p) = rows.position(*c).filter(|p| (first..last).contains(p)) {
                    band(p, palette.chain);
                }
            }
            if let Some(p) = row
                .pair()
                .and_then(|p| rows.position(p))
                .filter(|p| (first..last).contains(p))
            {
                band(p, palette.pair);
            }
        }
        if let Some(p) = selected_row.and_then(|r| rows.position(r)) {
            band(p, palette.selection);
        }

        // Activation bars: each visible request, down to its response.
        for pos in first..last {
            let row = &diagram.rows[rows.get(pos)];
            let Some(pair) = row.pair().filter(|&p| p > rows.get(pos)) else {
                continue;
            };
            let Some(pair_pos) = rows.position(pair) else {
                continue;
            };
            if !matches!(row.style, Style::Request | Style::LlmRequest) {
                continue;
            }
            let mcp = paint::is_mcp(&store.events[row.event()].channel);
            let x = geo.x_of(row.to(), mcp) + dx;
            let y0 = arrow_y(pos) + geo.row_h * 0.62;
            let y1 = arrow_y(pair_pos) + geo.row_h * 0.62;
            let lit = focus.contains(&Some(rows.get(pos))) || focus.contains(&Some(pair));
            let latency = lit.then(|| store.row_text(pair).detail).flatten();
            let color = if lit {
                palette.request
            } else {
                palette.lifeline
            };
            // The detail's first part: the latency (`14 ms`).
            let latency = latency.as_deref().and_then(|d| d.split(", ").next());
            let (bar, label) = paint::activation(&painter, x, y0, y1, color, latency);
            for (rect, text) in [(Some(bar), ""), (label, latency.unwrap_or_default())] {
                self.drawn.extend(rect.map(|rect| DrawnLabel {
                    event: Some(row.event()),
                    text: text.to_string(),
                    rect,
                    elided: false,
                    bar: true,
                }));
            }
        }

        for pos in first..last {
            let r = rows.get(pos);
            let row = &diagram.rows[r];
            let mcp = paint::is_mcp(&store.events[row.event()].channel);
            let y = arrow_y(pos);
            let lit = focus.contains(&Some(r))
                || focus
                    .iter()
                    .flatten()
                    .any(|f| diagram.rows[*f].pair() == Some(r));
            let text = &texts[pos - first];
            let Drawn { rect, elided } = canvas.row(row, text, mcp, y, lit);
            self.drawn.push(DrawnLabel {
                event: Some(row.event()),
                text: text.label.clone(),
                rect,
                elided,
                bar: false,
            });
            let marks = store.findings.marks(row.event());
            if !marks.is_empty() {
                // After the label, or at the end of a note's box.
                super::badges::paint(
                    &painter,
                    rect.right() + 4.0,
                    rect.center().y,
                    marks,
                    palette,
                );
            }
            let top = block_y(pos);
            self.drawn
                .extend(hops::paint(&canvas, diagram, r, top, store.lang));
        }

        // The time column stays at the left edge while the rows scroll sideways.
        let time_rect =
            Rect::from_min_max(clip.min, pos2(clip.left() + TIME_W - 6.0, clip.bottom()));
        painter.rect_filled(time_rect, 0.0, ui.visuals().panel_fill);
        painter.vline(
            time_rect.right(),
            clip.y_range(),
            Stroke::new(1.0, palette.lifeline),
        );
        for pos in first..last {
            let row = &diagram.rows[rows.get(pos)];
            let y = arrow_y(pos) + geo.row_h * 0.5;
            painter.text(
                pos2(time_rect.right() - 4.0, y),
                egui::Align2::RIGHT_CENTER,
                paint::time_text(store.offset_us(row.event())),
                egui::FontId::monospace(10.5),
                palette.muted,
            );
        }
        (clicked, viewport)
    }
}
