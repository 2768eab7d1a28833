//! Replaying to a server command: spawned behind the ordinary stdio tap, its stdin written and
//! its stdout read by the driving thread itself ([`InlineServer`]), which records each chunk
//! as the tap's pumps do.
//!
//! No pump threads and no socket in between: a request and its answer cross the same two
//! pipes, with the same wake-ups, as with a client that spawned the server itself (the replay
//! bench's added time per request), and the read buffer is kept from one request to the next.
//! Reads wait with a deadline, so a server that never answers costs the timeout.

use std::io::ErrorKind;
use std::ops::Range;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Answers, Connection, Outcome, Plan, Rec, ReplayError, Replayed, Step};
use crate::host::said;
use crate::i18n::Said;
use crate::tap::stdio::{InlineServer, Received};
use crate::tap::{ServerCommand, StdioTap};
use crate::trace::Lane;

struct Stdio {
    tap: StdioTap,
    server: InlineServer,
    /// What the server wrote and the replay has not handled yet: lines from `start` on (read
    /// while no answer was awaited, handled at the next wait, in order), then a partial one.
    inbox: Vec<u8>,
    start: usize,
    /// Where the search for the next `\n` goes on (what is before it has none).
    scanned: usize,
    /// The line being sent, with its `\n` (one write).
    out: Vec<u8>,
    /// How long a write may wait for the server to read.
    timeout: Duration,
}

/// How long one read waits before the loop looks at the deadline and the server again.
const POLL: Duration = Duration::from_millis(50);

/// What the next read from the server came to.
enum Read {
    /// A complete line in the inbox, its `\n` still on.
    Line(Range<usize>),
    /// Part of a line: read again.
    More,
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
        self.server.write_all(&self.out, self.timeout)
    }

    /// The next complete line already in the inbox.
    fn next_line(&mut self) -> Option<Range<usize>> {
        let from = self.scanned.max(self.start);
        match memchr::memchr(b'\n', &self.inbox[from..]) {
            Some(i) => {
                let line = self.start..from + i + 1;
                self.start = line.end;
                Some(line)
            }
            None => {
                self.scanned = self.inbox.len();
                None
            }
        }
    }

    /// The next line: one read before, else one read now (waiting up to `wait`; what was read
    /// of a line so far stays in the inbox), or the server closed its output.
    fn read_line(&mut self, wait: Duration) -> Read {
        if let Some(line) = self.next_line() {
            return Read::Line(line);
        }
        if self.start > 0 {
            self.inbox.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        match self.server.read(wait, &mut self.inbox) {
            Received::Data => self.next_line().map_or(Read::More, Read::Line),
            Received::Timeout => Read::Timeout,
            Received::Closed => Read::Closed,
        }
    }

    /// Reads what the server has written so far into the inbox, without waiting: after a
    /// message no answer is awaited for, so a server that talks meanwhile never fills its
    /// pipe while the replay goes on writing.
    fn drain(&mut self) {
        while self.server.read(Duration::ZERO, &mut self.inbox) == Received::Data {}
    }

    fn died(&self, wait: Duration) -> Said {
        match self.tap.wait_timeout(wait) {
            Some(exit) => Said::new("replay_stop.exited").with_said("exit", said::exit(&exit)),
            None => Said::new("replay_stop.closed"),
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
            // What it wrote before is recorded, then its exit.
            self.server.close();
            let exit = self.tap.wait_timeout(Duration::from_secs(3));
            let why = match e.kind() {
                ErrorKind::TimedOut => Said::new("replay_stop.read_none")
                    .with("timeout", format!("{:?}", self.timeout)),
                _ => Said::io(&e),
            };
            let exited = exit.map_or_else(Said::empty, |x| {
                Said::new("replay_stop.and_exited").with_said("exit", said::exit(&x))
            });
            return Outcome::Stopped(
                Said::new("replay_stop.cannot_send")
                    .with_said("why", why)
                    .with_said("exited", exited),
            );
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
                // Bytes but no whole line: a line trickling in past the deadline is late too.
                Read::More if Instant::now() >= deadline => return Outcome::Timeout,
                Read::More => {}
                Read::Line(line) => {
                    let Ok(msg) = serde_json::from_slice::<Value>(&self.inbox[line]) else {
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
    let (tap, server) = StdioTap::spawn_inline(cmd, recorder.clone(), Lane::Host, None)?;
    let mut conn = Stdio {
        tap,
        server,
        inbox: Vec::with_capacity(64 * 1024),
        start: 0,
        scanned: 0,
        out: Vec::new(),
        timeout,
    };
    let out = super::drive(plan, &mut conn, &recorder, &cmd.lane(), timeout);
    conn.server.close();
    conn.tap.shutdown();
    Ok(out)
}
