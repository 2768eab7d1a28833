//! Writing many lines at once: the lines of several reads, formatted on two threads.
//!
//! A recorder that records beside forwarding (the stdio proxy's, see `tap::recorder`) hands
//! the writer everything that crossed since its last turn. Formatting is the cost (every byte
//! escaped once more), and it no longer sits in front of forwarding, so a big turn is split in
//! two by bytes: the second half is formatted into its own buffer on another thread while the
//! first goes into the writer's, then it is appended. The bytes are exactly those
//! [`TraceWriter::append_bytes`] writes for each line (the caches of the second half start
//! empty, which changes nothing but speed).

use std::io;
use std::ops::Range;

use base64::Engine as _;
use chrono::{DateTime, Utc};

use super::super::escape::escape_into;
use super::super::event::{Channel, Lane};
use super::super::file::TraceError;
use super::super::halves;
use super::{Heads, TraceWriter};

/// Below this many bytes of lines, one thread formats them all.
const PARALLEL_AT: usize = 256 << 10;

/// The lines of one read, written as consecutive events from `first_seq`: `data` holds them,
/// `spans` says where each is (without its newline).
#[derive(Clone, Copy)]
pub struct LineRun<'a> {
    pub first_seq: u64,
    pub time: DateTime<Utc>,
    pub from: &'a Lane,
    pub to: &'a Lane,
    pub channel: &'a Channel,
    pub data: &'a [u8],
    pub spans: &'a [Range<usize>],
}

impl LineRun<'_> {
    fn bytes(&self) -> usize {
        self.spans.iter().map(|s| s.len()).sum()
    }
}

impl TraceWriter {
    /// Appends the events of `runs`, in order, as [`append_bytes`](Self::append_bytes) would
    /// one line at a time.
    pub fn append_runs(&mut self, runs: &[LineRun<'_>]) -> Result<(), TraceError> {
        let total: usize = runs.iter().map(LineRun::bytes).sum();
        let result = if total < PARALLEL_AT || !halves::has_threads() {
            self.format_runs(runs)
        } else {
            let (first, second) = split(runs, total / 2);
            let (done, formatted) = halves::join(
                || self.format_runs(&first),
                || {
                    let mut buf = Vec::with_capacity(total + total / 2);
                    let mut heads = Heads::default();
                    for run in &second {
                        for (seq, span) in (run.first_seq..).zip(run.spans) {
                            line_event(&mut buf, &mut heads, run, seq, &run.data[span.clone()]);
                        }
                    }
                    buf
                },
            );
            done.and_then(|()| {
                self.out.buf.extend_from_slice(&formatted);
                self.out.spill_if_full()
            })
        };
        self.map_err(result)
    }

    fn format_runs(&mut self, runs: &[LineRun<'_>]) -> io::Result<()> {
        for run in runs {
            for (seq, span) in (run.first_seq..).zip(run.spans) {
                let line = &run.data[span.clone()];
                line_event(&mut self.out.buf, &mut self.heads, run, seq, line);
                self.out.spill_if_full()?;
            }
        }
        Ok(())
    }
}

/// One line's event, as `append_bytes` writes it.
fn line_event(buf: &mut Vec<u8>, heads: &mut Heads, run: &LineRun<'_>, seq: u64, line: &[u8]) {
    heads.begin(buf, seq, run.time, run.from, run.to, run.channel);
    if std::str::from_utf8(line).is_ok() {
        buf.extend_from_slice(b",\"raw\":\"");
        escape_into(buf, line);
    } else {
        buf.extend_from_slice(b",\"raw_b64\":\"");
        let at = buf.len();
        buf.resize(at + line.len().div_ceil(3) * 4, 0);
        let written = base64::engine::general_purpose::STANDARD
            .encode_slice(line, &mut buf[at..])
            .unwrap_or(0);
        buf.truncate(at + written);
    }
    buf.extend_from_slice(b"\"}\n");
}

/// `runs` cut in two where `half` bytes of lines have gone by (a run may be cut between two
/// of its lines).
fn split<'a>(runs: &[LineRun<'a>], half: usize) -> (Vec<LineRun<'a>>, Vec<LineRun<'a>>) {
    let mut seen = 0;
    for (i, run) in runs.iter().enumerate() {
        for (j, span) in run.spans.iter().enumerate() {
            seen += span.len();
            if seen >= half {
                let mut first = runs[..i].to_vec();
                first.push(LineRun {
                    spans: &run.spans[..=j],
                    ..*run
                });
                let mut second = vec![LineRun {
                    first_seq: run.first_seq + j as u64 + 1,
                    spans: &run.spans[j + 1..],
                    ..*run
                }];
                second.extend_from_slice(&runs[i + 1..]);
                return (first, second);
            }
        }
    }
    (runs.to_vec(), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::super::super::event::Header;
    use super::*;

    #[test]
    fn runs_on_two_threads_write_what_lines_one_by_one_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (host, server) = (Lane::Host, Lane::server("w"));
        let mut data = Vec::new();
        let mut spans = Vec::new();
        for i in 0..20_000 {
            let line: Vec<u8> = match i % 7 {
                0 => vec![0xff, b'"', i as u8],
                1 => Vec::new(),
                _ => format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"x\":\"\\n\u{1}é\"}}").into_bytes(),
            };
            let start = data.len();
            data.extend_from_slice(&line);
            spans.push(start..data.len());
            data.push(b'\n');
        }
        let t = super::super::super::now();
        let runs: Vec<LineRun<'_>> = spans
            .chunks(3000)
            .enumerate()
            .map(|(k, spans)| LineRun {
                first_seq: 5 + 3000 * k as u64,
                time: t + chrono::Duration::microseconds(k as i64 * 999_999),
                from: if k % 2 == 0 { &host } else { &server },
                to: if k % 2 == 0 { &server } else { &host },
                channel: &Channel::Stdio,
                data: &data,
                spans,
            })
            .collect();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        let mut w = TraceWriter::create(&a, &Header::new("t")).expect("create");
        w.append_runs(&runs).expect("runs");
        w.flush().expect("flush");
        let mut w = TraceWriter::create(&b, &Header::new("t")).expect("create");
        for run in &runs {
            for (seq, span) in (run.first_seq..).zip(run.spans) {
                let line = &run.data[span.clone()];
                w.append_bytes(seq, run.time, run.from, run.to, run.channel, line)
                    .expect("append");
            }
        }
        w.flush().expect("flush");
        let events = |path| {
            let text = std::fs::read(path).expect("read");
            let header_end = text.iter().position(|&b| b == b'\n').expect("header");
            text[header_end..].to_vec()
        };
        assert!(
            events(a) == events(b),
            "runs differ from lines written one by one"
        );
    }
}
