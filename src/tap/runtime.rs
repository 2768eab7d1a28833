//! The async runtimes Sightline starts, in their two shapes.
//!
//! Every runtime here has its timers and sockets on (a proxy, a provider call and a signal
//! all need them), and the choice between the shapes is a measured one, so it is made in one
//! place: a proxy's exchange is a few hops between sockets, and on one thread each hop stays
//! where it is instead of waking another (`benches/http_proxy_latency.rs`: about half the
//! latency of the pool); the agent loop, a replay and the commands that run several servers
//! at once want a pool. The host, the app and the CLI all use the tap, so they build theirs
//! here; the OTLP exporter, which may not, is handed one.

use std::io;

use tokio::runtime::{Builder, Runtime};

/// A runtime on the calling thread alone: for a proxy, a signal listener, a one-off send.
pub fn one_thread() -> io::Result<Runtime> {
    Builder::new_current_thread().enable_all().build()
}

/// A runtime with a pool of worker threads, one a core unless `workers` says how many.
pub fn pool(workers: Option<usize>) -> io::Result<Runtime> {
    let mut builder = Builder::new_multi_thread();
    if let Some(workers) = workers {
        builder.worker_threads(workers);
    }
    builder.enable_all().build()
}
