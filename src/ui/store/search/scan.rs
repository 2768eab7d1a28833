//! The loop a text filter runs over a big trace, apart from what one event's match is
//! ([`Filter::matches`]): on a million events the second keystroke reads most payloads (the
//! first is settled by the byte sets), and that is memory-bound. Each payload is an allocation
//! of its own, on a page of its own, so reading one waits for the page's address to be looked
//! up before its bytes come. The loop asks for the payloads of the next block of rows, in a
//! burst before it looks at this block (so those look-ups overlap), and only for rows whose
//! byte sets say the payload may hold the needle. A big trace's candidates are cut in chunks
//! that two threads take in turn, so a thread slowed by another process leaves its share to
//! the other.

use super::filter::{Filter, Found, Labels, Needle};
use crate::ui::store::TraceStore;
use crate::ui::sys::prefetch;

/// How many rows a burst of requests covers: the rows one block ahead have their payloads
/// asked for (and two blocks ahead, the events themselves). A row takes a hundred
/// nanoseconds or more (its payload read from memory), a read from memory about as long.
const BLOCK: usize = 16;

/// What a search settles once for all its candidates (the byte sets may become ready while it
/// runs: every chunk must push places or none).
#[derive(Debug, Clone, Copy)]
pub(in crate::ui) struct Plan {
    /// Payloads are read (else no place is pushed: all [`NOT_READ`](super::NOT_READ)).
    reads: bool,
    /// With the byte sets made, a row's label is known without its event or analysis: only
    /// where its payload is needs asking for.
    light: bool,
}

impl Plan {
    pub(in crate::ui) fn new(store: &TraceStore, needle: &Needle) -> Plan {
        let sets = store.byte_sets.get();
        // The byte sets, once made, settle a needle of one listed byte: no payload is read then.
        let settled = needle.needs.exact && sets.is_some_and(|sets| sets.len() >= store.len());
        Plan {
            reads: !needle.is_empty() && !settled,
            light: sets.is_some(),
        }
    }
}

/// The events among `count` candidates that pass `filter` with the text prepared as `needle`,
/// and where each one's payload holds it (none unless `plan` reads payloads). `at(k)` is the
/// `k`th candidate (in increasing order) and the byte its payload need be searched from.
pub(in crate::ui) fn matching(
    store: &TraceStore,
    filter: &Filter,
    needle: &Needle,
    plan: Plan,
    range: std::ops::Range<usize>,
    at: impl Fn(usize) -> (usize, usize),
) -> (Vec<usize>, Vec<Found>) {
    let (mut hits, mut found) = (Vec::new(), Vec::new());
    each_match(store, filter, needle, plan, range, at, |i, place| {
        hits.push(i);
        if plan.reads {
            found.push(place);
        }
    });
    (hits, found)
}

/// Calls `hit` with each candidate of `range` that passes, and where (see [`matching`]).
fn each_match(
    store: &TraceStore,
    filter: &Filter,
    needle: &Needle,
    plan: Plan,
    range: std::ops::Range<usize>,
    at: impl Fn(usize) -> (usize, usize),
    mut hit: impl FnMut(usize, Found),
) {
    let mut labels = Labels::default();
    let (start, end) = (range.start, range.end);
    if plan.reads {
        for k in start..(start + BLOCK).min(end) {
            prefetch_row(store, at(k).0, plan.light);
        }
    }
    let mut block = start;
    while block < end {
        let next = (block + BLOCK).min(end);
        if plan.reads {
            // The rows of the block after next, then the payloads of the next.
            for k in (next + BLOCK).min(end)..(next + 2 * BLOCK).min(end) {
                prefetch_row(store, at(k).0, plan.light);
            }
            for k in next..(next + BLOCK).min(end) {
                let (ahead, from) = at(k);
                prefetch_payload(store, needle, ahead, from, plan.light);
            }
        }
        for k in block..next {
            let (i, from) = at(k);
            if let Some(place) = filter.matches(store, i, needle, from, &mut labels) {
                hit(i, place);
            }
        }
        block = next;
    }
}

/// A chunk of the candidates, and where its hits (and their places) go.
type Part<'a> = (usize, &'a mut [usize], &'a mut [Found]);

