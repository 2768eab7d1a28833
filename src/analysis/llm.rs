//! Reading `llm-http` events: the shape, the tools offered, the calls made, the stop reason.

use std::sync::Arc;

use serde_json::Value;

use crate::trace::{Channel, Event, Lane};
use crate::wire::api::{ApiShape, SAMPLING_HEADER};
use crate::wire::convert;
use crate::wire::offered::{self, Offered};
use crate::wire::reassemble::read_body;
use crate::wire::remote;

use body::{LastTools, Reading, request_body};

/// Which half of an exchange an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmRole {
    Request,
    Response,
}

impl LlmRole {
    /// The half of an exchange with the model `e` is: a host-to-model request or a
    /// model-to-host response on the LLM API's channel; `None` for any other event.
    fn of(e: &Event) -> Option<LlmRole> {
        if e.channel != Channel::LlmHttp {
            return None;
        }
        match (&e.from, &e.to) {
            (Lane::Host, Lane::Llm) => Some(LlmRole::Request),
            (Lane::Llm, Lane::Host) => Some(LlmRole::Response),
            _ => None,
        }
    }
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
    /// Names of the tools the request's `tools` parameter carries (a namespace's members as
    /// `namespace.tool`; the entries [`offered::read`] cannot read are in `offered.unknown`).
    pub tools: Vec<String>,
    /// What the request offers the model, each tool told apart: a host's own, the API's, MCP
    /// tools whole, deferred or named in text only, namespaces; tools a search loaded.
    pub offered: Arc<Offered>,
    /// The request's `tools` entries as sent (for Gemini, each function declaration of its tool
    /// objects, and any other tool object whole: [`convert::tool_entries`]); one list shared by
    /// the requests of a run that
    /// repeat it (an agent loop sends the same tools every turn: on a tool-heavy trace, copies
    /// were most of what the app held beside the trace's own text).
    pub tool_entries: Arc<[Value]>,
    /// Ids of the tool results the request returns to the model.
    pub tool_results: Vec<String>,
    /// The tool calls of the response: id, name, arguments (parsed when they parse).
    pub tool_calls: Vec<(String, String, Option<Value>)>,
    /// Every call of the response as [`offered::calls`] reads it: with its namespace, and the
    /// API's own (`server_tool_use`) beside the host's.
    pub calls: Vec<offered::Call>,
    /// Tools the response says a search loaded (a server-side tool search's references).
    pub loaded: Vec<String>,
    pub stop_reason: Option<String>,
    /// The response's text.
    pub text: String,
    /// Whether the response arrived as a stream (SSE, or Gemini's JSON array).
    pub streamed: bool,
    /// Why the response could not be read, if it could not.
    pub problem: Option<String>,
    /// The MCP server this request asks the model for (`sampling/createMessage`), when the
    /// host marked it so ([`SAMPLING_HEADER`]): not a turn of the agent loop.
    pub sampling_for: Option<String>,
    /// The request's `model`, `max_tokens` (or `max_output_tokens`), `temperature`, `top_p`;
    /// for Gemini the model named in the URL and `generationConfig`'s `maxOutputTokens`,
    /// `temperature`, `topP`.
    pub model: Option<String>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The response's `model` and `id` (Gemini: `modelVersion`, `responseId`).
    pub response_model: Option<String>,
    pub response_id: Option<String>,
    /// The response's usage block, read the same way for every shape.
    pub usage: Usage,
    /// The remote MCP servers the request hands the API, which is their MCP client then
    /// (Anthropic's `mcp_servers`, OpenAI's `mcp` tools).
    pub remote_servers: Vec<remote::Server>,
    /// What the API's MCP client did: the approvals the request answers, then the lists, calls
    /// and approval requests of the response.
    pub remote: Vec<remote::Step>,
    /// What does not add up between those servers and steps (each step is kept).
    pub remote_problems: Vec<remote::Problem>,
    /// What the user said to open the turn this request starts, as the request carries it
    /// ([`convert::user_words`]): a recorded host's only record of its user.
    pub user_words: Option<String>,
}

impl LlmExchange {
    /// Whether the host or the API runs the tool the model called `name` itself, by what the
    /// request offered (a host's own tool, the API's) or how the call was made
    /// (`server_tool_use`): no MCP server ever sees such a call.
    pub fn runs_itself(&self, name: &str) -> bool {
        let server = |c: &offered::Call| c.name == name && c.kind == offered::CallKind::Server;
        self.calls.iter().any(server)
            || self
                .offered
                .find(name, None)
                .is_some_and(|t| matches!(t.kind, offered::Kind::Host | offered::Kind::Api))
    }
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
    /// `input_tokens`/`output_tokens` with `*_details`; Chat `prompt_tokens`/`completion_tokens`;
    /// Gemini `usageMetadata`: `promptTokenCount` (cached tokens included, as OpenAI counts
    /// them), `candidatesTokenCount` plus `thoughtsTokenCount` (the thinking is output, billed
    /// as such, as OpenAI's `output_tokens` include reasoning), `cachedContentTokenCount`,
    /// `thoughtsTokenCount`.
    fn read(usage: &Value) -> Usage {
        let n = |path: &str| usage.pointer(path).and_then(Value::as_u64);
        let gemini_output = match (n("/candidatesTokenCount"), n("/thoughtsTokenCount")) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        Usage {
            input: n("/input_tokens")
                .or_else(|| n("/prompt_tokens"))
                .or_else(|| n("/promptTokenCount")),
            output: n("/output_tokens")
                .or_else(|| n("/completion_tokens"))
                .or(gemini_output),
            cache_read: n("/cache_read_input_tokens")
                .or_else(|| n("/input_tokens_details/cached_tokens"))
                .or_else(|| n("/prompt_tokens_details/cached_tokens"))
                .or_else(|| n("/cachedContentTokenCount")),
            cache_creation: n("/cache_creation_input_tokens"),
            reasoning: n("/output_tokens_details/reasoning_tokens")
                .or_else(|| n("/completion_tokens_details/reasoning_tokens"))
                .or_else(|| n("/thoughtsTokenCount")),
        }
    }
}

