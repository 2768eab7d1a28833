//! The pure decision: script parsing, placeholders, and each shape's answers.

use serde_json::{Value, json};

use super::test_support::{first_request, follow_up, ok, summary, weather};
use super::*;

/// The stop reason of an ordinary end of turn and of a tool-call turn, per shape.
fn stops(shape: ApiShape) -> (&'static str, &'static str) {
    match shape {
        ApiShape::Anthropic => ("end_turn", "tool_use"),
        ApiShape::Openai => ("completed", "completed"),
        ApiShape::OpenaiChat => ("stop", "tool_calls"),
        ApiShape::Gemini => ("STOP", "STOP"),
    }
}

#[test]
fn the_script_parses_from_toml_and_rejects_bad_steps() {
    let script = weather();
    assert_eq!(script.steps.len(), 2);
    let Step::Call {
        say,
        calls,
        if_missing,
        stop,
    } = &script.steps[0]
    else {
        panic!("step 0 is not a call: {:?}", script.steps[0]);
    };
    assert_eq!(say.as_ref().map(Text::as_str), Some("Let me check."));
    assert_eq!((if_missing, stop), (&None, &None));
    assert_eq!(calls[0].tool, "get_weather");
    assert_eq!(
        Value::Object(calls[0].arguments.clone()),
        json!({"location": "Seoul", "units": "metric"})
    );
    assert!(
        matches!(&script.steps[1], Step::Reply { text, stop: None } if text.as_str() == "It is {result} right now.")
    );
    let with_stop = Script::from_toml("[[script]]\nreply = \"cut\"\nstop = \"max_tokens\"");
    assert!(
        matches!(with_stop, Ok(s) if s.steps[0] == Step::Reply { text: "cut".into(), stop: Some(StopReason::MaxTokens) })
    );
    assert_eq!(
        Script::from_toml("x = 1").map(|s| s.steps.len()).ok(),
        Some(0)
    );
    for bad in [
        "[[script]]\nsay = \"only\"",
        "[[script]]\nreply = \"a\"\ncall = [{ tool = \"t\" }]",
        "[[script]]\ncall = []",
        "[[script]]\nreply = \"a\"\nsay = \"b\"",
        "[[script]]\nreply = \"a\"\nif_missing = \"b\"",
        "[[script]]\nreply = \"a\"\nstop = \"tired\"",
        "[[script]]\nreplies = \"a\"",
        "[[script]]\ncall = [{ tool = \"t\", arguments = 3 }]",
    ] {
        assert!(Script::from_toml(bad).is_err(), "accepted {bad:?}");
    }
    // The steps serialize back to the same TOML form.
    #[derive(serde::Serialize)]
    struct Document<'a> {
        script: &'a Script,
    }
    let text = match toml::to_string(&Document { script: &script }) {
        Ok(text) => text,
        Err(error) => panic!("{error}"),
    };
    assert!(
        matches!(Script::from_toml(&text), Ok(again) if again == script),
        "{text}"
    );
    let value = match serde_json::to_value(&script) {
        Ok(value) => value,
        Err(error) => panic!("{error}"),
    };
    assert_eq!(value[1], json!({"reply": "It is {result} right now."}));
    assert_eq!(value[0]["call"][0]["tool"], "get_weather");
}

#[test]
fn placeholders_fill_from_the_last_round_and_leave_other_braces() {
    let results = vec!["21°C".to_string(), "sunny".to_string()];
    assert_eq!(
        script::fill("It is {result}.", &results, None, "(none)"),
        "It is sunny."
    );
    assert_eq!(
        script::fill("{result:0} and {result:1}", &results, None, "(none)"),
        "21°C and sunny"
    );
    assert_eq!(
        script::fill("{result:2}", &results, None, "(none)"),
        "(none)"
    );
    assert_eq!(script::fill("{result}", &[], None, "(none)"), "(none)");
    assert_eq!(
        script::fill("{tool} {json} {unclosed", &results, Some("t"), "(none)"),
        "t {json} {unclosed"
    );
    assert_eq!(script::fill("{tool}", &results, None, "(none)"), "{tool}");
    assert_eq!(
        script::fill("{}{{result}}", &results, None, "(none)"),
        "{}{sunny}"
    );
}

