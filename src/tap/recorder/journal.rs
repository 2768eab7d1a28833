//! Recording beside forwarding: a pump appends each chunk it reads to the trace's raw journal
//! ([`crate::trace::journal`]) and forwards it; the recorder thread here turns the journal into
//! events (line splitting, escaping, timestamps) while the next chunks cross.
//!
//! The order that keeps a trace true is kept by the journal: a chunk is in it (one `write(2)`,
//! so it survives a SIGKILL as the trace's own writes would) before it is forwarded, with the
//! `seq` of the first line it completes taken under the journal's lock, so `seq` order is the
//! order bytes crossed, and an answer read after its request was journaled gets a later one. A
//! synchronous record (a process event, an HTTP exchange, a note) first waits for the thread to
//! catch up with the journal, then writes its event itself, so the trace stays in `seq` order.
//! A recorder thread behind by [`MAX_LAG`] bytes holds the pumps back (as a full pipe would);
//! once the journal is past [`CLEAR_AT`] bytes it is emptied when the thread has caught up
//! (streams declared again, unfinished lines carried), so it stays bounded.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};

use super::{LineBatch, LongBatch, State};
use crate::tap::lines::{LineSplitter, Lines, Tail};
use crate::trace::journal::JournalWriter;
use crate::trace::{Channel, Lane, TraceError};

/// The most journal bytes the recorder thread may be behind before the pumps wait for it:
/// a bulk transfer (a 50 MB line each way) crosses at the pipe's speed; a sender faster than
/// the disk for longer waits.
const MAX_LAG: u64 = 128 << 20;
/// A journal this big is emptied once the recorder thread has caught up.
const CLEAR_AT: u64 = 64 << 20;
/// The most journal bytes the thread records in one turn (formatted on two threads, see
/// [`crate::trace::LineRun`]).
const TURN: u64 = 1 << 20;
/// Woken for less than [`LINGER_BYTES`], the thread waits up to [`LINGER`] for more first, so a
/// conversation of small messages costs a wake-up every few milliseconds, not one per message
/// (a wake-up on a busy machine takes a core from the bytes crossing).
const LINGER: std::time::Duration = std::time::Duration::from_millis(2);
const LINGER_BYTES: u64 = 1 << 20;

/// What the journal holds that the recorder thread has not recorded yet.
enum Item {
    Chunk {
        stream: u32,
        first_seq: u64,
        time: DateTime<Utc>,
        offset: u64,
        len: usize,
    },
    Tail {
        stream: u32,
        seq: u64,
        time: DateTime<Utc>,
    },
}

pub(super) struct Inner {
    /// `None` once closed, or after a write failed.
    writer: Option<JournalWriter>,
    queue: VecDeque<Item>,
    /// Bytes queued and not yet recorded.
    lag: u64,
    /// The thread holds items it has not written yet.
    busy: bool,
    /// No more records: the thread drains the queue and ends.
    closing: bool,
    /// The thread is gone.
    ended: bool,
    /// Every stream's route, by its number.
    routes: Vec<(Lane, Lane, Channel)>,
    /// The thread waits for work: a pump that queues something wakes it (after forwarding).
    sleeping: bool,
    /// The thread waits a moment for more: woken only by [`LINGER_BYTES`] queued, or by
    /// someone waiting for it.
    lingering: bool,
    /// A synchronous recorder waits for the thread to catch up: no lingering.
    urgent: bool,
    /// The journal could not be emptied (a line kept in a temporary file is unfinished).
    clear_blocked: bool,
    error: Option<TraceError>,
}

impl Inner {
    fn idle(&self) -> bool {
        self.ended || (self.queue.is_empty() && !self.busy)
    }

    fn fail(&mut self, source: std::io::Error) {
        let path = self.writer.take().map(|w| w.path().to_path_buf());
        let err = TraceError::Write {
            path: path.unwrap_or_default(),
            source,
        };
        tracing::error!("{err}; recording stops here, forwarding goes on");
        self.error.get_or_insert(err);
    }
}

/// The journal shared by the pumps, the synchronous recorders and the recorder thread.
pub(crate) struct Journal {
    inner: Mutex<Inner>,
    /// Wakes the recorder thread.
    work: Condvar,
    /// Wakes those waiting for the thread: pumps for room, synchronous recorders for it to
    /// catch up.
    progress: Condvar,
    next_seq: Arc<AtomicU64>,
}

