//! Request bodies: building the next request, and reading requests back for the trace.
//!
//! The conversation is kept in the provider's own shape, as a list of values: user turns from
//! [`user_message`], the model's turns from [`ModelTurn::assistant_message`](super::ModelTurn),
//! and tool results from [`tool_results_message`]. [`request_body`] wraps it with the model,
//! system prompt and tools. The reading side ([`tool_result_ids_in_request`],
//! [`tool_names_in_request`]) lets the trace pair a request's tool results with the
//! `tools/call` exchanges that produced them.

use serde_json::{Map, Value, json};

use super::str_field;
use crate::wire::api::ApiShape;

/// A user turn saying `text`: `{role: "user", content: text}` in the Anthropic and OpenAI
/// shapes (for Responses, an input item in the short "easy message" form); Gemini's content is
/// a list of parts, `{role: "user", parts: [{text}]}`.
pub fn user_message(shape: ApiShape, text: &str) -> Vec<Value> {
    match shape {
        ApiShape::Gemini => vec![json!({"role": "user", "parts": [{"text": text}]})],
        ApiShape::Anthropic | ApiShape::Openai | ApiShape::OpenaiChat => {
            vec![json!({"role": "user", "content": text})]
        }
    }
}

/// The conversation entries carrying tool results (from `tool_result_to_api` and
/// `tool_error_to_api`). Anthropic wants them all as the content of ONE user message, Gemini as
/// the parts of ONE user content (as Gemini CLI sends them); Responses items and Chat `tool`
/// messages stand on their own and are returned as they are. No results, no entries.
pub fn tool_results_message(shape: ApiShape, results: Vec<Value>) -> Vec<Value> {
    match shape {
        ApiShape::Anthropic | ApiShape::Gemini if results.is_empty() => Vec::new(),
        ApiShape::Anthropic => vec![json!({"role": "user", "content": results})],
        ApiShape::Gemini => vec![json!({"role": "user", "parts": results})],
        ApiShape::Openai | ApiShape::OpenaiChat => results,
    }
}

/// The whole request body for `shape`. `tools` are entries from `tool_to_api`; `conversation`
/// is the provider-shaped conversation so far.
///
/// - Anthropic: `{model, max_tokens, system?, tools?, messages, stream?}`; `max_tokens` is
///   required by the API and always sent.
/// - Responses: `{model, instructions?, tools?, input, max_output_tokens?, stream?}`.
/// - Chat: `{model, messages: [{role: "system"}?, ...], tools?, max_completion_tokens?,
///   stream?}`. `max_completion_tokens` is the field OpenAI documents (the older `max_tokens` is
///   refused by its reasoning models); vLLM and recent Ollama and llama.cpp accept it too.
///
/// - Gemini: `{contents, systemInstruction?: {parts: [{text}]}, tools?: [{functionDeclarations:
///   [...]}], generationConfig?: {maxOutputTokens}}`. The model and streaming are in the URL
///   ([`ApiShape::endpoint_path`]), so neither `model` nor `stream` is in the body (the API
///   refuses fields it does not know).
///
/// `tools` is left out when empty, `stream` when false, and for the OpenAI and Gemini shapes
/// the token limit when `max_tokens` is 0 (the server's default then applies).
pub fn request_body(
    shape: ApiShape,
    model: &str,
    system: Option<&str>,
    tools: &[Value],
    conversation: &[Value],
    max_tokens: u32,
    stream: bool,
) -> Value {
    let mut body = Map::new();
    if shape == ApiShape::Gemini {
        return gemini_body(system, tools, conversation, max_tokens);
    }
    body.insert("model".into(), model.into());
    let tools = (!tools.is_empty()).then(|| Value::Array(tools.to_vec()));
    match shape {
        ApiShape::Anthropic => {
            body.insert("max_tokens".into(), max_tokens.into());
            if let Some(system) = system {
                body.insert("system".into(), system.into());
            }
            if let Some(tools) = tools {
                body.insert("tools".into(), tools);
            }
            body.insert("messages".into(), conversation.into());
        }
        ApiShape::Openai => {
            if let Some(system) = system {
                body.insert("instructions".into(), system.into());
            }
            if let Some(tools) = tools {
                body.insert("tools".into(), tools);
            }
            body.insert("input".into(), conversation.into());
            if max_tokens > 0 {
                body.insert("max_output_tokens".into(), max_tokens.into());
            }
        }
        ApiShape::OpenaiChat => {
            let system = system.map(|text| json!({"role": "system", "content": text}));
            let messages = system.into_iter().chain(conversation.iter().cloned());
            body.insert("messages".into(), messages.collect());
            if let Some(tools) = tools {
                body.insert("tools".into(), tools);
            }
            if max_tokens > 0 {
                body.insert("max_completion_tokens".into(), max_tokens.into());
            }
        }
        ApiShape::Gemini => {}
    }
    if stream {
        body.insert("stream".into(), true.into());
    }
    Value::Object(body)
}

