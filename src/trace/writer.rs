//! Writing trace files: the header, then one line per event, appended.
//!
//! The recorder calls [`TraceWriter::flush`] after each record call, before the bytes recorded
//! are forwarded, so the file is never behind what was delivered (a recorder killed outright
//! may leave a half-written last line, which the reader reports and skips). This is the tap's
//! hot path: every byte that crosses is written here once more, as a JSON string. So events
//! are formatted into one reused buffer (the common event by hand, with the fast escaper of
//! [`super::escape`] and the lanes and channel formatted once per batch), which reaches the
//! file in one `write(2)` per flush; a buffer past [`SPILL_AT`] is written out early, so a
//! 50 MB payload streams out in pieces and is never held a second time.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use chrono::{DateTime, Utc};

use super::escape::{escape_into, quoted_into};
use super::event::{Channel, Event, Header, HttpInfo, Lane, format_time};
use super::file::TraceError;

/// A buffer this full is written out before more is added.
const SPILL_AT: usize = 1 << 20;
/// A long payload is escaped this much at a time (a multiple of 3, so base64 pieces join).
const PIECE: usize = 3 << 16;

/// Appends events to a trace file.
pub struct TraceWriter {
    path: PathBuf,
    out: Spill,
    /// The second of the last timestamp formatted and its text up to the fraction
    /// (`2026-11-29T22:52:27.`): the events of one second add only their microseconds, so a
    /// line recorded on its own (a round trip) costs no calendar arithmetic and no allocation.
    last_second: Option<(i64, String)>,
    /// The last route formatted: `,"from":...,"to":...,"channel":...`.
    last_route: Option<(Lane, Lane, Channel, Vec<u8>)>,
}

/// The buffer and the file it spills into.
struct Spill {
    file: File,
    buf: Vec<u8>,
}

impl Spill {
    fn spill_if_full(&mut self) -> io::Result<()> {
        if self.buf.len() >= SPILL_AT {
            self.write_out()?;
        }
        Ok(())
    }

    /// Appends `piece` in base64 (pieces that are multiples of 3 bytes join up exactly).
    fn base64(&mut self, piece: &[u8]) -> io::Result<()> {
        let at = self.buf.len();
        self.buf.resize(at + piece.len().div_ceil(3) * 4, 0);
        let written = base64::engine::general_purpose::STANDARD
            .encode_slice(piece, &mut self.buf[at..])
            .map_err(io::Error::other)?;
        self.buf.truncate(at + written);
        self.spill_if_full()
    }

    fn write_out(&mut self) -> io::Result<()> {
        let result = self.file.write_all(&self.buf);
        self.buf.clear();
        result
    }
}

