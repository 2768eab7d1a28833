//! Sessions: several recorders, one trace. Also: reading a trace while it is being written.
//!
//! A real host's loop crosses several processes: its LLM requests go through `sightline
//! llm-proxy`, each stdio server runs behind its own `sightline proxy`. Each of those writes its
//! own complete trace file (one writer per file, nothing to lock, and a crash of one loses
//! nothing of the others) into one session folder. Reading the folder merges them: events in
//! time order (all recorders share the machine's clock), each member's own order always kept,
//! `seq` renumbered for the merged trace, and each event's origin kept as `origin`
//! (`FILE#SEQ`), so "event #12" of the merged trace can be traced back to the line it came from.
//!
//! [`Follower`] does the same incrementally: each [`Follower::poll`] reads what was appended to
//! the file (or to any file of the folder, new files included) since the last poll. Partial last
//! lines wait for their newline. The app uses it to show a running session live; [`load_dir`]
//! is one poll over a finished folder.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::event::{Event, Header, TRACE_FORMAT_VERSION};
use super::file::{LoadWarning, LoadedTrace, TraceError};

/// Loads a session folder: every `*.jsonl` trace in it, merged. A file that is not a trace is
/// reported and left out; so is every bad line, by file and line number.
pub fn load_dir(dir: &Path) -> Result<LoadedTrace, TraceError> {
    let mut follower = Follower::new(dir)?;
    let events = follower.poll();
    let mut warnings = std::mem::take(&mut follower.warnings);
    for member in &follower.members {
        if !member.partial.is_empty() {
            warnings.push(LoadWarning {
                line: member.line_no + 1,
                message: format!(
                    "{}: the last line is truncated ({} bytes, no newline; the recorder was \
                     probably stopped while writing it), skipped",
                    member.file_name(),
                    member.partial.len()
                ),
            });
        }
    }
    if follower.members.iter().all(|m| m.header.is_none()) {
        return Err(TraceError::BadHeader(format!(
            "{} holds no Sightline trace (*.jsonl with a trace header)",
            dir.display()
        )));
    }
    Ok(LoadedTrace {
        header: follower.header(),
        events,
        warnings,
    })
}

/// Reads a trace file or a session folder as it grows.
pub struct Follower {
    root: PathBuf,
    /// True for a folder: events are merged and renumbered. A single file keeps its `seq`s.
    is_dir: bool,
    members: Vec<Member>,
    next_seq: u64,
    /// Problems met so far (bad lines, files that are not traces), by file and line.
    pub warnings: Vec<LoadWarning>,
}

/// One file being followed.
struct Member {
    path: PathBuf,
    file: Option<File>,
    offset: u64,
    /// Bytes read after the last newline.
    partial: Vec<u8>,
    /// Lines consumed so far (the header included).
    line_no: usize,
    header: Option<Header>,
    /// Set when the file turned out not to be a trace: it is no longer read.
    rejected: bool,
    last_seq: Option<u64>,
    /// The member's `seq` of each HTTP request -> its merged `seq` (for `in_reply_to`).
    requests: HashMap<u64, u64>,
    /// Events read but not yet handed out.
    queue: std::collections::VecDeque<Event>,
}

