//! Reading `llm-http` events: the shape, the tools offered, the calls made, the stop reason.

use serde_json::Value;

use crate::trace::{Channel, Event, Lane};
use crate::wire::api::{ApiShape, SAMPLING_HEADER};
use crate::wire::convert;
use crate::wire::{reassemble::reassemble, sse::SseParser};

/// Which half of an exchange an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmRole {
    Request,
    Response,
}

/// One LLM API request and its response, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmExchange {
    /// Index of the request event.
    pub request: usize,
    /// Index of the response event, if one was recorded.
    pub response: Option<usize>,
    pub shape: Option<ApiShape>,
    pub url: Option<String>,
    pub status: Option<u16>,
    /// Names in the request's `tools` parameter.
    pub tools: Vec<String>,
    /// The request's `tools` entries as sent.
    pub tool_entries: Vec<Value>,
    /// Ids of the tool results the request returns to the model.
    pub tool_results: Vec<String>,
    /// The tool calls of the response: id, name, arguments (parsed when they parse).
    pub tool_calls: Vec<(String, String, Option<Value>)>,
    pub stop_reason: Option<String>,
    /// The response's text.
    pub text: String,
    /// Whether the response arrived as a stream (SSE).
    pub streamed: bool,
    /// Why the response could not be read, if it could not.
    pub problem: Option<String>,
    /// The MCP server this request asks the model for (`sampling/createMessage`), when the
    /// host marked it so ([`SAMPLING_HEADER`]): not a turn of the agent loop.
    pub sampling_for: Option<String>,
    /// The request's `model`, `max_tokens` (or `max_output_tokens`), `temperature`, `top_p`.
    pub model: Option<String>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The response's `model` and `id`.
    pub response_model: Option<String>,
    pub response_id: Option<String>,
    /// The response's usage block, read the same way for every shape.
    pub usage: Usage,
}

/// Token counts from a response's `usage` block (absent counts stay `None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cache_read: Option<u64>,
    pub cache_creation: Option<u64>,
    pub reasoning: Option<u64>,
}

impl Usage {
    /// Anthropic `input_tokens`/`output_tokens`/`cache_*_input_tokens`; OpenAI Responses
    /// `input_tokens`/`output_tokens` with `*_details`; Chat `prompt_tokens`/`completion_tokens`.
    fn read(usage: &Value) -> Usage {
        let n = |path: &str| usage.pointer(path).and_then(Value::as_u64);
        Usage {
            input: n("/input_tokens").or_else(|| n("/prompt_tokens")),
            output: n("/output_tokens").or_else(|| n("/completion_tokens")),
            cache_read: n("/cache_read_input_tokens")
                .or_else(|| n("/input_tokens_details/cached_tokens"))
                .or_else(|| n("/prompt_tokens_details/cached_tokens")),
            cache_creation: n("/cache_creation_input_tokens"),
            reasoning: n("/output_tokens_details/reasoning_tokens")
                .or_else(|| n("/completion_tokens_details/reasoning_tokens")),
        }
    }
}

fn shape_of(url: &str) -> Option<ApiShape> {
    let path = url.split('?').next().unwrap_or(url);
    ApiShape::ALL
        .into_iter()
        .find(|s| path.ends_with(s.path()) || path.ends_with(s.path().trim_start_matches("/v1")))
}

/// Pairs every host -> llm request with the llm -> host response that follows it, and reads both.
pub fn llm_exchanges(events: &[Event]) -> Vec<LlmExchange> {
    let mut out: Vec<LlmExchange> = Vec::new();
    // Exchanges still waiting for a response; a response answers the latest of them.
    let mut open: Vec<usize> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.channel != Channel::LlmHttp {
            continue;
        }
        if e.from == Lane::Host && e.to == Lane::Llm {
            open.push(out.len());
            out.push(read_request(i, e));
        } else if e.from == Lane::Llm && e.to == Lane::Host {
            let Some(x) = open.pop().map(|n| &mut out[n]) else {
                continue;
            };
            x.response = Some(i);
            x.status = e.http.as_ref().and_then(|h| h.status);
            read_response(x, e);
        }
    }
    out
}

/// Pairs requests and responses as events arrive, what [`llm_exchanges`] does in one pass,
/// with the exchanges made for a server's sampling request kept apart from the loop's.
#[derive(Debug, Default)]
pub(super) struct LlmPairs {
    /// Exchanges still waiting for a response (sampling or not, index); a response answers the
    /// latest of them.
    open: Vec<(bool, usize)>,
}

