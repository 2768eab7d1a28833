//! Text as every rendering shortens and times it: a cut to N characters marked with `…`, text
//! on one line, and microseconds written as milliseconds.
//!
//! The diagram's labels, the exports, the doctor's sentences and the host's error messages all
//! cut text and print latencies, and a reader compares them: the same exchange reads the same
//! in the app, a summary and a handout. One definition of each, pure, so every module may
//! share it. Characters are counted as `char`s, never bytes, so a cut never splits one.

use std::borrow::Cow;

/// At most `max` characters of `text`, followed by `…` when it was longer.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// As [`clip`], but with no white space left before the `…`: for words quoted inside a
/// sentence, where `get …` would read as two things.
pub fn clip_words(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => Cow::Owned(format!("{}…", text[..at].trim_end())),
        None => Cow::Borrowed(text),
    }
}

/// `text` on one line: each run of white space (line breaks too) one space, none at the ends.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Microseconds as whole milliseconds, rounded: `12 ms`. For latencies beside other words
/// (diagram rows, the summary), where a tenth of a millisecond is noise.
pub fn ms(us: i64) -> String {
    format!("{} ms", (us + 500).div_euclid(1000))
}

/// Microseconds as milliseconds with one decimal: `12.3 ms`. For tables and comparisons
/// (statistics, diffs), where sub-millisecond exchanges must not all read `0 ms`.
pub fn ms_tenths(us: i64) -> String {
    format!("{:.1} ms", us as f64 / 1000.0)
}

/// Microseconds as milliseconds with as many decimals as they need: `200 ms`, `1.5 ms`. For a
/// limit a person wrote (`check --max-latency`), said back as it was given.
pub fn ms_exact(us: i64) -> String {
    format!("{} ms", us as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_counts_characters_and_marks_itself() {
        assert_eq!(clip("ééééé", 3), "ééé…");
        assert_eq!(clip("abc", 3), "abc");
        assert!(matches!(clip("abc", 3), Cow::Borrowed(_)));
        assert_eq!(clip("abc", 0), "…");
        assert_eq!(clip_words("ab cdef", 3), "ab…");
        assert_eq!(clip_words("abcdef", 3), "abc…");
        assert_eq!(clip_words("abc", 3), "abc");
        assert_eq!(one_line("  a\n\t b  "), "a b");
    }

    #[test]
    fn milliseconds_in_their_three_precisions() {
        assert_eq!(ms(1_499), "1 ms");
        assert_eq!(ms(1_500), "2 ms");
        assert_eq!(ms(0), "0 ms");
        assert_eq!(ms_tenths(1_250), "1.2 ms");
        assert_eq!(ms_tenths(12_345), "12.3 ms");
        assert_eq!(ms_exact(200_000), "200 ms");
        assert_eq!(ms_exact(1_500), "1.5 ms");
    }
}
