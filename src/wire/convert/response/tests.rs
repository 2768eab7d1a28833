//! Tests of `parse_response` against golden and hand-made bodies of the three shapes.

use serde_json::json;

use super::*;
use crate::wire::convert::golden;

fn seoul() -> Map<String, Value> {
    let Value::Object(map) = json!({"location": "Seoul"}) else {
        unreachable!()
    };
    map
}

#[test]
fn anthropic_tool_use() {
    let body = golden::json(golden::ANTHROPIC_TOOL_USE);
    let turn = parse_response(ApiShape::Anthropic, &body).unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: "I'll check the current weather in Seoul.".into(),
            tool_calls: vec![ModelToolCall {
                id: "toolu_01A09q90qw90lq917835lq9".into(),
                name: "get_weather".into(),
                arguments: Ok(seoul()),
            }],
            stop_reason: "tool_use".into(),
            wants_tools: true,
            assistant_message: vec![json!({
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "I'll check the current weather in Seoul."},
                    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                     "name": "get_weather", "input": {"location": "Seoul"}}
                ]
            })],
        }
    );
}

#[test]
fn anthropic_end_turn_stops_the_loop() {
    let body = json!({
        "id": "msg_2", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "It is 15C and partly cloudy in Seoul."}],
        "stop_reason": "end_turn", "stop_sequence": null
    });
    let turn = parse_response(ApiShape::Anthropic, &body).unwrap();
    assert_eq!(turn.stop_reason, "end_turn");
    assert!(!turn.wants_tools);
    assert!(turn.tool_calls.is_empty());
    assert_eq!(turn.text, "It is 15C and partly cloudy in Seoul.");
}

#[test]
fn anthropic_max_tokens_with_a_cut_tool_use_does_not_continue() {
    let body = json!({
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
        "stop_reason": "max_tokens"
    });
    let turn = parse_response(ApiShape::Anthropic, &body).unwrap();
    assert_eq!(turn.tool_calls.len(), 1);
    assert!(!turn.wants_tools);
}

#[test]
fn anthropic_input_not_an_object() {
    let body = json!({
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": [1, 2]}],
        "stop_reason": "tool_use"
    });
    let turn = parse_response(ApiShape::Anthropic, &body).unwrap();
    assert_eq!(
        turn.tool_calls[0].arguments,
        Err(ArgumentsError::NotAnObject {
            raw: "[1,2]".into(),
            found: "an array"
        })
    );
}

#[test]
fn responses_function_call() {
    let body = golden::json(golden::RESPONSES_FUNCTION_CALL);
    let turn = parse_response(ApiShape::Openai, &body).unwrap();
    assert_eq!(turn.text, "");
    assert_eq!(
        turn.tool_calls,
        vec![ModelToolCall {
            id: "call_12345xyz".into(),
            name: "get_weather".into(),
            arguments: Ok(seoul()),
        }]
    );
    assert_eq!(turn.stop_reason, "completed");
    assert!(turn.wants_tools);
    // Both output items go back, the reasoning item included, unchanged.
    assert_eq!(turn.assistant_message, *body["output"].as_array().unwrap());
}

#[test]
fn responses_text_only_stops_the_loop() {
    let body = json!({
        "status": "completed", "error": null,
        "output": [{
            "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [
                {"type": "output_text", "text": "Seoul: 15C, ", "annotations": []},
                {"type": "output_text", "text": "partly cloudy.", "annotations": []}
            ]
        }]
    });
    let turn = parse_response(ApiShape::Openai, &body).unwrap();
    assert_eq!(turn.text, "Seoul: 15C, partly cloudy.");
    assert_eq!(turn.stop_reason, "completed");
    assert!(!turn.wants_tools);
}

#[test]
fn responses_invalid_arguments_keep_the_raw_string() {
    let body = json!({
        "status": "completed",
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": "get_weather", "arguments": "{\"location\": Seoul}"}]
    });
    let turn = parse_response(ApiShape::Openai, &body).unwrap();
    assert!(turn.wants_tools);
    assert_eq!(
        turn.tool_calls[0].arguments,
        Err(ArgumentsError::InvalidJson {
            raw: "{\"location\": Seoul}".into(),
            message: "expected value at line 1 column 14".into(),
            line: 1,
            column: 14,
        })
    );
    assert_eq!(
        turn.tool_calls[0]
            .arguments
            .as_ref()
            .unwrap_err()
            .to_string(),
        "arguments are not valid JSON (expected value at line 1 column 14): \
         \"{\\\"location\\\": Seoul}\""
    );
}

