//! The staged findings equal the whole computation, however thin the slices, and every stage
//! takes the steps its slices call for (a stage skipped or cut short shows in both).

use std::collections::HashMap;
use std::time::Duration;

use super::{Slices, Staged};
use crate::analysis::{Report, definitions, report};
use crate::trace::{Channel, Event, Lane, load_from_reader};
use crate::ui::badges::Findings;

/// The real recordings, and all of them one after the other (several sessions and servers).
fn traces() -> Vec<(String, Vec<Event>)> {
    let mut all: Vec<(String, Vec<Event>)> = crate::analysis::fixtures::RECORDINGS
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let events = load_from_reader(text.as_bytes()).expect("fixture").events;
            (format!("recording {i}"), events)
        })
        .collect();
    let mut joined: Vec<Event> = Vec::new();
    for (_, events) in &all {
        let shift = joined.last().map_or(0, |e| e.seq + 1);
        for e in events {
            let mut e = e.clone();
            e.seq += shift;
            joined.push(e);
        }
    }
    all.push(("all recordings".into(), joined));
    all
}

/// Runs `staged` to the end with no time to spare; the findings and the steps per stage.
fn run(
    mut staged: Staged,
    events: &[Event],
    report: &Report,
) -> (Findings, HashMap<&'static str, usize>) {
    loop {
        if let Some(found) = staged.step(events, report, Duration::ZERO) {
            return (found, staged.steps().collect());
        }
    }
}

#[test]
fn one_event_or_list_a_step_finds_what_the_whole_computation_finds() {
    let one = Slices {
        doctor: 1,
        events: 1,
        lists: 1,
    };
    let mut rug_pulls = 0;
    let mut listed = 0;
    for (name, events) in traces() {
        let report = report(&events);
        let whole = Findings::compute(&events, &report);
        let (sliced, steps) = run(Staged::sliced(one), &events, &report);
        assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "{name}");
        let n = events.len();
        let lists = definitions::definitions(&events, &report.rpc).lists.len();
        assert!(n > 0 && lists > 0, "{name}");
        // One step per event for the passes over the trace, one per list for the scans (and
        // one for the `instructions`), one for the index.
        assert_eq!(steps["doctor"], n, "{name}");
        assert_eq!(steps["schema check"], n, "{name}");
        assert_eq!(steps["definitions"], n, "{name}");
        assert_eq!(steps["poisoning scan"], lists + 1, "{name}");
        assert_eq!(steps["rug pulls"], lists, "{name}");
        assert_eq!(steps["index"], 1, "{name}");
        // Each of the five schemas is parsed once a process, in a step of its own.
        assert!(steps["schemas"] <= 5, "{name}: {steps:?}");
        rug_pulls += whole.rug_pulls.len();
        listed += whole.diagnosis.tools.len();
    }
    assert!(rug_pulls > 0 && listed > 0);
}

#[test]
fn the_default_slices_find_the_same_in_fewer_steps() {
    let (name, events) = traces().pop().expect("the joined trace");
    let report = report(&events);
    let whole = Findings::compute(&events, &report);
    let (sliced, steps) = run(Staged::default(), &events, &report);
    assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "{name}");
    let slices = Slices::default();
    assert_eq!(steps["doctor"], events.len().div_ceil(slices.doctor));
    // A slice stops before an event whose schema is not parsed yet (parsed the step after).
    let check = events.len().div_ceil(slices.events);
    assert!(steps["schema check"] >= check, "{steps:?}");
    assert!(
        steps["schema check"] <= check + steps["schemas"],
        "{steps:?}"
    );
}

#[test]
fn staged_with_no_time_to_spare_takes_slices_and_finds_the_same() {
    let t0 = chrono::DateTime::UNIX_EPOCH;
    let event = |i: u64, from: &str, to: &str, raw: String| {
        let t = t0 + chrono::Duration::milliseconds(i as i64);
        Event::with_bytes(
            i,
            t,
            Lane::from(from),
            Lane::from(to),
            Channel::Stdio,
            raw.into_bytes(),
        )
    };
    // 600 pings and their answers, one answer with a result that is not an object.
    let mut events = Vec::new();
    for k in 0..300u64 {
        let ping = format!(r#"{{"jsonrpc":"2.0","id":{k},"method":"ping"}}"#);
        let result = if k == 150 { "7" } else { "{}" };
        let pong = format!(r#"{{"jsonrpc":"2.0","id":{k},"result":{result}}}"#);
        events.push(event(2 * k, "host", "server:s", ping));
        events.push(event(2 * k + 1, "server:s", "host", pong));
    }
    let report = report(&events);
    let whole = Findings::compute(&events, &report);
    assert_eq!(whole.violations.len(), 1, "{:#?}", whole.violations);
    let (sliced, steps) = run(Staged::default(), &events, &report);
    let slices = Slices::default();
    assert_eq!(steps["doctor"], 1);
    assert_eq!(steps["schema check"], events.len().div_ceil(slices.events));
    assert_eq!(steps["definitions"], events.len().div_ceil(slices.events));
    // No tool lists: the scans take one step each.
    assert_eq!(
        steps["poisoning scan"] + steps["rug pulls"] + steps["index"],
        3
    );
    assert_eq!(format!("{sliced:?}"), format!("{whole:?}"));
}
