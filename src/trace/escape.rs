//! JSON string escaping for the trace writer's hot path: the bytes serde_json writes, faster;
//! and its inverse for the loader's (`unescape`).
//!
//! Recording a line means writing it as a JSON string, so every byte the tap records goes
//! through an escaper. serde_json's is byte at a time and writes each run between escapes
//! through `io::Write`; this one skips eight clean bytes at a time (a word test for `"`, `\` and
//! control bytes) and appends to a `Vec`. The output is exactly serde_json's (`\"`, `\\`, `\b`,
//! `\t`, `\n`, `\f`, `\r`, and `\u00xx` in lowercase hex for the other control bytes; nothing
//! else is escaped), which `tests` check against serde_json itself.
//!
//! Loading reads every event's payload back out of such a string. serde_json unescapes into a
//! buffer that each line's reader starts empty and grows a few times, then copies; [`unescape`]
//! writes each payload once into a buffer of the right size.

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
/// table lookup per byte. The output is written straight into `out`'s spare capacity (each word
/// is stored whole before it is tested; only its clean part is kept), never through
/// `extend_from_slice`: on JSON, whose escapes are a few bytes apart, a call per clean run
/// cost more than the escaping itself.
pub fn escape_into(out: &mut Vec<u8>, text: &[u8]) {
    // At most 6 bytes out per byte in (`\u00xx`), and a whole word may be stored ahead.
    out.reserve(text.len() * 6 + 8);
    let len = out.len();
    let n = text.len();
    // SAFETY: `out` has room for `6 * n + 8` more bytes. Before input byte `i` is read, at most
    // `6 * i` bytes were written (no byte grows to more than 6), so the word store at that
    // point (8 bytes) and an escape (at most 6) stay within that room. Reads of `text` stay
    // below `n`. Exactly the bytes written up to `end` are then counted into `out`.
    unsafe {
        let src = text.as_ptr();
        let start = out.as_mut_ptr().add(len);
        let mut end = start;
        let mut i = 0;
        while i + 8 <= n {
            let word = src.add(i).cast::<u64>().read_unaligned();
            end.cast::<u64>().write_unaligned(word);
            let flags = escape_flags(u64::from_le(word));
            if flags == 0 {
                i += 8;
                end = end.add(8);
                continue;
            }
            let clean = (flags.trailing_zeros() / 8) as usize;
            end = write_escape(end.add(clean), *src.add(i + clean));
            i += clean + 1;
        }
        while i < n {
            let b = *src.add(i);
            if ESCAPE[b as usize] == 0 {
                end.write(b);
                end = end.add(1);
            } else {
                end = write_escape(end, b);
            }
            i += 1;
        }
        out.set_len(len + end.offset_from(start) as usize);
    }
}

/// Writes the escape of `b` (a byte that needs one) at `at`; returns the end of what it wrote.
///
/// # Safety
/// `at` must have room for 6 bytes.
#[inline]
unsafe fn write_escape(at: *mut u8, b: u8) -> *mut u8 {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let escape = ESCAPE[b as usize];
    // SAFETY: the caller gives room for 6 bytes.
    unsafe {
        if escape == b'u' {
            let bytes = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ];
            at.copy_from_nonoverlapping(bytes.as_ptr(), 6);
            at.add(6)
        } else {
            at.copy_from_nonoverlapping([b'\\', escape].as_ptr(), 2);
            at.add(2)
        }
    }
}

/// Appends `text` as a JSON string, quotes included.
pub fn quoted_into(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    escape_into(out, text.as_bytes());
    out.push(b'"');
}

/// The text of the JSON string literal `literal` (quotes included), as serde_json would read
/// it into a `String`; `None` where serde_json would refuse it or where it is not a plain
/// string literal (a caller then asks serde_json itself, for its answer and its error).
pub fn unescape(literal: &str) -> Option<Box<str>> {
    let inner = literal.strip_prefix('"')?;
    let (text, used) = unescape_prefix(inner.as_bytes())?;
    (used == inner.len()).then_some(text)
}

