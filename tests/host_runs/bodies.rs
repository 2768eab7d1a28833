//! Reading what the model sent and got, straight from the recorded bodies and independent of
//! the crate's own reassembly: the tool calls, stop reason and text of each provider shape.

use std::collections::HashMap;

use serde_json::{Map, Value};
use sightline::trace::Event;
use sightline::wire::api::ApiShape;

/// The body of an `llm-http` event as JSON; an SSE body is reassembled (Anthropic events, or
/// Gemini records) into the body a non-streamed request would have got. `Null` when it is
/// neither.
pub(super) fn llm_body(e: &Event) -> Value {
    let text = e.text();
    if is_sse(&text) {
        if text.contains("\"candidates\"") {
            return gemini_sse_to_body(&text);
        }
        return anthropic_sse_to_body(&text);
    }
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// A minimal merge of Gemini's SSE records, independent of the crate's: every record's parts
/// in order, text pieces joined into one text part, the last `finishReason`.
fn gemini_sse_to_body(text: &str) -> Value {
    let mut parts: Vec<Value> = Vec::new();
    let mut finish = Value::Null;
    for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
        let Ok(record) = serde_json::from_str::<Value>(data.trim()) else {
            continue;
        };
        let candidate = &record["candidates"][0];
        for part in candidate["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let joined = match (parts.last(), part["text"].as_str()) {
                (Some(last), Some(piece)) if last["text"].is_string() => {
                    Some(format!("{}{piece}", last["text"].as_str().unwrap_or("")))
                }
                _ => None,
            };
            match (joined, parts.last_mut()) {
                (Some(joined), Some(last)) => last["text"] = Value::String(joined),
                _ => parts.push(part.clone()),
            }
        }
        if candidate["finishReason"].is_string() {
            finish = candidate["finishReason"].clone();
        }
    }
    serde_json::json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": finish}]})
}

pub(super) fn is_sse(text: &str) -> bool {
    text.starts_with("event:") || text.starts_with("data:")
}

/// A minimal reassembly of an Anthropic Messages event stream, independent of the crate's:
/// content blocks from `content_block_start`, text and `input_json_delta` appended from
/// `content_block_delta`, `stop_reason` from `message_delta`.
fn anthropic_sse_to_body(text: &str) -> Value {
    let mut message = Map::new();
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial_json: HashMap<usize, String> = HashMap::new();
    for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
        let Ok(event) = serde_json::from_str::<Value>(data.trim()) else {
            continue;
        };
        let index = event["index"].as_u64().unwrap_or(0) as usize;
        match event["type"].as_str().unwrap_or("") {
            "message_start" => {
                if let Some(m) = event["message"].as_object() {
                    message = m.clone();
                }
            }
            "content_block_start" => {
                if blocks.len() <= index {
                    blocks.resize(index + 1, Value::Null);
                }
                blocks[index] = event["content_block"].clone();
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => {
                        if let Some(block) = blocks.get_mut(index) {
                            let joined = format!(
                                "{}{}",
                                block["text"].as_str().unwrap_or(""),
                                delta["text"].as_str().unwrap_or("")
                            );
                            block["text"] = Value::String(joined);
                        }
                    }
                    "input_json_delta" => partial_json
                        .entry(index)
                        .or_default()
                        .push_str(delta["partial_json"].as_str().unwrap_or("")),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event["delta"].get("stop_reason") {
                    message.insert("stop_reason".into(), reason.clone());
                }
            }
            _ => {}
        }
    }
    for (index, json) in partial_json {
        if let Some(block) = blocks.get_mut(index) {
            block["input"] = serde_json::from_str(&json).unwrap_or(Value::Null);
        }
    }
    message.insert("content".into(), Value::Array(blocks));
    Value::Object(message)
}

/// One tool call the model asked for, read straight from the response body.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) id: String,
    pub(super) name: String,
    /// The arguments as an object (OpenAI's `arguments` string parsed).
    pub(super) arguments: Value,
}

fn parse_arguments_string(raw: &Value) -> Value {
    match raw.as_str() {
        Some(s) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        None => Value::Null,
    }
}

pub(super) fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The tool calls in a response body: Anthropic `tool_use` blocks, Responses `function_call`
/// items, Chat `tool_calls`, Gemini `functionCall` parts (an id-less call known as
/// `<name>#<n>`).
pub(super) fn model_calls(shape: ApiShape, body: &Value) -> Vec<Call> {
    let empty = Vec::new();
    match shape {
        ApiShape::Gemini => body["candidates"][0]["content"]["parts"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .enumerate()
            .map(|(k, c)| Call {
                id: c["id"].as_str().map_or_else(
                    || format!("{}#{}", string(&c["name"]), k + 1),
                    str::to_string,
                ),
                name: string(&c["name"]),
                arguments: c["args"].clone(),
            })
            .collect(),
        ApiShape::Anthropic => body["content"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| Call {
                id: string(&b["id"]),
                name: string(&b["name"]),
                arguments: b["input"].clone(),
            })
            .collect(),
        ApiShape::Openai => body["output"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|item| item["type"] == "function_call")
            .map(|item| Call {
                id: string(&item["call_id"]),
                name: string(&item["name"]),
                arguments: parse_arguments_string(&item["arguments"]),
            })
            .collect(),
        ApiShape::OpenaiChat => body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|c| Call {
                id: string(&c["id"]),
                name: string(&c["function"]["name"]),
                arguments: parse_arguments_string(&c["function"]["arguments"]),
            })
            .collect(),
    }
}

/// The provider's stop signal: Anthropic `stop_reason`, Responses `status`, Chat
/// `finish_reason`.
pub(super) fn stop_reason(shape: ApiShape, body: &Value) -> String {
    match shape {
        ApiShape::Anthropic => string(&body["stop_reason"]),
        ApiShape::Openai => string(&body["status"]),
        ApiShape::OpenaiChat => string(&body["choices"][0]["finish_reason"]),
        ApiShape::Gemini => string(&body["candidates"][0]["finishReason"]),
    }
}

/// The text of a response body.
pub(super) fn answer_text(shape: ApiShape, body: &Value) -> String {
    let empty = Vec::new();
    match shape {
        ApiShape::Anthropic => body["content"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|b| b["type"] == "text")
            .map(|b| string(&b["text"]))
            .collect(),
        ApiShape::Openai => body["output"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .filter(|item| item["type"] == "message")
            .flat_map(|item| item["content"].as_array().unwrap_or(&empty))
            .filter(|part| part["type"] == "output_text")
            .map(|part| string(&part["text"]))
            .collect(),
        ApiShape::OpenaiChat => string(&body["choices"][0]["message"]["content"]),
        ApiShape::Gemini => body["candidates"][0]["content"]["parts"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|p| string(&p["text"]))
            .collect(),
    }
}

/// The `description` of the tool named `name` in a list of MCP tools or API tools.
pub(super) fn description_of(tools: &Value, name: &str) -> Option<String> {
    tools.as_array()?.iter().find_map(|t| {
        let t = t.get("function").unwrap_or(t);
        (t["name"] == name).then(|| string(&t["description"]))
    })
}
