//! One file of a followed session: where its reading stopped, the partial line it waits on,
//! its header, and the events it has read but not yet handed to the merge.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::trace::event::{Event, Header, TRACE_FORMAT_VERSION};
use crate::trace::file::{LineProblem, LoadWarning};

/// One file being followed.
pub(super) struct Member {
    pub(super) path: PathBuf,
    pub(super) file: Option<File>,
    pub(super) offset: u64,
    /// Bytes read after the last newline.
    pub(super) partial: Vec<u8>,
    /// Lines consumed so far (the header included).
    pub(super) line_no: usize,
    pub(super) header: Option<Header>,
    /// Set when the file turned out not to be a trace: it is no longer read.
    pub(super) rejected: bool,
    pub(super) last_seq: Option<u64>,
    /// The member's `seq` of each HTTP request -> its merged `seq` (for `in_reply_to`).
    pub(super) requests: HashMap<u64, u64>,
    /// Events read but not yet handed out.
    pub(super) queue: std::collections::VecDeque<Event>,
}

impl Member {
    pub(super) fn new(path: PathBuf) -> Member {
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

    pub(super) fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// `problem` as a problem of this file.
    pub(super) fn in_file(&self, problem: LineProblem) -> LineProblem {
        LineProblem::InFile {
            file: self.file_name(),
            problem: Box::new(problem),
        }
    }

    /// Reads what was appended since the last call and parses its complete lines.
    pub(super) fn read_new(&mut self, warnings: &mut Vec<LoadWarning>) {
        if self.rejected {
            return;
        }
        if self.file.is_none() {
            match crate::trace::file::open_regular(&self.path) {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    let detail = e.to_string();
                    self.reject(warnings, LineProblem::CannotOpen { detail });
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
                problem: self.in_file(LineProblem::Shrank {
                    from: self.offset,
                    to: len,
                }),
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
                    problem: self.in_file(LineProblem::ReadRetry {
                        detail: e.to_string(),
                    }),
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
                        let problem = LineProblem::TooNew {
                            found: h.sightline_trace,
                            supported: TRACE_FORMAT_VERSION,
                        };
                        self.reject(warnings, problem);
                        return;
                    }
                    Ok(h) => self.header = Some(h),
                    Err(e) => {
                        let detail = e.to_string();
                        self.reject(warnings, LineProblem::NotTrace { detail });
                        return;
                    }
                }
                continue;
            }
            match Event::from_line(line) {
                Ok(event) => {
                    if let Some(last) = self.last_seq
                        && event.seq != last.wrapping_add(1)
                    {
                        warnings.push(LoadWarning {
                            line: self.line_no,
                            problem: self.in_file(LineProblem::SeqGap {
                                seq: event.seq,
                                expected: last.wrapping_add(1),
                            }),
                        });
                    }
                    if let Some(problem) = crate::trace::file::payload_problem(&event) {
                        warnings.push(LoadWarning {
                            line: self.line_no,
                            problem: self.in_file(problem),
                        });
                    }
                    self.last_seq = Some(event.seq);
                    self.queue.push_back(event);
                }
                Err(e) => warnings.push(LoadWarning {
                    line: self.line_no,
                    problem: self.in_file(LineProblem::NotEvent {
                        detail: e.to_string(),
                    }),
                }),
            }
        }
    }

    pub(super) fn reject(&mut self, warnings: &mut Vec<LoadWarning>, problem: LineProblem) {
        self.rejected = true;
        self.file = None;
        warnings.push(LoadWarning {
            line: self.line_no.max(1),
            problem: self.in_file(problem),
        });
    }
}