/// The JSON string whose text starts `bytes` (just after its opening quote), read as serde_json
/// reads a string into a `String`: the text, and how many bytes it took, its closing quote
/// included. `None` where serde_json would refuse it (a control byte, an unknown escape, a lone
/// surrogate, bytes that are not UTF-8) and where no quote closes it.
///
/// This is the loader's one pass over a payload: the bytes are copied a word at a time up to
/// the next byte a string cannot hold as it is (the writer's own test, [`escape_flags`]),
/// escapes are put back, and the text is written once into a buffer big enough for all of
/// `bytes`, shrunk where it lies at the end (unescaping only shortens).
pub fn unescape_prefix(bytes: &[u8]) -> Option<(Box<str>, usize)> {
    let n = bytes.len();
    // With 8 more bytes for a whole word stored ahead, as in [`escape_into`].
    let mut out: Vec<u8> = Vec::with_capacity(n + 8);
    let used;
    // SAFETY: `out` has room for `n + 8` bytes. No escape writes more bytes than it reads (a
    // two-byte escape gives one, `\uXXXX` at most three, a pair of them four), so before input
    // byte `i` is read at most `i` bytes were written: the word store there (8 bytes, with
    // `i + 8 <= n`) and a character (at most 4, written for at least 2 read) stay within the
    // room. Reads of `bytes` stay below `n`. Exactly the bytes written up to `w` are kept.
    unsafe {
        let src = bytes.as_ptr();
        let dst = out.as_mut_ptr();
        let (mut i, mut w) = (0, 0);
        loop {
            // Clean bytes, a word at a time, up to the next `"`, `\\` or control byte.
            while i + 8 <= n {
                let word = src.add(i).cast::<u64>().read_unaligned();
                dst.add(w).cast::<u64>().write_unaligned(word);
                let flags = escape_flags(u64::from_le(word));
                if flags != 0 {
                    let clean = (flags.trailing_zeros() / 8) as usize;
                    i += clean;
                    w += clean;
                    break;
                }
                i += 8;
                w += 8;
            }
            while i < n && ESCAPE[usize::from(*src.add(i))] == 0 {
                dst.add(w).write(*src.add(i));
                i += 1;
                w += 1;
            }
            match bytes.get(i)? {
                b'"' => {
                    used = i + 1;
                    break;
                }
                b'\\' => {}
                _ => return None,
            }
            // The two-byte escapes (nearly all of them: `\"` in a JSON payload), at once.
            let simple = UNESCAPE[usize::from(*bytes.get(i + 1)?)];
            if simple != 0 {
                dst.add(w).write(simple);
                w += 1;
                i += 2;
                continue;
            }
            let (ch, taken) = unicode_escape(&bytes[i + 1..])?;
            let mut utf8 = [0u8; 4];
            let encoded = ch.encode_utf8(&mut utf8).as_bytes();
            dst.add(w)
                .copy_from_nonoverlapping(encoded.as_ptr(), encoded.len());
            w += encoded.len();
            i += 1 + taken;
        }
        out.set_len(w);
    }
    // Escapes put in whole characters and runs are cut only at ASCII bytes, so the text is
    // UTF-8 exactly when the runs of `bytes` are. Shrunk where it lies, not copied.
    let text = String::from_utf8(out).ok()?;
    Some((text.into_boxed_str(), used))
}

