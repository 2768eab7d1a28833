//! A [`Filter`] matched against events: prepared once ([`Matcher::new`]: lanes made, text in
//! lower case), then asked per event with what the analysis derived for it. Typed terms read
//! the event's fields and its [`Derived`] only; free text alone reads the payload.

use super::{Dir, Filter, Pattern, Range, Status, Term};
use crate::trace::{Derived, Event, Lane, Pairing};

/// A filter ready to be asked about many events.
#[derive(Debug, Clone)]
pub struct Matcher {
    node: Node,
}

#[derive(Debug, Clone)]
enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Method(Pattern),
    Tool(Pattern),
    Server(Pattern),
    Lane(Lane),
    Dir(Dir),
    Kind(String),
    Status(Status),
    Latency(Range),
    Rev(String),
    Seq(Range),
    Text(Box<Text>),
}

/// Free text, prepared once: in lower case, with a searcher when it is ASCII.
#[derive(Debug, Clone)]
struct Text {
    lower: String,
    /// Finds `lower` in text lowered block by block ([`Text::ascii_in`]); `None` for text
    /// beyond ASCII (looked for in the whole text lowered) and for very long text.
    finder: Option<memchr::memmem::Finder<'static>>,
}

/// Below this many events [`Matcher::keeps`] reads their payloads on one thread.
const KEEPS_IN_HALVES_FROM: usize = 10_000;

/// How much of a payload is lowered at a time for [`Text::ascii_in`]: small enough to stay in
/// the first-level cache between lowering it and searching it.
const BLOCK: usize = 4096;

impl Text {
    fn new(text: &str) -> Text {
        let lower = text.to_lowercase();
        let finder = (lower.is_ascii() && !lower.is_empty() && lower.len() <= BLOCK / 2)
            .then(|| memchr::memmem::Finder::new(lower.as_bytes()).into_owned());
        Text { lower, finder }
    }

    /// Whether `hay` holds the text in any case: an ASCII text is looked for in `hay`'s ASCII
    /// letters lowered (what comparing each place ignoring ASCII case finds), any other in
    /// `hay` lowered whole.
    fn in_text(&self, hay: &str) -> bool {
        match &self.finder {
            Some(finder) => Text::ascii_in(finder, hay.as_bytes()),
            None if self.lower.is_ascii() => holds(hay, &self.lower),
            None => hay.to_lowercase().contains(&self.lower),
        }
    }

    /// Lowers `hay` a block at a time into a buffer that stays in cache and searches each
    /// block with memchr's vectorised `memmem` (one pass over a payload, however common the
    /// text's letters are; comparing from each place its first letter occurs was three times
    /// slower on a tool-heavy trace, where `s` or `t` starts every other word). Blocks overlap
    /// by the needle's length less one, so a match across their seam is found.
    fn ascii_in(finder: &memchr::memmem::Finder<'_>, hay: &[u8]) -> bool {
        let overlap = finder.needle().len() - 1;
        let mut block = [0u8; BLOCK];
        let mut at = 0;
        loop {
            let end = hay.len().min(at + BLOCK);
            let lowered = &mut block[..end - at];
            for (to, &b) in lowered.iter_mut().zip(&hay[at..end]) {
                *to = b | (u8::from(b.is_ascii_uppercase()) << 5);
            }
            if finder.find(lowered).is_some() {
                return true;
            }
            if end == hay.len() {
                return false;
            }
            at = end - overlap;
        }
    }
}

impl Matcher {
    pub fn new(filter: &Filter) -> Matcher {
        Matcher { node: node(filter) }
    }

    /// Whether event `e`, with `d` its analysis, passes.
    pub fn matches(&self, e: &Event, d: &Derived) -> bool {
        self.node.matches(e, d)
    }

    /// Which of `events` pass, index for index, `derived` being their analysis: in two halves
    /// (on two threads where there are) when a term reads payloads, the one kind of term
    /// whose cost grows with the trace's bytes rather than its events.
    pub fn keeps(&self, events: &[Event], derived: &[Derived]) -> Vec<bool> {
        let part = |events: &[Event], derived: &[Derived]| -> Vec<bool> {
            events
                .iter()
                .zip(derived)
                .map(|(e, d)| self.matches(e, d))
                .collect()
        };
        let n = events.len().min(derived.len());
        if !self.reads_text() || n < KEEPS_IN_HALVES_FROM {
            return part(events, derived);
        }
        let (events, derived) = (&events[..n], &derived[..n]);
        let (mut first, second) = crate::trace::halves::join(
            || part(&events[..n / 2], &derived[..n / 2]),
            || part(&events[n / 2..], &derived[n / 2..]),
        );
        first.extend(second);
        first
    }

    /// Whether any term looks for text (the payload is read only for those).
    pub fn reads_text(&self) -> bool {
        fn any(n: &Node) -> bool {
            match n {
                Node::And(xs) | Node::Or(xs) => xs.iter().any(any),
                Node::Not(x) => any(x),
                Node::Text(_) => true,
                _ => false,
            }
        }
        any(&self.node)
    }
}

