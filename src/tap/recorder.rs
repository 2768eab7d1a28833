//! The recorder: one clock, one sequence, one writer.
//!
//! Every pump (and later the host and the LLM providers) records through one [`Recorder`].
//! Taking the time and the next `seq` under one lock keeps both in the same order. Writing
//! happens on a dedicated thread, so the forwarding path never waits for the disk: a pump
//! hands over the line it already owns and goes back to forwarding. The writer flushes
//! whenever its queue is empty, so the file is never behind by more than what is in flight.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use chrono::{DateTime, Utc};

use super::lines::Lines;
use crate::trace::{Channel, Event, HttpInfo, Lane, ProcessInfo, TraceError, TraceWriter};

/// Where recorded events go. The writer thread calls `write` for each event and `flush` when
/// it has nothing more queued.
pub trait EventSink: Send {
    fn write(&mut self, event: &Event) -> Result<(), TraceError>;
    fn flush(&mut self) -> Result<(), TraceError>;

    /// Writes the events of a batch of lines; the default builds each [`Event`].
    fn write_lines(&mut self, batch: &LineBatch) -> Result<(), TraceError> {
        batch.events().try_for_each(|event| self.write(&event))
    }
}

impl EventSink for TraceWriter {
    fn write(&mut self, event: &Event) -> Result<(), TraceError> {
        self.append(event)
    }

    fn write_lines(&mut self, b: &LineBatch) -> Result<(), TraceError> {
        (b.first_seq..)
            .zip(b.lines.iter())
            .try_for_each(|(seq, line)| {
                self.append_bytes(seq, b.time, &b.from, &b.to, &b.channel, line)
            })
    }

    fn flush(&mut self) -> Result<(), TraceError> {
        TraceWriter::flush(self)
    }
}

/// Keeps events in memory, shared with whoever holds a clone (tests, the host, a live view).
#[derive(Clone, Default)]
pub struct MemorySink {
    events: Arc<Mutex<Vec<Event>>>,
}

impl MemorySink {
    /// A copy of everything recorded so far.
    pub fn snapshot(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The events recorded after the first `seen`: a live view polls this with the count it
    /// already holds, so each poll copies only what is new.
    pub fn events_since(&self, seen: usize) -> Vec<Event> {
        let events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        events
            .get(seen..)
            .map(<[Event]>::to_vec)
            .unwrap_or_default()
    }
}

impl EventSink for MemorySink {
    fn write(&mut self, event: &Event) -> Result<(), TraceError> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event.clone());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), TraceError> {
        Ok(())
    }
}

/// Lines that crossed at the same moment (one read from a pipe), with consecutive `seq`s.
#[derive(Debug, Clone)]
pub struct LineBatch {
    pub first_seq: u64,
    pub time: DateTime<Utc>,
    pub from: Lane,
    pub to: Lane,
    pub channel: Channel,
    pub lines: Lines,
}

impl LineBatch {
    /// The batch as events.
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        (self.first_seq..)
            .zip(self.lines.iter())
            .map(|(seq, line)| {
                Event::with_bytes(
                    seq,
                    self.time,
                    self.from.clone(),
                    self.to.clone(),
                    self.channel.clone(),
                    line.to_vec(),
                )
            })
    }
}

/// What the recorder queue carries to the writer thread.
enum Queued {
    Event(Box<Event>),
    Lines(LineBatch),
}

/// What the writer thread did, reported when recording finishes.
#[derive(Debug, Default)]
pub struct RecorderReport {
    pub events: u64,
    /// Sink failures (a full disk, a removed file). Recording into other sinks went on.
    pub errors: Vec<TraceError>,
}

struct Clock {
    next_seq: u64,
    tx: Option<Sender<Queued>>,
}

/// Assigns `seq` and `time` to everything that crosses and hands it to the writer thread.
pub struct Recorder {
    clock: Mutex<Clock>,
    writer: Mutex<Option<JoinHandle<RecorderReport>>>,
}

impl Recorder {
    /// Starts the writer thread over `sinks`.
    pub fn start(sinks: Vec<Box<dyn EventSink>>) -> Arc<Self> {
        let (tx, rx) = mpsc::channel();
        let writer = std::thread::Builder::new()
            .name("sightline-recorder".into())
            .spawn(move || {
                yield_to_forwarding();
                write_loop(rx, sinks)
            })
            .ok();
        if writer.is_none() {
            tracing::error!("could not start the recorder thread: nothing will be recorded");
        }
        Arc::new(Recorder {
            clock: Mutex::new(Clock {
                next_seq: 0,
                tx: Some(tx),
            }),
            writer: Mutex::new(writer),
        })
    }

