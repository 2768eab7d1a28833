//! What LLM API rows say: the request's endpoint and tool count, the response's stop reason or
//! the tool calls it makes (named the way each API shape names them).

use std::fmt::Write as _;

use super::labels::{Context, DETAIL_CHARS, LABEL_CHARS, NAME_CHARS, Parts, Text, ms, nonempty};
use super::{Status, Style, visible};
use crate::analysis::LlmExchange;
use crate::trace::{Event, Lane};
use crate::wire::api::ApiShape;

impl Context<'_> {
    pub(super) fn llm(&self, i: usize, e: &Event) -> Text {
        let llm = &self.report.llm;
        if let Some((n, x)) = llm.iter().enumerate().find(|(_, x)| x.request == i) {
            return self.llm_request(n, x, e);
        }
        if let Some(x) = llm.iter().find(|x| x.response == Some(i)) {
            return self.llm_response(i, x);
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
        let detail = (status == Status::Orphan).then(|| "answers no pending request".to_string());
        Text {
            style,
            status,
            problem: None,
            label: visible(&format!("llm-http: {}", e.text()), LABEL_CHARS),
            detail,
        }
    }

    fn llm_request(&self, n: usize, x: &LlmExchange, e: &Event) -> Text {
        let method = e
            .http
            .as_ref()
            .and_then(|h| h.method.clone())
            .unwrap_or_else(|| "POST".into());
        let path = x
            .url
            .as_deref()
            .map(url_path)
            .or_else(|| x.shape.map(|s| s.path().to_string()))
            .unwrap_or_else(|| "?".into());
        let mut counts = plural(x.tools.len(), "tool");
        if !x.tool_results.is_empty() {
            let _ = write!(counts, ", {}", plural(x.tool_results.len(), "result"));
        }
        let label = format!("{method} {} ({counts})", visible(&path, NAME_CHARS));

        let mut parts = Parts::default();
        if let Some(shape) = x.shape {
            parts.add(shape.as_str());
        }
        if !x.tools.is_empty() {
            parts.add(format!("tools: {}", x.tools.join(" ")));
        }
        if !x.tool_results.is_empty() {
            parts.add(format!("returns {}", x.tool_results.join(" ")));
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
            problem = Some(visible(
                &format!("listed but not sent to the model: {}", missing.join(", ")),
                DETAIL_CHARS,
            ));
        }
        if x.response.is_none() {
            status = Status::Unanswered;
            parts.add("unanswered: no response recorded");
        }
        Text {
            style: Style::LlmRequest,
            status,
            problem,
            label: visible(&label, LABEL_CHARS),
            detail: parts.done(),
        }
    }

    fn llm_response(&self, i: usize, x: &LlmExchange) -> Text {
        let mut status = Status::Ok;
        let mut problem_text = None;
        let failed = x.status.is_some_and(|s| !(200..300).contains(&s));
        let label = if failed {
            status = Status::Error;
            format!("HTTP {}", x.status.unwrap_or_default())
        } else if let Some(problem) = &x.problem {
            status = Status::Problem;
            problem_text = Some(visible(problem, DETAIL_CHARS));
            "unreadable response".to_string()
        } else if !x.tool_calls.is_empty() {
            let word = match x.shape {
                Some(ApiShape::Anthropic) => "tool_use",
                Some(ApiShape::Openai) => "function_call",
                Some(ApiShape::OpenaiChat) => "tool_calls",
                None => x.stop_reason.as_deref().unwrap_or("tool call"),
            };
            let names: Vec<&str> = x.tool_calls.iter().map(|(_, n, _)| n.as_str()).collect();
            format!("{word} {}", names.join(", "))
        } else {
            x.stop_reason.clone().unwrap_or_else(|| "?".into())
        };

        let mut parts = Parts::default();
        if let Some(s) = x.status {
            parts.add(format!("HTTP {s}"));
        }
        let latency = (self.events[i].time - self.events[x.request].time)
            .num_microseconds()
            .unwrap_or(0);
        parts.add(ms(latency));
        if x.streamed {
            parts.add("streamed");
        }
        for (id, name, _) in &x.tool_calls {
            let chain = self
                .report
                .chains
                .iter()
                .find(|c| &c.call_id == id && c.asked_in == i);
            match chain {
                Some(c) if c.tools_call.is_none() && c.returned_in.is_none() => {
                    if status == Status::Ok {
                        status = Status::Problem;
                        problem_text = Some(visible(
                            &format!("{name} ({id}) was never sent to a server"),
                            DETAIL_CHARS,
                        ));
                    }
                    parts.add(format!("{id} never sent to a server"));
                }
                Some(c) if c.tools_call.is_none() => {
                    parts.add(format!("{id}: no tools/call, error returned"));
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
            label: nonempty(visible(&label, LABEL_CHARS)),
            detail: parts.done(),
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `https://api.anthropic.com/v1/messages?beta=1` -> `/v1/messages`.
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |at| &rest[at..]);
    path.split(['?', '#']).next().unwrap_or(path).to_string()
}
