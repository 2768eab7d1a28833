//! The edges every command shares, each in one place: the async runtime, the signals that stop
//! a long-running command (Ctrl-C and the console's events on Windows, [`signals`]), how long
//! exchanges in flight get once it stops, where a recorder writes and how a recording ends, an
//! output that would overwrite an input, a write to stdout that treats a reader going away
//! (`| head`, a closed pager) as
//! the end of the output rather than an error, and what a command that is about to exit does
//! not free ([`leave`]).

use std::io::{self, Write as _};
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::errors::Context as _;
use crate::i18n::Said;

use crate::tap::recorder::{Recorder, RecorderReport};
use crate::tap::{paths, runtime};
use crate::trace::Header;

mod signals;
pub(super) use signals::{on_stop_signal, stop_signal};

/// How long exchanges in flight may take to end once a proxy (or a wrapped server's proxy) is
/// told to stop.
pub(super) const GRACE: Duration = Duration::from_secs(3);

/// Ends a recording: every event written, and a warning on stderr for each one the trace could
/// not take (a full disk, a removed file).
pub(super) fn finish_recording(recorder: &Recorder) -> RecorderReport {
    let report = recorder.finish();
    for err in &report.errors {
        eprintln!("sightline: warning: {err}");
    }
    report
}

/// The async runtime a command runs its I/O on: a pool.
pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    runtime::pool(None).within(|| Said::new("cli_error.async_runtime"))
}

/// A runtime on this thread alone, for a proxy whose every exchange is a few hops between
/// sockets ([`runtime`] says why).
pub(super) fn proxy_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    runtime::one_thread().within(|| Said::new("cli_error.async_runtime"))
}

/// Completes on Ctrl-C, SIGTERM or SIGHUP; listens from its first poll, so it can be made
/// before the runtime runs (a graceful-shutdown future).
pub(super) async fn stopped() {
    stop_signal().await;
}

/// Where a recorder named `name` writes: `--trace FILE`, else a new member file of
/// `--session NAME`, else a timestamped file in the data dir. With a session, `header` says so.
pub(super) fn trace_path(
    trace: Option<&PathBuf>,
    session: Option<&str>,
    name: &str,
    header: &mut Header,
) -> PathBuf {
    if let Some(path) = trace {
        return path.clone();
    }
    match session {
        Some(session) => {
            header
                .extra
                .insert("session".into(), serde_json::Value::from(session));
            paths::session_member_path(&paths::session_dir(session), name)
        }
        None => paths::default_trace_path(name),
    }
}

/// Refuses (exit 2, nothing written) an `output` that is one of the `inputs` (the same file,
/// also through a link) or lies inside an input folder: `replay T --trace T` would replace
/// the recording with its replay, `session merge S --trace S/merged.jsonl` would make the merge
/// a member of the session it merges.
pub(super) fn refuse_output_over_input(
    output: &std::path::Path,
    inputs: &[&std::path::Path],
) -> anyhow::Result<()> {
    let out = resolved(output);
    let out_id = file_id(output);
    for input in inputs {
        let Ok(input_path) = std::fs::canonicalize(input) else {
            continue;
        };
        let same = out == input_path || (out_id.is_some() && out_id == file_id(input));
        if same {
            return super::errors::fail(
                Said::new("cli_error.output_is_input")
                    .with("output", output.display())
                    .with("input", input.display()),
            );
        }
        if input_path.is_dir() && out.starts_with(&input_path) {
            return super::errors::fail(
                Said::new("cli_error.output_in_input")
                    .with("output", output.display())
                    .with("input", input.display()),
            );
        }
    }
    Ok(())
}

/// `path` with its links resolved as far as it exists (a file to be created: its folder's).
fn resolved(path: &std::path::Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => {
            std::fs::canonicalize(parent).map_or_else(|_| absolute.clone(), |p| p.join(name))
        }
        _ => absolute,
    }
}

/// The device and inode of an existing file (a hard link is the same file).
#[cfg(unix)]
pub(super) fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Windows: std gives no file index yet, so a hard link to an input is not told apart (the
/// same path, also through a link, still is).
#[cfg(not(unix))]
pub(super) fn file_id(_path: &std::path::Path) -> Option<(u64, u64)> {
    None
}

/// Writes `text` to stdout and flushes it; see [`stdout_written`].
pub(super) fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout_written(
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush()),
    )
}

/// What a write to stdout came to: a reader that went away (a broken pipe) ends the output
/// quietly; any other failure is an error that says it was stdout.
pub(super) fn stdout_written(written: io::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.within(|| Said::new("cli_error.write_stdout")),
    }
}

/// Leaves `value` to the operating system instead of dropping it: a command that read a big
/// trace is about to exit once its output is written, and freeing a million small allocations
/// one at a time took a quarter of `diff` and `check`. Call it only after the output is
/// flushed, on what nothing reads again.
pub(super) fn leave<T>(value: T) {
    std::mem::forget(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_going_away_is_the_end_of_the_output_not_an_error() {
        assert!(stdout_written(Err(io::ErrorKind::BrokenPipe.into())).is_ok());
        let err = stdout_written(Err(io::Error::other("disk full"))).expect_err("an error");
        assert_eq!(format!("{err:#}"), "cannot write to stdout: disk full");
    }

    #[test]
    fn a_session_names_itself_in_the_header() {
        let mut header = Header::new("test");
        let path = trace_path(None, Some("/tmp/s1"), "weather", &mut header);
        assert_eq!(path.parent(), Some(std::path::Path::new("/tmp/s1")));
        assert_eq!(header.extra["session"], "/tmp/s1");
        let given = PathBuf::from("/tmp/t.jsonl");
        let mut header = Header::new("test");
        assert_eq!(
            trace_path(Some(&given), Some("s"), "weather", &mut header),
            given
        );
        assert!(!header.extra.contains_key("session"));
    }
}
