//! The rules on one text: invisible characters, directive blocks, "ignore the instructions",
//! concealment from the user and preconditions addressed to the model; [`scan_text`] runs
//! every text rule.

use super::names::tool_references;
use super::said::{Said, value};
use super::sensitive::sensitive;
use super::view::{View, shown};
use super::{Context, Hit, Kind};
use crate::analysis::chars::{TAGS, describe_chars, is_bidi, is_pictograph, is_tag, is_zero_width};

pub(super) fn hit(kind: Kind, span: (usize, usize), said: Said) -> Hit {
    Hit {
        kind,
        severity: kind.severity(),
        span,
        explanation: said.english(),
        said,
        hidden: None,
    }
}

/// Runs of consecutive chars of one class.
pub(super) fn runs(chars: &[char], class: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if class(i) {
            let start = i;
            while i < chars.len() && class(i) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Invisible and deceptive characters: tag characters, zero-width characters, bidi controls.
pub fn scan_invisible(text: &str) -> Vec<Hit> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for (s, e) in runs(&chars, |i| is_tag(chars[i])) {
        let decoded: String = chars[s..e]
            .iter()
            .filter_map(|&c| char::from_u32(c as u32 - TAGS.start()))
            .filter(|c| *c == ' ' || c.is_ascii_graphic())
            .collect();
        let mut h = hit(
            Kind::TagCharacters,
            (s, e),
            Said::new(
                "poison_why.tags",
                vec![
                    ("count", value((e - s).to_string())),
                    ("decoded", value(decoded.clone())),
                ],
            ),
        );
        h.hidden = Some(decoded);
        out.push(h);
    }
    let zero_width = |i: usize| {
        let c = chars[i];
        if !is_zero_width(c) {
            return false;
        }
        // A ZWJ joining two pictographs is part of an emoji sequence.
        !(c == '\u{200D}'
            && i > 0
            && is_pictograph(chars[i - 1])
            && chars.get(i + 1).copied().is_some_and(is_pictograph))
    };
    for (s, e) in runs(&chars, zero_width) {
        out.push(hit(
            Kind::ZeroWidth,
            (s, e),
            Said::new(
                "poison_why.zero_width",
                vec![
                    ("count", value((e - s).to_string())),
                    ("chars", value(describe_chars(&chars[s..e]))),
                ],
            ),
        ));
    }
    for (s, e) in runs(&chars, |i| is_bidi(chars[i])) {
        out.push(hit(
            Kind::BidiControl,
            (s, e),
            Said::new(
                "poison_why.bidi",
                vec![
                    ("count", value((e - s).to_string())),
                    ("chars", value(describe_chars(&chars[s..e]))),
                ],
            ),
        ));
    }
    out
}

pub(super) const DIRECTIVE_TAGS: &[&str] = &[
    "important",
    "system",
    "system_prompt",
    "system-prompt",
    "instructions",
    "instruction",
    "secret",
    "hidden",
    "admin",
    "critical",
    "urgent",
    "priority",
    "override",
    "assistant",
    "model",
    "ai",
    "llm",
    "agent",
    "prompt",
    "rules",
    "directive",
    "sudo",
    "internal",
    "inst",
];

pub(super) fn directive_blocks(v: &View, original: &[char], out: &mut Vec<Hit>) {
    let bytes = v.text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let open = bytes[at];
        let close = match open {
            b'<' => b'>',
            b'[' => b']',
            _ => {
                at += 1;
                continue;
            }
        };
        let rest = &v.text[at + 1..];
        let Some(len) = rest.find(close as char) else {
            break;
        };
        let name = &rest[..len];
        let valid = (2..=30).contains(&name.len())
            && !name.starts_with('/')
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || matches!(c, '_' | '-' | ' '));
        let upper = valid && name.len() >= 3 && {
            let (s, e) = v.span(at + 1, at + 1 + len);
            original[s..e]
                .iter()
                .all(|c| c.is_ascii_uppercase() || matches!(c, '_' | '-' | ' '))
        };
        let known = DIRECTIVE_TAGS.contains(&name.trim());
        let tag_end = at + 1 + len + 1;
        let closing = format!("{}/{name}{}", open as char, close as char);
        let closed = v.text[tag_end..].find(&closing);
        // An unknown upper-case tag counts only as a block (`<FILE>` alone is a placeholder).
        if !(valid && (known || (upper && open == b'<' && closed.is_some()))) {
            at += 1;
            continue;
        }
        let end = closed.map_or(tag_end, |p| tag_end + p + closing.len());
        let (s, e) = v.span(at, end);
        let shown: String = original[v.span(at, tag_end).0..v.span(at, tag_end).1]
            .iter()
            .collect();
        out.push(hit(
            Kind::DirectiveBlock,
            (s, e),
            Said::new(
                if end > tag_end {
                    "poison_why.block"
                } else {
                    "poison_why.tag"
                },
                vec![("tag", value(shown))],
            ),
        ));
        at = end.max(at + 1);
    }
}

pub(super) const IGNORE_VERBS: &[&str] = &[
    "ignore",
    "ignoring",
    "disregard",
    "disregarding",
    "forget",
    "override",
    "bypass",
];
pub(super) const IGNORE_OBJECTS: &[&str] = &[
    "instructions",
    "instruction",
    "rules",
    "guidelines",
    "directions",
    "prompt",
    "prompts",
    "guardrails",
    "policies",
    "policy",
    "directives",
    "restrictions",
];

