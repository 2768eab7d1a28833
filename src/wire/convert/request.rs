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

/// A user turn saying `text`: `{role: "user", content: text}` in all three shapes (for
/// Responses, an input item in the short "easy message" form).
pub fn user_message(shape: ApiShape, text: &str) -> Vec<Value> {
    // The three shapes agree here; the parameter keeps call sites uniform.
    let _ = shape;
    vec![json!({"role": "user", "content": text})]
}

/// The conversation entries carrying tool results (from `tool_result_to_api` and
/// `tool_error_to_api`). Anthropic wants them all as the content of ONE user message; Responses
/// items and Chat `tool` messages stand on their own and are returned as they are. No results,
/// no entries.
pub fn tool_results_message(shape: ApiShape, results: Vec<Value>) -> Vec<Value> {
    match shape {
        ApiShape::Anthropic if results.is_empty() => Vec::new(),
        ApiShape::Anthropic => vec![json!({"role": "user", "content": results})],
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
/// `tools` is left out when empty, `stream` when false, and for the two OpenAI shapes the token
/// limit when `max_tokens` is 0 (the server's default then applies).
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
    }
    if stream {
        body.insert("stream".into(), true.into());
    }
    Value::Object(body)
}

/// The conversation of a request body: `messages` (Anthropic, Chat) or `input` (Responses; a
/// plain string input has no items).
fn conversation(shape: ApiShape, body: &Value) -> &[Value] {
    let key = match shape {
        ApiShape::Anthropic | ApiShape::OpenaiChat => "messages",
        ApiShape::Openai => "input",
    };
    body.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Whether a conversation entry was written by the model.
fn is_model_turn(shape: ApiShape, entry: &Value) -> bool {
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
/// (Anthropic), `function_call_output` items (Responses) and `role: "tool"` messages (Chat) that
/// come after the last model turn, in order. Earlier results were answered already; a body
/// without a model turn (a Responses continuation by `previous_response_id`) counts from the
/// start.
pub fn tool_result_ids_in_request(shape: ApiShape, request_body: &Value) -> Vec<String> {
    let entries = conversation(shape, request_body);
    let start = entries
        .iter()
        .rposition(|entry| is_model_turn(shape, entry))
        .map_or(0, |last| last + 1);
    let after = &entries[start..];
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
        }
    });
    ids.map(str::to_string).collect()
}

/// The names of the entries of a request body's `tools` parameter, in order (entries without
/// a name, such as built-in tools, are skipped).
pub fn tool_names_in_request(shape: ApiShape, request_body: &Value) -> Vec<String> {
    let tools = request_body
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    tool_names(shape, tools)
}

