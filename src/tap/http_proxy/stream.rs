//! The response half of the proxy: the upstream body passed on chunk by chunk while each
//! JSON-RPC message in it is recorded (the whole body when it ends, or each SSE event when it
//! is complete), always before the bytes that complete it are passed on.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures_util::Stream;
use serde_json::Value;

use crate::tap::Recorder;
use crate::tap::http_common::scrub;
use crate::trace::{Channel, HttpInfo, Lane};
use crate::wire::redact::scrub_secret_str;
use crate::wire::sse::{SseEvent, SseParser};

pub(super) enum Mode {
    /// Not an event stream: the body is recorded whole when it ends.
    Whole(Vec<u8>),
    /// An event stream: each event is recorded when it is complete.
    Sse(SseParser),
}

/// The upstream body, passed on chunk by chunk while it is recorded.
pub(super) struct RecordingStream {
    pub(super) inner: super::UpstreamBytes,
    /// Whether the body comes from another task, so that what is already waiting shows only
    /// after yielding to it (see [`RecordingStream::poll_next`]).
    pub(super) yield_for_more: bool,
    pub(super) mode: Mode,
    pub(super) received: u64,
    /// The upstream's `Content-Length`: reaching it records the body before its last chunk is
    /// passed on.
    pub(super) expected: Option<u64>,
    /// Status and headers, for the first event recorded.
    pub(super) first: Option<HttpInfo>,
    pub(super) done: bool,
    pub(super) recorder: Arc<Recorder>,
    pub(super) from: Lane,
    pub(super) to: Lane,
    pub(super) secrets: Vec<String>,
    pub(super) url: String,
    /// The `seq` of the request this response answers, recorded as `in_reply_to` on every
    /// event of the response (concurrent exchanges, such as a GET stream beside POSTs, cannot
    /// be paired by order).
    pub(super) request_seq: u64,
    /// Events of the chunks being coalesced, written in one batch before they are passed on.
    pub(super) queued: Vec<Queued>,
    /// How the upstream body ended, held back while the bytes before it are passed on.
    pub(super) ending: Option<Option<io::Result<Bytes>>>,
    /// Bytes taken from the upstream and not yet passed on, while the task lets the upstream's
    /// connection hand over what it already has (see [`RecordingStream::poll_next`]).
    pub(super) held: Held,
    /// How many times this task yielded for what it holds (at most [`YIELDS`]).
    pub(super) yields: u8,
}

/// What [`RecordingStream::poll_next`] has taken and not yet passed on.
#[derive(Default)]
pub(super) enum Held {
    #[default]
    Nothing,
    One(Bytes),
    Joined(Vec<u8>),
}

impl Held {
    fn push(&mut self, chunk: Bytes) {
        *self = match std::mem::take(self) {
            Held::Nothing => Held::One(chunk),
            Held::One(head) => {
                let mut joined = Vec::with_capacity(COALESCE.max(head.len() + chunk.len()));
                joined.extend_from_slice(&head);
                joined.extend_from_slice(&chunk);
                Held::Joined(joined)
            }
            Held::Joined(mut joined) => {
                joined.extend_from_slice(&chunk);
                Held::Joined(joined)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Held::Nothing => 0,
            Held::One(b) => b.len(),
            Held::Joined(v) => v.len(),
        }
    }

    fn take(&mut self) -> Option<Bytes> {
        match std::mem::take(self) {
            Held::Nothing => None,
            Held::One(b) => Some(b),
            Held::Joined(v) => Some(Bytes::from(v)),
        }
    }
}

pub(super) enum Queued {
    Http(HttpInfo, Vec<u8>),
    Note(String),
}

/// At most this much of what is already waiting is passed on in one write.
const COALESCE: usize = 256 * 1024;
/// At most this many yields before what is held is passed on: an upstream that hands over a
/// chunk at every look (a steady stream) waits a few microseconds, not until [`COALESCE`].
const YIELDS: u8 = 16;

impl RecordingStream {
    /// Records one event (with the SSE fields of `sse`, when it is one); the first one recorded
    /// carries the status and headers.
    fn record(&mut self, sse: Option<&SseEvent>, mut body: Vec<u8>) {
        let redacted = scrub(&mut body, &self.secrets);
        let mut info = self.first.take().unwrap_or_default();
        info.redacted = redacted;
        // Straight into the event's map, in this order: one map per event, each key hashed once.
        let extra = &mut info.extra;
        if let Some(event) = sse {
            if let Some(id) = &event.id {
                extra.insert("sse_id".into(), Value::String(id.clone()));
            }
            if let Some(kind) = &event.event {
                extra.insert("sse_event".into(), Value::String(kind.clone()));
            }
            if let Some(retry) = event.retry {
                extra.insert("retry".into(), Value::from(retry));
            }
        }
        extra.insert("in_reply_to".into(), Value::from(self.request_seq));
        self.queued.push(Queued::Http(info, body));
    }

