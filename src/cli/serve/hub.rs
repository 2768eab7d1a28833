//! One reader per served trace, shared by every page that follows it.
//!
//! A page must not cost a copy of the trace: a reader, a parse and file descriptors per
//! `/events` client would take 4.5 GB for 200 clients of a 26 MB trace, and run out of
//! descriptors at a few hundred tabs on a session of ten members. So one thread follows the
//! trace's files (descriptors: one per member, whatever the clients) and appends each
//! Server-Sent Events message once to a log; a client is a cursor into that log, so what it
//! costs is the chunk being written to it, also when it never reads. At most
//! [`MAX_CLIENTS`] streams are open at once; one more is answered `503`.
//!
//! A trace file replaced under the server (a new `run --trace` over it), or truncated and
//! written again, is a new recording: the reader starts over, says so on stderr, and every
//! open stream gets `event: restart` and ends, so a page loads the new recording from its
//! start instead of appending it to the old one (the page reloads on that event).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::analysis::tokens::{Carried, Tiktoken};
use crate::trace::{Event, Follower, LineProblem, LoadWarning};

/// How often the trace's files are looked at for new lines.
const POLL_EVERY: Duration = Duration::from_millis(100);
/// A comment line this often keeps idle streams open through proxies.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Streams open at once; one more gets `503`.
pub const MAX_CLIENTS: usize = 256;
/// At most this much of the log goes into one write to a client.
const CHUNK: usize = 64 << 10;

/// One message of the stream, formatted once.
struct Entry {
    /// The event's index, for a trace line (`id:`); `None` for a header, tokens or a warning.
    event: Option<usize>,
    text: Arc<str>,
}

/// The stream's messages of one recording; a new recording of the same file is a new
/// generation.
#[derive(Default)]
struct Log {
    generation: u64,
    entries: Vec<Entry>,
}

/// The trace as a log of stream messages, grown by the reader thread.
pub struct Hub {
    log: Mutex<Log>,
    /// The log's length after each growth, for clients waiting for more.
    grew: tokio::sync::watch::Sender<usize>,
    clients: AtomicUsize,
    stop: AtomicBool,
}

