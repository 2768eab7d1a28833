//! The scripted model: an LLM API server on 127.0.0.1 that plays a [`Script`].
//!
//! It is the embedded default model: no API key, no network. The host reaches it through the
//! same HTTP provider code as a real API, so everything the recorder shows (requests, tool
//! calls, tool results, streams) is the real wire shape of the chosen [`ApiShape`]:
//! `POST /v1/messages` (Anthropic), `/v1/responses` (OpenAI Responses) and
//! `/v1/chat/completions` (OpenAI Chat Completions), streamed when the request says
//! `"stream": true`; and Gemini's `POST /v1beta/models/<model>:generateContent` (also under
//! `/v1/models/`), streamed for `:streamGenerateContent`: as Server-Sent Events with `?alt=sse`,
//! else as the JSON array of records the real API sends. For Gemini it also answers
//! `:countTokens` (`{totalTokens}`, its rough count), which hosts call beside the loop.
//!
//! # How it decides
//!
//! Like a model, it decides only from what the request holds; the server keeps no state.
//!
//! - The step to play is the number of assistant turns already in the conversation: Anthropic
//!   `messages` and Chat `messages` with role `assistant`; Responses `input` runs of consecutive
//!   assistant items (`function_call`, `reasoning`, role `assistant`), plus the turns before a
//!   `previous_response_id` of its own (`resp_sl_<turn>`); Gemini `contents` with role `model`.
//! - A `call` step makes its tool calls only if every tool is among the request's `tools`
//!   (under the host's name for it, or inside a namespace: [`tools`]; for Gemini, among the
//!   `functionDeclarations`); otherwise it answers with its `if_missing` text and ends the
//!   turn, as a model does when it has no such tool. A tool the host only names (Claude Code's
//!   deferred tools) is first loaded with the host's `ToolSearch`; that search turn is not a
//!   step (the ids still count it). Ids are deterministic: Anthropic `toolu_sl_<turn>_<n>`;
//!   Responses item `fc_sl_<turn>_<n>` with `call_id` `call_sl_<turn>_<n>`; Chat
//!   `call_sl_<turn>_<n>`. Gemini calls have no id, as Gemini 2.5 sends them; its `responseId`
//!   is `resp_sl_<turn>`, `finishReason` `STOP`.
//! - A `reply` step fills `{result}` from the tool results of the last user turn: Anthropic
//!   `tool_result` content (a string or text blocks), Responses `function_call_output`
//!   `output`, Chat role `tool` `content`, Gemini `functionResponse` `response.output` (or
//!   `response.error`).
//! - Past the last step it answers "(the script has no more steps)".
//!
//! A body that is not JSON, or lacks `messages` (`input` for Responses, `contents` for Gemini),
//! gets HTTP 400 with the provider's error shape (Gemini: `{error: {code: 400, message, status:
//! "INVALID_ARGUMENT"}}`). A missing `model` is tolerated and echoed as `scripted`; Gemini's
//! comes from the URL.
//!
//! A request that hands the API remote MCP servers (Anthropic's `mcp_servers`, a Responses
//! `mcp` tool) is answered as those APIs answer it: the scripted API is their MCP client
//! ([`connector`]).
//!
//! The [script format](Script) is documented on [`Script`]. [`respond`] is the whole decision
//! as a pure function; [`ScriptedModel`] serves it over HTTP.

mod connector;
mod read;
mod script;
mod server;
mod shapes;
mod stream;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gemini;
#[cfg(test)]
mod tests_http;
mod tools;

use std::net::SocketAddr;

use serde_json::{Value, json};

pub use script::{IF_MISSING, NO_MORE_STEPS, NO_RESULT, Script, Step, StopReason, ToolCall};
pub use server::ScriptedModel;

use crate::host::scenario::Text;
use crate::wire::api::ApiShape;
use script::fill;
use shapes::{Answer, Call};
use tools::Found;

/// Starting the scripted model, or reading a script.
#[derive(Debug, thiserror::Error)]
pub enum ScriptedError {
    #[error("the scripted model cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the scripted model's listening address is unknown: {0}")]
    LocalAddr(std::io::Error),
    #[error("bad script: {0}")]
    Script(#[from] toml::de::Error),
}

/// A request the scripted model refuses, as a real API would (HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("the request body is not valid JSON: {0}")]
    NotJson(String),
    #[error("{0}")]
    Invalid(String),
}

/// The error body a real API sends with a 400 for `error`, in `shape`'s form.
pub fn error_body(shape: ApiShape, error: &RequestError) -> Value {
    let message = error.to_string();
    match shape {
        ApiShape::Anthropic => json!({
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        }),
        ApiShape::Openai | ApiShape::OpenaiChat => json!({
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": null,
                "code": null,
            },
        }),
        ApiShape::Gemini => json!({
            "error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"},
        }),
    }
}

