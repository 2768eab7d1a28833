//! What the message list filters by, and how one event is matched against it: the fields
//! compared as they are, the text looked for case-insensitively in the payload and the row's
//! label (each repeated label looked at once).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::index::{LabelKey, Needs, OWN_FROM, OWN_KEPT, REST, as_read, label_key};
use std::sync::Arc;

use crate::analysis::diagram;
use crate::analysis::filter::{self as query, FilterError, Matcher, Term};
use crate::trace::{Kind, Lane};
use crate::ui::store::TraceStore;

/// What the user filters by. Empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Events to or from this lane.
    pub lane: Option<Lane>,
    pub method: Option<String>,
    pub kind: Option<Kind>,
    /// What the filter box holds: text looked for case-insensitively in the raw payload or the
    /// label, or the display-filter language ([`Query`]).
    pub text: String,
    /// The box's typed terms, as [`Query::of`] read them from `text` (set before a scan).
    pub(in crate::ui) typed: Typed,
}

impl Filter {
    /// The filter box holding `text` alone (a saved filter, an IO graph bar's events).
    pub fn of_text(text: String) -> Filter {
        Filter {
            text,
            ..Filter::default()
        }
    }
}

/// The typed part of the box's query, matched before the text; equal whatever it holds (the
/// box's text, which it is read from, tells filters apart).
#[derive(Debug, Clone, Default)]
pub struct Typed(pub Option<Arc<Matcher>>);

impl PartialEq for Typed {
    fn eq(&self, _: &Typed) -> bool {
        true
    }
}

/// The filter box read as the display-filter language ([`crate::analysis::filter`]), the one
/// `summary --filter` reads: typed terms, and the free text left for the fast text search.
/// Text that names no field (`tools/call`, `http://x`) is looked for as it is, as before the
/// language; so is a query with a mistake, whose error the box shows.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub typed: Option<Arc<Matcher>>,
    /// The text the needle looks for.
    pub free: String,
    pub error: Option<FilterError>,
}

impl Query {
    pub fn of(text: &str) -> Query {
        let plain = |error| Query {
            typed: None,
            free: text.to_string(),
            error,
        };
        let filter = match query::parse(text) {
            Ok(f) => f,
            Err(e) if names_a_field(text) => return plain(Some(e)),
            Err(_) => return plain(None),
        };
        let text_term = |f: &query::Filter| match f {
            query::Filter::Term(Term::Text(t)) => Some(t.clone()),
            _ => None,
        };
        match &filter {
            query::Filter::Term(Term::Text(_)) => plain(None),
            query::Filter::And(xs) if xs.iter().all(|x| text_term(x).is_some()) => plain(None),
            query::Filter::And(xs) if xs.iter().filter(|x| text_term(x).is_some()).count() == 1 => {
                let (free, typed): (Vec<_>, Vec<_>) =
                    xs.iter().cloned().partition(|x| text_term(x).is_some());
                let typed = match typed.len() {
                    1 => typed
                        .into_iter()
                        .next()
                        .unwrap_or(query::Filter::And(vec![])),
                    _ => query::Filter::And(typed),
                };
                Query {
                    typed: Some(Arc::new(Matcher::new(&typed))),
                    free: free.first().and_then(text_term).unwrap_or_default(),
                    error: None,
                }
            }
            whole => Query {
                typed: Some(Arc::new(Matcher::new(whole))),
                free: String::new(),
                error: None,
            },
        }
    }
}

/// Whether `text` has a word that begins with a field of the language and a colon.
fn names_a_field(text: &str) -> bool {
    const FIELDS: [&str; 10] = [
        "method:", "tool:", "server:", "lane:", "dir:", "kind:", "status:", "latency:", "rev:",
        "seq:",
    ];
    text.split(|c: char| c.is_whitespace() || c == '(')
        .any(|w| FIELDS.iter().any(|f| w.to_ascii_lowercase().starts_with(f)))
}

impl Filter {
    pub fn is_active(&self) -> bool {
        *self != Filter::default()
    }

