//! Replaying to a server command: spawned behind the ordinary stdio tap, spoken to over a
//! socket pair as the host's rmcp client is.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Answers, Connection, Outcome, Plan, Rec, ReplayError, Replayed, Step};
use crate::tap::{ServerCommand, StdioTap};
use crate::trace::Lane;

struct Stdio {
    tap: StdioTap,
    writer: UnixStream,
    lines: mpsc::Receiver<String>,
}

impl Stdio {
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.writer.write_all(&bytes)
    }

    fn died(&self, wait: Duration) -> String {
        match self.tap.wait_timeout(wait) {
            Some(exit) => format!("the server exited with {exit}"),
            None => "the server closed its output".to_string(),
        }
    }
}

impl Connection for Stdio {
    fn exchange(
        &mut self,
        _step: &Step,
        line: &str,
        wait: Option<Duration>,
        answers: &mut Answers,
    ) -> Outcome {
        if let Err(e) = self.send(line) {
            let exit = self.tap.wait_timeout(Duration::from_secs(3));
            return Outcome::Stopped(format!(
                "cannot send to the server ({e}){}",
                exit.map(|x| format!("; it exited with {x}"))
                    .unwrap_or_default()
            ));
        }
        let Some(timeout) = wait else {
            return Outcome::Sent;
        };
        let Some(id) = serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| v.get("id").cloned())
        else {
            return Outcome::Sent;
        };
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(line) => {
                    let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if msg.get("method").is_some() {
                        if let Some(answer) = answers.answer(&msg) {
                            let _ = self.send(&answer);
                        }
                    } else if msg.get("id") == Some(&id) {
                        return Outcome::Answer(msg);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.tap.wait_timeout(Duration::ZERO).is_some() {
                        return Outcome::Stopped(self.died(Duration::ZERO));
                    }
                    if Instant::now() >= deadline {
                        return Outcome::Timeout;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Outcome::Stopped(self.died(Duration::from_secs(3)));
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
    recorder: Rec,
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
    let mut conn = Stdio {
        tap,
        writer: ours,
        lines,
    };
    let out = super::drive(plan, &mut conn, &recorder, &cmd.lane(), timeout);
    let _ = conn.writer.shutdown(Shutdown::Both);
    conn.tap.shutdown();
    Ok(out)
}
