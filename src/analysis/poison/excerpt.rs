//! Excerpts: a finding's characters quoted with what does not show written out.

use crate::analysis::chars::{self, Spelling, is_tag};
use crate::i18n::{Language, Words};

/// `text` with invisible characters written as `\u{...}` and newlines as `\n`.
pub fn escape(text: &str) -> String {
    chars::escape(text, Spelling::Excerpt).into_owned()
}

fn push_escaped(out: &mut String, c: char) {
    chars::push_escaped(out, c, Spelling::Excerpt);
}

/// Escapes `chars`, writing a run of more than 4 tag characters as its first and last
/// (`\u{E0041}…\u{E002E}`): the decoded text is in the finding's `hidden`.
pub(super) fn push_segment(out: &mut String, chars: &[char]) {
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..].iter().take_while(|&&c| is_tag(c)).count();
        if run > 4 {
            push_escaped(out, chars[i]);
            out.push('…');
            push_escaped(out, chars[i + run - 1]);
            i += run;
        } else {
            push_escaped(out, chars[i]);
            i += 1;
        }
    }
}

/// The span in brackets with up to 24 characters of context each side, invisible characters
/// as `\u{...}`; a long span is cut in the middle (`…(N chars)…`), a long run of tag characters
/// shortened.
pub fn excerpt(text: &str, span: (usize, usize)) -> String {
    excerpt_in(text, span, Words::of(Language::En))
}

/// [`excerpt`] with the cut in a long span said in the language of `w` (`poison_excerpt.cut`).
pub fn excerpt_in(text: &str, span: (usize, usize), w: Words) -> String {
    const CONTEXT: usize = 24;
    const LONG: usize = 120;
    let chars: Vec<char> = text.chars().collect();
    let (s, e) = (span.0.min(chars.len()), span.1.min(chars.len()));
    let from = s.saturating_sub(CONTEXT);
    let to = (e + CONTEXT).min(chars.len());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    push_segment(&mut out, &chars[from..s]);
    out.push('[');
    if e - s > LONG {
        push_segment(&mut out, &chars[s..s + LONG / 2]);
        let count = (e - s - LONG / 2 - LONG / 4).to_string();
        out.push(' ');
        out.push_str(&w.fmt("poison_excerpt.cut", &[("count", &count)]));
        out.push(' ');
        push_segment(&mut out, &chars[e - LONG / 4..e]);
    } else {
        push_segment(&mut out, &chars[s..e]);
    }
    out.push(']');
    push_segment(&mut out, &chars[e..to]);
    if to < chars.len() {
        out.push('…');
    }
    out
}
