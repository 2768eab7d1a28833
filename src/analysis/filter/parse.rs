//! The filter's text read into a [`Filter`]: words and quotes into tokens, then `or` over
//! `and` over `not` over terms and parentheses, by recursive descent.

use super::{Dir, Filter, FilterError, Pattern, Problem, Range, Status, Term};

/// The kinds `kind:` takes (as [`crate::trace::Kind::as_str`] names them).
pub(super) const KINDS: [&str; 10] = [
    "request",
    "notification",
    "response",
    "error",
    "invalid",
    "stderr",
    "process",
    "note",
    "llm-http",
    "other",
];

const FIELDS: [&str; 10] = [
    "method", "tool", "server", "lane", "dir", "kind", "status", "latency", "rev", "seq",
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Not,
    And,
    Or,
    /// A term: `field:value` or text; `quoted` when its value was in quotes, `star` when a
    /// `*` followed it.
    Word {
        field: Option<String>,
        value: String,
        quoted: bool,
        star: bool,
        /// Where its value begins.
        value_col: usize,
    },
}

/// Whether `s` reads back as itself, unquoted, as a value or as text.
pub(super) fn bare(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(['!', '-'])
        && !s.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '(' | ')' | '"' | '\\' | ':' | '*')
        })
        && !["and", "or", "not"]
            .iter()
            .any(|k| s.eq_ignore_ascii_case(k))
        && s != "&&"
        && s != "||"
}

/// Reads a filter; an empty text (or only spaces) is [`Problem::Empty`].
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    let toks = tokens(text)?;
    let end = text.chars().count() + 1;
    if toks.is_empty() {
        return Err(FilterError {
            column: 1,
            problem: Problem::Empty,
        });
    }
    let mut p = Parser { toks, at: 0, end };
    let filter = p.or()?;
    match p.toks.get(p.at) {
        None => Ok(filter),
        Some((Tok::Close, col)) => Err(err(*col, Problem::StrayParen)),
        Some((_, col)) => Err(err(*col, Problem::ExpectedTerm)),
    }
}

fn err(column: usize, problem: Problem) -> FilterError {
    FilterError { column, problem }
}

fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, FilterError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let tok = match c {
            '(' => Tok::Open,
            ')' => Tok::Close,
            '!' | '-' => Tok::Not,
            _ if two == "&&" => {
                i += 1;
                Tok::And
            }
            _ if two == "||" => {
                i += 1;
                Tok::Or
            }
            '"' => {
                let (value, next) = quote(&chars, i)?;
                out.push((
                    Tok::Word {
                        field: None,
                        value,
                        quoted: true,
                        star: false,
                        value_col: col,
                    },
                    col,
                ));
                i = next;
                continue;
            }
            _ => {
                let start = i;
                while i < chars.len() && !ends_word(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let keyword = ["and", "or", "not"]
                    .into_iter()
                    .position(|k| word.eq_ignore_ascii_case(k));
                let tok = match (keyword, word.split_once(':')) {
                    (Some(0), _) => Tok::And,
                    (Some(1), _) => Tok::Or,
                    (Some(_), _) => Tok::Not,
                    (None, Some((field, value))) => {
                        let value_col = start + field.chars().count() + 2;
                        let (mut value, mut quoted) = (value.to_string(), false);
                        if value.is_empty() && chars.get(i) == Some(&'"') {
                            (value, i) = quote(&chars, i)?;
                            quoted = true;
                        }
                        let star = if quoted {
                            let star = chars.get(i) == Some(&'*');
                            i += usize::from(star);
                            star
                        } else {
                            let star = value.ends_with('*');
                            if star {
                                value.pop();
                            }
                            star
                        };
                        Tok::Word {
                            field: Some(field.to_string()),
                            value,
                            quoted,
                            star,
                            value_col,
                        }
                    }
                    (None, None) => Tok::Word {
                        field: None,
                        value: word,
                        quoted: false,
                        star: false,
                        value_col: col,
                    },
                };
                out.push((tok, col));
                continue;
            }
        };
        out.push((tok, col));
        i += 1;
    }
    Ok(out)
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '"')
}

