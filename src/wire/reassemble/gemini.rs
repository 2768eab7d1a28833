//! Gemini: a stream of whole `GenerateContentResponse` records merged back into one.
//!
//! `streamGenerateContent` answers with the records `generateContent` would send, each holding
//! the parts generated since the last one: as Server-Sent Events (`?alt=sse`, one record per
//! `data:` line, no end marker) or, without `alt`, as one JSON array of records. Either way the
//! records are merged alike:
//!
//! - each candidate (by `index`, default 0) gets the parts of every record in order; a `text`
//!   part right after a `text` part of the same kind (`thought` or not) is appended to it, so
//!   the text reads as one part, as the non-streamed answer has it; a `functionCall` part comes
//!   whole in one record and is kept as it is; any other field of the part (`thoughtSignature`)
//!   is kept on the part it came with;
//! - the candidate's other fields (`finishReason`, `safetyRatings`, ...) and the record's
//!   top-level fields (`usageMetadata`, `modelVersion`, `responseId`, `promptFeedback`) are
//!   the last record's that has them;
//! - a record with an `error` ends the stream with that error.
//!
//! A stream whose candidates never got a `finishReason` was cut: that is an error, as for the
//! other shapes, except a stream with no candidate at all but a `promptFeedback` (a blocked
//! prompt), which is returned as it is for the reader to say why.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error_text;
use crate::wire::sse::SseEvent;

/// The records of an SSE stream (`?alt=sse`).
pub(super) fn from_sse(events: &[SseEvent]) -> Result<Value, String> {
    let mut records = Vec::with_capacity(events.len());
    for event in events {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            continue;
        }
        let record: Value = serde_json::from_str(data).map_err(|err| {
            format!(
                "the data of record {} of the stream is not JSON ({err})",
                records.len() + 1
            )
        })?;
        records.push(record);
    }
    merge(&records)
}

/// The records of a JSON-array stream (`streamGenerateContent` without `alt`).
pub fn from_json_array(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(records)) => merge(&records),
        Ok(_) => Err("the streamed answer is not a JSON array of responses".into()),
        Err(err) => Err(format!(
            "the streamed answer is not a whole JSON array ({err})"
        )),
    }
}

#[derive(Default)]
struct Candidate {
    fields: Map<String, Value>,
    content: Map<String, Value>,
    parts: Vec<Map<String, Value>>,
}

impl Candidate {
    fn absorb(&mut self, candidate: &Map<String, Value>) {
        for (key, value) in candidate {
            if key == "content" {
                let Some(content) = value.as_object() else {
                    continue;
                };
                for (key, value) in content {
                    match (key.as_str(), value) {
                        ("parts", Value::Array(parts)) => {
                            for part in parts.iter().filter_map(Value::as_object) {
                                self.push(part);
                            }
                        }
                        ("parts", _) => {}
                        _ => {
                            self.content.insert(key.clone(), value.clone());
                        }
                    }
                }
            } else if !value.is_null() {
                self.fields.insert(key.clone(), value.clone());
            }
        }
    }

    fn push(&mut self, part: &Map<String, Value>) {
        let thought = |p: &Map<String, Value>| p.get("thought").and_then(Value::as_bool);
        if let Some(Value::String(piece)) = part.get("text")
            && let Some(last) = self.parts.last_mut()
            && last.get("text").is_some_and(Value::is_string)
            && thought(last) == thought(part)
            && !last.contains_key("thoughtSignature")
        {
            if let Some(Value::String(text)) = last.get_mut("text") {
                text.push_str(piece);
            }
            for (key, value) in part.iter().filter(|(key, _)| *key != "text") {
                last.insert(key.clone(), value.clone());
            }
            return;
        }
        self.parts.push(part.clone());
    }

    fn finish(mut self) -> Value {
        self.content.insert(
            "parts".into(),
            Value::Array(self.parts.into_iter().map(Value::Object).collect()),
        );
        let mut candidate = Map::new();
        candidate.insert("content".into(), Value::Object(self.content));
        candidate.extend(self.fields);
        Value::Object(candidate)
    }
}

fn merge(records: &[Value]) -> Result<Value, String> {
    if records.is_empty() {
        return Err("the stream has no responses".into());
    }
    let mut top = Map::new();
    let mut candidates: BTreeMap<u64, Candidate> = BTreeMap::new();
    for (n, record) in records.iter().enumerate() {
        let Some(record) = record.as_object() else {
            return Err(format!(
                "record {} of the stream is not a JSON object",
                n + 1
            ));
        };
        if let Some(error) = record.get("error").filter(|e| !e.is_null()) {
            return Err(format!("the stream reported {}", error_text(error)));
        }
        for (key, value) in record {
            if key == "candidates" {
                for candidate in value.as_array().into_iter().flatten() {
                    let Some(candidate) = candidate.as_object() else {
                        continue;
                    };
                    let index = candidate.get("index").and_then(Value::as_u64).unwrap_or(0);
                    candidates.entry(index).or_default().absorb(candidate);
                }
            } else if !value.is_null() {
                top.insert(key.clone(), value.clone());
            }
        }
    }
    if candidates.is_empty() {
        if top.contains_key("promptFeedback") {
            return Ok(Value::Object(top));
        }
        return Err("the stream has no candidates".into());
    }
    if candidates
        .values()
        .all(|c| !c.fields.contains_key("finishReason"))
    {
        return Err("the stream ended before a `finishReason`".into());
    }
    let mut body = Map::new();
    body.insert(
        "candidates".into(),
        Value::Array(candidates.into_values().map(Candidate::finish).collect()),
    );
    body.extend(top);
    Ok(Value::Object(body))
}
