//! Showing text exactly, including what would not show: control and invisible characters.
//!
//! Tool poisoning hides instructions in zero-width spaces, bidirectional overrides and Unicode
//! tag characters; a terminal or a text widget renders them as nothing at all. Every string the
//! app shows from a trace goes through here: each such character becomes a visible `\u{…}`
//! escape, drawn in a warning colour. What is hidden and how it is written out are
//! [`chars`]'s, shared with the diagram's labels and the poisoning excerpts.

use std::borrow::Cow;

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId};

/// Whether a character must be written out to be seen: the one rule, the analysis's.
pub use crate::analysis::chars::is_hidden;
use crate::analysis::chars::{self, Spelling};

/// `s` with every hidden character written as `\u{hex}`. Borrowed when there is none.
pub fn escape(s: &str) -> Cow<'_, str> {
    chars::escape(s, Spelling::Short)
}

/// How many hidden characters `s` holds.
pub fn hidden_count(s: &str) -> usize {
    s.chars().filter(|&c| is_hidden(c)).count()
}

/// A layout of `s` in `font`/`color`, with each hidden character as a `\u{…}` escape in `warn`.
/// With `keep_lines`, a line feed is shown as its escape *and* breaks the line (SSE bodies,
/// multi-line text); otherwise everything stays on one line.
pub fn job(s: &str, font: FontId, color: Color32, warn: Color32, keep_lines: bool) -> LayoutJob {
    let mut job = LayoutJob::default();
    append(&mut job, s, font, color, warn, keep_lines);
    job
}

/// Appends `s` to `job` as [`job`] lays it out.
pub fn append(
    job: &mut LayoutJob,
    s: &str,
    font: FontId,
    color: Color32,
    warn: Color32,
    keep_lines: bool,
) {
    let plain = TextFormat::simple(font.clone(), color);
    let mut marked = TextFormat::simple(font, warn);
    marked.background = warn.gamma_multiply(0.15);
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if is_hidden(c) {
            if start < i {
                job.append(&s[start..i], 0.0, plain.clone());
            }
            let mut shown = String::new();
            chars::push_escaped(&mut shown, c, Spelling::Short);
            job.append(&shown, 0.0, marked.clone());
            if keep_lines && c == '\n' {
                job.append("\n", 0.0, plain.clone());
            }
            start = i + c.len_utf8();
        }
    }
    if start < s.len() {
        job.append(&s[start..], 0.0, plain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_become_escapes_and_plain_text_is_borrowed() {
        assert!(matches!(escape("get_weather"), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(escape("x\ty\u{e0041}"), "x\\u{9}y\\u{e0041}");
        assert_eq!(escape("\u{202e}evil"), "\\u{202e}evil");
        assert_eq!(hidden_count("a\u{feff}\u{7}"), 2);
        assert_eq!(escape("olá, 世界 🌦"), "olá, 世界 🌦");
    }

    #[test]
    fn a_layout_never_contains_a_hidden_character() {
        let j = job(
            "ab\u{200d}c\n",
            FontId::monospace(12.0),
            Color32::WHITE,
            Color32::RED,
            false,
        );
        assert!(!j.text.chars().any(is_hidden));
        assert_eq!(j.text, "ab\\u{200d}c\\u{a}");
        let lines = job(
            "a\nb",
            FontId::monospace(12.0),
            Color32::WHITE,
            Color32::RED,
            true,
        );
        assert_eq!(lines.text, "a\\u{a}\nb");
    }
}
