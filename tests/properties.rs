//! Property tests over generated inputs (a seeded generator, so a failure names its case and
//! reproduces): forwarding is the identity on any byte stream cut into any chunks, and a trace
//! gives back exactly the bytes recorded in it, whether they are stored as `raw` or `raw_b64`.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sightline::tap::lines::LineSplitter;
use sightline::tap::{Lines, MemorySink, Recorder, ServerCommand, StdioTap};
use sightline::trace::{Channel, Event, Header, Lane, TraceWriter, load, write_trace};

use crate::util::tempdir;

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A byte stream of one of several shapes: JSON-RPC-like lines, arbitrary bytes (invalid
/// UTF-8, NUL, CR), long lines, many empty lines; ending with or without a newline.
fn stream(rng: &mut Rng, case: usize) -> Vec<u8> {
    let len = match case % 5 {
        0 => rng.below(64),
        1 => rng.below(4096),
        2 => 65_536 + rng.below(200_000),
        _ => rng.below(20_000),
    };
    let mut out = Vec::with_capacity(len + 1);
    while out.len() < len {
        match rng.below(6) {
            0 => out.extend_from_slice(
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\u00e9"}}"#,
            ),
            1 => out.push(b'\n'),
            2 => out.extend_from_slice(b"\r\n"),
            3 => out.extend_from_slice("é€😀".as_bytes()),
            _ => {
                let n = 1 + rng.below(300);
                out.extend((0..n).map(|_| rng.next() as u8));
            }
        }
    }
    if case.is_multiple_of(2) {
        out.push(b'\n');
    }
    out
}

/// Chunk sizes for a stream: single bytes, small, large, or mixed.
fn cuts(rng: &mut Rng, len: usize) -> Vec<usize> {
    let style = rng.below(4);
    let mut sizes = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = match style {
            0 => 1,
            1 => 1 + rng.below(16),
            2 => 1 + rng.below(70_000),
            _ => [1, 2, 3, 4096, 65_536, 1 + rng.below(9000)][rng.below(6)],
        }
        .min(left);
        sizes.push(n);
        left -= n;
    }
    sizes
}

/// What a stream's recorded lines rebuild: each line, a `\n` between them and after the last
/// when the stream ended with one.
fn rebuild<'a>(lines: impl Iterator<Item = &'a [u8]>, ended_with_newline: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut any = false;
    for line in lines {
        if any {
            out.push(b'\n');
        }
        out.extend_from_slice(line);
        any = true;
    }
    if any && ended_with_newline {
        out.push(b'\n');
    }
    out
}

#[test]
fn the_line_splitter_keeps_every_byte_of_any_stream_in_any_chunking() {
    let mut rng = Rng::new(1);
    for case in 0..400 {
        let input = stream(&mut rng, case);
        let mut splitter = LineSplitter::default();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut at = 0;
        for n in cuts(&mut rng, input.len()) {
            if let Some(got) = splitter.feed(&input[at..at + n]) {
                lines.extend(got.iter().map(<[u8]>::to_vec));
            }
            at += n;
        }
        lines.extend(splitter.finish());
        let rebuilt = rebuild(lines.iter().map(Vec::as_slice), input.ends_with(b"\n"));
        assert!(rebuilt == input, "case {case}: {} bytes", input.len());
    }
}

/// A client that writes `data` in the given chunk sizes, one `read` each (a chunk bigger than
/// the reader's buffer comes in as many reads as it takes).
struct Chunked {
    data: Vec<u8>,
    sizes: std::vec::IntoIter<usize>,
    at: usize,
    left_in_chunk: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left_in_chunk == 0 {
            match self.sizes.next() {
                Some(n) => self.left_in_chunk = n,
                None => return Ok(0),
            }
        }
        let n = self.left_in_chunk.min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        self.left_in_chunk -= n;
        Ok(n)
    }
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_stdio_tap_forwards_any_stream_unchanged_and_records_it_exactly() {
    let mut rng = Rng::new(2);
    for case in 0..40 {
        let input = stream(&mut rng, case);
        let sizes = cuts(&mut rng, input.len());
        let sink = MemorySink::default();
        let recorder = Recorder::start(vec![Box::new(sink.clone())]);
        let out = Shared::default();
        let cmd = ServerCommand::new("cat", "cat", Vec::new());
        let tap = StdioTap::spawn(
            &cmd,
            recorder.clone(),
            Lane::Host,
            Box::new(Chunked {
                data: input.clone(),
                sizes: sizes.into_iter(),
                at: 0,
                left_in_chunk: 0,
            }),
            Box::new(out.clone()),
            None,
        )
        .expect("cat starts");
        let outcome = tap.wait_timeout(Duration::from_secs(60)).expect("cat ends");
        assert_eq!(outcome.code, Some(0), "case {case}");
        recorder.finish();

        let forwarded = out.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
        assert!(
            forwarded == input,
            "case {case}: the client got other bytes"
        );
        let events = sink.snapshot();
        let ended = input.ends_with(b"\n");
        for (from, to, what) in [
            (Lane::Host, Lane::server("cat"), "client -> server"),
            (Lane::server("cat"), Lane::Host, "server -> client"),
        ] {
            let payloads: Vec<Vec<u8>> = events
                .iter()
                .filter(|e| e.channel == Channel::Stdio && e.from == from && e.to == to)
                .map(|e| e.bytes().expect("a payload").into_owned())
                .collect();
            let recorded = rebuild(payloads.iter().map(Vec::as_slice), ended);
            assert!(
                recorded == input,
                "case {case}: {what} recorded other bytes"
            );
        }
    }
}

