//! Tests of building request bodies and reading them back, in the four shapes.

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
        ApiShape::Gemini => golden::GEMINI_FUNCTION_CALL,
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
    let a = tool_result_to_api(ApiShape::Anthropic, "toolu_1", "t", &json!({"content": []}));
    let b = tool_error_to_api(ApiShape::Anthropic, "toolu_2", "t", "boom");
    let both: Vec<Value> = a.into_iter().chain(b).collect();
    assert_eq!(
        tool_results_message(ApiShape::Anthropic, both.clone()),
        vec![json!({"role": "user", "content": both})]
    );
    assert_eq!(
        tool_results_message(ApiShape::Anthropic, vec![]),
        Vec::<Value>::new()
    );
    let items = tool_error_to_api(ApiShape::OpenaiChat, "call_1", "t", "boom");
    assert_eq!(
        tool_results_message(ApiShape::OpenaiChat, items.clone()),
        items
    );
    let items = tool_error_to_api(ApiShape::Openai, "call_1", "t", "boom");
    assert_eq!(tool_results_message(ApiShape::Openai, items.clone()), items);
    let parts = tool_error_to_api(ApiShape::Gemini, "t#1", "t", "boom");
    assert_eq!(
        tool_results_message(ApiShape::Gemini, parts.clone()),
        vec![json!({"role": "user", "parts": parts})]
    );
    assert!(tool_results_message(ApiShape::Gemini, vec![]).is_empty());
}

/// User turn, model asks for a tool, host answers: the second request's result ids are the
/// ids of the calls in the response.
#[test]
fn tool_result_ids_round_trip() {
    let expected = [
        "toolu_01A09q90qw90lq917835lq9",
        "call_12345xyz",
        "call_abc123",
        "get_weather#1",
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
                tool_result_to_api(shape, &call.id, &call.name, &result)
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

#[test]
fn gemini_request_body() {
    let g = ApiShape::Gemini;
    let declaration = tool_to_api(g, &get_weather(), "get_weather").unwrap();
    let conversation = user_message(g, "Weather in Seoul?");
    let body = request_body(
        g,
        "gemini-2.5-flash",
        Some("Be brief."),
        std::slice::from_ref(&declaration),
        &conversation,
        1024,
        true,
    );
    assert_eq!(
        body,
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Weather in Seoul?"}]}],
            "systemInstruction": {"role": "user", "parts": [{"text": "Be brief."}]},
            "tools": [{"functionDeclarations": [declaration]}],
            "generationConfig": {"maxOutputTokens": 1024},
        })
    );
    assert_eq!(tool_names_in_request(g, &body), ["get_weather"]);
    assert_eq!(
        request_body(g, "m", None, &[], &conversation, 0, false),
        json!({"contents": conversation})
    );
}

/// Gemini results join their calls by id when the call had one, else by name in order,
/// whatever id the host made up (Gemini CLI sends `<name>-<time>-<random>`).
#[test]
fn gemini_result_ids_join_by_id_or_name() {
    let g = ApiShape::Gemini;
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [
            {"text": "checking", "thoughtSignature": "x"},
            {"functionCall": {"name": "a", "args": {}}},
            {"functionCall": {"name": "b", "args": {}, "id": "real-b"}},
            {"functionCall": {"name": "a", "args": {"n": 2}}}
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "a", "id": "a-1733-xyz", "response": {"output": "1"}}},
            {"functionResponse": {"name": "b", "id": "real-b", "response": {"output": "2"}}},
            {"functionResponse": {"name": "a", "response": {"output": "3"}}},
            {"functionResponse": {"name": "c", "response": {"output": "?"}}},
            {"text": "and hurry"}
        ]}
    ]});
    assert_eq!(
        tool_result_ids_in_request(g, &body),
        ["a#1", "b#2", "a#3", "c"]
    );
    // Gemini CLI: the model sent no id; the host wrote its own on the call in the history and
    // answered under it. The result still joins the call's place.
    let cli = json!({"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "t_1796588211815_0", "name": "t", "args": {}},
            "thoughtSignature": "skip_thought_signature_validator"}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "t_1796588211815_0", "name": "t",
            "response": {"output": "1"}}}]}
    ]});
    assert_eq!(tool_result_ids_in_request(g, &cli), ["t#1"]);
    let answer = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "t", "args": {}}}]}, "finishReason": "STOP"}]});
    assert_eq!(crate::wire::convert::gemini_call_keys(&answer), ["t#1"]);
    // Once the model answered, the results are history.
    let mut later = body.clone();
    later["contents"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "model", "parts": [{"text": "done"}]}));
    assert!(tool_result_ids_in_request(g, &later).is_empty());
}