fn shape_of(url: &str) -> Option<ApiShape> {
    ApiShape::from_url(url)
}

/// Pairs every host -> llm request with the llm -> host response that follows it, and reads both.
pub fn llm_exchanges(events: &[Event]) -> Vec<LlmExchange> {
    read_exchanges(events, Reading::Whole)
}

/// [`llm_exchanges`] for statistics: each request read for its model and the tools it offers,
/// not its conversation (what was said, the tool results it returns, the API's remote
/// servers), which is most of a request's bytes; each response read whole.
pub fn llm_counts(events: &[Event]) -> Vec<LlmExchange> {
    read_exchanges(events, Reading::Counts)
}

fn read_exchanges(events: &[Event], reading: Reading) -> Vec<LlmExchange> {
    let pairs = pair(events);
    // Reading the bodies is the work (kilobytes of JSON each); pairing is not. A big trace's
    // exchanges are read in two runs of about the same bytes, on two threads where there are.
    let size = |&(request, response): &(usize, Option<usize>)| {
        let len = |i: usize| {
            let e = &events[i];
            e.raw
                .as_ref()
                .map_or_else(|| e.raw_b64().map_or(0, str::len), |r| r.len())
        };
        len(request) + response.map_or(0, len)
    };
    let total: usize = pairs.iter().map(size).sum();
    if total < PARALLEL_READ_FROM || !crate::trace::halves::has_threads() {
        return read_pairs(events, &pairs, reading);
    }
    let mut seen = 0;
    let mid = pairs
        .iter()
        .position(|p| {
            seen += size(p);
            seen >= total / 2
        })
        .map_or(pairs.len(), |k| k + 1);
    let (first, second) = pairs.split_at(mid);
    let (mut out, rest) = crate::trace::halves::join(
        || read_pairs(events, first, reading),
        || read_pairs(events, second, reading),
    );
    out.extend(rest);
    out
}

/// Below this many bytes of LLM bodies, [`llm_exchanges`] reads them on one thread.
const PARALLEL_READ_FROM: usize = 4 << 20;

/// Each request with the response that answers it, in the order of the requests: a response
/// answers the latest request still waiting.
fn pair(events: &[Event]) -> Vec<(usize, Option<usize>)> {
    let mut pairs: Vec<(usize, Option<usize>)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        match LlmRole::of(e) {
            Some(LlmRole::Request) => {
                open.push(pairs.len());
                pairs.push((i, None));
            }
            Some(LlmRole::Response) => {
                if let Some(n) = open.pop() {
                    pairs[n].1 = Some(i);
                }
            }
            None => {}
        }
    }
    pairs
}

/// The exchanges of `pairs` read, the tools of each list parsed once in the run.
fn read_pairs(
    events: &[Event],
    pairs: &[(usize, Option<usize>)],
    reading: Reading,
) -> Vec<LlmExchange> {
    let mut last = LastTools::reading(reading);
    pairs
        .iter()
        .map(|&(request, response)| {
            let mut x = read_request_with(request, &events[request], &mut last);
            if let Some(r) = response {
                let e = &events[r];
                x.response = Some(r);
                x.status = e.http().and_then(|h| h.status);
                read_response(&mut x, e);
            }
            x
        })
        .collect()
}

/// Pairs requests and responses as events arrive, what [`llm_exchanges`] does in one pass,
/// with the exchanges made for a server's sampling request kept apart from the loop's.
#[derive(Debug, Default)]
pub(super) struct LlmPairs {
    /// Exchanges still waiting for a response (sampling or not, index); a response answers the
    /// latest of them.
    open: Vec<(bool, usize)>,
    last: LastTools,
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
        let role = LlmRole::of(e)?;
        if role == LlmRole::Request {
            let x = read_request_with(i, e, &mut self.last);
            let part = if x.sampling_for.is_some() {
                &mut *sampling
            } else {
                &mut *llm
            };
            let at = (x.sampling_for.is_some(), part.len());
            part.push(x);
            self.open.push(at);
            Some(at)
        } else {
            let at = self.open.pop()?;
            let x = match at.0 {
                true => &mut sampling[at.1],
                false => &mut llm[at.1],
            };
            x.response = Some(i);
            x.status = e.http().and_then(|h| h.status);
            read_response(x, e);
            Some(at)
        }
    }
}

