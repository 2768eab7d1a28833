//! Moving bytes: a pump copies one pipe to its destination a chunk at a time, recording the
//! lines each chunk completes before forwarding it; the destinations it writes to (the server's
//! stdin, our own stdout).

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError};

use super::Shared;
use crate::tap::lines::{LineSplitter, Lines, Tail};
use crate::tap::long_line::LongLine;
use crate::tap::recorder::Recorder;
use crate::trace::{Channel, Lane};

/// The most one read takes from a pipe (and so the most one record call writes for it).
pub(super) const CHUNK: usize = 256 * 1024;
/// Writes into the server's stdin while it is open.
pub(super) struct ToStdin<'a>(pub(super) &'a Shared);

impl Write for ToStdin<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self
            .0
            .stdin
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            Some(stdin) => stdin.write(buf),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Copies `src` to `dst` chunk by chunk, recording the lines each chunk completes (a line kept
/// in a temporary file first: it crossed before the others); `splitter` holds what came before
/// (a line begun by an inline reader that hands the rest over). When `dst` fails (the reader went
/// away) it keeps reading and recording, so the writer is never blocked on a full pipe and
/// nothing that crossed is lost.
pub(super) fn pump(
    mut src: impl Read,
    mut dst: impl Write,
    recording: &AtomicUsize,
    mut splitter: LineSplitter,
    mut record: impl FnMut(Option<&LongLine>, Lines),
) {
    let mut record = |long: Option<&LongLine>, lines: Lines| {
        recording.fetch_add(1, Ordering::SeqCst);
        record(long, lines);
        recording.fetch_sub(1, Ordering::SeqCst);
    };
    let mut buf = vec![0u8; CHUNK];
    let mut forwarding = true;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::debug!("pump read ended: {e}");
                break;
            }
        };
        let chunk = &buf[..n];
        // Record before forwarding: once the peer has the line it may answer at once, and its
        // answer must not get an earlier `seq` than the line it answers.
        if let Some(lines) = splitter.feed(chunk) {
            record(splitter.take_long().as_ref(), lines);
        }
        if forwarding && let Err(e) = dst.write_all(chunk).and_then(|()| dst.flush()) {
            tracing::debug!("pump destination closed: {e}");
            forwarding = false;
        }
    }
    match splitter.finish_tail() {
        Some(Tail::Bytes(rest)) => record(None, Lines::single(rest)),
        Some(Tail::Long(long)) => record(Some(&long), Lines::default()),
        None => {}
    }
    let _ = dst.flush();
    // Dropping `dst` here closes it: the reader sees EOF now, not when the server exits.
    drop(dst);
}

/// One direction a pump records: who sends, who gets it, on which channel.
#[derive(Clone)]
pub(super) struct Direction {
    recorder: Arc<Recorder>,
    from: Lane,
    to: Lane,
    channel: Channel,
}

impl Direction {
    pub(super) fn new(recorder: &Arc<Recorder>, from: &Lane, to: &Lane, channel: Channel) -> Self {
        Direction {
            recorder: recorder.clone(),
            from: from.clone(),
            to: to.clone(),
            channel,
        }
    }

    /// Records the lines one chunk completed: the line kept in a temporary file first (it
    /// crossed before the others), then the rest.
    pub(super) fn record(&self, long: Option<&LongLine>, lines: Lines) {
        if let Some(long) = long {
            self.recorder
                .record_long_line(&self.from, &self.to, &self.channel, long);
        }
        self.recorder
            .record_lines(&self.from, &self.to, &self.channel, lines);
    }
}

/// Our own stdout as a pump destination: unbuffered (each chunk goes out in one write, at once),
/// and when dropped it closes the client's end, so the client sees EOF when the server closes
/// its stdout even though this process goes on (descriptor 1 then points at `/dev/null`, so it
/// is never reused by a file opened later).
pub struct OwnStdout(Option<std::fs::File>);

impl OwnStdout {
    pub fn new() -> io::Result<OwnStdout> {
        Ok(OwnStdout(Some(super::sys::own_stdout()?)))
    }
}

impl Write for OwnStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Some(file) => file.write(buf),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for OwnStdout {
    fn drop(&mut self) {
        drop(self.0.take());
        super::sys::close_own_stdout();
    }
}