impl LlmPairs {
    /// Reads event `i`: the exchange it opened or answered (sampling or not, index), if any.
    pub(super) fn read(
        &mut self,
        i: usize,
        e: &Event,
        llm: &mut Vec<LlmExchange>,
        sampling: &mut Vec<LlmExchange>,
    ) -> Option<(bool, usize)> {
        if e.channel != Channel::LlmHttp {
            return None;
        }
        if e.from == Lane::Host && e.to == Lane::Llm {
            let x = read_request(i, e);
            let part = if x.sampling_for.is_some() {
                &mut *sampling
            } else {
                &mut *llm
            };
            let at = (x.sampling_for.is_some(), part.len());
            part.push(x);
            self.open.push(at);
            Some(at)
        } else if e.from == Lane::Llm && e.to == Lane::Host {
            let at = self.open.pop()?;
            let x = match at.0 {
                true => &mut sampling[at.1],
                false => &mut llm[at.1],
            };
            x.response = Some(i);
            x.status = e.http.as_ref().and_then(|h| h.status);
            read_response(x, e);
            Some(at)
        } else {
            None
        }
    }
}

/// The agent loop's last request to the model that has a known shape (what
/// `llm_exchanges(events)` minus its sampling exchanges would end with, read without its
/// response), reading no other LLM body: what `diff` needs of the model's half.
pub fn last_loop_request(events: &[Event]) -> Option<LlmExchange> {
    events.iter().enumerate().rev().find_map(|(i, e)| {
        let request = e.channel == Channel::LlmHttp && e.from == Lane::Host && e.to == Lane::Llm;
        let (url, sampling) = request.then(|| request_head(e))?;
        (url.as_deref().and_then(shape_of).is_some() && sampling.is_none())
            .then(|| read_request(i, e))
    })
}

/// A request's URL and the server it asks the model for (the sampling header).
fn request_head(e: &Event) -> (Option<String>, Option<String>) {
    let url = e.http.as_ref().and_then(|h| h.url.clone());
    let sampling_for = e.http.as_ref().and_then(|h| {
        h.headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(SAMPLING_HEADER))
            .map(|(_, value)| value.clone())
    });
    (url, sampling_for)
}

/// Reads the request half of an exchange (event `i`). The body is parsed once; its `tools`
/// array is moved out of it, not copied.
pub(super) fn read_request(i: usize, e: &Event) -> LlmExchange {
    let (url, sampling_for) = request_head(e);
    let shape = url.as_deref().and_then(shape_of);
    let mut x = LlmExchange {
        request: i,
        shape,
        url,
        sampling_for,
        ..LlmExchange::default()
    };
    if let (Some(shape), Ok(mut body)) = (shape, serde_json::from_str::<Value>(&e.text())) {
        x.tools = convert::tool_names_in_request(shape, &body);
        x.tool_results = convert::tool_result_ids_in_request(shape, &body);
        x.model = body
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string);
        x.max_tokens = ["max_tokens", "max_output_tokens", "max_completion_tokens"]
            .iter()
            .find_map(|k| body.get(*k).and_then(Value::as_u64));
        x.temperature = body.get("temperature").and_then(Value::as_f64);
        x.top_p = body.get("top_p").and_then(Value::as_f64);
        x.tool_entries = match body.get_mut("tools").map(Value::take) {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        };
    }
    x
}

fn read_response(x: &mut LlmExchange, e: &Event) {
    let Some(shape) = x.shape else { return };
    let text = e.text();
    let trimmed = text.trim_start();
    let body = if trimmed.starts_with("event:")
        || trimmed.starts_with("data:")
        || trimmed.starts_with(':')
    {
        x.streamed = true;
        reassemble(shape, &SseParser::parse(text.as_bytes()))
    } else {
        serde_json::from_str::<Value>(&text).map_err(|err| format!("not JSON: {err}"))
    };
    if let Ok(b) = &body {
        let text = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
        x.response_model = text("model");
        x.response_id = text("id");
        x.usage = b.get("usage").map(Usage::read).unwrap_or_default();
    }
    let turn = body.and_then(|b| convert::parse_response(shape, &b).map_err(|err| err.to_string()));
    match turn {
        Ok(turn) => {
            x.stop_reason = Some(turn.stop_reason);
            x.text = turn.text;
            x.tool_calls = turn
                .tool_calls
                .into_iter()
                .map(|c| (c.id, c.name, c.arguments.ok().map(Value::Object)))
                .collect();
        }
        Err(problem) => x.problem = Some(problem),
    }
}
