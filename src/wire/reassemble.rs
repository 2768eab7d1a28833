//! Turning a streamed (SSE) answer back into the body the same request would have got
//! without streaming, so the agent loop handles one shape whichever way the model answered.
//!
//! - Anthropic Messages: `message_start` gives the message; `content_block_start` /
//!   `content_block_delta` / `content_block_stop` build each content block (`text_delta`
//!   appended, `input_json_delta.partial_json` concatenated then parsed into `input`);
//!   `message_delta` brings `stop_reason` and the final `usage`; an `error` event fails.
//! - OpenAI Responses: the `response.completed` (or `response.incomplete`) event carries the
//!   whole response; `response.failed` and `error` fail.
//! - Chat Completions: `choices[i].delta` chunks merged per choice (strings such as `content`
//!   concatenated, `tool_calls` merged by `index` with `function.arguments` concatenated), the
//!   last `finish_reason` kept, `usage` from the chunk that has it; `data: [DONE]` ends it.
//! - Gemini: every `data:` is a whole response record holding the parts generated since the
//!   last; they are merged (`gemini`), as are the records of the JSON-array stream Gemini sends
//!   without `?alt=sse` ([`gemini_json_array`]).
//!
//! [`read_body`] takes a recorded response body of any shape, streamed or not, to the body the
//! request would have got without streaming.
//!
//! Errors are one-line descriptions of what is wrong with the stream.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::sse::SseEvent;
use crate::wire::api::ApiShape;

mod chat;
mod gemini;

pub use gemini::from_json_array as gemini_json_array;

/// Reassembles the non-streamed body from the events of a streamed answer.
pub fn reassemble(shape: ApiShape, events: &[SseEvent]) -> Result<Value, String> {
    match shape {
        ApiShape::Anthropic => anthropic(events),
        ApiShape::Openai => responses(events),
        ApiShape::OpenaiChat => chat::chat(events),
        ApiShape::Gemini => gemini::from_sse(events),
    }
}

/// A response body as recorded, read: whether it was a stream, and the body the request would
/// have got without streaming (or why there is none). A body that starts as Server-Sent Events
/// (`event:`, `data:`, `:`) is reassembled from them; for Gemini, a JSON array is the stream
/// of `streamGenerateContent` without `?alt=sse`; anything else is parsed as JSON.
pub fn read_body(shape: ApiShape, text: &str) -> (bool, Result<Value, String>) {
    let trimmed = text.trim_start();
    if trimmed.starts_with("event:") || trimmed.starts_with("data:") || trimmed.starts_with(':') {
        return (
            true,
            reassemble(shape, &super::sse::SseParser::parse(text.as_bytes())),
        );
    }
    if shape == ApiShape::Gemini && trimmed.starts_with('[') {
        return (true, gemini::from_json_array(text));
    }
    let body = serde_json::from_str::<Value>(text).map_err(|err| format!("not JSON: {err}"));
    (false, body)
}

/// The event's data as JSON, and its type (`type` in the data, else the SSE event name).
pub(super) fn parse_event(event: &SseEvent) -> Result<(Value, String), String> {
    let data: Value = serde_json::from_str(&event.data)
        .map_err(|err| format!("the data of a `{}` event is not JSON ({err})", event.kind()))?;
    let kind = match data.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_string(),
        None => event.kind().to_string(),
    };
    Ok((data, kind))
}

/// `error.message` (or a plain `error` / `message` string) of an error payload.
pub(super) fn error_text(data: &Value) -> String {
    let error = data.get("error").unwrap_or(data);
    let kind = error
        .get("type")
        .and_then(Value::as_str)
        .filter(|kind| *kind != "error")
        .or_else(|| error.get("code").and_then(Value::as_str))
        // Gemini: `code` is the HTTP status number, `status` its name.
        .or_else(|| error.get("status").and_then(Value::as_str));
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or(error.as_str());
    match (kind, message) {
        (Some(kind), Some(message)) => format!("{kind}: {message}"),
        (None, Some(message)) => message.to_string(),
        (Some(kind), None) => kind.to_string(),
        (None, None) => data.to_string(),
    }
}

pub(super) fn append_string(target: &mut Map<String, Value>, key: &str, piece: &str) {
    match target.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        _ => {
            target.insert(key.to_string(), Value::String(piece.to_string()));
        }
    }
}

struct Block {
    value: Map<String, Value>,
    partial_json: Option<String>,
}

