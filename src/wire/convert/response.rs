//! Response bodies: what the model answered, its tool calls, and whether the loop goes on.
//!
//! The four shapes say "call these tools" differently: Anthropic puts `tool_use` blocks in
//! `content` and stops with `stop_reason: "tool_use"`; Responses puts `function_call` items in
//! `output` (and has no tool-specific status); Chat Completions puts `tool_calls` on the message
//! with `finish_reason: "tool_calls"`; Gemini puts `functionCall` parts in
//! `candidates[0].content.parts` and stops with `finishReason: "STOP"` as for text. Anthropic's
//! `input` and Gemini's `args` are already objects; both OpenAI shapes send `arguments` as a
//! JSON *string* that the host must parse before `tools/call`, and that parse can fail:
//! [`ArgumentsError`] keeps the raw string so the trace can show it.
//!
//! A Gemini `functionCall` has an `id` only when the model gives one (Gemini 2.5 on the
//! Developer API does not). Such a call is known by its name and place: [`gemini_call_id`]
//! gives it `<name>#<n>` (`get_weather#1`, the first call of the answer), the id the host then
//! sends back in its `functionResponse`, as Gemini CLI sends an id of its own.

use serde_json::{Map, Value};

use super::{json_kind, str_field};
use crate::wire::api::ApiShape;

/// Why a tool call's arguments cannot become `tools/call` `arguments` (an object).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentsError {
    /// The OpenAI `arguments` string is not JSON.
    #[error("arguments are not valid JSON ({message}): {raw:?}")]
    InvalidJson {
        /// The string exactly as the model sent it.
        raw: String,
        /// The parser's message, position included.
        message: String,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
    },
    /// The arguments are JSON but not an object.
    #[error("arguments are {found}, not a JSON object: {raw}")]
    NotAnObject {
        /// The arguments as JSON text (the OpenAI string, or Anthropic's `input` serialized).
        raw: String,
        /// The JSON type found.
        found: &'static str,
    },
}

/// One tool call the model asked for, in any shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelToolCall {
    /// The id results are returned under: Anthropic `tool_use.id`, Responses `call_id` (not the
    /// item's `fc_` id), Chat `tool_calls[].id`, Gemini `functionCall.id` (or, without one,
    /// [`gemini_call_id`]).
    pub id: String,
    /// The tool name as the model saw it (the `api_name` given to `tool_to_api`).
    pub name: String,
    /// The arguments for `tools/call`, or why they are unusable.
    pub arguments: Result<Map<String, Value>, ArgumentsError>,
}

/// What the model answered, parsed from a non-streamed (or reassembled) response body.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTurn {
    /// The text parts, concatenated as they come (Anthropic `text` blocks; Responses
    /// `output_text` and `refusal` parts of `message` items; Chat `content`, or `refusal`;
    /// Gemini `text` parts that are not `thought` summaries).
    pub text: String,
    /// The tool calls, in order.
    pub tool_calls: Vec<ModelToolCall>,
    /// The provider's own value: Anthropic `stop_reason`, Responses `status`, Chat
    /// `finish_reason`, Gemini `finishReason`.
    pub stop_reason: String,
    /// Whether the loop continues: the host runs `tool_calls` and sends the results. Anthropic:
    /// `stop_reason` is `"tool_use"` and there is a `tool_use` block. Responses: there is a
    /// `function_call` item. Chat: there is a tool call (some OpenAI-compatible servers report
    /// `finish_reason: "stop"` along with `tool_calls`, so the calls decide, not the reason).
    /// Gemini: there is a `functionCall` part (its `finishReason` is `STOP` either way).
    pub wants_tools: bool,
    /// What to append to the conversation to continue it. Anthropic: one `{role: "assistant",
    /// content}` message with the content blocks as received (thinking blocks and their
    /// signatures must go back unchanged). Responses: every output item as received (reasoning
    /// items must accompany their function calls). Chat: one `{role: "assistant", content,
    /// tool_calls}` message; the response-only fields (`refusal`, `annotations`) are left out.
    /// Gemini: the candidate's `content` as received (`{role: "model", parts}`; a part's
    /// `thoughtSignature` must go back with it).
    pub assistant_message: Vec<Value>,
}

