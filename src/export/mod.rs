//! Renderings of a loaded trace for people and other tools.
//!
//! Each exporter reads a trace and its [`crate::analysis::Report`] and writes text; none of them
//! changes the trace. `handout` is a printable page for a class (the diagram, then each step
//! narrated with its raw message). `mermaid` and `svg` draw the sequence diagram built by
//! [`crate::analysis::diagram`], the same model the app draws; `otlp` maps the trace to
//! OpenTelemetry spans and sends them to a tracing backend.

pub mod check;
pub mod context;
pub mod diff;
pub mod handout;
pub mod har;
pub mod html;
pub mod markup;
pub mod mermaid;
pub mod otlp;
pub mod replay;
pub mod stats;
pub mod summary;
pub mod svg;

#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::analysis::Report;
use crate::analysis::diagram::Diagram;
use crate::i18n::{Language, Words};
use crate::trace::Event;

/// How a diagram export ([`mermaid::write_in`], [`svg::write_in`]) writes rows of a diagram in
/// the language of `words`, as it goes.
type WriteIn = fn(
    &mut dyn std::io::Write,
    &Diagram,
    &[Event],
    &Report,
    Range<usize>,
    Words,
) -> std::io::Result<()>;

/// The whole diagram written into memory by `write_in`, in the language of `words`.
fn render_in(
    write_in: WriteIn,
    d: &Diagram,
    events: &[Event],
    report: &Report,
    words: Words,
) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_in(&mut out, d, events, report, 0..d.rows.len(), words);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`render_in`] in English.
fn render_all(write_in: WriteIn, d: &Diagram, events: &[Event], report: &Report) -> String {
    render_in(write_in, d, events, report, Words::of(Language::En))
}

/// Longest text of a row, its label and detail together, in characters, in the pictures that
/// write it on one line (Mermaid, SVG). The SVG shows as much of it as Mermaid does, so that
/// Sightline's own picture never says less than Mermaid's (tests/mermaid/check.mjs).
const LINE_CHARS: usize = 120;

/// Row `i`'s text as the diagram exports write it, in the language of `words`: its problem said
/// as one (`problem: …`, `export.problem`).
fn row_text(
    d: &Diagram,
    events: &[Event],
    report: &Report,
    i: usize,
    words: Words,
) -> crate::analysis::diagram::RowText {
    let mut text = d.text(events, report, i, words.lang);
    text.problem = text
        .problem
        .map(|p| words.fmt("export.problem", &[("problem", &p)]));
    text
}

/// `rows` cut to the rows the diagram has.
fn rows_within(d: &Diagram, rows: Range<usize>) -> Range<usize> {
    rows.start.min(d.rows.len())..rows.end.min(d.rows.len())
}

/// A lane's header in an export, in the language of `words`: the user, the host and the model
/// by name (`export.lane_*`), a server or an unknown lane by its own.
pub fn lane_title(words: crate::i18n::Words, lane: &crate::analysis::diagram::LaneInfo) -> String {
    use crate::analysis::diagram::LaneKind;
    match lane.kind {
        LaneKind::User => words.get("export.lane_user").to_string(),
        LaneKind::Host => words.get("export.lane_host").to_string(),
        LaneKind::Llm => words.get("export.lane_llm").to_string(),
        LaneKind::Remote => words.fmt(
            "export.lane_remote",
            &[
                ("name", &lane.title),
                ("role", words.get("export.remote_role")),
            ],
        ),
        LaneKind::Server | LaneKind::Other => lane.title.clone(),
    }
}
