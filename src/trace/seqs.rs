//! Which event has a given `seq`: the one lookup behind every reference the analysis makes
//! by `seq` ([`super::Pairing`]'s `AnsweredBy`, `Answers` and `Cancelled`, a retry's
//! `retry_of`, a stream's `subscription`, the event that closed an unanswered request).
//!
//! One search, because `seq`s may repeat or go back (a trace file may hold both: the loader
//! warns and keeps every event), and then the first such event, the last and whichever a
//! binary search hits are all answers: every reference must get the same one. So the analysis
//! keeps one [`Seqs`] and everything that follows a `seq` asks it ([`Analysis::earlier`],
//! [`Analysis::later`], [`Analysis::index_of`]).
//!
//! The rule: **the last event with that `seq` at or before the point where the analysis
//! recorded it**, the one it meant. The analysis reads the events in order and records a `seq`
//! as it reads an event, either that event's own or one it has already read; at that moment
//! the event it means is the last one with that `seq` it has read. Where that point is, the
//! reference says:
//! - recorded on the event that names an earlier one (a response names its request, a retry
//!   the request it retries, a stream's notification its listen request): the point is that
//!   event, so the target is the last event with the `seq` at or before it ([`Seqs::earlier`]);
//! - recorded on an earlier event once a later one settles it (a request's answer or
//!   cancellation, what closed it): the point is the later event itself, the first with the
//!   `seq` after the request ([`Seqs::later`]).
//!
//! So when `seq`s start again (recordings appended to one file), each reference stays in its
//! own recording, and a trace read as it grows resolves every reference as the whole trace
//! does (what follows the point never changes the answer). Only another event with the same
//! `seq` between the two ends of a reference can mislead it, which no lookup by `seq` can
//! avoid. A `seq` asked for without a point (a finding's evidence) is the last event with it.
//!
//! Cost: nothing more than a number when the `seq`s only go up, which is every trace a
//! recorder writes: an event is where its number says (consecutive `seq`s) or a binary search
//! away (gaps). Maps from `seq` to index are built only for a trace whose `seq`s repeat or go
//! back, so that looking up many `seq`s never becomes a scan per lookup.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::derived::Analysis;
use super::event::Event;

/// Where the event with a given `seq` is (see the module doc for the rule): built with
/// [`Seqs::new`], or [`Seqs::extend`]ed as a trace grows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seqs {
    /// Only when the `seq`s do not strictly increase.
    maps: Option<Maps>,
    /// How many events the index covers (the first ones).
    seen: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Maps {
    /// `seq` -> index of the last event with it.
    last: HashMap<u64, usize, RandomState>,
    /// `seq` -> index of every event with it, in order: only the `seq`s that repeat.
    repeated: HashMap<u64, Vec<usize>, RandomState>,
}

