//! What Sightline had to do to stop a server, as an exit's `detail` records it. The tap writes
//! it in English, as a trace is one file read in any language; the pictures and the summary
//! read it back to say it in the reader's. Written and read here, so the two cannot drift.

/// `still running 3s after stdin closed: sent SIGTERM`, or `… after SIGTERM: sent SIGKILL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopNote<'a> {
    /// How long the server was given (`3s`).
    pub waited: &'a str,
    /// The signal it was given that time after, or `None` after its stdin closed.
    pub after: Option<&'a str>,
    /// What was sent then (`SIGTERM`, `SIGKILL`, on Windows `CTRL_BREAK_EVENT`).
    pub sent: &'a str,
}

const RUNNING: &str = "still running ";
const AFTER: &str = " after ";
const SENT: &str = ": sent ";
const STDIN: &str = "stdin closed";

impl<'a> StopNote<'a> {
    /// The note as the trace records it.
    pub fn text(&self) -> String {
        let after = self.after.unwrap_or(STDIN);
        format!("{RUNNING}{}{AFTER}{after}{SENT}{}", self.waited, self.sent)
    }

    /// The note `detail` holds, if it is one (any other detail is said as recorded).
    pub fn parse(detail: &'a str) -> Option<Self> {
        let (waited, rest) = detail.strip_prefix(RUNNING)?.split_once(AFTER)?;
        let (after, sent) = rest.split_once(SENT)?;
        let word = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
        if !word(waited) || !word(sent) || !(after == STDIN || word(after)) {
            return None;
        }
        Some(StopNote {
            waited,
            after: (after != STDIN).then_some(after),
            sent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::StopNote;

    #[test]
    fn a_stop_note_reads_back_as_written_and_nothing_else_reads_as_one() {
        for note in [
            StopNote {
                waited: "3s",
                after: None,
                sent: "SIGTERM",
            },
            StopNote {
                waited: "3s",
                after: Some("SIGTERM"),
                sent: "SIGKILL",
            },
        ] {
            assert_eq!(StopNote::parse(&note.text()), Some(note));
        }
        assert_eq!(
            StopNote::parse("still running 3s after stdin closed: sent SIGTERM")
                .map(|n| (n.after, n.sent)),
            Some((None, "SIGTERM"))
        );
        for other in [
            "could not read the exit status: gone",
            "still running 3s after stdin closed",
            "still running a while after stdin closed: sent SIGTERM",
            "still running 3s after stdin closed: sent ",
        ] {
            assert_eq!(StopNote::parse(other), None, "{other}");
        }
    }
}