/// [`matching`] over `count` candidates on two threads (where there are two), in chunks each
/// takes in turn; the hits in the candidates' order. Each chunk's hits go to its own part of
/// one list as long as the candidates, made here (the threads allocate nothing: what a thread
/// allocates stays in its own arena once freed), then are moved together.
pub(in crate::ui) fn matching_in_chunks(
    store: &TraceStore,
    filter: &Filter,
    needle: &Needle,
    plan: Plan,
    count: usize,
    at: impl Fn(usize) -> (usize, usize) + Sync,
) -> (Vec<usize>, Vec<Found>) {
    let chunk = (count / 64).clamp(1024, 1 << 14);
    let mut hits = vec![0; count];
    let mut found: Vec<Found> = vec![0; if plan.reads { count } else { 0 }];
    let done = {
        let mut places = found.chunks_mut(chunk);
        let parts: Vec<Part<'_>> = hits
            .chunks_mut(chunk)
            .enumerate()
            .map(|(c, h)| (c, h, places.next().unwrap_or_default()))
            .collect();
        let parts = std::sync::Mutex::new(parts.into_iter());
        let work = || {
            let mut done = Vec::new();
            while let Some((c, h, f)) = parts.lock().ok().and_then(|mut p| p.next()) {
                let from = c * chunk;
                let mut n = 0;
                each_match(
                    store,
                    filter,
                    needle,
                    plan,
                    from..from + h.len(),
                    &at,
                    |i, place| {
                        h[n] = i;
                        if let Some(p) = f.get_mut(n) {
                            *p = place;
                        }
                        n += 1;
                    },
                );
                done.push((c, n));
            }
            done
        };
        let (mut done, more) = crate::trace::halves::join(work, work);
        done.extend(more);
        done.sort_unstable_by_key(|(c, _)| *c);
        done
    };
    let mut len = 0;
    for (c, n) in done {
        hits.copy_within(c * chunk..c * chunk + n, len);
        if plan.reads {
            found.copy_within(c * chunk..c * chunk + n, len);
        }
        len += n;
    }
    hits.truncate(len);
    hits.shrink_to_fit();
    found.truncate(if plan.reads { len } else { 0 });
    found.shrink_to_fit();
    (hits, found)
}

/// Asks for what [`prefetch_payload`] and [`Filter::matches`] read of event `i` before its
/// payload: where the payload is, and unless `light`, the event's label's inputs (the event
/// and its analysis).
fn prefetch_row(store: &TraceStore, i: usize, light: bool) {
    let Some(e) = store.events.get(i) else {
        return;
    };
    if light {
        let raw = (&raw const e.raw).cast::<u8>();
        prefetch(raw);
        prefetch(raw.wrapping_add(size_of::<Option<Box<str>>>() - 1));
        return;
    }
    // Every line of the event, wherever in a line it begins.
    let (start, size) = (
        (&raw const *e).cast::<u8>(),
        size_of::<crate::trace::Event>(),
    );
    for offset in (0..size).step_by(64).chain([size - 1]) {
        prefetch(start.wrapping_add(offset));
    }
    if let Some(d) = store.report.rpc.derived.get(i) {
        prefetch((&raw const *d).cast());
    }
}

/// Asks for event `i`'s payload from byte `from`, when its byte set (if made) says the needle
/// may be in it.
fn prefetch_payload(store: &TraceStore, needle: &Needle, i: usize, from: usize, light: bool) {
    let needs = needle.needs.classes;
    let may_hold = store
        .byte_sets
        .get()
        .and_then(|sets| sets.get(i))
        .is_none_or(|&[payload, _]| payload & needs == needs);
    if !may_hold {
        return;
    }
    let Some(e) = store.events.get(i) else {
        return;
    };
    // An HTTP event's status decides which label it has (`diagram::has_message_label`).
    if let Some(http) = e.http().filter(|_| !light) {
        prefetch((&raw const http.status).cast());
    }
    if let Some(raw) = e.raw.as_deref() {
        let bytes = raw.as_bytes();
        for line in [from, from + 64] {
            if let Some(b) = bytes.get(line) {
                prefetch(b);
            }
        }
    }
}
