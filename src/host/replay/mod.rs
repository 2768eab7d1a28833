//! Replay: a recorded client session sent again to a live server, through the tap.
//!
//! A server author changes their server and wants to know what a real client would now see.
//! The engine plays the recorded client ([`plan`]): it spawns the server behind the ordinary
//! stdio tap (so the replay is itself a trace), writes each recorded request and notification
//! in order, byte for byte as recorded, and waits for each request's answer (up to a timeout:
//! a server that never answers is reported, not waited on forever). The server's own requests
//! (sampling, elicitation, roots) get the client's recorded answers, matched by method and
//! order, under the new request's id. A 2026-07-28 multi-round-trip retry carries the new
//! server's `requestState`, not the recorded one.
//!
//! The engine does not judge: comparing the two traces is [`crate::analysis::replay`]'s job
//! (the CLI composes them), so the same comparison serves any two recordings.

pub mod plan;

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use plan::{Plan, PlanError, Step, plan};

use crate::tap::{ExitOutcome, Recorder, ServerCommand, StdioTap, TapError};
use crate::trace::Lane;

/// How a replay went, as far as the engine can tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// Recorded messages sent.
    pub sent: usize,
    /// Recorded `seq`s of requests the new server did not answer within the timeout.
    pub timed_out: Vec<u64>,
    /// Server requests answered from the recording, and those with no recorded answer left.
    pub answered: usize,
    pub unanswerable: Vec<String>,
    /// Why the replay stopped early (the server exited), naming the recorded request.
    pub failure: Option<String>,
}

/// The engine could not start.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Tap(#[from] TapError),
    #[error("cannot connect to the tap: {0}")]
    Socket(std::io::Error),
}

enum Waited {
    Answer(Value),
    Timeout,
    Died(ExitOutcome),
}

struct Session {
    tap: StdioTap,
    writer: UnixStream,
    lines: mpsc::Receiver<String>,
    recorder: Arc<Recorder>,
    lane: Lane,
    answers: HashMap<String, std::collections::VecDeque<String>>,
    out: Replayed,
}

impl Session {
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.writer.write_all(&bytes)
    }

    fn note(&self, text: &str) {
        self.recorder
            .record_note(Lane::Host, self.lane.clone(), text);
    }

    /// Answers one request of the server from the recording.
    fn answer_server(&mut self, msg: &Value) {
        let (Some(method), Some(id)) = (msg.get("method").and_then(Value::as_str), msg.get("id"))
        else {
            return;
        };
        let recorded = self.answers.get_mut(method).and_then(|q| q.pop_front());
        let line = match recorded.and_then(|raw| plan::with_id(&raw, id)) {
            Some(line) => {
                self.out.answered += 1;
                line
            }
            None => {
                self.out.unanswerable.push(method.to_string());
                serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                    "message": format!("sightline replay: the recording has no (more) answers to {method}")}})
                .to_string()
            }
        };
        let _ = self.send(&line);
    }

    /// Waits for the answer to `id`, answering the server's requests meanwhile.
    fn wait(&mut self, id: &Value, timeout: Duration) -> Waited {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(line) => {
                    let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if msg.get("method").is_some() {
                        if msg.get("id").is_some() {
                            self.answer_server(&msg);
                        }
                    } else if msg.get("id") == Some(id) {
                        return Waited::Answer(msg);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(exit) = self.tap.wait_timeout(Duration::ZERO) {
                        return Waited::Died(exit);
                    }
                    if Instant::now() >= deadline {
                        return Waited::Timeout;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Waited::Died(self.tap.wait_timeout(Duration::from_secs(3)).unwrap_or(
                        ExitOutcome {
                            code: None,
                            signal: None,
                        },
                    ));
                }
            }
        }
    }
}

/// Replays `plan` against `cmd` (spawned behind the tap, recorded by `recorder` as
/// `server:<cmd.name>`), waiting at most `timeout` for each answer. The recorder is not
/// finished: the caller does that.
pub fn replay_stdio(
    plan: &Plan,
    cmd: &ServerCommand,
    recorder: Arc<Recorder>,
    timeout: Duration,
) -> Result<Replayed, ReplayError> {
    let (ours, theirs) = UnixStream::pair().map_err(ReplayError::Socket)?;
    let theirs_in = theirs.try_clone().map_err(ReplayError::Socket)?;
    let tap = StdioTap::spawn(
        cmd,
        recorder.clone(),
        Lane::Host,
        Box::new(theirs_in),
        Box::new(theirs),
        None,
    )?;
    let reader = ours.try_clone().map_err(ReplayError::Socket)?;
    let (tx, lines) = mpsc::channel();
    std::thread::Builder::new()
        .name("replay-reader".into())
        .spawn(move || {
            for line in BufReader::new(reader).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        })
        .map_err(ReplayError::Socket)?;
    let mut s = Session {
        tap,
        writer: ours,
        lines,
        recorder,
        lane: cmd.lane(),
        answers: plan.answers.clone(),
        out: Replayed::default(),
    };
    // Recorded seq of a request -> the new server's answer, for multi-round-trip retries.
    let mut new_answers: HashMap<u64, Value> = HashMap::new();
    for step in &plan.steps {
        let state = step
            .retry_of
            .and_then(|prev| new_answers.get(&prev))
            .and_then(|answer| answer.pointer("/result/requestState"));
        let line = match state.and_then(|st| plan::with_request_state(&step.raw, st)) {
            Some(line) => line,
            None => step.raw.clone(),
        };
        if let Err(e) = s.send(&line) {
            let exit = s.tap.wait_timeout(Duration::from_secs(3));
            s.out.failure = Some(format!(
                "cannot send {} (recorded #{}) to the server: {e}{}",
                step.method,
                step.seq,
                exit.map(|x| format!("; it exited with {x}"))
                    .unwrap_or_default()
            ));
            break;
        }
        s.out.sent += 1;
        if !(step.request && step.answered) {
            continue;
        }
        let Some(id) = serde_json::from_str::<Value>(&step.raw)
            .ok()
            .and_then(|v| v.get("id").cloned())
        else {
            continue;
        };
        match s.wait(&id, timeout) {
            Waited::Answer(msg) => {
                new_answers.insert(step.seq, msg);
            }
            Waited::Timeout => {
                s.out.timed_out.push(step.seq);
                s.note(&format!(
                    "sightline replay: no answer to {} (recorded #{}) within {timeout:?}",
                    step.method, step.seq
                ));
            }
            Waited::Died(exit) => {
                let text = format!(
                    "the server exited with {exit} while replaying {} (recorded #{})",
                    step.method, step.seq
                );
                s.note(&format!("sightline replay: {text}"));
                s.out.failure = Some(text);
                break;
            }
        }
    }
    let _ = s.writer.shutdown(Shutdown::Both);
    s.tap.shutdown();
    Ok(s.out)
}
