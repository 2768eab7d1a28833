//! Live export: spans leave for an OTLP/HTTP backend while a proxy (or `run`) records.
//!
//! The recorder hands every event to its sinks under its lock, before the bytes are forwarded,
//! so the only thing done there is [`LiveQueue::offer`]: a non-blocking `try_send` into a
//! bounded queue ([`QUEUE`] events). Everything else happens on the exporter's own thread (its
//! own single-threaded async runtime): the mapping ([`super::stream`], as each pair completes),
//! batching ([`super::BATCH`] spans, or what completed within [`TICK`]), and sending with the
//! retries and backoff of [`super::send::Sender`]. At most [`BATCHES`] batches wait for the
//! backend; while it is down or slow, later batches are dropped and counted, never queued
//! without bound and never waited for by the proxy. The trace file stays the durable record:
//! what could not be sent can be sent again with `export --format otlp` (same span ids, so a
//! backend deduplicates).
//!
//! What was dropped is counted in a [`LiveReport`]; the caller records it in the trace as a
//! note at shutdown ([`LiveReport::note`]), and `on_outage` is called (once per outage) when
//! the first batch is dropped, so the trace also says when the backend failed.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::trace::v1::Span;
use tokio::sync::{mpsc, watch};

use super::send::Sender;
use super::stream::Stream;
use super::{BATCH, Options, requests};
use crate::trace::{Event, Header};

/// Events that may wait for the exporter's thread; past that, `offer` drops and counts.
pub const QUEUE: usize = 65_536;
/// Batches of spans that may wait for the backend; past that, new batches are dropped.
pub const BATCHES: usize = 8;
/// How often completed spans are mapped and batched when fewer than a batch completed.
pub const TICK: Duration = Duration::from_millis(200);
/// How often the exporter's thread takes what the queue holds.
pub const DRAIN: Duration = Duration::from_millis(20);
/// How long [`Live::finish`] lets the last spans reach the backend.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// What live export did.
#[derive(Debug, Clone, Default)]
pub struct LiveReport {
    /// The traces URL, its credentials redacted (never a header).
    pub endpoint: String,
    /// Spans the backend accepted.
    pub sent: u64,
    /// Spans dropped: the backend failed after the retries, or too many batches waited.
    pub dropped: u64,
    /// Events dropped before mapping because the exporter's queue was full.
    pub dropped_events: u64,
    /// The last failure, one line (it names the endpoint and the status, never a header).
    pub last_error: Option<String>,
}

impl LiveReport {
    /// The note recorded in the trace at shutdown.
    pub fn note(&self) -> String {
        let mut text = format!(
            "OpenTelemetry live export to {}: {} spans sent, {} dropped",
            self.endpoint, self.sent, self.dropped
        );
        if self.dropped_events > 0 {
            text.push_str(&format!(
                ", {} events not exported (the exporter's queue was full)",
                self.dropped_events
            ));
        }
        if let Some(err) = &self.last_error {
            text.push_str(&format!("; last error: {err}"));
        }
        if self.dropped > 0 || self.dropped_events > 0 {
            text.push_str(
                "; this trace file holds every event: `sightline export TRACE --format otlp \
                 --endpoint URL` sends them again (same span ids)",
            );
        }
        text
    }
}

/// The recorder's side: a non-blocking enqueue.
#[derive(Clone)]
pub struct LiveQueue {
    tx: mpsc::Sender<Event>,
    dropped: Arc<AtomicU64>,
}

