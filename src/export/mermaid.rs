//! `sightline export --format mermaid`: the sequence diagram as Mermaid text, for READMEs,
//! issues and slides (GitHub renders it in a ```` ```mermaid ```` block).
//!
//! ```text
//! sequenceDiagram
//!     participant U as User
//!     box Host (LLM loop + MCP client)
//!     participant H as Host
//!     end
//!     participant L as LLM API
//!     participant S1 as weather
//!     U->>H: What's the weather in Seoul right now?
//!     Note over S1: spawned sightline demo-server weather · pid 3320
//!     H->>S1: initialize 2025-11-25 · id 0
//!     S1-->>H: result initialize 2025-11-25 · 5 ms, id 0
//!     ...
//!     Note over L,S1: the model never talks to the server: the host sits in the middle (0 direct messages)
//! ```
//!
//! Exactly one message or note line per event, in trace order: requests `->>`, results `-->>`,
//! notifications `-)`, error responses `--x`, invalid payloads `-x`, and `Note over` the
//! lifeline for stderr, process events and the host's own notes. No `autonumber`: the numbers
//! would not be the trace's `seq`. Text is made safe for Mermaid: `#`, `;`, `%`, `<`, `>`, `&`,
//! `[`, `]` become entity codes (`#35;`, `#59;`, ...); control characters are already shown as
//! `\u{..}` by the diagram's labels.

use std::fmt::Write as _;

use crate::analysis::Report;
use crate::analysis::chars::{self, Spelling};
use crate::analysis::diagram::{self, Diagram, LaneKind, RowText, Status, Style};
use crate::i18n::Words;
use crate::trace::Event;

/// Renders an already built diagram of `events`, in English.
pub fn render(d: &Diagram, events: &[Event], report: &Report) -> String {
    super::render_all(write_in, d, events, report)
}

/// Writes the Mermaid text of rows `rows` of the diagram to `w`, one line at a time, with the
/// lanes, the host's box and the lesson in the language of `words` (`export.*` keys). Messages
/// keep their methods and names.
pub fn write_in(
    w: &mut dyn std::io::Write,
    d: &Diagram,
    events: &[Event],
    report: &Report,
    rows: std::ops::Range<usize>,
    words: Words,
) -> std::io::Result<()> {
    let rows = super::rows_within(d, rows);
    let aliases = aliases(d);
    let mut out = String::from("sequenceDiagram\n");
    for (i, lane) in d.lanes.iter().enumerate() {
        let title = super::lane_title(words, lane);
        let title = if title.is_empty() {
            words.get("export.unnamed").to_string()
        } else {
            escape(&title, words)
        };
        let line = format!("    participant {} as {title}\n", aliases[i]);
        if lane.kind == LaneKind::Host {
            let _ = writeln!(
                out,
                "    box {}",
                escape(words.get("export.host_box"), words)
            );
            out.push_str(&line);
            out.push_str("    end\n");
        } else {
            out.push_str(&line);
        }
    }
    for i in rows {
        w.write_all(out.as_bytes())?;
        out.clear();
        let row = &d.rows[i];
        hops(&mut out, d, i, &aliases, true, words);
        let RowText {
            label,
            detail,
            problem,
        } = super::row_text(d, events, report, i, words);
        let mut text = label;
        // The label or the detail already says every status but a problem.
        let extra = [detail, problem];
        let extra: Vec<String> = extra.into_iter().flatten().collect();
        if !extra.is_empty() {
            let _ = write!(text, " · {}", extra.join(", "));
        }
        let text = escape(&diagram::visible(&text, super::LINE_CHARS), words);
        let (from, to) = (&aliases[row.from()], &aliases[row.to()]);
        if !row.is_arrow() {
            let _ = writeln!(out, "    Note over {from}: {text}");
            hops(&mut out, d, i, &aliases, false, words);
            continue;
        }
        let arrow = match row.style {
            Style::Request | Style::LlmRequest | Style::Note => "->>",
            Style::Response | Style::LlmResponse => "-->>",
            Style::Notification => "-)",
            Style::Error => "--x",
            Style::Invalid => "-x",
            // Process and stderr rows are always notes; keep a plain arrow if one is not.
            Style::Process | Style::Stderr => "->>",
        };
        let arrow = match (&row.status, arrow) {
            (Status::Error, "->>" | "-->>") => "--x",
            _ => arrow,
        };
        let _ = writeln!(out, "    {from}{arrow}{to}: {text}");
        hops(&mut out, d, i, &aliases, false, words);
    }
    if let (Some(llm), Some(&last)) = (d.llm_lane(), d.server_lanes().last()) {
        let lesson = escape(&d.lesson(words), words);
        let _ = writeln!(
            out,
            "    Note over {},{}: {lesson}",
            aliases[llm], aliases[last]
        );
    }
    w.write_all(out.as_bytes())
}

