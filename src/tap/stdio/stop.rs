//! Stopping a tapped server the way rmcp's child-process transport does (close stdin, wait,
//! SIGTERM, wait, SIGKILL; on Windows Ctrl-Break and the Job Object ended, [`super::sys`]),
//! and waiting for its exit to be recorded.

use std::sync::PoisonError;
use std::time::Duration;

use super::sys::{ASK, FORCE};
use super::{ExitOutcome, StdioTap};
use crate::trace::StopNote;

/// How long a server gets to exit after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_secs(3);

impl StdioTap {
    pub fn pid(&self) -> u32 {
        self.shared.pid
    }

    /// Blocks until the server has exited and its exit is recorded.
    pub fn wait(&self) -> ExitOutcome {
        let mut exit = self
            .shared
            .exit
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(outcome) = *exit {
                return outcome;
            }
            exit = self
                .shared
                .exited
                .wait(exit)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Like [`wait`](Self::wait), giving up after `timeout`.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<ExitOutcome> {
        let exit = self
            .shared
            .exit
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (exit, _) = self
            .shared
            .exited
            .wait_timeout_while(exit, timeout, |e| e.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        *exit
    }

    /// Asks the server's process group to stop (SIGTERM), unless it has exited.
    fn ask_to_stop(&self) {
        if self.wait_timeout(Duration::ZERO).is_none() {
            self.shared.group.ask_to_stop();
        }
    }

    /// Stops the server's process group now (SIGKILL), unless it has exited.
    fn kill(&self) {
        if self.wait_timeout(Duration::ZERO).is_none() {
            self.shared.group.kill();
        }
    }

    /// Stops the server gracefully: close its stdin, wait, SIGTERM, wait, SIGKILL.
    pub fn shutdown(&self) -> ExitOutcome {
        self.shared.close_stdin();
        if let Some(outcome) = self.wait_timeout(GRACE) {
            return outcome;
        }
        self.note(None, ASK);
        self.terminate()
    }

    /// Stops the server now: SIGTERM, wait, SIGKILL.
    pub fn terminate(&self) -> ExitOutcome {
        self.ask_to_stop();
        if let Some(outcome) = self.wait_timeout(GRACE) {
            return outcome;
        }
        self.note(Some(ASK), FORCE);
        self.kill();
        self.wait()
    }

    /// Records that the server was still running [`GRACE`] after `after` (its stdin closing
    /// when `None`), so `sent` was sent: the exit's detail, in the trace's words ([`StopNote`]).
    fn note(&self, after: Option<&str>, sent: &str) {
        let waited = format!("{GRACE:?}");
        let text = StopNote {
            waited: &waited,
            after,
            sent,
        }
        .text();
        tracing::warn!(pid = self.shared.pid, "{text}");
        *self
            .shared
            .stop_note
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(text);
    }
}
