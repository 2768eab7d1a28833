//! What the loader says about a line of a trace it skipped or found odd, as data.
//!
//! A class reads these warnings in its own language, but `trace` uses no other module (no
//! `i18n`). So each warning is a [`LineProblem`] whose variant and fields say what happened;
//! its `Display` is the English (logs, tests), and the edges that show it to
//! a participant (the command line, the app) word it from the variant, as they do for
//! [`super::TraceError`]. Both travel as JSON (`serve`'s `event: warning`), so the page that
//! receives them words them in its own language.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A line of a trace that could not be used, or an event that was kept but is odd. Loading goes
/// on either way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadWarning {
    /// 1-based line number in the file.
    pub line: usize,
    pub problem: LineProblem,
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

/// What is wrong with one line (see the module documentation). The texts a library wrote
/// (`detail`: the JSON reader's, the system's) are kept as they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineProblem {
    /// The last line has no newline: the recorder stopped while writing it. `detail` is the
    /// JSON reader's complaint, when the line was read.
    Truncated {
        bytes: usize,
        detail: Option<String>,
    },
    /// A line that is not an event.
    NotEvent { detail: String },
    /// Both `raw` and `raw_b64`; `raw` is used.
    BothPayloads,
    /// A `raw_b64` that is not base64; the event has no payload.
    BadBase64 { detail: String },
    /// `seq` is not the one after the previous event's.
    SeqGap { seq: u64, expected: u64 },
    /// The event's time is before the previous event's (`before`, on line `previous_line`).
    TimeBackwards {
        time: String,
        ms: f64,
        previous_line: usize,
        before: String,
    },
    /// Reading the file failed here, and stopped.
    ReadStopped { detail: String },
    /// Reading a followed file failed; the next poll tries again.
    ReadRetry { detail: String },
    /// A followed file got shorter (rewritten?); it is followed from its new end.
    Shrank { from: u64, to: u64 },
    /// A file of a session folder that cannot be opened; it is left out.
    CannotOpen { detail: String },
    /// A file of a session folder whose first line is not a trace header; it is left out.
    NotTrace { detail: String },
    /// A file of a session folder in a newer trace format; it is left out.
    TooNew { found: u64, supported: u64 },
    /// A problem of one file of a session folder.
    InFile {
        file: String,
        problem: Box<LineProblem>,
    },
    /// A web page took in no more lines from here: `events` events would need about
    /// `needed_mb` MB of the tab's memory, past the viewer's `budget_mb`.
    TabFull {
        events: usize,
        needed_mb: u64,
        budget_mb: u64,
    },
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineProblem::Truncated { bytes, detail } => {
                write!(
                    f,
                    "the last line is truncated ({bytes} bytes, no newline; the recorder was \
                     probably stopped while writing it), skipped"
                )?;
                match detail {
                    Some(detail) => write!(f, ": {detail}"),
                    None => Ok(()),
                }
            }
            LineProblem::NotEvent { detail } => write!(f, "not a valid event, skipped: {detail}"),
            LineProblem::BothPayloads => f.write_str(
                "the event has both `raw` and `raw_b64` (one payload field is allowed); `raw` is \
                 used",
            ),
            LineProblem::BadBase64 { detail } => write!(
                f,
                "`raw_b64` is not valid base64 ({detail}); the event has no payload"
            ),
            LineProblem::SeqGap { seq, expected } => write!(
                f,
                "seq is {seq} where {expected} was expected: events are missing or out of order"
            ),
            LineProblem::TimeBackwards {
                time,
                ms,
                previous_line,
                before,
            } => write!(
                f,
                "time {time} is {ms:.3} ms before the event on line {previous_line} ({before}): \
                 events are out of time order, and no latency is measured across them"
            ),
            LineProblem::ReadStopped { detail } => {
                write!(f, "read error, stopped here: {detail}")
            }
            LineProblem::ReadRetry { detail } => write!(f, "read error, will retry: {detail}"),
            LineProblem::Shrank { from, to } => write!(
                f,
                "the file shrank from {from} to {to} bytes (rewritten?); following it from its \
                 new end"
            ),
            LineProblem::CannotOpen { detail } => write!(f, "cannot open: {detail}"),
            LineProblem::NotTrace { detail } => {
                write!(f, "not a Sightline trace, skipped: {detail}")
            }
            LineProblem::TooNew { found, supported } => write!(
                f,
                "trace format version {found} is newer than this Sightline understands \
                 ({supported}); file skipped"
            ),
            LineProblem::InFile { file, problem } => write!(f, "{file}: {problem}"),
            LineProblem::TabFull {
                events,
                needed_mb,
                budget_mb,
            } => write!(
                f,
                "{events} events need about {needed_mb} MB in the browser, more than a tab's \
                 WebAssembly memory allows ({budget_mb} MB of its 4096): the page shows the \
                 events before this line and no later ones; open the trace in the app"
            ),
        }
    }
}
