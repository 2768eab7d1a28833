//! The recorder: one clock, one sequence, one write.
//!
//! Every pump (and the host, the LLM providers and the HTTP proxies) records through one
//! [`Recorder`]. Taking the time and the next `seq`, and writing the event to every sink, happen
//! under one lock, so `seq` order is file order. A record call returns only once its event has
//! been handed to the operating system (a `write(2)` of the trace file, not an `fsync`): the
//! pumps record a chunk's lines *before* they forward the chunk, so whatever a peer has
//! received is in the trace even if Sightline is killed with SIGKILL the next instant, and a
//! recorder slower than its sender slows the sender the way a full pipe would (nothing queues
//! up in memory). [`Recorder::batch`] records several events with one write.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};

use super::lines::Lines;
use super::long_line::LongLine;
use crate::trace::{Channel, Event, HttpInfo, Lane, ProcessInfo, TraceError, TraceWriter};

/// Where recorded events go. The recorder calls `write` (or `write_lines`) for each event and
/// then `flush`, under its lock and before the bytes recorded are forwarded: a sink must be quick
/// (a sink that talks to the network should queue and send from its own thread), and `flush`
/// must hand what was written to the operating system.
pub trait EventSink: Send {
    fn write(&mut self, event: &Event) -> Result<(), TraceError>;
    fn flush(&mut self) -> Result<(), TraceError>;

    /// Writes the events of a batch of lines; the default builds each [`Event`].
    fn write_lines(&mut self, batch: &LineBatch) -> Result<(), TraceError> {
        batch.events().try_for_each(|event| self.write(&event))
    }

    /// Writes an HTTP event; the default builds the [`Event`].
    fn write_http(&mut self, record: &HttpRecord<'_>) -> Result<(), TraceError> {
        let mut event = Event::with_bytes(
            record.seq,
            record.time,
            record.from.clone(),
            record.to.clone(),
            record.channel.clone(),
            record.body.to_vec(),
        );
        event.set_http(Some(record.info.clone()));
        self.write(&event)
    }

    /// Writes the event of a line kept in a temporary file; the default reads it into memory.
    fn write_long(&mut self, line: &LongBatch<'_>) -> Result<(), TraceError> {
        let bytes = line.line.to_vec().map_err(TraceError::Spilled)?;
        self.write(&Event::with_bytes(
            line.seq,
            line.time,
            line.from.clone(),
            line.to.clone(),
            line.channel.clone(),
            bytes,
        ))
    }
}

impl EventSink for TraceWriter {
    fn write(&mut self, event: &Event) -> Result<(), TraceError> {
        self.append(event)
    }

    /// The batch's bytes are checked for UTF-8 once (its lines are cut at `\n`s, so each is
    /// UTF-8 when the whole is), not line by line; a batch that is not is written line by line.
    fn write_lines(&mut self, b: &LineBatch) -> Result<(), TraceError> {
        let seqs = b.first_seq..;
        match std::str::from_utf8(&b.lines.data) {
            Ok(text) => {
                seqs.zip(&b.lines.spans)
                    .try_for_each(|(seq, span)| match text.get(span.clone()) {
                        Some(line) => {
                            self.append_text(seq, b.time, &b.from, &b.to, &b.channel, line)
                        }
                        None => {
                            let line = &b.lines.data[span.clone()];
                            self.append_bytes(seq, b.time, &b.from, &b.to, &b.channel, line)
                        }
                    })
            }
            Err(_) => seqs.zip(b.lines.iter()).try_for_each(|(seq, line)| {
                self.append_bytes(seq, b.time, &b.from, &b.to, &b.channel, line)
            }),
        }
    }

    fn write_long(&mut self, b: &LongBatch<'_>) -> Result<(), TraceError> {
        self.append_reader(
            b.seq,
            b.time,
            b.from,
            b.to,
            b.channel,
            b.line.is_utf8(),
            &mut b.line.reader(),
        )
    }

