//! Replaying to a server command: spawned behind the ordinary stdio tap, spoken to over a
//! socket pair as the host's rmcp client is.
//!
//! The driving thread reads the socket itself, with a read timeout, rather than through a
//! reader thread and a channel: one thread hop less per answer (the replay bench's added
//! time per request), and the line buffers are kept from one request to the next.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, ErrorKind, Write as _};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Answers, Connection, Outcome, Plan, Rec, ReplayError, Replayed, Step};
use crate::tap::{ServerCommand, StdioTap};
use crate::trace::Lane;

struct Stdio {
    tap: StdioTap,
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    /// The line being read: kept across read timeouts, so a line that arrives in pieces is
    /// read whole.
    line: Vec<u8>,
    /// Complete lines read while no answer was awaited, handled at the next wait, in order.
    pending: VecDeque<Vec<u8>>,
    /// The read timeout the socket has now (set again only when it changes).
    timeout: Option<Duration>,
    /// The line being sent, with its `\n` (one write).
    out: Vec<u8>,
}

/// How long one read waits before the loop looks at the deadline and the server again.
const POLL: Duration = Duration::from_millis(50);

/// What the next read from the tap came to.
enum Read {
    /// A complete line, its `\n` still on.
    Line(Vec<u8>),
    Timeout,
    Closed,
}

/// A request's `id` (`null` kept), read without building the rest of the message.
#[derive(serde::Deserialize)]
struct IdOnly {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

impl Stdio {
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.out.clear();
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
        self.writer.write_all(&self.out)
    }

    /// The next line: one read before, else one read now (waiting up to `wait`; what was read
    /// of a line so far stays in `self.line` when the read times out), or the tap closed.
    fn read_line(&mut self, wait: Duration) -> Read {
        if let Some(line) = self.pending.pop_front() {
            return Read::Line(line);
        }
        let wait = Some(wait.max(Duration::from_millis(1)));
        if self.timeout != wait {
            let _ = self.reader.get_ref().set_read_timeout(wait);
            self.timeout = wait;
        }
        match self.reader.read_until(b'\n', &mut self.line) {
            Ok(0) => Read::Closed,
            Ok(_) if self.line.last() == Some(&b'\n') => Read::Line(std::mem::take(&mut self.line)),
            // End of the stream in the middle of a line.
            Ok(_) => Read::Closed,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Read::Timeout
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => Read::Timeout,
            Err(_) => Read::Closed,
        }
    }

    /// Moves the complete lines the tap has delivered so far into `pending`, without waiting:
    /// after a message no answer is awaited for, so a server that talks meanwhile never fills
    /// the socket while the replay goes on writing.
    fn drain(&mut self) {
        if self.reader.get_ref().set_nonblocking(true).is_err() {
            return;
        }
        loop {
            match self.reader.read_until(b'\n', &mut self.line) {
                Ok(_) if self.line.last() == Some(&b'\n') => {
                    self.pending.push_back(std::mem::take(&mut self.line));
                }
                _ => break,
            }
        }
        let _ = self.reader.get_ref().set_nonblocking(false);
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
        // An object's id (a batch, an array, has none to wait for).
        let Some(id) = wait
            .filter(|_| line.trim_start().starts_with('{'))
            .and_then(|_| serde_json::from_str::<IdOnly>(line).ok())
            .and_then(|m| m.id)
        else {
            self.drain();
            return Outcome::Sent;
        };
        let timeout = wait.unwrap_or_default();
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read_line(left.min(POLL)) {
                Read::Line(line) => {
                    let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
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
                Read::Timeout => {
                    if self.tap.wait_timeout(Duration::ZERO).is_some() {
                        return Outcome::Stopped(self.died(Duration::ZERO));
                    }
                    if Instant::now() >= deadline {
                        return Outcome::Timeout;
                    }
                }
                Read::Closed => {
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
    let mut conn = Stdio {
        tap,
        writer: ours,
        reader: BufReader::with_capacity(64 * 1024, reader),
        line: Vec::new(),
        pending: VecDeque::new(),
        timeout: None,
        out: Vec::new(),
    };
    let out = super::drive(plan, &mut conn, &recorder, &cmd.lane(), timeout);
    let _ = conn.writer.shutdown(Shutdown::Both);
    conn.tap.shutdown();
    Ok(out)
}
