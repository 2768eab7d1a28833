//! One reader per served trace, shared by every page that follows it.
//!
//! Each `/events` client used to read, parse and format the whole trace on the async workers
//! and hold its own copy and its own file descriptors: 200 clients of a 26 MB trace took 4.5
//! GB, and a few hundred tabs on a session of ten members ran out of descriptors. Here one
//! thread follows the trace's files (descriptors: one per member, whatever the clients) and
//! appends each Server-Sent Events message once to a log; a client is a cursor into that log,
//! so what it costs is the chunk being written to it, also when it never reads. At most
//! [`MAX_CLIENTS`] streams are open at once; one more is answered `503`.

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

/// The trace as a log of stream messages, grown by the reader thread.
pub struct Hub {
    log: Mutex<Vec<Entry>>,
    /// The log's length after each growth, for clients waiting for more.
    grew: tokio::sync::watch::Sender<usize>,
    clients: AtomicUsize,
    stop: AtomicBool,
}

impl Hub {
    /// Starts following `follower` on a thread of its own.
    pub fn start(follower: Follower) -> Arc<Hub> {
        let hub = Arc::new(Hub {
            log: Mutex::new(Vec::new()),
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
            log.extend(entries);
            log.len()
        };
        self.grew.send_replace(len);
    }

    /// The reader: the trace's growth into the log until [`Hub::stop`].
    fn follow(&self, mut follower: Follower) {
        let mut sent = 0usize;
        let mut warned = 0usize;
        let mut title = None;
        while !self.stop.load(Ordering::Relaxed) {
            let new = follower.poll();
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
        Some(Client {
            hub: self.clone(),
            next: 0,
            resume,
            grew: self.grew.subscribe(),
        })
    }
}

/// One page's place in the log; leaving frees its slot.
pub struct Client {
    hub: Arc<Hub>,
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
        while let Some(entry) = log.get(self.next) {
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