/// Gemini's `tools` holds tool objects: declarations are read out of them, and a built-in
/// tool (or a tool object Sightline does not know) is kept as it is, not lost.
#[test]
fn gemini_tool_entries_are_the_declarations() {
    let g = ApiShape::Gemini;
    let tools = vec![
        json!({"functionDeclarations": [{"name": "a"}, {"name": "b"}]}),
        json!({"googleSearch": {}}),
        json!({"functionDeclarations": [{"name": "c"}], "codeExecution": {}}),
        json!({"functionDeclarations": "odd"}),
    ];
    assert_eq!(
        tool_entries(g, tools.clone()),
        [
            json!({"name": "a"}),
            json!({"name": "b"}),
            json!({"googleSearch": {}}),
            json!({"name": "c"}),
            json!({"codeExecution": {}}),
            json!({"functionDeclarations": "odd"}),
        ]
    );
    assert_eq!(tool_names(g, &tools), ["a", "b", "c"]);
    assert_eq!(
        tool_names(g, &tool_entries(g, tools.clone())),
        ["a", "b", "c"]
    );
    assert_eq!(tool_entries(ApiShape::Openai, tools.clone()), tools);
}

/// The user's words are the last entry's own text: the blocks a host wraps in its own tags are
/// left out, and a request that returns tool results opens no turn.
#[test]
fn user_words_are_the_users_not_the_hosts() {
    use crate::wire::convert::user_words;
    let a = ApiShape::Anthropic;
    let claude_code = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>\nAttribution...\n</system-reminder>\n"},
        {"type": "text", "text": "What's the weather in Seoul right now?"}]}]});
    assert_eq!(
        user_words(a, &claude_code).as_deref(),
        Some("What's the weather in Seoul right now?")
    );
    let context_after = json!({"messages": [{"role": "user", "content": "Weather?"},
        {"role": "system", "content": [{"type": "text", "text": "Skills: ..."}]}]});
    assert_eq!(user_words(a, &context_after).as_deref(), Some("Weather?"));
    let results = json!({"messages": [{"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"},
            {"type": "text", "text": "and more"}]}]});
    assert_eq!(user_words(a, &results), None);
    let only_tags = json!({"messages": [{"role": "user", "content": "<context>x</context>"}]});
    assert_eq!(user_words(a, &only_tags), None);

    let codex = json!({"input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather?"}]}]});
    assert_eq!(
        user_words(ApiShape::Openai, &codex).as_deref(),
        Some("Weather?")
    );
    let output = json!({"input": [{"role": "user", "content": "Weather?"},
        {"type": "function_call_output", "call_id": "c", "output": "sunny"}]});
    assert_eq!(user_words(ApiShape::Openai, &output), None);
    assert_eq!(
        user_words(ApiShape::Openai, &json!({"input": "Plain"})).as_deref(),
        Some("Plain")
    );

    let chat = json!({"messages": [{"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "Hola"}]}]});
    assert_eq!(
        user_words(ApiShape::OpenaiChat, &chat).as_deref(),
        Some("Hola")
    );

    let g = ApiShape::Gemini;
    let gemini = json!({"contents": [{"role": "user", "parts": [
        {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"},
        {"text": "Tempo em Seul?"}]}]});
    assert_eq!(user_words(g, &gemini).as_deref(), Some("Tempo em Seul?"));
    let answered = json!({"contents": [{"role": "user", "parts": [
        {"functionResponse": {"name": "t", "response": {}}}]}]});
    assert_eq!(user_words(g, &answered), None);
    assert_eq!(user_words(g, &json!({"contents": "odd"})), None);
}
