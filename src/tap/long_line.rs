//! A line too long to hold in memory while it crosses: its bytes wait in an unnamed temporary
//! file until the line is complete and recorded.
//!
//! The pumps forward every chunk at once, but a line is recorded only when its newline arrives.
//! A 50 MB `tools/call` result would otherwise sit in the proxy's memory until then (and again in
//! the trace writer's buffer); past [`LONG_LINE`] bytes the splitter moves it here instead, and
//! the recorder streams it from here into the trace. Memory stays at a few buffers whatever the
//! line's size. Whether the bytes are UTF-8 is worked out as they arrive (a character may be
//! cut between two chunks), so the trace writer knows at once whether to write `raw` or
//! `raw_b64`.

use std::fs::File;
use std::io::{self, Read};

/// A partial line longer than this goes to a temporary file.
pub const LONG_LINE: usize = 1 << 20;

/// The bytes of one line, in a temporary file that disappears when this is dropped.
#[derive(Debug)]
pub struct LongLine {
    file: File,
    len: u64,
    utf8: bool,
    /// The start of a character cut at the end of the last piece (at most 3 bytes).
    carry: Vec<u8>,
}

impl LongLine {
    /// A new, empty long line, or the reason no temporary file could be made.
    pub fn create() -> io::Result<LongLine> {
        Ok(LongLine {
            file: sys::temp_file()?,
            len: 0,
            utf8: true,
            carry: Vec::new(),
        })
    }

    /// Appends the next piece of the line.
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        sys::append(&mut self.file, bytes, self.len)?;
        self.len += bytes.len() as u64;
        if self.utf8 {
            self.check_utf8(bytes);
        }
        Ok(())
    }

    fn check_utf8(&mut self, mut bytes: &[u8]) {
        if let Some(&lead) = self.carry.first() {
            let width = match lead {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let take = (width - self.carry.len()).min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < width {
                return;
            }
            if std::str::from_utf8(&self.carry).is_err() {
                self.utf8 = false;
                return;
            }
            self.carry.clear();
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => {
                self.carry = bytes[e.valid_up_to()..].to_vec();
            }
            Err(_) => self.utf8 = false,
        }
    }

    /// How many bytes the line holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the whole line is UTF-8 (so far, while it is still being appended to).
    pub fn is_utf8(&self) -> bool {
        self.utf8 && self.carry.is_empty()
    }

    /// Reads the line from its start (each call starts again).
    pub fn reader(&self) -> impl Read + '_ {
        LongLineReader { line: self, at: 0 }
    }

    /// The whole line in memory (for sinks that keep events, and for observers).
    pub fn to_vec(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.len as usize);
        self.reader().read_to_end(&mut out)?;
        Ok(out)
    }
}

struct LongLineReader<'a> {
    line: &'a LongLine,
    at: u64,
}

impl Read for LongLineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.line.len.saturating_sub(self.at);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = sys::read_at(&self.line.file, &mut buf[..want], self.at)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the temporary file of a long line ended at {} of {} bytes",
                    self.at, self.line.len
                ),
            ));
        }
        self.at += n as u64;
        Ok(n)
    }
}

/// Where the temporary file differs between systems: how it is made nameless, and how a piece
/// is read at an offset without disturbing the appends.
#[cfg(unix)]
mod sys {
    use std::fs::File;
    use std::io::{self, Write as _};

    pub fn append(file: &mut File, bytes: &[u8], _at: u64) -> io::Result<()> {
        file.write_all(bytes)
    }

    pub fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
        use std::os::unix::fs::FileExt as _;
        file.read_at(buf, at)
    }

    /// A file readable and writable only by us, with no name (Linux `O_TMPFILE`), or with one
    /// removed at once elsewhere.
    pub fn temp_file() -> io::Result<File> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let dir = std::env::temp_dir();
        #[cfg(target_os = "linux")]
        if let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(&dir)
        {
            return Ok(file);
        }
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("sightline-line-{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        std::fs::remove_file(&path)?;
        Ok(file)
    }
}

/// Windows: a reading seeks (there is no positional read that leaves the cursor alone), so a
/// piece is written at its offset too; the file is opened by us alone and deleted when closed
/// (also when the process is killed), in the user's own temporary folder.
#[cfg(windows)]
mod sys {
    use std::fs::File;
    use std::io;
    use std::os::windows::fs::{FileExt as _, OpenOptionsExt as _};

    pub fn append(file: &mut File, mut bytes: &[u8], mut at: u64) -> io::Result<()> {
        while !bytes.is_empty() {
            match file.seek_write(bytes, at) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    bytes = &bytes[n..];
                    at += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    pub fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
        file.seek_read(buf, at)
    }

    pub fn temp_file() -> io::Result<File> {
        use windows_sys::Win32::Storage::FileSystem::{
            FILE_ATTRIBUTE_TEMPORARY, FILE_FLAG_DELETE_ON_CLOSE,
        };
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("sightline-line-{}-{n}", std::process::id()));
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .share_mode(0)
            .attributes(FILE_ATTRIBUTE_TEMPORARY)
            .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
            .open(&path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_judged_across_any_cut() {
        let text = "a✓é😀b".repeat(3);
        for cut in 0..=text.len() {
            let mut line = LongLine::create().expect("temp file");
            line.append(&text.as_bytes()[..cut]).expect("append");
            line.append(&text.as_bytes()[cut..]).expect("append");
            assert!(line.is_utf8(), "cut at {cut}");
            assert_eq!(line.to_vec().expect("read"), text.as_bytes());
        }
        for bad in [&b"\xff"[..], b"\xe2\x9c", b"\xc3(", b"\xed\xa0\x80"] {
            let mut line = LongLine::create().expect("temp file");
            line.append(b"ok").expect("append");
            for b in bad {
                line.append(&[*b]).expect("append");
            }
            assert!(!line.is_utf8(), "{bad:?}");
        }
    }
}
