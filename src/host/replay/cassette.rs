//! The model's side of a recorded run, to play again: a cassette of LLM responses.
//!
//! `sightline run SCENARIO --replay-model TRACE` re-runs the whole host loop against today's
//! servers with the model held still: the scripted model's server answers the n-th LLM
//! request of the new run with the n-th recorded response, byte for byte (status, content
//! type, body, streamed or not), whatever the request says. Requests the host makes for a
//! server's `sampling/createMessage` (marked with [`SAMPLING_HEADER`]) have their own queue, so
//! a server that samples more or less often does not shift the loop's turns. Where the servers
//! answer as recorded, the run is the recording again; where they do not, the requests the
//! host sends the model differ from the recorded ones, and that is where the loop diverged.

use std::collections::VecDeque;

use crate::trace::{Channel, Event, Lane};
use crate::wire::api::{ApiShape, SAMPLING_HEADER};

/// One recorded LLM response.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// `seq` of the recorded request it answered.
    pub request_seq: u64,
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// The recorded responses in order, the loop's and the sampling requests' apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cassette {
    pub turns: VecDeque<Recorded>,
    pub sampling: VecDeque<Recorded>,
    /// The API shape and streaming of the recorded requests, for the new run to ask alike.
    pub shape: Option<ApiShape>,
    pub stream: bool,
    /// How many loop turns the recording has (the queue empties as they are served).
    pub recorded_turns: usize,
}

/// A recording with nothing to play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CassetteError {
    #[error("the trace has no LLM responses to replay (no llm-http exchange with an answer)")]
    Empty,
}

fn header<'a>(e: &'a Event, name: &str) -> Option<&'a str> {
    e.http().and_then(|h| {
        h.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    })
}

impl Cassette {
    /// Reads the recorded LLM exchanges of `events`: each host request to the model is paired
    /// with the model's next response (the provider records them one after the other).
    pub fn from_events(events: &[Event]) -> Result<Cassette, CassetteError> {
        let mut out = Cassette::default();
        let mut pending: Option<(u64, bool)> = None;
        for e in events.iter().filter(|e| e.channel == Channel::LlmHttp) {
            if e.from == Lane::Host && e.to == Lane::Llm {
                let sampling = header(e, SAMPLING_HEADER).is_some();
                if !sampling && out.shape.is_none() {
                    let url = e.http().and_then(|h| h.url.as_deref()).unwrap_or("");
                    out.shape = ApiShape::from_url(url);
                    // Gemini asks for a stream in its URL, the others in the body.
                    out.stream = ApiShape::streams_by_url(url)
                        || serde_json::from_str::<serde_json::Value>(&e.text())
                            .ok()
                            .and_then(|v| v.get("stream").and_then(serde_json::Value::as_bool))
                            .unwrap_or(false);
                }
                pending = Some((e.seq, sampling));
            } else if e.from == Lane::Llm
                && let Some((request_seq, sampling)) = pending.take()
            {
                let recorded = Recorded {
                    request_seq,
                    status: e.http().and_then(|h| h.status).unwrap_or(200),
                    content_type: header(e, "content-type")
                        .unwrap_or("application/json")
                        .to_string(),
                    body: e.bytes().map(|b| b.into_owned()).unwrap_or_default(),
                };
                if sampling {
                    out.sampling.push_back(recorded);
                } else {
                    out.turns.push_back(recorded);
                }
            }
        }
        if out.turns.is_empty() && out.sampling.is_empty() {
            return Err(CassetteError::Empty);
        }
        out.recorded_turns = out.turns.len();
        Ok(out)
    }

    /// The next recorded response, for a sampling request or a turn of the loop.
    pub fn next(&mut self, sampling: bool) -> Option<Recorded> {
        if sampling {
            self.sampling.pop_front()
        } else {
            self.turns.pop_front()
        }
    }
}
