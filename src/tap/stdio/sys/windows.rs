//! Windows: a Job Object per server (it dies with us and takes what it started with it), a
//! console control event as the gentle stop, pipes waited on by peeking, writes that may wait
//! made on a helper thread, `SetStdHandle`, and a loopback TCP pair.
//!
//! There is no `poll` for anonymous pipes: a wait for output peeks at the pipe every
//! millisecond (`PeekNamedPipe`), and a write that may block waits on a thread of its own while
//! the caller goes on reading the server's output, so a server that writes before it reads
//! cannot deadlock its client. A write that runs out of time is left to its thread, which ends
//! when the server reads it or goes away.

use std::fs::File;
use std::io::{self, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::windows::io::{AsHandle as _, AsRawHandle as _, IntoRawHandle as _};
use std::os::windows::process::CommandExt as _;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::Console::{
    CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent, GetStdHandle, STD_OUTPUT_HANDLE, SetStdHandle,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Pipes::PeekNamedPipe;
use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, TerminateProcess};

/// What the gentle stop and the forced one are called in the notes a stop leaves.
pub const ASK: &str = "CTRL_BREAK_EVENT";
pub const FORCE: &str = "TerminateJobObject";

/// The exit code a server stopped by force gets (what a shell says of SIGKILL, 128 + 9).
const KILLED: u32 = 137;
/// How often a wait on a pipe looks again.
const STEP: Duration = Duration::from_millis(1);

/// A handle to wait on.
pub type RawPipe = std::os::windows::io::RawHandle;

/// The stream an in-process client and the tap are connected by.
pub type PairStream = TcpStream;
/// Its end as the async runtime's stream.
pub type AsyncPairStream = tokio::net::TcpStream;

/// Starts the server in a console process group of its own: the console's Ctrl-C reaches us,
/// not it, and a Ctrl-Break can be sent to it alone.
pub fn isolate(command: &mut Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// The server's Job Object: every process it starts joins it, and closing it (our exit, even a
/// killed one) ends them all, so no server outlives its proxy.
pub struct Group {
    pid: u32,
    /// The process itself, for when it could not be put in a job (a job of its own that
    /// forbids nesting, on an old system).
    process: HANDLE,
    job: Option<HANDLE>,
}

// SAFETY: the handles are process-wide kernel object handles, usable from any thread; they are
// closed once, on drop.
unsafe impl Send for Group {}
unsafe impl Sync for Group {}

impl Group {
    pub fn adopt(child: &Child) -> Group {
        let process = child.as_raw_handle() as HANDLE;
        let own = child
            .as_handle()
            .try_clone_to_owned()
            .map(|h| h.into_raw_handle() as HANDLE)
            .unwrap_or(std::ptr::null_mut());
        Group {
            pid: child.id(),
            process: own,
            job: job_for(process),
        }
    }

    /// Ctrl-Break to the server's console process group (a console program's Ctrl-C handler
    /// sees it; one without a console does not, and gets [`kill`](Self::kill) after the grace).
    pub fn ask_to_stop(&self) {
        // SAFETY: sends an event to the process group the server leads; no memory is passed.
        unsafe {
            GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, self.pid);
        }
    }

    /// Ends every process in the job (or the server alone, without one).
    pub fn kill(&self) {
        // SAFETY: handles this value owns, open until drop.
        unsafe {
            if let Some(job) = self.job {
                TerminateJobObject(job, KILLED);
            }
            if !self.process.is_null() {
                TerminateProcess(self.process, KILLED);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: handles this value owns, closed once. Closing the job ends what is left in it.
        unsafe {
            if let Some(job) = self.job {
                CloseHandle(job);
            }
            if !self.process.is_null() {
                CloseHandle(self.process);
            }
        }
    }
}

/// A Job Object that kills its processes when its last handle closes, holding `process`.
fn job_for(process: HANDLE) -> Option<HANDLE> {
    // SAFETY: plain Win32 calls on a job we create and a process handle the caller holds; the
    // limit structure is ours, zeroed, with its size.
    unsafe {
        let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
        if job.is_null() {
            tracing::warn!("cannot create a job object: {}", io::Error::last_os_error());
            return None;
        }
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let set = SetInformationJobObject(
            job,
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        );
        if set == 0 || AssignProcessToJobObject(job, process) == 0 {
            tracing::warn!(
                "cannot put the server in a job object: {}",
                io::Error::last_os_error()
            );
            CloseHandle(job);
            return None;
        }
        Some(job)
    }
}

/// Windows ends processes with codes, never signals.
pub fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
}

/// Windows pipes get their size when made (std makes the server's); nothing to ask later.
pub fn widen_child_pipes(_stdin: &ChildStdin, _stdout: &ChildStdout, _stderr: &ChildStderr) {}

pub fn widen_own_pipes() {}

/// Our stdin as an unbuffered file of its own.
pub fn own_stdin() -> io::Result<File> {
    io::stdin().as_handle().try_clone_to_owned().map(File::from)
}

/// Our stdout as an unbuffered file of its own.
pub fn own_stdout() -> io::Result<File> {
    io::stdout()
        .as_handle()
        .try_clone_to_owned()
        .map(File::from)
}

/// Points the standard output handle at `NUL` and closes the old one, so the client's end of
/// our stdout is closed (once our own copy is).
pub fn close_own_stdout() {
    match std::fs::OpenOptions::new().write(true).open("NUL") {
        // SAFETY: swaps this process's standard output handle for one we own (kept open for the
        // rest of the process) and closes the old one, which std looks up again on each use.
        Ok(null) => unsafe {
            let old = GetStdHandle(STD_OUTPUT_HANDLE);
            if SetStdHandle(STD_OUTPUT_HANDLE, null.into_raw_handle() as HANDLE) != 0
                && !old.is_null()
            {
                CloseHandle(old);
            }
        },
        Err(e) => tracing::warn!("cannot open NUL to close stdout: {e}"),
    }
}

pub fn raw(stdout: &ChildStdout) -> RawPipe {
    stdout.as_raw_handle()
}

/// Writes wait on a thread of their own (see [`write_all`]): nothing to set up.
pub fn prepare_stdin(_stdin: &ChildStdin) {}

/// Writes all of `bytes` to the server's stdin by `deadline`, on a helper thread (through a
/// second handle to the pipe); while it waits and `out` has something to read, `output` is
/// called (it returns whether `out` is still open).
pub fn write_all(
    stdin: &mut ChildStdin,
    bytes: &[u8],
    deadline: Instant,
    mut out: Option<RawPipe>,
    mut output: impl FnMut() -> bool,
) -> io::Result<()> {
    let mut second = ChildStdin::from(stdin.as_handle().try_clone_to_owned()?);
    let data = bytes.to_vec();
    let (done, result) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("tap-stdin-write".into())
        .spawn(move || {
            let _ = done.send(second.write_all(&data));
        })?;
    loop {
        match result.recv_timeout(STEP) {
            Ok(written) => return written,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if Instant::now() >= deadline {
            return Err(io::ErrorKind::TimedOut.into());
        }
        if let Some(pipe) = out
            && available(pipe) != Some(0)
            && !output()
        {
            out = None;
        }
    }
}

/// Waits up to `wait` for `out` to have something to read (or to end).
pub fn wait_readable(out: RawPipe, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        if available(out) != Some(0) {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(STEP));
    }
}

/// How many bytes wait in the pipe; `None` when it is closed or broken (a read says which).
fn available(pipe: RawPipe) -> Option<u32> {
    let mut n = 0u32;
    // SAFETY: peeks at a pipe handle the caller holds open, copying nothing (no buffer).
    let ok = unsafe {
        PeekNamedPipe(
            pipe as HANDLE,
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            &mut n,
            std::ptr::null_mut(),
        )
    };
    (ok != 0).then_some(n)
}

/// Two connected loopback TCP streams: one for the client, one for the tap. The listener takes
/// only the connection this call made (another local process could connect in between: its
/// address would not be ours), and is gone when this returns.
pub fn pair() -> io::Result<(PairStream, PairStream)> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let ours: SocketAddr = client.local_addr()?;
    for _ in 0..16 {
        let (tap, from) = listener.accept()?;
        if from == ours {
            client.set_nodelay(true)?;
            tap.set_nodelay(true)?;
            return Ok((client, tap));
        }
    }
    Err(io::Error::other(
        "another process kept connecting to the tap's loopback port",
    ))
}

/// The client's end as the async runtime's stream.
pub fn into_async(stream: PairStream) -> io::Result<AsyncPairStream> {
    stream.set_nonblocking(true)?;
    tokio::net::TcpStream::from_std(stream)
}
