//! Geometry and painting of the sequence diagram: where lanes sit, and how one row is drawn.
//!
//! Pure drawing: no interaction and no state. [`super::diagram`] decides which rows are visible
//! and calls in here for each. Positions are in content coordinates (the top left of the whole
//! diagram is 0,0) and turned into screen positions with an `origin`.

use std::sync::Arc;

mod bars;

use egui::epaint::{PathShape, PathStroke};
use egui::text::{LayoutJob, TextFormat, TextWrapping};
use egui::{
    Color32, CornerRadius, FontId, Galley, Painter, Rect, Shape, Stroke, StrokeKind, pos2, vec2,
};

use super::theme::{self, Palette};
use crate::analysis::diagram::layout::{self, Need};
use crate::analysis::diagram::{Diagram, LaneKind, Row, RowText, Style};
use crate::trace::Channel;
pub use bars::activation;

/// Width of the time column at the left.
pub const TIME_W: f32 = 70.0;
/// Height of the sticky lane headers.
pub const HEADER_H: f32 = 60.0;
/// Row height at zoom 1.
pub const ROW_H: f32 = 26.0;
/// At zoom 1 lanes share the width available, within these bounds, and a gap grows past them
/// to fit the labels between its lanes ([`crate::analysis::diagram::layout`]).
pub const LANE_W_MIN: f32 = 112.0;
pub const LANE_W_MAX: f32 = 230.0;
/// Extra width of the gap between the LLM API and the servers, where the lesson is written.
pub const GAP_W: f32 = 130.0;
/// The widest a label may grow at zoom 1 before it is cut with `…` (its whole text is in the
/// row's tooltip and the inspector): about the 60 characters the diagram's labels keep.
pub const LABEL_W_MAX: f32 = 460.0;
/// Room around an arrow's label: its arrowhead and a margin each side.
pub const LABEL_MARGIN: f32 = 16.0;

/// The font of a row's label at row height `row_h`.
pub fn row_font(row_h: f32) -> FontId {
    FontId::proportional((row_h * 0.46).clamp(9.0, 16.0))
}

/// The font of a lane's title.
pub fn title_font() -> FontId {
    FontId::proportional(14.0)
}

/// The font of the host's "MCP client" box.
pub fn client_font() -> FontId {
    FontId::proportional(10.5)
}

/// Where everything is, for one zoom level.
#[derive(Debug, Clone)]
pub struct Geometry {
    pub row_h: f32,
    /// The least distance between two lifelines, the least width of a note and a header box.
    pub lane_w: f32,
    /// Centre x of each lane's lifeline.
    pub lane_x: Vec<f32>,
    /// Width of each lane's header box: its title whole.
    pub box_w: Vec<f32>,
    /// The host lane, whose MCP client sits a little to the right of its lifeline.
    pub host: Option<usize>,
    pub client_dx: f32,
    /// The lesson gap between the LLM API and the first server: left and right x.
    pub gap: Option<(f32, f32)>,
    pub width: f32,
    /// The widest label before it is cut.
    pub label_max: f32,
}

impl Geometry {
    /// The row height, the least lane spacing and the host client's offset at `zoom`, before
    /// any label is measured: `(row_h, lane_w, client_dx)`.
    pub fn base(zoom: f32) -> (f32, f32, f32) {
        let row_h = (ROW_H * zoom).round().max(12.0);
        let lane_w = (LANE_W_MIN * zoom).round().max(60.0);
        (row_h, lane_w, lane_w * 0.24)
    }

