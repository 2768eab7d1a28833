//! The trace store: the events the app shows and everything derived from them.
//!
//! The store is the app's one copy of the data. Events are only ever appended (a live run adds
//! what it recorded since the last frame, a followed session what its files gained); the
//! analysis and the diagram model are extended with what new events change
//! ([`Incremental`], [`Diagram::extend`]), never recomputed whole. Panels get shared
//! references and never change it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use super::sys::{lower_this_threads_priority, release_freed_memory};
use crate::analysis::diagram::{self, Diagram, RowText};
use crate::analysis::findings::{Findings, Staged};
use crate::analysis::{self, Incremental, Report};
use crate::trace::Events;
use crate::trace::{Event, LoadWarning, TraceError};
use search::ByteSets;

pub mod search;
#[cfg(test)]
mod tests;

/// Where the events came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A saved trace file.
    File(PathBuf),
    /// A scenario running now; the path is the trace it writes.
    Live { scenario: String, path: PathBuf },
    /// A trace file or session folder other processes are writing, followed as it grows.
    Follow(PathBuf),
    /// Events handed over directly (tests, benchmarks).
    Memory,
}

impl Source {
    /// The trace file behind the events, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::File(p) | Source::Follow(p) | Source::Live { path: p, .. } => Some(p),
            Source::Memory => None,
        }
    }
}

/// Traces with fewer events than this have their findings computed while opening; bigger ones
/// on a background thread, so the diagram shows before the doctor has finished.
pub const BACKGROUND_FINDINGS_FROM: usize = 20_000;

/// Traces with at least this many events get the message list's byte sets
/// ([`ByteSets`]): below it, a text filter reads every row in a few milliseconds.
pub const BYTE_SETS_FROM: usize = 20_000;

/// How long a frame works on the findings where there are no threads ([`LazyFindings::step`])
/// and the platform does not say (the browser gives them what the drawing leaves of a frame):
/// half of a 60 Hz frame, the other half left to drawing it.
pub const STEP_BUDGET: std::time::Duration = std::time::Duration::from_millis(8);

/// The findings of a store: ready, being computed on a background thread, or (where there are
/// no threads: the browser) waiting to be computed by [`Self::step`], a few milliseconds of
/// each frame once the diagram is on screen. Until they are ready it dereferences to no
/// findings at all.
#[derive(Clone)]
pub struct LazyFindings {
    cell: Arc<OnceLock<Findings>>,
    /// The analyses still to run here, with what they read.
    pending: Option<Arc<Mutex<Pending>>>,
    /// False for the findings of a trace still being read, which are not computed at all.
    started: bool,
}

struct Pending {
    staged: Staged,
    events: Events,
    report: Arc<Report>,
}

impl LazyFindings {
    fn start(events: &Events, report: &Arc<Report>) -> LazyFindings {
        let cell = Arc::new(OnceLock::new());
        // Where no thread can be started (the browser, which says so by knowing no parallelism)
        // even a small trace's findings wait for the frames after its first diagram: there
        // they are the longest part of opening it (the schema check compiles its validators).
        let threads = std::thread::available_parallelism().is_ok();
        if events.len() < BACKGROUND_FINDINGS_FROM && threads {
            let _ = cell.set(Findings::compute(events, report));
            return LazyFindings {
                cell,
                pending: None,
                started: true,
            };
        }
        let (ev, rep, slot) = (events.clone(), Arc::clone(report), cell.clone());
        let spawned = std::thread::Builder::new()
            .name("sightline-findings".into())
            .spawn(move || {
                lower_this_threads_priority();
                let findings = Findings::compute(&ev, &rep);
                // The doctor and the scans of a big trace free hundreds of MB of
                // intermediate data on this thread; give it back before the findings are
                // ready, so that the memory of a trace whose findings are ready is its own.
                release_freed_memory();
                let _ = slot.set(findings);
            });
        // No threads (the browser): the frames after the first do the work.
        let pending = spawned.is_err().then(|| {
            Arc::new(Mutex::new(Pending {
                staged: Staged::default(),
                events: events.clone(),
                report: Arc::clone(report),
            }))
        });
        LazyFindings {
            cell,
            pending,
            started: true,
        }
    }

    /// No findings, and none being computed: those of a trace still being read.
    fn not_started() -> LazyFindings {
        LazyFindings {
            cell: Arc::new(OnceLock::new()),
            pending: None,
            started: false,
        }
    }

