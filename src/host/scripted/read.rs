//! Reading a request the way a model would: how many assistant turns came before, which
//! tools it was offered, and the tool results of the last user turn.

use serde_json::{Map, Value};

use super::RequestError;
use super::tools::{self, Offered};
use crate::wire::api::ApiShape;

/// The model name echoed when a request names none.
pub(super) const DEFAULT_MODEL: &str = "scripted";

/// What the scripted model takes from one request.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Conversation {
    /// The request's `model`, echoed in the response.
    pub model: String,
    /// Assistant turns already in the conversation, but the model's own tool searches: the
    /// index of the step to play.
    pub turn: usize,
    /// The model's own tool-search turns so far (Anthropic): with `turn`, every assistant turn,
    /// which the ids count so that no two answers share one.
    pub searches: usize,
    /// The offered tools.
    pub tools: Offered,
    /// Text of each tool result in the last user turn, in order.
    pub results: Vec<String>,
    /// A rough token count of the request, for `usage`.
    pub input_tokens: u64,
    /// Responses fields echoed back as the real API does.
    pub echo: Map<String, Value>,
}

/// About four characters per token, at least one.
pub(super) fn tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
}

pub(super) fn read(shape: ApiShape, request: &Value) -> Result<Conversation, RequestError> {
    let body = request
        .as_object()
        .ok_or_else(|| RequestError::Invalid("the request body must be a JSON object".into()))?;
    // Gemini names the model in the URL; the server puts it in afterwards.
    let model = match body.get("model") {
        None | Some(Value::Null) => DEFAULT_MODEL.to_string(),
        Some(Value::String(model)) => model.clone(),
        Some(_) if shape == ApiShape::Gemini => DEFAULT_MODEL.to_string(),
        Some(_) => return Err(invalid(shape, "model", "a string")),
    };
    let input_tokens = tokens(serde_json::to_string(request).map_or(0, |s| s.len()));
    let tools = offered(shape, request, body)?;
    let mut conversation = Conversation {
        model,
        turn: 0,
        searches: 0,
        tools,
        results: Vec::new(),
        input_tokens,
        echo: Map::new(),
    };
    match shape {
        ApiShape::Anthropic | ApiShape::OpenaiChat => {
            let messages = messages(shape, body)?;
            let assistant = messages.iter().filter(|m| role(m) == Some("assistant"));
            conversation.searches = assistant
                .clone()
                .filter(|m| tools::is_search_turn(m))
                .count();
            conversation.turn = assistant.count() - conversation.searches;
            let last_user_turn = after_last(messages, |m| role(m) == Some("assistant"));
            conversation.results = match shape {
                ApiShape::Anthropic => last_user_turn
                    .iter()
                    .filter(|m| role(m) == Some("user"))
                    .filter_map(|m| m.get("content").and_then(Value::as_array))
                    .flatten()
                    .filter(|block| kind(block) == Some("tool_result"))
                    .map(|block| text_of(block.get("content")))
                    .collect(),
                _ => last_user_turn
                    .iter()
                    .filter(|m| role(m) == Some("tool"))
                    .map(|m| text_of(m.get("content")))
                    .collect(),
            };
        }
        ApiShape::Openai => read_responses(body, &mut conversation)?,
        ApiShape::Gemini => read_gemini(body, &mut conversation)?,
    }
    Ok(conversation)
}

/// Gemini: `contents` with `role: "model"` are the model's turns; the tool results are the
/// `functionResponse` parts after the last of them (`response.output`, else `response.error`,
/// else the whole `response` as JSON).
fn read_gemini(body: &Map<String, Value>, out: &mut Conversation) -> Result<(), RequestError> {
    let contents = match body.get("contents") {
        Some(Value::Array(contents)) if !contents.is_empty() => contents,
        None | Some(Value::Null) | Some(Value::Array(_)) => {
            return Err(RequestError::Invalid(
                "* GenerateContentRequest.contents: contents is not specified".into(),
            ));
        }
        Some(_) => return Err(invalid(ApiShape::Gemini, "contents", "an array")),
    };
    let is_model = |c: &Value| role(c) == Some("model");
    out.turn = contents.iter().filter(|c| is_model(c)).count();
    out.results = after_last(contents, is_model)
        .iter()
        .filter_map(|c| c.get("parts").and_then(Value::as_array))
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|r| {
            let response = r.get("response");
            let field = |key: &str| response.and_then(|v| v.get(key)).filter(|v| v.is_string());
            text_of(field("output").or_else(|| field("error")).or(response))
        })
        .collect();
    Ok(())
}