    /// Whether event `i` passes: `None` when not, else where in its payload the text begins
    /// ([`Found`]). `needle` is the text, prepared ([`Needle::new`]); the payload need only be
    /// searched from byte `from` on (see [`Needle::find`]); `labels` remembers, for the labels
    /// that repeat, whether they hold it.
    pub fn matches(
        &self,
        store: &TraceStore,
        i: usize,
        needle: &Needle,
        from: usize,
        labels: &mut Labels,
    ) -> Option<Found> {
        let e = &store.events[i];
        let d = &store.report.rpc.derived[i];
        if self.typed.0.as_ref().is_some_and(|m| !m.matches(e, d)) {
            return None;
        }
        if self
            .lane
            .as_ref()
            .is_some_and(|l| e.from != *l && e.to != *l)
        {
            return None;
        }
        if self.kind.is_some_and(|k| d.kind != k) {
            return None;
        }
        if self
            .method
            .as_ref()
            .is_some_and(|m| d.method.as_deref() != Some(m.as_str()))
        {
            return None;
        }
        if needle.is_empty() {
            return Some(NOT_READ);
        }
        // What the byte sets say settles most rows without reading them.
        let made = store.byte_sets.with_labels();
        // (A payload without a byte beyond ASCII has no character that lowercases to ASCII.)
        let (in_payload, in_label, number, non_ascii) =
            match made.and_then(|(sets, numbers)| Some((sets.get(i)?, numbers.get(i)?))) {
                Some((&[payload, label], &number)) => {
                    let needs = needle.needs.classes;
                    let (in_payload, in_label) = (payload & needs == needs, label & needs == needs);
                    if needle.needs.exact || !(in_payload || in_label) {
                        return (in_payload || in_label).then_some(NOT_READ);
                    }
                    let non_ascii = payload & (1 << REST) != 0;
                    (in_payload, in_label, Some(number), non_ascii)
                }
                None => (true, true, None, true),
            };
        // A label shared by many rows is looked at once per search: before the payload, which
        // is not read when the label holds the needle. A row's own label is made now: after.
        // Which it has, the byte sets say without reading the event.
        let shared = number.map_or_else(|| diagram::has_message_label(e, d), |n| n < OWN_FROM);
        if in_label && shared && shared_label_matches(store, i, number, needle, labels) {
            return Some(NOT_READ);
        }
        if in_payload && let Some(at) = needle.find_in(&e.text(), from, non_ascii) {
            return Some(at);
        }
        (in_label && !shared && own_label_matches(store, i, number, needle, labels))
            .then_some(NOT_READ)
    }
}

/// Where a matching event's payload holds the text: the byte its first occurrence (in ASCII,
/// either case) begins at, or [`NOT_READ`].
pub type Found = u32;

/// Found without a place in the payload: by a label, the byte sets, a character that
/// lowercases to ASCII, or with nothing to find.
pub const NOT_READ: Found = u32::MAX;

/// The text looked for, prepared once per search: in lower case, and the byte of it to look
/// for first (its rarest, see [`commonness`]).
#[derive(Debug, Clone)]
pub struct Needle {
    lower: String,
    /// Where the rarest byte is in `lower`, and the byte in both cases (ASCII needles only).
    rare: Option<(usize, u8, u8)>,
    /// What a row's byte set must hold (see [`super::index`]).
    pub(super) needs: Needs,
}

impl Needle {
    pub fn new(text: &str) -> Needle {
        let lower = text.to_lowercase();
        let rare = (lower.is_ascii() && !lower.is_empty()).then(|| {
            let (at, &b) = lower
                .as_bytes()
                .iter()
                .enumerate()
                .min_by_key(|(_, b)| commonness(**b))
                .unwrap_or((0, &lower.as_bytes()[0]));
            (at, b.to_ascii_lowercase(), b.to_ascii_uppercase())
        });
        let mut needle = Needle {
            lower,
            rare,
            needs: Needs {
                classes: 0,
                exact: false,
            },
        };
        needle.needs = Needs::of(&needle);
        needle
    }

    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// The text in lower case.
    pub fn as_str(&self) -> &str {
        &self.lower
    }

    /// Case-insensitive `contains` (as `hay.to_lowercase().contains(needle)`), see
    /// [`contains_folded`].
    pub fn in_text(&self, hay: &str) -> bool {
        self.find(hay, 0).is_some()
    }

    /// [`Needle::in_text`], and where: `from` is a byte the needle's first ASCII occurrence
    /// (in either case) is known not to begin before (where a text it begins with was found:
    /// typing one more character, see [`Needle::resumes`]), so the search starts there.
    pub fn find(&self, hay: &str, from: usize) -> Option<Found> {
        self.find_in(hay, from, true)
    }

    /// [`Needle::find`] in a text that holds a byte beyond ASCII only if `non_ascii` (else
    /// the text is not searched again for characters that lowercase to ASCII).
    fn find_in(&self, hay: &str, from: usize, non_ascii: bool) -> Option<Found> {
        let Some((at, lower, upper)) = self.rare else {
            return hay.to_lowercase().contains(&self.lower).then_some(NOT_READ);
        };
        let needle = self.lower.as_bytes();
        let bytes = hay.as_bytes();
        if let Some(last_start) = bytes.len().checked_sub(needle.len())
            && from <= last_start
        {
            // Only where the needle would fit around the rare byte.
            let window = &bytes[from + at..last_start + at + 1];
            if let Some(p) = memchr::memchr2_iter(lower, upper, window)
                .map(|p| from + p)
                .find(|&p| bytes[p..p + needle.len()].eq_ignore_ascii_case(needle))
            {
                return Some(Found::try_from(p).unwrap_or(NOT_READ));
            }
        }
        // An ASCII match in the lowered text comes from ASCII in the text, except where a
        // character lowercases to ASCII: the Kelvin sign (to `k`) and `İ` (to `i` and a dot),
        // whose UTF-8 begins with 0xE2 and 0xC4.
        let folds = non_ascii
            && memchr::memchr2_iter(0xe2, 0xc4, bytes).any(|p| {
                bytes[p..].starts_with("\u{212a}".as_bytes())
                    || bytes[p..].starts_with("\u{130}".as_bytes())
            });
        (folds && hay.to_lowercase().contains(&self.lower)).then_some(NOT_READ)
    }