#[test]
fn chat_tool_calls() {
    let body = golden::json(golden::CHAT_TOOL_CALLS);
    let turn = parse_response(ApiShape::OpenaiChat, &body).unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: String::new(),
            tool_calls: vec![ModelToolCall {
                id: "call_abc123".into(),
                name: "get_weather".into(),
                arguments: Ok(seoul()),
            }],
            stop_reason: "tool_calls".into(),
            wants_tools: true,
            assistant_message: vec![json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": "call_abc123",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{\"location\":\"Seoul\"}"}
                }]
            })],
        }
    );
}

#[test]
fn chat_stop_ends_the_loop() {
    let body = json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "Seoul: 15C.", "refusal": null}}]});
    let turn = parse_response(ApiShape::OpenaiChat, &body).unwrap();
    assert_eq!(turn.stop_reason, "stop");
    assert!(!turn.wants_tools);
    assert_eq!(turn.text, "Seoul: 15C.");
    assert_eq!(
        turn.assistant_message,
        vec![json!({"role": "assistant", "content": "Seoul: 15C."})]
    );
}

#[test]
fn chat_arguments_edge_cases() {
    let call = |arguments: Value| {
        let body = json!({"choices": [{"finish_reason": "stop", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "t", "arguments": arguments}}]}}]});
        let turn = parse_response(ApiShape::OpenaiChat, &body).unwrap();
        // A "stop" finish that carries calls still continues (local servers do this).
        assert!(turn.wants_tools);
        turn.tool_calls[0].arguments.clone()
    };
    assert_eq!(call(json!("")), Ok(Map::new()));
    assert_eq!(call(json!({"location": "Seoul"})), Ok(seoul()));
    assert_eq!(
        call(json!("[\"Seoul\"]")),
        Err(ArgumentsError::NotAnObject {
            raw: "[\"Seoul\"]".into(),
            found: "an array"
        })
    );
    assert_eq!(
        call(json!("{\"location\":\"Seo")),
        Err(ArgumentsError::InvalidJson {
            raw: "{\"location\":\"Seo".into(),
            message: "EOF while parsing a string at line 1 column 16".into(),
            line: 1,
            column: 16,
        })
    );
}

#[test]
fn error_bodies() {
    let anthropic =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let openai = json!({"error": {"message": "Invalid 'tools[0].name': string does not match pattern.",
        "type": "invalid_request_error", "param": "tools[0].name", "code": "invalid_value"}});
    let failed = json!({"status": "failed", "output": [],
        "error": {"code": "server_error", "message": "The server had an error."}});
    let ollama = json!({"error": "model \"llama9\" not found"});
    let err = parse_response(ApiShape::Anthropic, &anthropic).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the API returned an error (overloaded_error): Overloaded"
    );
    assert_eq!(
        parse_response(ApiShape::OpenaiChat, &openai).unwrap_err(),
        ResponseError::Api {
            kind: Some("invalid_request_error".into()),
            message: "Invalid 'tools[0].name': string does not match pattern.".into()
        }
    );
    assert_eq!(
        parse_response(ApiShape::Openai, &failed).unwrap_err(),
        ResponseError::Api {
            kind: Some("server_error".into()),
            message: "The server had an error.".into()
        }
    );
    assert_eq!(
        parse_response(ApiShape::OpenaiChat, &ollama)
            .unwrap_err()
            .to_string(),
        "the API returned an error: model \"llama9\" not found"
    );
}