impl Member {
    fn new(path: PathBuf) -> Member {
        Member {
            path,
            file: None,
            offset: 0,
            partial: Vec::new(),
            line_no: 0,
            header: None,
            rejected: false,
            last_seq: None,
            requests: HashMap::new(),
            queue: std::collections::VecDeque::new(),
        }
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// Reads what was appended since the last call and parses its complete lines.
    fn read_new(&mut self, warnings: &mut Vec<LoadWarning>) {
        if self.rejected {
            return;
        }
        if self.file.is_none() {
            match File::open(&self.path) {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    self.reject(warnings, format!("cannot open: {e}"));
                    return;
                }
            }
        }
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(self.offset);
        if len < self.offset {
            warnings.push(LoadWarning {
                line: self.line_no,
                message: format!(
                    "{}: the file shrank from {} to {len} bytes (rewritten?); following it \
                     from its new end",
                    self.file_name(),
                    self.offset
                ),
            });
            self.offset = len;
            self.partial.clear();
            return;
        }
        if len == self.offset {
            return;
        }
        let mut buf = std::mem::take(&mut self.partial);
        let read = file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.by_ref().take(len - self.offset).read_to_end(&mut buf));
        match read {
            Ok(n) => self.offset += n as u64,
            Err(e) => {
                warnings.push(LoadWarning {
                    line: self.line_no + 1,
                    message: format!("{}: read error, will retry: {e}", self.file_name()),
                });
            }
        }
        let complete = buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        self.partial = buf.split_off(complete);
        for line in buf.split_inclusive(|&b| b == b'\n') {
            self.line_no += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if self.header.is_none() {
                match serde_json::from_slice::<Header>(line) {
                    Ok(h) if h.sightline_trace > TRACE_FORMAT_VERSION => {
                        let message = format!(
                            "trace format version {} is newer than this Sightline \
                             understands ({TRACE_FORMAT_VERSION}); file skipped",
                            h.sightline_trace
                        );
                        self.reject(warnings, message);
                        return;
                    }
                    Ok(h) => self.header = Some(h),
                    Err(e) => {
                        self.reject(warnings, format!("not a Sightline trace, skipped: {e}"));
                        return;
                    }
                }
                continue;
            }
            match serde_json::from_slice::<Event>(line) {
                Ok(event) => {
                    if let Some(last) = self.last_seq
                        && event.seq != last.wrapping_add(1)
                    {
                        warnings.push(LoadWarning {
                            line: self.line_no,
                            message: format!(
                                "{}: seq is {} where {} was expected: events are missing or \
                                 out of order",
                                self.file_name(),
                                event.seq,
                                last.wrapping_add(1)
                            ),
                        });
                    }
                    if let Some(problem) = super::file::payload_problem(&event) {
                        warnings.push(LoadWarning {
                            line: self.line_no,
                            message: format!("{}: {problem}", self.file_name()),
                        });
                    }
                    self.last_seq = Some(event.seq);
                    self.queue.push_back(event);
                }
                Err(e) => warnings.push(LoadWarning {
                    line: self.line_no,
                    message: format!("{}: not a valid event, skipped: {e}", self.file_name()),
                }),
            }
        }
    }

    fn reject(&mut self, warnings: &mut Vec<LoadWarning>, message: String) {
        self.rejected = true;
        self.file = None;
        warnings.push(LoadWarning {
            line: self.line_no.max(1),
            message: format!("{}: {message}", self.file_name()),
        });
    }
}