fn node(f: &Filter) -> Node {
    match f {
        Filter::And(xs) => Node::And(xs.iter().map(node).collect()),
        Filter::Or(xs) => Node::Or(xs.iter().map(node).collect()),
        Filter::Not(x) => Node::Not(Box::new(node(x))),
        Filter::Term(t) => match t {
            Term::Method(p) => Node::Method(p.clone()),
            Term::Tool(p) => Node::Tool(p.clone()),
            Term::Server(p) => Node::Server(p.clone()),
            Term::Lane(l) => Node::Lane(Lane::from(l.as_str())),
            Term::Dir(d) => Node::Dir(*d),
            Term::Kind(k) => Node::Kind(k.clone()),
            Term::Status(s) => Node::Status(*s),
            Term::Latency(r) => Node::Latency(*r),
            Term::Rev(r) => Node::Rev(r.clone()),
            Term::Seq(r) => Node::Seq(*r),
            Term::Text(t) => Node::Text(Box::new(Text::new(t))),
        },
    }
}

impl Pattern {
    pub fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Exact(p) => s == p,
            Pattern::Prefix(p) => s.starts_with(p.as_str()),
        }
    }
}

impl Node {
    fn matches(&self, e: &Event, d: &Derived) -> bool {
        match self {
            Node::And(xs) => xs.iter().all(|x| x.matches(e, d)),
            Node::Or(xs) => xs.iter().any(|x| x.matches(e, d)),
            Node::Not(x) => !x.matches(e, d),
            Node::Method(p) => d.method.as_deref().is_some_and(|m| p.matches(m)),
            Node::Tool(p) => {
                d.method.as_deref() == Some("tools/call")
                    && d.detail.as_deref().is_some_and(|t| p.matches(t))
            }
            Node::Server(p) => [&e.from, &e.to]
                .into_iter()
                .any(|l| l.server_name().is_some_and(|n| p.matches(n))),
            Node::Lane(l) => e.from == *l || e.to == *l,
            Node::Dir(dir) => match dir {
                Dir::C2s => e.to.is_server() && !e.from.is_server(),
                Dir::S2c => e.from.is_server(),
                Dir::H2l => e.from == Lane::Host && e.to == Lane::Llm,
                Dir::L2h => e.from == Lane::Llm && e.to == Lane::Host,
            },
            Node::Kind(k) => d.kind.as_str() == k,
            Node::Status(s) => match s {
                Status::Answered => {
                    matches!(d.pairing, Pairing::AnsweredBy(_) | Pairing::Answers(_))
                }
                Status::Unanswered => d.is_unanswered(),
                Status::Cancelled => matches!(d.pairing, Pairing::Cancelled(_)),
                Status::Orphan => d.pairing == Pairing::Orphan,
            },
            Node::Latency(r) => d.latency_us().is_some_and(|us| r.contains(us)),
            Node::Rev(r) => d.revision.as_deref() == Some(r.as_str()),
            Node::Seq(r) => i64::try_from(e.seq).is_ok_and(|s| r.contains(s)),
            Node::Text(t) => {
                t.lower.is_empty()
                    || d.method.as_deref().is_some_and(|m| t.in_text(m))
                    || t.in_text(&e.text())
            }
        }
    }
}

/// Whether `hay` holds `lower` (ASCII, in lower case) in any ASCII case, compared byte by byte
/// from each place its first byte occurs in either case: for a text too long for
/// [`Text::ascii_in`]'s blocks.
fn holds(hay: &str, lower: &str) -> bool {
    let needle = lower.as_bytes();
    let Some(&first) = needle.first() else {
        return true;
    };
    let bytes = hay.as_bytes();
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), bytes).any(|at| {
        bytes
            .get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, Text};

    /// The block search finds what comparing at every place ignoring ASCII case finds: at the
    /// start, the end and across each seam between blocks, in any case, beside text beyond
    /// ASCII; and a needle too long for the blocks is still found.
    #[test]
    fn free_text_is_found_wherever_it_lies_in_any_case() {
        let reference = |hay: &str, lower: &str| hay.to_ascii_lowercase().contains(lower);
        let long = "Seoul ".repeat(BLOCK / 8);
        for needle in ["seoul", "s", "Get_Weather", "é,x", long.as_str()] {
            let text = Text::new(needle);
            let lower = needle.to_lowercase();
            let shown: String = needle
                .chars()
                .enumerate()
                .map(|(i, c)| match i % 2 {
                    0 => c.to_ascii_uppercase(),
                    _ => c,
                })
                .collect();
            for len in [0, 3, BLOCK - 1, BLOCK, 3 * BLOCK + 7] {
                for at in [0, 1, BLOCK - 4, BLOCK - 1, BLOCK, 2 * BLOCK - 2, len] {
                    let mut hay = "ü-".repeat(len / 3 + 1);
                    hay.truncate(hay.floor_char_boundary(len));
                    let at = hay.floor_char_boundary(at.min(hay.len()));
                    assert_eq!(
                        text.in_text(&hay),
                        reference(&hay, &lower),
                        "{needle} {len}"
                    );
                    hay.insert_str(at, &shown);
                    assert!(text.in_text(&hay), "{needle} at {at} of {len}");
                    assert_eq!(text.in_text(&hay), reference(&hay, &lower));
                }
            }
        }
    }
}