#[test]
fn malformed_bodies() {
    let cases = [
        (
            ApiShape::Anthropic,
            json!([]),
            ResponseError::NotAnObject { found: "an array" },
        ),
        (
            ApiShape::Anthropic,
            json!({"stop_reason": "end_turn"}),
            missing("content", "an array"),
        ),
        (
            ApiShape::Anthropic,
            json!({"content": []}),
            missing("stop_reason", "a string"),
        ),
        (
            ApiShape::Anthropic,
            json!({"content": [{"type": "tool_use", "name": "t", "input": {}}], "stop_reason": "tool_use"}),
            missing("content[0].id", "a string"),
        ),
        (
            ApiShape::Openai,
            json!({"status": "completed"}),
            missing("output", "an array"),
        ),
        (
            ApiShape::Openai,
            json!({"status": "completed", "output": [{"type": "function_call", "name": "t", "arguments": "{}"}]}),
            missing("output[0].call_id", "a string"),
        ),
        (
            ApiShape::OpenaiChat,
            json!({"choices": []}),
            missing("choices[0]", "an object"),
        ),
        (
            ApiShape::OpenaiChat,
            json!({"choices": [{"finish_reason": "stop"}]}),
            missing("choices[0].message", "an object"),
        ),
        (
            ApiShape::OpenaiChat,
            json!({"choices": [{"message": {"role": "assistant", "content": "x"}}]}),
            missing("choices[0].finish_reason", "a string"),
        ),
    ];
    for (shape, body, expected) in cases {
        assert_eq!(parse_response(shape, &body), Err(expected), "{body}");
    }
    assert_eq!(
        missing("choices[0].message", "an object").to_string(),
        "the response body has no valid `choices[0].message` (expected an object)"
    );
}

/// Gemini 2.5 on the Developer API: a text part with its `thoughtSignature`, a `functionCall`
/// without an id, `finishReason: "STOP"`; the call gets `<name>#<n>` and the content goes back
/// as received (the signature with it).
#[test]
fn gemini_function_call() {
    let body = golden::json(golden::GEMINI_FUNCTION_CALL);
    let turn = parse_response(ApiShape::Gemini, &body).unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: "I'll check the weather in Seoul.".into(),
            tool_calls: vec![ModelToolCall {
                id: "get_weather#1".into(),
                name: "get_weather".into(),
                arguments: Ok(seoul()),
            }],
            stop_reason: "STOP".into(),
            wants_tools: true,
            assistant_message: vec![body["candidates"][0]["content"].clone()],
        }
    );
}

#[test]
fn gemini_ids_thoughts_and_odd_candidates() {
    let body = json!({"candidates": [{"content": {"parts": [
        {"text": "thinking about it", "thought": true},
        {"functionCall": {"id": "fc-7", "name": "a", "args": {"x": 1}}},
        {"functionCall": {"name": "b"}},
        {"functionCall": {"name": "a", "args": [1]}},
        {"executableCode": {"language": "PYTHON", "code": "1+1"}},
        {"text": "Done."}
    ]}, "finishReason": "STOP"}]});
    let turn = parse_response(ApiShape::Gemini, &body).unwrap();
    assert_eq!(turn.text, "Done.", "thought summaries are not the answer");
    let ids: Vec<&str> = turn.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["fc-7", "b#2", "a#3"]);
    assert_eq!(turn.tool_calls[1].arguments, Ok(Map::new()));
    assert!(matches!(
        turn.tool_calls[2].arguments,
        Err(ArgumentsError::NotAnObject {
            found: "an array",
            ..
        })
    ));
    // The content goes back whole, its role said.
    assert_eq!(turn.assistant_message[0]["role"], "model");
    assert_eq!(
        turn.assistant_message[0]["parts"].as_array().map(Vec::len),
        Some(6)
    );

    // Stopped for length with no content at all: no text, no calls, not an error.
    let cut = json!({"candidates": [{"finishReason": "MAX_TOKENS"}]});
    let turn = parse_response(ApiShape::Gemini, &cut).unwrap();
    assert_eq!(
        (turn.stop_reason.as_str(), turn.wants_tools),
        ("MAX_TOKENS", false)
    );
    // A blocked prompt has no candidates; the reason is said.
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    assert_eq!(
        parse_response(ApiShape::Gemini, &blocked)
            .unwrap_err()
            .to_string(),
        "the API returned an error (SAFETY): the prompt was blocked (promptFeedback.blockReason)"
    );
    assert_eq!(
        parse_response(ApiShape::Gemini, &json!({"candidates": []})).unwrap_err(),
        ResponseError::MissingField {
            field: "candidates[0]".into(),
            expected: "an object"
        }
    );
    let no_reason = json!({"candidates": [{"content": {"parts": []}}]});
    assert!(parse_response(ApiShape::Gemini, &no_reason).is_err());
    // Gemini's error shape: the status names the kind.
    let error = json!({"error": {"code": 400, "message": "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name.", "status": "INVALID_ARGUMENT"}});
    assert_eq!(
        parse_response(ApiShape::Gemini, &error).unwrap_err(),
        ResponseError::Api {
            kind: Some("INVALID_ARGUMENT".into()),
            message: "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name.".into()
        }
    );
}