    /// The findings of a growing trace's `events` so far, computed on a background thread
    /// that analyses them itself: the store's report is updated in place by the next append
    /// and cannot be shared with the thread. Small traces' findings are computed here, with
    /// `report`, as [`LazyFindings::start`] does.
    fn start_own(events: &Events, report: &Arc<Report>) -> LazyFindings {
        if events.len() < BACKGROUND_FINDINGS_FROM || !crate::trace::halves::has_threads() {
            return LazyFindings::start(events, report);
        }
        let cell = Arc::new(OnceLock::new());
        let (ev, slot) = (events.clone(), cell.clone());
        let spawned = std::thread::Builder::new()
            .name("sightline-findings".into())
            .spawn(move || {
                lower_this_threads_priority();
                let report = analysis::report(&ev);
                let findings = Findings::compute(&ev, &report);
                drop((report, ev));
                release_freed_memory();
                let _ = slot.set(findings);
            });
        match spawned {
            Ok(_) => LazyFindings {
                cell,
                pending: None,
                started: true,
            },
            Err(_) => LazyFindings::start(events, report),
        }
    }

    /// The longest step of each stage of the findings computed here, a few milliseconds of
    /// each frame (none where a thread computes them), in milliseconds.
    pub fn steps_ms(&self) -> Vec<(&'static str, f64)> {
        let Some(Ok(p)) = self.pending.as_ref().map(|p| p.lock()) else {
            return Vec::new();
        };
        p.staged.longest().collect()
    }

    /// Whether the findings have been computed (false while the background thread works).
    pub fn is_ready(&self) -> bool {
        self.cell.get().is_some()
    }

    /// Works on the analyses left to this thread for about `budget` (one slice of a stage at
    /// least), if any are left; true when there were (so the caller asks for another frame).
    pub fn step(&self, budget: std::time::Duration) -> bool {
        let Some(pending) = &self.pending else {
            return false;
        };
        if self.is_ready() {
            return false;
        }
        let Ok(mut p) = pending.lock() else {
            return false;
        };
        let Pending {
            staged,
            events,
            report,
        } = &mut *p;
        if let Some(findings) = staged.step(events, report, budget) {
            let _ = self.cell.set(findings);
        }
        true
    }
}

impl std::ops::Deref for LazyFindings {
    type Target = Findings;

    fn deref(&self) -> &Findings {
        static NONE: LazyLock<Findings> =
            LazyLock::new(|| Findings::compute(&[], &analysis::report(&[])));
        self.cell.get().unwrap_or(&NONE)
    }
}

/// The events and what they mean.
pub struct TraceStore {
    pub title: String,
    pub source: Source,
    pub events: Events,
    pub report: Arc<Report>,
    pub diagram: Diagram,
    /// The doctor's, the schema check's, the poisoning scan's and the pins' findings,
    /// recomputed with the report (on a background thread for big traces; empty until ready).
    pub findings: LazyFindings,
    /// Lines of the file that could not be read (shown in the status bar).
    pub warnings: Vec<LoadWarning>,
    /// Bumped whenever `events` grows, so panels can tell their caches are stale.
    pub generation: u64,
    /// The analysis state of a store that grows (followed, live), made on its first append
    /// when it was not opened as one.
    incremental: Option<Incremental>,
    /// Events were appended since the findings' snapshot was taken.
    findings_stale: bool,
    /// The bytes each row holds, for the message list's text filter (big traces that do not
    /// grow; made on a background thread).
    pub byte_sets: ByteSets,
    /// The language rows are said in (a process's notes): the app's, set before each frame.
    pub lang: crate::i18n::Language,
}

impl TraceStore {
    pub fn new(title: String, source: Source, events: Vec<Event>) -> TraceStore {
        let grows = matches!(source, Source::Follow(_) | Source::Live { .. });
        let (incremental, report) = if grows {
            let (incremental, report) = Incremental::start(&events);
            (Some(incremental), report)
        } else {
            (None, analysis::report(&events))
        };
        let diagram = diagram::build(&events, &report);
        let mut events = Events::from(events);
        if grows {
            // Room to grow in place while the findings' thread reads what is there.
            events.reserve(events.len() / 2 + 1024);
        }
        let report = Arc::new(report);
        if events.len() >= BACKGROUND_FINDINGS_FROM {
            // Loading and laying out freed the file's text and the per-thread row lists.
            release_freed_memory();
        }
        let findings = if grows {
            LazyFindings::start_own(&events, &report)
        } else {
            LazyFindings::start(&events, &report)
        };
        let byte_sets =
            if !grows && events.len() >= BYTE_SETS_FROM && crate::trace::halves::has_threads() {
                ByteSets::start(&events, &report, crate::i18n::Language::En)
            } else {
                ByteSets::default()
            };
        TraceStore {
            title,
            source,
            events,
            report,
            diagram,
            findings,
            warnings: Vec::new(),
            generation: 0,
            incremental,
            findings_stale: false,
            byte_sets,
            lang: crate::i18n::Language::En,
        }
    }

