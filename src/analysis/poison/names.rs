//! The name rules: tool names that mix scripts or look like another tool's, and other tools
//! named in a description (tool shadowing).

use std::collections::{HashMap, HashSet};

use super::excerpt::escape;
use super::rules::{hit, scan_invisible};
use super::said::{Arg, Said, value};
use super::view::View;
use super::{Context, Hit, Kind, Severity};
use crate::analysis::chars::{Script, latin_lookalike, skeleton};

/// Whether a tool name is spelled like an identifier (so that a plain English word such as
/// `add` is only a reference when quoted or called a tool).
pub(super) fn identifier_like(name: &str) -> bool {
    name.chars()
        .any(|c| c == '_' || c == '-' || c == '.' || c.is_ascii_digit())
        || name.chars().skip(1).any(|c| c.is_uppercase())
}

pub(super) fn tool_references(v: &View, ctx: &Context<'_>, out: &mut Vec<Hit>) {
    let mut done: HashSet<&str> = HashSet::new();
    // The server's own names, once (a trace with many servers has many tools to look at).
    let own: HashSet<&str> = ctx
        .tools
        .iter()
        .filter(|&&(s, _)| s == ctx.server)
        .map(|&(_, n)| n)
        .collect();
    for &(server, name) in &ctx.tools {
        // A name the server itself has refers to its own tool (even when another server has
        // one of the same name).
        let same_server = server == ctx.server || own.contains(name);
        if same_server && (ctx.instructions || Some(name) == ctx.tool) {
            continue;
        }
        if name.chars().count() < 3 || !done.insert(name) {
            continue;
        }
        let server = if same_server { ctx.server } else { server };
        let lower = name.to_lowercase();
        let plain = !identifier_like(name);
        let found = v.find(&lower).into_iter().find(|&(s, e)| {
            if !plain {
                return true;
            }
            let before = v.text[..s].trim_end();
            let after = v.text[e..].trim_start();
            v.text[..s].ends_with('`')
                || after.starts_with("tool")
                || after.starts_with('(')
                || before.ends_with("tool")
                || before.ends_with("function")
        });
        let Some((s, e)) = found else { continue };
        let span = v.span(s, e);
        let mut h = hit(
            Kind::ToolReference,
            span,
            if same_server {
                Said::new("poison_why.same_server_tool", vec![("name", value(name))])
            } else {
                Said::new(
                    "poison_why.other_server_tool",
                    vec![("name", value(name)), ("server", value(server))],
                )
            },
        );
        if same_server {
            h.severity = Severity::Info;
        }
        out.push(h);
    }
}

/// The `poison_why.script_*` key of a script's name, as letters of it are called.
fn script_key(script: Script) -> &'static str {
    match script {
        Script::Latin => "poison_why.script_latin",
        Script::Greek => "poison_why.script_greek",
        Script::Cyrillic => "poison_why.script_cyrillic",
        Script::Armenian => "poison_why.script_armenian",
        Script::Cherokee => "poison_why.script_cherokee",
        Script::Fullwidth => "poison_why.script_fullwidth",
        Script::Mathematical => "poison_why.script_mathematical",
        Script::Other => "poison_why.script_other",
    }
}

/// Name rules: invisible characters, mixed scripts, and names that look like another tool's
/// (`others`: every other tool name in the trace, with its server).
pub fn scan_name(name: &str, others: &[(&str, &str)]) -> Vec<Hit> {
    let mut out = scan_invisible(name);
    let chars: Vec<char> = name.chars().collect();
    let scripts: Vec<Option<Script>> = chars.iter().map(|&c| Script::of(c)).collect();
    let mut counts: HashMap<Script, usize> = HashMap::new();
    for s in scripts.iter().flatten() {
        *counts.entry(*s).or_default() += 1;
    }
    let lookalikes: Vec<Script> = {
        let mut v: Vec<Script> = counts.keys().copied().filter(|s| s.lookalike()).collect();
        // Ties in the order of `script_key`, so the sentence is the same from run to run.
        v.sort_by_key(|s| {
            (
                std::cmp::Reverse(counts[s]),
                *s != Script::Latin,
                script_key(*s),
            )
        });
        v
    };
    let odd_alone = lookalikes
        .iter()
        .any(|s| matches!(s, Script::Fullwidth | Script::Mathematical));
    if lookalikes.len() >= 2 || odd_alone {
        let main = if odd_alone && lookalikes.len() == 1 {
            Script::Latin
        } else {
            lookalikes[0]
        };
        let odd: Vec<usize> = (0..chars.len())
            .filter(|&i| scripts[i].is_some_and(|s| s.lookalike() && s != main))
            .collect();
        if let (Some(&first), Some(&last)) = (odd.first(), odd.last()) {
            let letters: Vec<Arg> = odd
                .iter()
                .map(|&i| {
                    let c = chars[i];
                    let code = format!("U+{:04X}", c as u32);
                    match latin_lookalike(c) {
                        Some(l) => Arg::Said(Said::new(
                            "poison_why.looks_like",
                            vec![("code", value(code)), ("letter", value(l.to_string()))],
                        )),
                        None => value(code),
                    }
                })
                .collect();
            let reads: String = chars
                .iter()
                .map(|&c| latin_lookalike(c).unwrap_or(c))
                .collect();
            let mixed = lookalikes
                .iter()
                .map(|s| Arg::Said(Said::new(script_key(*s), Vec::new())))
                .collect();
            out.push(hit(
                Kind::MixedScriptName,
                (first, last + 1),
                Said::new(
                    "poison_why.mixed_scripts",
                    vec![
                        (
                            "scripts",
                            Arg::List {
                                items: mixed,
                                and: true,
                            },
                        ),
                        (
                            "letters",
                            Arg::List {
                                items: letters,
                                and: false,
                            },
                        ),
                        ("reads", value(reads)),
                    ],
                ),
            ));
        }
    }
    let own = skeleton(name);
    for &(server, other) in others {
        if other == name || skeleton(other) != own {
            continue;
        }
        let theirs: Vec<char> = other.chars().collect();
        let span = if theirs.len() == chars.len() {
            let diff: Vec<usize> = (0..chars.len())
                .filter(|&i| chars[i] != theirs[i])
                .collect();
            match (diff.first(), diff.last()) {
                (Some(&a), Some(&b)) => (a, b + 1),
                _ => (0, chars.len()),
            }
        } else {
            (0, chars.len())
        };
        out.push(hit(
            Kind::ConfusableName,
            span,
            Said::new(
                "poison_why.confusable",
                vec![
                    ("name", value(escape(name))),
                    ("other", value(escape(other))),
                    ("server", value(server)),
                ],
            ),
        ));
        break;
    }
    out
}
