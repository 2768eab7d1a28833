//! [`Findings::compute`] a slice at a time, for a caller without threads (the browser), which
//! spreads the analyses over frames so that none stops for the whole trace.
//!
//! Each [`Staged::step`] works for about the time it is given on one stage: the doctor; the
//! schema check (with the trace-context check), as many slices of events as it takes; the
//! reading of the tool definitions, the same; the poisoning scan of those definitions; the
//! rug pulls among them; the index of every finding by its event. A step never starts a stage
//! that cannot be cut (the doctor, the scans, the index) after another: each has a step of
//! its own.

use std::time::Duration;

use web_time::Instant;

use super::{Findings, RugPull, rug_pull};
use crate::analysis::conformance::{Checker, Violation};
use crate::analysis::definitions::{Definitions, Reader};
use crate::analysis::doctor::{self, Diagnosis, DoctorOptions};
use crate::analysis::{Report, pins, poison};
use crate::trace::Event;

/// Events a sliced stage takes between two looks at the clock (few: the schema check compiles
/// a validator the first time it meets a message of its kind).
pub(super) const SLICE: usize = 8;

/// The stages, in order (for [`Staged::longest`]).
pub const STAGES: [&str; 6] = [
    "doctor",
    "schema check",
    "definitions",
    "poisoning scan",
    "rug pulls",
    "index",
];

/// What the stages made so far.
#[derive(Default)]
pub struct Staged {
    /// The longest step of each stage so far, in milliseconds.
    longest: [f64; STAGES.len()],
    diagnosis: Option<Diagnosis>,
    checker: Option<Checker>,
    violations: Option<Vec<Violation>>,
    reader: Option<Reader>,
    definitions: Option<Definitions>,
    poison: Option<Vec<poison::Finding>>,
    rug_pulls: Option<Vec<RugPull>>,
}

impl Staged {
    /// Works on the analyses for about `budget` (at least one slice, or one stage that cannot
    /// be cut); the findings once the last one has run.
    pub fn step(
        &mut self,
        events: &[Event],
        report: &Report,
        budget: Duration,
    ) -> Option<Findings> {
        let started = Instant::now();
        let stage = self.stage();
        let findings = self.work(events, report, budget, started);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        self.longest[stage] = self.longest[stage].max(ms);
        findings
    }

    /// The longest step of each stage so far, in milliseconds (what the browser's frames
    /// spent on the findings at most).
    pub fn longest(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        STAGES.iter().copied().zip(self.longest.iter().copied())
    }

    /// The index in [`STAGES`] of the stage the next step works on.
    fn stage(&self) -> usize {
        [
            self.diagnosis.is_none(),
            self.violations.is_none(),
            self.definitions.is_none(),
            self.poison.is_none(),
            self.rug_pulls.is_none(),
        ]
        .iter()
        .position(|&todo| todo)
        .unwrap_or(STAGES.len() - 1)
    }

    fn work(
        &mut self,
        events: &[Event],
        report: &Report,
        budget: Duration,
        started: Instant,
    ) -> Option<Findings> {
        let out_of_time = || started.elapsed() >= budget;
        if self.diagnosis.is_none() {
            self.diagnosis = Some(doctor::diagnose(events, report, &DoctorOptions::default()));
            return None;
        }
        if self.violations.is_none() {
            let checker = self.checker.get_or_insert_with(Checker::default);
            while !checker.step(events, &report.rpc, SLICE) {
                if out_of_time() {
                    return None;
                }
            }
            self.violations = self.checker.take().map(|c| c.finish().violations);
            return None;
        }
        if self.definitions.is_none() {
            let reader = self.reader.get_or_insert_with(Reader::default);
            while !reader.step(events, &report.rpc, SLICE) {
                if out_of_time() {
                    return None;
                }
            }
            self.definitions = self.reader.take().map(Reader::finish);
            return None;
        }
        let defs = self.definitions.as_ref()?;
        if self.poison.is_none() {
            self.poison = Some(poison::scan_definitions(defs));
            return None;
        }
        if self.rug_pulls.is_none() {
            let found = pins::check_trace(&defs.lists, None);
            self.rug_pulls = Some(found.iter().filter_map(|f| rug_pull(f, defs)).collect());
            return None;
        }
        Some(Findings::index(
            events,
            self.diagnosis.take()?,
            self.violations.take()?,
            self.poison.take()?,
            self.rug_pulls.take()?,
        ))
    }
}
