//! Stopping a tapped server the way rmcp's child-process transport does (close stdin, wait,
//! SIGTERM, wait, SIGKILL), and waiting for its exit to be recorded.

use std::sync::PoisonError;
use std::time::Duration;

use super::{ExitOutcome, StdioTap};

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

    /// Sends `signal` to the server's process group.
    pub fn signal(&self, signal: i32) {
        if self.wait_timeout(Duration::ZERO).is_none() {
            // SAFETY: kill(2) with a negative pid signals the process group we created; the
            // group cannot be reused before the waiter has reaped the leader, which it has not.
            unsafe {
                libc::kill(-(self.shared.pid as i32), signal);
            }
        }
    }

    /// Stops the server gracefully: close its stdin, wait, SIGTERM, wait, SIGKILL.
    pub fn shutdown(&self) -> ExitOutcome {
        self.shared.close_stdin();
        if let Some(outcome) = self.wait_timeout(GRACE) {
            return outcome;
        }
        self.note(format!(
            "still running {GRACE:?} after stdin closed: sent SIGTERM"
        ));
        self.terminate()
    }

    /// Stops the server now: SIGTERM, wait, SIGKILL.
    pub fn terminate(&self) -> ExitOutcome {
        self.signal(libc::SIGTERM);
        if let Some(outcome) = self.wait_timeout(GRACE) {
            return outcome;
        }
        self.note(format!(
            "still running {GRACE:?} after SIGTERM: sent SIGKILL"
        ));
        self.signal(libc::SIGKILL);
        self.wait()
    }

    fn note(&self, text: String) {
        tracing::warn!(pid = self.shared.pid, "{text}");
        *self
            .shared
            .stop_note
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(text);
    }
}