#[test]
fn a_call_step_calls_an_offered_tool_with_deterministic_ids() {
    let script = weather();
    for shape in ApiShape::ALL {
        let body = ok(
            &script,
            shape,
            &first_request(shape, &["other", "get_weather"]),
        );
        let gist = summary(shape, &body);
        assert_eq!(gist.text.as_deref(), Some("Let me check."), "{shape:?}");
        assert_eq!(gist.stop, stops(shape).1, "{shape:?}");
        assert_eq!(gist.calls.len(), 1);
        let call = &gist.calls[0];
        assert_eq!(call.name, "get_weather");
        assert_eq!(
            call.arguments,
            json!({"location": "Seoul", "units": "metric"})
        );
        let expected_id = match shape {
            ApiShape::Anthropic => "toolu_sl_0_0",
            ApiShape::Openai | ApiShape::OpenaiChat => "call_sl_0_0",
            // No id on the wire: the host knows the call by its name and place.
            ApiShape::Gemini => "get_weather#1",
        };
        assert_eq!(call.id, expected_id);
        let model = match shape {
            ApiShape::Anthropic => "claude-test",
            // The model is in the URL, which the pure answer does not see.
            ApiShape::Gemini => "scripted",
            ApiShape::Openai | ApiShape::OpenaiChat => "gpt-test",
        };
        let model_field = if shape == ApiShape::Gemini {
            "modelVersion"
        } else {
            "model"
        };
        assert_eq!(body[model_field], model);
        match shape {
            ApiShape::Anthropic => {
                assert_eq!(body["id"], "msg_sl_0");
                assert!(body["usage"]["input_tokens"].as_u64() > Some(10));
                assert!(body["usage"]["output_tokens"].as_u64() > Some(1));
            }
            ApiShape::Openai => {
                assert_eq!(call.item_id.as_deref(), Some("fc_sl_0_0"));
                assert_eq!(body["id"], "resp_sl_0");
                assert_eq!(body["output"][0]["id"], "msg_sl_0");
                assert_eq!(
                    body["output"][1]["arguments"],
                    r#"{"location":"Seoul","units":"metric"}"#
                );
                assert!(body["usage"]["total_tokens"].as_u64() > Some(10));
            }
            ApiShape::OpenaiChat => {
                let arguments =
                    &body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"];
                assert_eq!(arguments, r#"{"location":"Seoul","units":"metric"}"#);
                assert_eq!(body["choices"][0]["message"]["role"], "assistant");
                assert!(body["usage"]["total_tokens"].as_u64() > Some(10));
            }
            ApiShape::Gemini => {
                assert_eq!(body["responseId"], "resp_sl_0");
                let part = &body["candidates"][0]["content"]["parts"][1]["functionCall"];
                assert_eq!(
                    part["args"],
                    json!({"location": "Seoul", "units": "metric"})
                );
                assert!(part.get("id").is_none(), "{part}");
                let usage = &body["usageMetadata"];
                assert!(usage["promptTokenCount"].as_u64() > Some(10));
                assert!(usage["candidatesTokenCount"].as_u64() > Some(1));
            }
        }
    }
}

#[test]
fn a_call_step_without_its_tool_says_so_and_ends_the_turn() {
    let script = weather();
    for shape in ApiShape::ALL {
        for tools in [&["get_forecast"][..], &[][..]] {
            let gist = summary(shape, &ok(&script, shape, &first_request(shape, tools)));
            let text = "I don't have a tool called `get_weather`, so I can't do that.";
            assert_eq!(gist.text.as_deref(), Some(text), "{shape:?}");
            assert!(gist.calls.is_empty());
            assert_eq!(gist.stop, stops(shape).0);
        }
    }
    let custom =
        "[[script]]\ncall = [{ tool = \"a\" }, { tool = \"b\" }]\nif_missing = \"No {tool}.\"";
    let Ok(custom) = Script::from_toml(custom) else {
        panic!("custom script")
    };
    let gist = summary(
        ApiShape::Anthropic,
        &ok(
            &custom,
            ApiShape::Anthropic,
            &first_request(ApiShape::Anthropic, &["a"]),
        ),
    );
    assert_eq!(gist.text.as_deref(), Some("No b."));
}

#[test]
fn a_reply_fills_in_the_tool_result_of_each_shape() {
    let script = weather();
    for shape in ApiShape::ALL {
        let first = first_request(shape, &["get_weather"]);
        let second = follow_up(
            shape,
            &first,
            &ok(&script, shape, &first),
            &["21°C and sunny"],
        );
        let body = ok(&script, shape, &second);
        let gist = summary(shape, &body);
        assert_eq!(
            gist.text.as_deref(),
            Some("It is 21°C and sunny right now."),
            "{shape:?}"
        );
        assert!(gist.calls.is_empty());
        assert_eq!(gist.stop, stops(shape).0);
        // The third request is past the script.
        let third = follow_up(shape, &second, &body, &[]);
        let gist = summary(shape, &ok(&script, shape, &third));
        assert_eq!(
            gist.text.as_deref(),
            Some("(the script has no more steps)"),
            "{shape:?}"
        );
        assert_eq!(gist.stop, stops(shape).0);
    }
}

#[test]
fn each_shape_reads_its_other_tool_result_forms() {
    let script = match Script::from_toml(
        "[[script]]\ncall = [{ tool = \"t\" }, { tool = \"t\" }]\n[[script]]\nreply = \"{result:0}|{result:1}|{result}\"",
    ) {
        Ok(script) => script,
        Err(error) => panic!("{error}"),
    };
    // Anthropic: string content and several text blocks; the result of an earlier round is not used.
    let anthropic = json!({"model": "m", "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "old", "content": "stale"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "one"},
            {"type": "tool_result", "tool_use_id": "b", "is_error": true,
             "content": [{"type": "text", "text": "two"}, {"type": "image"}, {"type": "text", "text": "lines"}]},
        ]},
    ]});
    // Responses: one turn = the assistant message plus its calls; output as text parts.
    let responses = json!({"model": "m", "input": [
        {"role": "user", "content": "q"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hm"}]},
        {"type": "function_call", "call_id": "a", "name": "t", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "t", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "one"},
        {"type": "function_call_output", "call_id": "b", "output": [{"type": "input_text", "text": "two\nlines"}]},
    ]});
    // Chat: role tool with string and with text parts.
    let chat = json!({"model": "m", "messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": null, "tool_calls": []},
        {"role": "tool", "tool_call_id": "a", "content": "one"},
        {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "two\nlines"}]},
    ]});
    // Gemini: the responses after the last model content, by `output` or `error`, with and
    // without ids.
    let gemini = json!({"contents": [
        {"role": "user", "parts": [{"functionResponse": {"name": "t", "response": {"output": "stale"}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "t", "args": {}}},
                                    {"functionCall": {"name": "t", "args": {}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "t", "id": "t#1", "response": {"output": "one"}}},
            {"functionResponse": {"name": "t", "response": {"error": "two\nlines"}}},
        ]},
    ]});
    for (shape, request) in [
        (ApiShape::Anthropic, anthropic),
        (ApiShape::Openai, responses),
        (ApiShape::OpenaiChat, chat),
        (ApiShape::Gemini, gemini),
    ] {
        let gist = summary(shape, &ok(&script, shape, &request));
        assert_eq!(
            gist.text.as_deref(),
            Some("one|two\nlines|two\nlines"),
            "{shape:?}"
        );
    }
}

