//! What the model was given besides the conversation, in the article's terms: each tool of the
//! last LLM request with its token cost, the tool-use system prompt the provider adds when
//! tools are sent (Anthropic documents 286 to 675 tokens), and each server's `instructions`,
//! which hosts pass on to the model. `summary` and `run` print these lines, so a class sees
//! what a tool costs before anyone asks.

use std::fmt::Write as _;

use crate::analysis::Report;
use crate::analysis::tokens::{self, RequestTokens, tool_tokens};
use crate::i18n::{Language, Words};
use crate::trace::Event;
use crate::wire::text;

/// `-- ` lines: the servers' instructions, then the last LLM request's tools and their tokens.
/// Empty when the trace has neither. In English; [`lines_in`] for another language.
pub fn lines(events: &[Event], report: &Report) -> String {
    lines_in(events, report, Words::of(Language::En))
}

/// [`lines`] in the language of `words` (`summary.*` keys).
pub fn lines_in(events: &[Event], report: &Report, words: Words) -> String {
    let mut s = String::new();
    for (lane, session) in &report.rpc.sessions {
        if let Some(instructions) = session.instructions.as_deref().filter(|t| !t.is_empty()) {
            let (lane, text) = (lane.to_string(), one_line(instructions));
            let args = [("lane", lane.as_str()), ("text", text.as_str())];
            let _ = writeln!(s, "{}", words.fmt("summary.instructions", &args));
        }
    }
    // The last request that offers tools: a host's side calls (titles, quota checks) offer none.
    let counted = tool_tokens(report, tokens::own());
    let last = counted.iter().rev().find(|t| !t.tools.is_empty());
    if let Some(last) = last.or(counted.last()) {
        let mut line = tools_line(events, last, words);
        // Remote servers the API lists itself: the model sees their tools, the request does
        // not hold them.
        let x = report.llm.iter().find(|x| x.request == last.request);
        let remote: Vec<&str> = x
            .into_iter()
            .flat_map(|x| &x.remote_servers)
            .map(|d| d.name.as_str())
            .collect();
        if !remote.is_empty() {
            let servers = remote.join(", ");
            line.push_str(&words.fmt("summary.tools_seen_remote", &[("servers", &servers)]));
        }
        let _ = writeln!(s, "{line}");
    }
    s
}

/// `-- the model saw 2 tools in request #8 (~180 tokens, estimate): get_weather ~95, ...; plus
/// the tool-use system prompt Anthropic adds: 286-675 tokens`.
fn tools_line(events: &[Event], t: &RequestTokens, words: Words) -> String {
    let seq = events.get(t.request).map_or(0, |e| e.seq).to_string();
    let kind = if t.exact {
        t.tokenizer
    } else {
        words.get("summary.estimate")
    };
    let each: Vec<String> = t
        .tools
        .iter()
        .map(|(name, n)| format!("{name} ~{n}"))
        .collect();
    let count = t.tools.len().to_string();
    let tools = match t.tools.len() {
        1 => words.get("summary.tool_one").to_string(),
        _ => words.fmt("summary.tool_many", &[("count", &count)]),
    };
    let each = if each.is_empty() {
        words.get("summary.none").to_string()
    } else {
        each.join(", ")
    };
    let total = t.total.to_string();
    let mut s = words.fmt(
        "summary.tools_seen",
        &[
            ("tools", &tools),
            ("seq", &seq),
            ("total", &total),
            ("kind", kind),
            ("each", &each),
        ],
    );
    let (low, high) = t.overhead;
    if high > 0 {
        let who = match t.shape {
            crate::wire::api::ApiShape::Anthropic => words.get("summary.overhead_anthropic"),
            _ => words.get("summary.overhead_openai"),
        };
        let (low, high) = (low.to_string(), high.to_string());
        let args = [("who", who), ("low", &low), ("high", &high)];
        s.push_str(&words.fmt("summary.overhead", &args));
    }
    s
}

/// Instructions on one line: newlines become spaces, at most 200 characters.
fn one_line(text: &str) -> String {
    text::clip(&text::one_line(text), 200).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_one_bounded_line() {
        assert_eq!(one_line("a\n  b"), "a b");
        assert!(one_line(&"x ".repeat(300)).ends_with('…'));
    }
}
