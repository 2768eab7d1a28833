//! The text of a file another program saved, in the encodings Windows programs save in.
//!
//! A config, a scenario or a headers file on Windows is not always UTF-8: Notepad wrote UTF-8
//! with a byte-order mark for years, and Windows PowerShell 5's `>` and `Out-File` write UTF-16
//! (little endian, with a mark), so `echo Authorization=Bearer x > headers.txt` makes a file
//! `read_to_string` refuses. Every text file the CLI reads is decoded here once: UTF-8 with or
//! without a mark, UTF-16 little or big endian with one. A file with no mark is UTF-8 (telling
//! UTF-16 by its zero bytes would be a guess). The mark is not part of the text, and line ends
//! are left as they are: the parsers take CRLF as they take LF, and a file written back in its
//! [`Encoding`] (a config `wrap` edits) has every byte it had outside the edit.

use std::borrow::Cow;
use std::io;
use std::path::Path;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

/// How a file's text was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark.
    #[default]
    Utf8,
    /// UTF-8 after the mark `EF BB BF`.
    Utf8Bom,
    /// UTF-16 little endian after the mark `FF FE` (Windows' "Unicode").
    Utf16Le,
    /// UTF-16 big endian after the mark `FE FF`.
    Utf16Be,
}

/// Why bytes are not text in the encoding their mark (or its absence) says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not UTF-8 at byte {at} (save the file as UTF-8, or as UTF-16 with a byte-order mark)")]
    NotUtf8 { at: usize },
    #[error("not UTF-16 at byte {at}: {why}")]
    NotUtf16 { at: usize, why: &'static str },
}

impl Encoding {
    /// The encoding `bytes` announce, and how many bytes the mark takes.
    pub fn detect(bytes: &[u8]) -> (Encoding, usize) {
        if bytes.starts_with(UTF8_BOM) {
            (Encoding::Utf8Bom, UTF8_BOM.len())
        } else if bytes.starts_with(UTF16LE_BOM) {
            (Encoding::Utf16Le, UTF16LE_BOM.len())
        } else if bytes.starts_with(UTF16BE_BOM) {
            (Encoding::Utf16Be, UTF16BE_BOM.len())
        } else {
            (Encoding::Utf8, 0)
        }
    }

    /// `text` stored this way, mark first.
    pub fn encode(self, text: &str) -> Vec<u8> {
        let units = |to: fn(u16) -> [u8; 2], mark: &[u8]| {
            let mut out = Vec::with_capacity(mark.len() + 2 * text.len());
            out.extend_from_slice(mark);
            text.encode_utf16().for_each(|u| out.extend(to(u)));
            out
        };
        match self {
            Encoding::Utf8 => text.as_bytes().to_vec(),
            Encoding::Utf8Bom => [UTF8_BOM, text.as_bytes()].concat(),
            Encoding::Utf16Le => units(u16::to_le_bytes, UTF16LE_BOM),
            Encoding::Utf16Be => units(u16::to_be_bytes, UTF16BE_BOM),
        }
    }
}

/// The text `bytes` hold and how they hold it; an invalid byte is an error naming its offset.
pub fn decode(bytes: &[u8]) -> Result<(String, Encoding), DecodeError> {
    let (encoding, mark) = Encoding::detect(bytes);
    let body = &bytes[mark..];
    let text = match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => std::str::from_utf8(body)
            .map_err(|e| DecodeError::NotUtf8 {
                at: mark + e.valid_up_to(),
            })?
            .to_owned(),
        Encoding::Utf16Le | Encoding::Utf16Be => {
            if body.len() % 2 == 1 {
                return Err(DecodeError::NotUtf16 {
                    at: bytes.len() - 1,
                    why: "an odd number of bytes",
                });
            }
            let mut text = String::with_capacity(body.len() / 2);
            let mut at = mark;
            for unit in char::decode_utf16(units(body, encoding)) {
                let c = unit.map_err(|_| DecodeError::NotUtf16 {
                    at,
                    why: "a lone surrogate",
                })?;
                at += 2 * c.len_utf16();
                text.push(c);
            }
            text
        }
    };
    Ok((text, encoding))
}

