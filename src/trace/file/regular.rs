//! Which paths can be a trace: a regular file (or, where a folder is taken, a session folder).
//! Opening a FIFO waits for a writer forever, and a socket or a device holds no trace, so every
//! reader asks here before it opens.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens a trace file, refusing what is not a regular file: opening a FIFO waits for a writer
/// (forever, for a command that only reads), and a socket or a device holds no trace.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    File::open(path)
}

/// Why `meta` (neither a file nor, where a folder is taken, a folder) cannot be a trace.
pub(crate) fn not_regular(meta: &std::fs::Metadata) -> io::Error {
    let t = meta.file_type();
    let what = if t.is_dir() {
        "a folder"
    } else {
        special_kind(&t)
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {what}, not a file: a trace is a file or a session folder"),
    )
}

/// What a file that is neither a regular file nor a folder is: only Unix tells a FIFO and a
/// socket apart from a device (the web build and Windows have no such files to open).
#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a device"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a device"
}