    /// Writes the queued events (one write), before the bytes they came in are passed on.
    fn write_queued(&mut self) {
        if self.queued.is_empty() {
            return;
        }
        let queued = std::mem::take(&mut self.queued);
        let (from, to) = (&self.from, &self.to);
        self.recorder.batch(|b| {
            for q in queued {
                match q {
                    Queued::Http(info, body) => {
                        b.record_http(from.clone(), to.clone(), Channel::Http, info, body)
                    }
                    Queued::Note(text) => b.record_note(from.clone(), to.clone(), &text),
                };
            }
        });
    }

    fn record_sse(&mut self, mut event: SseEvent) {
        // Exact bytes: data that is not UTF-8 is recorded as it came (`raw_b64`).
        let data = match event.raw_data.take() {
            Some(raw) => raw,
            None => std::mem::take(&mut event.data).into_bytes(),
        };
        self.record(Some(&event), data);
    }

    fn chunk(&mut self, chunk: &[u8]) {
        if self.done {
            return;
        }
        self.received += chunk.len() as u64;
        match &mut self.mode {
            Mode::Whole(body) => {
                body.extend_from_slice(chunk);
                if self.expected == Some(self.received) {
                    self.end(None);
                }
            }
            Mode::Sse(parser) => {
                for event in parser.feed(chunk) {
                    self.record_sse(event);
                }
            }
        }
    }

    /// Records a body declared empty (`content-length: 0`, a `202 Accepted`) at once: nobody
    /// reads it, and the client may send its next request before this stream is dropped.
    pub(super) fn record_if_empty(&mut self) {
        if self.expected == Some(0) {
            self.end(None);
            self.write_queued();
        }
    }

    /// Records what is left and, when the body did not end normally, a note saying so.
    fn end(&mut self, problem: Option<String>) {
        if self.done {
            return;
        }
        self.done = true;
        match std::mem::replace(&mut self.mode, Mode::Whole(Vec::new())) {
            Mode::Whole(body) => self.record(None, body),
            Mode::Sse(parser) => {
                if let Some(event) = parser.finish() {
                    self.record_sse(event);
                }
                if self.first.is_some() {
                    // A stream that ended without any event: its status still shows.
                    self.record(None, Vec::new());
                }
            }
        }
        if let Some(mut problem) = problem {
            for secret in &self.secrets {
                scrub_secret_str(&mut problem, secret);
            }
            let note = format!("sightline proxy: {} ({problem})", self.url);
            self.queued.push(Queued::Note(note));
        }
    }
}

impl Stream for RecordingStream {
    type Item = io::Result<Bytes>;

    /// Takes every chunk the upstream already has (up to [`COALESCE`] bytes), records the
    /// events they complete in one write, and passes them on as one chunk: the same bytes in
    /// the same order, in fewer writes.
    ///
    /// From a connection run on this task (a loopback `http://` upstream), the body is
    /// `Pending` only when the socket has nothing more, so "already waiting" is exact. From the
    /// pooled client, the body reaches this task one chunk at a time through its connection's
    /// task (hyper hands over a chunk only once the last one was taken), so "already waiting"
    /// is seen only after that task has run: when a chunk was taken and the upstream has
    /// nothing more yet, this task yields once (it wakes itself and returns `Pending`, holding
    /// the bytes) and passes on what it holds as soon as a yield brings nothing new, or after
    /// [`YIELDS`] yields. A body that is complete is passed on at once.
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.held.len() == 0
            && let Some(ending) = self.ending.take()
        {
            return Poll::Ready(ending);
        }
        let mut took = false;
        while self.held.len() < COALESCE && self.ending.is_none() {
            match self.inner.as_mut().poll_next(cx) {
                Poll::Pending => break,
                Poll::Ready(Some(Ok(chunk))) => {
                    self.chunk(&chunk);
                    self.held.push(chunk);
                    took = true;
                }
                Poll::Ready(Some(Err(detail))) => {
                    let problem = format!(
                        "the upstream cut the response body after {} bytes: {detail}",
                        self.received
                    );
                    self.end(Some(problem.clone()));
                    self.ending = Some(Some(Err(io::Error::other(problem))));
                }
                Poll::Ready(None) => {
                    self.end(None);
                    self.ending = Some(None);
                }
            }
        }
        let waiting = self.yield_for_more
            && self.ending.is_none()
            && !self.done
            && self.held.len() < COALESCE
            && self.yields < YIELDS;
        if took && waiting {
            // Let the upstream's connection hand over what it already has, then look again.
            self.yields += 1;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.yields = 0;
        self.write_queued();
        match self.held.take() {
            Some(out) => Poll::Ready(Some(Ok(out))),
            None => match self.ending.take() {
                Some(ending) => Poll::Ready(ending),
                None => Poll::Pending,
            },
        }
    }
}

impl Drop for RecordingStream {
    fn drop(&mut self) {
        if !self.done {
            // A body declared empty (a `202 Accepted`) is whole before anyone reads it: the
            // client's server need not poll it.
            let problem = (self.expected != Some(self.received)).then(|| {
                format!(
                    "the client disconnected after {} bytes of the response; the rest was not read",
                    self.received
                )
            });
            self.end(problem);
        }
        self.write_queued();
    }
}
