//! Which event has a given `seq`: the one lookup behind every reference the analysis makes
//! by `seq` ([`super::Pairing`]'s `AnsweredBy`, `Answers` and `Cancelled`, a retry's
//! `retry_of`, a stream's `subscription`).
//!
//! It exists because six modules each had their own search, and they disagreed when `seq`s
//! repeat or go back (a trace file may hold both: the loader warns and keeps every event):
//! one took the first such event, one the last, one whichever a binary search hit. Now the
//! analysis keeps one [`Seqs`] ([`Analysis::index_of`]) and everything that follows a `seq`
//! asks it.
//!
//! The rule: the **last** event with that `seq` among the events indexed (all of them, or, for
//! a trace that grows, those read so far). It is the one the analysis meant: it reads the
//! events in order and records a `seq` as it reads an event, either that event's own (the
//! answer, the cancellation, the listen request) or one it has already read (the request
//! answered, the request retried, the stream listened to). At that moment, the event it means
//! is the last one with that `seq` it has read, when `seq`s repeat because the recording
//! started counting again (traces appended to one file). An event read after it with the same
//! `seq` hides it: no lookup by `seq` alone can tell the two apart, and this one at least
//! gives every module the same answer, the one a map from every `seq` gives.
//!
//! Cost: nothing more than a number when the `seq`s only go up, which is every trace a
//! recorder writes: an event is where its number says (consecutive `seq`s) or a binary search
//! away (gaps). A map from `seq` to index is built only for a trace whose `seq`s repeat or go
//! back, so that looking up many `seq`s never becomes a scan per lookup.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::derived::Analysis;
use super::event::Event;

/// Where the event with a given `seq` is (see the module doc for the rule): built with
/// [`Seqs::new`], or [`Seqs::extend`]ed as a trace grows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seqs {
    /// `seq` -> index of the last event with it; only when the `seq`s do not strictly increase.
    map: Option<HashMap<u64, usize, RandomState>>,
    /// How many events the index covers (the first ones).
    seen: usize,
}

impl Seqs {
    /// The index of `events`.
    pub fn new(events: &[Event]) -> Seqs {
        let mut seqs = Seqs::default();
        seqs.extend(events);
        seqs
    }

    /// Covers `events`, which begin with the events covered so far (a trace that grew).
    pub fn extend(&mut self, events: &[Event]) {
        if events.len() <= self.seen {
            return;
        }
        let from = self.seen.saturating_sub(1);
        match &mut self.map {
            None if events[from..].windows(2).all(|w| w[0].seq < w[1].seq) => {}
            // Later events overwrite earlier ones: the last event with a `seq` wins.
            None => self.map = Some(events.iter().enumerate().map(|(i, e)| (e.seq, i)).collect()),
            Some(map) => map.extend(
                events
                    .iter()
                    .enumerate()
                    .skip(self.seen)
                    .map(|(i, e)| (e.seq, i)),
            ),
        }
        self.seen = events.len();
    }

    /// How many events the index covers (the first ones).
    pub fn covered(&self) -> usize {
        self.seen
    }

    /// The index of the last event with `seq` among the covered ones of `events` (the events
    /// the index was built from).
    pub fn index(&self, events: &[Event], seq: u64) -> Option<usize> {
        if let Some(map) = &self.map {
            return map.get(&seq).copied();
        }
        let events = &events[..self.seen.min(events.len())];
        let first = events.first()?.seq;
        let at = seq
            .checked_sub(first)
            .and_then(|k| usize::try_from(k).ok())
            .filter(|&k| events.get(k).is_some_and(|e| e.seq == seq));
        at.or_else(|| events.binary_search_by_key(&seq, |e| e.seq).ok())
    }
}

impl Analysis {
    /// The index of the event with `seq` among the analysed `events` (the last one with it:
    /// see [`Seqs`]): where a [`super::Pairing`], a retry or a subscription points.
    pub fn index_of(&self, events: &[Event], seq: u64) -> Option<usize> {
        self.seqs.index(events, seq)
    }

    /// The `seq` index of the analysed events, for code that takes one.
    pub fn seqs(&self) -> &Seqs {
        &self.seqs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, Lane, Pairing};

    fn notes(seqs: &[u64]) -> Vec<Event> {
        seqs.iter()
            .map(|&seq| {
                Event::with_bytes(
                    seq,
                    crate::trace::now(),
                    Lane::Host,
                    Lane::Llm,
                    Channel::Note,
                    Vec::new(),
                )
            })
            .collect()
    }

    /// Every `seq` from 0 to 45 looked up in the index of `order`, as a map from every
    /// event's `seq` would say (the last event with a repeated one).
    fn lookups(order: &[u64]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
        let events = notes(order);
        let seqs = Seqs::new(&events);
        let map: std::collections::HashMap<u64, usize> =
            events.iter().enumerate().map(|(i, e)| (e.seq, i)).collect();
        (0..45)
            .map(|seq| (seqs.index(&events, seq), map.get(&seq).copied()))
            .unzip()
    }