/// [`request_body`] for Gemini: `contents`, then what Gemini CLI sends beside it.
fn gemini_body(
    system: Option<&str>,
    declarations: &[Value],
    conversation: &[Value],
    max_tokens: u32,
) -> Value {
    let mut body = Map::new();
    body.insert("contents".into(), conversation.into());
    if let Some(system) = system {
        body.insert(
            "systemInstruction".into(),
            json!({"role": "user", "parts": [{"text": system}]}),
        );
    }
    if !declarations.is_empty() {
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    if max_tokens > 0 {
        body.insert(
            "generationConfig".into(),
            json!({"maxOutputTokens": max_tokens}),
        );
    }
    Value::Object(body)
}

/// The conversation of a request body: `messages` (Anthropic, Chat), `input` (Responses; a
/// plain string input has no items) or `contents` (Gemini).
fn conversation(shape: ApiShape, body: &Value) -> &[Value] {
    let key = match shape {
        ApiShape::Anthropic | ApiShape::OpenaiChat => "messages",
        ApiShape::Openai => "input",
        ApiShape::Gemini => "contents",
    };
    body.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// What the user said to open the turn this request starts: the text of the conversation's
/// last entry (past the host's own `system` or `developer` entries) when that entry is the
/// user's own message (not tool results, not the model's),
/// without the parts a host wraps in a tag of its own (Claude Code's `<system-reminder>`,
/// Codex's `<environment_context>`, Gemini CLI's `<session_context>`), which are the host's
/// words, not the user's. `None` when the request goes on with a turn already open, or the
/// message holds no such text. A recorded host's traces have no User lane events: this is how
/// its diagram still shows who asked.
pub fn user_words(shape: ApiShape, request_body: &Value) -> Option<String> {
    if let (ApiShape::Openai, Some(Value::String(text))) = (shape, request_body.get("input")) {
        return own_words([text.as_str()]);
    }
    // A host may put its own context after the user's message (Claude Code sends a `system`
    // entry in `messages`): that is not the user speaking, nor the model.
    let host = |e: &&Value| matches!(str_field(e, "role"), Some("system" | "developer"));
    let last = conversation(shape, request_body)
        .iter()
        .rev()
        .find(|e| !host(e))?;
    let role = str_field(last, "role");
    if role != Some("user") || last.get("type").is_some_and(|t| t != "message") {
        return None;
    }
    let parts = match (shape, last.get("content")) {
        (ApiShape::Gemini, _) => last.get("parts"),
        (_, Some(Value::String(text))) => return own_words([text.as_str()]),
        (_, content) => content,
    };
    let parts = parts.and_then(Value::as_array)?;
    // A turn that returns results is the loop going on, whatever text rides with them.
    let result = |p: &Value| {
        matches!(str_field(p, "type"), Some("tool_result")) || p.get("functionResponse").is_some()
    };
    if parts.iter().any(result) {
        return None;
    }
    let texts = parts.iter().filter_map(|p| match str_field(p, "type") {
        None | Some("text" | "input_text") => str_field(p, "text"),
        Some(_) => None,
    });
    own_words(texts)
}

/// The texts that are not wholly one tag-wrapped block, joined; `None` if none is left.
fn own_words<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let own: Vec<&str> = texts
        .into_iter()
        .map(str::trim)
        .filter(|t| !(t.is_empty() || t.starts_with('<') && t.ends_with('>')))
        .collect();
    (!own.is_empty()).then(|| own.join("\n"))
}

/// Whether a conversation entry was written by the model.
fn is_model_turn(shape: ApiShape, entry: &Value) -> bool {
    if shape == ApiShape::Gemini {
        return str_field(entry, "role") == Some("model");
    }
    if str_field(entry, "role") == Some("assistant") {
        return true;
    }
    // Responses output items that were appended to `input` (they have a type, not a role).
    shape == ApiShape::Openai
        && matches!(
            str_field(entry, "type"),
            Some("function_call" | "reasoning" | "custom_tool_call")
        )
}

/// The ids of the tool calls a request body returns results for: the `tool_result` blocks
/// (Anthropic), `function_call_output` items (Responses), `role: "tool"` messages (Chat) and
/// `functionResponse` parts (Gemini) that come after the last model turn, in order. Earlier
/// results were answered already; a body without a model turn (a Responses continuation by
/// `previous_response_id`) counts from the start.
///
/// A Gemini call may have no id, and a host may answer it under an id of its own (Gemini CLI
/// makes one up and writes it on the call in the history too): each `functionResponse` is
/// paired with a `functionCall` of the last model turn, by id when one of them has that id,
/// else by name in order, and what is returned is that call's place key `<name>#<n>`
/// ([`gemini_call_keys`](super::gemini_call_keys)), the key a trace joins Gemini calls by.
pub fn tool_result_ids_in_request(shape: ApiShape, request_body: &Value) -> Vec<String> {
    let entries = conversation(shape, request_body);
    let last_model = entries
        .iter()
        .rposition(|entry| is_model_turn(shape, entry));
    let start = last_model.map_or(0, |last| last + 1);
    let after = &entries[start..];
    if shape == ApiShape::Gemini {
        let calls =
            last_model.map_or_else(Vec::new, |at| super::response::gemini_calls(&entries[at]));
        return gemini_result_ids(&calls, after);
    }
    let ids = after.iter().flat_map(|entry| -> Vec<&str> {
        match shape {
            ApiShape::Anthropic => entry
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|block| str_field(block, "type") == Some("tool_result"))
                .filter_map(|block| str_field(block, "tool_use_id"))
                .collect(),
            ApiShape::Openai => (str_field(entry, "type") == Some("function_call_output"))
                .then(|| str_field(entry, "call_id"))
                .flatten()
                .into_iter()
                .collect(),
            ApiShape::OpenaiChat => (str_field(entry, "role") == Some("tool"))
                .then(|| str_field(entry, "tool_call_id"))
                .flatten()
                .into_iter()
                .collect(),
            ApiShape::Gemini => Vec::new(),
        }
    });
    ids.map(str::to_string).collect()
}