/// The agent loop's last request to the model that has a known shape (what
/// `llm_exchanges(events)` minus its sampling exchanges would end with, read without its
/// response), reading no other LLM body: what `diff` needs of the model's half.
pub fn last_loop_request(events: &[Event]) -> Option<LlmExchange> {
    events.iter().enumerate().rev().find_map(|(i, e)| {
        let request = LlmRole::of(e) == Some(LlmRole::Request);
        let (url, sampling) = request.then(|| request_head(e))?;
        (url.as_deref().and_then(shape_of).is_some() && sampling.is_none())
            .then(|| read_request(i, e))
    })
}

/// A request's URL and the server it asks the model for (the sampling header).
fn request_head(e: &Event) -> (Option<String>, Option<String>) {
    let url = e.http().and_then(|h| Some(h.url.as_deref()?.to_string()));
    let sampling_for = e.http().and_then(|h| {
        h.headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(SAMPLING_HEADER))
            .map(|(_, value)| value.to_string())
    });
    (url, sampling_for)
}

/// Reads the request half of an exchange (event `i`). The body is parsed once; its `tools`
/// array is moved out of it, not copied.
pub(super) fn read_request(i: usize, e: &Event) -> LlmExchange {
    read_request_with(i, e, &mut LastTools::default())
}

/// [`read_request`] with the tools of the last request read.
pub(super) fn read_request_with(i: usize, e: &Event, last: &mut LastTools) -> LlmExchange {
    let (url, sampling_for) = request_head(e);
    let shape = url.as_deref().and_then(shape_of);
    let mut x = LlmExchange {
        request: i,
        shape,
        url,
        sampling_for,
        ..LlmExchange::default()
    };
    if let Some(shape) = shape
        && let Some((body, entries)) = request_body(shape, &e.text(), last)
    {
        let read = offered::read(&body, &entries);
        x.tools = read
            .tools
            .iter()
            .filter(|t| t.entry.is_some())
            .map(|t| match &t.namespace {
                Some(ns) => format!("{ns}.{}", t.name),
                None => t.name.clone(),
            })
            .collect();
        x.offered = Arc::new(read);
        x.tool_results = convert::tool_result_ids_in_request(shape, &body);
        x.user_words = convert::user_words(shape, &body);
        x.remote_servers = remote::declared(&body, &entries);
        x.remote = remote::answered(&body);
        x.remote_problems = remote::problems(&x.remote_servers, &x.remote);
        x.model = body
            .get("model")
            .and_then(Value::as_str)
            .or_else(|| x.url.as_deref().and_then(ApiShape::model_from_url))
            .map(str::to_string);
        // Gemini keeps its sampling settings in `generationConfig`.
        let config = body.get("generationConfig").unwrap_or(&Value::Null);
        x.max_tokens = ["max_tokens", "max_output_tokens", "max_completion_tokens"]
            .iter()
            .find_map(|k| body.get(*k).and_then(Value::as_u64))
            .or_else(|| config.get("maxOutputTokens").and_then(Value::as_u64));
        x.temperature = body
            .get("temperature")
            .or_else(|| config.get("temperature"))
            .and_then(Value::as_f64);
        x.top_p = body
            .get("top_p")
            .or_else(|| config.get("topP"))
            .and_then(Value::as_f64);
        x.tool_entries = entries;
    }
    x
}

fn read_response(x: &mut LlmExchange, e: &Event) {
    let Some(shape) = x.shape else { return };
    let (streamed, body) = read_body(shape, &e.text());
    x.streamed = streamed;
    if let Ok(b) = &body {
        let text = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
        x.response_model = text("model").or_else(|| text("modelVersion"));
        x.response_id = text("id").or_else(|| text("responseId"));
        x.usage = b
            .get("usage")
            .or_else(|| b.get("usageMetadata"))
            .map(Usage::read)
            .unwrap_or_default();
        x.calls = offered::calls(b);
        x.remote.extend(remote::steps(b));
        x.remote_problems = remote::problems(&x.remote_servers, &x.remote);
        x.loaded = offered::tool_references(b);
    }
    // Gemini calls are joined by their place in the answer: a host may rewrite their ids.
    let keys = match (&body, shape) {
        (Ok(b), ApiShape::Gemini) => Some(convert::gemini_call_keys(b)),
        _ => None,
    };
    let turn = body.and_then(|b| convert::parse_response(shape, &b).map_err(|err| err.to_string()));
    match turn {
        Ok(turn) => {
            x.stop_reason = Some(turn.stop_reason);
            x.text = turn.text;
            x.tool_calls = turn
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(k, c)| {
                    let id = keys.as_ref().and_then(|keys| keys.get(k).cloned());
                    (
                        id.unwrap_or(c.id),
                        c.name,
                        c.arguments.ok().map(Value::Object),
                    )
                })
                .collect();
        }
        Err(problem) => x.problem = Some(problem),
    }
}

mod body;
#[cfg(test)]
mod tests;
