//! Cutting a byte stream into lines, for recording only.
//!
//! Forwarding never waits for a line to be complete: the pumps feed each chunk here and pass
//! the same chunk on at once. What comes back is one buffer holding every line the chunk
//! completed, with their spans, so recording a chunk of 500 small messages costs one copy and
//! one hand-over, not 500. A line that spans many chunks is accumulated once, in the buffer that
//! is handed to the recorder; a spilling splitter ([`LineSplitter::spilling`], the pumps' kind)
//! moves a line past [`LONG_LINE`] bytes into a temporary file instead (a 50 MB `tools/call`
//! result), so memory stays bounded whatever the line's size.

use std::ops::Range;

use super::long_line::{LONG_LINE, LongLine};

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
    /// Spill a partial line longer than this (`None`: never).
    spill_after: Option<usize>,
    /// The partial line, once spilled.
    long: Option<LongLine>,
    /// A spilled line the last chunk completed (it comes before that chunk's [`Lines`]).
    completed: Option<LongLine>,
}

/// What was left when the stream ended.
#[derive(Debug)]
pub enum Tail {
    Bytes(Vec<u8>),
    Long(LongLine),
}

impl LineSplitter {
    /// A splitter that moves a partial line past [`LONG_LINE`] bytes to a temporary file: the
    /// line then comes out of [`take_long`](Self::take_long), not in [`Lines`].
    pub fn spilling() -> Self {
        Self::spilling_after(LONG_LINE)
    }

    /// A splitter that spills a partial line past `limit` bytes.
    pub fn spilling_after(limit: usize) -> Self {
        LineSplitter {
            spill_after: Some(limit),
            ..LineSplitter::default()
        }
    }

    /// The spilled line the last [`feed`](Self::feed) completed, if any: it crossed before the
    /// lines that feed returned.
    pub fn take_long(&mut self) -> Option<LongLine> {
        self.completed.take()
    }

    /// The unfinished line so far, unless it is kept in a temporary file.
    pub fn partial(&self) -> Option<&[u8]> {
        self.long.is_none().then_some(&self.partial[..])
    }

    /// Adds to the partial line, moving it to a temporary file once it is long.
    fn extend_partial(&mut self, bytes: &[u8]) {
        if let Some(long) = &mut self.long {
            if let Err(e) = long.append(bytes) {
                // Keep the line in memory from here on (it is recorded whole either way).
                tracing::warn!("cannot spill a long line to a temporary file: {e}");
                if let Some(long) = self.long.take() {
                    self.partial = long.to_vec().unwrap_or_default();
                }
                self.spill_after = None;
                self.partial.extend_from_slice(bytes);
            }
            return;
        }
        self.partial.extend_from_slice(bytes);
        if self
            .spill_after
            .is_some_and(|limit| self.partial.len() > limit)
        {
            match LongLine::create().and_then(|mut long| long.append(&self.partial).map(|()| long))
            {
                Ok(long) => {
                    self.long = Some(long);
                    self.partial = Vec::new();
                }
                Err(e) => {
                    tracing::warn!("cannot spill a long line to a temporary file: {e}");
                    self.spill_after = None;
                }
            }
        }
    }

    /// Feeds one chunk; returns the lines it completed, if any.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<Lines> {
        let Some(last) = memchr::memrchr(b'\n', chunk) else {
            self.extend_partial(chunk);
            return None;
        };
        let mut chunk = chunk;
        if self.long.is_some() {
            let first = memchr::memchr(b'\n', chunk).unwrap_or(last);
            self.extend_partial(&chunk[..first]);
            match self.long.take() {
                Some(long) => {
                    self.completed = Some(long);
                    chunk = &chunk[first + 1..];
                    if first == last {
                        self.extend_partial(chunk);
                        return Some(Lines::default());
                    }
                }
                // Spilling failed: the line is in `partial` now, up to this newline.
                None => chunk = &chunk[first..],
            }
        }
        let last = memchr::memrchr(b'\n', chunk).unwrap_or(0);
        let mut data = std::mem::take(&mut self.partial);
        data.extend_from_slice(&chunk[..=last]);
        self.extend_partial(&chunk[last + 1..]);
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
        match self.finish_tail()? {
            Tail::Bytes(bytes) => Some(bytes),
            Tail::Long(long) => long.to_vec().ok(),
        }
    }

    /// Like [`finish`](Self::finish), leaving a spilled tail in its file.
    pub fn finish_tail(self) -> Option<Tail> {
        match self.long {
            Some(long) => Some(Tail::Long(long)),
            None => (!self.partial.is_empty()).then_some(Tail::Bytes(self.partial)),
        }
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

    /// Every line in order, spilled or not, and the tail.
    fn split_spilling(limit: usize, chunks: &[&[u8]]) -> (Vec<Vec<u8>>, Option<Vec<u8>>, usize) {
        let mut s = LineSplitter::spilling_after(limit);
        let (mut out, mut spilled) = (Vec::new(), 0);
        for c in chunks {
            if let Some(lines) = s.feed(c) {
                if let Some(long) = s.take_long() {
                    spilled += 1;
                    assert!(long.len() as usize > limit);
                    out.push(long.to_vec().expect("read back"));
                }
                out.extend(lines.iter().map(<[u8]>::to_vec));
            }
        }
        (out, s.finish(), spilled)
    }

    #[test]
    fn spilled_lines_come_out_whole_and_in_order() {
        let stream: &[u8] = b"short\na much longer line\xff\nx\nanother long line at the end";
        let whole = split(&[stream]);
        for size in 1..stream.len() {
            let chunks: Vec<&[u8]> = stream.chunks(size).collect();
            let (lines, tail, spilled) = split_spilling(8, &chunks);
            assert_eq!((lines, tail), whole, "chunks of {size}");
            assert!(
                spilled >= 1 || size > 8,
                "chunks of {size}: nothing spilled"
            );
        }
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
