//! The raw journal beside a trace: what a tap forwarded, before it was made into events.
//!
//! Formatting an event (escaping, timestamp, `seq`) costs far more than copying the bytes, so
//! a tap does not make the events of a chunk before forwarding it: it appends the chunk as it
//! read it to `<trace>.journal` (one `write(2)`: in the page cache once it returns, so it
//! survives a SIGKILL of the recorder as the trace's own unflushed writes would), forwards it,
//! and a recorder thread turns the journal into events beside forwarding. Each chunk carries
//! the `seq` of the first line it completes (the tap counts newlines), so `seq`s are given in
//! the order the bytes crossed, and an answer never gets an earlier one than what it answers.
//! On a clean exit the trace is complete and the journal removed. After a crash,
//! [`recover_into`] (called by [`super::load`]) adds the events the journal holds beyond the
//! trace's last `seq`, with a warning that says so. The format is in `docs/trace-format.md`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, IoSlice, Seek as _, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::event::{Channel, Event, Lane};
use super::file::{LoadWarning, LoadedTrace};

/// The first bytes of every journal.
const MAGIC: &[u8] = b"sightline-journal 1\n";
/// A record: tag, stream, seq, time (microseconds since 1970), payload length; then the payload.
const HEAD: usize = 1 + 4 + 8 + 8 + 4;

/// A stream's route: payload `{"from":..,"to":..,"channel":..}`.
const DECLARE: u8 = b'S';
/// Bytes that crossed on a stream; `seq` is that of the first line they complete.
const CHUNK: u8 = b'C';
/// The stream ended with an unterminated line, which gets `seq`.
const TAIL: u8 = b'T';
/// The start of a stream's unfinished line, written again after the journal was emptied.
const CARRY: u8 = b'K';

