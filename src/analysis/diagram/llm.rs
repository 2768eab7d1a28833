//! What LLM API rows say: the lesson, not the transport. A request says what it carries (`request
//! · tools: get_weather`, `returns toolu_01… result`), its answer what the model decided
//! (`tool_use get_weather`, `end_turn "It is 15C…"`, named the way each API shape names them);
//! the HTTP method, path and status are in the detail, which the tooltip and the inspector show.

use super::labels::{Context, DETAIL_CHARS, LABEL_CHARS, NAME_CHARS, Parts, Text, ms, nonempty};
use super::{Status, Style, visible};
use crate::analysis::LlmExchange;
use crate::i18n::Words;
use crate::trace::{Event, Lane};
use crate::wire::api::ApiShape;

impl Context<'_> {
    pub(super) fn llm(&self, i: usize, e: &Event, words: Words) -> Text {
        if let Some((n, x)) = self.report.llm_request(i) {
            return self.llm_request(n, x, e, words);
        }
        if let Some(x) = self.report.llm_response(i) {
            return self.llm_response(i, x, words);
        }
        if let Some(text) = self.sampling(i, words) {
            return text;
        }
        // An llm-http event that pairs with nothing: a response without a request, or one
        // between lanes other than host and llm.
        let (style, status) = if e.to == Lane::Llm {
            (Style::LlmRequest, Status::Ok)
        } else if e.from == Lane::Llm && e.to == Lane::Host {
            (Style::LlmResponse, Status::Orphan)
        } else {
            (Style::LlmResponse, Status::Ok)
        };
        let detail = (status == Status::Orphan).then(|| words.get("row.orphan").to_string());
        Text {
            style,
            status,
            problem: None,
            label: visible(
                &words.fmt("label.llm_unpaired", &[("text", &e.text())]),
                LABEL_CHARS,
            ),
            detail,
        }
    }

    /// A request the host sent the model for a server's `sampling/createMessage`, or its
    /// answer: labelled as such, never checked as a turn of the loop.
    fn sampling(&self, i: usize, words: Words) -> Option<Text> {
        let x = self.report.sampling_of(i)?;
        let server = x.sampling_for.as_deref().unwrap_or("?");
        let shape = x.shape.map_or("?", |s| s.as_str());
        let (style, label, detail) = if x.request == i {
            (
                Style::LlmRequest,
                words.fmt(
                    "label.sampling_for",
                    &[("server", &visible(server, NAME_CHARS))],
                ),
                words.fmt(
                    "label.sampling_request",
                    &[("shape", shape), ("server", server)],
                ),
            )
        } else {
            let stop = x.stop_reason.as_deref().unwrap_or("?");
            (
                Style::LlmResponse,
                format!("{stop} \"{}\"", visible(&x.text, DETAIL_CHARS)),
                words.fmt("label.sampling_answer", &[("server", server)]),
            )
        };
        let status = match x.status {
            Some(code) if code >= 400 => Status::Error,
            _ => Status::Ok,
        };
        Some(Text {
            style,
            status,
            problem: None,
            label: visible(&label, LABEL_CHARS),
            detail: Some(detail),
        })
    }

    fn llm_request(&self, n: usize, x: &LlmExchange, e: &Event, words: Words) -> Text {
        let method = e
            .http()
            .and_then(|h| h.method.clone())
            .unwrap_or_else(|| "POST".into());
        let path = x
            .url
            .as_deref()
            .map(url_path)
            .or_else(|| x.shape.map(|s| s.path().to_string()))
            .unwrap_or_else(|| "?".into());
        let label = request_label(&x.tools, &x.tool_results, words);

        let mut parts = Parts::default();
        parts.add(format!("{method} {}", visible(&path, NAME_CHARS)));
        if let Some(shape) = x.shape {
            parts.add(shape.as_str());
        }
        if !x.tools.is_empty() {
            parts.add(words.fmt("label.detail_tools", &[("names", &x.tools.join(" "))]));
        }
        if !x.tool_results.is_empty() {
            let ids = x.tool_results.join(" ");
            parts.add(words.fmt("label.detail_returns", &[("ids", &ids)]));
        }
        let mut status = Status::Ok;
        let mut problem = None;
        let missing: Vec<String> = self
            .report
            .tools
            .get(n)
            .filter(|v| v.request == x.request)
            .into_iter()
            .flat_map(|v| &v.not_sent)
            .map(|(server, tool, _)| format!("{server}/{tool}"))
            .collect();
        if !missing.is_empty() {
            status = Status::Problem;
            let tools = missing.join(", ");
            problem = Some(visible(
                &words.fmt("row.not_sent", &[("tools", &tools)]),
                DETAIL_CHARS,
            ));
        }
        if x.response.is_none() {
            status = Status::Unanswered;
            let why = words.get("row.no_response");
            parts.add(words.fmt("row.unanswered", &[("why", why)]));
        }
        Text {
            style: Style::LlmRequest,
            status,
            problem,
            label: visible(&label, LABEL_CHARS),
            detail: parts.done(),
        }
    }

    fn llm_response(&self, i: usize, x: &LlmExchange, words: Words) -> Text {
        let mut status = Status::Ok;
        let mut problem_text = None;
        let failed = x.status.is_some_and(|s| !(200..300).contains(&s));
        let label = if failed {
            status = Status::Error;
            let code = x.status.unwrap_or_default().to_string();
            words.fmt("label.http", &[("status", &code)])
        } else if let Some(problem) = &x.problem {
            status = Status::Problem;
            problem_text = Some(visible(problem, DETAIL_CHARS));
            words.get("label.unreadable").to_string()
        } else if !x.tool_calls.is_empty() {
            let word = match x.shape {
                Some(ApiShape::Anthropic) => "tool_use",
                Some(ApiShape::Openai) => "function_call",
                Some(ApiShape::OpenaiChat) => "tool_calls",
                Some(ApiShape::Gemini) => "functionCall",
                None => x.stop_reason.as_deref().unwrap_or("tool call"),
            };
            let names: Vec<&str> = x.tool_calls.iter().map(|(_, n, _)| n.as_str()).collect();
            format!("{word} {}", names.join(", "))
        } else {
            let stop = x.stop_reason.as_deref().unwrap_or("?");
            match x.text.trim() {
                "" => stop.to_string(),
                text => {
                    // Its first line: the row is one line, the detail and inspector have all.
                    let first = text.lines().next().unwrap_or(text);
                    let mut quote = visible(first, ANSWER_CHARS);
                    if first.len() < text.len() && !quote.ends_with('…') {
                        quote.push('…');
                    }
                    format!("{stop} \"{quote}\"")
                }
            }
        };

        let mut parts = Parts::default();
        if let Some(s) = x.status {
            parts.add(words.fmt("label.http", &[("status", &s.to_string())]));
        }
        if let Some(us) = crate::trace::latency_us(self.events[x.request].time, self.events[i].time)
        {
            parts.add(ms(us));
        }
        if x.streamed {
            parts.add(words.get("label.streamed"));
        }
        for (id, name, _) in &x.tool_calls {
            let chain = self.report.chain_asked(i, id);
            match chain {
                // A tool the host (or the API) runs itself (ToolSearch, a shell): no server
                // is expected to see it.
                Some(c) if c.tools_call.is_none() && x.runs_itself(name) => {
                    let args = [("id", id.as_str()), ("name", name.as_str())];
                    parts.add(words.fmt("label.run_by_host", &args));
                }
                Some(c) if c.tools_call.is_none() && c.returned_in.is_none() => {
                    if status == Status::Ok {
                        status = Status::Problem;
                        let args = [("id", id.as_str()), ("name", name.as_str())];
                        problem_text = Some(visible(
                            &words.fmt("label.never_sent_problem", &args),
                            DETAIL_CHARS,
                        ));
                    }
                    parts.add(words.fmt("label.never_sent", &[("id", id)]));
                }
                Some(c) if c.tools_call.is_none() => {
                    parts.add(words.fmt("label.error_returned", &[("id", id)]));
                }
                _ => parts.add(id.clone()),
            }
        }
        if x.tool_calls.is_empty() && !x.text.is_empty() {
            parts.add(format!("\"{}\"", visible(&x.text, 50)));
        }
        Text {
            style: Style::LlmResponse,
            status,
            problem: problem_text,
            label: nonempty(visible(&label, LABEL_CHARS), words),
            detail: parts.done(),
        }
    }
}

/// How much of the model's answer its row's label quotes (the detail quotes more).
const ANSWER_CHARS: usize = 24;

/// Longest list of tool names a request's label spells out; more is counted.
const TOOLS_CHARS: usize = 40;

/// A request's label, in `words`: the results it returns to the model, else the tools it
/// offers.
fn request_label(tools: &[String], results: &[String], words: Words) -> String {
    match results {
        [one] => words.fmt("label.returns_one", &[("id", &visible(one, 14))]),
        [_, ..] => words.fmt(
            "label.returns_many",
            &[("count", &results.len().to_string())],
        ),
        [] => match tools {
            [] => words.get("label.request_none").to_string(),
            _ => {
                let names = tools.join(", ");
                if names.chars().count() <= TOOLS_CHARS {
                    words.fmt("label.request_tools", &[("names", &names)])
                } else {
                    words.fmt("label.request_many", &[("count", &tools.len().to_string())])
                }
            }
        },
    }
}

/// `https://api.anthropic.com/v1/messages?beta=1` -> `/v1/messages`.
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |at| &rest[at..]);
    path.split(['?', '#']).next().unwrap_or(path).to_string()
}
