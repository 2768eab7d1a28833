//! JSON string escaping for the trace writer's hot path: the bytes serde_json writes, faster.
//!
//! Recording a line means writing it as a JSON string, so every byte the tap records goes
//! through an escaper. serde_json's is byte at a time and writes each run between escapes
//! through `io::Write`; this one skips eight clean bytes at a time (a word test for `"`, `\` and
//! control bytes) and appends to a `Vec`. The output is exactly serde_json's (`\"`, `\\`, `\b`,
//! `\t`, `\n`, `\f`, `\r`, and `\u00xx` in lowercase hex for the other control bytes; nothing
//! else is escaped), which `tests` check against serde_json itself.

/// What each byte becomes: 0 for itself, `u` for `\u00xx`, else the letter after the `\`.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` that need escaping, as the high bit of each (byte 0 lowest). Borrows can
/// flag a clean byte above one that needs escaping, never below it: the lowest flag is exact,
/// and a word with no flag is clean.
#[inline]
fn escape_flags(w: u64) -> u64 {
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * b'"' as u64);
    let quote = q.wrapping_sub(ONES) & !q;
    let s = w ^ (ONES * b'\\' as u64);
    let backslash = s.wrapping_sub(ONES) & !s;
    (below_space | quote | backslash) & HIGH
}

/// Appends `text`'s JSON escaping (without the surrounding quotes) to `out`. `text` is UTF-8
/// or a piece of UTF-8 cut anywhere: only ASCII bytes are ever escaped, so pieces escaped one
/// after the other give the escaping of the whole.
///
/// Eight bytes are tested at a time and the first one that needs escaping is found from the
/// word's flags, so a JSON line (a quote every few bytes) costs one word test per escape, not a
/// table lookup per byte.
pub fn escape_into(out: &mut Vec<u8>, text: &[u8]) {
    out.reserve(text.len() + text.len() / 8 + 2);
    let mut start = 0;
    let mut i = 0;
    while let Some(word) = text.get(i..i + 8) {
        let flags = escape_flags(u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
        if flags == 0 {
            i += 8;
            continue;
        }
        let at = i + (flags.trailing_zeros() / 8) as usize;
        let b = text[at];
        out.extend_from_slice(&text[start..at]);
        push_escape(out, b, ESCAPE[b as usize]);
        start = at + 1;
        i = at + 1;
    }
    while i < text.len() {
        let b = text[i];
        let escape = ESCAPE[b as usize];
        if escape != 0 {
            out.extend_from_slice(&text[start..i]);
            push_escape(out, b, escape);
            start = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&text[start..]);
}

#[inline]
fn push_escape(out: &mut Vec<u8>, b: u8, escape: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    if escape == b'u' {
        out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(b >> 4) as usize],
            HEX[(b & 0xf) as usize],
        ]);
    } else {
        out.extend_from_slice(&[b'\\', escape]);
    }
}

/// Appends `text` as a JSON string, quotes included.
pub fn quoted_into(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    escape_into(out, text.as_bytes());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(text: &str) -> String {
        let mut out = Vec::new();
        quoted_into(&mut out, text);
        String::from_utf8(out).expect("escaping keeps UTF-8")
    }

    #[test]
    fn matches_serde_json_on_every_byte_and_position() {
        // Every ASCII byte, at every offset within a word, with clean runs around it.
        for b in 0u8..0x80 {
            for pad in 0..17 {
                let text = format!("{}{}{}", "a".repeat(pad), b as char, "é✓".repeat(pad % 5));
                let serde = serde_json::to_string(&text).expect("serde");
                assert_eq!(ours(&text), serde, "byte {b:#04x} after {pad}");
            }
        }
        let mixed = "{\"a\":\"\\u0000\u{1b}\u{2028}\u{7f}é\"}\r\n\t\u{8}\u{c}x\"\"\\\\";
        assert_eq!(ours(mixed), serde_json::to_string(mixed).expect("serde"));
        assert_eq!(ours(""), "\"\"");
    }

    #[test]
    fn every_pair_of_bytes_in_a_word_matches_serde_json() {
        // Two bytes side by side at every offset: a byte that needs escaping below a clean
        // one (the borrow case) must not hide or invent an escape.
        let bytes: Vec<u8> = (0u8..0x80).collect();
        for &a in &bytes {
            for &b in &bytes {
                for pad in [0, 3, 6, 7] {
                    let text = format!("{}{}{}xyz", "a".repeat(pad), a as char, b as char);
                    let serde = serde_json::to_string(&text).expect("serde");
                    assert_eq!(ours(&text), serde, "{a:#04x} {b:#04x} after {pad}");
                }
            }
        }
    }

    #[test]
    fn pieces_escape_to_the_whole() {
        let text = "ab\"cd\\ef\ngh✓ij\u{1}kl".repeat(7);
        let mut whole = Vec::new();
        escape_into(&mut whole, text.as_bytes());
        for cut in 0..text.len() {
            let mut pieces = Vec::new();
            escape_into(&mut pieces, &text.as_bytes()[..cut]);
            escape_into(&mut pieces, &text.as_bytes()[cut..]);
            assert_eq!(pieces, whole, "cut at {cut}");
        }
    }
}
