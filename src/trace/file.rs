//! Reading trace files (JSON Lines: a header, then one event per line); writing them is
//! [`super::writer`]'s.
//!
//! The reader is forgiving in the way a crash demands: a bad or truncated line is reported by
//! number and skipped, and every good event is kept.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use chrono::{DateTime, Utc};

use super::event::{Event, Header, TRACE_FORMAT_VERSION, format_time};

mod regular;
pub use super::warning::{LineProblem, LoadWarning};
pub(crate) use regular::{not_regular, open_regular};

/// Why a trace could not be read or written at all.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot open trace {path}: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("cannot write trace {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot read back a long line from its temporary file: {0}")]
    Spilled(io::Error),
    #[error("error reading trace at line {line}: {source}")]
    Read { line: usize, source: io::Error },
    #[error("trace is empty: expected a header line `{{\"sightline_trace\": 1, ...}}`")]
    Empty,
    #[error("line 1 is not a Sightline trace header: {0}")]
    BadHeader(String),
    #[error("trace format version {found} is newer than this Sightline understands ({supported})")]
    TooNew { found: u64, supported: u64 },
}

/// The result of loading a trace: every good event, and a warning for every bad line.
#[derive(Debug, Clone)]
pub struct LoadedTrace {
    pub header: Header,
    pub events: Vec<Event>,
    pub warnings: Vec<LoadWarning>,
}

/// A whole trace as the bytes of its file (a page or a stream that carries one).
pub fn trace_bytes(header: &Header, events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in std::iter::once(serde_json::to_vec(header))
        .chain(events.iter().map(serde_json::to_vec))
        .flatten()
    {
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    out
}

/// Loads a trace file, or a session folder (its traces merged, see [`super::session`]).
/// Fails only when the file cannot be opened or has no usable header.
pub fn load(path: &Path) -> Result<LoadedTrace, TraceError> {
    if path.is_dir() {
        return super::session::load_dir(path);
    }
    let file = open_regular(path).map_err(|source| TraceError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let size = file.metadata().map_or(0, |m| m.len());
    load_in_chunks(file, LOAD_CHUNK, size)
}

/// Below this many bytes of events a chunk is parsed on one thread.
const PARALLEL_LOAD_FROM: usize = 4 << 20;

/// How much of a trace is read at a time (whole lines; a longer line makes a longer chunk).
const LOAD_CHUNK: usize = 16 << 20;

/// Parses the lines of `text`, the first being line `first_line` of the file, into `out`: on
/// two threads when it is big and there are two (see [`parse_lines`]). Returns how many lines
/// `text` holds.
fn parse_chunk(out: &mut Parsed, text: &[u8], first_line: usize) -> usize {
    if text.len() < PARALLEL_LOAD_FROM || !super::halves::has_threads() {
        return parse_lines(out, text, first_line);
    }
    let mid = memchr::memchr(b'\n', &text[text.len() / 2..])
        .map_or(text.len(), |p| text.len() / 2 + p + 1);
    let (a, b) = text.split_at(mid);
    // The second half is numbered from 0 and moved after the first is read: counting the first
    // half's lines beforehand would be one more pass over it.
    let (a_lines, (b_lines, mut second)) = super::halves::join(
        || parse_lines(out, a, first_line),
        || {
            let mut second = Parsed::default();
            let lines = parse_lines(&mut second, b, 0);
            (lines, second)
        },
    );
    let shift = first_line + a_lines;
    for line in &mut second.lines {
        *line += shift;
    }
    for warning in &mut second.warnings {
        warning.line += shift;
    }
    out.append(second);
    a_lines + b_lines
}

/// How many lines `text` holds, counting a last one without its newline.
fn count_lines(text: &[u8]) -> usize {
    let ends = memchr::memchr_iter(b'\n', text).count();
    ends + usize::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// The lines of `text`, each with its newline (the last one may have none).
fn lines_of(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |p| p + 1);
        let (line, after) = rest.split_at(end);
        rest = after;
        Some(line)
    })
}

/// The events of some lines of a trace, the line of each, and a warning for each line that is
/// not an event.
#[derive(Default)]
struct Parsed {
    events: Vec<Event>,
    lines: Vec<usize>,
    warnings: Vec<LoadWarning>,
}

impl Parsed {
    fn append(&mut self, mut more: Parsed) {
        self.events.append(&mut more.events);
        self.lines.append(&mut more.lines);
        self.warnings.append(&mut more.warnings);
    }
}

