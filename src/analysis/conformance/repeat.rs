//! Messages checked before: a trace repeats itself (the same `tools/list` result, the same
//! notification, the same call, run after run), and a message that is byte for byte one
//! checked before, but for its `id`, has the same outcome. Parsing and validating each was most
//! of a check's time; a message met again is compared with the one it repeats, byte by byte,
//! and takes its outcome.
//!
//! Only an `id` that is a plain integer or a plain string (no escapes) is set aside: every such
//! value is a valid JSON-RPC id in every revision, so two messages that differ only there parse
//! alike and pass or fail alike. A failure's words can quote the whole message (its `id` with
//! it), so a failure is taken over only from a message with the same `id`, or for a result
//! (whose checked part has no `id`).
//!
//! [`Repeats`] is the same memory for anything else read out of a message whose `id` does not
//! matter to it (a `tools/list` result's tools, a `tools/call`'s tool and arguments): `diff`'s
//! inventory, the tool definitions and the links read each distinct message once.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};

use crate::trace::Event;

/// At most this many distinct messages are remembered (a trace of unique messages must not
/// keep a second copy of itself).
const LIMIT: usize = 1 << 16;

/// What a message is checked as: its schema's revision, the definition, and where the checked
/// part is (`""`: the whole message, `"/result"`: its result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Context {
    pub revision: &'static str,
    pub definition: &'static str,
    pub prefix: &'static str,
}

/// What checking a message came to.
#[derive(Debug, Clone)]
pub(super) enum Outcome {
    /// Not checked: it is not JSON, or a response has no `result`.
    Skipped,
    /// Checked: whether it was a task-augmented request, and (pointer, rule, message) of each
    /// violation (none when valid).
    Checked {
        task: bool,
        described: Vec<(String, String, crate::i18n::Said)>,
    },
}

struct Entry {
    index: usize,
    id: Option<(usize, usize)>,
    context: Context,
    outcome: Outcome,
}

/// The messages checked so far, by the hash of their bytes without the `id` value.
pub(super) struct Seen {
    entries: HashMap<u64, Vec<Entry>>,
    count: usize,
    /// At most this many messages are remembered.
    limit: usize,
    /// How many messages took the outcome of one seen before.
    pub hits: usize,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            entries: HashMap::new(),
            count: 0,
            limit: LIMIT,
            hits: 0,
        }
    }
}

/// A message's text and where its `id` value lies (when it is a plain one): what tells a
/// message that repeats another (byte for byte, but for a plain id) from one that does not.
pub(crate) struct Shape<'a> {
    text: &'a [u8],
    id: Option<(usize, usize)>,
    hash: u64,
}

impl<'a> Shape<'a> {
    /// The shape of an event's payload, when it is text.
    pub(crate) fn of(event: &'a Event) -> Option<Shape<'a>> {
        let text = event.raw.as_deref()?.as_bytes();
        let id = top_level_id(text).filter(|&(s, e)| plain_id(&text[s..e]));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        match id {
            Some((s, e)) => {
                s.hash(&mut hasher);
                text[..s].hash(&mut hasher);
                text[e..].hash(&mut hasher);
            }
            None => text.hash(&mut hasher),
        }
        Some(Shape {
            text,
            id,
            hash: hasher.finish(),
        })
    }

    /// A hash that two shapes that are the [`Self::same`] share.
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// Whether both texts are the same but for a plain `id` value.
    pub(crate) fn same(&self, other: &Shape) -> bool {
        self.repeats(other.text, other.id, false)
    }

    /// Whether `other` is this text but for the `id` value; `same_id` also asks for the `id`.
    fn repeats(&self, other: &[u8], other_id: Option<(usize, usize)>, same_id: bool) -> bool {
        match (self.id, other_id) {
            (None, None) => self.text == other,
            (Some((s, e)), Some((os, oe))) => {
                s == os
                    && self.text[..s] == other[..s]
                    && self.text[e..] == other[oe..]
                    && (!same_id || self.text[s..e] == other[os..oe])
            }
            _ => false,
        }
    }
}

impl Seen {
    /// Remembers nothing: every message is checked afresh.
    #[cfg(test)]
    pub(super) fn none() -> Seen {
        Seen {
            limit: 0,
            ..Seen::default()
        }
    }

