//! `sightline export --format svg`: the sequence diagram as one standalone SVG file, for slides.
//!
//! Lifelines with headers, a time column (`seq` and seconds since the first event), one arrow or
//! lifeline note per event, a legend, and the lesson written in the gap between the LLM API and
//! the first server: no line ever crosses it from the model to a server.
//!
//! Every event is one `<g class="row …" data-event="i" data-seq="…">` holding a `<title>` (the
//! full text, shown on hover), the `<line class="arrow">` or `<rect class="note">`, and its
//! label. Presentation attributes only, no CSS or scripts, so slide tools that import SVG keep
//! the look. Text is XML-escaped; characters XML 1.0 cannot hold are written as `\uXXXX`.

mod lanes;
mod style;

use std::fmt::Write as _;

use super::markup::xml;
use crate::analysis::Report;
use crate::analysis::diagram::{self, Diagram, LaneKind, Row, RowText, Status, Style};
use crate::i18n::Words;
use crate::trace::Event;
use crate::wire::text::clip;
use style::{
    ERROR, INK, INVALID, LESSON, LLM, MCP, MUTED, NOTE, PROBLEM, UNANSWERED, defs, legend,
};

const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
/// Width of the time column.
const TIME_W: f64 = 120.0;
const BOX_W: f64 = 150.0;
const HEADER_Y: f64 = 44.0;
const HEADER_H: f64 = 40.0;
/// Room under the headers for the lesson text.
const LESSON_H: f64 = 80.0;
pub const ROW_H: f64 = 30.0;
/// Approximate width of one character of 12px text.
const CHAR_W: f64 = 6.6;

/// Renders an already built diagram of `events`, in English.
pub fn render(d: &Diagram, events: &[Event], report: &Report) -> String {
    super::render_all(write_in, d, events, report)
}