fn read_responses(body: &Map<String, Value>, out: &mut Conversation) -> Result<(), RequestError> {
    // A conversation continued with `previous_response_id` counts the turns before it: the
    // scripted model's response ids carry their turn (`resp_sl_<turn>`).
    let earlier = body
        .get("previous_response_id")
        .and_then(Value::as_str)
        .and_then(|id| id.strip_prefix("resp_sl_"))
        .and_then(|turn| turn.parse::<usize>().ok())
        .map_or(0, |turn| turn + 1);
    let items: &[Value] = match body.get("input") {
        Some(Value::String(_)) => &[],
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => {
            return Err(RequestError::Invalid(
                "Missing required parameter: 'input'.".into(),
            ));
        }
        Some(_) => return Err(invalid(ApiShape::Openai, "input", "a string or an array")),
    };
    // One assistant turn is a run of consecutive assistant items (text, reasoning, calls).
    let mut turns = 0;
    let mut in_turn = false;
    for item in items {
        let assistant = is_assistant_item(item);
        if assistant && !in_turn {
            turns += 1;
        }
        in_turn = assistant;
    }
    out.turn = earlier + turns;
    out.results = after_last(items, is_assistant_item)
        .iter()
        .filter(|item| kind(item) == Some("function_call_output"))
        .map(|item| text_of(item.get("output")))
        .collect();
    for key in [
        "instructions",
        "max_output_tokens",
        "previous_response_id",
        "tools",
    ] {
        out.echo.insert(
            key.into(),
            body.get(key).cloned().unwrap_or(match key {
                "tools" => Value::Array(Vec::new()),
                _ => Value::Null,
            }),
        );
    }
    Ok(())
}

fn is_assistant_item(item: &Value) -> bool {
    matches!(kind(item), Some("function_call" | "reasoning")) || role(item) == Some("assistant")
}

fn messages(shape: ApiShape, body: &Map<String, Value>) -> Result<&[Value], RequestError> {
    match body.get("messages") {
        Some(Value::Array(messages)) if !messages.is_empty() => Ok(messages),
        Some(Value::Array(_)) => Err(RequestError::Invalid(match shape {
            ApiShape::Anthropic => "messages: at least one message is required".into(),
            _ => "Invalid 'messages': empty array. Expected an array with minimum length 1.".into(),
        })),
        None | Some(Value::Null) => Err(RequestError::Invalid(match shape {
            ApiShape::Anthropic => "messages: Field required".into(),
            _ => "Missing required parameter: 'messages'.".into(),
        })),
        Some(_) => Err(invalid(shape, "messages", "an array")),
    }
}

fn offered(
    shape: ApiShape,
    request: &Value,
    body: &Map<String, Value>,
) -> Result<Offered, RequestError> {
    match body.get("tools") {
        None | Some(Value::Null) => Ok(Offered::read(request, &[])),
        Some(Value::Array(tools)) => Ok(Offered::read(request, tools)),
        Some(_) => Err(invalid(shape, "tools", "an array")),
    }
}

fn invalid(shape: ApiShape, field: &str, expected: &str) -> RequestError {
    RequestError::Invalid(match shape {
        ApiShape::Anthropic => format!("{field}: Input should be {expected}"),
        ApiShape::Openai | ApiShape::OpenaiChat => {
            format!("Invalid type for '{field}': expected {expected}.")
        }
        ApiShape::Gemini => format!("Invalid value at '{field}' ({expected} expected)"),
    })
}

/// The items after the last one matching `is_assistant` (all of them if none does).
fn after_last(items: &[Value], is_assistant: impl Fn(&Value) -> bool) -> &[Value] {
    match items.iter().rposition(is_assistant) {
        Some(last) => &items[last + 1..],
        None => items,
    }
}

fn role(item: &Value) -> Option<&str> {
    item.get("role")?.as_str()
}

fn kind(item: &Value) -> Option<&str> {
    item.get("type")?.as_str()
}

/// The text of a tool result's content: a string, or the `text` of an array of content parts
/// (Anthropic `text` blocks, Responses `input_text`/`output_text`, Chat `text` parts) joined
/// by newlines. Anything else is its compact JSON.
fn text_of(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_string(),
    }
}
