//! The loop a text filter runs over a big trace, apart from what one event's match is
//! ([`Filter::matches`]): on a million events the second keystroke reads most payloads (the
//! first is settled by the byte sets), and that is memory-bound. So the loop asks for the
//! payload of the row some distance ahead before it looks at this one, and only for rows
//! whose byte sets say the payload may hold the needle.

use super::filter::{Filter, Found, Labels, Needle};
use crate::ui::store::TraceStore;

/// How many rows ahead a payload is asked for: a row takes a few hundred nanoseconds (its
/// payload read from memory), a read from memory about a hundred.
const AHEAD: usize = 12;

/// The events among `count` candidates that pass `filter` with the text prepared as `needle`,
/// and where each one's payload holds it. `at(k)` is the `k`th candidate (in increasing
/// order) and the byte its payload need be searched from.
pub(super) fn matching(
    store: &TraceStore,
    filter: &Filter,
    needle: &Needle,
    count: usize,
    at: impl Fn(usize) -> (usize, usize),
) -> (Vec<usize>, Vec<Found>) {
    let mut labels = Labels::default();
    let (mut hits, mut found) = (Vec::new(), Vec::new());
    // The byte sets settle a needle of one listed byte: no payload is read then.
    let reads = !needle.is_empty() && !needle.needs.exact;
    for k in 0..count {
        if reads && k + AHEAD < count {
            let (ahead, from) = at(k + AHEAD);
            prefetch_payload(store, needle, ahead, from);
        }
        let (i, from) = at(k);
        if let Some(place) = filter.matches(store, i, needle, from, &mut labels) {
            hits.push(i);
            found.push(place);
        }
    }
    (hits, found)
}

/// Asks for event `i`'s payload from byte `from`, when its byte set (if made) says the needle
/// may be in it.
fn prefetch_payload(store: &TraceStore, needle: &Needle, i: usize, from: usize) {
    let needs = needle.needs.classes;
    let may_hold = store
        .byte_sets
        .get()
        .and_then(|sets| sets.get(i))
        .is_none_or(|&[payload, _]| payload & needs == needs);
    if !may_hold {
        return;
    }
    if let Some(raw) = store.events.get(i).and_then(|e| e.raw.as_deref()) {
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