/// The arrows inside row `row`'s exchange ([`Diagram::hops`]) in the language of `words`: its
/// leads (`lead`, drawn before the row), or the others (after it).
fn hops(out: &mut String, d: &Diagram, row: usize, aliases: &[String], lead: bool, words: Words) {
    for hop in d.hops(row).iter().filter(|h| h.lead == lead) {
        let label = hop.label_in(words.lang);
        let text = escape(&diagram::visible(&label, super::LINE_CHARS), words);
        let (from, to) = (&aliases[hop.from], &aliases[hop.to]);
        if hop.from == hop.to {
            let _ = writeln!(out, "    Note over {from}: {text}");
            continue;
        }
        let arrow = match hop.style {
            Style::Response => "-->>",
            Style::Error => "--x",
            _ => "->>",
        };
        let _ = writeln!(out, "    {from}{arrow}{to}: {text}");
    }
}

/// `U`, `H`, `L`, `S1`, `S2`, ..., `R1` (a remote server the API connects to), `X1`, ... in
/// lane order.
fn aliases(d: &Diagram) -> Vec<String> {
    let (mut servers, mut remotes, mut others) = (0, 0, 0);
    d.lanes
        .iter()
        .map(|lane| match lane.kind {
            LaneKind::User => "U".to_string(),
            LaneKind::Host => "H".to_string(),
            LaneKind::Llm => "L".to_string(),
            LaneKind::Server => {
                servers += 1;
                format!("S{servers}")
            }
            LaneKind::Remote => {
                remotes += 1;
                format!("R{remotes}")
            }
            LaneKind::Other => {
                others += 1;
                format!("X{others}")
            }
        })
        .collect()
}

/// Text Mermaid takes after `:` or `as`: one line, no `#` (comments), `;` (statement break) or
/// `%` (`%%` comments), no HTML or Markdown links; and never starting with `wrap:`/`nowrap:`;
/// never empty (`(empty)` in `words`, as the diagram's own rows say it).
fn escape(text: &str, words: Words) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '%' => out.push_str("#37;"),
            '&' => out.push_str("#38;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            '[' => out.push_str("#91;"),
            ']' => out.push_str("#93;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => chars::push_escaped(&mut out, c, Spelling::Padded),
            c => out.push(c),
        }
    }
    let trimmed = out.trim();
    let lower = trimmed.to_ascii_lowercase();
    let out = if lower.starts_with("wrap:") || lower.starts_with("nowrap:") {
        trimmed.replacen(':', "#58;", 1)
    } else {
        trimmed.to_string()
    };
    if out.is_empty() {
        words.get("label.empty").to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Language;

    #[test]
    fn escape_removes_what_mermaid_cannot_take() {
        let en = Words::of(Language::En);
        assert_eq!(escape("a#b;c%%d", en), "a#35;b#59;c#37;#37;d");
        assert_eq!(escape("<b>[x](y) & z", en), "#60;b#62;#91;x#93;(y) #38; z");
        assert_eq!(escape("one\ntwo\u{7}", en), "one two\\u{0007}");
        assert_eq!(escape("wrap: me", en), "wrap#58; me");
        assert_eq!(escape("  ", en), "(empty)");
        assert_eq!(escape("  ", Words::of(Language::Pt)), "(vazio)");
        assert_eq!(escape("a: b: c", en), "a: b: c");
    }
}
