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

mod member;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::event::{Event, Header};
use super::file::{LineProblem, LoadWarning, LoadedTrace, TraceError};
use member::Member;

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
                problem: member.in_file(LineProblem::Truncated {
                    bytes: member.partial.len(),
                    detail: None,
                }),
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

impl Follower {
    /// Follows `path`: a trace file, or a session folder (every `*.jsonl` in it, present and
    /// future). Fails only when `path` cannot be read at all.
    pub fn new(path: &Path) -> Result<Follower, TraceError> {
        let meta = std::fs::metadata(path).map_err(|source| TraceError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        if !meta.is_dir() && !meta.is_file() {
            return Err(TraceError::Open {
                path: path.to_path_buf(),
                source: crate::trace::file::not_regular(&meta),
            });
        }
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
            if event.http().is_some_and(|h| h.method.is_some()) {
                member.requests.insert(event.seq, seq);
            }
            if let Some(Value::Number(n)) = event.extra().get("in_reply_to")
                && let Some(own) = n.as_u64()
            {
                let merged = member.requests.get(&own).copied();
                event.extra_mut().insert(
                    "in_reply_to".into(),
                    merged.map_or(Value::Null, Value::from),
                );
            }
            let origin = format!("{}#{}", member.file_name(), event.seq);
            event
                .extra_mut()
                .insert("origin".into(), Value::from(origin));
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
mod tests;