/// Where the journal of the trace at `trace` goes: `<trace>.journal`.
pub fn journal_path(trace: &Path) -> PathBuf {
    let mut name = trace.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Route {
    from: Lane,
    to: Lane,
    channel: Channel,
}

/// Appends records to a journal. Each record is one `write(2)` (a torn last record, from a kill
/// in the middle of one, is ignored on recovery: its bytes were not forwarded yet).
pub struct JournalWriter {
    path: PathBuf,
    file: File,
    len: u64,
}

impl JournalWriter {
    /// Creates (or truncates) the journal at `path`.
    pub fn create(path: &Path) -> io::Result<JournalWriter> {
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        file.write_all(MAGIC)?;
        Ok(JournalWriter {
            path: path.to_path_buf(),
            file,
            len: MAGIC.len() as u64,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The journal's size: where the next record goes.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len <= MAGIC.len() as u64
    }

    /// A handle to read records back by their offsets.
    pub fn reader(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// Declares stream `stream`: the route of its bytes.
    pub fn declare(
        &mut self,
        stream: u32,
        from: &Lane,
        to: &Lane,
        channel: &Channel,
    ) -> io::Result<()> {
        let route = Route {
            from: from.clone(),
            to: to.clone(),
            channel: channel.clone(),
        };
        let json = serde_json::to_vec(&route).map_err(io::Error::other)?;
        self.record(DECLARE, stream, 0, None, &json).map(drop)
    }

    /// Appends bytes that crossed on `stream` at `time`, the first line they complete getting
    /// `first_seq`. Returns the offset of the bytes in the journal.
    pub fn chunk(
        &mut self,
        stream: u32,
        first_seq: u64,
        time: DateTime<Utc>,
        bytes: &[u8],
    ) -> io::Result<u64> {
        self.record(CHUNK, stream, first_seq, Some(time), bytes)
    }

    /// Records that `stream` ended with an unterminated line, which gets `seq`.
    pub fn tail(&mut self, stream: u32, seq: u64, time: DateTime<Utc>) -> io::Result<()> {
        self.record(TAIL, stream, seq, Some(time), &[]).map(drop)
    }

    /// Writes again the start of `stream`'s unfinished line (after [`Self::clear`]).
    pub fn carry(&mut self, stream: u32, bytes: &[u8]) -> io::Result<()> {
        self.record(CARRY, stream, 0, None, bytes).map(drop)
    }

    /// Empties the journal (everything in it is in the trace); the caller declares its
    /// streams and carries their unfinished lines again.
    pub fn clear(&mut self) -> io::Result<()> {
        self.file.set_len(MAGIC.len() as u64)?;
        self.file.seek(io::SeekFrom::Start(MAGIC.len() as u64))?;
        self.len = MAGIC.len() as u64;
        Ok(())
    }

    fn record(
        &mut self,
        tag: u8,
        stream: u32,
        seq: u64,
        time: Option<DateTime<Utc>>,
        payload: &[u8],
    ) -> io::Result<u64> {
        let len = u32::try_from(payload.len()).map_err(io::Error::other)?;
        let mut head = [0u8; HEAD];
        head[0] = tag;
        head[1..5].copy_from_slice(&stream.to_le_bytes());
        head[5..13].copy_from_slice(&seq.to_le_bytes());
        let micros = time.map_or(0, |t| t.timestamp_micros());
        head[13..21].copy_from_slice(&micros.to_le_bytes());
        head[21..25].copy_from_slice(&len.to_le_bytes());
        let at = self.len;
        let result = self.write_at_end(&head, payload);
        if result.is_err() {
            // A record written in part is overwritten by the next one.
            let _ = self.file.seek(io::SeekFrom::Start(at));
        }
        result?;
        self.len = at + (HEAD + payload.len()) as u64;
        Ok(at + HEAD as u64)
    }

    /// `head` and `payload` at the file's position, in one `writev(2)` unless it writes less.
    fn write_at_end(&mut self, head: &[u8], payload: &[u8]) -> io::Result<()> {
        let total = head.len() + payload.len();
        let mut done = 0;
        while done < total {
            let n = if done < head.len() {
                self.file
                    .write_vectored(&[IoSlice::new(&head[done..]), IoSlice::new(payload)])
            } else {
                self.file.write(&payload[done - head.len()..])
            };
            match n {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Removes the journal (the trace holds everything in it).
    pub fn remove(self) -> io::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
    }
}

/// The events a journal holds, in `seq` order, as the recorder would have written them.
pub fn events(journal: &[u8]) -> Result<Vec<Event>, String> {
    let rest = journal
        .strip_prefix(MAGIC)
        .ok_or_else(|| "not a Sightline journal (no `sightline-journal 1` header)".to_string())?;
    let mut streams: HashMap<u32, (Route, Vec<u8>)> = HashMap::new();
    let mut out = Vec::new();
    let mut at = 0;
    while rest.len() - at >= HEAD {
        let head = &rest[at..at + HEAD];
        let word = |r: std::ops::Range<usize>| {
            let mut b = [0u8; 8];
            b[..r.len()].copy_from_slice(&head[r]);
            u64::from_le_bytes(b)
        };
        let (tag, stream, seq) = (head[0], word(1..5) as u32, word(5..13));
        let micros = word(13..21) as i64;
        let len = word(21..25) as usize;
        let Some(payload) = rest.get(at + HEAD..at + HEAD + len) else {
            break; // torn by a kill mid-write: not forwarded
        };
        at += HEAD + len;
        let time = DateTime::from_timestamp_micros(micros).unwrap_or_default();
        if tag == DECLARE {
            let route: Route = serde_json::from_slice(payload)
                .map_err(|e| format!("a stream declaration is not valid: {e}"))?;
            streams.insert(stream, (route, Vec::new()));
            continue;
        }
        let Some((route, partial)) = streams.get_mut(&stream) else {
            return Err(format!("stream {stream} is used before it is declared"));
        };
        let event = |seq: u64, bytes: Vec<u8>| {
            Event::with_bytes(
                seq,
                time,
                route.from.clone(),
                route.to.clone(),
                route.channel.clone(),
                bytes,
            )
        };
        match tag {
            CHUNK => {
                let mut start = 0;
                for (i, end) in memchr::memchr_iter(b'\n', payload).enumerate() {
                    partial.extend_from_slice(&payload[start..end]);
                    out.push(event(seq + i as u64, std::mem::take(partial)));
                    start = end + 1;
                }
                partial.extend_from_slice(&payload[start..]);
            }
            TAIL if !partial.is_empty() => out.push(event(seq, std::mem::take(partial))),
            TAIL => {}
            CARRY => *partial = payload.to_vec(),
            other => return Err(format!("unknown record type {other}")),
        }
    }
    out.sort_by_key(|e| e.seq);
    Ok(out)
}

/// Adds to `loaded` (the trace at `trace`) the events its journal holds beyond the trace's
/// last `seq`: what the recorder had forwarded but not yet written when it was killed (or, for
/// a recording still going on, not written yet), with a warning that says so.
pub fn recover_into(trace: &Path, loaded: &mut LoadedTrace, next_line: usize) {
    let path = journal_path(trace);
    let Ok(bytes) = std::fs::read(&path) else {
        return;
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let recovered = match events(&bytes) {
        Ok(events) => events,
        Err(e) => {
            loaded.warnings.push(LoadWarning {
                line: next_line,
                message: format!("the journal {name} cannot be read: {e}"),
            });
            return;
        }
    };
    let last = loaded.events.iter().map(|e| e.seq).max();
    let missing: Vec<Event> = recovered
        .into_iter()
        .filter(|e| last.is_none_or(|last| e.seq > last))
        .collect();
    let (Some(first), Some(end)) = (missing.first(), missing.last()) else {
        return;
    };
    loaded.warnings.push(LoadWarning {
        line: next_line,
        message: format!(
            "{} events (seq {} to {}) recovered from the journal {name}: they were forwarded \
             but not yet written to the trace (the recorder was killed, or is still recording)",
            missing.len(),
            first.seq,
            end.seq
        ),
    });
    loaded.events.extend(missing);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_gives_back_its_lines_with_their_seqs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl.journal");
        let mut j = JournalWriter::create(&path).expect("create");
        let (host, server) = (Lane::Host, Lane::server("w"));
        let t = super::super::now();
        j.declare(0, &host, &server, &Channel::Stdio)
            .expect("declare");
        j.declare(1, &server, &host, &Channel::Stderr)
            .expect("declare");
        j.chunk(0, 0, t, b"a\nb").expect("chunk");
        j.chunk(1, 1, t, b"x\xff\n").expect("chunk");
        j.chunk(0, 2, t, b"c\n\nd").expect("chunk");
        j.tail(0, 4, t).expect("tail");
        j.chunk(1, 5, t, b"late").expect("chunk");
        let bytes = std::fs::read(&path).expect("read");
        let got: Vec<(u64, Vec<u8>)> = events(&bytes)
            .expect("events")
            .iter()
            .map(|e| (e.seq, e.bytes().expect("bytes").into_owned()))
            .collect();
        let want: Vec<(u64, Vec<u8>)> = vec![
            (0, b"a".to_vec()),
            (1, b"x\xff".to_vec()),
            (2, b"bc".to_vec()),
            (3, b"".to_vec()),
            (4, b"d".to_vec()),
        ];
        assert_eq!(got, want);
        // A record torn anywhere is ignored, and everything before it kept.
        for cut in MAGIC.len()..bytes.len() {
            let got = events(&bytes[..cut]).expect("events");
            assert!(got.len() <= want.len(), "cut at {cut}");
        }
        // Emptied, with the unfinished line carried: the same lines after.
        j.clear().expect("clear");
        j.declare(0, &host, &server, &Channel::Stdio)
            .expect("declare");
        j.carry(0, b"pre").expect("carry");
        j.chunk(0, 9, t, b"fix\n").expect("chunk");
        let bytes = std::fs::read(&path).expect("read");
        let got = events(&bytes).expect("events");
        assert_eq!((got[0].seq, got[0].raw.as_deref()), (9, Some("prefix")));
    }
}