/// What the letter after a `\\` stands for in a two-byte escape; 0 for any other letter.
static UNESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The character a `\\u` escape stands for (`rest` is what follows the `\\`: `uXXXX`, or a
/// surrogate pair `uXXXX\\uXXXX`) and how many bytes of `rest` it took; `None` for anything
/// else, and for a lone surrogate, which serde_json refuses in a `String`.
fn unicode_escape(rest: &[u8]) -> Option<(char, usize)> {
    if rest.first() != Some(&b'u') {
        return None;
    }
    let high = hex4(rest.get(1..5)?)?;
    if !(0xD800..0xE000).contains(&high) {
        return Some((char::from_u32(high)?, 5));
    }
    // A surrogate is only valid as the first of a pair, written as two escapes.
    if high >= 0xDC00 || rest.get(5..7)? != b"\\u" {
        return None;
    }
    let low = hex4(rest.get(7..11)?)?;
    if !(0xDC00..0xE000).contains(&low) {
        return None;
    }
    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    Some((char::from_u32(code)?, 11))
}

/// Four hex digits, either case.
fn hex4(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0u32, |acc, &d| Some(acc * 16 + char::from(d).to_digit(16)?))
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
    fn worst_case_growth_fits_and_matches_serde_json() {
        // Every byte a `\u00xx` (six out per one in), and mixes, appended to buffers with no
        // spare room and with some: every length across the word loop and the tail.
        for n in 0..70 {
            for text in [
                "\u{1}".repeat(n),
                "\u{1f}\"a".repeat(n),
                "é\u{0}\\".repeat(n),
            ] {
                for before in [0, 5] {
                    let mut out = vec![b'x'; before];
                    out.shrink_to_fit();
                    escape_into(&mut out, text.as_bytes());
                    let serde = serde_json::to_string(&text).expect("serde");
                    let inner = &serde.as_bytes()[1..serde.len() - 1];
                    assert_eq!(&out[..before], &b"xxxxx"[..before]);
                    assert_eq!(&out[before..], inner, "{n} of {text:?}");
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

    #[test]
    fn unescape_reads_what_serde_json_reads_and_refuses_what_it_refuses_in_a_string() {
        let pieces = [
            "a",
            "é",
            "✓",
            "😀",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\n",
            "\\r",
            "\\t",
            "\\u0000",
            "\\u001f",
            "\\u00e9",
            "\\u00E9",
            "\\u2028",
            "\\uFFFF",
            "\\ud83d\\ude00",
            "\\uD83D\\uDE00",
            "\\ud800",
            "\\udc00",
            "\\ud800\\u0041",
            "\\ud800x",
            "\\ud800\\n",
            "\\udbff\\udfff",
            "\\x",
            "\\u12",
            "\\u12g4",
        ];
        let mut literals = vec![String::from("\"\""), String::from("1"), String::from("\"")];
        for a in pieces {
            literals.push(format!("\"{a}\""));
            for b in pieces {
                literals.push(format!("\"x{a}{b}yz\""));
                // At every offset in a word, and across the word loop and the tail.
                for pad in [1, 6, 7, 8, 9, 15, 17] {
                    let (p, q) = ("p".repeat(pad), "é".repeat(pad));
                    literals.push(format!("\"{p}{a}{q}{b}{p}\""));
                }
                literals.push(format!("\"{a}{b}\""));
            }
        }
        for literal in &literals {
            let serde = serde_json::from_str::<String>(literal).ok();
            assert_eq!(unescape(literal).map(String::from), serde, "{literal}");
            // As the loader meets it: in a line, with more after its closing quote.
            let Some(inner) = literal.strip_prefix('"') else {
                continue;
            };
            let line = format!("{inner},\"http\":{{\"status\":200}}}}\n");
            let read = unescape_prefix(line.as_bytes());
            match &serde {
                Some(text) => assert_eq!(
                    read.map(|(t, used)| (String::from(t), used)),
                    Some((text.clone(), inner.len())),
                    "{literal}"
                ),
                None if inner.ends_with('"') && !inner.ends_with("\\\"") => {
                    assert!(read.is_none(), "refused in a line too: {literal}")
                }
                None => {}
            }
        }
    }

    #[test]
    fn a_string_in_a_line_ends_at_its_quote_and_refuses_what_serde_json_refuses() {
        assert_eq!(
            unescape_prefix(b"abc\"def\" rest").map(|(t, n)| (String::from(t), n)),
            Some(("abc".to_string(), 4))
        );
        for refused in [
            &b"a\x01b\""[..],
            b"no quote at all",
            b"ends in a backslash\\",
            b"a\xffb\"",
            b"\xc3\\n\"",
            b"\\u00e9\xa9\"",
        ] {
            assert!(unescape_prefix(refused).is_none(), "{refused:?}");
            let literal = [b"\"", refused].concat();
            assert!(serde_json::from_slice::<String>(&literal).is_err());
        }
    }
}
