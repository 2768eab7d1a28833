//! The SVG's look: colors, arrowhead markers, the legend, and text escaping.

use std::fmt::Write as _;

use super::CHAR_W;

pub(super) const INK: &str = "#212121";
pub(super) const MUTED: &str = "#757575";
pub(super) const MCP: &str = "#1f4e8c";
pub(super) const LLM: &str = "#00796b";
pub(super) const NOTE: &str = "#616161";
pub(super) const ERROR: &str = "#c62828";
pub(super) const INVALID: &str = "#ef6c00";
pub(super) const UNANSWERED: &str = "#8e24aa";
pub(super) const PROBLEM: &str = "#b8860b";
pub(super) const LESSON: &str = "#ad1457";

/// Every stroke color, each with its own markers (`head-…`, `open-…`, `cross-…`).
const COLORS: [(&str, &str); 8] = [
    ("mcp", MCP),
    ("llm", LLM),
    ("note", NOTE),
    ("error", ERROR),
    ("invalid", INVALID),
    ("unanswered", UNANSWERED),
    ("problem", PROBLEM),
    ("ink", INK),
];

/// Markers for each color: a filled head, an open head (notifications), a cross (errors).
pub(super) fn defs() -> String {
    let mut s = String::from("<defs>\n");
    for (key, c) in COLORS {
        let _ = writeln!(
            s,
            r#"<marker id="head-{key}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#
        );
        let _ = writeln!(
            s,
            r#"<marker id="open-{key}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10" fill="none" stroke="{c}" stroke-width="1.5"/></marker>"#
        );
        let _ = writeln!(
            s,
            r#"<marker id="cross-{key}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto"><path d="M1,1 L9,9 M9,1 L1,9" stroke="{c}" stroke-width="2"/></marker>"#
        );
    }
    s.push_str("</defs>\n");
    s
}

/// The legend, laid out in lines that fit `width`; returns the markup and its height.
pub(super) fn legend(width: f64) -> (String, f64) {
    // (sample kind, color key, color, dash, text)
    let items: [(&str, &str, &str, &str, &str); 9] = [
        ("head", "mcp", MCP, "", "MCP request"),
        ("head", "mcp", MCP, "6 4", "MCP result"),
        ("open", "mcp", MCP, "2 3", "notification"),
        ("head", "llm", LLM, "", "LLM API request / response"),
        ("cross", "error", ERROR, "6 4", "error"),
        ("cross", "invalid", INVALID, "", "invalid JSON-RPC"),
        (
            "head",
            "unanswered",
            UNANSWERED,
            "",
            "unanswered / cancelled / orphan",
        ),
        ("head", "problem", PROBLEM, "", "problem"),
        ("note", "note", NOTE, "", "note: stderr, process, host"),
    ];
    let mut s = String::new();
    let (mut x, mut y) = (0.0, 0.0);
    for (kind, key, c, dash, text) in items {
        let w = 44.0 + text.len() as f64 * CHAR_W + 18.0;
        if x > 0.0 && x + w > width - 32.0 {
            x = 0.0;
            y += 20.0;
        }
        if kind == "note" {
            let _ = write!(
                s,
                r##"<rect x="{}" y="{}" width="30" height="12" rx="2" fill="#fffde7" stroke="{c}"/>"##,
                x + 2.0,
                y - 6.0
            );
        } else {
            let dash = if dash.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dash}""#)
            };
            let _ = write!(
                s,
                r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{c}" stroke-width="1.6"{dash} marker-end="url(#{kind}-{key})"/>"#,
                x + 34.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" fill="{c}">{}</text>"#,
            x + 42.0,
            y + 4.0,
            super::super::markup::xml(text)
        );
        x += w;
    }
    (s, y + 12.0)
}
