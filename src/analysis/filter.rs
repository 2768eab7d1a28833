//! The display-filter language, one for the command line (`summary --filter`, `export
//! --filter`, `stats --filter`) and the app's filter box: typed fields, free text, `and`, `or`,
//! `not` and parentheses, parsed once into a [`Filter`] that each event is matched against.
//!
//! ```text
//! method:tools/call and latency:>100ms
//! (server:weather or server:forecast) not kind:notification
//! tool:get_* dir:s2c "rate limit"
//! ```
//!
//! Fields: `method:`, `tool:`, `server:` (a trailing `*` matches a prefix), `lane:` (`user`,
//! `host`, `llm`, `server:NAME`), `dir:` (`c2s`, `s2c`, `h2l`, `l2h`), `kind:` (the kinds of
//! [`crate::trace::Kind`]), `status:` (`answered`, `unanswered`, `cancelled`, `orphan`),
//! `latency:` (`>100ms`, `<=2s`, `50ms..1s`; `us`, `ms` or `s`, a bare number is ms), `rev:`,
//! `seq:` (`10`, `10..20`, `>10`). A word without a field is text looked for, in any case, in
//! the payload and the method; quote it (`"a b"`, `\"` and `\\` inside) to keep spaces or a
//! word the grammar would read. Terms side by side are `and`ed; `and` binds tighter than `or`;
//! `!` and `-` are `not`.
//!
//! A mistake is a [`FilterError`] with the column (in characters, from 1) where it is. A
//! [`Filter`] prints back as text that parses to the same filter (the property test).

mod eval;
mod parse;
#[cfg(test)]
mod tests;

use std::fmt;

pub use eval::Matcher;
pub use parse::parse;

/// A parsed filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Every term holds (two or more).
    And(Vec<Filter>),
    /// One term holds (two or more).
    Or(Vec<Filter>),
    Not(Box<Filter>),
    Term(Term),
}

/// One test of an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Method(Pattern),
    Tool(Pattern),
    Server(Pattern),
    /// A lane as a trace writes it (`user`, `host`, `llm`, `server:NAME`, or any other).
    Lane(String),
    Dir(Dir),
    /// One of [`crate::trace::Kind::as_str`]'s names.
    Kind(String),
    Status(Status),
    /// Request-to-response time in microseconds.
    Latency(Range),
    Rev(String),
    Seq(Range),
    /// Looked for in any case in the payload and the method.
    Text(String),
}

/// A name, or a prefix (`get_*`).
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    Exact(String),
    Prefix(String),
}

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// To a server, from its client.
    C2s,
    /// From a server.
    S2c,
    /// From the host to the model's API.
    H2l,
    /// From the model's API to the host.
    L2h,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::C2s, Dir::S2c, Dir::H2l, Dir::L2h];

    pub fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
            Dir::H2l => "h2l",
            Dir::L2h => "l2h",
        }
    }
}

/// A request's fate, as the pairing says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Answered,
    Unanswered,
    Cancelled,
    Orphan,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Answered,
        Status::Unanswered,
        Status::Cancelled,
        Status::Orphan,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::Unanswered => "unanswered",
            Status::Cancelled => "cancelled",
            Status::Orphan => "orphan",
        }
    }
}

/// Inclusive bounds; `None` is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

impl Range {
    pub fn contains(&self, n: i64) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }
}

/// What is wrong with a filter, and the column (in characters, from 1) where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {problem}")]
pub struct FilterError {
    pub column: usize,
    pub problem: Problem,
}

/// The mistakes a filter can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("empty filter")]
    Empty,
    #[error(
        "`{0}` is not a field (method, tool, server, lane, dir, kind, status, latency, rev, seq)"
    )]
    UnknownField(String),
    #[error("`{field}:` needs a value")]
    NoValue { field: String },
    #[error("`{value}` is not a value of `{field}:` (one of {expected})")]
    BadValue {
        field: String,
        value: String,
        expected: String,
    },
    #[error("a quote is not closed")]
    Unclosed,
    #[error("a `(` is not closed")]
    UnclosedParen,
    #[error("`)` closes nothing")]
    StrayParen,
    #[error("a term is expected here")]
    ExpectedTerm,
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = |f: &mut fmt::Formatter<'_>, x: &Filter| match x {
            Filter::And(_) | Filter::Or(_) => write!(f, "({x})"),
            _ => write!(f, "{x}"),
        };
        match self {
            Filter::And(xs) | Filter::Or(xs) => {
                let joint = if matches!(self, Filter::And(_)) {
                    " and "
                } else {
                    " or "
                };
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(joint)?;
                    }
                    part(f, x)?;
                }
                Ok(())
            }
            Filter::Not(x) => {
                f.write_str("not ")?;
                part(f, x)
            }
            Filter::Term(t) => t.fmt(f),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Method(p) => write!(f, "method:{p}"),
            Term::Tool(p) => write!(f, "tool:{p}"),
            Term::Server(p) => write!(f, "server:{p}"),
            Term::Lane(l) => write!(f, "lane:{}", quoted(l)),
            Term::Dir(d) => write!(f, "dir:{}", d.as_str()),
            Term::Kind(k) => write!(f, "kind:{k}"),
            Term::Status(s) => write!(f, "status:{}", s.as_str()),
            Term::Latency(r) => write!(f, "latency:{}", range_text(r, "us")),
            Term::Rev(r) => write!(f, "rev:{}", quoted(r)),
            Term::Seq(r) => write!(f, "seq:{}", range_text(r, "")),
            Term::Text(t) => f.write_str(&quoted(t)),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Exact(s) => f.write_str(&quoted(s)),
            Pattern::Prefix(s) => write!(f, "{}*", quoted(s)),
        }
    }
}

/// A range as `seq:` and `latency:` read it: `5`, `5..9`, `5..`, `..9`.
fn range_text(r: &Range, unit: &str) -> String {
    match (r.min, r.max) {
        (Some(a), Some(b)) if a == b => format!("{a}{unit}"),
        (a, b) => format!(
            "{}..{}",
            a.map_or_else(String::new, |a| format!("{a}{unit}")),
            b.map_or_else(String::new, |b| format!("{b}{unit}"))
        ),
    }
}

/// A word as the parser reads it back: bare when it can be, else in quotes.
pub fn quoted(s: &str) -> String {
    if parse::bare(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

impl FilterError {
    /// The mistake as words each language can say (`filter_error.*`), with the column.
    pub fn said(&self) -> crate::i18n::Said {
        use crate::i18n::Said;
        let problem = match &self.problem {
            Problem::Empty => Said::new("filter_error.empty"),
            Problem::UnknownField(field) => {
                Said::new("filter_error.unknown_field").with("field", field)
            }
            Problem::NoValue { field } => Said::new("filter_error.no_value").with("field", field),
            Problem::BadValue {
                field,
                value,
                expected,
            } => Said::new("filter_error.bad_value")
                .with("field", field)
                .with("value", value)
                .with("expected", expected),
            Problem::Unclosed => Said::new("filter_error.unclosed"),
            Problem::UnclosedParen => Said::new("filter_error.unclosed_paren"),
            Problem::StrayParen => Said::new("filter_error.stray_paren"),
            Problem::ExpectedTerm => Said::new("filter_error.expected_term"),
        };
        Said::new("filter_error.at")
            .with("column", self.column)
            .with_said("problem", problem)
    }
}
