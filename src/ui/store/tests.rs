//! A trace read a slice at a time (the browser's) grows its store in place: its events, their
//! interpretations and rows are never copied into bigger lists, each of which would stop a
//! frame for the whole trace read so far.

use super::TraceStore;
use crate::trace::{Event, load_from_reader};

/// A recording five times over (new `seq`s): every lane is in the first copy.
fn repeated() -> Vec<Event> {
    let text = crate::analysis::fixtures::RECORDINGS[0];
    let one = load_from_reader(text.as_bytes()).expect("fixture").events;
    let mut all: Vec<Event> = Vec::new();
    for _ in 0..5 {
        let shift = all.last().map_or(0, |e| e.seq + 1);
        all.extend(one.iter().cloned().map(|mut e| {
            e.seq += shift;
            e
        }));
    }
    all
}

#[test]
fn a_preview_grows_in_place() {
    let events = repeated();
    let first_copy = events.len() / 5;
    let mut first = Vec::with_capacity(events.len());
    first.extend_from_slice(&events[..first_copy]);
    let mut store = TraceStore::preview("repeated".into(), first);
    let derived = store.report.rpc.derived.as_ptr();
    let rows = store.diagram.rows.as_ptr();
    for slice in events[first_copy..].chunks(7) {
        store.grow(slice.to_vec());
    }
    assert_eq!(store.len(), events.len());
    assert_eq!(store.report.rpc.derived.len(), events.len());
    assert_eq!(store.diagram.rows.len(), events.len());
    assert!(std::ptr::eq(store.report.rpc.derived.as_ptr(), derived));
    assert!(std::ptr::eq(store.diagram.rows.as_ptr(), rows));
}

/// On recordings appended to one file (`seq`s that repeat and go back), the store finds the
/// last event with a `seq`, as the analysis does for a `seq` named without its event (its
/// binary search found none, or another one).
#[test]
fn the_store_finds_the_last_event_with_a_seq() {
    let events = crate::analysis::fixtures::restarted_seqs();
    let store = TraceStore::new("restarted".into(), super::Source::Memory, events.clone());
    for seq in 0..events.len() as u64 + 2 {
        let last = events.iter().rposition(|e| e.seq == seq);
        assert_eq!(store.index_of_seq(seq), last, "seq {seq}");
    }
}

/// The app and the findings it computes a step at a time (the browser's) read the same parse
/// of the texts: parsing them again in the findings' first step took the browser 30 ms of a
/// frame.
#[test]
fn the_app_and_its_findings_parse_the_texts_once() {
    use crate::analysis::findings::Staged;
    use crate::i18n::{embedded_parsed_on_this_thread, shared};
    let events = repeated();
    let _ = shared();
    let before = embedded_parsed_on_this_thread();
    let app = crate::ui::SightlineApp::from_events("t", events.clone());
    let report = crate::analysis::report(&events);
    let mut staged = Staged::default();
    let found = loop {
        if let Some(found) = staged.step(&events, &report, std::time::Duration::ZERO) {
            break found;
        }
    };
    assert!(!found.diagnosis.servers.is_empty());
    assert_eq!(embedded_parsed_on_this_thread(), before);
    drop(app);
}
