//! [`Findings::compute`] a slice at a time, for a caller without threads (the browser), which
//! spreads the analyses over frames so that none stops for the whole trace.
//!
//! Each [`Staged::step`] works for about the time it is given on one stage: the doctor's pass
//! over the events; its verdicts, which read only the few events they cite, a server or a
//! tool at a time; the schema check (with the trace-context check), as many slices of events
//! as it takes, each schema it parses and each validator it compiles in a step of its own
//! (one a step), then the messages it remembered for the repeats freed, a few hundred at a time;
//! the reading of the tool definitions, a slice of events at a time; the poisoning scan of
//! those definitions (the tools' names gathered first, 64 lists a slice; then a tool list or
//! an `instructions` text at a time) and the rug pulls among them (a tool list at a time); the
//! filing of every finding under its event, a few hundred at a time. Every stage's step looks
//! at the clock after each slice, so a step lasts its budget and one slice at most; a stage's
//! last slice ends its step (what follows, such as freeing what the stage kept, starts with a
//! step of its own).

use std::time::Duration;

use web_time::Instant;

use super::index::Index;
use super::{Findings, RugPull, rug_pull};
use crate::analysis::conformance::{Checker, Pending, Violation};
use crate::analysis::definitions::{Definitions, Reader};
use crate::analysis::doctor::{self, Diagnosis, DoctorOptions};
use crate::analysis::{Report, pins, poison};
use crate::trace::Event;

/// How much a sliced stage takes between two looks at the clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slices {
    /// Events of the doctor's pass (a few comparisons each).
    pub doctor: usize,
    /// Events of the schema check and of the definitions' reading (one: a message met for
    /// the first time is parsed and validated, a `tools/list` result read and hashed, each
    /// up to a millisecond in the browser).
    pub events: usize,
    /// Tool lists of the poisoning scan and of the rug pulls (one: a list of new tools takes
    /// the scan a few milliseconds a tool).
    pub lists: usize,
    /// Servers or tools of the doctor's verdicts (a tool's may compile its schema).
    pub verdicts: usize,
    /// Findings filed under their events.
    pub marks: usize,
    /// Messages the schema check remembered (for the messages that repeat them), freed once
    /// it is over: up to 65,536 of them (25,000 of the synthetic 100,000 events' take 17 ms
    /// to free natively, 0.7 ms a thousand).
    pub remembered: usize,
}

impl Default for Slices {
    fn default() -> Self {
        Slices {
            doctor: 256,
            events: 1,
            lists: 1,
            verdicts: 1,
            marks: 256,
            remembered: 256,
        }
    }
}

/// The stages, in order (for [`Staged::longest`]); "schemas" and "validators" are the parsing
/// of a schema and the compiling of a validator the schema check meets, between its slices.
pub const STAGES: [&str; 9] = [
    "doctor",
    "verdicts",
    "schemas",
    "validators",
    "schema check",
    "definitions",
    "poisoning scan",
    "rug pulls",
    "index",
];

const DOCTOR: usize = 0;
const VERDICTS: usize = 1;
const SCHEMAS: usize = 2;
const VALIDATORS: usize = 3;
const CHECK: usize = 4;
const DEFINITIONS: usize = 5;
const POISON: usize = 6;
const RUG_PULLS: usize = 7;
const INDEX: usize = 8;

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
    /// Whether the doctor's pass is over (its verdicts then).
    doctor_read: bool,
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
    index: Option<Index>,
}

impl Staged {
    /// Stages that look at the clock after every `slices`.
    pub fn sliced(slices: Slices) -> Staged {
        Staged {
            slices,
            ..Staged::default()
        }
    }

    /// Works on the analyses for about `budget` (at least one slice, or one schema parsed, or
    /// one validator compiled);
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
        if self.index.is_some() {
            return self.file_marks(events, report, budget, started);
        }
        let out_of_time = || started.elapsed() >= budget;
        let slices = self.slices;
        if self.diagnosis.is_none() {
            let reader = self.doctor.get_or_insert_with(doctor::Reader::default);
            if !self.doctor_read {
                while !reader.step(events, report, slices.doctor) {
                    if out_of_time() {
                        return (DOCTOR, None);
                    }
                }
                self.doctor_read = true;
                return (DOCTOR, None);
            }
            let options = DoctorOptions::default();
            loop {
                if let Some(d) = reader.finish_step(events, report, &options, slices.verdicts) {
                    self.diagnosis = Some(d);
                    self.doctor = None;
                    return (VERDICTS, None);
                }
                if out_of_time() {
                    return (VERDICTS, None);
                }
            }
        }
        if self.violations.is_none() {
            let checker = self.checker.get_or_insert_with(Checker::default);
            let mut first = true;
            while !checker.checked_all(events) {
                if checker.pending(events, &report.rpc).is_some() {
                    if !first {
                        return (CHECK, None);
                    }
                    return match checker.prepare(events, &report.rpc) {
                        Some(Pending::Validator) => (VALIDATORS, None),
                        _ => (SCHEMAS, None),
                    };
                }
                // The last slice's step ends there: freeing what the check remembered
                // begins with a step of its own.
                if checker.step(events, &report.rpc, slices.events) || out_of_time() {
                    return (CHECK, None);
                }
                first = false;
            }
            while !checker.free(slices.remembered) {
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
        if let (Some(diagnosis), Some(violations), Some(poison), Some(rug_pulls)) = (
            self.diagnosis.take(),
            self.violations.take(),
            self.poison.take(),
            self.rug_pulls.take(),
        ) {
            self.index = Some(Index::new(diagnosis, violations, poison, rug_pulls));
        }
        self.file_marks(events, report, budget, started)
    }

    /// Files the findings under their events, for about `budget` since `started`.
    fn file_marks(
        &mut self,
        events: &[Event],
        report: &Report,
        budget: Duration,
        started: Instant,
    ) -> (usize, Option<Findings>) {
        let Some(index) = self.index.as_mut() else {
            return (INDEX, None);
        };
        while !index.step(events, &report.rpc, self.slices.marks) {
            if started.elapsed() >= budget {
                return (INDEX, None);
            }
        }
        (INDEX, self.index.take().map(Index::finish))
    }
}
