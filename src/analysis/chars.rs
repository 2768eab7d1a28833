//! Invisible and look-alike characters: the one table of what does not show, and of which
//! letters pass for Latin ones.
//!
//! A tool that shows hidden text must agree with itself about what is hidden: the poisoning
//! rules, the diagram's labels, the app's inspector and its narration all ask here.

pub const TAGS: std::ops::RangeInclusive<u32> = 0xE0000..=0xE007F;

pub fn is_tag(c: char) -> bool {
    TAGS.contains(&(c as u32))
}

pub fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}'
    ) || ('\u{2061}'..='\u{2064}').contains(&c)
}

pub fn is_bidi(c: char) -> bool {
    ('\u{202A}'..='\u{202E}').contains(&c) || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Characters shown as `\u{...}` in excerpts.
pub fn is_invisible(c: char) -> bool {
    is_tag(c)
        || is_zero_width(c)
        || is_bidi(c)
        || matches!(
            c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{200E}' | '\u{200F}'
        )
        || ('\u{FE00}'..='\u{FE0F}').contains(&c)
        || ('\u{E0100}'..='\u{E01EF}').contains(&c)
        || (c.is_control() && !matches!(c, '\n' | '\t'))
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
        if is_invisible(c) {
            continue;
        }
        out.push(c);
    }
    out.replace("rn", "m").replace("vv", "w")
}
