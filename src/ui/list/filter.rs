//! What the message list filters by, and how one event is matched against it: the fields
//! compared as they are, the text looked for case-insensitively in the payload and the row's
//! label (each repeated label looked at once).

use std::collections::HashMap;

use crate::analysis::diagram;
use crate::trace::{Kind, Lane};
use crate::ui::store::TraceStore;

/// What the user filters by. Empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Events to or from this lane.
    pub lane: Option<Lane>,
    pub method: Option<String>,
    pub kind: Option<Kind>,
    /// Case-insensitive text in the raw payload or the label.
    pub text: String,
}

impl Filter {
    pub fn is_active(&self) -> bool {
        *self != Filter::default()
    }

    /// Whether event `i` passes. `needle` is the text in lower case; `labels` remembers, for
    /// the labels that repeat, whether they hold it.
    pub fn matches(&self, store: &TraceStore, i: usize, needle: &str, labels: &mut Labels) -> bool {
        let e = &store.events[i];
        let d = &store.report.rpc.derived[i];
        if self
            .lane
            .as_ref()
            .is_some_and(|l| e.from != *l && e.to != *l)
        {
            return false;
        }
        if self.kind.is_some_and(|k| d.kind != k) {
            return false;
        }
        if self
            .method
            .as_ref()
            .is_some_and(|m| d.method.as_deref() != Some(m.as_str()))
        {
            return false;
        }
        if !needle.is_empty() {
            return contains_folded(&e.text(), needle) || label_matches(store, i, needle, labels);
        }
        true
    }
}

/// Whether labels shared by many rows hold the needle: (kind, method, qualifier,
/// input_required) -> (without `isError`, with it).
pub type Labels = HashMap<(u8, usize, usize, bool), (bool, bool)>;

/// Case-insensitive `contains` (as `hay.to_lowercase().contains(needle)` with `needle` in
/// lower case), without a copy of `hay` when both are ASCII. It looks for the needle's rarest
/// byte (in either case) and compares around each place it occurs: the first byte of a word
/// like `summarize` occurs every few bytes of JSON, its `z` seldom.
pub(super) fn contains_folded(hay: &str, needle: &str) -> bool {
    if !hay.is_ascii() || !needle.is_ascii() {
        return hay.to_lowercase().contains(needle);
    }
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    if needle.is_empty() {
        return true;
    }
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    let (at, &rare) = needle
        .iter()
        .enumerate()
        .min_by_key(|(_, b)| commonness(**b))
        .unwrap_or((0, &needle[0]));
    let (lower, upper) = (rare.to_ascii_lowercase(), rare.to_ascii_uppercase());
    // Only where the needle would fit around the rare byte.
    let window = &hay[at..last_start + at + 1];
    memchr::memchr2_iter(lower, upper, window)
        .any(|p| hay[p..p + needle.len()].eq_ignore_ascii_case(needle))
}

/// How often a (lower-case) byte occurs in traces' text, roughly: JSON's punctuation and the
/// common letters of English first, rare letters and symbols last.
fn commonness(b: u8) -> u8 {
    const ORDER: &[u8] = b"\" :,e{}tao_isnr-hl/dc1u0m2p.f3gwy5b47v896k[]jxqz";
    ORDER
        .iter()
        .position(|&c| c == b.to_ascii_lowercase())
        .map_or(0, |p| (ORDER.len() - p) as u8)
}

/// Whether the label of event `i`'s row holds the needle. The labels of requests, results and
/// notifications repeat (method and qualifier), so each distinct one is looked at once.
fn label_matches(store: &TraceStore, i: usize, needle: &str, labels: &mut Labels) -> bool {
    let e = &store.events[i];
    let d = &store.report.rpc.derived[i];
    let ptr = |t: &Option<crate::trace::Shared>| t.as_deref().map_or(0, |s| s.as_ptr() as usize);
    if !diagram::has_message_label(e, d) {
        return store
            .diagram
            .row_of_event(i)
            .is_some_and(|r| contains_folded(&store.row_label(r), needle));
    }
    let key = (
        d.kind as u8,
        ptr(&d.method),
        ptr(&d.detail),
        d.input_required,
    );
    let (plain, flagged) = *labels.entry(key).or_insert_with(|| {
        (
            contains_folded(&diagram::message_label(d, false), needle),
            contains_folded(&diagram::message_label(d, true), needle),
        )
    });
    if plain == flagged || !diagram::tool_result_is_error(e) {
        plain
    } else {
        flagged
    }
}
