//! Replay: a recorded client session sent again to a live server, through the tap.
//!
//! A server author changes their server and wants to know what a real client would now see.
//! The engine plays the recorded client ([`plan`]): it reaches the server through the ordinary
//! tap (the stdio tap for a command, the Streamable HTTP proxy for a URL), so the replay is
//! itself a trace; it sends each recorded request and notification in order, byte for byte as
//! recorded, and waits for each request's answer (up to a timeout: a server that never answers
//! is reported, not waited on forever). The server's own requests (sampling, elicitation,
//! roots) get the client's recorded answers, matched by method and order, under the new
//! request's id. A 2026-07-28 multi-round-trip retry carries the new server's `requestState`,
//! not the recorded one. A server that refuses the recorded protocol revision stops the replay.
//!
//! The engine does not judge: comparing the two traces is [`crate::analysis::replay`]'s job
//! (the CLI composes them), so the same comparison serves any two recordings.

pub mod cassette;
pub mod http;
pub mod plan;
mod stdio;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use http::replay_http;
pub use plan::{Listen, Plan, PlanError, Step, plan};
pub use stdio::replay_stdio;

use crate::i18n::Said;
use crate::tap::{Recorder, TapError};
use crate::trace::Lane;

/// How a replay went, as far as the engine can tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// Recorded messages sent.
    pub sent: usize,
    /// Recorded `seq`s of requests the new server did not answer within the timeout.
    pub timed_out: Vec<u64>,
    /// Recorded `seq`s of requests the new server rejected without a JSON-RPC answer (an
    /// HTTP `4xx`), with what it said.
    pub rejected: Vec<(u64, String)>,
    /// Server requests answered from the recording, and those with no recorded answer left.
    pub answered: usize,
    /// Each method the recording had no (more) answers to, with how many times it was asked,
    /// in the order first asked: a server asking in a loop is one line, not one per ask.
    pub unanswerable: Vec<(String, usize)>,
    /// Why the replay stopped early (the server exited, refused the recorded protocol
    /// revision, could not be reached), naming the recorded request, in words each language
    /// says ([`crate::host::said`]).
    pub failure: Option<Said>,
}

/// The engine could not start.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Tap(#[from] TapError),
    #[error("cannot connect to the tap: {0}")]
    Socket(std::io::Error),
    #[error("cannot start the HTTP tap: {0}")]
    Http(String),
}

/// What one exchange with the server came to.
enum Outcome {
    /// A notification (or an answer) was delivered.
    Sent,
    Answer(Value),
    Timeout,
    /// Refused without a JSON-RPC answer (an HTTP status and body).
    Rejected(String),
    /// The server is gone or cannot be reached: the replay stops.
    Stopped(Said),
}

/// One way of reaching the server (stdio or Streamable HTTP).
trait Connection {
    /// Sends `line` (the message of `step`); for an awaited request, waits up to `timeout`
    /// for its answer, answering the server's own requests from `answers` meanwhile.
    fn exchange(
        &mut self,
        step: &Step,
        line: &str,
        wait: Option<Duration>,
        answers: &mut Answers,
    ) -> Outcome;

    /// After the last step (or the stop): what the connection still has to do with the
    /// recorded answers (the server's requests that came meanwhile, on HTTP's `GET` stream).
    fn finish(&mut self, _answers: &mut Answers) {}
}

/// The client's recorded answers to the server's requests, by method, in order.
struct Answers {
    queue: HashMap<String, VecDeque<String>>,
    answered: usize,
    unanswerable: Vec<(String, usize)>,
}

impl Answers {
    /// The line answering the server's request `msg`: the next recorded answer to its method
    /// under the new id, or a JSON-RPC error saying the recording has none.
    fn answer(&mut self, msg: &Value) -> Option<String> {
        let method = msg.get("method").and_then(Value::as_str)?;
        let id = msg.get("id")?;
        let recorded = self.queue.get_mut(method).and_then(|q| q.pop_front());
        Some(match recorded.and_then(|raw| plan::with_id(&raw, id)) {
            Some(line) => {
                self.answered += 1;
                line
            }
            None => {
                match self.unanswerable.iter_mut().find(|(m, _)| m == method) {
                    Some((_, count)) => *count += 1,
                    None => self.unanswerable.push((method.to_string(), 1)),
                }
                serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                    "message": format!("sightline replay: the recording has no (more) answers to {method}")}})
                .to_string()
            }
        })
    }
}

/// Consecutive requests left unanswered within the timeout after which the replay stops: a
/// server that stopped answering would otherwise cost the timeout once per recorded request.
pub const TIMEOUTS_IN_A_ROW: usize = 3;

