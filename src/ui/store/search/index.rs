//! Which bytes each row holds, so a text filter over a million events need not read them all.
//!
//! For every event, two 64-bit sets of the byte classes (ASCII letters folded, digits, common
//! punctuation, one bit for the rest) that occur in its payload and in its row's label, and
//! the number of its label when many rows share it (or when it is one of the first few
//! thousand distinct labels of other rows: a process's, a note's, repeated): 20 bytes per
//! event, built on a background thread after a big trace opens. A needle holding a class a set
//! lacks is not in that text, which is then neither read nor made; a needle of one letter,
//! digit or listed symbol is in exactly the texts whose set holds it. What the sets say is what
//! [`super::Filter::matches`] would find (the tests compare them).

use std::sync::{Arc, OnceLock};

use super::filter::Needle;
use crate::analysis::Report;
use crate::analysis::diagram;
use crate::i18n::Language;
use crate::trace::Events;
use crate::trace::{Derived, Event, Shared};

/// Symbols with a class of their own (after `a`-`z` and `0`-`9`).
const SYMBOLS: &[u8] = b"_/-.:\"{}[], \\=?!'()@#$%&*+";
/// The class of everything else: other ASCII (controls) and every non-ASCII byte.
pub(super) const REST: u32 = 63;

/// The class of byte `b` (ASCII letters in either case share one).
pub(super) fn class(b: u8) -> u32 {
    match b.to_ascii_lowercase() {
        l @ b'a'..=b'z' => u32::from(l - b'a'),
        d @ b'0'..=b'9' => 26 + u32::from(d - b'0'),
        other => SYMBOLS
            .iter()
            .position(|&s| s == other)
            .map_or(REST, |p| 36 + p as u32),
    }
}

/// The classes of the bytes of `text`, as the filter reads it (lower case): the Kelvin sign
/// and `İ` lowercase to `k` and `i`.
pub(super) fn classes(text: &str) -> u64 {
    let mut set = 0u64;
    for &b in text.as_bytes() {
        set |= 1 << class(b);
    }
    if set & (1 << REST) != 0 {
        if text.contains('\u{212a}') {
            set |= 1 << class(b'k');
        }
        if text.contains('\u{130}') {
            set |= 1 << class(b'i');
        }
    }
    set
}

/// What the sets say of a needle: the classes it needs, and whether holding them is the same
/// as holding the needle (one byte with a class of its own).
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    pub classes: u64,
    pub exact: bool,
}

impl Needs {
    pub fn of(needle: &Needle) -> Needs {
        let text = needle.as_str();
        let exact = text.len() == 1 && class(text.as_bytes()[0]) != REST;
        Needs {
            classes: classes(text),
            exact,
        }
    }
}

/// The byte sets of a store's events, once a background thread has made them.
#[derive(Clone, Default)]
pub struct ByteSets {
    sets: Arc<OnceLock<Made>>,
    /// The language the rows' own labels were read in (a process note says `iniciado` in
    /// Portuguese): sets made in another language would hide rows a filter should find.
    lang: Option<Language>,
}

/// What the background thread makes: the sets, and which shared label each row has.
struct Made {
    sets: Vec<[u64; 2]>,
    /// Per event: the [`diagram::message_label`] it has, numbered from 0 in the order they
    /// first occur (as they read with and without `isError`), or its own label's number
    /// (from [`OWN_FROM`], see `own`), or [`OWN_LABEL`]. A filter then looks at each distinct
    /// one once without reading the event or its analysis.
    labels: Vec<u32>,
    /// The first [`OWN_KEPT`] distinct labels of rows without a shared one, numbered from
    /// [`OWN_FROM`]: a process's or a note's label repeats, and is slow to make (a row's whole
    /// text). At most a few hundred KB.
    own: Vec<Box<str>>,
}

/// What the byte sets hold of a trace: the sets, each event's label number, and the own labels
/// kept (see [`Made`]).
pub(super) struct Sets {
    pub sets: Vec<[u64; 2]>,
    pub labels: Vec<u32>,
    pub own: Vec<Box<str>>,
}

/// What tells shared labels apart: (kind, method, qualifier, input_required), the strings by
/// where they are (a shared string is one key).
pub(super) type LabelKey = (u8, usize, usize, bool);

/// The key of event `d`'s shared label (a [`diagram::message_label`]).
pub(super) fn label_key(d: &Derived) -> LabelKey {
    let ptr = |t: &Option<Shared>| t.as_deref().map_or(0, |s| s.as_ptr() as usize);
    (
        d.kind as u8,
        ptr(&d.method),
        ptr(&d.detail),
        d.input_required,
    )
}