/// The quoted string opening at `chars[at]` and the index after its closing quote.
fn quote(chars: &[char], at: usize) -> Result<(String, usize), FilterError> {
    let mut value = String::new();
    let mut i = at + 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Ok((value, i + 1)),
            '\\' if i + 1 < chars.len() => {
                value.push(chars[i + 1]);
                i += 2;
            }
            c => {
                value.push(c);
                i += 1;
            }
        }
    }
    Err(err(at + 1, Problem::Unclosed))
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    /// The column after the text: where a missing term is.
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn col(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |(_, c)| *c)
    }

    fn or(&mut self) -> Result<Filter, FilterError> {
        let mut terms = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.at += 1;
            terms.push(self.and()?);
        }
        Ok(one_or(terms, Filter::Or))
    }

    fn and(&mut self) -> Result<Filter, FilterError> {
        let mut terms = vec![self.unary()?];
        loop {
            match self.peek() {
                Some(Tok::And) => self.at += 1,
                Some(Tok::Open | Tok::Not | Tok::Word { .. }) => {}
                _ => break,
            }
            terms.push(self.unary()?);
        }
        Ok(one_or(terms, Filter::And))
    }

    fn unary(&mut self) -> Result<Filter, FilterError> {
        match self.peek() {
            Some(Tok::Not) => {
                self.at += 1;
                Ok(Filter::Not(Box::new(self.unary()?)))
            }
            Some(Tok::Open) => {
                let open = self.col();
                self.at += 1;
                let inner = self.or()?;
                match self.peek() {
                    Some(Tok::Close) => {
                        self.at += 1;
                        Ok(inner)
                    }
                    None => Err(err(open, Problem::UnclosedParen)),
                    Some(_) => Err(err(self.col(), Problem::ExpectedTerm)),
                }
            }
            Some(Tok::Word {
                field,
                value,
                quoted,
                star,
                value_col,
            }) => {
                let col = self.col();
                let t = term(field.as_deref(), value, *quoted, *star, col, *value_col)?;
                self.at += 1;
                Ok(Filter::Term(t))
            }
            _ => Err(err(self.col(), Problem::ExpectedTerm)),
        }
    }
}

fn one_or(mut terms: Vec<Filter>, many: fn(Vec<Filter>) -> Filter) -> Filter {
    match terms.len() {
        1 => terms.remove(0),
        _ => many(terms),
    }
}

fn term(
    field: Option<&str>,
    value: &str,
    quoted: bool,
    star: bool,
    col: usize,
    value_col: usize,
) -> Result<Term, FilterError> {
    let Some(field) = field else {
        return Ok(Term::Text(value.to_string()));
    };
    let lower = field.to_ascii_lowercase();
    if !FIELDS.contains(&lower.as_str()) {
        return Err(err(col, Problem::UnknownField(field.to_string())));
    }
    if value.is_empty() && !quoted {
        return Err(err(value_col, Problem::NoValue { field: lower }));
    }
    let bad = |expected: &str| {
        err(
            value_col,
            Problem::BadValue {
                field: lower.clone(),
                value: value.to_string(),
                expected: expected.to_string(),
            },
        )
    };
    let pattern = || match star {
        true => Pattern::Prefix(value.to_string()),
        false => Pattern::Exact(value.to_string()),
    };
    let one_of = |names: &[&str]| names.iter().position(|n| value.eq_ignore_ascii_case(n));
    Ok(match lower.as_str() {
        "method" => Term::Method(pattern()),
        "tool" => Term::Tool(pattern()),
        "server" => Term::Server(pattern()),
        "lane" => Term::Lane(value.to_string()),
        "rev" => Term::Rev(value.to_string()),
        "dir" => {
            let names = Dir::ALL.map(Dir::as_str);
            Term::Dir(Dir::ALL[one_of(&names).ok_or_else(|| bad(&names.join(", ")))?])
        }
        "status" => {
            let names = Status::ALL.map(Status::as_str);
            Term::Status(Status::ALL[one_of(&names).ok_or_else(|| bad(&names.join(", ")))?])
        }
        "kind" => Term::Kind(KINDS[one_of(&KINDS).ok_or_else(|| bad(&KINDS.join(", ")))?].into()),
        "latency" => Term::Latency(
            range(value, duration_us).ok_or_else(|| bad(">100ms, <=2s, 50ms..1s, 250us"))?,
        ),
        _ => Term::Seq(
            range(value, |n| {
                n.parse::<u64>().ok().and_then(|n| i64::try_from(n).ok())
            })
            .ok_or_else(|| bad("10, 10..20, >10, <=20"))?,
        ),
    })
}

/// `N`, `A..B`, `A..`, `..B`, `>N`, `>=N`, `<N`, `<=N`, each number read by `number`.
fn range(text: &str, number: impl Fn(&str) -> Option<i64>) -> Option<Range> {
    let open = |s: &str| match s {
        "" => Some(None),
        s => number(s).map(Some),
    };
    let (min, max) = if let Some(n) = text.strip_prefix(">=") {
        (Some(number(n)?), None)
    } else if let Some(n) = text.strip_prefix("<=") {
        (None, Some(number(n)?))
    } else if let Some(n) = text.strip_prefix('>') {
        (Some(number(n)?.checked_add(1)?), None)
    } else if let Some(n) = text.strip_prefix('<') {
        (None, Some(number(n)?.checked_sub(1)?))
    } else if let Some((a, b)) = text.split_once("..") {
        (open(a)?, open(b)?)
    } else {
        let n = number(text)?;
        (Some(n), Some(n))
    };
    Some(Range { min, max })
}

/// `250us`, `100ms`, `1.5s`, or a bare number of milliseconds, in microseconds.
fn duration_us(text: &str) -> Option<i64> {
    let (number, scale) = if let Some(n) = text.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1e6)
    } else {
        (text, 1e3)
    };
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let us = (number.parse::<f64>().ok()? * scale).round();
    (us.is_finite() && us < 9e18).then_some(us as i64)
}