/// Why a response body cannot be read as a model turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    /// The body is not a JSON object.
    #[error("the response body is {found}, not a JSON object")]
    NotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// The body carries an `error` (an error response, or a Responses `status: "failed"`).
    #[error("the API returned an error{}: {message}", .kind.as_ref().map(|k| format!(" ({k})")).unwrap_or_default())]
    Api {
        /// `error.type`, or else `error.code`, or else `error.status` (Gemini: `error.code` is the
        /// HTTP status number, `status` its name, `INVALID_ARGUMENT`).
        kind: Option<String>,
        /// `error.message` (or the `error` itself when it is a string).
        message: String,
    },
    /// A field the shape requires is missing or of the wrong type.
    #[error("the response body has no valid `{field}` (expected {expected})")]
    MissingField {
        /// Path of the field, like `choices[0].message` or `content[1].id`.
        field: String,
        /// What was expected there ("an array", "a string").
        expected: &'static str,
    },
}

fn missing(field: impl Into<String>, expected: &'static str) -> ResponseError {
    ResponseError::MissingField {
        field: field.into(),
        expected,
    }
}

/// `value[key]` as a string, or a [`ResponseError::MissingField`] at `path`.
fn required_str(value: &Value, key: &str, path: &str) -> Result<String, ResponseError> {
    str_field(value, key)
        .map(str::to_string)
        .ok_or_else(|| missing(path, "a string"))
}

/// Parses an OpenAI `arguments` string into `tools/call` arguments. An empty (or all-blank)
/// string counts as `{}`: models send it for tools without parameters, and hosts such as the
/// OpenAI Agents SDK read it that way. Also used on arguments reassembled from a stream.
pub fn parse_arguments(raw: &str) -> Result<Map<String, Value>, ArgumentsError> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ArgumentsError::NotAnObject {
            raw: raw.to_string(),
            found: json_kind(&other),
        }),
        Err(err) => Err(ArgumentsError::InvalidJson {
            raw: raw.to_string(),
            message: err.to_string(),
            line: err.line(),
            column: err.column(),
        }),
    }
}

/// Arguments given as a JSON value: an object is used as is; a string is parsed (OpenAI);
/// anything else is refused. A missing value counts as `{}`.
fn arguments_from(value: Option<&Value>) -> Result<Map<String, Value>, ArgumentsError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(Value::String(raw)) => parse_arguments(raw),
        Some(other) => Err(ArgumentsError::NotAnObject {
            raw: other.to_string(),
            found: json_kind(other),
        }),
    }
}

/// What the model answered, from a (non-streamed, or reassembled) response body.
///
/// Fails on a body that is not an object, on an `error` object in it (Anthropic's
/// `{type: "error", error}`, OpenAI's `{error}`, a failed Responses run; `"error": null` is
/// fine), and on missing required fields. A tool call whose arguments are unusable is not a
/// failure of the body: it comes back with `arguments: Err(..)` so the host can tell the model.
pub fn parse_response(shape: ApiShape, body: &Value) -> Result<ModelTurn, ResponseError> {
    if !body.is_object() {
        return Err(ResponseError::NotAnObject {
            found: json_kind(body),
        });
    }
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        return Err(api_error(error));
    }
    match shape {
        ApiShape::Anthropic => parse_anthropic(body),
        ApiShape::Openai => parse_responses(body),
        ApiShape::OpenaiChat => parse_chat(body),
        ApiShape::Gemini => parse_gemini(body),
    }
}

fn api_error(error: &Value) -> ResponseError {
    if let Some(message) = error.as_str() {
        // Ollama and some gateways: `{"error": "model not found"}`.
        return ResponseError::Api {
            kind: None,
            message: message.to_string(),
        };
    }
    let kind = str_field(error, "type")
        .or_else(|| str_field(error, "code"))
        .or_else(|| str_field(error, "status"))
        .map(str::to_string);
    let message = str_field(error, "message")
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    ResponseError::Api { kind, message }
}

