//! Spawning an MCP server and pumping its stdio through the recorder.
//!
//! Four threads per server, all blocking I/O (the simplest thing that keeps up with a pipe):
//! client -> server stdin, server stdout -> client, server stderr -> our stderr, and a waiter
//! that records the exit once the server's output is drained. Each chunk read is recorded (its
//! completed lines written to the trace) before it is forwarded, and the pump reads the next
//! chunk only once this one is passed on: memory stays at one chunk plus the line being
//! completed whatever the sender floods, and a sender faster than the client or the disk waits,
//! as it would on a pipe. When the server closes its stdout, the client's side is closed at
//! once (EOF), even if the server keeps running. A client on one of this process's own threads
//! (the replay) can do the stdin and stdout pumps' work itself ([`StdioTap::spawn_inline`],
//! [`inline`]): two threads and a hop each way fewer, recorded by the same rules.
//!
//! Shutting down follows rmcp's child-process transport: close stdin, wait, SIGTERM, wait,
//! SIGKILL. The server runs in its own process group so a `sh -c 'a | b'` wrapper goes as one
//! (on Windows: a Job Object, Ctrl-Break, then the job ended; [`sys`]).

mod inline;
mod pump;
mod stop;
mod sys;

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use super::lines::LineSplitter;
use super::recorder::Recorder;
use crate::trace::{Channel, Lane, ProcessInfo, signal_name};
pub use inline::{InlineServer, Received};
pub use pump::OwnStdout;
use pump::{Direction, ToStdin, pump};
pub use sys::{AsyncPairStream, PairStream, into_async, own_stdin, widen_own_pipes};

/// Two connected streams for a client in this process and the tap (a Unix socket pair, or a
/// loopback TCP pair on Windows): the client gets one, the tap pumps the other to the server.
pub fn socket_pair() -> io::Result<(PairStream, PairStream)> {
    sys::pair()
}

/// Sees each line a server writes on stdout (see [`StdioTap::spawn_observed`]).
pub type LineObserver = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// How long the waiter waits for the last output after the process exited (a grandchild may
/// hold the pipe open).
const DRAIN: Duration = Duration::from_secs(2);

/// What to run, and the lane it gets in the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCommand {
    /// The server's lane is `server:<name>`.
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    /// Extra environment. Names are recorded, values never.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl ServerCommand {
    pub fn new(name: impl Into<String>, program: impl Into<String>, args: Vec<String>) -> Self {
        ServerCommand {
            name: name.into(),
            program: program.into(),
            args,
            env: Vec::new(),
            cwd: None,
        }
    }

    pub fn lane(&self) -> Lane {
        Lane::server(&self.name)
    }

    fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.clone())
            .chain(self.args.iter().cloned())
            .collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TapError {
    #[error("cannot start server `{program}`: {source}{hint}")]
    Spawn {
        program: String,
        source: io::Error,
        hint: &'static str,
    },
    #[error("cannot start a tap thread: {0}")]
    Thread(io::Error),
}

/// How the server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitOutcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl ExitOutcome {
    /// The status a shell would report: the code, or 128 + the signal.
    pub fn shell_status(&self) -> i32 {
        match (self.code, self.signal) {
            (Some(code), _) => code,
            (None, Some(signal)) => 128 + signal,
            (None, None) => 1,
        }
    }
}

impl std::fmt::Display for ExitOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(signal)) => write!(f, "signal {signal} ({})", signal_name(signal)),
            (None, None) => f.write_str("unknown status"),
        }
    }
}

/// Shared between the tap's threads and its owner.
struct Shared {
    pid: u32,
    /// The server and what it starts, to stop together.
    group: sys::Group,
    /// Taken (and so closed) on client EOF or shutdown.
    stdin: Mutex<Option<ChildStdin>>,
    exit: Mutex<Option<ExitOutcome>>,
    exited: Condvar,
    /// Set by shutdown to explain, in the exit event, what it took to stop the server.
    stop_note: Mutex<Option<String>>,
    /// Pumps recording a chunk right now: the waiter's drain timeout does not run out on them
    /// (recording a 50 MB line may take longer than [`DRAIN`]; only a pipe held open counts).
    recording: AtomicUsize,
}

