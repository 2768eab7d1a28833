//! Invisible and look-alike characters: the one table of what does not show, how a hidden
//! character is written out so it does, and which letters pass for Latin ones.
//!
//! A tool that shows hidden text must agree with itself about what is hidden: the poisoning
//! rules, the diagram's labels, the app's inspector and its narration all ask here, and all
//! write a hidden character out through [`push_escaped`].

use std::borrow::Cow;
use std::fmt::Write as _;

pub const TAGS: std::ops::RangeInclusive<u32> = 0xE0000..=0xE007F;

/// Unicode tag characters, which spell hidden ASCII (a subset of [`INVISIBLE`]).
pub fn is_tag(c: char) -> bool {
    TAGS.contains(&(c as u32))
}

/// The characters that render as nothing (or as less than they are) but still reach a model:
/// `(first, last, what)`, inclusive ranges. Every place that shows or counts hidden text asks
/// [`is_invisible`], which reads only this table: the diagram's labels, the app's inspector
/// (`ui::visible`), the teaching mode's narration and the poisoning rules' excerpts.
/// Control characters are not listed: each place writes those its own way (on one line, or with
/// line breaks kept).
pub const INVISIBLE: &[(char, char, &str)] = &[
    ('\u{00AD}', '\u{00AD}', "soft hyphen"),
    ('\u{034F}', '\u{034F}', "combining grapheme joiner"),
    ('\u{061C}', '\u{061C}', "Arabic letter mark"),
    (
        '\u{115F}',
        '\u{1160}',
        "Hangul choseong and jungseong fillers",
    ),
    ('\u{17B4}', '\u{17B5}', "Khmer inherent vowels"),
    (
        '\u{180B}',
        '\u{180F}',
        "Mongolian variation selectors and vowel separator",
    ),
    (
        '\u{200B}',
        '\u{200F}',
        "zero-width space, non-joiner, joiner; LRM, RLM",
    ),
    ('\u{2028}', '\u{2029}', "line and paragraph separators"),
    (
        '\u{202A}',
        '\u{202E}',
        "bidirectional embeddings and overrides",
    ),
    (
        '\u{2060}',
        '\u{206F}',
        "word joiner, invisible operators, isolates, deprecated formats",
    ),
    ('\u{3164}', '\u{3164}', "Hangul filler"),
    ('\u{FE00}', '\u{FE0F}', "variation selectors"),
    ('\u{FEFF}', '\u{FEFF}', "zero-width no-break space (BOM)"),
    ('\u{FFA0}', '\u{FFA0}', "halfwidth Hangul filler"),
    (
        '\u{FFF0}',
        '\u{FFFB}',
        "unassigned specials and interlinear annotation",
    ),
    ('\u{1D173}', '\u{1D17A}', "musical symbol formatting"),
    (
        '\u{E0000}',
        '\u{E0FFF}',
        "Unicode tags and variation selectors supplement",
    ),
];

/// Whether `c` is in [`INVISIBLE`].
pub fn is_invisible(c: char) -> bool {
    INVISIBLE
        .iter()
        .any(|&(first, last, _)| (first..=last).contains(&c))
}

/// What an excerpt writes out as `\u{...}`: the [`INVISIBLE`] table, and control characters
/// other than line feed and tab (which the poisoning excerpts write as `\n` and `\t`).
pub fn is_invisible_or_control(c: char) -> bool {
    is_invisible(c) || (c.is_control() && !matches!(c, '\n' | '\t'))
}

/// Whether `c` must be written out to be seen: every control character and everything in
/// [`INVISIBLE`].
pub fn is_hidden(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// How a hidden character is written out, per reader: saved outputs, handouts and tests quote
/// each reader's spelling, so it is part of what that reader prints. Which characters are
/// hidden is the same for all ([`is_hidden`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// `\u{200b}`, as short as it goes: the app's panels.
    Short,
    /// `\u{000a}`, four digits at least: the diagram's labels and the text exports made of
    /// them (Mermaid, the summary).
    Padded,
    /// `\n`, `\t` and `\u{200B}`: the poisoning findings' excerpts, where a line break in a
    /// tool description is ordinary and an upper-case code point reads like `U+200B`.
    Excerpt,
}

/// Appends `c` to `out`: as itself, or written out in `spelling` when it [`is_hidden`].
pub fn push_escaped(out: &mut String, c: char, spelling: Spelling) {
    if !is_hidden(c) {
        out.push(c);
        return;
    }
    let code = c as u32;
    let _ = match (spelling, c) {
        (Spelling::Excerpt, '\n') => out.write_str("\\n"),
        (Spelling::Excerpt, '\t') => out.write_str("\\t"),
        (Spelling::Excerpt, _) => write!(out, "\\u{{{code:X}}}"),
        (Spelling::Short, _) => write!(out, "\\u{{{code:x}}}"),
        (Spelling::Padded, _) => write!(out, "\\u{{{code:04x}}}"),
    };
}

/// `text` with every hidden character written out in `spelling`; borrowed when there is none.
pub fn escape(text: &str, spelling: Spelling) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        push_escaped(&mut out, c, spelling);
    }
    Cow::Owned(out)
}

/// Zero-width characters (a subset of [`INVISIBLE`]).
pub fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}'
    ) || ('\u{2061}'..='\u{2064}').contains(&c)
}

/// Bidirectional controls (a subset of [`INVISIBLE`]).
pub fn is_bidi(c: char) -> bool {
    ('\u{202A}'..='\u{202E}').contains(&c) || ('\u{2066}'..='\u{2069}').contains(&c)
}

pub fn char_name(c: char) -> &'static str {
    match c {
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{2060}' => "WORD JOINER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{180E}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{2061}' => "FUNCTION APPLICATION",
        '\u{2062}' => "INVISIBLE TIMES",
        '\u{2063}' => "INVISIBLE SEPARATOR",
        '\u{2064}' => "INVISIBLE PLUS",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        _ => "",
    }
}

