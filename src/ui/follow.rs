//! Live attach: a trace or a session folder that other processes (`sightline proxy`,
//! `llm-proxy`) are writing, shown as it grows.
//!
//! The proxies flush their trace whenever their queue is empty, so following the files is as
//! live as a socket would be, needs no connection to set up, and works the same for one proxy
//! or for a session of several (their files are merged in time order by
//! [`crate::trace::Follower`]). The files are read at most every [`POLL_EVERY`]; the diagram
//! stays at the bottom as events arrive unless the user has scrolled away or selected an event.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::trace::{Event, Follower, LoadWarning, TraceError};

/// How often the files are looked at.
pub const POLL_EVERY: Duration = Duration::from_millis(200);

/// A trace file or session folder being followed.
pub struct Following {
    follower: Follower,
    last_poll: Option<Instant>,
    warnings_seen: usize,
}

impl Following {
    /// Starts following `path` (a trace file or a session folder) and reads what it holds now.
    pub fn start(path: &Path) -> Result<(Following, Vec<Event>), TraceError> {
        let mut following = Following {
            follower: Follower::new(path)?,
            last_poll: None,
            warnings_seen: 0,
        };
        let events = following.follower.poll();
        following.last_poll = Some(Instant::now());
        Ok((following, events))
    }

    /// The events written since the last poll; nothing if polled less than [`POLL_EVERY`] ago.
    pub fn poll(&mut self) -> Vec<Event> {
        if self.last_poll.is_some_and(|t| t.elapsed() < POLL_EVERY) {
            return Vec::new();
        }
        self.poll_now()
    }

    /// The events written since the last poll, whenever it was.
    pub fn poll_now(&mut self) -> Vec<Event> {
        self.last_poll = Some(Instant::now());
        self.follower.poll()
    }

    /// Problems met since the last call (bad lines, files that are not traces).
    pub fn new_warnings(&mut self) -> Vec<LoadWarning> {
        let new = self.follower.warnings[self.warnings_seen..].to_vec();
        self.warnings_seen = self.follower.warnings.len();
        new
    }

    /// The title for the status bar: the merged header's.
    pub fn title(&self) -> String {
        self.follower.header().title
    }

    /// How many trace files feed the view.
    pub fn files(&self) -> usize {
        self.follower.member_count()
    }

    pub fn path(&self) -> &Path {
        self.follower.path()
    }
}