impl Block {
    /// Parses the concatenated `partial_json` fragments into `input`.
    fn finish(&mut self, index: u64) -> Result<(), String> {
        let Some(json) = self.partial_json.take() else {
            return Ok(());
        };
        let input = if json.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(&json).map_err(|err| {
                let name = self
                    .value
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                format!("the input of content block {index} (`{name}`) is not JSON ({err})")
            })?
        };
        self.value.insert("input".into(), input);
        Ok(())
    }

    fn apply(&mut self, delta: &Map<String, Value>) {
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
        match delta.get("type").and_then(Value::as_str).unwrap_or("") {
            "text_delta" => append_string(&mut self.value, "text", text("text")),
            "thinking_delta" => append_string(&mut self.value, "thinking", text("thinking")),
            "input_json_delta" => self
                .partial_json
                .get_or_insert_with(String::new)
                .push_str(text("partial_json")),
            "signature_delta" => {
                self.value
                    .insert("signature".into(), Value::String(text("signature").into()));
            }
            "citations_delta" => {
                let citation = delta.get("citation").cloned().unwrap_or(Value::Null);
                match self.value.get_mut("citations") {
                    Some(Value::Array(list)) => list.push(citation),
                    _ => {
                        self.value.insert("citations".into(), json!([citation]));
                    }
                }
            }
            // A delta type this version does not know: strings appended, the rest replaced.
            _ => {
                for (key, value) in delta.iter().filter(|(key, _)| *key != "type") {
                    match value {
                        Value::String(piece) => append_string(&mut self.value, key, piece),
                        other => {
                            self.value.insert(key.clone(), other.clone());
                        }
                    }
                }
            }
        }
    }
}

fn block_index(data: &Value) -> Result<u64, String> {
    data.get("index")
        .and_then(Value::as_u64)
        .ok_or_else(|| "a content block event has no `index`".to_string())
}

fn anthropic(events: &[SseEvent]) -> Result<Value, String> {
    let mut message: Option<Map<String, Value>> = None;
    let mut blocks: BTreeMap<u64, Block> = BTreeMap::new();
    let mut stopped = false;
    for event in events {
        let (data, kind) = parse_event(event)?;
        match kind.as_str() {
            "message_start" => {
                let start = data.get("message").and_then(Value::as_object);
                message = Some(start.cloned().ok_or("`message_start` has no `message`")?);
            }
            "content_block_start" => {
                let index = block_index(&data)?;
                let value = data.get("content_block").and_then(Value::as_object);
                let value = value.cloned().ok_or("`content_block_start` has no block")?;
                blocks.insert(
                    index,
                    Block {
                        value,
                        partial_json: None,
                    },
                );
            }
            "content_block_delta" => {
                let index = block_index(&data)?;
                let block = blocks.get_mut(&index).ok_or_else(|| {
                    format!("a delta for content block {index} came before its start")
                })?;
                if let Some(delta) = data.get("delta").and_then(Value::as_object) {
                    block.apply(delta);
                }
            }
            "content_block_stop" => {
                let index = block_index(&data)?;
                if let Some(block) = blocks.get_mut(&index) {
                    block.finish(index)?;
                }
            }
            "message_delta" => {
                let message = message
                    .as_mut()
                    .ok_or("`message_delta` came before `message_start`")?;
                if let Some(delta) = data.get("delta").and_then(Value::as_object) {
                    for (key, value) in delta {
                        message.insert(key.clone(), value.clone());
                    }
                }
                if let Some(usage) = data.get("usage").and_then(Value::as_object) {
                    let total = message.entry("usage").or_insert_with(|| json!({}));
                    if !total.is_object() {
                        *total = json!({});
                    }
                    if let Some(total) = total.as_object_mut() {
                        for (key, value) in usage.iter().filter(|(_, v)| !v.is_null()) {
                            total.insert(key.clone(), value.clone());
                        }
                    }
                }
            }
            "message_stop" => stopped = true,
            "error" => return Err(format!("the stream reported {}", error_text(&data))),
            _ => {} // `ping` and event types added later
        }
    }
    let mut message = message.ok_or("the stream has no `message_start`")?;
    let stop_reason = message.get("stop_reason").filter(|v| !v.is_null());
    if !stopped && stop_reason.is_none() {
        return Err("the stream ended before `message_stop`".into());
    }
    let mut content = Vec::with_capacity(blocks.len());
    for (index, mut block) in blocks {
        block.finish(index)?;
        content.push(Value::Object(block.value));
    }
    message.insert("content".into(), Value::Array(content));
    Ok(Value::Object(message))
}

fn responses(events: &[SseEvent]) -> Result<Value, String> {
    for event in events {
        if event.data.trim() == "[DONE]" {
            continue;
        }
        let (data, kind) = parse_event(event)?;
        match kind.as_str() {
            "response.completed" | "response.incomplete" => {
                return data
                    .get("response")
                    .filter(|r| r.is_object())
                    .cloned()
                    .ok_or_else(|| format!("`{kind}` has no `response`"));
            }
            "response.failed" => {
                let response = data.get("response").unwrap_or(&Value::Null);
                let error = response.get("error").unwrap_or(response);
                return Err(format!("the response failed: {}", error_text(error)));
            }
            "error" => return Err(format!("the stream reported {}", error_text(&data))),
            _ => {}
        }
    }
    Err("the stream ended without `response.completed`".into())
}

#[cfg(test)]
pub(crate) mod tests;
