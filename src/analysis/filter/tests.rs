use super::*;
use crate::analysis::fixtures;

fn ok(text: &str) -> Filter {
    parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn term(t: Term) -> Filter {
    Filter::Term(t)
}

#[test]
fn the_examples_parse_into_typed_terms() {
    assert_eq!(
        ok("method:tools/call and latency:>100ms"),
        Filter::And(vec![
            term(Term::Method(Pattern::Exact("tools/call".into()))),
            term(Term::Latency(Range {
                min: Some(100_001),
                max: None
            })),
        ])
    );
    assert_eq!(
        ok("(server:weather or server:forecast) not kind:notification"),
        Filter::And(vec![
            Filter::Or(vec![
                term(Term::Server(Pattern::Exact("weather".into()))),
                term(Term::Server(Pattern::Exact("forecast".into()))),
            ]),
            Filter::Not(Box::new(term(Term::Kind("notification".into())))),
        ])
    );
    assert_eq!(
        ok(r#"tool:get_* dir:S2C "rate limit""#),
        Filter::And(vec![
            term(Term::Tool(Pattern::Prefix("get_".into()))),
            term(Term::Dir(Dir::S2c)),
            term(Term::Text("rate limit".into())),
        ])
    );
    assert_eq!(
        ok("seq:10..20"),
        term(Term::Seq(Range {
            min: Some(10),
            max: Some(20)
        }))
    );
    assert_eq!(
        ok("latency:1.5s"),
        term(Term::Latency(Range {
            min: Some(1_500_000),
            max: Some(1_500_000)
        }))
    );
    assert_eq!(
        ok("a or b c"),
        Filter::Or(vec![
            term(Term::Text("a".into())),
            Filter::And(vec![
                term(Term::Text("b".into())),
                term(Term::Text("c".into()))
            ]),
        ])
    );
    assert_eq!(ok("!status:unanswered"), ok("not status:unanswered"));
    assert_eq!(
        ok("lane:server:weather"),
        term(Term::Lane("server:weather".into()))
    );
}

#[test]
fn a_mistake_is_said_at_its_column() {
    let at = |text: &str| {
        let e = parse(text).expect_err(text);
        (e.column, e.problem)
    };
    assert_eq!(at("   ").0, 1);
    assert_eq!(at("method:tools/call and colour:red").0, 23);
    assert!(matches!(at("colour:red").1, Problem::UnknownField(f) if f == "colour"));
    assert_eq!(
        at("kind:error and latency:>fast"),
        (
            24,
            Problem::BadValue {
                field: "latency".into(),
                value: ">fast".into(),
                expected: ">100ms, <=2s, 50ms..1s, 250us".into()
            }
        )
    );
    assert_eq!(at("dir:sideways").0, 5);
    assert_eq!(
        at("method:").1,
        Problem::NoValue {
            field: "method".into()
        }
    );
    assert_eq!(at(r#"tool:a "open"#), (8, Problem::Unclosed));
    assert_eq!(
        at("(kind:error or kind:invalid"),
        (1, Problem::UnclosedParen)
    );
    assert_eq!(at("kind:error)"), (11, Problem::StrayParen));
    assert_eq!(at("kind:error and"), (15, Problem::ExpectedTerm));
    assert_eq!(at("or kind:error"), (1, Problem::ExpectedTerm));
    assert_eq!(at("seq:9..x").0, 5);
    // Columns count characters, not bytes.
    assert_eq!(at("\"é\" colour:x").0, 5);
}

/// A small seeded generator (xorshift), so a failure names its seed and comes back.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn text(&mut self) -> String {
        const PIECES: [&str; 14] = [
            "a",
            "get_",
            "tools/call",
            " ",
            "\"",
            "\\",
            "(",
            ")",
            ":",
            "*",
            "and",
            "-",
            "é",
            "0",
        ];
        let n = 1 + self.below(4);
        (0..n).map(|_| PIECES[self.below(14) as usize]).collect()
    }

    fn range(&mut self) -> Range {
        let mut bound = || (self.below(3) > 0).then(|| self.below(1_000_000) as i64);
        Range {
            min: bound(),
            max: bound(),
        }
    }

    fn pattern(&mut self) -> Pattern {
        match self.below(2) {
            0 => Pattern::Exact(self.text()),
            _ => Pattern::Prefix(self.text()),
        }
    }

    fn term(&mut self) -> Term {
        match self.below(11) {
            0 => Term::Method(self.pattern()),
            1 => Term::Tool(self.pattern()),
            2 => Term::Server(self.pattern()),
            3 => Term::Lane(self.text()),
            4 => Term::Dir(Dir::ALL[self.below(4) as usize]),
            5 => Term::Kind(parse::KINDS[self.below(10) as usize].into()),
            6 => Term::Status(Status::ALL[self.below(4) as usize]),
            7 => Term::Latency(self.range()),
            8 => Term::Rev(self.text()),
            9 => Term::Seq(self.range()),
            _ => Term::Text(self.text()),
        }
    }

    fn filter(&mut self, depth: u32) -> Filter {
        let many = |g: &mut Gen| (0..2 + g.below(3)).map(|_| g.filter(depth - 1)).collect();
        match if depth == 0 { 0 } else { self.below(5) } {
            0 | 1 => Filter::Term(self.term()),
            2 => Filter::And(many(self)),
            3 => Filter::Or(many(self)),
            _ => Filter::Not(Box::new(self.filter(depth - 1))),
        }
    }
}

#[test]
fn a_printed_filter_parses_back_to_itself() {
    for seed in 1..=3000u64 {
        let mut g = Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let filter = g.filter(4);
        let printed = filter.to_string();
        let back = parse(&printed).unwrap_or_else(|e| panic!("seed {seed}: {printed}: {e}"));
        assert_eq!(back, filter, "seed {seed}: {printed}");
    }
}

#[test]
fn filters_pick_the_events_of_a_real_recording() {
    let events = fixtures::load(fixtures::RECORDINGS[2]);
    let analysis = crate::trace::analyze(&events);
    let picked = |text: &str| -> Vec<u64> {
        let m = Matcher::new(&ok(text));
        events
            .iter()
            .zip(&analysis.derived)
            .filter(|(e, d)| m.matches(e, d))
            .map(|(e, _)| e.seq)
            .collect()
    };
    assert_eq!(picked("method:tools/call"), [10, 11]);
    assert_eq!(picked("tool:get_*"), [10, 11]);
    assert_eq!(picked("method:tools/call dir:s2c"), [11]);
    assert_eq!(picked("kind:request and not method:initialize"), [6, 10]);
    assert_eq!(picked("seq:2..3 or seq:>14"), [2, 3, 15]);
    assert_eq!(picked("dir:h2l"), picked("lane:llm kind:llm-http dir:h2l"));
    assert_eq!(picked("SEOUL kind:note"), [0, 14]);
    assert_eq!(
        picked("rev:2025-11-25 kind:response latency:<1s"),
        [3, 7, 11]
    );
    assert!(picked("status:unanswered").is_empty());
    assert!(picked("server:forecast").is_empty());
    assert_eq!(
        picked("server:weather").len(),
        picked("lane:server:weather").len()
    );
}