fn parse_anthropic(body: &Value) -> Result<ModelTurn, ResponseError> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("content", "an array"))?;
    let stop_reason = required_str(body, "stop_reason", "stop_reason")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (i, block) in content.iter().enumerate() {
        match str_field(block, "type") {
            Some("text") => text.push_str(str_field(block, "text").unwrap_or_default()),
            Some("tool_use") => tool_calls.push(ModelToolCall {
                id: required_str(block, "id", &format!("content[{i}].id"))?,
                name: required_str(block, "name", &format!("content[{i}].name"))?,
                arguments: match block.get("input") {
                    Some(Value::Object(input)) => Ok(input.clone()),
                    other => Err(ArgumentsError::NotAnObject {
                        raw: other.map(Value::to_string).unwrap_or_default(),
                        found: other.map_or("missing", json_kind),
                    }),
                },
            }),
            // thinking, redacted_thinking, server tool blocks: kept in the message only.
            _ => {}
        }
    }
    Ok(ModelTurn {
        text,
        wants_tools: stop_reason == "tool_use" && !tool_calls.is_empty(),
        tool_calls,
        stop_reason,
        assistant_message: vec![serde_json::json!({
            "role": "assistant",
            "content": content,
        })],
    })
}

fn parse_responses(body: &Value) -> Result<ModelTurn, ResponseError> {
    let output = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("output", "an array"))?;
    let stop_reason = required_str(body, "status", "status")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (i, item) in output.iter().enumerate() {
        match str_field(item, "type") {
            Some("message") => {
                let parts = item.get("content").and_then(Value::as_array);
                for part in parts.into_iter().flatten() {
                    match str_field(part, "type") {
                        Some("output_text") => {
                            text.push_str(str_field(part, "text").unwrap_or_default())
                        }
                        Some("refusal") => {
                            text.push_str(str_field(part, "refusal").unwrap_or_default())
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => tool_calls.push(ModelToolCall {
                id: required_str(item, "call_id", &format!("output[{i}].call_id"))?,
                name: required_str(item, "name", &format!("output[{i}].name"))?,
                arguments: arguments_from(item.get("arguments")),
            }),
            _ => {}
        }
    }
    Ok(ModelTurn {
        text,
        wants_tools: !tool_calls.is_empty(),
        tool_calls,
        stop_reason,
        assistant_message: output.clone(),
    })
}

fn parse_chat(body: &Value) -> Result<ModelTurn, ResponseError> {
    let choice = body
        .get("choices")
        .and_then(|choices| choices.get(0))
        .ok_or_else(|| missing("choices[0]", "an object"))?;
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| missing("choices[0].message", "an object"))?;
    let stop_reason = required_str(choice, "finish_reason", "choices[0].finish_reason")?;

    let content = message.get("content").cloned().unwrap_or(Value::Null);
    let mut text = match &content {
        Value::String(s) => s.clone(),
        // Some servers send content parts: `[{type: "text", text}]`.
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| str_field(part, "text"))
            .collect(),
        _ => String::new(),
    };
    if text.is_empty()
        && let Some(refusal) = str_field(message, "refusal")
    {
        text = refusal.to_string();
    }

    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(_) => return Err(missing("choices[0].message.tool_calls", "an array")),
    };
    let mut tool_calls = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let path = format!("choices[0].message.tool_calls[{i}]");
        let function = call
            .get("function")
            .ok_or_else(|| missing(format!("{path}.function"), "an object"))?;
        tool_calls.push(ModelToolCall {
            id: required_str(call, "id", &format!("{path}.id"))?,
            name: required_str(function, "name", &format!("{path}.function.name"))?,
            arguments: arguments_from(function.get("arguments")),
        });
    }

    let mut assistant = Map::new();
    assistant.insert("role".into(), "assistant".into());
    assistant.insert("content".into(), content);
    if !calls.is_empty() {
        assistant.insert("tool_calls".into(), Value::Array(calls.to_vec()));
    }
    Ok(ModelTurn {
        text,
        wants_tools: !tool_calls.is_empty(),
        tool_calls,
        stop_reason,
        assistant_message: vec![Value::Object(assistant)],
    })
}