/// The names of a request's `tools` entries, in order (entries without one are left out).
pub fn tool_names(shape: ApiShape, tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|tool| match shape {
            ApiShape::Anthropic | ApiShape::Openai => str_field(tool, "name"),
            ApiShape::OpenaiChat => tool.get("function").and_then(|f| str_field(f, "name")),
        })
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::convert::{
        golden, parse_response, tool_error_to_api, tool_result_to_api, tool_to_api,
    };

    fn get_weather() -> Value {
        json!({
            "name": "get_weather",
            "description": "Get current weather information for a location",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}},
                            "required": ["location"]}
        })
    }

    fn response_for(shape: ApiShape) -> Value {
        golden::json(match shape {
            ApiShape::Anthropic => golden::ANTHROPIC_TOOL_USE,
            ApiShape::Openai => golden::RESPONSES_FUNCTION_CALL,
            ApiShape::OpenaiChat => golden::CHAT_TOOL_CALLS,
        })
    }

    #[test]
    fn first_request_bodies() {
        let tools: Vec<Value> = ApiShape::ALL
            .iter()
            .map(|&shape| tool_to_api(shape, &get_weather(), "get_weather").unwrap())
            .collect();
        let [anthropic_tool, responses_tool, chat_tool] = [&tools[0], &tools[1], &tools[2]];
        let body = |shape: ApiShape, tool: &Value| {
            request_body(
                shape,
                "m",
                Some("Be brief."),
                std::slice::from_ref(tool),
                &user_message(shape, "Weather in Seoul?"),
                1024,
                false,
            )
        };
        let user = json!({"role": "user", "content": "Weather in Seoul?"});
        assert_eq!(
            body(ApiShape::Anthropic, anthropic_tool),
            json!({"model": "m", "max_tokens": 1024, "system": "Be brief.",
                   "tools": [anthropic_tool], "messages": [user]})
        );
        assert_eq!(
            body(ApiShape::Openai, responses_tool),
            json!({"model": "m", "instructions": "Be brief.", "tools": [responses_tool],
                   "input": [user], "max_output_tokens": 1024})
        );
        assert_eq!(
            body(ApiShape::OpenaiChat, chat_tool),
            json!({"model": "m",
                   "messages": [{"role": "system", "content": "Be brief."}, user],
                   "tools": [chat_tool], "max_completion_tokens": 1024})
        );
        for (shape, tool) in ApiShape::ALL.into_iter().zip(&tools) {
            assert_eq!(
                tool_names_in_request(shape, &body(shape, tool)),
                ["get_weather"]
            );
        }
    }

    #[test]
    fn optional_fields_are_left_out() {
        let user = user_message(ApiShape::Anthropic, "hi");
        assert_eq!(
            request_body(ApiShape::Anthropic, "m", None, &[], &user, 0, true),
            json!({"model": "m", "max_tokens": 0, "messages": user, "stream": true})
        );
        assert_eq!(
            request_body(ApiShape::Openai, "m", None, &[], &user, 0, false),
            json!({"model": "m", "input": user})
        );
        assert_eq!(
            request_body(ApiShape::OpenaiChat, "m", None, &[], &user, 0, true),
            json!({"model": "m", "messages": user, "stream": true})
        );
    }

    #[test]
    fn tool_results_message_wraps_only_for_anthropic() {
        let a = tool_result_to_api(ApiShape::Anthropic, "toolu_1", &json!({"content": []}));
        let b = tool_error_to_api(ApiShape::Anthropic, "toolu_2", "boom");
        let both: Vec<Value> = a.into_iter().chain(b).collect();
        assert_eq!(
            tool_results_message(ApiShape::Anthropic, both.clone()),
            vec![json!({"role": "user", "content": both})]
        );
        assert_eq!(
            tool_results_message(ApiShape::Anthropic, vec![]),
            Vec::<Value>::new()
        );
        let items = tool_error_to_api(ApiShape::OpenaiChat, "call_1", "boom");
        assert_eq!(
            tool_results_message(ApiShape::OpenaiChat, items.clone()),
            items
        );
        let items = tool_error_to_api(ApiShape::Openai, "call_1", "boom");
        assert_eq!(tool_results_message(ApiShape::Openai, items.clone()), items);
    }

    /// User turn, model asks for a tool, host answers: the second request's result ids are the
    /// ids of the calls in the response.
    #[test]
    fn tool_result_ids_round_trip() {
        let expected = [
            "toolu_01A09q90qw90lq917835lq9",
            "call_12345xyz",
            "call_abc123",
        ];
        for (shape, expected) in ApiShape::ALL.into_iter().zip(expected) {
            let mut conversation = user_message(shape, "Weather in Seoul?");
            let first = request_body(shape, "m", None, &[], &conversation, 1024, false);
            assert!(tool_result_ids_in_request(shape, &first).is_empty());

            let turn = parse_response(shape, &response_for(shape)).unwrap();
            assert!(turn.wants_tools);
            conversation.extend(turn.assistant_message);
            let results: Vec<Value> = turn
                .tool_calls
                .iter()
                .flat_map(|call| {
                    let result = json!({"content": [{"type": "text", "text": "Seoul: 15C"}]});
                    tool_result_to_api(shape, &call.id, &result)
                })
                .collect();
            conversation.extend(tool_results_message(shape, results));
            let second = request_body(shape, "m", None, &[], &conversation, 1024, false);
            assert_eq!(
                tool_result_ids_in_request(shape, &second),
                [expected],
                "{shape:?}"
            );

            // Once the model has answered again, those results are history.
            conversation.extend(
                parse_response(shape, &response_for(shape))
                    .unwrap()
                    .assistant_message,
            );
            let third = request_body(shape, "m", None, &[], &conversation, 1024, false);
            assert!(tool_result_ids_in_request(shape, &third).is_empty());
        }
    }

    #[test]
    fn result_ids_of_several_calls_and_of_a_continuation() {
        let anthropic = json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_a", "name": "t", "input": {}},
                {"type": "tool_use", "id": "toolu_b", "name": "t", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "1"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "2"},
                {"type": "text", "text": "and hurry"}]}
        ]});
        assert_eq!(
            tool_result_ids_in_request(ApiShape::Anthropic, &anthropic),
            ["toolu_a", "toolu_b"]
        );
        // Responses with `previous_response_id`: only the outputs are sent.
        let continuation = json!({"previous_response_id": "resp_1", "input": [
            {"type": "function_call_output", "call_id": "call_a", "output": "1"},
            {"type": "function_call_output", "call_id": "call_b", "output": "2"}
        ]});
        assert_eq!(
            tool_result_ids_in_request(ApiShape::Openai, &continuation),
            ["call_a", "call_b"]
        );
        assert!(tool_result_ids_in_request(ApiShape::Openai, &json!({"input": "hi"})).is_empty());
        assert!(
            tool_names_in_request(
                ApiShape::Openai,
                &json!({"tools": [{"type": "web_search"}]})
            )
            .is_empty()
        );
    }
}
