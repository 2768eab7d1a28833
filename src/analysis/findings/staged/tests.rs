//! The staged findings equal the whole computation, however thin the slices, and every stage
//! takes the steps its slices call for (a stage skipped or cut short shows in both); no step
//! compiles more than one validator, and only the validators' steps compile any.

use std::collections::HashMap;
use std::time::Duration;

use super::{Slices, Staged};
use crate::analysis::findings::Findings;
use crate::analysis::{Report, definitions, report};
use crate::trace::{Channel, Event, Lane, load_from_reader};

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
/// Checks that a step of the "validators" stage compiles one validator at most and that no
/// other step compiles any (validators are compiled once a process: those compiled before,
/// by another test, are compiled by no step).
fn run(
    mut staged: Staged,
    events: &[Event],
    report: &Report,
) -> (Findings, HashMap<&'static str, usize>) {
    use crate::analysis::conformance::compiled_on_this_thread;
    loop {
        let before: HashMap<&'static str, usize> = staged.steps().collect();
        let compiled = compiled_on_this_thread();
        let found = staged.step(events, report, Duration::ZERO);
        let compiled = compiled_on_this_thread() - compiled;
        let steps: HashMap<&'static str, usize> = staged.steps().collect();
        let stage = steps
            .iter()
            .find(|(k, n)| before[*k] != **n)
            .map(|(k, _)| *k)
            .expect("a step of some stage");
        let most = usize::from(stage == "validators");
        assert!(compiled <= most, "a {stage} step compiled {compiled}");
        if let Some(found) = found {
            return (found, steps);
        }
    }
}

/// The steps that free what the schema check remembered take, `count` messages a step (the
/// last with the check's outcome).
fn freeing(events: &[Event], report: &Report, count: usize) -> usize {
    let mut checker = crate::analysis::conformance::Checker::default();
    while !checker.step(events, &report.rpc, usize::MAX) {}
    let mut steps = 1;
    while !checker.free(count) {
        steps += 1;
    }
    steps
}

#[test]
fn one_event_or_list_a_step_finds_what_the_whole_computation_finds() {
    let one = Slices {
        doctor: 1,
        events: 1,
        lists: 1,
        verdicts: 1,
        marks: 1,
        remembered: 1,
    };
    let mut rug_pulls = 0;
    let mut listed = 0;
    for (name, events) in traces() {
        let report = report(&events);
        // Sliced first: the validators it needs are compiled in its steps (unless another
        // test compiled them first), not by the whole computation.
        let (sliced, steps) = run(Staged::sliced(one), &events, &report);
        let whole = Findings::compute(&events, &report);
        assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "{name}");
        let n = events.len();
        let defs = definitions::definitions(&events, &report.rpc);
        let (lists, instructions) = (defs.lists.len(), defs.instructions.len());
        assert!(n > 0 && lists > 0, "{name}");
        // One step per event for the passes over the trace, one per list for the scans (and
        // one per `instructions`, at least one), one per server and per tool for the doctor's
        // verdicts (and one for the catalog they are judged against), one per finding for
        // the index.
        assert_eq!(steps["doctor"], n, "{name}");
        let (servers, tools) = (whole.diagnosis.servers.len(), whole.diagnosis.tools.len());
        assert!(servers > 0, "{name}");
        assert_eq!(steps["verdicts"], servers + 1 + tools.max(1), "{name}");
        let marks =
            servers + tools + whole.violations.len() + whole.poison.len() + whole.rug_pulls.len();
        assert_eq!(steps["index"], marks.max(1), "{name}");
        // One per event, then one per message the check remembered (freed one a step, the
        // last step with the outcome).
        let remembered = freeing(&events, &report, 1);
        assert!(remembered > 1, "{name}");
        assert_eq!(steps["schema check"], n + remembered, "{name}");
        // One per event (the `seq`s a page's request is found by are the analysis's index).
        assert_eq!(steps["definitions"], n, "{name}");
        // (And those that gather every tool's name first.)
        let gathering = lists.div_ceil(crate::analysis::poison::GATHER_PER_LIST);
        assert_eq!(
            steps["poisoning scan"],
            gathering + lists + instructions.max(1),
            "{name}"
        );
        assert_eq!(steps["rug pulls"], lists, "{name}");
        // Each of the five schemas is parsed once a process, in a step of its own.
        assert!(steps["schemas"] <= 5, "{name}: {steps:?}");
        // Each validator is compiled once a process, in a step of its own.
        let checked = crate::analysis::conformance::check(&events, &report.rpc);
        assert!(
            steps["validators"] <= checked.definitions.len() * 5,
            "{name}: {steps:?}"
        );
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
    // A slice stops before an event whose schema is not parsed yet or whose validator is not
    // compiled yet (the step after does that).
    // (Then the steps that free what the check remembered.)
    let check = events.len().div_ceil(slices.events) + freeing(&events, &report, slices.remembered);
    assert!(steps["schema check"] >= check, "{steps:?}");
    assert!(
        steps["schema check"] <= check + steps["schemas"] + steps["validators"],
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
    assert_eq!(steps["doctor"], events.len().div_ceil(slices.doctor));
    let freed = freeing(&events, &report, slices.remembered);
    assert_eq!(
        steps["schema check"],
        events.len().div_ceil(slices.events) + freed
    );
    assert_eq!(steps["definitions"], events.len().div_ceil(slices.events));
    // No tool lists: the scans take one step each.
    assert_eq!(
        steps["poisoning scan"] + steps["rug pulls"] + steps["index"],
        3
    );
    assert_eq!(format!("{sliced:?}"), format!("{whole:?}"));
}
