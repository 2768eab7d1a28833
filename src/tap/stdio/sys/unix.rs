//! Unix: a process group per server, signals, `poll(2)` and non-blocking writes, `dup2`, and a
//! Unix socket pair.

use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::{AsFd as _, AsRawFd as _, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::time::{Duration, Instant};

/// What the gentle stop and the forced one are called in the notes a stop leaves.
pub const ASK: &str = "SIGTERM";
pub const FORCE: &str = "SIGKILL";

/// A descriptor to wait on.
pub type RawPipe = RawFd;

/// The stream an in-process client and the tap are connected by.
pub type PairStream = UnixStream;
/// Its end as the async runtime's stream.
pub type AsyncPairStream = tokio::net::UnixStream;

/// Starts the server in a process group of its own, so a `sh -c 'a | b'` wrapper goes as one
/// and the terminal's Ctrl-C reaches us, not it.
pub fn isolate(command: &mut Command) {
    command.process_group(0);
}

/// The server's process group.
pub struct Group {
    pid: u32,
}

impl Group {
    pub fn adopt(child: &Child) -> Group {
        Group { pid: child.id() }
    }

    /// SIGTERM to the group.
    pub fn ask_to_stop(&self) {
        self.signal(libc::SIGTERM);
    }

    /// SIGKILL to the group.
    pub fn kill(&self) {
        self.signal(libc::SIGKILL);
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) with a negative pid signals the process group we created; the
        // group cannot be reused before the waiter has reaped the leader, which it has not
        // (the caller checks the exit is not recorded yet).
        unsafe {
            libc::kill(-(self.pid as i32), signal);
        }
    }
}

/// The signal that ended the process, if one did.
pub fn exit_signal(status: &ExitStatus) -> Option<i32> {
    status.signal()
}

/// The capacity asked for the server's pipes (Linux; the default is 64 KiB): fewer, larger
/// reads and writes, so fewer wake-ups and record calls per megabyte.
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1 << 20;

/// Asks for a larger pipe buffer (1 MiB on Linux); a refusal (not a pipe, a lower system limit)
/// leaves the descriptor as it was.
fn widen_pipe(fd: RawFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl(2) on a descriptor we own; F_SETPIPE_SZ changes only the pipe's capacity.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// Widens the three pipes to a server.
pub fn widen_child_pipes(stdin: &ChildStdin, stdout: &ChildStdout, stderr: &ChildStderr) {
    for fd in [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()] {
        widen_pipe(fd);
    }
}

/// Widens our own stdin and stdout (the host's pipes, for the proxy): fewer wake-ups for the
/// same bytes, and nothing else changes for either end.
pub fn widen_own_pipes() {
    for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO] {
        widen_pipe(fd);
    }
}

/// Our stdin as an unbuffered file of its own.
pub fn own_stdin() -> io::Result<File> {
    io::stdin().as_fd().try_clone_to_owned().map(File::from)
}

/// Our stdout as an unbuffered file of its own.
pub fn own_stdout() -> io::Result<File> {
    io::stdout().as_fd().try_clone_to_owned().map(File::from)
}

/// Points descriptor 1 at `/dev/null`, so the client's end of our stdout is closed (once our
/// own copy is) and the descriptor is never reused by a file opened later.
pub fn close_own_stdout() {
    match std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // SAFETY: dup2 onto descriptor 1, which this process owns; it atomically replaces
        // the pipe to the client with /dev/null.
        Ok(null) => unsafe {
            libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO);
        },
        Err(e) => tracing::warn!("cannot open /dev/null to close stdout: {e}"),
    }
}

pub fn raw(stdout: &ChildStdout) -> RawPipe {
    stdout.as_raw_fd()
}

/// Makes our writes to the server's stdin return instead of waiting for room.
pub fn prepare_stdin(stdin: &ChildStdin) {
    let fd = stdin.as_raw_fd();
    // SAFETY: fcntl(2) on a descriptor we own (our end of the server's stdin, which no other
    // process shares); O_NONBLOCK changes only how our writes wait.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Writes all of `bytes` to the server's stdin (made non-blocking by [`prepare_stdin`]) by
/// `deadline`; while the pipe is full and `out` has something to read, `output` is called
/// (it returns whether `out` is still open).
pub fn write_all(
    stdin: &mut ChildStdin,
    bytes: &[u8],
    deadline: Instant,
    mut out: Option<RawPipe>,
    mut output: impl FnMut() -> bool,
) -> io::Result<()> {
    let mut rest = bytes;
    while !rest.is_empty() {
        match stdin.write(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::ErrorKind::TimedOut.into());
                }
                if poll(stdin.as_raw_fd(), libc::POLLOUT, out, left) == Ready::Other && !output() {
                    out = None;
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Waits up to `wait` for `out` to have something to read (or to end).
pub fn wait_readable(out: RawPipe, wait: Duration) -> bool {
    poll(out, libc::POLLIN, None, wait) == Ready::This
}

/// What a wait on a pipe came to.
#[derive(Debug, PartialEq, Eq)]
enum Ready {
    /// The pipe waited on is ready (or at its end, or failed: the next call says which).
    This,
    /// The other pipe has something to read.
    Other,
    None,
}

/// Waits up to `wait` (rounded up to a millisecond) for `events` on `fd`, or input on `other`.
fn poll(fd: RawFd, events: libc::c_short, other: Option<RawFd>, wait: Duration) -> Ready {
    let mut fds = [
        libc::pollfd {
            fd,
            events,
            revents: 0,
        },
        libc::pollfd {
            fd: other.unwrap_or(-1),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ms = wait.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
    // SAFETY: poll(2) on an array we own, with its length; a negative fd is ignored.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    if n <= 0 {
        return Ready::None;
    }
    if fds[0].revents != 0 {
        Ready::This
    } else if fds[1].revents != 0 {
        Ready::Other
    } else {
        Ready::None
    }
}

/// Two connected streams: one for the client, one for the tap.
pub fn pair() -> io::Result<(PairStream, PairStream)> {
    UnixStream::pair()
}

/// The client's end as the async runtime's stream.
pub fn into_async(stream: PairStream) -> io::Result<AsyncPairStream> {
    stream.set_nonblocking(true)?;
    tokio::net::UnixStream::from_std(stream)
}