pub fn describe_chars(chars: &[char]) -> String {
    let mut seen: Vec<char> = Vec::new();
    for &c in chars {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen.iter()
        .map(|&c| match char_name(c) {
            "" => format!("U+{:04X}", c as u32),
            name => format!("U+{:04X} {name}", c as u32),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Emoji and pictographs, between which a ZERO WIDTH JOINER is ordinary.
pub fn is_pictograph(c: char) -> bool {
    let u = c as u32;
    (0x1F000..=0x1FAFF).contains(&u)
        || (0x2600..=0x27BF).contains(&u)
        || (0x2B00..=0x2BFF).contains(&u)
        || c == '\u{FE0F}'
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Cherokee,
    Fullwidth,
    Mathematical,
    Other,
}

impl Script {
    pub fn of(c: char) -> Option<Script> {
        let u = c as u32;
        Some(match u {
            _ if c.is_ascii_alphabetic() => Script::Latin,
            0xC0..=0x24F if u != 0xD7 && u != 0xF7 => Script::Latin,
            0x1E00..=0x1EFF => Script::Latin,
            0x370..=0x3FF | 0x1F00..=0x1FFF => Script::Greek,
            0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
            0x530..=0x58F => Script::Armenian,
            0x13A0..=0x13FF | 0xAB70..=0xABBF => Script::Cherokee,
            0xFF21..=0xFF3A | 0xFF41..=0xFF5A => Script::Fullwidth,
            0x1D400..=0x1D7FF => Script::Mathematical,
            _ if c.is_alphabetic() => Script::Other,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Armenian => "Armenian",
            Script::Cherokee => "Cherokee",
            Script::Fullwidth => "fullwidth",
            Script::Mathematical => "mathematical",
            Script::Other => "other",
        }
    }

    /// Scripts whose letters pass for Latin ones.
    pub fn lookalike(self) -> bool {
        !matches!(self, Script::Other)
    }
}

/// The Latin letter a look-alike stands for (a small table of the usual suspects).
pub fn latin_lookalike(c: char) -> Option<char> {
    let u = c as u32;
    if (0xFF01..=0xFF5E).contains(&u) {
        return char::from_u32(u - 0xFEE0);
    }
    Some(match c {
        // Cyrillic
        'а' => 'a',
        'в' => 'b',
        'е' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'ѕ' => 's',
        'і' => 'i',
        'ј' => 'j',
        'ԁ' => 'd',
        'һ' => 'h',
        'ӏ' => 'l',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'к' => 'k',
        'м' => 'm',
        'н' => 'h',
        'т' => 't',
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'Ѕ' => 'S',
        'І' => 'I',
        'Ј' => 'J',
        // Greek
        'α' => 'a',
        'ο' => 'o',
        'ν' => 'v',
        'ι' => 'i',
        'κ' => 'k',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        // Armenian and Latin oddities
        'օ' => 'o',
        'ս' => 'u',
        'հ' => 'h',
        'ı' => 'i',
        'ɡ' => 'g',
        _ => return None,
    })
}

/// What a name looks like: look-alikes folded to Latin, lowercased, `I`/`1`/`|` as `l`, `0`
/// as `o`, `rn` as `m`, `vv` as `w`, `-` as `_`.
pub fn skeleton(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = latin_lookalike(c).unwrap_or(c);
        let c = match c {
            'I' | '1' | '|' => 'l',
            '0' => 'o',
            '-' => '_',
            c => c.to_ascii_lowercase(),
        };
        if is_invisible_or_control(c) {
            continue;
        }
        out.push(c);
    }
    out.replace("rn", "m").replace("vv", "w")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every char of the table.
    fn table() -> impl Iterator<Item = char> {
        INVISIBLE.iter().flat_map(|&(first, last, _)| first..=last)
    }

    #[test]
    fn the_table_is_sorted_and_its_subsets_sit_inside_it() {
        for pair in INVISIBLE.windows(2) {
            assert!(
                pair[0].1 < pair[1].0,
                "{pair:?} overlap or are out of order"
            );
        }
        for c in ['\u{00AD}', '\u{180E}', '\u{200B}', '\u{FEFF}', '\u{E0041}'] {
            assert!(is_invisible(c), "U+{:04X}", c as u32);
        }
        for c in ['a', ' ', '\n', 'é', '世', '🌦', '\u{7}'] {
            assert!(!is_invisible(c), "U+{:04X}", c as u32);
        }
        let subsets = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_tag(c) || is_zero_width(c) || is_bidi(c));
        for c in subsets {
            assert!(is_invisible(c), "U+{:04X} is not in the table", c as u32);
        }
        assert!(table().count() > 4000);
    }

    #[test]
    fn each_spelling_writes_every_hidden_character_and_borrows_plain_text() {
        let text = "a\n\t\u{7}\u{200b}\u{e0041}é";
        assert_eq!(
            escape(text, Spelling::Short),
            "a\\u{a}\\u{9}\\u{7}\\u{200b}\\u{e0041}é"
        );
        assert_eq!(
            escape(text, Spelling::Padded),
            "a\\u{000a}\\u{0009}\\u{0007}\\u{200b}\\u{e0041}é"
        );
        assert_eq!(
            escape(text, Spelling::Excerpt),
            "a\\n\\t\\u{7}\\u{200B}\\u{E0041}é"
        );
        for spelling in [Spelling::Short, Spelling::Padded, Spelling::Excerpt] {
            assert!(matches!(escape("olá 🌦", spelling), Cow::Borrowed(_)));
            assert!(!escape(text, spelling).chars().any(is_hidden));
        }
    }
}
