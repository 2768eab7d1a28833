//! [`Findings::compute`] a slice at a time, for a caller without threads (the browser), which
//! spreads the analyses over frames so that none stops for the whole trace.
//!
//! Each [`Staged::step`] works for about the time it is given on one stage: the doctor's pass
//! over the events (its verdicts then read only the few events they cite); the schema check
//! (with the trace-context check), as many slices of events as it takes, each schema it
//! parses in a step of its own; the reading of the tool definitions, the same; the poisoning
//! scan of those definitions and the rug pulls among them, a few tool lists at a time; the
//! index of every finding by its event. Every stage's step looks at the clock after each
//! slice, so a step lasts its budget and one slice at most.

use std::time::Duration;

use web_time::Instant;

use super::{Findings, RugPull, rug_pull};
use crate::analysis::conformance::{Checker, Violation};
use crate::analysis::definitions::{Definitions, Reader};
use crate::analysis::doctor::{self, Diagnosis, DoctorOptions};
use crate::analysis::{Report, pins, poison};
use crate::trace::Event;

/// How much a sliced stage takes between two looks at the clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slices {
    /// Events of the doctor's pass (a few comparisons each).
    pub doctor: usize,
    /// Events of the schema check and of the definitions' reading (few: the schema check
    /// compiles a validator the first time it meets a message of its kind).
    pub events: usize,
    /// Tool lists of the poisoning scan and of the rug pulls.
    pub lists: usize,
}

impl Default for Slices {
    fn default() -> Self {
        Slices {
            doctor: 1024,
            events: 8,
            lists: 4,
        }
    }
}

/// The stages, in order (for [`Staged::longest`]); "schemas" is the parsing of a schema the
/// schema check meets, between its slices.
pub const STAGES: [&str; 7] = [
    "doctor",
    "schemas",
    "schema check",
    "definitions",
    "poisoning scan",
    "rug pulls",
    "index",
];

const DOCTOR: usize = 0;
const SCHEMAS: usize = 1;
const CHECK: usize = 2;
const DEFINITIONS: usize = 3;
const POISON: usize = 4;
const RUG_PULLS: usize = 5;
const INDEX: usize = 6;

#[cfg(test)]
mod tests;

/// What the stages made so far.
#[derive(Default)]
pub struct Staged {
    slices: Slices,
    /// The longest step of each stage so far, in milliseconds.
    longest: [f64; STAGES.len()],
    /// How many steps each stage took so far.
    steps: [usize; STAGES.len()],
    doctor: Option<doctor::Reader>,
    diagnosis: Option<Diagnosis>,
    checker: Option<Checker>,
    violations: Option<Vec<Violation>>,
    reader: Option<Reader>,
    definitions: Option<Definitions>,
    scanner: Option<poison::Scanner>,
    poison: Option<Vec<poison::Finding>>,
    comparer: Option<pins::Comparer>,
    found_rug_pulls: Vec<RugPull>,
    rug_pulls: Option<Vec<RugPull>>,
}

impl Staged {
    /// Stages that look at the clock after every `slices`.
    pub fn sliced(slices: Slices) -> Staged {
        Staged {
            slices,
            ..Staged::default()
        }
    }

    /// Works on the analyses for about `budget` (at least one slice, or one schema parsed);
    /// the findings once the last stage has run.
    pub fn step(
        &mut self,
        events: &[Event],
        report: &Report,
        budget: Duration,
    ) -> Option<Findings> {
        let started = Instant::now();
        let (stage, findings) = self.work(events, report, budget, started);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        self.longest[stage] = self.longest[stage].max(ms);
        self.steps[stage] += 1;
        findings
    }

    /// The longest step of each stage so far, in milliseconds (what the browser's frames
    /// spent on the findings at most).
    pub fn longest(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        STAGES.iter().copied().zip(self.longest.iter().copied())
    }

    /// How many steps each stage took so far.
    pub fn steps(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        STAGES.iter().copied().zip(self.steps.iter().copied())
    }

    /// One step: the stage it worked on, and the findings if it was the last.
    fn work(
        &mut self,
        events: &[Event],
        report: &Report,
        budget: Duration,
        started: Instant,
    ) -> (usize, Option<Findings>) {
        let out_of_time = || started.elapsed() >= budget;
        let slices = self.slices;
        if self.diagnosis.is_none() {
            let reader = self.doctor.get_or_insert_with(doctor::Reader::default);
            while !reader.step(events, report, slices.doctor) {
                if out_of_time() {
                    return (DOCTOR, None);
                }
            }
            let options = DoctorOptions::default();
            self.diagnosis = self
                .doctor
                .take()
                .map(|r| r.finish(events, report, &options));
            return (DOCTOR, None);
        }
        if self.violations.is_none() {
            let checker = self.checker.get_or_insert_with(Checker::default);
            let mut first = true;
            loop {
                if checker.schema_pending(events, &report.rpc) {
                    if !first {
                        return (CHECK, None);
                    }
                    checker.parse_pending(events, &report.rpc);
                    return (SCHEMAS, None);
                }
                if checker.step(events, &report.rpc, slices.events) {
                    break;
                }
                first = false;
                if out_of_time() {
                    return (CHECK, None);
                }
            }
            self.violations = self.checker.take().map(|c| c.finish().violations);
            return (CHECK, None);
        }
        if self.definitions.is_none() {
            let reader = self.reader.get_or_insert_with(Reader::default);
            while !reader.step(events, &report.rpc, slices.events) {
                if out_of_time() {
                    return (DEFINITIONS, None);
                }
            }
            self.definitions = self.reader.take().map(Reader::finish);
            return (DEFINITIONS, None);
        }
        let Some(defs) = self.definitions.as_ref() else {
            return (INDEX, None);
        };
        if self.poison.is_none() {
            let scanner = self.scanner.get_or_insert_with(poison::Scanner::default);
            while !scanner.step(defs, slices.lists) {
                if out_of_time() {
                    return (POISON, None);
                }
            }
            self.poison = self.scanner.take().map(poison::Scanner::finish);
            return (POISON, None);
        }
        if self.rug_pulls.is_none() {
            let comparer = self.comparer.get_or_insert_with(pins::Comparer::default);
            loop {
                let mut found = Vec::new();
                let done = comparer.step(&defs.lists, slices.lists, &mut found);
                let pulls = found.iter().filter_map(|f| rug_pull(f, defs));
                self.found_rug_pulls.extend(pulls);
                if done {
                    break;
                }
                if out_of_time() {
                    return (RUG_PULLS, None);
                }
            }
            self.rug_pulls = Some(std::mem::take(&mut self.found_rug_pulls));
            return (RUG_PULLS, None);
        }
        let findings = match (
            self.diagnosis.take(),
            self.violations.take(),
            self.poison.take(),
            self.rug_pulls.take(),
        ) {
            (Some(diagnosis), Some(violations), Some(poison), Some(rug_pulls)) => Some(
                Findings::index(events, diagnosis, violations, poison, rug_pulls),
            ),
            _ => None,
        };
        (INDEX, findings)
    }
}