/// Parses the event lines in `text`, the first being line `first_line` of the file, into `out`.
/// Returns how many lines `text` holds.
fn parse_lines(out: &mut Parsed, text: &[u8], first_line: usize) -> usize {
    let Parsed {
        events,
        lines,
        warnings,
    } = out;
    let mut count = 0;
    for (n, buf) in lines_of(text).enumerate() {
        count = n + 1;
        let line_no = first_line + n;
        let complete = buf.last() == Some(&b'\n');
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Event::from_line(buf) {
            Ok(event) => {
                if let Some(problem) = payload_problem(&event) {
                    warnings.push(LoadWarning {
                        line: line_no,
                        problem,
                    });
                }
                events.push(event);
                lines.push(line_no);
            }
            Err(e) if !complete => warnings.push(LoadWarning {
                line: line_no,
                problem: LineProblem::Truncated {
                    bytes: buf.len(),
                    detail: Some(e.to_string()),
                },
            }),
            Err(e) => warnings.push(LoadWarning {
                line: line_no,
                problem: LineProblem::NotEvent {
                    detail: e.to_string(),
                },
            }),
        }
    }
    count
}

/// What is wrong with an event's payload fields, if anything: both `raw` and `raw_b64` (the
/// event keeps `raw`), or a `raw_b64` that is not base64 (the event has no payload). The event
/// is kept either way, so the `seq` order stays whole.
pub(super) fn payload_problem(event: &Event) -> Option<LineProblem> {
    let b64 = event.raw_b64()?;
    if event.raw.is_some() {
        return Some(LineProblem::BothPayloads);
    }
    base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .err()
        .map(|e| LineProblem::BadBase64 {
            detail: e.to_string(),
        })
}

/// Loads a trace from any reader; see [`load`].
pub fn load_from_reader(reader: impl Read) -> Result<LoadedTrace, TraceError> {
    load_in_chunks(reader, LOAD_CHUNK, 0)
}

/// A trace whose bytes are all in memory (a page that carries one), read a few lines at a time:
/// a page reads its trace between frames, so that the first screen of the diagram is drawn
/// before the last line is read. [`Self::step`] until it says all is read, then
/// [`Self::finish`]: the events and warnings are [`load_from_reader`]'s, the lines parsed where
/// they lie (not copied chunk by chunk into buffers of their own), into lists sized once.
pub struct Loading {
    bytes: Vec<u8>,
    /// Where the lines not read yet start.
    at: usize,
    next_line: usize,
    header: Header,
    /// What was read since the last [`Self::take`].
    parsed: Parsed,
    /// The `seq`, time and line of the last event taken, for the order checks of the next.
    last_taken: Option<(u64, DateTime<Utc>, usize)>,
}