#[test]
fn responses_count_turns_before_a_previous_response_id() {
    let script = weather();
    let continued = json!({"model": "m", "previous_response_id": "resp_sl_0",
        "input": [{"type": "function_call_output", "call_id": "call_sl_0_0", "output": "cold"}]});
    let body = ok(&script, ApiShape::Openai, &continued);
    assert_eq!(
        summary(ApiShape::Openai, &body).text.as_deref(),
        Some("It is cold right now.")
    );
    assert_eq!(body["previous_response_id"], "resp_sl_0");
    assert_eq!(body["id"], "resp_sl_1");
    let string_input = json!({"model": "m", "input": "hi", "tools": [{"type": "function", "name": "get_weather"}]});
    assert_eq!(
        summary(
            ApiShape::Openai,
            &ok(&script, ApiShape::Openai, &string_input)
        )
        .calls
        .len(),
        1
    );
}

#[test]
fn a_stop_override_maps_to_each_shape() {
    let Ok(script) =
        Script::from_toml("[[script]]\nreply = \"The answer is\"\nstop = \"max_tokens\"")
    else {
        panic!("script");
    };
    let anthropic = ok(
        &script,
        ApiShape::Anthropic,
        &first_request(ApiShape::Anthropic, &[]),
    );
    assert_eq!(anthropic["stop_reason"], "max_tokens");
    let responses = ok(
        &script,
        ApiShape::Openai,
        &first_request(ApiShape::Openai, &[]),
    );
    assert_eq!(responses["status"], "incomplete");
    assert_eq!(
        responses["incomplete_details"]["reason"],
        "max_output_tokens"
    );
    let chat = ok(
        &script,
        ApiShape::OpenaiChat,
        &first_request(ApiShape::OpenaiChat, &[]),
    );
    assert_eq!(chat["choices"][0]["finish_reason"], "length");
    let gemini = ok(
        &script,
        ApiShape::Gemini,
        &first_request(ApiShape::Gemini, &[]),
    );
    assert_eq!(gemini["candidates"][0]["finishReason"], "MAX_TOKENS");
}