    /// How far before where `shorter` (a text this one holds) was found this one may begin,
    /// when both are ASCII: its first place in this one. `None` when the search must start
    /// over (`Found`s say nothing of where a non-ASCII needle is).
    pub fn resumes(&self, shorter: &str) -> Option<usize> {
        let shorter = shorter.to_lowercase();
        (self.rare.is_some() && !shorter.is_empty())
            .then(|| self.lower.find(&shorter))
            .flatten()
    }
}

/// Whether labels shared by many rows hold the needle (without `isError`, with it): by their
/// number in the byte sets (bit 0: known) when those are made, else by (kind, method,
/// qualifier, input_required). Looked up once per row of a search, so hashed by a multiply
/// rather than SipHash (the keys are the search's own, nobody else's).
#[derive(Default)]
pub struct Labels {
    by_number: Vec<u8>,
    /// For the own labels the byte sets keep: 0 unknown, 1 without the needle, 2 with it.
    own: Vec<u8>,
    by_key: HashMap<LabelKey, (bool, bool), BuildHasherDefault<KeyHasher>>,
}

/// A hasher for [`Labels`]' keys (pointers and small numbers): a multiply and a rotate per word.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
}

/// Case-insensitive `contains` (as `hay.to_lowercase().contains(needle)` with `needle` in
/// lower case), without a copy of `hay` when the needle is ASCII. It looks for the needle's
/// rarest byte (in either case) and compares around each place it occurs: the first byte of a
/// word like `summarize` occurs every few bytes of JSON, its `z` seldom.
#[cfg(test)]
pub(in crate::ui) fn contains_folded(hay: &str, needle: &str) -> bool {
    Needle::new(needle).in_text(hay)
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

/// Whether the label of event `i`'s row, a [`diagram::message_label`] (numbered `number` in the
/// byte sets, if made), holds the needle. Those labels repeat (method and qualifier), so each
/// distinct one is looked at once.
fn shared_label_matches(
    store: &TraceStore,
    i: usize,
    number: Option<u32>,
    needle: &Needle,
    labels: &mut Labels,
) -> bool {
    let e = &store.events[i];
    let d = &store.report.rpc.derived[i];
    let words = crate::i18n::Words::of(store.lang);
    let read = || {
        (
            needle.in_text(&diagram::message_label(d, false, words)),
            needle.in_text(&diagram::message_label(d, true, words)),
        )
    };
    let number = number.filter(|&n| n < OWN_FROM);
    let (plain, flagged) = match number.and_then(|n| usize::try_from(n).ok()) {
        Some(n) => {
            if labels.by_number.len() <= n {
                labels.by_number.resize(n + 1, 0);
            }
            if labels.by_number[n] == 0 {
                let (plain, flagged) = read();
                labels.by_number[n] = 1 | u8::from(plain) << 1 | u8::from(flagged) << 2;
            }
            let known = labels.by_number[n];
            (known & 2 != 0, known & 4 != 0)
        }
        None => *labels.by_key.entry(label_key(d)).or_insert_with(read),
    };
    as_read(e, plain, flagged)
}

/// Whether the label of event `i`'s row, one of its own (no [`diagram::has_message_label`]),
/// holds the needle. One the byte sets keep (numbered `number`) is looked at once per search;
/// the others are made now.
fn own_label_matches(
    store: &TraceStore,
    i: usize,
    number: Option<u32>,
    needle: &Needle,
    labels: &mut Labels,
) -> bool {
    let Some(r) = store.diagram.row_of_event(i) else {
        return false;
    };
    let kept = number.and_then(|n| Some((n, store.byte_sets.own_label(n)?)));
    let Some((n, label)) = kept else {
        return needle.in_text(&store.row_label(r));
    };
    let k = (n - OWN_FROM) as usize;
    if labels.own.is_empty() {
        labels.own = vec![0; OWN_KEPT];
    }
    let Some(known) = labels.own.get_mut(k) else {
        return needle.in_text(&store.row_label(r));
    };
    if *known == 0 {
        *known = 1 + u8::from(needle.in_text(label));
    }
    *known == 2
}
