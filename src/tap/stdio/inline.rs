//! A server's stdio spoken to directly by a client on its own thread (the replay), recorded as
//! the pumps record it, without the pumps.
//!
//! A pump between two processes costs a thread hop each way: the client's write wakes the
//! pump, the pump's write wakes the server, and the same again for the answer. A client that
//! lives in this process can do the pump's work itself: [`InlineServer::write_all`] records
//! the lines a write completes and then writes the server's stdin; [`InlineServer::read`]
//! reads one chunk of its stdout, records the lines it completes, and only then hands the
//! chunk over. The rules are the pumps': a line is in the trace before the other side has it
//! (so an answer never gets an earlier `seq` than what it answers, and a crash loses nothing
//! that was delivered), chunks are passed on as they are, and the output is read to its end
//! (by a pump thread once the client is done, [`InlineServer::close`]) so the exit is recorded
//! after everything the server wrote. Reads wait with `poll(2)` (on Windows by peeking at the
//! pipe, [`super::sys`]) up to a deadline, so a server
//! that never answers costs the client its timeout, not a hang; writes never block either: while
//! the server's stdin is full, its output is read (and kept for the next read), so a server
//! that waits for its output to be read before it reads more cannot deadlock the client.

use std::io::{self, Read as _};
use std::process::ChildStdout;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError, mpsc};
use std::time::{Duration, Instant};

use super::pump::{CHUNK, Direction, pump};
use super::{Shared, spawn_thread, sys};
use crate::tap::lines::{LineSplitter, Lines, Tail};
use crate::tap::long_line::LongLine;

/// The server's end of the tap for a client on this process's own thread (see the module).
pub struct InlineServer {
    shared: Arc<Shared>,
    /// `None` once it reached its end or was handed to a pump thread.
    stdout: Option<ChildStdout>,
    /// Tells the waiter stdout is drained (sent at its end, or by the pump it is handed to).
    drained: Option<mpsc::Sender<()>>,
    to_server: Direction,
    to_client: Direction,
    sent: LineSplitter,
    received: LineSplitter,
    buf: Vec<u8>,
    /// Output read (and recorded) while a write waited for room: the next read delivers it.
    backlog: Vec<u8>,
}

/// What one [`InlineServer::read`] came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// Bytes were appended (recorded first).
    Data,
    /// Nothing within the wait.
    Timeout,
    /// The server closed its stdout (or it was handed over): nothing more will come.
    Closed,
}

