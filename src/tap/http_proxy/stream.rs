//! The response half of the proxy: the upstream body passed on chunk by chunk while each
//! JSON-RPC message in it is recorded (the whole body when it ends, or each SSE event when it
//! is complete), always before the bytes that complete it are passed on.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures_util::Stream;
use serde_json::{Map, Value};

use crate::tap::Recorder;
use crate::tap::http_common::{describe, scrub};
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
    pub(super) inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
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
}

pub(super) enum Queued {
    Http(HttpInfo, Vec<u8>),
    Note(String),
}

/// At most this much of what is already waiting is passed on in one write.
const COALESCE: usize = 256 * 1024;

impl RecordingStream {
    /// Records one event; the first one recorded carries the status and headers.
    fn record(&mut self, extra: Map<String, Value>, mut body: Vec<u8>) {
        let redacted = scrub(&mut body, &self.secrets);
        let mut info = self.first.take().unwrap_or_default();
        info.redacted = redacted;
        info.extra.extend(extra);
        info.extra
            .insert("in_reply_to".into(), Value::from(self.request_seq));
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

    fn record_sse(&mut self, event: SseEvent) {
        let mut extra = Map::new();
        if let Some(id) = event.id {
            extra.insert("sse_id".into(), Value::String(id));
        }
        if let Some(kind) = event.event {
            extra.insert("sse_event".into(), Value::String(kind));
        }
        if let Some(retry) = event.retry {
            extra.insert("retry".into(), Value::from(retry));
        }
        // Exact bytes: data that is not UTF-8 is recorded as it came (`raw_b64`).
        let data = event.raw_data.unwrap_or_else(|| event.data.into_bytes());
        self.record(extra, data);
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

    /// Records what is left and, when the body did not end normally, a note saying so.
    fn end(&mut self, problem: Option<String>) {
        if self.done {
            return;
        }
        self.done = true;
        match std::mem::replace(&mut self.mode, Mode::Whole(Vec::new())) {
            Mode::Whole(body) => self.record(Map::new(), body),
            Mode::Sse(parser) => {
                if let Some(event) = parser.finish() {
                    self.record_sse(event);
                }
                if self.first.is_some() {
                    // A stream that ended without any event: its status still shows.
                    self.record(Map::new(), Vec::new());
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
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(ending) = self.ending.take() {
            return Poll::Ready(ending);
        }
        let mut first: Option<Bytes> = None;
        let mut more: Option<Vec<u8>> = None;
        let mut size = 0;
        while size < COALESCE {
            match self.inner.as_mut().poll_next(cx) {
                Poll::Pending => break,
                Poll::Ready(Some(Ok(chunk))) => {
                    self.chunk(&chunk);
                    size += chunk.len();
                    match (&first, &mut more) {
                        (None, _) => first = Some(chunk),
                        (Some(head), None) => {
                            let mut joined = Vec::with_capacity(COALESCE);
                            joined.extend_from_slice(head);
                            joined.extend_from_slice(&chunk);
                            more = Some(joined);
                        }
                        (Some(_), Some(joined)) => joined.extend_from_slice(&chunk),
                    }
                }
                Poll::Ready(Some(Err(err))) => {
                    let problem = format!(
                        "the upstream cut the response body after {} bytes: {}",
                        self.received,
                        describe(&err.without_url())
                    );
                    self.end(Some(problem.clone()));
                    self.ending = Some(Some(Err(io::Error::other(problem))));
                    break;
                }
                Poll::Ready(None) => {
                    self.end(None);
                    self.ending = Some(None);
                    break;
                }
            }
        }
        self.write_queued();
        let out = match (more, first) {
            (Some(joined), _) => Bytes::from(joined),
            (None, Some(chunk)) => chunk,
            (None, None) => {
                return match self.ending.take() {
                    Some(ending) => Poll::Ready(ending),
                    None => Poll::Pending,
                };
            }
        };
        Poll::Ready(Some(Ok(out)))
    }
}

impl Drop for RecordingStream {
    fn drop(&mut self) {
        if !self.done {
            let problem = format!(
                "the client disconnected after {} bytes of the response; the rest was not read",
                self.received
            );
            self.end(Some(problem));
        }
        self.write_queued();
    }
}
