//! The Markdown handout's escaping: whatever a server wrote, its text never becomes markup.
//! Escaped text is one line with no `<` or `>` and every character that opens emphasis, code,
//! a link, a table cell or a strikethrough behind a backslash; a code span's delimiter and a
//! code block's fence are longer than any run of backticks inside, so nothing closes them
//! early.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_fuzz::export::markup::{markdown, markdown_code, markdown_fence};

/// Whether the character at byte `at` of `s` has an odd number of backslashes before it.
fn escaped(s: &str, at: usize) -> bool {
    s.as_bytes()[..at]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
        % 2
        == 1
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let out = markdown(text);
    assert!(!out.contains(['<', '>', '\n', '\r']), "{out:?}");
    for (at, c) in out.char_indices() {
        if matches!(c, '`' | '*' | '[' | ']' | '|' | '~') {
            assert!(escaped(&out, at), "unescaped {c:?} in {out:?}");
        }
    }
    if !text.is_empty() {
        let span = markdown_code(text);
        let ticks = span.len() - span.trim_start_matches('`').len();
        let inner = &span[ticks..span.len() - ticks];
        assert!(!inner.contains(&"`".repeat(ticks)), "{span:?}");
    }
    let fence = markdown_fence(text);
    for line in text.lines() {
        assert!(!line.trim().starts_with(&fence), "{line:?} closes {fence}");
    }
});