/// Lane names with what JSON must escape, and more.
const NAMES: [&str; 6] = [
    "weather",
    "a\"b\\c",
    "tab\there",
    "é😀",
    "nul\u{0}x",
    "line\u{2028}sep",
];

fn bytes(rng: &mut Rng) -> Vec<u8> {
    let n = [0, 1, 2, 3, 17, 300, 5000][rng.below(7)];
    match rng.below(3) {
        // Valid UTF-8 (stored as `raw`).
        0 => "{\"a\":\"\u{1b}[0m\u{7f}é\n\r\"}\\"
            .chars()
            .cycle()
            .take(n)
            .collect::<String>()
            .into_bytes(),
        // Anything (mostly stored as `raw_b64`).
        _ => (0..n).map(|_| rng.next() as u8).collect(),
    }
}

#[test]
fn a_trace_gives_back_the_exact_bytes_written_as_raw_or_raw_b64() {
    let dir = tempdir();
    let mut rng = Rng::new(3);
    let channels = [
        Channel::Stdio,
        Channel::Stderr,
        Channel::Note,
        Channel::Http,
        Channel::LlmHttp,
    ];
    for case in 0..60 {
        let n = 1 + rng.below(50);
        let t0 = sightline::trace::now();
        let events: Vec<Event> = (0..n as u64)
            .map(|seq| {
                let from = Lane::server(NAMES[rng.below(NAMES.len())]);
                let channel = channels[rng.below(channels.len())].clone();
                let time = t0 + chrono::TimeDelta::microseconds(seq as i64 * 7);
                Event::with_bytes(seq, time, from, Lane::Host, channel, bytes(&mut rng))
            })
            .collect();

        // The whole-file writer (export, import, merge) and the recorder's writer.
        let whole = dir.path().join(format!("whole-{case}.jsonl"));
        write_trace(&whole, &Header::new("property"), &events).expect("write");
        let appended = dir.path().join(format!("appended-{case}.jsonl"));
        let mut writer = TraceWriter::create(&appended, &Header::new("property")).expect("create");
        for e in &events {
            let b = e.bytes().expect("payload");
            writer
                .append_bytes(e.seq, e.time, &e.from, &e.to, &e.channel, &b)
                .expect("append");
        }
        writer.flush().expect("flush");
        drop(writer);

        for path in [&whole, &appended] {
            let loaded = load(path).expect("load");
            assert!(
                loaded.warnings.is_empty(),
                "case {case}: {:?}",
                loaded.warnings
            );
            assert_eq!(loaded.events.len(), events.len(), "case {case}");
            for (got, want) in loaded.events.iter().zip(&events) {
                assert_eq!(got.bytes(), want.bytes(), "case {case} seq {}", want.seq);
                assert_eq!(
                    got.raw.is_some(),
                    std::str::from_utf8(&want.bytes().expect("payload")).is_ok(),
                    "case {case} seq {}: UTF-8 is `raw`, other bytes `raw_b64`",
                    want.seq
                );
                assert_eq!(
                    (&got.from, &got.channel, got.time),
                    (&want.from, &want.channel, want.time)
                );
            }
        }
    }
}

#[test]
fn the_recorder_writes_any_lines_it_is_given_byte_for_byte() {
    let dir = tempdir();
    let mut rng = Rng::new(4);
    for case in 0..20 {
        let path = dir.path().join(format!("rec-{case}.jsonl"));
        let writer = TraceWriter::create(&path, &Header::new("property")).expect("create");
        let recorder = Recorder::start(vec![Box::new(writer)]);
        let mut sent: Vec<Vec<u8>> = Vec::new();
        for _ in 0..1 + rng.below(30) {
            let lines: Vec<Vec<u8>> = (0..1 + rng.below(8))
                .map(|_| {
                    bytes(&mut rng)
                        .into_iter()
                        .filter(|&b| b != b'\n')
                        .collect()
                })
                .collect();
            let mut data = Vec::new();
            let mut spans = Vec::new();
            for line in &lines {
                spans.push(data.len()..data.len() + line.len());
                data.extend_from_slice(line);
                data.push(b'\n');
            }
            recorder.record_lines(
                &Lane::Host,
                &Lane::server("w"),
                &Channel::Stdio,
                Lines { data, spans },
            );
            sent.extend(lines);
        }
        let report = recorder.finish();
        assert!(report.errors.is_empty(), "case {case}: {:?}", report.errors);
        let loaded = load(&path).expect("load");
        assert!(
            loaded.warnings.is_empty(),
            "case {case}: {:?}",
            loaded.warnings
        );
        let got: Vec<Vec<u8>> = loaded
            .events
            .iter()
            .map(|e| e.bytes().expect("payload").into_owned())
            .collect();
        assert!(got == sent, "case {case}");
    }
}