/// Writes the SVG of rows `rows` of the diagram to `out` as it goes, with the title, the lanes,
/// the host's role and the lesson in the language of `words` (`export.*` keys; messages keep
/// their methods and names): what it holds at any time is one row's text, whatever the size of
/// the trace. The rows' texts are computed twice (once for the lanes' places and the document's
/// width, once to draw them) rather than kept.
pub fn write_in(
    out: &mut dyn std::io::Write,
    d: &Diagram,
    events: &[Event],
    report: &Report,
    rows: std::ops::Range<usize>,
    words: Words,
) -> std::io::Result<()> {
    let rows = super::rows_within(d, rows);
    let lanes = place(d, events, report, rows.clone(), words);
    let (xs, width) = (lanes.xs, lanes.width);
    let count = rows.len();
    let rows_top = HEADER_Y + HEADER_H + LESSON_H;
    // Each row's top: the arrows inside its exchange (hops) take a line each, above or under it.
    let mut tops = Vec::with_capacity(count);
    let mut lines = 0;
    for i in rows.clone() {
        tops.push(rows_top + lines as f64 * ROW_H);
        lines += 1 + d.hops(i).len();
    }
    let rows_end = rows_top + lines as f64 * ROW_H;
    let (legend, legend_h) = legend(width);
    let height = (rows_end + 20.0 + legend_h + 16.0).ceil();

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{}" font-size="12" fill="{INK}">"#,
        xml(FONT)
    );
    // The servers the trace recorded and those only an LLM API connected to (remote).
    let remote = d
        .lanes
        .iter()
        .filter(|l| l.kind == LaneKind::Remote)
        .count();
    let servers = (d.server_lanes().len() + remote).to_string();
    let counts = [("count", count.to_string()), ("servers", servers)];
    let counts: Vec<(&str, &str)> = counts.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let _ = writeln!(
        s,
        "<title>{}</title>",
        xml(&words.fmt("export.svg_title", &counts))
    );
    s.push_str(&defs());
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="24" font-size="14" font-weight="bold">{}</text>"#,
        xml(&words.fmt("export.svg_header", &counts))
    );
    out.write_all(s.as_bytes())?;

    // Zebra stripes and the time column.
    for (k, i) in rows.clone().enumerate() {
        s.clear();
        let row = &d.rows[i];
        let y = tops[k];
        if k % 2 == 1 {
            let _ = writeln!(
                s,
                r##"<rect x="0" y="{y}" width="{width}" height="{ROW_H}" fill="#f7f7f7"/>"##
            );
        }
        let mid = y + ROW_H / 2.0 + 4.0;
        let _ = writeln!(
            s,
            r#"<text x="16" y="{mid}" fill="{MUTED}">#{}</text><text x="{}" y="{mid}" text-anchor="end" fill="{MUTED}">{:+.3}s</text>"#,
            events.get(row.event()).map_or(0, |e| e.seq),
            TIME_W - 14.0,
            diagram::offset_us(events, row.event()) as f64 / 1e6
        );
        out.write_all(s.as_bytes())?;
    }

    s.clear();
    lesson(&mut s, d, &xs, rows_top, rows_end, words);

    // Lifelines and headers.
    for (i, lane) in d.lanes.iter().enumerate() {
        let x = xs[i];
        let _ = writeln!(
            s,
            r##"<line class="lifeline" x1="{x}" y1="{}" x2="{x}" y2="{rows_end}" stroke="#9e9e9e" stroke-dasharray="4 4"/>"##,
            HEADER_Y + HEADER_H
        );
        let (fill, stroke) = match lane.kind {
            LaneKind::User => ("#f5f5f5", "#9e9e9e"),
            LaneKind::Host => ("#e3ecfa", MCP),
            LaneKind::Llm => ("#e0f2f1", LLM),
            LaneKind::Server => ("#fff8e1", "#c49000"),
            // On the API's side: its platform is the client.
            LaneKind::Remote => ("#fff8e1", LLM),
            LaneKind::Other => ("#eeeeee", "#9e9e9e"),
        };
        let _ = writeln!(
            s,
            r#"<rect class="lane" x="{}" y="{HEADER_Y}" width="{BOX_W}" height="{HEADER_H}" rx="6" fill="{fill}" stroke="{stroke}"/>"#,
            x - BOX_W / 2.0
        );
        // The host and a remote server say their role under their name, in small type.
        let (title, role) = match lane.kind {
            LaneKind::Host => (
                super::lane_title(words, lane),
                Some(words.get("export.host_role")),
            ),
            LaneKind::Remote => (lane.title.clone(), Some(words.get("export.remote_role"))),
            _ => (super::lane_title(words, lane), None),
        };
        let title = xml(&clip(&title, 20));
        let role = role.map(role_lines).unwrap_or_default();
        // The name's baseline and the role's first, by the role's number of lines.
        let (title_y, role_y) = match role.len() {
            0 => (HEADER_Y + 25.0, 0.0),
            1 => (HEADER_Y + 17.0, HEADER_Y + 32.0),
            _ => (HEADER_Y + 13.0, HEADER_Y + 25.0),
        };
        let _ = write!(
            s,
            r#"<text x="{x}" y="{title_y}" text-anchor="middle" font-weight="bold">{title}</text>"#
        );
        if !role.is_empty() {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{role_y}" text-anchor="middle" font-size="10" fill="{MUTED}">"#
            );
            for (i, line) in role.iter().enumerate() {
                let dy = if i == 0 { 0.0 } else { 10.5 };
                let _ = write!(s, r#"<tspan x="{x}" dy="{dy}">{}</tspan>"#, xml(line));
            }
            s.push_str("</text>");
        }
        s.push('\n');
    }
    out.write_all(s.as_bytes())?;

    for (k, i) in rows.enumerate() {
        s.clear();
        let row = &d.rows[i];
        let text = super::row_text(d, events, report, i, words);
        let seq = events.get(row.event()).map_or(0, |e| e.seq);
        let leads = d.leads(i);
        draw_row(&mut s, row, seq, &text, &xs, tops[k] + leads as f64 * ROW_H);
        for (line, hop) in d.hop_lines(i) {
            let drawn = hop.row(row.event());
            let text = hop_text(hop, words);
            s.push_str(r#"<g class="hop">"#);
            draw_row(
                &mut s,
                &drawn,
                seq,
                &text,
                &xs,
                tops[k] + line as f64 * ROW_H,
            );
            s.push_str("</g>\n");
        }
        out.write_all(s.as_bytes())?;
    }

    s.clear();
    let _ = writeln!(
        s,
        r#"<g class="legend" transform="translate(16 {})">{legend}</g>"#,
        rows_end + 20.0
    );
    s.push_str("</svg>\n");
    out.write_all(s.as_bytes())
}