pub(super) fn ignore_instructions(v: &View, out: &mut Vec<Hit>) {
    for w in 0..v.words.len() {
        if !IGNORE_VERBS.contains(&v.word(w)) {
            continue;
        }
        let sentence = v.sentence_of(v.words[w].0);
        let object = (w + 1..(w + 7).min(v.words.len()))
            .take_while(|&k| v.words[k].0 < sentence.1)
            .find(|&k| IGNORE_OBJECTS.contains(&v.word(k)));
        if let Some(k) = object {
            out.push(hit(
                Kind::IgnoreInstructions,
                v.span(v.words[w].0, v.words[k].1),
                Said::new(
                    "poison_why.ignore",
                    vec![("text", value(v.shown(v.words[w].0, v.words[k].1)))],
                ),
            ));
        }
    }
}

pub(super) const REVEAL_VERBS: &[&str] = &[
    "tell",
    "mention",
    "inform",
    "reveal",
    "notify",
    "show",
    "say",
    "alert",
    "disclose",
    "let",
    "explain",
    "ask",
    "warn",
    "telling",
    "mentioning",
    "informing",
    "revealing",
    "notifying",
    "showing",
    "saying",
    "alerting",
    "disclosing",
    "letting",
    "explaining",
    "asking",
    "warning",
    "bother",
    "bothering",
];
pub(super) const USER_WORDS: &[&str] = &["user", "users", "user's", "human", "humans", "human's"];
pub(super) const HIDE_WORDS: &[&str] = &[
    "hide",
    "hiding",
    "conceal",
    "concealing",
    "secretly",
    "silently",
    "covertly",
];

pub(super) fn conceal(v: &View, out: &mut Vec<Hit>) {
    let mut by_sentence: Vec<((usize, usize), (usize, usize))> = Vec::new();
    for w in 0..v.words.len() {
        let word = v.word(w);
        let negation_len = match word {
            "never" | "don't" | "dont" | "without" | "mustn't" | "shouldn't" | "won't" => 1,
            "do" | "must" | "should" | "will" | "does" | "can"
                if w + 1 < v.words.len() && v.word(w + 1) == "not" =>
            {
                2
            }
            "no" if v.phrase(w, &[&["no"], &["need"], &["to"]]).is_some() => 3,
            _ if HIDE_WORDS.contains(&word) => 0,
            _ => continue,
        };
        let sentence = v.sentence_of(v.words[w].0);
        let verb = if negation_len == 0 {
            Some(w)
        } else {
            (w + negation_len..(w + negation_len + 2).min(v.words.len()))
                .take_while(|&k| v.words[k].0 < sentence.1)
                .find(|&k| REVEAL_VERBS.contains(&v.word(k)))
        };
        let Some(verb) = verb else { continue };
        let Some(user) = v.in_sentence(sentence, USER_WORDS) else {
            continue;
        };
        let start = v.words[w].0.min(user.0);
        let end = v.words[verb].1.max(user.1);
        match by_sentence.iter_mut().find(|(s, _)| *s == sentence) {
            Some((_, span)) => *span = (span.0.min(start), span.1.max(end)),
            None => by_sentence.push((sentence, (start, end))),
        }
    }
    for (_, (start, end)) in by_sentence {
        out.push(hit(
            Kind::ConcealFromUser,
            v.span(start, end),
            Said::new(
                "poison_why.conceal",
                vec![("text", value(v.shown(start, end)))],
            ),
        ));
    }
}

pub(super) const USE: &[&str] = &[
    "using",
    "calling",
    "invoking",
    "running",
    "executing",
    "use",
    "call",
    "invoke",
    "run",
];
pub(super) const THIS: &[&str] = &["this", "the", "any", "a"];
pub(super) const TOOL: &[&str] = &["tool", "function", "tools"];

pub(super) fn preconditions(v: &View, out: &mut Vec<Hit>) {
    let patterns: &[&[&[&str]]] = &[
        &[&["before", "prior"], USE, THIS, TOOL],
        &[&["before"], &["you"], USE, THIS, TOOL],
        &[&["prior"], &["to"], USE, THIS, TOOL],
        &[
            &["otherwise", "or", "else"],
            &["the", "this"],
            &["tool"],
            &["will", "won't", "does", "doesn't", "cannot", "can't"],
        ],
        &[
            &["the", "this"],
            &["tool"],
            &["will", "does", "would"],
            &["not"],
            &["work"],
        ],
        &[&["you"], &["must", "need"], &["first"]],
        &[&["first"], &["you"], &["must"]],
    ];
    let mut last_end = 0;
    for w in 0..v.words.len() {
        for pattern in patterns {
            let Some((start, end)) = v.phrase(w, pattern) else {
                continue;
            };
            if start < last_end {
                continue;
            }
            last_end = end;
            out.push(hit(
                Kind::ModelPrecondition,
                v.span(start, end),
                Said::new(
                    "poison_why.precondition",
                    vec![("text", value(v.shown(start, end)))],
                ),
            ));
        }
    }
}

/// Every text rule on one description or `instructions` text (not the name rules and not
/// the length rule, which need the tool and its peers).
pub fn scan_text(text: &str, ctx: &Context<'_>) -> Vec<Hit> {
    let original: Vec<char> = text.chars().collect();
    let v = View::new(text);
    let mut out = scan_invisible(text);
    directive_blocks(&v, &original, &mut out);
    ignore_instructions(&v, &mut out);
    conceal(&v, &mut out);
    preconditions(&v, &mut out);
    sensitive(&v, ctx, &mut out);
    tool_references(&v, ctx, &mut out);
    // What a finding in hidden text says, decoded.
    for h in &mut out {
        let (s, e) = (h.span.0.min(original.len()), h.span.1.min(original.len()));
        if h.hidden.is_none() && v.hidden[s..e].iter().any(|&x| x) {
            h.hidden = Some(shown(&original[s..e]));
        }
    }
    out.sort_by(|a, b| a.span.cmp(&b.span).then(a.kind.cmp(&b.kind)));
    out
}
