//! Test helpers: requests in each shape, a mini host for follow-up turns, and the
//! shape-independent gist of an answer.

use serde_json::{Value, json};

use super::*;

pub(super) const WEATHER: &str = r#"
title = "ignored by Script::from_toml"

[[script]]
say = "Let me check."
call = [{ tool = "get_weather", arguments = { location = "Seoul", units = "metric" } }]

[[script]]
reply = "It is {result} right now."
"#;

pub(super) fn weather() -> Script {
    match Script::from_toml(WEATHER) {
        Ok(script) => script,
        Err(error) => panic!("the test script does not parse: {error}"),
    }
}

/// A first request offering `tools`, in `shape`'s form.
pub(super) fn first_request(shape: ApiShape, tools: &[&str]) -> Value {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}}});
    let tools: Vec<Value> = tools
        .iter()
        .map(|name| match shape {
            ApiShape::Anthropic => {
                json!({"name": name, "description": "d", "input_schema": schema})
            }
            ApiShape::Openai => {
                json!({"type": "function", "name": name, "description": "d", "parameters": schema})
            }
            ApiShape::OpenaiChat => json!({"type": "function", "function":
                {"name": name, "description": "d", "parameters": schema}}),
            ApiShape::Gemini => {
                json!({"name": name, "description": "d", "parametersJsonSchema": schema})
            }
        })
        .collect();
    let question = json!([{"role": "user", "content": "What's the weather in Seoul?"}]);
    match shape {
        ApiShape::Gemini => json!({
            "contents": [{"role": "user", "parts": [{"text": "What's the weather in Seoul?"}]}],
            "tools": [{"functionDeclarations": tools}],
        }),
        ApiShape::Anthropic => json!({"model": "claude-test", "max_tokens": 1024,
            "tools": tools, "messages": question}),
        ApiShape::Openai => json!({"model": "gpt-test", "tools": tools, "input": question}),
        ApiShape::OpenaiChat => json!({"model": "gpt-test", "tools": tools, "messages": question}),
    }
}

/// What a host sends next: `request` plus the assistant turn of `response` and one tool result
/// per call (the texts of `results`, in order).
pub(super) fn follow_up(
    shape: ApiShape,
    request: &Value,
    response: &Value,
    results: &[&str],
) -> Value {
    let mut next = request.clone();
    let key = match shape {
        ApiShape::Openai => "input",
        ApiShape::Gemini => "contents",
        _ => "messages",
    };
    let Some(list) = next.get_mut(key).and_then(Value::as_array_mut) else {
        panic!("no {key} in {request}");
    };
    let calls = summary(shape, response).calls;
    let pairs = calls.iter().zip(results.iter());
    match shape {
        ApiShape::Anthropic => {
            list.push(json!({"role": "assistant", "content": response["content"]}));
            let blocks: Vec<Value> = pairs
                .map(|(call, text)| {
                    json!({"type": "tool_result", "tool_use_id": call.id,
                    "content": [{"type": "text", "text": text}]})
                })
                .collect();
            list.push(json!({"role": "user", "content": blocks}));
        }
        ApiShape::Openai => {
            if let Some(output) = response["output"].as_array() {
                list.extend(output.iter().cloned());
            }
            for (call, text) in pairs {
                list.push(
                    json!({"type": "function_call_output", "call_id": call.id, "output": text}),
                );
            }
        }
        ApiShape::OpenaiChat => {
            list.push(response["choices"][0]["message"].clone());
            for (call, text) in pairs {
                list.push(json!({"role": "tool", "tool_call_id": call.id, "content": text}));
            }
        }
        ApiShape::Gemini => {
            list.push(response["candidates"][0]["content"].clone());
            let parts: Vec<Value> = pairs
                .map(|(call, text)| {
                    json!({"functionResponse": {"id": call.id, "name": call.name,
                        "response": {"output": text}}})
                })
                .collect();
            list.push(json!({"role": "user", "parts": parts}));
        }
    }
    next
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct CallSummary {
    /// Anthropic `id`, Responses `call_id`, Chat `id`.
    pub id: String,
    /// Responses item `id`.
    pub item_id: Option<String>,
    pub name: String,
    /// The arguments, parsed.
    pub arguments: Value,
}

/// The shape-independent gist of a response: text, calls, stop reason.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Summary {
    pub text: Option<String>,
    pub calls: Vec<CallSummary>,
    pub stop: String,
}