/// The text of `bytes`, with U+FFFD where they are not valid (an import takes what it can).
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    let (encoding, mark) = Encoding::detect(bytes);
    let body = &bytes[mark..];
    match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => String::from_utf8_lossy(body),
        Encoding::Utf16Le | Encoding::Utf16Be => Cow::Owned(
            char::decode_utf16(units(body, encoding))
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect(),
        ),
    }
}

/// `std::fs::read_to_string` for files other programs saved: the text, decoded as above (a
/// file that is not text is `InvalidData`, as there), and its encoding.
pub fn read(path: &Path) -> io::Result<(String, Encoding)> {
    let bytes = std::fs::read(path)?;
    decode(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The text of the file at `path` (see [`read`]).
pub fn read_to_string(path: &Path) -> io::Result<String> {
    read(path).map(|(text, _)| text)
}

fn units(body: &[u8], encoding: Encoding) -> impl Iterator<Item = u16> + '_ {
    let big = encoding == Encoding::Utf16Be;
    body.chunks_exact(2).map(move |pair| {
        let pair = [pair[0], pair[1]];
        if big {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "{\r\n  \"k\": \"na\u{e7}\u{e3}o \u{1f600}\"\r\n}\r\n";

    #[test]
    fn every_encoding_comes_back_as_the_same_text_and_the_same_bytes() {
        for encoding in [
            Encoding::Utf8,
            Encoding::Utf8Bom,
            Encoding::Utf16Le,
            Encoding::Utf16Be,
        ] {
            let bytes = encoding.encode(TEXT);
            let (text, found) = decode(&bytes).expect("decodes");
            assert_eq!((text.as_str(), found), (TEXT, encoding));
            assert_eq!(decode_lossy(&bytes), TEXT, "{encoding:?}");
            assert_eq!(found.encode(&text), bytes, "{encoding:?} byte for byte");
        }
    }

    #[test]
    fn the_bytes_powershell_5_writes_are_utf16_little_endian_and_crlf_stays() {
        // `echo "A=b" > h.txt` in Windows PowerShell 5.1.
        let bytes = b"\xFF\xFEA\0=\0b\0\r\0\n\0";
        assert_eq!(decode(bytes), Ok(("A=b\r\n".into(), Encoding::Utf16Le)));
        let (be, _) = decode(b"\xFE\xFF\0A\xD8\x3D\xDE\x00").expect("big endian");
        assert_eq!(be, "A\u{1f600}");
    }

    #[test]
    fn what_is_not_text_says_where() {
        assert_eq!(decode(b"ok\xFFno"), Err(DecodeError::NotUtf8 { at: 2 }));
        assert_eq!(
            decode(b"\xEF\xBB\xBFok\xC3"),
            Err(DecodeError::NotUtf8 { at: 5 })
        );
        let odd = decode(b"\xFF\xFEA\0B").unwrap_err();
        assert_eq!(
            odd,
            DecodeError::NotUtf16 {
                at: 4,
                why: "an odd number of bytes"
            }
        );
        // A high surrogate followed by a letter, after one good unit.
        let lone = decode(b"\xFF\xFEA\0\x3D\xD8B\0").unwrap_err();
        assert_eq!(
            lone,
            DecodeError::NotUtf16 {
                at: 4,
                why: "a lone surrogate"
            }
        );
        assert_eq!(decode_lossy(b"\xFF\xFEA\0\x3D\xD8B\0"), "A\u{fffd}B");
        // Zero bytes without a mark are UTF-8 (NULs), not a guess at UTF-16.
        assert_eq!(decode(b"A\0"), Ok(("A\0".into(), Encoding::Utf8)));
    }
}