impl Hub {
    /// Starts following `follower` on a thread of its own.
    pub fn start(follower: Follower) -> Arc<Hub> {
        let hub = Arc::new(Hub {
            log: Mutex::new(Log::default()),
            grew: tokio::sync::watch::Sender::new(0),
            clients: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let reader = hub.clone();
        let started = std::thread::Builder::new()
            .name("serve-reader".into())
            .spawn(move || reader.follow(follower));
        if let Err(e) = started {
            hub.append(vec![Entry {
                event: None,
                text: warning(
                    0,
                    LineProblem::ReadStopped {
                        detail: e.to_string(),
                    },
                )
                .into(),
            }]);
        }
        hub
    }

    /// Stops the reader at its next look.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn append(&self, entries: Vec<Entry>) {
        if entries.is_empty() {
            return;
        }
        let len = {
            let mut log = self
                .log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            log.entries.extend(entries);
            log.entries.len()
        };
        self.grew.send_replace(len);
    }

    /// A new recording: an empty log of the next generation; open streams end.
    fn restart(&self) {
        {
            let mut log = self
                .log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            log.generation += 1;
            log.entries = Vec::new();
        }
        self.grew.send_modify(|len| *len = len.wrapping_add(1));
    }

    /// The reader: the trace's growth into the log until [`Hub::stop`].
    fn follow(&self, mut follower: Follower) {
        let mut sent = 0usize;
        let mut warned = 0usize;
        let mut title = None;
        let mut recording = Recording::of(follower.path());
        while !self.stop.load(Ordering::Relaxed) {
            let new = follower.poll();
            let shrank = follower.warnings[warned..]
                .iter()
                .any(|w| shrank(&w.problem));
            let now = Recording::of(follower.path());
            if shrank || recording.replaced_by(&now) {
                let path = follower.path().to_path_buf();
                eprintln!(
                    "sightline: {} is a new recording (replaced or written again from its \
                     start): streaming it from its start; open pages reload",
                    path.display()
                );
                match Follower::new(&path) {
                    Ok(f) => follower = f,
                    Err(e) => eprintln!("sightline: warning: {e}"),
                }
                self.restart();
                (sent, warned, title, recording) = (0, 0, None, now);
                continue;
            }
            recording = now;
            let mut entries = Vec::new();
            let header = follower.header();
            if title.as_ref() != Some(&header.title) {
                if let Ok(json) = serde_json::to_string(&header) {
                    entries.push(Entry {
                        event: None,
                        text: format!("event: header\ndata: {json}\n\n").into(),
                    });
                }
                title = Some(header.title);
            }
            // The exact token counts of new requests, before the events (the viewer links no
            // tokenizer).
            let counts = Carried::of(&new, &Tiktoken);
            if !counts.is_empty()
                && let Ok(json) = serde_json::to_string(&counts)
            {
                entries.push(Entry {
                    event: None,
                    text: format!("event: tokens\ndata: {json}\n\n").into(),
                });
            }
            entries.extend(frames(&new, &mut sent));
            for w in &follower.warnings[warned..] {
                entries.push(Entry {
                    event: None,
                    text: warning(w.line, w.problem.clone()).into(),
                });
            }
            warned = follower.warnings.len();
            self.append(entries);
            std::thread::sleep(POLL_EVERY);
        }
    }

    /// A new client's stream from event `resume` on, or `None` when [`MAX_CLIENTS`] are open.
    pub fn client(self: &Arc<Hub>, resume: usize) -> Option<Client> {
        let open = self.clients.fetch_add(1, Ordering::AcqRel);
        if open >= MAX_CLIENTS {
            self.clients.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let generation = self
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .generation;
        Some(Client {
            hub: self.clone(),
            generation,
            ended: false,
            next: 0,
            resume,
            grew: self.grew.subscribe(),
        })
    }
}

/// One page's place in the log; leaving frees its slot.
pub struct Client {
    hub: Arc<Hub>,
    /// The recording this client follows; once the log moved on, it is told and ends.
    generation: u64,
    ended: bool,
    next: usize,
    resume: usize,
    grew: tokio::sync::watch::Receiver<usize>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.hub.clients.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Client {
    /// What the log holds past this client's place (at most [`CHUNK`] bytes of it).
    fn take(&mut self) -> String {
        let log = self
            .hub
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = String::new();
        if log.generation != self.generation {
            self.ended = true;
            return RESTART.to_string();
        }
        while let Some(entry) = log.entries.get(self.next) {
            if out.len() >= CHUNK {
                break;
            }
            self.next += 1;
            if entry.event.is_some_and(|id| id < self.resume) {
                continue;
            }
            out.push_str(&entry.text);
        }
        out
    }

    /// The next chunk to write: what the log grew by, or a keep-alive comment after
    /// [`KEEP_ALIVE`] of nothing; `None` once the reader is gone.
    pub async fn next_chunk(&mut self) -> Option<String> {
        loop {
            if self.ended {
                return None;
            }
            let chunk = self.take();
            if !chunk.is_empty() {
                return Some(chunk);
            }
            tokio::select! {
                changed = self.grew.changed() => changed.ok()?,
                () = tokio::time::sleep(KEEP_ALIVE) => return Some(": keep-alive\n\n".into()),
            }
        }
    }
}

/// What a stream of a recording that was replaced ends with: the page reloads on it.
const RESTART: &str = "event: restart\ndata: {\"why\":\"the trace file is a new recording\"}\n\n";

/// Which recording a followed file holds: its file (device and inode, where the system tells,
/// [`crate::cli::edges::file_id`]) and its first line, once complete (a file truncated and
/// written again keeps its inode, not its header). `None` for a folder.
struct Recording(Option<(FileId, Option<Vec<u8>>)>);

/// A file's device and inode; `None` where the system does not tell them.
type FileId = Option<(u64, u64)>;

impl Recording {
    fn of(path: &std::path::Path) -> Recording {
        use std::io::Read as _;
        let Ok(meta) = std::fs::metadata(path) else {
            return Recording(None);
        };
        if !meta.is_file() {
            return Recording(None);
        }
        let mut first = Vec::new();
        if let Ok(file) = std::fs::File::open(path) {
            let _ = file.take(4096).read_to_end(&mut first);
        }
        let header = memchr::memchr(b'\n', &first).map(|end| {
            first.truncate(end);
            first
        });
        Recording(Some((crate::cli::edges::file_id(path), header)))
    }

    /// Whether `now` is another recording: another file at the path, or another header (a
    /// header still being written is not yet another one).
    fn replaced_by(&self, now: &Recording) -> bool {
        match (&self.0, &now.0) {
            (Some((id, was)), Some((id2, is))) => {
                id != id2 || matches!((was, is), (Some(a), Some(b)) if a != b)
            }
            _ => false,
        }
    }
}

/// Whether a follower's warning says a file got shorter than what was read of it.
fn shrank(problem: &LineProblem) -> bool {
    match problem {
        LineProblem::Shrank { .. } => true,
        LineProblem::InFile { problem, .. } => shrank(problem),
        _ => false,
    }
}

/// The SSE messages of `events`, numbered from `sent`.
fn frames(events: &[Event], sent: &mut usize) -> Vec<Entry> {
    let mut out = Vec::with_capacity(events.len());
    for event in events {
        let id = *sent;
        *sent += 1;
        // A trace line is one JSON object: serde_json escapes every newline inside it.
        if let Ok(line) = serde_json::to_string(event) {
            out.push(Entry {
                event: Some(id),
                text: format!("id: {id}\ndata: {line}\n\n").into(),
            });
        }
    }
    out
}

/// A bad line, typed: the page says it in its own language (`line` 0: the stream itself failed).
fn warning(line: usize, problem: LineProblem) -> String {
    let json = serde_json::to_string(&LoadWarning { line, problem }).unwrap_or_default();
    format!("event: warning\ndata: {json}\n\n")
}