pub(super) fn parse_arguments(text: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => panic!("arguments {text:?} are not JSON: {error}"),
    }
}

pub(super) fn summary(shape: ApiShape, body: &Value) -> Summary {
    let text_of = |v: &Value| v.as_str().map(str::to_string);
    let mut out = Summary {
        text: None,
        calls: Vec::new(),
        stop: String::new(),
    };
    match shape {
        ApiShape::Anthropic => {
            assert_eq!(body["type"], "message");
            assert_eq!(body["role"], "assistant");
            for block in body["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => out.text = text_of(&block["text"]),
                    Some("tool_use") => out.calls.push(CallSummary {
                        id: block["id"].as_str().unwrap_or_default().into(),
                        item_id: None,
                        name: block["name"].as_str().unwrap_or_default().into(),
                        arguments: block["input"].clone(),
                    }),
                    other => panic!("unexpected block {other:?}"),
                }
            }
            out.stop = body["stop_reason"].as_str().unwrap_or_default().into();
        }
        ApiShape::Openai => {
            assert_eq!(body["object"], "response");
            for item in body["output"].as_array().into_iter().flatten() {
                match item["type"].as_str() {
                    Some("message") => out.text = text_of(&item["content"][0]["text"]),
                    Some("function_call") => out.calls.push(CallSummary {
                        id: item["call_id"].as_str().unwrap_or_default().into(),
                        item_id: text_of(&item["id"]),
                        name: item["name"].as_str().unwrap_or_default().into(),
                        arguments: parse_arguments(item["arguments"].as_str().unwrap_or_default()),
                    }),
                    other => panic!("unexpected item {other:?}"),
                }
            }
            out.stop = body["status"].as_str().unwrap_or_default().into();
        }
        ApiShape::OpenaiChat => {
            assert_eq!(body["object"], "chat.completion");
            let choice = &body["choices"][0];
            out.text = text_of(&choice["message"]["content"]);
            for call in choice["message"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                assert_eq!(call["type"], "function");
                out.calls.push(CallSummary {
                    id: call["id"].as_str().unwrap_or_default().into(),
                    item_id: None,
                    name: call["function"]["name"].as_str().unwrap_or_default().into(),
                    arguments: parse_arguments(
                        call["function"]["arguments"].as_str().unwrap_or_default(),
                    ),
                });
            }
            out.stop = choice["finish_reason"].as_str().unwrap_or_default().into();
        }
        ApiShape::Gemini => {
            let candidate = &body["candidates"][0];
            assert_eq!(candidate["content"]["role"], "model");
            let mut n = 0;
            for part in candidate["content"]["parts"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if let Some(piece) = part["text"].as_str() {
                    out.text.get_or_insert_with(String::new).push_str(piece);
                } else if part["functionCall"].is_object() {
                    n += 1;
                    let call = &part["functionCall"];
                    let name = call["name"].as_str().unwrap_or_default();
                    out.calls.push(CallSummary {
                        id: call["id"]
                            .as_str()
                            .map_or_else(|| format!("{name}#{n}"), str::to_string),
                        item_id: None,
                        name: name.into(),
                        arguments: call["args"].clone(),
                    });
                } else {
                    panic!("unexpected part {part}");
                }
            }
            out.stop = candidate["finishReason"]
                .as_str()
                .unwrap_or_default()
                .into();
        }
    }
    out
}

pub(super) fn ok(script: &Script, shape: ApiShape, request: &Value) -> Value {
    match respond(script, shape, request) {
        Ok(body) => body,
        Err(error) => panic!("{shape:?} refused {request}: {error}"),
    }
}