/// A lane's role, on one line or, when wider than its header box, two split at a space.
fn role_lines(role: &str) -> Vec<&str> {
    let chars = role.chars().count();
    if chars <= 26 {
        return vec![role];
    }
    let middle = role.char_indices().nth(chars / 2).map_or(0, |(at, _)| at);
    let split = role
        .match_indices(' ')
        .map(|(at, _)| at)
        .min_by_key(|at| at.abs_diff(middle));
    match split {
        Some(at) => vec![&role[..at], &role[at + 1..]],
        None => vec![role],
    }
}

/// The lanes placed for the texts of rows `rows` and of their hops (a first pass over the rows,
/// keeping only the widest text per pair of lanes and per lane).
fn place(
    d: &Diagram,
    events: &[Event],
    report: &Report,
    rows: std::ops::Range<usize>,
    words: Words,
) -> lanes::Lanes {
    let mut needs = lanes::Needs::default();
    for i in rows {
        let row = &d.rows[i];
        let text = super::row_text(d, events, report, i, words);
        let (label, detail) = shown(&text);
        needs.add(row, lanes::text_w(&label, &detail));
        for hop in d.hops(i) {
            let text = hop_text(hop, words);
            let (label, detail) = shown(&text);
            needs.add(&hop.row(row.event()), lanes::text_w(&label, &detail));
        }
    }
    needs.place(d)
}

/// A hop's text: its label alone.
fn hop_text(hop: &diagram::Hop, words: Words) -> RowText {
    RowText {
        label: hop.label_in(words.lang),
        detail: None,
        problem: None,
    }
}