    fn write_http(&mut self, r: &HttpRecord<'_>) -> Result<(), TraceError> {
        self.append_http(r.seq, r.time, r.from, r.to, r.channel, r.info, r.body)
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

/// One line that crossed, kept in a temporary file (see [`LongLine`]).
pub struct LongBatch<'a> {
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub from: &'a Lane,
    pub to: &'a Lane,
    pub channel: &'a Channel,
    pub line: &'a LongLine,
}

/// One HTTP message that crossed (see [`Recorder::record_http`]), as the sinks get it.
pub struct HttpRecord<'a> {
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub from: &'a Lane,
    pub to: &'a Lane,
    pub channel: &'a Channel,
    pub info: &'a HttpInfo,
    pub body: &'a [u8],
}

/// What the recorder did, reported when recording finishes.
#[derive(Debug, Default)]
pub struct RecorderReport {
    pub events: u64,
    /// Sink failures (a full disk, a removed file). Recording into other sinks went on.
    pub errors: Vec<TraceError>,
}

struct State {
    next_seq: u64,
    sinks: Vec<Box<dyn EventSink>>,
    /// Sinks that failed once are not written again (their error is in the report).
    failed: Vec<bool>,
    report: RecorderReport,
    /// After [`Recorder::finish`], events still get a `seq` but are not written.
    finished: bool,
}

impl State {
    fn each_sink(&mut self, mut f: impl FnMut(&mut dyn EventSink) -> Result<(), TraceError>) {
        let State {
            sinks,
            failed,
            report,
            ..
        } = self;
        for (sink, failed) in sinks.iter_mut().zip(failed.iter_mut()) {
            if !*failed && let Err(err) = f(sink.as_mut()) {
                tracing::error!("{err}; recording into it stops here, forwarding goes on");
                report.errors.push(err);
                *failed = true;
            }
        }
    }

    fn take_seq(&mut self, count: u64) -> u64 {
        let seq = self.next_seq;
        self.next_seq += count;
        seq
    }

    fn write(&mut self, event: &Event) {
        self.write_events(1, |sink| sink.write(event));
    }

    /// Has every sink write `events` events with `f`, unless recording has finished.
    fn write_events(
        &mut self,
        events: u64,
        f: impl FnMut(&mut dyn EventSink) -> Result<(), TraceError>,
    ) {
        if !self.finished {
            self.each_sink(f);
            self.report.events += events;
        }
    }

    fn flush(&mut self) {
        if !self.finished {
            self.each_sink(|sink| sink.flush());
        }
    }
}

/// Assigns `seq` and `time` to everything that crosses and writes it to every sink.
pub struct Recorder {
    state: Mutex<State>,
}

impl Recorder {
    /// A recorder writing into `sinks`.
    pub fn start(sinks: Vec<Box<dyn EventSink>>) -> Arc<Self> {
        let failed = vec![false; sinks.len()];
        Arc::new(Recorder {
            state: Mutex::new(State {
                next_seq: 0,
                sinks,
                failed,
                report: RecorderReport::default(),
                finished: false,
            }),
        })
    }