impl Follower {
    /// Follows `path`: a trace file, or a session folder (every `*.jsonl` in it, present and
    /// future). Fails only when `path` cannot be read at all.
    pub fn new(path: &Path) -> Result<Follower, TraceError> {
        let meta = std::fs::metadata(path).map_err(|source| TraceError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let mut follower = Follower {
            root: path.to_path_buf(),
            is_dir: meta.is_dir(),
            members: Vec::new(),
            next_seq: 0,
            warnings: Vec::new(),
        };
        if !follower.is_dir {
            follower.members.push(Member::new(path.to_path_buf()));
        }
        Ok(follower)
    }

    /// The file or folder being followed.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// How many trace files are being read (1 for a single file).
    pub fn member_count(&self) -> usize {
        self.members
            .iter()
            .filter(|m| m.header.is_some() && !m.rejected)
            .count()
    }

    /// The header of the merged trace: a single file's own; for a folder, one that names the
    /// session and its members.
    pub fn header(&self) -> Header {
        let headers: Vec<(&Member, &Header)> = self
            .members
            .iter()
            .filter_map(|m| m.header.as_ref().map(|h| (m, h)))
            .collect();
        if !self.is_dir {
            return headers
                .first()
                .map_or_else(|| Header::new(""), |(_, h)| (*h).clone());
        }
        let name = self
            .root
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut header = Header::new(format!(
            "session {name}: {}",
            headers
                .iter()
                .map(|(_, h)| h.title.as_str())
                .collect::<Vec<_>>()
                .join(" + ")
        ));
        if let Some(first) = headers.iter().map(|(_, h)| h.created.as_str()).min() {
            header.created = first.to_string();
        }
        header
            .extra
            .insert("session".into(), Value::from(name.as_str()));
        header.extra.insert(
            "members".into(),
            Value::from(
                headers
                    .iter()
                    .map(|(m, _)| Value::from(m.file_name()))
                    .collect::<Vec<_>>(),
            ),
        );
        header
    }

    /// The events appended since the last poll, in time order. For a folder they are
    /// renumbered and carry their `origin`.
    pub fn poll(&mut self) -> Vec<Event> {
        if self.is_dir {
            self.discover();
        }
        for member in &mut self.members {
            member.read_new(&mut self.warnings);
        }
        if !self.is_dir {
            return self
                .members
                .iter_mut()
                .flat_map(|m| m.queue.drain(..))
                .collect();
        }
        // Merge: always take the earliest head, so each member's own order is kept even if
        // its clock stepped back.
        let mut out = Vec::new();
        loop {
            let next = self
                .members
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.queue.front().map(|e| (e.time, i)))
                .min();
            let Some((_, i)) = next else { break };
            let member = &mut self.members[i];
            let Some(mut event) = member.queue.pop_front() else {
                break;
            };
            let seq = self.next_seq;
            self.next_seq += 1;
            if event.http.as_ref().is_some_and(|h| h.method.is_some()) {
                member.requests.insert(event.seq, seq);
            }
            if let Some(Value::Number(n)) = event.extra.get("in_reply_to")
                && let Some(own) = n.as_u64()
            {
                let merged = member.requests.get(&own).copied();
                event.extra.insert(
                    "in_reply_to".into(),
                    merged.map_or(Value::Null, Value::from),
                );
            }
            event.extra.insert(
                "origin".into(),
                Value::from(format!("{}#{}", member.file_name(), event.seq)),
            );
            event.seq = seq;
            out.push(event);
        }
        out
    }

