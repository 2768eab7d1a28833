//! The signals that stop a long-running command, in the one place they differ between systems.
//! Unix: SIGINT, SIGTERM, SIGHUP. Windows has no signals: Ctrl-C, Ctrl-Break and the console
//! being closed (or the user logging off, the system shutting down) play their parts and are
//! reported as the signal a Unix shell would have sent (2, 15, 1), so the trace and the texts
//! are the same on both.

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

/// Runs `stop` with the signal's number on a thread of its own when the first stop signal
/// arrives (the stdio proxy, whose main thread waits for its server).
pub fn on_stop_signal(stop: impl FnOnce(i32) + Send + 'static) {
    let Some(next) = listen() else {
        tracing::warn!("cannot install signal handlers; a killed proxy may orphan its server");
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = next() {
                stop(signal);
            }
        });
    if spawned.is_err() {
        tracing::warn!("cannot start the signal thread");
    }
}

#[cfg(unix)]
mod unix {
    use std::future::Future;

    /// Starts listening for Ctrl-C, SIGTERM and SIGHUP at once (call it within the runtime);
    /// the future it returns ends with the number of the first of them.
    pub fn stop_signal() -> impl Future<Output = i32> + Send + 'static {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut hangup = signal(SignalKind::hangup()).ok();
        async move {
            tokio::select! {
                () = wait(interrupt.as_mut()) => libc::SIGINT,
                () = wait(terminate.as_mut()) => libc::SIGTERM,
                () = wait(hangup.as_mut()) => libc::SIGHUP,
            }
        }
    }

    /// The next delivery of `signal`; never, when it could not be listened for.
    async fn wait(signal: Option<&mut tokio::signal::unix::Signal>) {
        match signal {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }

    /// Listens now (without a runtime); the function returned blocks until the first signal.
    pub(super) fn listen() -> Option<impl FnOnce() -> Option<i32> + Send + 'static> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).ok()?;
        Some(move || signals.forever().next())
    }
}

#[cfg(windows)]
mod windows {
    use std::future::Future;

    const SIGHUP: i32 = 1;
    const SIGINT: i32 = 2;
    const SIGTERM: i32 = 15;

    /// Starts listening for Ctrl-C, Ctrl-Break, the console's closing, logoff and shutdown at
    /// once (call it within the runtime); the future it returns ends with the Unix number of
    /// the first of them (see the module).
    pub fn stop_signal() -> impl Future<Output = i32> + Send + 'static {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};
        let mut interrupt = ctrl_c().ok();
        let mut brk = ctrl_break().ok();
        let mut close = ctrl_close().ok();
        let mut logoff = ctrl_logoff().ok();
        let mut shutdown = ctrl_shutdown().ok();
        async move {
            tokio::select! {
                () = wait(interrupt.as_mut().map(|s| s.recv())) => SIGINT,
                () = wait(brk.as_mut().map(|s| s.recv())) => SIGTERM,
                () = wait(close.as_mut().map(|s| s.recv())) => SIGHUP,
                () = wait(logoff.as_mut().map(|s| s.recv())) => SIGHUP,
                () = wait(shutdown.as_mut().map(|s| s.recv())) => SIGTERM,
            }
        }
    }

    /// The next event; never, when it could not be listened for.
    async fn wait(next: Option<impl Future<Output = Option<()>>>) {
        match next {
            Some(next) => {
                next.await;
            }
            None => std::future::pending::<()>().await,
        }
    }

    /// Listens now, on a runtime of its own (the console's events come to tokio's handler);
    /// the function returned blocks until the first of them.
    pub(super) fn listen() -> Option<impl FnOnce() -> Option<i32> + Send + 'static> {
        let runtime = crate::tap::runtime::one_thread().ok()?;
        let signal = {
            let _within = runtime.enter();
            stop_signal()
        };
        Some(move || Some(runtime.block_on(signal)))
    }
}