    /// Adds a sink that sees every event recorded from now on (a live view, an exporter).
    pub fn add_sink(&self, sink: Box<dyn EventSink>) {
        let mut state = self.state();
        state.sinks.push(sink);
        state.failed.push(false);
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records several events as one write: each gets the next `seq`, and all of them reach the
    /// sinks (and the operating system) before this returns. The HTTP proxy records the SSE
    /// events of one coalesced chunk this way.
    pub fn batch<T>(&self, f: impl FnOnce(&mut Batch<'_>) -> T) -> T {
        let mut state = self.state();
        let mut batch = Batch { state: &mut state };
        let out = f(&mut batch);
        state.flush();
        out
    }

    fn record(
        &self,
        from: Lane,
        to: Lane,
        channel: Channel,
        bytes: Vec<u8>,
        process: Option<ProcessInfo>,
    ) -> u64 {
        self.batch(|b| b.record(from, to, channel, bytes, process))
    }

    /// Records bytes that crossed (a stdio line, a stderr line, an HTTP body). Returns its `seq`.
    pub fn record_bytes(&self, from: Lane, to: Lane, channel: Channel, bytes: Vec<u8>) -> u64 {
        self.record(from, to, channel, bytes, None)
    }

    /// Records the lines completed by one read from a pipe: they crossed at the same moment,
    /// so they get consecutive `seq`s and one timestamp, and reach the file in one write.
    pub fn record_lines(&self, from: &Lane, to: &Lane, channel: &Channel, lines: Lines) {
        if lines.is_empty() {
            return;
        }
        let mut state = self.state();
        let batch = LineBatch {
            first_seq: state.take_seq(lines.len() as u64),
            time: crate::trace::now(),
            from: from.clone(),
            to: to.clone(),
            channel: channel.clone(),
            lines,
        };
        state.write_events(batch.lines.len() as u64, |sink| sink.write_lines(&batch));
        state.flush();
    }

    /// Records one line kept in a temporary file (a line longer than the splitter holds): it
    /// is streamed from there into each sink.
    pub fn record_long_line(&self, from: &Lane, to: &Lane, channel: &Channel, line: &LongLine) {
        let mut state = self.state();
        let batch = LongBatch {
            seq: state.take_seq(1),
            time: crate::trace::now(),
            from,
            to,
            channel,
            line,
        };
        state.write_events(1, |sink| sink.write_long(&batch));
        state.flush();
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
        self.batch(|b| b.record_http(from, to, channel, info, body))
    }

    /// Records a process spawn or exit.
    pub fn record_process(&self, from: Lane, to: Lane, info: ProcessInfo) -> u64 {
        self.record(from, to, Channel::Process, Vec::new(), Some(info))
    }

    /// Records text written by Sightline itself.
    pub fn record_note(&self, from: Lane, to: Lane, text: &str) -> u64 {
        self.record(from, to, Channel::Note, text.as_bytes().to_vec(), None)
    }

    /// Stops recording: flushes every sink and returns what was written. Events recorded later
    /// get a `seq` but are not written; later calls return an empty report.
    pub fn finish(&self) -> RecorderReport {
        let mut state = self.state();
        state.flush();
        state.finished = true;
        std::mem::take(&mut state.report)
    }
}

/// Events recorded together by [`Recorder::batch`].
pub struct Batch<'a> {
    state: &'a mut State,
}

impl Batch<'_> {
    fn record(
        &mut self,
        from: Lane,
        to: Lane,
        channel: Channel,
        bytes: Vec<u8>,
        process: Option<ProcessInfo>,
    ) -> u64 {
        let seq = self.state.take_seq(1);
        let mut event = Event::with_bytes(seq, crate::trace::now(), from, to, channel, bytes);
        if process.is_some() {
            event.raw = None;
            event.set_process(process);
        }
        self.state.write(&event);
        seq
    }

    /// Like [`Recorder::record_http`].
    pub fn record_http(
        &mut self,
        from: Lane,
        to: Lane,
        channel: Channel,
        info: HttpInfo,
        body: Vec<u8>,
    ) -> u64 {
        let seq = self.state.take_seq(1);
        let record = HttpRecord {
            seq,
            time: crate::trace::now(),
            from: &from,
            to: &to,
            channel: &channel,
            info: &info,
            body: &body,
        };
        self.state.write_events(1, |sink| sink.write_http(&record));
        seq
    }

    /// Like [`Recorder::record_note`].
    pub fn record_note(&mut self, from: Lane, to: Lane, text: &str) -> u64 {
        self.record(from, to, Channel::Note, text.as_bytes().to_vec(), None)
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