impl Journal {
    /// Starts the recorder thread for a journal at `writer`, writing into `state`.
    pub(super) fn start(
        writer: JournalWriter,
        state: Arc<Mutex<State>>,
        next_seq: Arc<AtomicU64>,
    ) -> std::io::Result<(Arc<Journal>, std::thread::JoinHandle<()>)> {
        let reader = writer.reader()?;
        let journal = Arc::new(Journal {
            inner: Mutex::new(Inner {
                writer: Some(writer),
                queue: VecDeque::new(),
                lag: 0,
                busy: false,
                closing: false,
                ended: false,
                routes: Vec::new(),
                sleeping: false,
                lingering: false,
                urgent: false,
                clear_blocked: false,
                error: None,
            }),
            work: Condvar::new(),
            progress: Condvar::new(),
            next_seq,
        });
        let thread = {
            let journal = journal.clone();
            std::thread::Builder::new()
                .name("recorder".into())
                .spawn(move || {
                    let mut thread = Thread {
                        journal: &journal,
                        reader,
                        state,
                        splitters: HashMap::new(),
                        buf: Vec::new(),
                    };
                    thread.run();
                    let mut inner = journal.lock();
                    inner.ended = true;
                    drop(inner);
                    journal.progress.notify_all();
                })?
        };
        Ok((journal, thread))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new stream (one direction of one pipe), declared in the journal.
    pub(crate) fn stream(self: &Arc<Self>, from: &Lane, to: &Lane, channel: &Channel) -> Stream {
        let mut inner = self.lock();
        let stream = inner.routes.len() as u32;
        inner
            .routes
            .push((from.clone(), to.clone(), channel.clone()));
        if let Some(writer) = inner.writer.as_mut()
            && let Err(e) = writer.declare(stream, from, to, channel)
        {
            inner.fail(e);
        }
        Stream {
            journal: self.clone(),
            stream,
            open: false,
            wake: false,
        }
    }

    /// Waits until the recorder thread has written everything journaled so far; the journal
    /// stays locked (nothing more is journaled) while the guard lives.
    pub(super) fn caught_up(&self) -> MutexGuard<'_, Inner> {
        let mut inner = self.lock();
        inner.urgent = true;
        self.work.notify_one();
        while !inner.idle() {
            inner = self
                .progress
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        inner
    }

    /// Stops journaling: the thread records what is queued and ends (join its handle). Returns
    /// the journal (to remove once the trace is complete) and the error that stopped it, if any.
    pub(super) fn close(&self) -> (Option<JournalWriter>, Option<TraceError>) {
        let mut inner = self.lock();
        inner.closing = true;
        self.work.notify_all();
        while !inner.ended {
            inner = self
                .progress
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        (inner.writer.take(), inner.error.take())
    }
}

/// A pump's end of the journal: one direction of one pipe.
pub(crate) struct Stream {
    journal: Arc<Journal>,
    stream: u32,
    /// The last byte journaled was not a newline: a line is unfinished.
    open: bool,
    /// The recorder thread was asleep when the last chunk was queued: wake it once that chunk
    /// is forwarded (the wake-up is not in the way of the bytes).
    wake: bool,
}

impl Stream {
    /// Journals a chunk about to be forwarded; returns once it is in the journal (or the journal
    /// is closed). Waits while the recorder thread is too far behind.
    pub(crate) fn append(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        let lines = memchr::memchr_iter(b'\n', chunk).count() as u64;
        let j = &*self.journal;
        let mut inner = j.lock();
        if (inner.sleeping && !inner.queue.is_empty())
            || (inner.lingering && inner.lag > LINGER_BYTES)
        {
            j.work.notify_one();
        }
        while !inner.ended
            && (inner.lag > MAX_LAG
                || (inner.writer.as_ref().is_some_and(|w| w.len() > CLEAR_AT)
                    && !inner.clear_blocked
                    && !inner.idle()))
        {
            inner = j
                .progress
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if inner.closing {
            return;
        }
        let Some(writer) = inner.writer.as_mut() else {
            return;
        };
        let first_seq = j.next_seq.fetch_add(lines, Ordering::SeqCst);
        let time = crate::trace::now();
        match writer.chunk(self.stream, first_seq, time, chunk) {
            Ok(offset) => {
                inner.queue.push_back(Item::Chunk {
                    stream: self.stream,
                    first_seq,
                    time,
                    offset,
                    len: chunk.len(),
                });
                inner.lag += chunk.len() as u64;
                self.wake = inner.sleeping || (inner.lingering && inner.lag > LINGER_BYTES);
            }
            Err(e) => inner.fail(e),
        }
        self.open = chunk.last() != Some(&b'\n');
    }

    /// The last chunk journaled was forwarded: wakes the recorder thread if it sleeps.
    pub(crate) fn forwarded(&mut self) {
        if std::mem::take(&mut self.wake) {
            self.journal.work.notify_one();
        }
    }

    /// The stream ended: an unfinished line is recorded as it is.
    pub(crate) fn end(self) {
        if !self.open {
            return;
        }
        let j = &*self.journal;
        let mut inner = j.lock();
        if inner.closing {
            return;
        }
        let Some(writer) = inner.writer.as_mut() else {
            return;
        };
        let seq = j.next_seq.fetch_add(1, Ordering::SeqCst);
        let time = crate::trace::now();
        match writer.tail(self.stream, seq, time) {
            Ok(()) => {
                inner.queue.push_back(Item::Tail {
                    stream: self.stream,
                    seq,
                    time,
                });
                j.work.notify_one();
            }
            Err(e) => inner.fail(e),
        }
    }
}

/// The recorder thread.
struct Thread<'a> {
    journal: &'a Journal,
    reader: File,
    state: Arc<Mutex<State>>,
    splitters: HashMap<u32, LineSplitter>,
    buf: Vec<u8>,
}

impl Thread<'_> {
    fn run(&mut self) {
        loop {
            let (items, routes) = {
                let mut inner = self.journal.lock();
                loop {
                    if !inner.queue.is_empty() {
                        break;
                    }
                    if inner.closing {
                        return;
                    }
                    inner.urgent = false;
                    self.clear_if_big(&mut inner);
                    inner.sleeping = true;
                    inner = self
                        .journal
                        .work
                        .wait(inner)
                        .unwrap_or_else(PoisonError::into_inner);
                    inner.sleeping = false;
                }
                if !inner.urgent && !inner.closing && inner.lag < LINGER_BYTES {
                    inner.lingering = true;
                    inner = self
                        .journal
                        .work
                        .wait_timeout(inner, LINGER)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                    inner.lingering = false;
                }
                inner.busy = true;
                let mut taken = 0;
                let mut items = Vec::new();
                while taken < TURN
                    && let Some(item) = inner.queue.pop_front()
                {
                    if let Item::Chunk { len, .. } = item {
                        taken += len as u64;
                    }
                    items.push(item);
                }
                (items, inner.routes.clone())
            };
            let (bytes, error) = self.record(&items, &routes);
            let mut inner = self.journal.lock();
            if let Some(e) = error {
                inner.fail(e);
            }
            inner.lag = inner.lag.saturating_sub(bytes);
            inner.busy = false;
            if inner.queue.is_empty() {
                self.clear_if_big(&mut inner);
            }
            drop(inner);
            self.journal.progress.notify_all();
        }
    }

    /// Records `items` into the sinks; returns the journal bytes they covered, and the error
    /// of a chunk that could not be read back.
    fn record(
        &mut self,
        items: &[Item],
        routes: &[(Lane, Lane, Channel)],
    ) -> (u64, Option<std::io::Error>) {
        use std::os::unix::fs::FileExt as _;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut bytes, mut error) = (0, None);
        // Lines wait here to be written together; a long line goes in its place between them.
        let mut runs: Vec<LineBatch> = Vec::new();
        for item in items {
            let (stream, seq, time, lines, long) = match *item {
                Item::Chunk {
                    stream,
                    first_seq,
                    time,
                    offset,
                    len,
                } => {
                    bytes += len as u64;
                    self.buf.resize(len, 0);
                    if let Err(e) = self.reader.read_exact_at(&mut self.buf, offset) {
                        error.get_or_insert(e);
                        continue;
                    }
                    let splitter = self
                        .splitters
                        .entry(stream)
                        .or_insert_with(LineSplitter::spilling);
                    let Some(lines) = splitter.feed(&self.buf) else {
                        continue;
                    };
                    (stream, first_seq, time, lines, splitter.take_long())
                }
                Item::Tail { stream, seq, time } => {
                    let Some(splitter) = self.splitters.remove(&stream) else {
                        continue;
                    };
                    match splitter.finish_tail() {
                        Some(Tail::Bytes(rest)) => (stream, seq, time, Lines::single(rest), None),
                        Some(Tail::Long(long)) => (stream, seq, time, Lines::default(), Some(long)),
                        None => continue,
                    }
                }
            };
            let (from, to, channel) = &routes[stream as usize];
            let mut seq = seq;
            if let Some(long) = long {
                state.write_runs(&std::mem::take(&mut runs));
                state.write_long(&LongBatch {
                    seq,
                    time,
                    from,
                    to,
                    channel,
                    line: &long,
                });
                seq += 1;
            }
            if !lines.is_empty() {
                runs.push(LineBatch {
                    first_seq: seq,
                    time,
                    from: from.clone(),
                    to: to.clone(),
                    channel: channel.clone(),
                    lines,
                });
            }
        }
        state.write_runs(&runs);
        state.flush();
        (bytes, error)
    }

    /// Empties a big journal once everything in it is recorded: the streams are declared again
    /// and each unfinished line carried over (unless one is kept in a temporary file).
    fn clear_if_big(&self, inner: &mut Inner) {
        let Some(writer) = inner.writer.as_mut() else {
            return;
        };
        if writer.len() <= CLEAR_AT {
            return;
        }
        let mut carries = Vec::new();
        for (&stream, splitter) in &self.splitters {
            match splitter.partial() {
                Some(partial) => carries.push((stream, partial)),
                None => {
                    inner.clear_blocked = true;
                    return;
                }
            }
        }
        let result = writer.clear().and_then(|()| {
            for (stream, (from, to, channel)) in inner.routes.iter().enumerate() {
                writer.declare(stream as u32, from, to, channel)?;
            }
            for (stream, partial) in carries {
                if !partial.is_empty() {
                    writer.carry(stream, partial)?;
                }
            }
            Ok(())
        });
        inner.clear_blocked = false;
        if let Err(e) = result {
            inner.fail(e);
        }
    }
}