/// The `functionResponse` parts of `after` (the contents after the last model turn), each as
/// the place key of the call of `calls` (id, name, key) it answers; see
/// [`tool_result_ids_in_request`].
fn gemini_result_ids(calls: &[(Option<String>, String, String)], after: &[Value]) -> Vec<String> {
    let mut used = vec![false; calls.len()];
    let responses = after
        .iter()
        .filter_map(|content| content.get("parts").and_then(Value::as_array))
        .flatten()
        .filter_map(|part| part.get("functionResponse"));
    let mut ids = Vec::new();
    for response in responses {
        let id = str_field(response, "id");
        let name = str_field(response, "name").unwrap_or_default();
        let by_id = id.and_then(|id| {
            (0..calls.len()).find(|&k| !used[k] && calls[k].0.as_deref() == Some(id))
        });
        let found = by_id.or_else(|| (0..calls.len()).find(|&k| !used[k] && calls[k].1 == name));
        match found {
            Some(k) => {
                used[k] = true;
                ids.push(calls[k].2.clone());
            }
            None => ids.push(id.unwrap_or(name).to_string()),
        }
    }
    ids
}

/// The names of the entries of a request body's `tools` parameter, in order (entries without
/// a name, such as built-in tools, are skipped; Gemini's function declarations are read inside
/// their tool objects).
pub fn tool_names_in_request(shape: ApiShape, request_body: &Value) -> Vec<String> {
    let tools = request_body
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    tool_names(shape, tools)
}

/// The names of a request's `tools` entries, in order (entries without one are left out). For
/// Gemini, `tools` may be the parameter as sent (tool objects holding `functionDeclarations`)
/// or the declarations themselves ([`tool_entries`]).
pub fn tool_names(shape: ApiShape, tools: &[Value]) -> Vec<String> {
    if shape == ApiShape::Gemini {
        return tool_entries(shape, tools.to_vec())
            .iter()
            .filter_map(|declaration| str_field(declaration, "name"))
            .map(str::to_string)
            .collect();
    }
    tools
        .iter()
        .filter_map(|tool| match shape {
            ApiShape::Anthropic | ApiShape::Openai => str_field(tool, "name"),
            ApiShape::OpenaiChat => tool.get("function").and_then(|f| str_field(f, "name")),
            ApiShape::Gemini => None,
        })
        .map(str::to_string)
        .collect()
}

/// A request's `tools` parameter as one entry per thing the model is offered: for Gemini, each
/// function declaration of each tool object (`{functionDeclarations: [...]}`) in order, and
/// every other tool object (`{googleSearch: {}}`, `{codeExecution: {}}`) as it is; the other
/// shapes' entries are already one per tool and come back unchanged. A tool object whose
/// `functionDeclarations` is not an array is kept whole, not read as no tools.
pub fn tool_entries(shape: ApiShape, tools: Vec<Value>) -> Vec<Value> {
    if shape != ApiShape::Gemini {
        return tools;
    }
    let mut entries = Vec::with_capacity(tools.len());
    for mut tool in tools {
        match tool.get_mut("functionDeclarations").map(Value::take) {
            Some(Value::Array(declarations)) => {
                entries.extend(declarations);
                // Anything else the same tool object offers (a built-in beside them) stays.
                if let Some(fields) = tool.as_object_mut() {
                    fields.remove("functionDeclarations");
                    if !fields.is_empty() {
                        entries.push(tool);
                    }
                }
            }
            Some(other) => {
                if let Some(fields) = tool.as_object_mut() {
                    fields.insert("functionDeclarations".into(), other);
                }
                entries.push(tool);
            }
            None => entries.push(tool),
        }
    }
    entries
}

#[cfg(test)]
mod tests;
