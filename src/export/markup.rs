//! Escaping for the markup the exports write: XML (the SVG diagram, JUnit), HTML (the
//! page that carries the web viewer, handouts) and Markdown (the Markdown handout, which is
//! meant to be published: MkDocs, pandoc and wikis render raw HTML in it). One home, so every export agrees on what a
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

/// Markdown inline text, shown as it is written and never as markup: on one line (line breaks
/// become spaces), `<`, `>` and `&` as HTML entities (no raw HTML, no autolink), a backslash
/// before every character that can open emphasis, a code span, a link, a table cell or a
/// strikethrough, and before a first character that would start a block (a heading, a list,
/// a quote). Letters, digits and `_` inside a word stay as they are (`get_weather`).
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    for (i, &c) in chars.iter().enumerate() {
        let word = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '_' if word(i.checked_sub(1)) && word(Some(i + 1)) => out.push('_'),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '#' | '-' | '+' | '=' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if chars[..i].iter().all(char::is_ascii_digit) && i > 0 => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as one Markdown code span: delimited by more backticks than any run inside it, so
/// nothing in it can close the span early; line breaks become spaces.
pub fn markdown_code(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let fence = "`".repeat(longest_run(&text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The fence for a Markdown fenced code block holding `text`: backticks, more than any run of
/// them in the text (at least three), so no line of it can close the block.
pub fn markdown_fence(text: &str) -> String {
    "`".repeat((longest_run(text, '`') + 1).max(3))
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for x in text.chars() {
        run = if x == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
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

    #[test]
    fn markdown_text_is_never_markup() {
        assert_eq!(
            markdown("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(markdown("a\n```\n# b"), "a \\`\\`\\` # b");
        assert_eq!(markdown("# heading"), "\\# heading");
        assert_eq!(markdown("1. list"), "1\\. list");
        assert_eq!(markdown("[x](javascript:y)"), "\\[x\\](javascript:y)");
        assert_eq!(markdown("get_weather _em_"), "get_weather \\_em\\_");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`a"), "`` `a ``");
        assert_eq!(markdown_fence("x ```` y"), "`````");
        assert_eq!(markdown_fence("plain"), "```");
    }
}