/// serde_json's writer for what is not written by hand (headers, events with process or HTTP
/// details): into the same buffer, spilling as it fills.
impl Write for Spill {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.spill_if_full()?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The payload of an event, as stored.
enum Payload<'a> {
    Text(&'a str),
    /// Already base64 (an [`Event`]'s `raw_b64`, escaped as any string would be).
    Base64(&'a str),
    /// Bytes that are not UTF-8, to be encoded.
    Binary(&'a [u8]),
    /// Bytes to be read (UTF-8 or not), in pieces.
    Reader(&'a mut dyn io::Read, bool),
}

impl<'a> Payload<'a> {
    /// Bytes as [`Event::with_bytes`] stores them: text when UTF-8, else base64.
    fn of(bytes: &'a [u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Payload::Text(text),
            Err(_) => Payload::Binary(bytes),
        }
    }
}

impl TraceWriter {
    /// Creates (or truncates) `path` and writes the header line.
    pub fn create(path: &Path, header: &Header) -> Result<Self, TraceError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| TraceError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        }
        let file = File::create(path).map_err(|source| TraceError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let mut writer = TraceWriter {
            path: path.to_path_buf(),
            out: Spill {
                file,
                buf: Vec::with_capacity(SPILL_AT + PIECE * 6 + 4096),
            },
            last_second: None,
            last_route: None,
        };
        writer.write_line(header)?;
        writer.flush()?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event. Call [`flush`](Self::flush) to push it to the file; the recorder does
    /// so at the end of each record call.
    pub fn append(&mut self, event: &Event) -> Result<(), TraceError> {
        let result = self.append_event(event);
        self.map_err(result)
    }

    /// Every event is written by hand down to its payload (the bulk of its bytes, through the
    /// fast escaper); process and HTTP details and unknown fields are serde's, in serde's order.
    fn append_event(&mut self, event: &Event) -> io::Result<()> {
        self.begin(
            event.seq,
            event.time,
            &event.from,
            &event.to,
            &event.channel,
        );
        if let Some(raw) = &event.raw {
            self.payload(Payload::Text(raw))?;
        }
        if let Some(b64) = event.raw_b64() {
            self.payload(Payload::Base64(b64))?;
        }
        if let Some(process) = event.process() {
            self.out.buf.extend_from_slice(b",\"process\":");
            serde_json::to_writer(&mut self.out, process)?;
        }
        if let Some(http) = event.http() {
            self.out.buf.extend_from_slice(b",\"http\":");
            serde_json::to_writer(&mut self.out, http)?;
        }
        for (key, value) in event.extra().iter() {
            self.out.buf.push(b',');
            quoted_into(&mut self.out.buf, key);
            self.out.buf.push(b':');
            serde_json::to_writer(&mut self.out, value)?;
        }
        self.end()
    }

    /// Appends an event made of these parts, exactly as [`append`](Self::append) would write
    /// the equivalent [`Event`], without building one.
    pub fn append_bytes(
        &mut self,
        seq: u64,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        let result = self.append_fast(seq, time, from, to, channel, Payload::of(bytes));
        self.map_err(result)
    }

    /// Like [`append_bytes`](Self::append_bytes) for bytes already known to be UTF-8 (the
    /// lines of a batch checked at once).
    pub fn append_text(
        &mut self,
        seq: u64,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
        text: &str,
    ) -> Result<(), TraceError> {
        let result = self.append_fast(seq, time, from, to, channel, Payload::Text(text));
        self.map_err(result)
    }

    /// Appends an HTTP event, exactly as [`append`](Self::append) would write the [`Event`] of
    /// `bytes` (`Event::with_bytes`) with `http` as its details, without building one: the HTTP
    /// proxy records every SSE event this way.
    #[allow(clippy::too_many_arguments)]
    pub fn append_http(
        &mut self,
        seq: u64,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
        http: &HttpInfo,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        self.begin(seq, time, from, to, channel);
        let result = self.payload(Payload::of(bytes)).and_then(|()| {
            self.out.buf.extend_from_slice(b",\"http\":");
            serde_json::to_writer(&mut self.out, http)?;
            self.end()
        });
        self.map_err(result)
    }

    /// Like [`append_bytes`](Self::append_bytes) for bytes read from `bytes` (a line kept in a
    /// temporary file), `utf8` saying whether they are UTF-8: they are read, escaped and
    /// written in pieces, never all in memory.
    #[allow(clippy::too_many_arguments)]
    pub fn append_reader(
        &mut self,
        seq: u64,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
        utf8: bool,
        bytes: &mut dyn io::Read,
    ) -> Result<(), TraceError> {
        let result = self.append_fast(seq, time, from, to, channel, Payload::Reader(bytes, utf8));
        self.map_err(result)
    }

    fn append_fast(
        &mut self,
        seq: u64,
        time: DateTime<Utc>,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
        payload: Payload<'_>,
    ) -> io::Result<()> {
        self.begin(seq, time, from, to, channel);
        self.payload(payload)?;
        self.end()
    }

    /// `{"seq":N,"time":"T","from":F,"to":T,"channel":C`
    fn begin(&mut self, seq: u64, time: DateTime<Utc>, from: &Lane, to: &Lane, channel: &Channel) {
        let route = match &mut self.last_route {
            Some((f, t, c, text)) if f == from && t == to && c == channel => text,
            slot => {
                &mut slot
                    .insert((
                        from.clone(),
                        to.clone(),
                        channel.clone(),
                        route(from, to, channel),
                    ))
                    .3
            }
        };
        let buf = &mut self.out.buf;
        buf.extend_from_slice(b"{\"seq\":");
        buf.extend_from_slice(itoa::Buffer::new().format(seq).as_bytes());
        buf.extend_from_slice(b",\"time\":\"");
        time_into(buf, &mut self.last_second, time);
        buf.push(b'"');
        buf.extend_from_slice(route);
    }

    /// `,"raw":"..."` or `,"raw_b64":"..."`, spilling as the buffer fills.
    fn payload(&mut self, payload: Payload<'_>) -> io::Result<()> {
        let text = match &payload {
            Payload::Text(_) | Payload::Reader(_, true) => true,
            Payload::Base64(_) | Payload::Binary(_) | Payload::Reader(_, false) => false,
        };
        self.out.buf.extend_from_slice(if text {
            b",\"raw\":\""
        } else {
            b",\"raw_b64\":\""
        });
        match payload {
            Payload::Text(text) | Payload::Base64(text) => {
                for piece in text.as_bytes().chunks(PIECE) {
                    escape_into(&mut self.out.buf, piece);
                    self.out.spill_if_full()?;
                }
            }
            Payload::Binary(bytes) => {
                for piece in bytes.chunks(PIECE) {
                    self.out.base64(piece)?;
                }
            }
            Payload::Reader(reader, utf8) => {
                let mut piece = vec![0u8; PIECE];
                loop {
                    let n = fill(reader, &mut piece)?;
                    if n == 0 {
                        break;
                    }
                    if utf8 {
                        escape_into(&mut self.out.buf, &piece[..n]);
                        self.out.spill_if_full()?;
                    } else {
                        self.out.base64(&piece[..n])?;
                    }
                }
            }
        }
        self.out.buf.push(b'"');
        Ok(())
    }

    /// `}` and the newline.
    fn end(&mut self) -> io::Result<()> {
        self.out.buf.extend_from_slice(b"}\n");
        self.out.spill_if_full()
    }

    /// Hands everything appended so far to the operating system (one `write(2)` unless a big
    /// payload spilled early).
    pub fn flush(&mut self) -> Result<(), TraceError> {
        let result = self.out.write_out();
        self.map_err(result)
    }

    fn write_line<T: serde::Serialize>(&mut self, value: &T) -> Result<(), TraceError> {
        let result = serde_json::to_writer(&mut self.out, value)
            .map_err(io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        self.map_err(result)
    }

    fn map_err(&self, result: io::Result<()>) -> Result<(), TraceError> {
        result.map_err(|source| TraceError::Write {
            path: self.path.clone(),
            source,
        })
    }
}

/// Appends `time` as [`format_time`] writes it, from the cached text of its second when it is
/// the last one's (a leap second or a time finer than microseconds goes the long way).
fn time_into(buf: &mut Vec<u8>, last_second: &mut Option<(i64, String)>, time: DateTime<Utc>) {
    let nanos = time.timestamp_subsec_nanos();
    let second = time.timestamp();
    if nanos >= 1_000_000_000 || !nanos.is_multiple_of(1000) {
        buf.extend_from_slice(format_time(time).as_bytes());
        return;
    }
    let prefix = match last_second {
        Some((s, text)) if *s == second => text,
        slot => {
            let whole = DateTime::from_timestamp(second, 0).map(format_time);
            match whole.as_deref().and_then(|w| w.strip_suffix("000000Z")) {
                Some(prefix) => &mut slot.insert((second, prefix.to_string())).1,
                None => {
                    buf.extend_from_slice(format_time(time).as_bytes());
                    return;
                }
            }
        }
    };
    buf.extend_from_slice(prefix.as_bytes());
    let micros = nanos / 1000;
    for div in [100_000, 10_000, 1_000, 100, 10, 1] {
        buf.push(b'0' + (micros / div % 10) as u8);
    }
    buf.push(b'Z');
}

/// Reads until `buf` is full or the reader ends; returns how much was read.
fn fill(reader: &mut dyn io::Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// `,"from":F,"to":T,"channel":C`, as serde writes those fields.
fn route(from: &Lane, to: &Lane, channel: &Channel) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(b",\"from\":");
    quoted_into(&mut out, &from.to_string());
    out.extend_from_slice(b",\"to\":");
    quoted_into(&mut out, &to.to_string());
    out.extend_from_slice(b",\"channel\":");
    quoted_into(&mut out, channel.as_str());
    out
}

/// Writes a whole trace (for rewriting or converting one). Unknown fields are written back.
pub fn write_trace(path: &Path, header: &Header, events: &[Event]) -> Result<(), TraceError> {
    let mut writer = TraceWriter::create(path, header)?;
    for event in events {
        writer.append(event)?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, raw: &str) -> Event {
        Event::with_bytes(
            seq,
            crate::trace::now(),
            Lane::Host,
            Lane::server("w"),
            Channel::Stdio,
            raw.as_bytes().to_vec(),
        )
    }

    #[test]
    fn times_are_written_as_format_time_writes_them() {
        let mut last = None;
        let mut times: Vec<DateTime<Utc>> = [
            "2026-11-29T22:52:27.123456Z",
            "2026-11-29T22:52:27.000001Z",
            "2026-11-29T22:52:27.999999Z",
            "2026-11-29T22:52:28Z",
            "1969-12-31T23:59:59.5Z",
            "1970-01-01T00:00:00Z",
            "2016-12-31T23:59:60.25Z",
            "2026-11-29T22:52:28.123456789Z",
            "0009-01-01T00:00:00.000007Z",
        ]
        .iter()
        .map(|t| {
            DateTime::parse_from_rfc3339(t)
                .expect("time")
                .with_timezone(&Utc)
        })
        .collect();
        times.push(crate::trace::now());
        for time in times.iter().chain(times.iter().rev()) {
            let mut buf = Vec::new();
            time_into(&mut buf, &mut last, *time);
            assert_eq!(String::from_utf8(buf).expect("utf8"), format_time(*time));
        }
    }

    #[test]
    fn fast_event_writer_matches_serde() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl");
        let mut events = vec![event(7, "{\"a\":\"\\u0000\u{1b}\u{2028}é\"}"), event(8, "")];
        events.push(Event::with_bytes(
            9,
            crate::trace::now(),
            Lane::Other("x\"y".into()),
            Lane::Llm,
            Channel::Other("z".into()),
            vec![0xff],
        ));
        // Long payloads cross the piece and spill sizes, as text and as base64.
        let long = "ab\"c\n✓".repeat(SPILL_AT / 3);
        events.push(event(10, &long));
        let mut binary = long.clone().into_bytes();
        binary.push(0xfe);
        for len in [binary.len(), PIECE, PIECE + 1, PIECE + 2] {
            let mut bytes = binary[..len.min(binary.len())].to_vec();
            bytes[0] = 0xff;
            events.push(Event::with_bytes(
                11,
                crate::trace::now(),
                Lane::server("w"),
                Lane::Host,
                Channel::Stderr,
                bytes,
            ));
        }
        let mut writer = TraceWriter::create(&path, &Header::new("t")).expect("create");
        let mut expected = std::fs::read_to_string(&path).expect("read");
        // Events with details and unknown fields, or with no payload or both, as serde writes.
        let mut detailed = vec![
            event(12, "{\"jsonrpc\":\"2.0\",\"id\":1}"),
            event(13, "x"),
            event(14, ""),
        ];
        detailed[0].set_http(Some(crate::trace::HttpInfo {
            status: Some(200),
            headers: vec![("content-type".into(), "text/event-stream\u{1}".into())],
            extra: serde_json::from_str::<serde_json::Map<_, _>>(
                r#"{"sse_id":"7","in_reply_to":3,"z":null}"#,
            )
            .expect("map")
            .into(),
            ..Default::default()
        }));
        detailed[0]
            .extra_mut()
            .insert("later\"field".into(), serde_json::json!({"a": [1, "\n"]}));
        detailed[1].set_raw_b64(Some("eA==".into()));
        detailed[2].raw = None;
        detailed[2].set_process(Some(crate::trace::ProcessInfo {
            event: "exit".into(),
            code: Some(1),
            ..Default::default()
        }));
        for e in &detailed {
            writer.append(e).expect("append");
            expected.push_str(&(serde_json::to_string(e).expect("serde") + "\n"));
        }
        // HTTP events written without building an `Event`, as `append` writes the `Event`.
        let info = detailed[0].http().cloned().expect("http");
        for body in [&b"{\"a\":\"\n\"}"[..], b"", b"\xff\x00x"] {
            let mut e = Event::with_bytes(
                15,
                crate::trace::now(),
                Lane::server("w"),
                Lane::Host,
                Channel::Http,
                body.to_vec(),
            );
            e.set_http(Some(info.clone()));
            writer
                .append_http(e.seq, e.time, &e.from, &e.to, &e.channel, &info, body)
                .expect("append_http");
            expected.push_str(&(serde_json::to_string(&e).expect("serde") + "\n"));
        }
        for e in &events {
            writer.append(e).expect("append");
            let bytes = e.bytes().expect("bytes");
            writer
                .append_bytes(e.seq, e.time, &e.from, &e.to, &e.channel, &bytes)
                .expect("append_bytes");
            let line = serde_json::to_string(e).expect("serde") + "\n";
            expected.push_str(&line);
            expected.push_str(&line);
            if let Ok(text) = std::str::from_utf8(&bytes) {
                writer
                    .append_text(e.seq, e.time, &e.from, &e.to, &e.channel, text)
                    .expect("append_text");
                expected.push_str(&line);
            }
        }
        writer.flush().expect("flush");
        assert!(
            std::fs::read_to_string(&path).expect("read") == expected,
            "the fast writer's bytes differ from serde's"
        );
    }
}