impl Maps {
    fn add(&mut self, seq: u64, i: usize) {
        if let Some(before) = self.last.insert(seq, i) {
            self.repeated
                .entry(seq)
                .or_insert_with(|| vec![before])
                .push(i);
        }
    }
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
        let from = match &self.maps {
            None if events[self.seen.saturating_sub(1)..]
                .windows(2)
                .all(|w| w[0].seq < w[1].seq) =>
            {
                None
            }
            None => Some(0),
            Some(_) => Some(self.seen),
        };
        if let Some(from) = from {
            let maps = self.maps.get_or_insert_with(Maps::default);
            for (i, e) in events.iter().enumerate().skip(from) {
                maps.add(e.seq, i);
            }
        }
        self.seen = events.len();
    }

    /// How many events the index covers (the first ones).
    pub fn covered(&self) -> usize {
        self.seen
    }

    /// The last covered event with `seq` at or before `at`: what a reference recorded on
    /// event `at` to an event read before it means.
    pub fn earlier(&self, events: &[Event], seq: u64, at: usize) -> Option<usize> {
        match self.repeats(seq) {
            Some(all) => all[..all.partition_point(|&i| i <= at)].last().copied(),
            None => self.only(events, seq).filter(|&i| i <= at),
        }
    }

    /// The first covered event with `seq` after `at`: what a reference recorded on event `at`
    /// once a later event settled it (its answer, its cancellation) means.
    pub fn later(&self, events: &[Event], seq: u64, at: usize) -> Option<usize> {
        match self.repeats(seq) {
            Some(all) => all.get(all.partition_point(|&i| i <= at)).copied(),
            None => self.only(events, seq).filter(|&i| i > at),
        }
    }

    /// The last covered event with `seq`: for a `seq` asked for without a point.
    pub fn last(&self, events: &[Event], seq: u64) -> Option<usize> {
        self.earlier(events, seq, usize::MAX)
    }

    /// Every covered event with `seq`, when there are several.
    fn repeats(&self, seq: u64) -> Option<&[usize]> {
        let maps = self.maps.as_ref()?;
        maps.repeated.get(&seq).map(Vec::as_slice)
    }

    /// The covered event with `seq`, when there is at most one.
    fn only(&self, events: &[Event], seq: u64) -> Option<usize> {
        if let Some(maps) = &self.maps {
            return maps.last.get(&seq).copied();
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
    /// The event with `seq` that event `at` names as read before it: the request a response
    /// answers, the request a retry retries, a stream's listen request ([`Seqs::earlier`]).
    pub fn earlier(&self, events: &[Event], seq: u64, at: usize) -> Option<usize> {
        self.seqs.earlier(events, seq, at)
    }

    /// The event with `seq` that settled event `at` after it: a request's answer or
    /// cancellation, the event that closed it ([`Seqs::later`]).
    pub fn later(&self, events: &[Event], seq: u64, at: usize) -> Option<usize> {
        self.seqs.later(events, seq, at)
    }

    /// The event the pairing of event `i` names: its answer, or the request it answers.
    pub fn paired(&self, events: &[Event], i: usize) -> Option<usize> {
        match self.derived.get(i)?.pairing {
            super::Pairing::AnsweredBy(seq) => self.later(events, seq, i),
            super::Pairing::Answers(seq) => self.earlier(events, seq, i),
            _ => None,
        }
    }

    /// The last event with `seq`, for a `seq` asked for without the event that names it.
    pub fn index_of(&self, events: &[Event], seq: u64) -> Option<usize> {
        self.seqs.last(events, seq)
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

    /// Every lookup of every `seq` from 0 to 45 at every point, against a scan of the events:
    /// (`earlier`, `later`) at each point, and `last`.
    fn check(order: &[u64]) -> Seqs {
        let events = notes(order);
        let seqs = Seqs::new(&events);
        for seq in 0..45 {
            let with = |i: &usize| events[*i].seq == seq;
            for at in 0..events.len() {
                let earlier = (0..=at).rev().find(with);
                let later = (at + 1..events.len()).find(with);
                assert_eq!(
                    seqs.earlier(&events, seq, at),
                    earlier,
                    "{order:?} {seq} {at}"
                );
                assert_eq!(seqs.later(&events, seq, at), later, "{order:?} {seq} {at}");
            }
            let last = (0..events.len()).rev().find(with);
            assert_eq!(seqs.last(&events, seq), last, "{order:?} {seq}");
        }
        seqs
    }

    #[test]
    fn consecutive_seqs_are_where_their_number_says_without_a_map() {
        for order in [vec![0, 1, 2, 3, 4], vec![7, 8, 9, 10]] {
            let seqs = check(&order);
            assert!(seqs.maps.is_none(), "{order:?}");
            let events = notes(&order);
            for (i, e) in events.iter().enumerate() {
                assert_eq!(seqs.last(&events, e.seq), Some(i), "{order:?}");
            }
        }
    }

    #[test]
    fn seqs_with_gaps_are_found_without_a_map() {
        let order = [3, 4, 9, 10, 11, 40];
        let seqs = check(&order);
        assert!(seqs.maps.is_none());
        let events = notes(&order);
        assert_eq!(seqs.last(&events, 9), Some(2));
        assert_eq!(seqs.last(&events, 5), None);
    }

    /// A repeated `seq` is the nearest event with it on the side the reference points to.
    #[test]
    fn a_repeated_seq_is_the_nearest_event_with_it_on_the_side_named() {
        for order in [
            vec![2, 3, 3, 4],
            vec![5, 9, 5, 6],
            vec![0, 1, 2, 0, 1, 2],
            vec![0, 0, 0, 0],
        ] {
            check(&order);
        }
        let events = notes(&[0, 1, 2, 0, 1, 2]);
        let seqs = Seqs::new(&events);
        assert_eq!(seqs.earlier(&events, 1, 2), Some(1));
        assert_eq!(seqs.earlier(&events, 1, 5), Some(4));
        assert_eq!(seqs.later(&events, 2, 0), Some(2));
        assert_eq!(seqs.later(&events, 2, 3), Some(5));
        assert_eq!(seqs.last(&events, 0), Some(3));
    }

    #[test]
    fn seqs_out_of_order_are_found() {
        let order = [5, 1, 4, 2, 9];
        check(&order);
        let events = notes(&order);
        let seqs = Seqs::new(&events);
        let found: Vec<Option<usize>> = (1..6).map(|seq| seqs.last(&events, seq)).collect();
        assert_eq!(found, [Some(1), Some(3), None, Some(2), Some(0)]);
    }

    #[test]
    fn an_empty_trace_has_no_seq() {
        let seqs = check(&[]);
        assert_eq!(seqs.covered(), 0);
        assert_eq!(seqs.last(&[], 0), None);
        assert_eq!(seqs.later(&[], 0, 0), None);
    }

    /// Extended a few events at a time, the index is the index of the events so far, and
    /// finds nothing of the events it does not cover yet.
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
                            grown.later(&events, seq, 0),
                            whole.later(&events[..end], seq, 0),
                            "{order:?} by {step} to {end}: {seq}"
                        );
                    }
                }
            }
        }
    }

    /// Two sessions appended to one file, each counting from 0: a request and its answer in
    /// either are paired with each other, not with the other session's events of the same
    /// `seq`s (the first session's request was paired with the second's answer when the
    /// lookup took the last event with a `seq`; the second's answer with the first's request
    /// when it took the first).
    #[test]
    fn in_sessions_appended_to_one_file_each_pair_stays_in_its_session() {
        let raw = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        ];
        let session = raw.iter().enumerate().map(|(i, raw)| {
            let (from, to) = if i == 1 {
                (Lane::server("s"), Lane::Host)
            } else {
                (Lane::Host, Lane::server("s"))
            };
            let bytes = raw.as_bytes().to_vec();
            Event::with_bytes(
                i as u64,
                crate::trace::now(),
                from,
                to,
                Channel::Stdio,
                bytes,
            )
        });
        let events: Vec<Event> = session.clone().chain(session).collect();
        let analysis = crate::trace::analyze(&events);
        for (i, pair) in [(0, 1), (1, 0), (2, 3), (3, 2)] {
            assert!(
                !matches!(analysis.derived[i].pairing, Pairing::Unanswered(_)),
                "{i}"
            );
            assert_eq!(analysis.paired(&events, i), Some(pair), "{i}");
        }
    }
}