pub use crate::wire::api::SAMPLING_HEADER;

/// What the scripted model answers a sampling request with when the scenario says nothing: a
/// key of `assets/i18n`, said in the run's language.
pub const SAMPLING_REPLY: &str = "scripted.sampling_reply";

/// The scripted model's answer to `request` in `shape`'s non-streamed response form.
pub fn respond(script: &Script, shape: ApiShape, request: &Value) -> Result<Value, RequestError> {
    Ok(shapes::body(shape, &answer(script, shape, request, None)?))
}

/// The same answer as a server-sent event stream, one event per string, as sent for
/// `"stream": true` (Chat adds a usage chunk if `stream_options.include_usage` is true; Gemini's
/// is what `:streamGenerateContent?alt=sse` gets).
pub fn respond_stream(
    script: &Script,
    shape: ApiShape,
    request: &Value,
) -> Result<Vec<String>, RequestError> {
    let include_usage = request
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(stream::events(
        shape,
        &answer(script, shape, request, None)?,
        include_usage,
    ))
}

/// The decision: which step, and what it says given the request. `sampling` is the reply to
/// give when the host asks on behalf of a server (the request carried [`SAMPLING_HEADER`]):
/// such a request is not a turn of the script.
fn answer(
    script: &Script,
    shape: ApiShape,
    request: &Value,
    sampling: Option<&str>,
) -> Result<Answer, RequestError> {
    answer_in(script, read::read(shape, request)?, sampling)
}

/// [`answer`] to a request already read.
fn answer_in(
    script: &Script,
    conversation: read::Conversation,
    sampling: Option<&str>,
) -> Result<Answer, RequestError> {
    let step = match sampling {
        Some(_) => None,
        None => script.steps.get(conversation.turn),
    };
    let no_result = script.words().get(NO_RESULT);
    let (text, calls, stop) = match step {
        None if sampling.is_some() => (
            sampling.map(|reply| fill(reply, &conversation.results, None, no_result)),
            Vec::new(),
            StopReason::EndTurn,
        ),
        None => (
            Some(script.words().get(NO_MORE_STEPS).to_string()),
            Vec::new(),
            StopReason::EndTurn,
        ),
        Some(Step::Reply { text, stop }) => (
            Some(fill(text.as_str(), &conversation.results, None, no_result)),
            Vec::new(),
            stop.unwrap_or(StopReason::EndTurn),
        ),
        Some(Step::Call {
            say,
            calls,
            if_missing,
            stop,
        }) => {
            let found: Vec<Found> = calls
                .iter()
                .map(|call| conversation.tools.find(&call.tool))
                .collect();
            let deferred: Vec<&str> = found
                .iter()
                .filter_map(|f| match f {
                    Found::Deferred(name) => Some(name.as_str()),
                    _ => None,
                })
                .collect();
            let missing = calls
                .iter()
                .zip(&found)
                .find(|(_, f)| **f == Found::Missing);
            match missing {
                Some((call, _)) => {
                    let template = if_missing
                        .as_ref()
                        .map_or(script.words().get(IF_MISSING), Text::as_str);
                    let text = fill(template, &conversation.results, Some(&call.tool), no_result);
                    (Some(text), Vec::new(), StopReason::EndTurn)
                }
                // Load what is only named first; this turn is not a step.
                None if !deferred.is_empty() => {
                    let input = tools::search_input(&deferred.join(","));
                    let search = Call::new(tools::SEARCH_TOOL.into(), None, input);
                    (None, vec![search], StopReason::ToolUse)
                }
                None => {
                    let calls = calls
                        .iter()
                        .zip(found)
                        .filter_map(|(call, found)| match found {
                            Found::Callable { name, namespace } => {
                                Some(Call::new(name, namespace, call.arguments.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                    // An empty `say` is no text at all (Anthropic refuses empty text blocks).
                    let say = say
                        .as_ref()
                        .map(|say| say.as_str().to_string())
                        .filter(|say| !say.is_empty());
                    (say, calls, stop.unwrap_or(StopReason::ToolUse))
                }
            }
        }
    };
    let text_chars = text.as_deref().map_or(0, str::len);
    let call_tokens: u64 = calls
        .iter()
        .map(|call: &Call| read::tokens(call.name.len() + call.arguments.len()) + 8)
        .sum();
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    Ok(Answer {
        conversation,
        output_tokens: read::tokens(text_chars) + call_tokens,
        text,
        calls,
        stop,
        created,
        sampling: sampling.is_some(),
    })
}
