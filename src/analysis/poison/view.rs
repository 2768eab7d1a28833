//! The normalised view of a field's text: what the text rules read (tag characters decoded,
//! invisible characters removed, look-alikes folded, lowercased), with a map back to the
//! original characters so that spans point at what the server wrote.

use crate::analysis::chars::{
    TAGS, is_bidi, is_invisible_or_control, is_tag, is_zero_width, latin_lookalike,
};

/// A field's text as the rules read it, with a map back to the original characters.
pub(super) struct View {
    /// The field's text as it is.
    pub(super) original: Vec<char>,
    /// Normalised, lowercased text.
    pub(super) text: String,
    /// For each byte of `text`: the index of the original char it came from.
    pub(super) origin: Vec<usize>,
    /// For each original char: whether it is a tag character.
    pub(super) hidden: Vec<bool>,
    /// Byte ranges of the sentences of `text`.
    pub(super) sentences: Vec<(usize, usize)>,
    /// Byte ranges of the words of `text`.
    pub(super) words: Vec<(usize, usize)>,
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

impl View {
    pub(super) fn new(original: &str) -> View {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len());
        let mut hidden = Vec::new();
        for (i, c) in original.chars().enumerate() {
            hidden.push(is_tag(c));
            let mapped = if is_tag(c) {
                match char::from_u32(c as u32 - TAGS.start()) {
                    Some(a) if a == ' ' || a.is_ascii_graphic() => a,
                    _ => ' ',
                }
            } else if is_zero_width(c) || is_bidi(c) || c == '\u{AD}' {
                continue;
            } else if c == '’' {
                '\''
            } else {
                latin_lookalike(c).unwrap_or(c)
            };
            let lower = mapped.to_lowercase().next().unwrap_or(mapped);
            let before = text.len();
            text.push(lower);
            origin.extend(std::iter::repeat_n(i, text.len() - before));
        }
        let sentences = sentences(&text);
        let words = words(&text);
        View {
            original: original.chars().collect(),
            text,
            origin,
            hidden,
            sentences,
            words,
        }
    }

    /// The original char range of the byte range `start..end` of `text`.
    pub(super) fn span(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.origin.get(start).copied().unwrap_or(self.hidden.len());
        let last = if end > start {
            self.origin
                .get(end - 1)
                .map_or(self.hidden.len(), |i| i + 1)
        } else {
            first
        };
        (first, last.max(first))
    }

    /// The original text of the byte range `start..end` of `text`, as the model reads it:
    /// tag characters decoded, other invisible characters left out.
    pub(super) fn shown(&self, start: usize, end: usize) -> String {
        let (s, e) = self.span(start, end);
        shown(&self.original[s..e])
    }

    pub(super) fn sentence_of(&self, at: usize) -> (usize, usize) {
        self.sentences
            .iter()
            .copied()
            .find(|&(s, e)| s <= at && at < e)
            .unwrap_or((at, at))
    }

    pub(super) fn word(&self, w: usize) -> &str {
        let (s, e) = self.words[w];
        &self.text[s..e]
    }

    /// Index of the first word starting at or after byte `at`.
    pub(super) fn word_at(&self, at: usize) -> usize {
        self.words.partition_point(|&(s, _)| s < at)
    }

    /// Whether the words from `w` match `pattern` (alternatives per position).
    pub(super) fn phrase(&self, w: usize, pattern: &[&[&str]]) -> Option<(usize, usize)> {
        if w + pattern.len() > self.words.len() {
            return None;
        }
        for (k, alternatives) in pattern.iter().enumerate() {
            if !alternatives.contains(&self.word(w + k)) {
                return None;
            }
        }
        // The phrase must not cross a sentence end.
        let start = self.words[w].0;
        let end = self.words[w + pattern.len() - 1].1;
        let (_, sentence_end) = self.sentence_of(start);
        (end <= sentence_end).then_some((start, end))
    }

    /// Occurrences of `needle` (lowercase) whose ends fall on word boundaries where the
    /// needle itself starts or ends with a word character.
    pub(super) fn find(&self, needle: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let first_word = needle.chars().next().is_some_and(is_word_char);
        let last_word = needle.chars().last().is_some_and(is_word_char);
        for (at, _) in self.text.match_indices(needle) {
            let end = at + needle.len();
            let before = self.text[..at].chars().next_back();
            let after = self.text[end..].chars().next();
            if first_word && before.is_some_and(is_word_char) {
                continue;
            }
            if last_word && after.is_some_and(is_word_char) {
                continue;
            }
            // A dotfile name must not be the tail of an identifier (`process.env`).
            if needle.starts_with('.') && before.is_some_and(char::is_alphanumeric) {
                continue;
            }
            out.push((at, end));
        }
        out
    }

    pub(super) fn in_sentence(
        &self,
        sentence: (usize, usize),
        words: &[&str],
    ) -> Option<(usize, usize)> {
        let w0 = self.word_at(sentence.0);
        (w0..self.words.len())
            .take_while(|&w| self.words[w].0 < sentence.1)
            .find(|&w| words.contains(&self.word(w)))
            .map(|w| self.words[w])
    }

    pub(super) fn all_hidden(&self, span: (usize, usize)) -> bool {
        span.1 > span.0
            && self.hidden[span.0..span.1.min(self.hidden.len())]
                .iter()
                .all(|&h| h)
    }
}

/// `chars` as the model reads them: tag characters decoded, other invisible characters left
/// out, line breaks as spaces.
pub(super) fn shown(chars: &[char]) -> String {
    chars
        .iter()
        .filter_map(|&c| {
            if is_tag(c) {
                char::from_u32(c as u32 - TAGS.start())
                    .filter(|a| *a == ' ' || a.is_ascii_graphic())
            } else if c == '\n' {
                Some(' ')
            } else if is_invisible_or_control(c) {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

pub(super) fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let end = match c {
            '\n' => true,
            '.' | '!' | '?' | ';' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if end {
            let e = i + c.len_utf8();
            if e > start {
                out.push((start, e));
            }
            start = e;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

pub(super) fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}