#[test]
fn malformed_requests_are_refused_in_the_provider_error_shape() {
    let script = weather();
    for shape in ApiShape::ALL {
        for request in [
            json!([1]),
            json!({"model": "m"}),
            json!({"model": "m", "messages": 3, "input": 3}),
            json!({"model": 5, "messages": [], "input": []}),
        ] {
            let refused = respond(&script, shape, &request);
            assert!(
                matches!(refused, Err(RequestError::Invalid(_))),
                "{shape:?} {request}: {refused:?}"
            );
        }
    }
    let error = RequestError::Invalid("messages: Field required".into());
    assert_eq!(
        error_body(ApiShape::Anthropic, &error),
        json!({"type": "error",
        "error": {"type": "invalid_request_error", "message": "messages: Field required"}})
    );
    let body = error_body(ApiShape::OpenaiChat, &error);
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["message"], "messages: Field required");
    assert_eq!(
        error_body(ApiShape::Gemini, &error),
        json!({"error": {"code": 400, "message": "messages: Field required",
            "status": "INVALID_ARGUMENT"}})
    );
}

#[test]
fn fragments_split_on_character_boundaries() {
    assert_eq!(stream::fragments("{}"), vec!["{", "}"]);
    assert_eq!(stream::fragments("{\"a\":\"é\"}").concat(), "{\"a\":\"é\"}");
    assert_eq!(stream::fragments("{\"a\":\"é\"}").len(), 3);
    assert_eq!(stream::fragments("x"), vec!["x"]);
}

/// Claude Code's first request, trimmed: its own tools, `ToolSearch`, the placeholder, and the
/// MCP tool named only in a system text.
fn claude_code_request(messages: Vec<Value>, loaded: bool) -> Value {
    let mut tools = vec![
        json!({"name": "Bash", "input_schema": {"type": "object"}}),
        json!({"name": "ToolSearch", "input_schema": {"type": "object"}}),
        json!({"name": "DeferredToolPlaceholder", "input_schema": {"type": "object"}, "defer_loading": true}),
    ];
    if loaded {
        tools.push(json!({"name": "mcp__weather__get_weather", "input_schema": {"type": "object"}, "defer_loading": true}));
    }
    let mut all = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "What's the weather in Seoul right now?"}]}),
        json!({"role": "system", "content": [{"type": "text", "text": "The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded.\nWebFetch\nmcp__weather__get_weather\n\nMore."}]}),
    ];
    all.extend(messages);
    json!({"model": "claude-opus-5-5", "stream": false, "tools": tools, "messages": all})
}

#[test]
fn a_deferred_tool_is_searched_for_first_and_the_search_is_not_a_step() {
    let script = weather();
    let first = ok(
        &script,
        ApiShape::Anthropic,
        &claude_code_request(vec![], false),
    );
    assert_eq!(
        first["content"],
        json!([{"type": "tool_use", "id": "toolu_sl_0_0", "name": "ToolSearch",
                "input": {"query": "select:mcp__weather__get_weather"}}])
    );
    assert_eq!(first["stop_reason"], "tool_use");
    let searched = vec![
        json!({"role": "assistant", "content": first["content"]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_sl_0_0",
               "content": [{"type": "tool_reference", "tool_name": "mcp__weather__get_weather"}]}]}),
    ];
    let second = ok(
        &script,
        ApiShape::Anthropic,
        &claude_code_request(searched.clone(), true),
    );
    assert_eq!(second["id"], "msg_sl_1", "ids count the search turn");
    let call = &second["content"][1];
    assert_eq!(
        (&call["name"], &call["id"], &call["input"]["location"]),
        (
            &json!("mcp__weather__get_weather"),
            &json!("toolu_sl_1_0"),
            &json!("Seoul")
        )
    );
    let mut called = searched;
    called.push(json!({"role": "assistant", "content": second["content"]}));
    called.push(
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_sl_1_0",
                       "content": [{"type": "text", "text": "Seoul: 15C"}]}]}),
    );
    let last = ok(
        &script,
        ApiShape::Anthropic,
        &claude_code_request(called, true),
    );
    assert_eq!(last["content"][0]["text"], "It is Seoul: 15C right now.");
}

#[test]
fn a_namespaced_tool_is_called_inside_its_namespace() {
    let request = json!({
        "model": "scripted",
        "input": [{"role": "user", "content": "What's the weather in Seoul right now?"}],
        "tools": [
            {"type": "function", "name": "exec_command", "parameters": {}},
            {"type": "namespace", "name": "mcp__weather", "description": "Use get_weather.",
             "tools": [{"type": "function", "name": "get_weather", "parameters": {}}]},
        ],
    });
    let body = ok(&weather(), ApiShape::Openai, &request);
    let call = body["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call")
        .expect("a call");
    assert_eq!(
        (&call["namespace"], &call["name"]),
        (&json!("mcp__weather"), &json!("get_weather"))
    );
    let events = respond_stream(&weather(), ApiShape::Openai, &request).unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.contains(r#""namespace":"mcp__weather""#)),
        "the streamed item says the namespace too"
    );
}