impl Shared {
    /// Closes the server's stdin (it reads EOF); closing it again does nothing.
    fn close_stdin(&self) {
        drop(
            self.stdin
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }
}

/// A running server behind the tap. Clones share the same server.
#[derive(Clone)]
pub struct StdioTap {
    shared: Arc<Shared>,
}

impl StdioTap {
    /// Spawns `cmd` and starts pumping: `client_in` is what the client writes (forwarded to the
    /// server's stdin), `client_out` receives the server's stdout. The server's stderr is
    /// recorded and, when `stderr_out` is given, passed on to it.
    pub fn spawn(
        cmd: &ServerCommand,
        recorder: Arc<Recorder>,
        client_lane: Lane,
        client_in: Box<dyn Read + Send>,
        client_out: Box<dyn Write + Send>,
        stderr_out: Option<Box<dyn Write + Send>>,
    ) -> Result<StdioTap, TapError> {
        Self::spawn_observed(
            cmd,
            recorder,
            client_lane,
            client_in,
            client_out,
            stderr_out,
            None,
        )
    }

    /// Like [`spawn`](Self::spawn), also showing `observer` every line the server writes on
    /// stdout, after it is recorded and before it is forwarded. The host uses this to know what
    /// crossed the wire before its MCP library has acted on it.
    pub fn spawn_observed(
        cmd: &ServerCommand,
        recorder: Arc<Recorder>,
        client_lane: Lane,
        client_in: Box<dyn Read + Send>,
        client_out: Box<dyn Write + Send>,
        stderr_out: Option<Box<dyn Write + Send>>,
        observer: Option<LineObserver>,
    ) -> Result<StdioTap, TapError> {
        let server_lane = cmd.lane();
        let Started {
            tap,
            stdout,
            drained,
        } = start(cmd, &recorder, &client_lane, stderr_out)?;
        // client -> server stdin
        {
            let to_server = Direction::new(&recorder, &client_lane, &server_lane, Channel::Stdio);
            let shared = tap.shared.clone();
            spawn_thread(
                "client-in",
                Box::new(move || {
                    pump(
                        client_in,
                        ToStdin(&shared),
                        &shared.recording,
                        LineSplitter::spilling(),
                        |long, lines| to_server.record(long, lines),
                    );
                    // The client is done: close the server's stdin and give it time to leave.
                    StdioTap { shared }.shutdown();
                }),
            )?;
        }
        // server stdout -> client
        {
            let to_client = Direction::new(&recorder, &server_lane, &client_lane, Channel::Stdio);
            let shared = tap.shared.clone();
            spawn_thread(
                "server-out",
                Box::new(move || {
                    let splitter = LineSplitter::spilling();
                    pump(
                        stdout,
                        client_out,
                        &shared.recording,
                        splitter,
                        |long, lines| {
                            if let Some(observe) = &observer {
                                if let Some(long) = long {
                                    match long.to_vec() {
                                        Ok(line) => observe(&line),
                                        Err(e) => {
                                            tracing::warn!("cannot read back a long line: {e}")
                                        }
                                    }
                                }
                                lines.iter().for_each(|line| observe(line));
                            }
                            to_client.record(long, lines);
                        },
                    );
                    let _ = drained.send(());
                }),
            )?;
        }
        Ok(tap)
    }

