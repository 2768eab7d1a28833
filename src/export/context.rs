//! What the model was given besides the conversation, in the article's terms: each tool of the
//! last LLM request with its token cost, the tool-use system prompt the provider adds when
//! tools are sent (Anthropic documents 286 to 675 tokens), and each server's `instructions`,
//! which hosts pass on to the model. `summary` and `run` print these lines, so a class sees
//! what a tool costs before anyone asks.

use std::fmt::Write as _;

use crate::analysis::Report;
use crate::analysis::tokens::{RequestTokens, tool_tokens};
use crate::trace::Event;

/// `-- ` lines: the servers' instructions, then the last LLM request's tools and their tokens.
/// Empty when the trace has neither.
pub fn lines(events: &[Event], report: &Report) -> String {
    let mut s = String::new();
    for (lane, session) in &report.rpc.sessions {
        if let Some(instructions) = session.instructions.as_deref().filter(|t| !t.is_empty()) {
            let _ = writeln!(s, "-- {lane} instructions: {}", one_line(instructions));
        }
    }
    if let Some(last) = tool_tokens(report, events).last() {
        let _ = writeln!(s, "{}", tools_line(events, last));
    }
    s
}

/// `-- the model saw 2 tools in request #8 (~180 tokens, estimate): get_weather ~95, ...; plus
/// the tool-use system prompt Anthropic adds: 286-675 tokens`.
fn tools_line(events: &[Event], t: &RequestTokens) -> String {
    let seq = events.get(t.request).map_or(0, |e| e.seq);
    let kind = if t.exact { t.tokenizer } else { "estimate" };
    let each: Vec<String> = t
        .tools
        .iter()
        .map(|(name, n)| format!("{name} ~{n}"))
        .collect();
    let mut s = format!(
        "-- the model saw {} in request #{seq} (~{} tokens, {kind}): {}",
        plural(t.tools.len(), "tool"),
        t.total,
        if each.is_empty() {
            "none".to_string()
        } else {
            each.join(", ")
        }
    );
    let (low, high) = t.overhead;
    if high > 0 {
        let who = match t.shape {
            crate::wire::api::ApiShape::Anthropic => "the tool-use system prompt Anthropic adds",
            _ => "OpenAI's undocumented tool overhead, estimated",
        };
        let _ = write!(s, "; plus {who}: {low}-{high} tokens");
    }
    s
}

fn plural(n: usize, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        _ => format!("{n} {word}s"),
    }
}

/// Instructions on one line: newlines become spaces, at most 200 characters.
fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
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