    fn clock(&self) -> MutexGuard<'_, Clock> {
        self.clock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(
        &self,
        from: Lane,
        to: Lane,
        channel: Channel,
        bytes: Vec<u8>,
        process: Option<ProcessInfo>,
    ) -> u64 {
        let mut clock = self.clock();
        let seq = clock.next_seq;
        clock.next_seq += 1;
        let mut event = Event::with_bytes(seq, crate::trace::now(), from, to, channel, bytes);
        if process.is_some() {
            event.raw = None;
            event.process = process.map(Box::new);
        }
        if let Some(tx) = &clock.tx {
            // The receiver only goes away after `finish`, when `tx` is already gone.
            let _ = tx.send(Queued::Event(Box::new(event)));
        }
        seq
    }

    /// Records bytes that crossed (a stdio line, a stderr line, an HTTP body). Returns its `seq`.
    pub fn record_bytes(&self, from: Lane, to: Lane, channel: Channel, bytes: Vec<u8>) -> u64 {
        self.record(from, to, channel, bytes, None)
    }

    /// Records the lines completed by one read from a pipe: they crossed at the same moment,
    /// so they get consecutive `seq`s and one timestamp, and reach the writer in one hand-over.
    pub fn record_lines(&self, from: &Lane, to: &Lane, channel: &Channel, lines: Lines) {
        if lines.is_empty() {
            return;
        }
        let mut clock = self.clock();
        let first_seq = clock.next_seq;
        clock.next_seq += lines.len() as u64;
        let batch = LineBatch {
            first_seq,
            time: crate::trace::now(),
            from: from.clone(),
            to: to.clone(),
            channel: channel.clone(),
            lines,
        };
        if let Some(tx) = &clock.tx {
            let _ = tx.send(Queued::Lines(batch));
        }
    }

    /// Records an HTTP message (an LLM API request or response, an MCP POST): `info` carries the
    /// request line or status and the headers, which the caller has already redacted.
    pub fn record_http(
        &self,
        from: Lane,
        to: Lane,
        channel: Channel,
        info: HttpInfo,
        body: Vec<u8>,
    ) -> u64 {
        let mut clock = self.clock();
        let seq = clock.next_seq;
        clock.next_seq += 1;
        let mut event = Event::with_bytes(seq, crate::trace::now(), from, to, channel, body);
        event.http = Some(Box::new(info));
        if let Some(tx) = &clock.tx {
            let _ = tx.send(Queued::Event(Box::new(event)));
        }
        seq
    }

    /// Records a process spawn or exit.
    pub fn record_process(&self, from: Lane, to: Lane, info: ProcessInfo) -> u64 {
        self.record(from, to, Channel::Process, Vec::new(), Some(info))
    }

    /// Records text written by Sightline itself.
    pub fn record_note(&self, from: Lane, to: Lane, text: &str) -> u64 {
        self.record(from, to, Channel::Note, text.as_bytes().to_vec(), None)
    }

    /// Stops accepting events, waits until every recorded event is written and flushed.
    /// Later calls return an empty report.
    pub fn finish(&self) -> RecorderReport {
        drop(self.clock().tx.take());
        let handle = self
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match handle.map(JoinHandle::join) {
            Some(Ok(report)) => report,
            Some(Err(_)) => {
                tracing::error!("the recorder thread panicked; the trace may be incomplete");
                RecorderReport::default()
            }
            None => RecorderReport::default(),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let report = self.finish();
        for err in report.errors {
            tracing::error!("{err}");
        }
    }
}

/// Lowers the writer thread's priority: when the CPU is short, forwarding goes first and the
/// writer catches up as soon as the link goes quiet (its queue keeps everything meanwhile).
fn yield_to_forwarding() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority on the calling thread only; a failure changes nothing.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

fn write_loop(rx: Receiver<Queued>, mut sinks: Vec<Box<dyn EventSink>>) -> RecorderReport {
    let mut report = RecorderReport::default();
    let mut failed = vec![false; sinks.len()];
    let mut each_sink =
        |report: &mut RecorderReport,
         f: &mut dyn FnMut(&mut dyn EventSink) -> Result<(), TraceError>| {
            for (sink, failed) in sinks.iter_mut().zip(failed.iter_mut()) {
                if !*failed && let Err(err) = f(sink.as_mut()) {
                    tracing::error!("{err}; recording into it stops here, forwarding goes on");
                    report.errors.push(err);
                    *failed = true;
                }
            }
        };
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(queued) = next {
            match &queued {
                Queued::Event(event) => {
                    each_sink(&mut report, &mut |sink| sink.write(event));
                    report.events += 1;
                }
                Queued::Lines(batch) => {
                    each_sink(&mut report, &mut |sink| sink.write_lines(batch));
                    report.events += batch.lines.len() as u64;
                }
            }
            next = rx.try_recv().ok();
        }
        // Nothing more queued: push what was written to the file.
        each_sink(&mut report, &mut |sink| sink.flush());
    }
    report
}