    /// Starts reading the folder's `*.jsonl` files not seen yet, oldest name first.
    fn discover(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        let mut new: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
            .filter(|p| !self.members.iter().any(|m| &m.path == p))
            .collect();
        new.sort();
        self.members.extend(new.into_iter().map(Member::new));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::trace::{Channel, HttpInfo, Lane, TraceWriter};

    fn at(ms: i64) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + ms).unwrap_or_default()
    }

    fn event(seq: u64, ms: i64, from: Lane, to: Lane, raw: &str) -> Event {
        Event::with_bytes(
            seq,
            at(ms),
            from,
            to,
            Channel::Stdio,
            raw.as_bytes().to_vec(),
        )
    }

    fn write(path: &Path, title: &str, events: &[Event]) {
        let mut w = TraceWriter::create(path, &Header::new(title)).expect("create");
        for e in events {
            w.append(e).expect("append");
        }
        w.flush().expect("flush");
    }

    #[test]
    fn a_folder_merges_by_time_keeping_each_members_order_and_origin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = || Lane::server("weather");
        write(
            &dir.path().join("a-llm.jsonl"),
            "llm",
            &[
                event(0, 0, Lane::Host, Lane::Llm, "request 1"),
                event(1, 30, Lane::Llm, Lane::Host, "tool_use"),
                event(2, 90, Lane::Host, Lane::Llm, "request 2"),
            ],
        );
        write(
            &dir.path().join("b-weather.jsonl"),
            "weather",
            &[
                event(0, 50, Lane::Host, w(), "tools/call"),
                event(1, 60, w(), Lane::Host, "result"),
                // A clock stepped back: still after its predecessor in this member.
                event(2, 55, w(), Lane::Host, "late log"),
            ],
        );
        std::fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
        std::fs::write(dir.path().join("junk.jsonl"), "{\"a\":1}\n").expect("write");
        let loaded = load_dir(dir.path()).expect("load");
        let order: Vec<&str> = loaded
            .events
            .iter()
            .map(|e| e.raw.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            order,
            [
                "request 1",
                "tool_use",
                "tools/call",
                "result",
                "late log",
                "request 2"
            ]
        );
        let seqs: Vec<u64> = loaded.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3, 4, 5]);
        assert_eq!(
            loaded.events[2].extra.get("origin"),
            Some(&Value::from("b-weather.jsonl#0"))
        );
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(
            loaded.warnings[0]
                .message
                .starts_with("junk.jsonl: not a Sightline trace")
        );
        assert_eq!(
            loaded
                .header
                .extra
                .get("members")
                .map(|m| m.to_string())
                .as_deref(),
            Some(r#"["a-llm.jsonl","b-weather.jsonl"]"#)
        );
    }

    #[test]
    fn in_reply_to_follows_the_renumbering() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = || Lane::server("everything");
        write(
            &dir.path().join("a.jsonl"),
            "a",
            &[event(0, 0, Lane::Host, Lane::Llm, "x")],
        );
        let mut post = event(0, 10, Lane::Host, s(), "{}");
        post.channel = Channel::Http;
        post.http = Some(Box::new(HttpInfo {
            method: Some("POST".into()),
            ..HttpInfo::default()
        }));
        let mut answer = event(1, 20, s(), Lane::Host, "{}");
        answer.channel = Channel::Http;
        answer.extra.insert("in_reply_to".into(), Value::from(0));
        write(&dir.path().join("b.jsonl"), "b", &[post, answer]);
        let loaded = load_dir(dir.path()).expect("load");
        assert_eq!(
            loaded.events[2].extra.get("in_reply_to"),
            Some(&Value::from(1))
        );
    }

    #[test]
    fn following_reads_appended_lines_and_new_files_and_waits_for_newlines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.jsonl");
        write(&a, "a", &[event(0, 0, Lane::Host, Lane::Llm, "one")]);
        let mut follower = Follower::new(dir.path()).expect("follow");
        assert_eq!(follower.poll().len(), 1);
        assert!(follower.poll().is_empty());

        // Half a line, then the rest.
        let line = serde_json::to_string(&event(1, 5, Lane::Llm, Lane::Host, "two")).expect("json");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&a)
            .expect("open");
        file.write_all(&line.as_bytes()[..10]).expect("write");
        file.flush().expect("flush");
        assert!(follower.poll().is_empty());
        file.write_all(&line.as_bytes()[10..]).expect("write");
        file.write_all(b"\n").expect("write");
        let got = follower.poll();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].seq, 1);
        assert_eq!(got[0].raw.as_deref(), Some("two"));

        // A new member joins.
        write(
            &dir.path().join("b.jsonl"),
            "b",
            &[event(0, 7, Lane::Host, Lane::server("w"), "three")],
        );
        let got = follower.poll();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].seq, 2);
        assert_eq!(follower.member_count(), 2);
        assert!(follower.warnings.is_empty(), "{:?}", follower.warnings);
    }

    #[test]
    fn a_single_file_keeps_its_seqs_and_header() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.jsonl");
        write(&a, "solo", &[event(5, 0, Lane::Host, Lane::Llm, "x")]);
        let mut follower = Follower::new(&a).expect("follow");
        let got = follower.poll();
        assert_eq!(got[0].seq, 5);
        assert!(!got[0].extra.contains_key("origin"));
        assert_eq!(follower.header().title, "solo");
    }

    #[test]
    fn an_empty_folder_is_not_a_trace() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            load_dir(dir.path()),
            Err(TraceError::BadHeader(_))
        ));
    }
}