impl Loading {
    /// Reads the header; fails as [`load_from_reader`] does.
    pub fn new(bytes: Vec<u8>) -> Result<Loading, TraceError> {
        let mut rest = bytes.as_slice();
        let (header, line_no) = read_header(&mut rest)?;
        let at = bytes.len() - rest.len();
        let lines = count_lines(rest);
        let parsed = Parsed {
            events: Vec::with_capacity(lines),
            lines: Vec::with_capacity(lines),
            warnings: Vec::new(),
        };
        Ok(Loading {
            bytes,
            at,
            next_line: line_no + 1,
            header,
            parsed,
            last_taken: None,
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The events read so far.
    pub fn events(&self) -> &[Event] {
        &self.parsed.events
    }

    /// How much of the trace has been read, from 0 to 1.
    pub fn progress(&self) -> f32 {
        self.at as f32 / self.bytes.len().max(1) as f32
    }

    /// Reads about `bytes` more (whole lines, at least one); true once everything is read.
    pub fn step(&mut self, bytes: usize) -> bool {
        let rest = &self.bytes[self.at..];
        let end = match rest.get(bytes..) {
            Some(after) => memchr::memchr(b'\n', after).map_or(rest.len(), |p| bytes + p + 1),
            None => rest.len(),
        };
        self.next_line += parse_chunk(&mut self.parsed, &rest[..end], self.next_line);
        self.at += end;
        self.at == self.bytes.len()
    }

    /// The events read since the last take (all read so far, the first time) and the warnings
    /// of their lines, in line order: the takes of a whole trace, one after the other, are
    /// [`Self::finish`]'s events and warnings (a page hands each to the viewer as it reads).
    pub fn take(&mut self) -> (Vec<Event>, Vec<LoadWarning>) {
        let Parsed {
            events,
            lines,
            mut warnings,
        } = std::mem::take(&mut self.parsed);
        order_warnings(self.last_taken, &events, &lines, &mut warnings);
        warnings.sort_by_key(|w| w.line);
        if let (Some(e), Some(&line)) = (events.last(), lines.last()) {
            self.last_taken = Some((e.seq, e.time, line));
        }
        (events, warnings)
    }

    /// Reads what is left, and the trace (the events not taken yet: all of them when
    /// [`Self::take`] was never called).
    pub fn finish(mut self) -> LoadedTrace {
        while !self.step(usize::MAX >> 1) {}
        drop(std::mem::take(&mut self.bytes));
        let (mut events, warnings) = self.take();
        events.shrink_to_fit();
        LoadedTrace {
            header: self.header,
            events,
            warnings,
        }
    }
}

/// Reads lines up to the header (blank lines before it are skipped); returns it and its line.
fn read_header(reader: &mut impl BufRead) -> Result<(Header, usize), TraceError> {
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    loop {
        buf.clear();
        line_no += 1;
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| TraceError::Read {
                line: line_no,
                source,
            })?;
        if n == 0 {
            return Err(TraceError::Empty);
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let header: Header = serde_json::from_slice(&buf)
            .map_err(|e| TraceError::BadHeader(format!("line {line_no}: {e}")))?;
        if header.sightline_trace > TRACE_FORMAT_VERSION {
            return Err(TraceError::TooNew {
                found: header.sightline_trace,
                supported: TRACE_FORMAT_VERSION,
            });
        }
        return Ok((header, line_no));
    }
}

/// [`load_from_reader`], reading `chunk_size` bytes at a time from a reader of about
/// `size_hint` bytes (0 when unknown; it only sizes the list of events).
fn load_in_chunks(
    reader: impl Read,
    chunk_size: usize,
    size_hint: u64,
) -> Result<LoadedTrace, TraceError> {
    // The header's reader reads ahead no more than a chunk (see below).
    let mut reader = BufReader::with_capacity(chunk_size.clamp(1, 64 * 1024), reader);
    let (header, line_no) = read_header(&mut reader)?;

    // The rest is read and parsed a chunk of whole lines at a time, so the file's text and
    // its events are never all in memory together; a big chunk is parsed in two halves on two
    // threads. The events and warnings are exactly those a line-by-line read gives.
    let mut parsed = Parsed::default();
    let mut bytes_read = 0u64;
    let mut next_line = line_no + 1;
    // One buffer for every chunk: a chunk freed and the next allocated would each time be new
    // pages for the kernel to zero and map (16 MB of page faults a chunk).
    let hint = usize::try_from(size_hint).unwrap_or(usize::MAX);
    let mut chunk: Vec<u8> = Vec::with_capacity(chunk_size.min(hint));
    // What the header's reader read ahead, then the rest straight into the chunk: through the
    // buffered reader every byte would be copied twice.
    chunk.extend_from_slice(reader.buffer());
    let mut reader = reader.into_inner();
    let mut read_error = None;
    loop {
        let mut at_end = false;
        match reader
            .by_ref()
            .take(chunk_size as u64)
            .read_to_end(&mut chunk)
        {
            Ok(0) => at_end = true,
            Ok(_) => {}
            Err(e) => {
                // The line being read when the error struck is incomplete: drop it.
                let keep = chunk.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                chunk.truncate(keep);
                read_error = Some(e);
                at_end = true;
            }
        }
        // Whole lines only; the start of the next line waits for the next chunk.
        let whole = if at_end {
            chunk.len()
        } else {
            match memchr::memrchr(b'\n', &chunk) {
                Some(p) => p + 1,
                None => continue,
            }
        };
        let first = bytes_read == 0;
        bytes_read += whole as u64;
        next_line += parse_chunk(&mut parsed, &chunk[..whole], next_line);
        if first && !at_end && size_hint > bytes_read {
            // Size the list once from the first chunk rather than doubling it as it fills.
            let per_byte = parsed.events.len() as f64 / bytes_read as f64;
            let expected = (per_byte * size_hint as f64 * 1.02) as usize + 16;
            parsed
                .events
                .reserve(expected.saturating_sub(parsed.events.len()));
        }
        if at_end {
            break;
        }
        chunk.drain(..whole);
    }
    Ok(finish(header, parsed, next_line, read_error))
}

/// The loaded trace from its parsed lines: the warnings of events out of `seq` or time order
/// added, all in line order, and a read error (which stopped reading at `error_line`) last.
fn finish(
    header: Header,
    parsed: Parsed,
    error_line: usize,
    read_error: Option<io::Error>,
) -> LoadedTrace {
    let Parsed {
        mut events,
        lines,
        mut warnings,
    } = parsed;
    events.shrink_to_fit();
    order_warnings(None, &events, &lines, &mut warnings);
    warnings.sort_by_key(|w| w.line);
    if let Some(e) = read_error {
        warnings.push(LoadWarning {
            line: error_line,
            problem: LineProblem::ReadStopped {
                detail: e.to_string(),
            },
        });
    }
    drop(lines);
    LoadedTrace {
        header,
        events,
        warnings,
    }
}

/// Adds the warnings of events out of `seq` or time order among `events` (read on `lines`) to
/// `warnings`; `before` is the `seq`, time and line of the event read just before them.
fn order_warnings(
    before: Option<(u64, DateTime<Utc>, usize)>,
    events: &[Event],
    lines: &[usize],
    warnings: &mut Vec<LoadWarning>,
) {
    let mut previous = before;
    for (event, &line) in events.iter().zip(lines) {
        if let Some((seq, time, previous_line)) = previous {
            let expected = seq.wrapping_add(1);
            if event.seq != expected {
                warnings.push(LoadWarning {
                    line,
                    problem: LineProblem::SeqGap {
                        seq: event.seq,
                        expected,
                    },
                });
            }
            if event.time < time {
                warnings.push(LoadWarning {
                    line,
                    problem: LineProblem::TimeBackwards {
                        time: format_time(event.time),
                        ms: (time - event.time)
                            .num_microseconds()
                            .map_or(f64::INFINITY, |us| us as f64 / 1000.0),
                        previous_line,
                        before: format_time(time),
                    },
                });
            }
        }
        previous = Some((event.seq, event.time, line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::writer::write_trace;
    use crate::trace::{Channel, Lane};

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
    fn written_trace_loads_back_identically() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl");
        let header = Header::new("test");
        let events = vec![
            event(0, r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#),
            event(1, "not json \u{1b}[0m"),
        ];
        write_trace(&path, &header, &events).expect("write");
        let loaded = load(&path).expect("load");
        assert_eq!(loaded.header, header);
        assert_eq!(loaded.events, events);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }

    #[test]
    fn truncated_last_line_keeps_every_complete_event() {
        let header = serde_json::to_string(&Header::new("t")).expect("header");
        let good = serde_json::to_string(&event(0, "a")).expect("event");
        let text = format!("{header}\n{good}\n{}", &good[..good.len() / 2]);
        let loaded = load_from_reader(text.as_bytes()).expect("load");
        assert_eq!(loaded.events.len(), 1);
        assert_eq!(loaded.warnings.len(), 1);
        assert_eq!(loaded.warnings[0].line, 3);
        assert!(
            loaded.warnings[0].problem.to_string().contains("truncated"),
            "{}",
            loaded.warnings[0]
        );
    }

    #[test]
    fn bad_middle_line_is_reported_by_number() {
        let header = serde_json::to_string(&Header::new("t")).expect("header");
        let e0 = serde_json::to_string(&event(0, "a")).expect("event");
        let e1 = serde_json::to_string(&event(1, "b")).expect("event");
        let text = format!("{header}\n{e0}\n{{garbage\n{e1}\n");
        let loaded = load_from_reader(text.as_bytes()).expect("load");
        assert_eq!(loaded.events.len(), 2);
        assert_eq!(loaded.warnings.len(), 1);
        assert_eq!(loaded.warnings[0].line, 3);
    }

    #[test]
    fn big_traces_load_on_two_threads_with_the_same_warnings() {
        let header = serde_json::to_string(&Header::new("t")).expect("header");
        let payload = "x".repeat(200);
        let mut text = format!("{header}\n");
        let n = (PARALLEL_LOAD_FROM / 200) as u64 + 100;
        for seq in 0..n {
            if seq == n - 50 {
                text.push_str("{garbage\n\n");
            }
            // A gap in the first half.
            let seq = if seq >= 10 { seq + 1 } else { seq };
            text.push_str(&serde_json::to_string(&event(seq, &payload)).expect("event"));
            text.push('\n');
        }
        assert!(text.len() > PARALLEL_LOAD_FROM);
        let loaded = load_from_reader(text.as_bytes()).expect("load");
        assert_eq!(loaded.events.len() as u64, n);
        let lines: Vec<usize> = loaded.warnings.iter().map(|w| w.line).collect();
        // Line 1 is the header; event k is on line k + 2 until the garbage line.
        assert_eq!(
            lines,
            vec![12, n as usize - 50 + 2],
            "{:?}",
            loaded.warnings
        );
        assert!(
            loaded.warnings[0]
                .problem
                .to_string()
                .starts_with("seq is 11 where 10")
        );
        assert!(
            loaded.warnings[1]
                .problem
                .to_string()
                .contains("not a valid event")
        );
    }

    #[test]
    fn chunk_boundaries_change_nothing() {
        let header = serde_json::to_string(&Header::new("t")).expect("header");
        let mut text = format!("{header}\n");
        for seq in 0..40u64 {
            let payload = "y".repeat(if seq == 7 { 700 } else { seq as usize * 3 });
            if seq == 20 {
                text.push_str("{garbage\n\n");
            }
            let seq = if seq >= 30 { seq + 1 } else { seq };
            text.push_str(&serde_json::to_string(&event(seq, &payload)).expect("event"));
            text.push('\n');
        }
        let good = serde_json::to_string(&event(41, "z")).expect("event");
        text.push_str(&good[..good.len() / 2]);
        let whole = load_in_chunks(text.as_bytes(), usize::MAX >> 1, 0).expect("whole");
        assert_eq!(whole.events.len(), 40);
        assert_eq!(whole.warnings.len(), 3, "{:?}", whole.warnings);
        for chunk in [1, 7, 64, 100, 333, 4096] {
            let loaded = load_in_chunks(text.as_bytes(), chunk, text.len() as u64).expect("chunks");
            assert_eq!(loaded.events, whole.events, "chunk {chunk}");
            assert_eq!(loaded.warnings, whole.warnings, "chunk {chunk}");
        }
        // In memory, a few lines at a time: the same, with or without a newline at the end.
        for end in ["", "\n"] {
            text.push_str(end);
            let whole = load_from_reader(text.as_bytes()).expect("reader");
            for step in [0, 1, 7, 64, 333, 4096, usize::MAX >> 1] {
                let mut loading = Loading::new(text.clone().into_bytes()).expect("header");
                let mut steps = 0;
                while !loading.step(step) {
                    steps += 1;
                    assert!(loading.events().len() <= whole.events.len());
                }
                assert!(step > 333 || steps > 0, "step {step}: all read at once");
                assert_eq!(loading.progress(), 1.0);
                let loaded = loading.finish();
                assert_eq!(loaded.events, whole.events, "step {step}");
                assert_eq!(loaded.warnings, whole.warnings, "step {step}");
                // Taken as they are read: the same events and warnings, in the same order.
                let mut loading = Loading::new(text.clone().into_bytes()).expect("header");
                let (mut events, mut warnings) = (Vec::new(), Vec::new());
                loop {
                    let done = loading.step(step);
                    let (more, said) = loading.take();
                    events.extend(more);
                    warnings.extend(said);
                    if done {
                        break;
                    }
                }
                let rest = loading.finish();
                assert!(rest.events.is_empty() && rest.warnings.is_empty());
                assert_eq!(events, whole.events, "taken, step {step}");
                assert_eq!(warnings, whole.warnings, "taken, step {step}");
            }
        }
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        assert_eq!(count_lines(b""), 0);
    }

    #[test]
    fn missing_or_foreign_header_is_an_error() {
        assert!(matches!(load_from_reader(&b""[..]), Err(TraceError::Empty)));
        assert!(matches!(
            Loading::new(b"\n \n".to_vec()),
            Err(TraceError::Empty)
        ));
        assert!(matches!(
            load_from_reader(&b"{\"a\":1}\n"[..]),
            Err(TraceError::BadHeader(_))
        ));
        let newer = r#"{"sightline_trace":99,"created":"x","sightline_version":"9"}"#;
        assert!(matches!(
            load_from_reader(newer.as_bytes()),
            Err(TraceError::TooNew { .. })
        ));
    }
}