    /// The layout at `zoom` for a view `width` wide: lanes share the width, and each gap grows
    /// to what `needs` ask (the rows' labels and notes, measured with [`row_font`]); a header
    /// box is as wide as `titles_w[i]`, its title's width, needs. Wider than the view, the
    /// diagram scrolls sideways.
    pub fn new(
        diagram: &Diagram,
        zoom: f32,
        width: f32,
        titles_w: &[f32],
        needs: &[Need],
    ) -> Geometry {
        let (row_h, lane_w, client_dx) = Geometry::base(zoom);
        let gap_w = GAP_W * zoom.clamp(0.7, 1.5);
        let llm_gap = lesson_gap(diagram);
        let n = diagram.lanes.len();
        // The least gaps; what the window has to spare is shared out after the labels.
        let least = lane_w;
        let box_w: Vec<f32> = (0..n)
            .map(|i| {
                let title = titles_w.get(i).copied().unwrap_or(0.0) + 16.0;
                (lane_w * 0.86).max(title)
            })
            .collect();
        // Between the LLM API's box and the first server's, room for the lesson.
        let min_gap: Vec<f32> = (0..n.saturating_sub(1))
            .map(|i| match Some(i) == llm_gap {
                true => gap_w + (box_w[i] + box_w[i + 1]) / 2.0,
                false => least,
            })
            .collect();
        let mut all: Vec<Need> = box_w
            .iter()
            .enumerate()
            .map(|(lane, &width)| Need::Header { lane, width })
            .collect();
        all.extend_from_slice(needs);
        let mut placed = layout::place(n, &min_gap, least / 2.0, &all);
        let spare = width - TIME_W - 8.0 - placed.width;
        layout::spread(&mut placed, spare, (LANE_W_MAX * zoom).max(least));
        let lane_x: Vec<f32> = placed.x.iter().map(|x| x + TIME_W).collect();
        let gap = llm_gap.map(|l| {
            let (a, b) = (
                lane_x[l] + box_w[l] / 2.0,
                lane_x[l + 1] - box_w[l + 1] / 2.0,
            );
            (a, b.max(a))
        });
        let host = diagram.lanes.iter().position(|l| l.kind == LaneKind::Host);
        Geometry {
            row_h,
            lane_w,
            lane_x,
            box_w,
            host,
            client_dx,
            gap,
            width: TIME_W + placed.width + 8.0,
            label_max: LABEL_W_MAX * zoom,
        }
    }

    /// How much room an arrow of row `row` needs for a label `label_w` wide (cut at
    /// [`Geometry::label_max`]): MCP arrows meet the host at its client, right of its lifeline.
    pub fn arrow_need(&self, row: &Row, mcp: bool, label_w: f32) -> Need {
        let at_host = [row.from(), row.to()].iter().any(|&l| Some(l) == self.host);
        let client = (mcp && at_host) || self.label_inset(row, mcp) > 0.0;
        let width =
            label_w.min(self.label_max) + LABEL_MARGIN + if client { self.client_dx } else { 0.0 };
        Need::Arrow {
            from: row.from(),
            to: row.to(),
            width,
        }
    }

    /// How far right of an arrow's left end its label starts: an arrow of the host's own
    /// (to the model) leaves the host's lifeline, and its label keeps right of the MCP
    /// client's lifeline beside it, whose activation bar (a sampling request waiting on the
    /// model) it would cross.
    pub fn label_inset(&self, row: &Row, mcp: bool) -> f32 {
        let host_left = self
            .host
            .is_some_and(|h| row.from().min(row.to()) == h && row.from() != row.to());
        if !mcp && host_left {
            self.client_dx
        } else {
            0.0
        }
    }

    /// How wide the note of a label `label_w` wide is drawn.
    pub fn note_w(&self, label_w: f32) -> f32 {
        (label_w.min(self.label_max) + 12.0).max(self.lane_w * 0.92)
    }

    /// The x where a row meets lane `lane`: MCP messages meet the host at its client.
    pub fn x_of(&self, lane: usize, mcp: bool) -> f32 {
        let x = self.lane_x.get(lane).copied().unwrap_or(TIME_W);
        if mcp && Some(lane) == self.host {
            x + self.client_dx
        } else {
            x
        }
    }