/// The band between the LLM lifeline and the first server's, and what it means.
fn lesson(s: &mut String, d: &Diagram, xs: &[f64], rows_top: f64, rows_end: f64, words: Words) {
    let (Some(llm), Some(&server)) = (d.llm_lane(), d.server_lanes().first()) else {
        return;
    };
    let (left, right) = (xs[llm] + 16.0, xs[server] - 16.0);
    if right <= left {
        return;
    }
    let mid = (left + right) / 2.0;
    let lines = d.lesson_lines(words);
    let _ = writeln!(
        s,
        r#"<rect class="gap" x="{left}" y="{}" width="{}" height="{}" fill="{LESSON}" fill-opacity="0.05"/>"#,
        HEADER_Y + HEADER_H + 6.0,
        right - left,
        rows_end - (HEADER_Y + HEADER_H + 6.0)
    );
    let _ = write!(
        s,
        r#"<text class="lesson" x="{mid}" y="{}" text-anchor="middle" font-size="12.5" font-style="italic" font-weight="600" fill="{LESSON}">"#,
        rows_top - LESSON_H + 18.0
    );
    for (i, line) in lines.iter().enumerate() {
        let dy = if i == 0 { 0.0 } else { 15.0 };
        let _ = write!(s, r#"<tspan x="{mid}" dy="{dy}">{}</tspan>"#, xml(line));
    }
    s.push_str("</text>\n");
}

fn color(row: &Row) -> (&'static str, &'static str) {
    match &row.status {
        Status::Error => ("error", ERROR),
        Status::Invalid => ("invalid", INVALID),
        Status::Unanswered | Status::Cancelled | Status::Orphan => ("unanswered", UNANSWERED),
        Status::Problem => ("problem", PROBLEM),
        Status::Ok => match row.style {
            Style::LlmRequest | Style::LlmResponse => ("llm", LLM),
            Style::Note | Style::Process | Style::Stderr => ("note", NOTE),
            _ => ("mcp", MCP),
        },
    }
}

/// The label and detail a row's text is drawn with: as much of them as Mermaid's line
/// (`label · detail`) shows, the problem after the detail.
fn shown(text: &RowText) -> (String, String) {
    let problem = text.problem.as_deref();
    let detail = [text.detail.as_deref(), problem]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
    let label = clip(&text.label, super::LINE_CHARS).into_owned();
    let room = super::LINE_CHARS.saturating_sub(label.chars().count() + 3);
    (label, clip(&detail, room).into_owned())
}

fn draw_row(s: &mut String, row: &Row, seq: u64, text: &RowText, xs: &[f64], top: f64) {
    let (key, stroke) = color(row);
    let problem = text.problem.as_deref();
    let (label, short_detail) = shown(text);
    let text_w = lanes::text_w(&label, &short_detail);
    let mut full = text.label.clone();
    for extra in [text.detail.as_deref(), problem].into_iter().flatten() {
        let _ = write!(full, " | {extra}");
    }
    let _ = write!(
        s,
        r#"<g class="row {} {}" data-event="{}" data-seq="{}"><title>#{} {}</title>"#,
        row.style.as_str(),
        row.status.as_str(),
        row.event(),
        seq,
        seq,
        xml(&full)
    );
    let label = xml(&label);
    let detail = if short_detail.is_empty() {
        String::new()
    } else {
        format!(
            r#"<tspan dx="{}" fill="{MUTED}" font-size="10.5">{}</tspan>"#,
            lanes::DETAIL_DX,
            xml(&short_detail)
        )
    };
    let (x1, x2) = (xs[row.from()], xs[row.to()]);
    if row.is_arrow() {
        let y = top + ROW_H - 9.0;
        let dash = match row.style {
            Style::Response | Style::LlmResponse | Style::Error => r#" stroke-dasharray="6 4""#,
            Style::Notification => r#" stroke-dasharray="2 3""#,
            _ => "",
        };
        let marker = match (row.style, &row.status) {
            (Style::Error | Style::Invalid, _) | (_, Status::Error) => "cross",
            (Style::Notification, _) => "open",
            _ => "head",
        };
        let _ = write!(
            s,
            r#"<line class="arrow" x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="{stroke}" stroke-width="1.6"{dash} marker-end="url(#{marker}-{key})"/>"#
        );
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" fill="{stroke}">{label}{detail}</text>"#,
            x1.min(x2) + lanes::ARROW_TEXT_DX,
            y - 5.0
        );
    } else {
        // From 6 px right of the lifeline to 8 px past the text's end.
        let note_w = (lanes::NOTE_TEXT_DX - 6.0 + text_w + 8.0).ceil();
        let _ = write!(
            s,
            r##"<rect class="note" x="{}" y="{}" width="{note_w}" height="{}" rx="3" fill="#fffde7" stroke="{stroke}"/>"##,
            x1 + 6.0,
            top + 5.0,
            ROW_H - 10.0
        );
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" fill="{stroke}">{label}{detail}</text>"#,
            x1 + lanes::NOTE_TEXT_DX,
            top + ROW_H / 2.0 + 4.0
        );
    }
    s.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::role_lines;

    #[test]
    fn a_long_role_takes_two_lines_split_near_its_middle() {
        assert_eq!(
            role_lines("LLM loop + MCP client"),
            ["LLM loop + MCP client"]
        );
        assert_eq!(
            role_lines("remote: the LLM API is its MCP client"),
            ["remote: the LLM API", "is its MCP client"]
        );
        assert_eq!(role_lines(&"x".repeat(30)), [&"x".repeat(30)]);
    }
}
