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
    /// In lower case.
    Text(String),
}

impl Matcher {
    pub fn new(filter: &Filter) -> Matcher {
        Matcher { node: node(filter) }
    }

    /// Whether event `e`, with `d` its analysis, passes.
    pub fn matches(&self, e: &Event, d: &Derived) -> bool {
        self.node.matches(e, d)
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
            Term::Text(t) => Node::Text(t.to_lowercase()),
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
                t.is_empty()
                    || d.method.as_deref().is_some_and(|m| holds(m, t))
                    || holds(&e.text(), t)
            }
        }
    }
}

/// Whether `hay` holds `lower` (in lower case) in any case: an ASCII needle compared byte by
/// byte from each place its first byte occurs in either case, any other lowered whole.
fn holds(hay: &str, lower: &str) -> bool {
    let needle = lower.as_bytes();
    if !lower.is_ascii() {
        return hay.to_lowercase().contains(lower);
    }
    let first = needle[0];
    let bytes = hay.as_bytes();
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), bytes).any(|at| {
        bytes
            .get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}
