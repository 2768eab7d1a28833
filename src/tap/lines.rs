//! Cutting a byte stream into lines, for recording only.
//!
//! Forwarding never waits for a line to be complete: the pumps feed each chunk here and pass
//! the same chunk on at once. What comes back is one buffer holding every line the chunk
//! completed, with their spans, so recording a chunk of 500 small messages costs one copy and
//! one hand-over, not 500. A line that spans many chunks (a 50 MB `tools/call` result) is
//! accumulated once, in the buffer that is handed to the recorder.

use std::ops::Range;

/// The lines one chunk completed: `data` holds them with their `\n`s, `spans` excludes them.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Lines {
    pub data: Vec<u8>,
    pub spans: Vec<Range<usize>>,
}

impl Lines {
    /// One line (a stream's unterminated tail, or a single payload).
    pub fn single(data: Vec<u8>) -> Self {
        let spans = std::iter::once(0..data.len()).collect();
        Lines { data, spans }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.spans.iter().map(|r| &self.data[r.clone()])
    }
}

/// Accumulates chunks and returns the lines each completes, without their `\n`.
#[derive(Debug, Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Feeds one chunk; returns the lines it completed, if any.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<Lines> {
        let Some(last) = memchr::memrchr(b'\n', chunk) else {
            self.partial.extend_from_slice(chunk);
            return None;
        };
        let mut data = std::mem::take(&mut self.partial);
        data.extend_from_slice(&chunk[..=last]);
        self.partial.extend_from_slice(&chunk[last + 1..]);
        let mut spans = Vec::new();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', &data) {
            spans.push(start..end);
            start = end + 1;
        }
        Some(Lines { data, spans })
    }

    /// Bytes after the last newline when the stream ended, if any.
    pub fn finish(self) -> Option<Vec<u8>> {
        (!self.partial.is_empty()).then_some(self.partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, Option<Vec<u8>>) {
        let mut s = LineSplitter::default();
        let mut out = Vec::new();
        for c in chunks {
            if let Some(lines) = s.feed(c) {
                out.extend(lines.iter().map(<[u8]>::to_vec));
            }
        }
        (out, s.finish())
    }

    #[test]
    fn lines_across_chunks_keep_every_byte() {
        let (lines, rest) = split(&[b"ab", b"c\nd\r\n\n", b"e"]);
        assert_eq!(lines, vec![b"abc".to_vec(), b"d\r".to_vec(), b"".to_vec()]);
        assert_eq!(rest, Some(b"e".to_vec()));
        let (lines, rest) = split(&[b"x\n"]);
        assert_eq!((lines, rest), (vec![b"x".to_vec()], None));
        let (lines, rest) = split(&[b"no newline", b" at all"]);
        assert_eq!(
            (lines.len(), rest),
            (0, Some(b"no newline at all".to_vec()))
        );
    }
}