impl InlineServer {
    pub(super) fn new(
        shared: Arc<Shared>,
        stdout: ChildStdout,
        drained: mpsc::Sender<()>,
        to_server: Direction,
        to_client: Direction,
    ) -> Self {
        if let Some(stdin) = shared
            .stdin
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            sys::prepare_stdin(stdin);
        }
        InlineServer {
            shared,
            stdout: Some(stdout),
            drained: Some(drained),
            to_server,
            to_client,
            sent: LineSplitter::spilling(),
            received: LineSplitter::spilling(),
            buf: vec![0; CHUNK],
            backlog: Vec::new(),
        }
    }

    /// Records the lines `bytes` completes, then writes all of it to the server's stdin. While
    /// the pipe is full, the server's output is read meanwhile; after `wait` without room, or
    /// once stdin is closed, this fails (`TimedOut`, `BrokenPipe`).
    pub fn write_all(&mut self, bytes: &[u8], wait: Duration) -> io::Result<()> {
        let shared = self.shared.clone();
        let mut stdin = shared.stdin.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(stdin) = stdin.as_mut() else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        if let Some(lines) = self.sent.feed(bytes) {
            let long = self.sent.take_long();
            record(&self.shared, &self.to_server, long.as_ref(), lines);
        }
        let deadline = Instant::now() + wait;
        let out = self.stdout.as_ref().map(sys::raw);
        sys::write_all(stdin, bytes, deadline, out, || {
            if let Some(n) = self.read_chunk() {
                self.backlog.extend_from_slice(&self.buf[..n]);
            }
            self.stdout.is_some()
        })
    }

    /// Waits up to `wait` for the server's output and appends one chunk of it to `into`, its
    /// completed lines recorded first (or what a write read meanwhile, at once).
    pub fn read(&mut self, wait: Duration, into: &mut Vec<u8>) -> Received {
        if !self.backlog.is_empty() {
            into.append(&mut self.backlog);
            return Received::Data;
        }
        let Some(out) = self.stdout.as_ref().map(sys::raw) else {
            return Received::Closed;
        };
        if !sys::wait_readable(out, wait) {
            return Received::Timeout;
        }
        match self.read_chunk() {
            Some(n) => {
                into.extend_from_slice(&self.buf[..n]);
                Received::Data
            }
            None if self.stdout.is_none() => Received::Closed,
            None => Received::Timeout,
        }
    }

    /// One read of stdout into `buf`, its lines recorded: the count, or `None` when nothing
    /// was read (interrupted, or the end: then the unterminated tail is recorded, stdout closed
    /// and the waiter told).
    fn read_chunk(&mut self) -> Option<usize> {
        let stdout = self.stdout.as_mut()?;
        let n = match stdout.read(&mut self.buf) {
            Ok(0) => 0,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return None,
            Err(e) => {
                tracing::debug!("inline read ended: {e}");
                0
            }
        };
        if n == 0 {
            self.stdout = None;
            let tail = std::mem::take(&mut self.received).finish_tail();
            record_tail(&self.shared, &self.to_client, tail);
            if let Some(done) = self.drained.take() {
                let _ = done.send(());
            }
            return None;
        }
        if let Some(lines) = self.received.feed(&self.buf[..n]) {
            let long = self.received.take_long();
            record(&self.shared, &self.to_client, long.as_ref(), lines);
        }
        Some(n)
    }

    /// The client is done: an unterminated line it wrote is recorded, the server's stdin is
    /// closed (it may now leave), and the rest of its output is read to the end and recorded on
    /// a pump thread of its own (so the exit comes after it). Also done on drop.
    pub fn close(&mut self) {
        let tail = std::mem::take(&mut self.sent).finish_tail();
        record_tail(&self.shared, &self.to_server, tail);
        self.shared.close_stdin();
        self.backlog = Vec::new();
        let (Some(stdout), Some(done)) = (self.stdout.take(), self.drained.take()) else {
            return;
        };
        let shared = self.shared.clone();
        let to_client = self.to_client.clone();
        let splitter = std::mem::take(&mut self.received);
        let handed = spawn_thread(
            "server-out",
            Box::new(move || {
                let recording = &shared.recording;
                pump(stdout, io::sink(), recording, splitter, |long, lines| {
                    to_client.record(long, lines);
                });
                let _ = done.send(());
            }),
        );
        if let Err(e) = handed {
            tracing::warn!("the server's last output is not recorded: {e}");
        }
    }
}

impl Drop for InlineServer {
    fn drop(&mut self) {
        self.close();
    }
}

/// Records one chunk's lines, counted as recording (the waiter's drain timeout waits for it).
fn record(shared: &Shared, direction: &Direction, long: Option<&LongLine>, lines: Lines) {
    shared.recording.fetch_add(1, Ordering::SeqCst);
    direction.record(long, lines);
    shared.recording.fetch_sub(1, Ordering::SeqCst);
}

/// Records what was left of a stream when it ended.
fn record_tail(shared: &Shared, direction: &Direction, tail: Option<Tail>) {
    match tail {
        Some(Tail::Bytes(rest)) => record(shared, direction, None, Lines::single(rest)),
        Some(Tail::Long(long)) => record(shared, direction, Some(&long), Lines::default()),
        None => {}
    }
}

#[cfg(test)]
mod tests;