impl LiveQueue {
    /// Queues an event for the exporter without ever waiting: when the queue is full, the
    /// event is counted as dropped.
    pub fn offer(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(event) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A running live exporter.
pub struct Live {
    queue: LiveQueue,
    stop: watch::Sender<Option<Instant>>,
    thread: Option<JoinHandle<LiveReport>>,
}

impl Live {
    /// Starts the exporter's thread for the recording that starts with `header`, on `runtime`
    /// (one thread is enough for one connection: `tap::runtime::one_thread`, which this module
    /// may not use). `on_outage` is called from that thread, once per outage, with a one-line
    /// message.
    pub fn start(
        header: Header,
        options: Options,
        sender: Sender,
        runtime: tokio::runtime::Runtime,
        on_outage: Box<dyn Fn(&str) + Send>,
    ) -> std::io::Result<Live> {
        let (tx, rx) = mpsc::channel(QUEUE);
        let (stop, stop_rx) = watch::channel(None);
        let thread = std::thread::Builder::new()
            .name("otlp-export".into())
            .spawn(move || {
                let stream = Stream::new(header, options.clone());
                runtime.block_on(export(rx, stop_rx, stream, &options, &sender, &*on_outage))
            })?;
        Ok(Live {
            queue: LiveQueue {
                tx,
                dropped: Arc::new(AtomicU64::new(0)),
            },
            stop,
            thread: Some(thread),
        })
    }

    /// The handle the recorder's sink offers events to.
    pub fn queue(&self) -> LiveQueue {
        self.queue.clone()
    }

    /// Maps what is left (requests still in flight end as unanswered, and the root), sends it
    /// within `grace`, and returns what was sent and dropped. Events offered later are ignored.
    pub fn finish(mut self, grace: Duration) -> LiveReport {
        let _ = self.stop.send(Some(Instant::now() + grace));
        let mut report = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        report.dropped_events = self.queue.dropped.load(Ordering::Relaxed);
        report
    }
}

/// The exporter's thread: maps events as they come, and sends batches beside it.
async fn export(
    rx: mpsc::Receiver<Event>,
    mut stop: watch::Receiver<Option<Instant>>,
    stream: Stream,
    options: &Options,
    sender: &Sender,
    on_outage: &dyn Fn(&str),
) -> LiveReport {
    let report = RefCell::new(LiveReport {
        endpoint: sender.endpoint().shown(),
        ..LiveReport::default()
    });
    let outage = Cell::new(false);
    let drop_batch = |n: usize, why: &str| {
        let mut r = report.borrow_mut();
        r.dropped += n as u64;
        r.last_error = Some(why.to_string());
        if !outage.replace(true) {
            on_outage(&format!(
                "OpenTelemetry live export: dropping spans ({why}); the trace file keeps every \
                 event, the count follows at shutdown"
            ));
        }
    };
    let (batches, mut waiting) = mpsc::channel::<Vec<Span>>(BATCHES);
    let hand_over = |batches: &mpsc::Sender<Vec<Span>>, spans: Vec<Span>| {
        let mut spans = spans.into_iter().peekable();
        while spans.peek().is_some() {
            let batch: Vec<Span> = spans.by_ref().take(BATCH).collect();
            let n = batch.len();
            if batches.try_send(batch).is_err() {
                drop_batch(n, "too many batches waiting for a slow or failing backend");
            }
        }
    };
    let mut stop_map = stop.clone();
    let mapping = async {
        let (mut rx, mut stream, batches) = (rx, stream, batches);
        // The queue is drained on a timer, never awaited: with no waker registered, the
        // recorder's `try_send` is a few atomic operations and never a system call to wake
        // this thread (measured by benches/otlp.rs).
        let mut tick = tokio::time::interval(DRAIN);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_pass = Instant::now();
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    let mut closed = false;
                    loop {
                        match rx.try_recv() {
                            Ok(event) => {
                                stream.push(event);
                                if stream.unmapped() >= BATCH {
                                    hand_over(&batches, stream.complete());
                                    last_pass = Instant::now();
                                }
                            }
                            Err(mpsc::error::TryRecvError::Empty) => break,
                            Err(mpsc::error::TryRecvError::Disconnected) => {
                                closed = true;
                                break;
                            }
                        }
                    }
                    if last_pass.elapsed() >= TICK {
                        hand_over(&batches, stream.complete());
                        last_pass = Instant::now();
                    }
                    if closed {
                        break;
                    }
                }
                _ = stop_map.wait_for(Option::is_some) => {
                    // What was offered before the stop.
                    while let Ok(event) = rx.try_recv() {
                        stream.push(event);
                    }
                    break;
                }
            }
        }
        rx.close();
        let abandoned = stream.abandoned();
        if abandoned > 0 {
            drop_batch(
                usize::try_from(abandoned).unwrap_or(usize::MAX),
                "spans in flight given up: too many requests were left unanswered at once",
            );
        }
        hand_over(&batches, stream.finish());
        drop(batches);
    };
    let sending = async {
        while let Some(batch) = waiting.recv().await {
            let n = batch.len();
            let deadline = *stop.borrow();
            if deadline.is_some_and(|d| Instant::now() >= d) {
                drop_batch(n, "the shutdown grace ended");
                continue;
            }
            let Some(request) = requests(batch, options).pop() else {
                continue;
            };
            let sent = tokio::select! {
                sent = sender.send(&request) => sent.map_err(|e| e.to_string()),
                () = until(&mut stop) => Err("the shutdown grace ended".to_string()),
            };
            match sent {
                Ok(()) => {
                    report.borrow_mut().sent += n as u64;
                    outage.set(false);
                }
                Err(why) => drop_batch(n, &why),
            }
        }
    };
    tokio::join!(mapping, sending);
    report.into_inner()
}

/// Completes when the stop's deadline has passed (never before a stop is asked for).
async fn until(stop: &mut watch::Receiver<Option<Instant>>) {
    let deadline = match stop.wait_for(Option::is_some).await {
        Ok(d) => *d,
        Err(_) => None,
    };
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