    /// The horizontal extent of a note on lane `lane` whose label is `label_w` wide: centred on
    /// its lifeline, moved sideways to stay inside the diagram.
    pub fn note_span(&self, lane: usize, label_w: f32) -> (f32, f32) {
        let x = self.x_of(lane, false);
        let w = self.note_w(label_w);
        let left = (x - w / 2.0).max(TIME_W).min(self.width - w);
        (left, left + w)
    }

    /// The horizontal extent of a row (arrow span, or the note box at its least width).
    pub fn span(&self, row: &Row, mcp: bool) -> (f32, f32) {
        if row.is_arrow() {
            let a = self.x_of(row.from(), mcp);
            let b = self.x_of(row.to(), mcp);
            (a.min(b), a.max(b))
        } else {
            let x = self.x_of(row.from(), false);
            (x - self.lane_w * 0.46, x + self.lane_w * 0.46)
        }
    }
}

/// The lane left of the lesson gap (the LLM API's), when a server stands right of it.
fn lesson_gap(diagram: &Diagram) -> Option<usize> {
    let llm = diagram.llm_lane()?;
    let next = diagram.lanes.get(llm + 1)?;
    (next.kind == LaneKind::Server).then_some(llm)
}

/// Whether an event travelled over MCP (so it meets the host at its client).
pub fn is_mcp(channel: &Channel) -> bool {
    matches!(channel, Channel::Stdio | Channel::Http)
}

/// A one-line label layout, cut with `…` at `max_width`.
pub fn one_line(
    painter: &Painter,
    text: &str,
    font: FontId,
    color: Color32,
    max_width: f32,
) -> Arc<Galley> {
    lines(painter, text, font, color, max_width, 1)
}

/// A layout of at most `max_rows` lines, cut with `…`.
pub fn lines(
    painter: &Painter,
    text: &str,
    font: FontId,
    color: Color32,
    max_width: f32,
    max_rows: usize,
) -> Arc<Galley> {
    let mut job = LayoutJob::single_section(text.to_string(), TextFormat::simple(font, color));
    job.wrap = TextWrapping {
        max_width: max_width.max(10.0),
        max_rows,
        break_anywhere: max_rows == 1,
        overflow_character: Some('…'),
    };
    painter.layout_job(job)
}

/// Where a row's label was drawn (a note's: its box), and whether it had to be cut to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drawn {
    pub rect: Rect,
    pub elided: bool,
}

/// What every drawing call needs: where to paint, the layout, the colours, and the screen x of
/// content x = 0 (it moves with horizontal scrolling).
pub struct Canvas<'a> {
    pub painter: &'a Painter,
    pub geo: &'a Geometry,
    pub palette: &'a Palette,
    pub dx: f32,
}