/// Of what is known of a shared label as it reads without `isError` and with it, what event
/// `e`'s row has.
pub(super) fn as_read<T: PartialEq>(e: &Event, plain: T, flagged: T) -> T {
    if plain == flagged || !diagram::tool_result_is_error(e) {
        plain
    } else {
        flagged
    }
}

/// A row whose label is its own (no [`diagram::has_message_label`]), not among those kept.
pub const OWN_LABEL: u32 = u32::MAX;

/// The number of the first own label kept: shared labels are numbered below it.
pub(super) const OWN_FROM: u32 = 1 << 31;

/// How many distinct own labels are kept (each at most [`diagram`]'s 60 characters).
pub(in crate::ui) const OWN_KEPT: usize = 4096;

impl ByteSets {
    /// Starts making the sets of `events` (analysed as `report`) on a background thread;
    /// `None` sets (never made) where no thread can be started.
    pub fn start(events: &Events, report: &Arc<Report>, lang: Language) -> ByteSets {
        let sets = ByteSets {
            lang: Some(lang),
            ..ByteSets::default()
        };
        let (ev, rep, slot) = (events.clone(), Arc::clone(report), sets.sets.clone());
        let _ = std::thread::Builder::new()
            .name("sightline-byte-sets".into())
            .spawn(move || {
                let Sets { sets, labels, own } = make(&ev, &rep, lang);
                let _ = slot.set(Made { sets, labels, own });
            });
        sets
    }

    /// The language the sets are (being) made in; `None` when none are made.
    pub fn lang(&self) -> Option<Language> {
        self.lang
    }

    /// The sets (payload, label), one pair per event from the first, when they are ready.
    pub fn get(&self) -> Option<&[[u64; 2]]> {
        self.sets.get().map(|m| m.sets.as_slice())
    }

    /// The sets, and the number of each event's label (see [`Made::labels`]).
    pub(super) fn with_labels(&self) -> Option<(&[[u64; 2]], &[u32])> {
        self.sets
            .get()
            .map(|m| (m.sets.as_slice(), m.labels.as_slice()))
    }

    /// The own label numbered `number` (from [`OWN_FROM`]), if kept.
    pub(super) fn own_label(&self, number: u32) -> Option<&str> {
        let k = usize::try_from(number.checked_sub(OWN_FROM)?).ok()?;
        self.sets.get()?.own.get(k).map(|l| &**l)
    }
}

/// The sets of every event (its payload's classes and its label's), its label's number, and the
/// own labels kept (see [`Made`]).
pub(super) fn make(events: &[Event], report: &Report, lang: Language) -> Sets {
    let words = crate::i18n::Words::of(lang);
    // Labels of requests, results and notifications repeat: each distinct one is read once,
    // both as it reads with `isError` and without.
    let mut sets: std::collections::HashMap<LabelKey, (u64, u64, u32)> =
        std::collections::HashMap::new();
    let mut own: std::collections::HashMap<Box<str>, u32> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(events.len());
    let mut numbers = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let payload = classes(&e.text());
        let d = &report.rpc.derived[i];
        let (label, number) = if diagram::has_message_label(e, d) {
            let key = label_key(d);
            // Shared labels are numbered below the own ones (beyond, a row's label is made when
            // a filter looks at it, as an own label not kept).
            let next = u32::try_from(sets.len())
                .ok()
                .filter(|&n| n < OWN_FROM)
                .unwrap_or(OWN_LABEL);
            let (plain, flagged, number) = *sets.entry(key).or_insert_with(|| {
                (
                    classes(&diagram::message_label(d, false, words)),
                    classes(&diagram::message_label(d, true, words)),
                    next,
                )
            });
            (as_read(e, plain, flagged), number)
        } else {
            let label = diagram::row_text(events, report, i, lang).0;
            let set = classes(&label);
            let kept = own.len();
            let number = match own.get(label.as_str()) {
                Some(&number) => number,
                None if kept < OWN_KEPT => {
                    let number = OWN_FROM + kept as u32;
                    own.insert(label.into_boxed_str(), number);
                    number
                }
                None => OWN_LABEL,
            };
            (set, number)
        };
        out.push([payload, label]);
        numbers.push(number);
    }
    let mut own: Vec<(Box<str>, u32)> = own.into_iter().collect();
    own.sort_unstable_by_key(|(_, number)| *number);
    Sets {
        sets: out,
        labels: numbers,
        own: own.into_iter().map(|(label, _)| label).collect(),
    }
}
