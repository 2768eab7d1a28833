//! The response half of the LLM proxy: the upstream body passed on chunk by chunk while a copy
//! accumulates, recorded as one event when it ends, is cut, or the client stops reading.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures_util::Stream;

use crate::tap::Recorder;
use crate::tap::http_common::{describe, scrub};
use crate::trace::{Channel, HttpInfo, Lane};

/// What the response record needs once the body has ended.
pub(super) struct Pending {
    pub(super) recorder: Arc<Recorder>,
    pub(super) info: HttpInfo,
    pub(super) secrets: Vec<String>,
    pub(super) url: String,
}

/// The upstream body, passed on chunk by chunk while a copy accumulates for the record.
pub(super) struct RecordingStream {
    pub(super) inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    pub(super) received: Vec<u8>,
    /// The upstream's `Content-Length`: reaching it records the body before its last chunk
    /// is passed on.
    pub(super) expected: Option<u64>,
    pub(super) pending: Option<Pending>,
}

impl RecordingStream {
    /// Records the response as far as it went, and a note when it did not end normally.
    fn record(&mut self, problem: Option<String>) {
        let Some(mut pending) = self.pending.take() else {
            return;
        };
        let mut body = std::mem::take(&mut self.received);
        pending.info.redacted = scrub(&mut body, &pending.secrets);
        let recorder = pending.recorder.clone();
        recorder.record_http(
            Lane::Llm,
            Lane::Host,
            Channel::LlmHttp,
            std::mem::take(&mut pending.info),
            body,
        );
        if let Some(mut problem) = problem {
            for secret in &pending.secrets {
                crate::wire::redact::scrub_secret_str(&mut problem, secret);
            }
            let note = format!("sightline llm-proxy: {} ({problem})", pending.url);
            recorder.record_note(Lane::Llm, Lane::Host, &note);
        }
    }
}

impl Stream for RecordingStream {
    type Item = io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.inner.as_mut().poll_next(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(chunk))) => {
                if self.pending.is_some() {
                    self.received.extend_from_slice(&chunk);
                    if self.expected == Some(self.received.len() as u64) {
                        self.record(None);
                    }
                }
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(Some(Err(err))) => {
                let problem = format!(
                    "the upstream cut the response body after {} bytes: {}",
                    self.received.len(),
                    describe(&err.without_url())
                );
                self.record(Some(problem.clone()));
                Poll::Ready(Some(Err(io::Error::other(problem))))
            }
            Poll::Ready(None) => {
                self.record(None);
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for RecordingStream {
    fn drop(&mut self) {
        if self.pending.is_some() {
            let problem = format!(
                "the client disconnected after {} bytes of the response; the rest was not read",
                self.received.len()
            );
            self.record(Some(problem));
        }
    }
}