    /// The outcome of the message `shape` repeats, checked as `context`, if one was seen.
    pub(super) fn get(
        &self,
        events: &[Event],
        shape: &Shape,
        context: Context,
    ) -> Option<&Outcome> {
        let entries = self.entries.get(&shape.hash)?;
        entries.iter().find_map(|entry| {
            if entry.context != context {
                return None;
            }
            let other = events.get(entry.index)?.raw.as_deref()?.as_bytes();
            let same_id = match &entry.outcome {
                Outcome::Checked { described, .. } => {
                    !described.is_empty() && context.prefix.is_empty()
                }
                Outcome::Skipped => false,
            };
            shape
                .repeats(other, entry.id, same_id)
                .then_some(&entry.outcome)
        })
    }

    /// Makes room for the messages of a trace of `events` events (at most [`LIMIT`]) at once: a
    /// table that doubles as it fills moves all it holds in one go (2.4 ms natively at 14,336
    /// messages, several times that in the browser, in one step of its check).
    pub(super) fn reserve(&mut self, events: usize) {
        let room = events.min(self.limit.saturating_sub(self.count));
        self.entries
            .reserve(room.saturating_sub(self.entries.len()));
    }

    /// How many messages the table has room for (tests: it is made once).
    #[cfg(test)]
    pub(super) fn room(&self) -> usize {
        self.entries.capacity()
    }

    /// Forgets up to `count` of the messages remembered (their hashes' lists), for a caller
    /// that must not stop to free them all at once (the browser: up to [`LIMIT`] of them);
    /// true once none is left.
    pub(super) fn free(&mut self, count: usize) -> bool {
        free_some(&mut self.entries, count)
    }

    /// Remembers the outcome of event `index` (whose shape is `shape`).
    pub(super) fn insert(
        &mut self,
        index: usize,
        shape: &Shape,
        context: Context,
        outcome: Outcome,
    ) {
        if self.count >= self.limit {
            return;
        }
        self.count += 1;
        self.entries.entry(shape.hash).or_default().push(Entry {
            index,
            id: shape.id,
            context,
            outcome,
        });
    }
}

/// Frees up to `count` of `entries` (and the table itself once it is empty); true once it is.
fn free_some<V>(entries: &mut HashMap<u64, V>, count: usize) -> bool {
    let keys: Vec<u64> = entries.keys().take(count).copied().collect();
    for key in keys {
        entries.remove(&key);
    }
    if entries.is_empty() {
        *entries = HashMap::new();
        return true;
    }
    false
}

/// An event read by [`Repeats`]: its index, where its `id` lies, and what it gave.
type Read<T> = (usize, Option<(usize, usize)>, T);

/// What was read out of messages, by their [`Shape`]: a message that repeats one read before
/// (byte for byte, but for a plain `id`) takes what that one gave, without being parsed. Only for
/// what does not depend on the `id` value. At most [`LIMIT`] distinct messages are remembered.
pub(crate) struct Repeats<T> {
    /// By [`Shape::hash`]: the event read, where its `id` lies, and what it gave.
    entries: HashMap<u64, Vec<Read<T>>>,
    count: usize,
    limit: usize,
}

impl<T> Default for Repeats<T> {
    fn default() -> Self {
        Repeats {
            entries: HashMap::new(),
            count: 0,
            limit: LIMIT,
        }
    }
}

impl<T: Clone> Repeats<T> {
    /// Remembers nothing: every message is read afresh (what the memory must not change).
    #[cfg(test)]
    pub(crate) fn none() -> Repeats<T> {
        Repeats {
            limit: 0,
            ..Repeats::default()
        }
    }