    /// The first events of a trace still being read (the browser's, while it reads the rest
    /// between frames): its diagram, which [`Self::grow`] extends with the events read next,
    /// and no findings until [`Self::settle`] once the last one is read. `events` is best
    /// given with the capacity of the whole trace (they grow in place, and so do their
    /// interpretations and rows).
    pub fn preview(title: String, events: Vec<Event>) -> TraceStore {
        let (incremental, mut report) = Incremental::start(&events);
        let mut diagram = diagram::build(&events, &report);
        // The rest's interpretations and rows too: a list of 100,000 that outgrows its memory
        // is copied whole into a bigger one, in one frame (11 ms for the interpretations).
        let rest = events.capacity() - events.len();
        report.rpc.derived.reserve_exact(rest);
        diagram.rows.reserve_exact(rest);
        TraceStore {
            title,
            source: Source::Memory,
            events: Events::from(events),
            report: Arc::new(report),
            diagram,
            findings: LazyFindings::not_started(),
            warnings: Vec::new(),
            generation: 0,
            incremental: Some(incremental),
            findings_stale: true,
            byte_sets: ByteSets::default(),
            lang: crate::i18n::Language::En,
        }
    }

    /// Loads a saved trace; unreadable lines become warnings.
    pub fn open(path: &Path) -> Result<TraceStore, TraceError> {
        let loaded = crate::trace::load(path)?;
        let title = if loaded.header.title.is_empty() {
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        } else {
            loaded.header.title.clone()
        };
        let mut store = TraceStore::new(title, Source::File(path.to_path_buf()), loaded.events);
        store.warnings = loaded.warnings;
        Ok(store)
    }

    /// Appends newly recorded events: their analysis and rows, and what they change of the
    /// earlier ones ([`Incremental`]); the findings are made again on a background thread
    /// (big traces) once the previous ones are done, and shown until then.
    pub fn append(&mut self, new: Vec<Event>) {
        self.grow(new);
        self.refresh_findings();
    }

    /// Appends events as [`Self::append`] does, leaving the findings as they are (out of date)
    /// until [`Self::settle`]: for a caller that appends a little every frame and computes the
    /// findings once no more events are coming (the browser reading a page's trace).
    pub fn grow(&mut self, new: Vec<Event>) {
        if new.is_empty() {
            return;
        }
        let from = self.events.len();
        self.events.append(new);
        self.byte_sets = ByteSets::default();
        match &mut self.incremental {
            Some(incremental) => {
                let report = Arc::make_mut(&mut self.report);
                let dirty = incremental.extend(&self.events, report);
                self.diagram.extend(&self.events, report, from, &dirty);
            }
            None => {
                let (incremental, report) = Incremental::start(&self.events);
                self.diagram = diagram::build(&self.events, &report);
                self.report = Arc::new(report);
                self.incremental = Some(incremental);
            }
        }
        self.findings_stale = true;
        self.generation += 1;
    }

    /// Starts the findings of the events so far if they are out of date and none are being
    /// computed (after [`Self::grow`]).
    pub fn settle(&mut self) {
        self.refresh_findings();
    }

    /// Starts the findings of the events so far if they are out of date and none are being
    /// computed.
    fn refresh_findings(&mut self) {
        let busy = self.events.len() >= BACKGROUND_FINDINGS_FROM
            && self.findings.started
            && !self.findings.is_ready();
        if self.findings_stale && !busy {
            self.findings = LazyFindings::start_own(&self.events, &self.report);
            self.findings_stale = false;
        }
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The index of the event with `seq` (the last one with it: [`crate::trace::Seqs`]).
    pub fn index_of_seq(&self, seq: u64) -> Option<usize> {
        self.report.rpc.index_of(&self.events, seq)
    }

    /// What diagram row `row` says (computed now: the diagram stores no text).
    pub fn row_text(&self, row: usize) -> RowText {
        self.diagram
            .text(&self.events, &self.report, row, self.lang)
    }

    /// The label of diagram row `row`.
    pub fn row_label(&self, row: usize) -> String {
        self.row_text(row).label
    }

    /// Reads the trace in `lang` from now on: row labels, and the filter's byte sets made
    /// again in it where the trace is big enough to have them.
    pub fn set_lang(&mut self, lang: crate::i18n::Language) {
        if lang == self.lang {
            return;
        }
        self.lang = lang;
        if self.byte_sets.lang().is_some() {
            self.byte_sets = ByteSets::start(&self.events, &self.report, lang);
        }
    }

    /// Microseconds since the first event.
    pub fn offset_us(&self, index: usize) -> i64 {
        diagram::offset_us(&self.events, index)
    }
}
