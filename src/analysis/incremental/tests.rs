//! The analysis of a growing trace equals the analysis of the whole: on the real recordings,
//! cut at every event, grown one event at a time, and grown in uneven batches.

use super::Incremental;
use crate::analysis::diagram::{self, Diagram};
use crate::analysis::{Report, report};
use crate::trace::{Event, load_from_reader};

/// The recordings, and all of them one after the other (several sessions, servers that exit
/// while others run, ids that repeat across sessions).
fn traces() -> Vec<Vec<Event>> {
    let mut all: Vec<Vec<Event>> = crate::analysis::fixtures::RECORDINGS
        .iter()
        .map(|text| load_from_reader(text.as_bytes()).expect("fixture").events)
        .collect();
    let mut joined: Vec<Event> = Vec::new();
    for events in &all {
        let shift = joined.last().map_or(0, |e| e.seq + 1);
        let later = joined.last().map(|e| e.time);
        for e in events {
            let mut e = e.clone();
            e.seq += shift;
            if let (Some(t), Some(first)) = (later, events.first()) {
                e.time = t + (e.time - first.time) + chrono::Duration::milliseconds(1);
            }
            joined.push(e);
        }
    }
    all.push(joined);
    all
}

/// A growing trace: the state, the report and the diagram, extended batch by batch.
struct Growing {
    state: Incremental,
    report: Report,
    diagram: Diagram,
    len: usize,
}

impl Growing {
    fn start(events: &[Event]) -> Growing {
        let (state, report) = Incremental::start(events);
        let diagram = diagram::build(events, &report);
        Growing {
            state,
            report,
            diagram,
            len: events.len(),
        }
    }

    fn extend(&mut self, events: &[Event]) {
        let dirty = self.state.extend(events, &mut self.report);
        self.diagram.extend(events, &self.report, self.len, &dirty);
        self.len = events.len();
    }

    /// Equal to the whole analysis of `events`, row texts included.
    fn check(&self, events: &[Event], what: &str) {
        let full = report(events);
        assert_eq!(self.report, full, "{what}: report");
        let built = diagram::build(events, &full);
        assert_eq!(self.diagram, built, "{what}: diagram");
        assert_eq!(
            self.diagram.texts(events, &self.report),
            built.texts(events, &full),
            "{what}: row texts"
        );
    }
}

#[test]
fn cut_anywhere_then_grown_to_the_end_is_the_whole_analysis() {
    for (t, events) in traces().iter().enumerate() {
        for cut in 0..=events.len() {
            let mut g = Growing::start(&events[..cut]);
            g.check(&events[..cut], &format!("trace {t}, first {cut}"));
            g.extend(events);
            g.check(events, &format!("trace {t}, cut at {cut}"));
        }
    }
}

#[test]
fn grown_one_event_at_a_time_every_prefix_is_the_whole_analysis() {
    for (t, events) in traces().iter().enumerate() {
        let mut g = Growing::start(&[]);
        for end in 1..=events.len() {
            g.extend(&events[..end]);
            g.check(
                &events[..end],
                &format!("trace {t}, {end} events one by one"),
            );
        }
    }
}

#[test]
fn grown_in_uneven_batches_is_the_whole_analysis() {
    let events = traces().pop().expect("the joined trace");
    for step in [2, 3, 5, 7, 11, 17] {
        let mut g = Growing::start(&events[..step.min(events.len())]);
        let mut end = step;
        let mut k = 0;
        while end < events.len() {
            k += 1;
            end = (end + step + k % 3).min(events.len());
            g.extend(&events[..end]);
            g.check(&events[..end], &format!("batches of ~{step}, {end} events"));
        }
    }
}

/// Earlier rows do change: an answer turns its request's row from unanswered to answered,
/// and the rows of a completed chain are among the ones reported.
#[test]
fn what_a_later_event_settles_is_reported_dirty() {
    let events = traces().swap_remove(2);
    let answer = (0..events.len())
        .find(|&i| {
            let r = report(&events[..=i]);
            matches!(r.rpc.derived[i].pairing, crate::trace::Pairing::Answers(_))
        })
        .expect("a response");
    let mut g = Growing::start(&events[..answer]);
    let before = g.diagram.rows.iter().filter(|r| !r.status.is_ok()).count();
    let dirty = g.state.extend(&events[..=answer], &mut g.report);
    assert!(!dirty.is_empty(), "the answered request's row changes");
    g.diagram
        .extend(&events[..=answer], &g.report, answer, &dirty);
    let after = g.diagram.rows[..answer]
        .iter()
        .filter(|r| !r.status.is_ok())
        .count();
    assert!(
        after < before,
        "{before} rows not ok before the answer, {after} after"
    );
}

/// Recordings appended to one file (`seq`s that start again) grow into the analysis and the
/// diagram of the whole, and a row's pair is the one its own recording gives it.
#[test]
fn seqs_that_start_again_grow_into_the_whole_analysis() {
    let events = crate::analysis::fixtures::restarted_seqs();
    let alone = crate::analysis::fixtures::restarted_pairs();
    for step in [1, 4, 13] {
        let mut g = Growing::start(&events[..step]);
        let mut end = step;
        while end < events.len() {
            end = (end + step).min(events.len());
            g.extend(&events[..end]);
        }
        g.check(&events, &format!("batches of {step}"));
        for (i, pair) in alone.iter().enumerate() {
            if pair.is_some() {
                assert_eq!(
                    g.diagram.rows[i].pair(),
                    *pair,
                    "batches of {step}: row {i}"
                );
            }
        }
    }
}