/// Plays `plan` over `conn`, noting timeouts and the stop in the trace through `recorder`. An
/// unanswered `initialize` stops it (nothing after a dead handshake means anything), and so do
/// [`TIMEOUTS_IN_A_ROW`] unanswered requests in a row.
fn drive(
    plan: &Plan,
    conn: &mut dyn Connection,
    recorder: &Recorder,
    lane: &Lane,
    timeout: Duration,
) -> Replayed {
    let note = |text: &str| recorder.record_note(Lane::Host, lane.clone(), text);
    let mut out = Replayed::default();
    let mut answers = Answers {
        queue: plan.answers.clone(),
        answered: 0,
        unanswerable: Vec::new(),
    };
    // Recorded seq of a request -> the new server's answer, for multi-round-trip retries.
    let mut new_answers: HashMap<u64, Value> = HashMap::new();
    let mut in_a_row = 0;
    for step in &plan.steps {
        let state = step
            .retry_of
            .and_then(|prev| new_answers.get(&prev))
            .and_then(|answer| answer.pointer("/result/requestState"));
        let line = match state.and_then(|st| plan::with_request_state(&step.raw, st)) {
            Some(line) => line,
            None => step.raw.clone(),
        };
        let awaited = step.request && step.answered;
        let outcome = conn.exchange(step, &line, awaited.then_some(timeout), &mut answers);
        if !matches!(outcome, Outcome::Stopped(_)) {
            out.sent += 1;
        }
        if !matches!(outcome, Outcome::Timeout | Outcome::Sent) {
            in_a_row = 0;
        }
        match outcome {
            Outcome::Sent => {}
            Outcome::Answer(msg) => {
                if let Some(why) = plan::refused_version(step, &msg) {
                    let said = Said::new("replay_stop.refused")
                        .with_said("why", why)
                        .with("method", &step.method)
                        .with("seq", step.seq);
                    note(&format!("sightline replay: {}", said.english()));
                    out.failure = Some(said);
                    new_answers.insert(step.seq, msg);
                    break;
                }
                new_answers.insert(step.seq, msg);
            }
            Outcome::Timeout => {
                out.timed_out.push(step.seq);
                note(&format!(
                    "sightline replay: no answer to {} (recorded #{}) within {timeout:?}",
                    step.method, step.seq
                ));
                in_a_row += 1;
                let said = if step.method == "initialize" {
                    Said::new("replay_stop.no_handshake")
                } else if in_a_row >= TIMEOUTS_IN_A_ROW {
                    Said::new("replay_stop.timeouts").with("count", in_a_row)
                } else {
                    continue;
                };
                let said = said
                    .with("method", &step.method)
                    .with("seq", step.seq)
                    .with("timeout", format!("{timeout:?}"));
                note(&format!("sightline replay: {}", said.english()));
                out.failure = Some(said);
                break;
            }
            Outcome::Rejected(what) => out.rejected.push((step.seq, what)),
            Outcome::Stopped(why) => {
                let said = Said::new("replay_stop.while")
                    .with_said("why", why)
                    .with("method", &step.method)
                    .with("seq", step.seq);
                note(&format!("sightline replay: {}", said.english()));
                out.failure = Some(said);
                break;
            }
        }
    }
    conn.finish(&mut answers);
    out.answered = answers.answered;
    out.unanswerable = answers.unanswerable;
    out
}

/// Shared by both connections: the recorder is theirs to record through, not to finish.
type Rec = Arc<Recorder>;

/// What a replay is sent to: a server command (behind the stdio tap) or a Streamable HTTP
/// endpoint (behind the HTTP proxy), recorded as `server:NAME`.
#[derive(Debug, Clone)]
pub enum Target {
    Command(crate::tap::ServerCommand),
    Url { url: String, name: String },
}

impl Target {
    /// `http://` and `https://` are endpoints; anything else is a command line split at
    /// whitespace (the app's "Replay against..." field).
    pub fn parse(text: &str, name: &str) -> Option<Target> {
        let text = text.trim();
        if text.starts_with("http://") || text.starts_with("https://") {
            return Some(Target::Url {
                url: text.to_string(),
                name: name.to_string(),
            });
        }
        let mut words = text.split_whitespace().map(str::to_string);
        let program = words.next()?;
        Some(Target::Command(crate::tap::ServerCommand::new(
            name.to_string(),
            program,
            words.collect(),
        )))
    }

    /// The lane the replay records the server on.
    pub fn lane(&self) -> Lane {
        match self {
            Target::Command(cmd) => cmd.lane(),
            Target::Url { name, .. } => Lane::server(name),
        }
    }

    /// How to name it in a message (an URL without its credentials).
    pub fn describe(&self) -> String {
        match self {
            Target::Command(cmd) => std::iter::once(cmd.program.clone())
                .chain(cmd.args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
            Target::Url { url, .. } => crate::wire::redact_url::redact_url(url).0,
        }
    }
}

/// A replay recorded into its own trace file.
pub struct RecordedReplay {
    pub replayed: Result<Replayed, ReplayError>,
    /// Trace-writing failures (the recording into the file went on where it could).
    pub warnings: Vec<crate::trace::TraceError>,
}

/// Replays `plan` against `target`, recording into a new trace at `out` with `header`.
pub fn replay_to_file(
    plan: &Plan,
    target: &Target,
    out: &std::path::Path,
    header: &crate::trace::Header,
    timeout: Duration,
) -> Result<RecordedReplay, crate::trace::TraceError> {
    let writer = crate::trace::TraceWriter::create(out, header)?;
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let replayed = match target {
        Target::Command(cmd) => replay_stdio(plan, cmd, recorder.clone(), timeout),
        Target::Url { url, name } => replay_http(plan, url, name, recorder.clone(), timeout),
    };
    let report = recorder.finish();
    Ok(RecordedReplay {
        replayed,
        warnings: report.errors,
    })
}