/// The id Sightline gives a Gemini `functionCall` that has none: its name and its place among
/// the answer's calls, from 1 (`get_weather#1`).
pub fn gemini_call_id(name: &str, n: usize) -> String {
    format!("{name}#{n}")
}

/// The `functionCall` parts of a Gemini content (`{role: "model", parts}`), in order: the id
/// written on it (by the model, or by the host: Gemini CLI writes its own into the history),
/// its name, and its place key ([`gemini_call_id`]).
pub(super) fn gemini_calls(content: &Value) -> Vec<(Option<String>, String, String)> {
    let parts = content.get("parts").and_then(Value::as_array);
    let calls = parts
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("functionCall"));
    calls
        .enumerate()
        .map(|(k, call)| {
            let name = str_field(call, "name").unwrap_or_default().to_string();
            let id = str_field(call, "id").filter(|id| !id.is_empty());
            let key = gemini_call_id(&name, k + 1);
            (id.map(str::to_string), name, key)
        })
        .collect()
}

/// The keys the calls of a Gemini response are joined by in a trace: `<name>#<n>`, each call's
/// place in the answer, whatever its id. A host may write ids of its own on the calls it sends
/// back in the history (Gemini CLI does, when the model gave none), so the place is the one
/// key the response and the next request always share;
/// [`tool_result_ids_in_request`](super::tool_result_ids_in_request) gives the same keys. The
/// host itself answers under [`ModelToolCall::id`], the model's id when it gave one.
pub fn gemini_call_keys(body: &Value) -> Vec<String> {
    body.pointer("/candidates/0/content")
        .map(|content| gemini_calls(content).into_iter().map(|c| c.2).collect())
        .unwrap_or_default()
}

fn parse_gemini(body: &Value) -> Result<ModelTurn, ResponseError> {
    let candidate = body
        .get("candidates")
        .and_then(|candidates| candidates.get(0))
        .filter(|c| c.is_object());
    let Some(candidate) = candidate else {
        // A prompt the API blocked has no candidates, only `promptFeedback.blockReason`.
        if let Some(reason) = body
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            return Err(ResponseError::Api {
                kind: Some(reason.to_string()),
                message: "the prompt was blocked (promptFeedback.blockReason)".into(),
            });
        }
        return Err(missing("candidates[0]", "an object"));
    };
    let stop_reason = required_str(candidate, "finishReason", "candidates[0].finishReason")?;
    // A candidate stopped for safety or length may have no content, or content without parts.
    let content = candidate
        .get("content")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"role": "model", "parts": []}));
    let parts = match content.get("parts") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(parts)) => parts.as_slice(),
        Some(_) => return Err(missing("candidates[0].content.parts", "an array")),
    };
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut n = 0;
    for (i, part) in parts.iter().enumerate() {
        if let Some(call) = part.get("functionCall") {
            n += 1;
            let path = format!("candidates[0].content.parts[{i}].functionCall");
            let name = required_str(call, "name", &format!("{path}.name"))?;
            let id = match str_field(call, "id").filter(|id| !id.is_empty()) {
                Some(id) => id.to_string(),
                None => gemini_call_id(&name, n),
            };
            tool_calls.push(ModelToolCall {
                id,
                name,
                arguments: arguments_from(call.get("args")),
            });
        } else if let Some(piece) = str_field(part, "text")
            && part.get("thought").and_then(Value::as_bool) != Some(true)
        {
            text.push_str(piece);
        }
    }
    let mut message = content.clone();
    if let Some(fields) = message.as_object_mut() {
        fields.entry("role").or_insert_with(|| "model".into());
    }
    Ok(ModelTurn {
        text,
        wants_tools: !tool_calls.is_empty(),
        tool_calls,
        stop_reason,
        assistant_message: vec![message],
    })
}

#[cfg(test)]
mod tests;