    #[test]
    fn consecutive_seqs_are_where_their_number_says_without_a_map() {
        for order in [vec![0, 1, 2, 3, 4], vec![7, 8, 9, 10]] {
            let events = notes(&order);
            let seqs = Seqs::new(&events);
            assert!(seqs.map.is_none(), "{order:?}");
            for (i, e) in events.iter().enumerate() {
                assert_eq!(seqs.index(&events, e.seq), Some(i), "{order:?}");
            }
            assert_eq!(seqs.index(&events, 6), None);
            assert_eq!(seqs.index(&events, 11), None);
            let (got, want) = lookups(&order);
            assert_eq!(got, want, "{order:?}");
        }
    }

    #[test]
    fn seqs_with_gaps_are_found_without_a_map() {
        let order = [3, 4, 9, 10, 11, 40];
        assert!(Seqs::new(&notes(&order)).map.is_none());
        let (got, want) = lookups(&order);
        assert_eq!(got, want);
        assert_eq!(got[9], Some(2));
        assert_eq!(got[5], None);
    }

    #[test]
    fn a_repeated_seq_is_the_last_event_with_it() {
        for (order, seq, last) in [
            (vec![2, 3, 3, 4], 3, 2),
            (vec![5, 9, 5, 6], 5, 2),
            (vec![0, 1, 2, 0, 1, 2], 1, 4),
        ] {
            let (got, want) = lookups(&order);
            assert_eq!(got, want, "{order:?}");
            assert_eq!(got[seq], Some(last), "{order:?}");
        }
    }

    #[test]
    fn seqs_out_of_order_are_found() {
        let (got, want) = lookups(&[5, 1, 4, 2, 9]);
        assert_eq!(got, want);
        assert_eq!(got[1..6], [Some(1), Some(3), None, Some(2), Some(0)]);
    }

    #[test]
    fn an_empty_trace_has_no_seq() {
        let seqs = Seqs::new(&[]);
        assert_eq!(seqs.covered(), 0);
        assert_eq!(seqs.index(&[], 0), None);
    }

    /// Extended a few events at a time, the index finds what the index of the events so far
    /// finds, and nothing of the events it does not cover yet.
    #[test]
    fn extended_as_the_trace_grows_it_is_the_index_of_the_events_so_far() {
        for order in [
            vec![0, 1, 2, 3, 4, 5, 6],
            vec![3, 4, 9, 10, 11, 40, 41],
            vec![0, 1, 2, 0, 1, 2, 3],
            vec![4, 5, 1, 2, 7, 7, 8],
            vec![9, 1, 2, 3, 4, 5, 6],
        ] {
            let events = notes(&order);
            for step in 1..=3 {
                let mut grown = Seqs::default();
                let mut end = 0;
                while end < events.len() {
                    end = (end + step).min(events.len());
                    grown.extend(&events[..end]);
                    let whole = Seqs::new(&events[..end]);
                    assert_eq!(grown, whole, "{order:?} by {step} to {end}");
                    for seq in 0..45 {
                        assert_eq!(
                            grown.index(&events, seq),
                            whole.index(&events[..end], seq),
                            "{order:?} by {step} to {end}: {seq}"
                        );
                    }
                }
            }
        }
    }

    /// A response whose request's `seq` an earlier event also has: the analysis's index
    /// finds the request it answers (where looking for the first event with that `seq`, as
    /// the OTLP export, the narration and the conformance check did, found the other one).
    #[test]
    fn the_analysis_finds_the_request_a_response_answers_when_its_seq_repeats() {
        let raw = [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        ];
        let mut events: Vec<Event> = raw
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                let (from, to) = if i == 2 {
                    (Lane::server("s"), Lane::Host)
                } else {
                    (Lane::Host, Lane::server("s"))
                };
                let bytes = raw.as_bytes().to_vec();
                Event::with_bytes(0, crate::trace::now(), from, to, Channel::Stdio, bytes)
            })
            .collect();
        events[0].seq = 5;
        events[1].seq = 5;
        events[2].seq = 6;
        let analysis = crate::trace::analyze(&events);
        let Pairing::Answers(seq) = analysis.derived[2].pairing else {
            panic!("{:?}", analysis.derived[2].pairing);
        };
        assert_eq!(analysis.index_of(&events, seq), Some(1));
        let Pairing::AnsweredBy(seq) = analysis.derived[1].pairing else {
            panic!("{:?}", analysis.derived[1].pairing);
        };
        assert_eq!(analysis.index_of(&events, seq), Some(2));
    }
}
