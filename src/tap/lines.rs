//! Cutting a byte stream into lines, for recording only.
//!
//! Forwarding never waits for a line to be complete: the pumps feed each chunk here (which
//! records the lines it completes) and pass the same chunk on at once. A line that spans many chunks (a 50 MB `tools/call` result) is
//! accumulated once, in the buffer that becomes the recorded event.

/// Accumulates chunks and emits each complete line without its `\n`.
#[derive(Debug, Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Feeds one chunk; calls `emit` for every line it completes, in order.
    pub fn feed(&mut self, mut chunk: &[u8], mut emit: impl FnMut(Vec<u8>)) {
        while let Some(pos) = memchr::memchr(b'\n', chunk) {
            let line = if self.partial.is_empty() {
                chunk[..pos].to_vec()
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&chunk[..pos]);
                line
            };
            emit(line);
            chunk = &chunk[pos + 1..];
        }
        self.partial.extend_from_slice(chunk);
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
            s.feed(c, |l| out.push(l));
        }
        (out, s.finish())
    }

    #[test]
    fn lines_across_chunks_keep_every_byte() {
        let (lines, rest) = split(&[b"ab", b"c\nd\r\n\n", b"e"]);
        assert_eq!(lines, vec![b"abc".to_vec(), b"d\r".to_vec(), b"".to_vec()]);
        assert_eq!(rest, Some(b"e".to_vec()));
        let (_, rest) = split(&[b"x\n"]);
        assert_eq!(rest, None);
    }
}