impl Canvas<'_> {
    /// Draws one row whose top is at screen `y`; `emphasis` for the selected or hovered row and
    /// its partner (thicker, with the detail after the label).
    /// Returns where the label was drawn, for a badge after it.
    pub fn row(&self, row: &Row, text: &RowText, mcp: bool, y: f32, emphasis: bool) -> Drawn {
        let (painter, geo) = (self.painter, self.geo);
        let color = self.palette.row_color(row.style, &row.status);
        let mid = y + geo.row_h * 0.62;
        let font = row_font(geo.row_h);
        let width = theme::width(&row.status) + if emphasis { 1.0 } else { 0.0 };
        if !row.is_arrow() {
            return self.note(row, &text.label, y, color, font);
        }
        let x0 = geo.x_of(row.from(), mcp) + self.dx;
        let x1 = geo.x_of(row.to(), mcp) + self.dx;
        let dir = if x1 >= x0 { 1.0 } else { -1.0 };
        let head = 8.0;
        let tip = pos2(x1, mid);
        let base = pos2(x1 - dir * head, mid);
        let stroke = Stroke::new(width, color);
        let line = [pos2(x0, mid), base];
        match row.style {
            Style::Notification => painter.extend(Shape::dashed_line(&line, stroke, 2.5, 3.0)),
            s if theme::dashed(s) => painter.extend(Shape::dashed_line(&line, stroke, 6.0, 4.0)),
            _ => {
                painter.line_segment(line, stroke);
            }
        }
        let wing = vec2(0.0, head * 0.5);
        if row.style == Style::Notification {
            // An open arrowhead: the sender does not wait for an answer.
            painter.add(PathShape::line(
                vec![base - wing, tip, base + wing],
                PathStroke::new(width, color),
            ));
        } else {
            painter.add(Shape::convex_polygon(
                vec![tip, base - wing, base + wing],
                color,
                Stroke::NONE,
            ));
        }
        let inset = geo.label_inset(row, mcp);
        let span = (x1 - x0).abs() - inset;
        let room = (span - 12.0).min(geo.label_max);
        let (shown, elided) = match &text.detail {
            Some(d) if emphasis => {
                let label_w = painter
                    .layout_no_wrap(text.label.clone(), font.clone(), color)
                    .size()
                    .x;
                (format!("{}  ({d})", text.label), label_w > room)
            }
            _ => (text.label.clone(), false),
        };
        let galley = one_line(painter, &shown, font, color, room);
        let elided = elided || (galley.elided && shown.len() == text.label.len());
        let left = x0.min(x1) + inset;
        let pos = pos2(
            left + (span - galley.size().x) / 2.0,
            mid - galley.size().y - 1.0,
        );
        let rect = Rect::from_min_size(pos, galley.size());
        painter.galley(pos, galley, color);
        Drawn { rect, elided }
    }

    /// A note on one lifeline: stderr lines, process events, the host's own notes.
    fn note(&self, row: &Row, label: &str, y: f32, color: Color32, font: FontId) -> Drawn {
        let (painter, geo) = (self.painter, self.geo);
        let galley = one_line(painter, label, font, color, geo.label_max);
        let (x0, x1) = geo.note_span(row.from(), galley.size().x);
        let rect = Rect::from_min_max(
            pos2(x0 + self.dx, y + 3.0),
            pos2(x1 + self.dx, y + geo.row_h - 2.0),
        );
        let fill = match row.style {
            Style::Stderr | Style::Process => self.palette.note_fill.gamma_multiply(0.6),
            _ => self.palette.note_fill,
        };
        painter.rect_filled(rect, CornerRadius::same(3), fill);
        painter.rect_stroke(
            rect,
            CornerRadius::same(3),
            Stroke::new(theme::width(&row.status) * 0.7, color.gamma_multiply(0.7)),
            StrokeKind::Inside,
        );
        let elided = galley.elided;
        let pos = pos2(rect.left() + 6.0, rect.center().y - galley.size().y / 2.0);
        painter.galley(pos, galley, color);
        Drawn { rect, elided }
    }

    /// The sticky header in `rect`: one box per lane titled `titles[i]`, the host's with its
    /// MCP client drawn inside. Returns where each title in view went.
    pub fn header(
        &self,
        diagram: &Diagram,
        titles: &[String],
        rect: Rect,
        client: &str,
    ) -> Vec<(usize, Drawn)> {
        let (painter, geo, palette) = (self.painter, self.geo, self.palette);
        let mut drawn = Vec::new();
        for (i, lane) in diagram.lanes.iter().enumerate() {
            let x = geo.lane_x[i] + self.dx;
            let w = geo.box_w.get(i).copied().unwrap_or(geo.lane_w * 0.86);
            let boxr =
                Rect::from_center_size(pos2(x, rect.center().y), vec2(w, rect.height() - 8.0));
            if boxr.right() < rect.left() + TIME_W || boxr.left() > rect.right() {
                continue;
            }
            let ink = match lane.kind {
                LaneKind::Llm => palette.llm,
                LaneKind::Server => palette.response,
                LaneKind::Host => palette.request,
                _ => palette.muted,
            };
            painter.rect_filled(boxr, CornerRadius::same(5), ink.gamma_multiply(0.15));
            painter.rect_stroke(
                boxr,
                CornerRadius::same(5),
                Stroke::new(1.2, ink),
                StrokeKind::Inside,
            );
            let font = title_font();
            let title = titles.get(i).map_or(lane.title.as_str(), String::as_str);
            if lane.kind == LaneKind::Host {
                let inner = Rect::from_min_max(
                    pos2(boxr.left() + 5.0, boxr.center().y - 1.0),
                    pos2(boxr.right() - 5.0, boxr.bottom() - 4.0),
                );
                painter.rect_stroke(
                    inner,
                    CornerRadius::same(3),
                    Stroke::new(1.0, ink),
                    StrokeKind::Inside,
                );
                let g = one_line(painter, client, client_font(), ink, inner.width() - 4.0);
                painter.galley(inner.center() - g.size() / 2.0, g.clone(), ink);
                let t = one_line(painter, title, font, ink, w - 8.0);
                let top = pos2(boxr.center().x, boxr.top() + 3.0 + t.size().y / 2.0);
                let at = top - t.rect.center().to_vec2();
                let rect = Rect::from_min_size(at, t.size());
                drawn.push((
                    i,
                    Drawn {
                        rect,
                        elided: t.elided || g.elided,
                    },
                ));
                painter.galley(at, t, ink);
            } else {
                let t = lines(painter, title, font, ink, w - 8.0, 2);
                let at = boxr.center() - t.rect.center().to_vec2();
                let rect = Rect::from_min_size(at, t.size());
                drawn.push((
                    i,
                    Drawn {
                        rect,
                        elided: t.elided,
                    },
                ));
                painter.galley(at, t, ink);
            }
        }
        drawn
    }

    /// The lifelines from `y0` to `y1`, and the host client's own dashed lifeline.
    pub fn lifelines(&self, y0: f32, y1: f32) {
        let stroke = Stroke::new(1.0, self.palette.lifeline);
        for (i, x) in self.geo.lane_x.iter().enumerate() {
            self.painter.vline(x + self.dx, y0..=y1, stroke);
            if Some(i) == self.geo.host {
                let cx = x + self.dx + self.geo.client_dx;
                self.painter.extend(Shape::dashed_line(
                    &[pos2(cx, y0), pos2(cx, y1)],
                    stroke,
                    3.0,
                    3.0,
                ));
            }
        }
    }

    /// The lesson, written in the header's gap between the LLM API and the servers.
    pub fn lesson(&self, rect: Rect, text: &str) {
        let Some((l, r)) = self.geo.gap else { return };
        let ink = self.palette.lesson;
        let width = r - l - 12.0;
        let galley = self
            .painter
            .layout(text.to_string(), FontId::proportional(11.5), ink, width);
        let x = l + self.dx + 6.0;
        let y = rect.center().y - galley.size().y / 2.0;
        self.painter.galley(pos2(x, y), galley, ink);
    }

    /// Below the header, the gap is a faint band: no arrow starts or ends in it.
    pub fn lesson_band(&self, y0: f32, y1: f32) {
        let Some((l, r)) = self.geo.gap else { return };
        let rect = Rect::from_min_max(pos2(l + self.dx + 8.0, y0), pos2(r + self.dx - 8.0, y1));
        self.painter
            .rect_filled(rect, 0.0, self.palette.lesson.gamma_multiply(0.06));
    }
}

/// The time of a row, `+1.234s`, or `+12.3 ms` in the first second.
pub fn time_text(offset_us: i64) -> String {
    let secs = offset_us as f64 / 1_000_000.0;
    if offset_us.abs() < 1_000_000 {
        format!("+{:.1} ms", offset_us as f64 / 1000.0)
    } else {
        format!("{secs:+.3} s")
    }
}