    /// Spawns `cmd` for a client that does its own I/O on its own thread (the replay): the
    /// returned [`InlineServer`] writes the server's stdin and reads its stdout directly,
    /// recording each chunk as the pumps do, with no pump thread in between (one thread hop
    /// less each way). Stderr is pumped and recorded as usual; the exit is recorded once the
    /// output is drained.
    pub fn spawn_inline(
        cmd: &ServerCommand,
        recorder: Arc<Recorder>,
        client_lane: Lane,
        stderr_out: Option<Box<dyn Write + Send>>,
    ) -> Result<(StdioTap, InlineServer), TapError> {
        let Started {
            tap,
            stdout,
            drained,
        } = start(cmd, &recorder, &client_lane, stderr_out)?;
        let server = InlineServer::new(
            tap.shared.clone(),
            stdout,
            drained,
            Direction::new(&recorder, &client_lane, &cmd.lane(), Channel::Stdio),
            Direction::new(&recorder, &cmd.lane(), &client_lane, Channel::Stdio),
        );
        Ok((tap, server))
    }
}

/// A spawned server whose stderr is pumped and whose exit is awaited: what both ways of
/// talking to it start from.
struct Started {
    tap: StdioTap,
    stdout: ChildStdout,
    /// Tells the waiter the server's stdout is drained (whoever reads it sends this at EOF).
    drained: mpsc::Sender<()>,
}

fn spawn_thread(name: &str, f: Box<dyn FnOnce() + Send>) -> Result<(), TapError> {
    std::thread::Builder::new()
        .name(format!("tap-{name}"))
        .spawn(f)
        .map(drop)
        .map_err(TapError::Thread)
}

/// Spawns `cmd` (recording the spawn, or why it failed), pumps its stderr into the trace (and
/// `stderr_out`), and starts the waiter that records the exit once stdout and stderr are drained.
fn start(
    cmd: &ServerCommand,
    recorder: &Arc<Recorder>,
    client_lane: &Lane,
    stderr_out: Option<Box<dyn Write + Send>>,
) -> Result<Started, TapError> {
    let (recorder, client_lane) = (recorder.clone(), client_lane.clone());
    let server_lane = cmd.lane();
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    sys::isolate(&mut command);
    if let Some(cwd) = &cmd.cwd {
        command.current_dir(cwd);
    }
    let spawn_info = ProcessInfo {
        command: crate::wire::redact_url::redact_argv(&cmd.argv()),
        cwd: cmd.cwd.as_ref().map(|p| p.display().to_string()),
        env: cmd.env.iter().map(|(k, _)| k.clone()).collect(),
        ..ProcessInfo::default()
    };
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(source) => {
            let hint = match source.kind() {
                io::ErrorKind::NotFound => " (is it installed and on PATH?)",
                io::ErrorKind::PermissionDenied if std::path::Path::new(&cmd.program).is_dir() => {
                    " (it is a directory, not a program)"
                }
                io::ErrorKind::PermissionDenied => " (is it executable?)",
                _ => "",
            };
            let info = ProcessInfo {
                event: "spawn-failed".into(),
                detail: Some(format!("{source}{hint}")),
                ..spawn_info
            };
            recorder.record_process(client_lane, server_lane, info);
            return Err(TapError::Spawn {
                program: cmd.program.clone(),
                source,
                hint,
            });
        }
    };
    let pid = child.id();
    recorder.record_process(
        client_lane.clone(),
        server_lane.clone(),
        ProcessInfo {
            event: "spawn".into(),
            pid: Some(pid),
            ..spawn_info
        },
    );
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three pipes were requested");
    };
    sys::widen_child_pipes(&stdin, &stdout, &stderr);
    let shared = Arc::new(Shared {
        pid,
        group: sys::Group::adopt(&child),
        stdin: Mutex::new(Some(stdin)),
        exit: Mutex::new(None),
        exited: Condvar::new(),
        stop_note: Mutex::new(None),
        recording: AtomicUsize::new(0),
    });
    let (drained_tx, drained_rx) = mpsc::channel::<()>();
    // server stderr -> our stderr
    {
        let stderr_to_client =
            Direction::new(&recorder, &server_lane, &client_lane, Channel::Stderr);
        let (shared, done) = (shared.clone(), drained_tx.clone());
        let out: Box<dyn Write + Send> = stderr_out.unwrap_or_else(|| Box::new(io::sink()));
        spawn_thread(
            "server-err",
            Box::new(move || {
                let splitter = LineSplitter::spilling();
                pump(stderr, out, &shared.recording, splitter, |long, lines| {
                    stderr_to_client.record(long, lines);
                });
                let _ = done.send(());
            }),
        )?;
    }
    // waiter: reap, drain, record the exit, wake everyone waiting
    {
        let shared = shared.clone();
        spawn_thread(
            "waiter",
            Box::new(move || {
                let status = child.wait();
                let mut pumps = 2;
                while pumps > 0 {
                    match drained_rx.recv_timeout(DRAIN) {
                        Ok(()) => pumps -= 1,
                        Err(mpsc::RecvTimeoutError::Timeout)
                            if shared.recording.load(Ordering::SeqCst) > 0 => {}
                        Err(_) => break,
                    }
                }
                let outcome = match &status {
                    Ok(s) => ExitOutcome {
                        code: s.code(),
                        signal: sys::exit_signal(s),
                    },
                    Err(_) => ExitOutcome {
                        code: None,
                        signal: None,
                    },
                };
                let mut detail = shared
                    .stop_note
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Err(e) = status {
                    detail = Some(format!("could not read the exit status: {e}"));
                }
                recorder.record_process(
                    server_lane,
                    client_lane,
                    ProcessInfo {
                        event: "exit".into(),
                        pid: Some(pid),
                        code: outcome.code,
                        signal: outcome.signal,
                        detail,
                        ..ProcessInfo::default()
                    },
                );
                *shared.exit.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
                shared.exited.notify_all();
            }),
        )?;
    }
    Ok(Started {
        tap: StdioTap { shared },
        stdout,
        drained: drained_tx,
    })
}
