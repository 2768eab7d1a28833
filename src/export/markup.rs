//! Escaping for the markup the exports write: XML (the SVG diagram, JUnit) and HTML (the
//! page that carries the web viewer, handouts). One home, so every export agrees on what a
//! reader can take: a trace is full of text nobody chose (tool descriptions, server errors,
//! poisoning attempts), and one character XML 1.0 cannot hold makes the whole file unreadable.

use std::fmt::Write as _;

/// XML text and attribute content, every character visible: markup characters escaped, and
/// control characters (line breaks too) and U+FFFE / U+FFFF, which XML 1.0 cannot hold,
/// written as `\uXXXX`. For one-line labels (SVG).
pub fn xml(text: &str) -> String {
    escape_xml(text, false)
}

/// As [`xml`], but tab, line feed and carriage return stay as they are: for messages whose
/// lines are part of what they say (JUnit failures).
pub fn xml_lines(text: &str) -> String {
    escape_xml(text, true)
}

fn escape_xml(text: &str, keep_lines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' if keep_lines => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// HTML text and attribute values (always quoted with `"`): `<`, `>`, `&` and `"` escaped.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_shows_controls() {
        assert_eq!(
            xml(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;"
        );
        assert_eq!(
            xml("a\u{0}b\u{1b}\n\u{fffe}"),
            "a\\u0000b\\u001B\\u000A\\uFFFE"
        );
        assert_eq!(xml("héllo ☃"), "héllo ☃");
    }

    /// JUnit's text keeps its lines, and never holds what XML 1.0 forbids (U+FFFE and
    /// U+FFFF got through the JUnit writer's own escaper before it used this one).
    #[test]
    fn xml_lines_keeps_line_breaks_and_nothing_xml_forbids() {
        assert_eq!(xml_lines("a\n\tb\r"), "a\n\tb\r");
        assert_eq!(
            xml_lines("\u{0}\u{1b}\u{7f}\u{fffe}\u{ffff}<"),
            "\\u0000\\u001B\\u007F\\uFFFE\\uFFFF&lt;"
        );
        for c in (0..=0x10ffff_u32).filter_map(char::from_u32) {
            let out = xml_lines(&c.to_string());
            let allowed = |c: char| {
                matches!(c, '\t' | '\n' | '\r')
                    || ('\u{20}'..='\u{d7ff}').contains(&c)
                    || ('\u{e000}'..='\u{fffd}').contains(&c)
                    || c >= '\u{10000}'
            };
            assert!(out.chars().all(allowed), "{:04X} -> {out:?}", c as u32);
        }
    }

    #[test]
    fn html_escapes_what_can_open_or_close_markup() {
        assert_eq!(
            html("<script>\"a\" & b</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; b&lt;/script&gt;"
        );
        assert_eq!(html("it's"), "it's");
    }
}