    /// What `read` gives for event `index`: taken from an earlier event it repeats, else read
    /// (and remembered).
    pub(crate) fn read(
        &mut self,
        events: &[Event],
        index: usize,
        read: impl FnOnce(&Event) -> T,
    ) -> T {
        let event = &events[index];
        let Some(shape) = Shape::of(event) else {
            return read(event);
        };
        if let Some(entries) = self.entries.get(&shape.hash) {
            let known = entries.iter().find(|(at, id, _)| {
                events
                    .get(*at)
                    .and_then(|e| e.raw.as_deref())
                    .is_some_and(|other| shape.repeats(other.as_bytes(), *id, false))
            });
            if let Some((_, _, value)) = known {
                return value.clone();
            }
        }
        let value = read(event);
        if self.count < self.limit {
            self.count += 1;
            self.entries
                .entry(shape.hash)
                .or_default()
                .push((index, shape.id, value.clone()));
        }
        value
    }
}

/// An `id` every revision accepts as it is, and that parses as any other of its kind: `0`, an
/// integer of at most 18 digits without a leading zero, or a string without escapes or
/// control characters.
fn plain_id(token: &[u8]) -> bool {
    match token {
        [b'"', inner @ .., b'"'] => inner.iter().all(|&b| b >= 0x20 && b != b'\\' && b != b'"'),
        b"0" => true,
        _ => {
            let digits = token.strip_prefix(b"-").unwrap_or(token);
            (1..=18).contains(&digits.len())
                && digits[0] != b'0'
                && digits.iter().all(u8::is_ascii_digit)
        }
    }
}

/// The end of the string that starts at `start` (just past its closing quote).
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[j] == b'\\' {
            i = j + 2;
        } else {
            return Some(j + 1);
        }
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// Where the value of the first member spelled `"id"` of a top-level object lies (a byte
/// range); `None` for anything else. Only a range is read, nothing is validated: the caller
/// compares whole texts.
fn top_level_id(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut key_next = false;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i)?;
                if depth == 1 && key_next {
                    key_next = false;
                    if &b[i..end] == b"\"id\"" {
                        let colon = skip_space(b, end);
                        if b.get(colon) != Some(&b':') {
                            return None;
                        }
                        let start = skip_space(b, colon + 1);
                        let stop = match b.get(start)? {
                            b'"' => string_end(b, start)?,
                            _ => {
                                start
                                    + b[start..].iter().position(|c| {
                                        matches!(c, b',' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                                    })?
                            }
                        };
                        return Some((start, stop));
                    }
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                key_next = depth == 1;
            }
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b',' if depth == 1 => key_next = true,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message that repeats one read before (but for a plain id) is not read again; one that
    /// differs anywhere else is, and so is every message when nothing is remembered.
    #[test]
    fn repeated_messages_are_read_once() {
        let events = crate::analysis::fixtures::repeated_messages();
        for (mut memory, expected) in [(Repeats::default(), 7), (Repeats::none(), 14)] {
            let mut reads = 0;
            let lengths: Vec<usize> = (0..events.len())
                .map(|i| {
                    memory.read(&events, i, |e| {
                        reads += 1;
                        e.text().len()
                    })
                })
                .collect();
            assert_eq!(reads, expected);
            assert_eq!(lengths[3], lengths[1]);
            assert_ne!(lengths[11], lengths[1]);
        }
    }

    #[test]
    fn the_top_level_id_is_found_and_nested_ones_are_not() {
        fn at(s: &str) -> Option<&str> {
            top_level_id(s.as_bytes()).map(|(a, b)| &s[a..b])
        }
        assert_eq!(at(r#"{"jsonrpc":"2.0","id":12,"method":"x"}"#), Some("12"));
        assert_eq!(
            at(r#"{"result":{"id":1,"a":"\"id\":3"},"id" : "k"}"#),
            Some("\"k\"")
        );
        assert_eq!(at(r#"{"params":["id",{"id":2}],"id":-4}"#), Some("-4"));
        assert_eq!(at(r#"{"method":"x","params":{"id":1}}"#), None);
        assert_eq!(at(r#"["id",1]"#), None);
        assert_eq!(at(r#"{"a":"\\","id":7}"#), Some("7"));
        for plain in ["0", "7", "-12", "\"a-b\"", "\"\""] {
            assert!(plain_id(plain.as_bytes()), "{plain}");
        }
        for other in [
            "01",
            "1.5",
            "1e3",
            "null",
            "\"a\\n\"",
            "12345678901234567890",
            "-",
        ] {
            assert!(!plain_id(other.as_bytes()), "{other}");
        }
    }
}
