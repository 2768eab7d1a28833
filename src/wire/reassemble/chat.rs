//! Chat Completions: `choices[i].delta` chunks merged back into `choices[i].message`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{append_string, error_text, parse_event};
use crate::wire::sse::SseEvent;

#[derive(Default)]
struct ChatChoice {
    message: Map<String, Value>,
    tool_calls: BTreeMap<u64, Map<String, Value>>,
    finish_reason: Option<Value>,
    logprobs: Vec<Value>,
}

impl ChatChoice {
    fn apply(&mut self, delta: &Map<String, Value>) {
        for (key, value) in delta {
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                ("tool_calls", Value::Array(calls)) => {
                    for call in calls.iter().filter_map(Value::as_object) {
                        self.apply_tool_call(call);
                    }
                }
                ("role", role) => {
                    self.message.insert("role".into(), role.clone());
                }
                (key, Value::String(piece)) => append_string(&mut self.message, key, piece),
                (key, other) => {
                    self.message.insert(key.to_string(), other.clone());
                }
            }
        }
    }

    fn apply_tool_call(&mut self, call: &Map<String, Value>) {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let index = match call.get("index").and_then(Value::as_u64) {
            Some(index) => index,
            // No index (some local servers): the call with this id, else a new call.
            None => self
                .tool_calls
                .iter()
                .find(|(_, c)| id.is_some() && c.get("id").and_then(Value::as_str) == id)
                .map(|(index, _)| *index)
                .unwrap_or_else(|| self.tool_calls.keys().next_back().map_or(0, |i| i + 1)),
        };
        let merged = self.tool_calls.entry(index).or_insert_with(|| {
            let mut fresh = Map::new();
            fresh.insert("id".into(), Value::Null);
            fresh.insert("type".into(), json!("function"));
            fresh.insert("function".into(), json!({"name": "", "arguments": ""}));
            fresh
        });
        if let Some(id) = id {
            merged.insert("id".into(), json!(id));
        }
        if let Some(kind) = call.get("type").filter(|v| v.is_string()) {
            merged.insert("type".into(), kind.clone());
        }
        let Some(function) = call.get("function").and_then(Value::as_object) else {
            return;
        };
        let Some(Value::Object(target)) = merged.get_mut("function") else {
            return;
        };
        for (key, value) in function {
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                // The name comes whole in the first fragment; later copies are not appended.
                ("name", Value::String(name)) => {
                    if target
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .is_empty()
                    {
                        target.insert("name".into(), json!(name));
                    }
                }
                (key, Value::String(piece)) => append_string(target, key, piece),
                (key, other) => {
                    target.insert(key.to_string(), other.clone());
                }
            }
        }
    }

    fn into_value(self, index: u64) -> Value {
        let mut message = Map::new();
        let mut rest = self.message;
        message.insert(
            "role".into(),
            rest.remove("role").unwrap_or(json!("assistant")),
        );
        message.insert(
            "content".into(),
            rest.remove("content").unwrap_or(Value::Null),
        );
        message.extend(rest);
        if !self.tool_calls.is_empty() {
            let calls = self.tool_calls.into_values().map(Value::Object).collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let logprobs = match self.logprobs.is_empty() {
            true => Value::Null,
            false => json!({ "content": self.logprobs }),
        };
        json!({
            "index": index,
            "message": message,
            "finish_reason": self.finish_reason.unwrap_or(Value::Null),
            "logprobs": logprobs,
        })
    }
}

pub(super) fn chat(events: &[SseEvent]) -> Result<Value, String> {
    let mut top: Option<Map<String, Value>> = None;
    let mut choices: BTreeMap<u64, ChatChoice> = BTreeMap::new();
    let mut usage = None;
    let mut done = false;
    for event in events {
        if event.data.trim() == "[DONE]" {
            done = true;
            break;
        }
        let (chunk, _) = parse_event(event)?;
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            return Err(format!("the stream reported {}", error_text(&chunk)));
        }
        let Some(fields) = chunk.as_object() else {
            return Err("a chunk is not a JSON object".into());
        };
        let top = top.get_or_insert_with(Map::new);
        for (key, value) in fields.iter().filter(|(_, v)| !v.is_null()) {
            match key.as_str() {
                "choices" => {}
                "usage" => usage = Some(value.clone()),
                _ if !top.contains_key(key) => {
                    top.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        let listed = fields.get("choices").and_then(Value::as_array);
        for (position, choice) in listed.into_iter().flatten().enumerate() {
            let index = choice
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(position as u64);
            let merged = choices.entry(index).or_default();
            if let Some(delta) = choice.get("delta").and_then(Value::as_object) {
                merged.apply(delta);
            }
            if let Some(reason) = choice.get("finish_reason").filter(|v| !v.is_null()) {
                merged.finish_reason = Some(reason.clone());
            }
            let tokens = choice
                .pointer("/logprobs/content")
                .and_then(Value::as_array);
            merged
                .logprobs
                .extend(tokens.into_iter().flatten().cloned());
        }
    }
    let mut body = top.ok_or("the stream held no chunks")?;
    let finished = choices.values().any(|c| c.finish_reason.is_some());
    if !done && !finished {
        return Err("the stream ended before `data: [DONE]`".into());
    }
    body.insert("object".into(), json!("chat.completion"));
    let choices = choices
        .into_iter()
        .map(|(index, choice)| choice.into_value(index))
        .collect();
    body.insert("choices".into(), Value::Array(choices));
    if let Some(usage) = usage {
        body.insert("usage".into(), usage);
    }
    Ok(Value::Object(body))
}
