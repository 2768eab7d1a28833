//! The loop a text filter runs over a big trace, apart from what one event's match is
//! ([`Filter::matches`]): on a million events the second keystroke reads most payloads (the
//! first is settled by the byte sets), and that is memory-bound. So the loop asks for the
//! payload of the row some distance ahead before it looks at this one, and only for rows
//! whose byte sets say the payload may hold the needle.

use super::filter::{Filter, Found, Labels, Needle};
use crate::ui::store::TraceStore;

/// How many rows ahead a payload is asked for (and twice that, the event itself): a row takes
/// a hundred nanoseconds or more (its payload read from memory), a read from memory about as
/// long.
const AHEAD: usize = 12;

/// The events among `count` candidates that pass `filter` with the text prepared as `needle`,
/// and where each one's payload holds it (none when no payload is read: all
/// [`NOT_READ`](super::NOT_READ)). `at(k)` is the `k`th candidate (in increasing order) and
/// the byte its payload need be searched from.
pub(super) fn matching(
    store: &TraceStore,
    filter: &Filter,
    needle: &Needle,
    count: usize,
    at: impl Fn(usize) -> (usize, usize),
) -> (Vec<usize>, Vec<Found>) {
    let mut labels = Labels::default();
    let (mut hits, mut found) = (Vec::new(), Vec::new());
    // The byte sets, once made, settle a needle of one listed byte: no payload is read then.
    let settled =
        needle.needs.exact && (store.byte_sets.get()).is_some_and(|sets| sets.len() >= store.len());
    let reads = !needle.is_empty() && !settled;
    // With the byte sets made, a row's label is known without its event or analysis: only
    // where its payload is needs asking for.
    let light = store.byte_sets.get().is_some();
    for k in 0..count {
        if reads && k + 2 * AHEAD < count {
            prefetch_row(store, at(k + 2 * AHEAD).0, light);
        }
        if reads && k + AHEAD < count {
            let (ahead, from) = at(k + AHEAD);
            prefetch_payload(store, needle, ahead, from, light);
        }
        let (i, from) = at(k);
        if let Some(place) = filter.matches(store, i, needle, from, &mut labels) {
            hits.push(i);
            if reads {
                found.push(place);
            }
        }
    }
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

/// A hint to the processor that the cache line at `at` is read soon. Nothing where there is
/// no such instruction (or none this code knows, the web viewer's wasm among them).
#[inline(always)]
fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is part of SSE, which every x86_64 processor has; a prefetch
    // never faults nor changes memory, whatever the address (here always a live payload's).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
