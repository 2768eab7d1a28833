//! The scripted model's answer as each API shape's server-sent event stream.
//!
//! Text comes in pieces of a few words, tool call arguments in three fragments (Anthropic also
//! sends the empty first `partial_json` the real API sends), so a host's reassembly is tested.

use serde_json::{Value, json};

use super::shapes::{self, Answer};
use crate::wire::api::ApiShape;

/// The whole stream, one server-sent event per string (each ends with a blank line).
pub(super) fn events(shape: ApiShape, answer: &Answer, include_usage: bool) -> Vec<String> {
    match shape {
        ApiShape::Anthropic => anthropic(answer),
        ApiShape::Openai => responses(answer),
        ApiShape::OpenaiChat => chat(answer, include_usage),
        ApiShape::Gemini => gemini_records(answer)
            .iter()
            .map(|record| format!("data: {record}\r\n\r\n"))
            .collect(),
    }
}

/// Gemini's stream records: one per text piece, then one per call (a `functionCall` comes whole
/// in one record); the last one has the `finishReason` and the whole usage.
pub(super) fn gemini_records(answer: &Answer) -> Vec<Value> {
    let mut parts: Vec<Value> = Vec::new();
    if let Some(text) = &answer.text {
        parts.extend(
            text_pieces(text)
                .into_iter()
                .map(|piece| json!({"text": piece})),
        );
    }
    let calls = shapes::gemini_parts(answer);
    parts.extend(
        calls
            .into_iter()
            .filter(|p| p.get("functionCall").is_some()),
    );
    if parts.is_empty() {
        parts.push(json!({"text": ""}));
    }
    let last = parts.len() - 1;
    parts
        .into_iter()
        .enumerate()
        .map(|(n, part)| shapes::gemini_record(answer, vec![part], n == last))
        .collect()
}

/// The JSON-array stream Gemini sends for `streamGenerateContent` without `?alt=sse`, one
/// string per record as they go out: `[`, the records separated by `,` on lines of their own,
/// `]`.
pub(super) fn gemini_array(answer: &Answer) -> Vec<String> {
    let records = gemini_records(answer);
    let last = records.len().saturating_sub(1);
    records
        .iter()
        .enumerate()
        .map(|(n, record)| {
            let open = if n == 0 { "[" } else { "" };
            let close = if n == last { "]" } else { "\n,\r\n" };
            format!("{open}{record}{close}")
        })
        .collect()
}

fn named(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Text split after every second space: "Let me check the weather." -> "Let me ", "check the ",
/// "weather.".
fn text_pieces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut spaces = 0;
    for (at, c) in text.char_indices() {
        if c == ' ' {
            spaces += 1;
            if spaces % 2 == 0 {
                pieces.push(&text[start..=at]);
                start = at + 1;
            }
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// `text` in three fragments of about equal length (two if it has two characters), split on
/// character boundaries; never an empty fragment.
pub(super) fn fragments(text: &str) -> Vec<&str> {
    let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let count = bounds.len();
    let parts = count.clamp(1, 3);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for part in 1..parts {
        let end = bounds
            .get(part * count / parts)
            .copied()
            .unwrap_or(text.len());
        out.push(&text[start..end]);
        start = end;
    }
    out.push(&text[start..]);
    out
}

fn anthropic(answer: &Answer) -> Vec<String> {
    let mut events = Vec::new();
    let message = json!({
        "id": answer.message_id(),
        "type": "message",
        "role": "assistant",
        "model": answer.model(),
        "content": [],
        "stop_reason": null,
        "stop_sequence": null,
        "usage": shapes::anthropic_usage(answer, 1),
    });
    events.push(named(
        "message_start",
        &json!({"type": "message_start", "message": message}),
    ));
    events.push(named("ping", &json!({"type": "ping"})));
    let mut index = 0;
    let mut block = |start: Value, deltas: Vec<Value>, events: &mut Vec<String>| {
        let start = json!({"type": "content_block_start", "index": index, "content_block": start});
        events.push(named("content_block_start", &start));
        for delta in deltas {
            let delta = json!({"type": "content_block_delta", "index": index, "delta": delta});
            events.push(named("content_block_delta", &delta));
        }
        let stop = json!({"type": "content_block_stop", "index": index});
        events.push(named("content_block_stop", &stop));
        index += 1;
    };
    if let Some(text) = &answer.text {
        let deltas = text_pieces(text).into_iter();
        let deltas = deltas
            .map(|piece| json!({"type": "text_delta", "text": piece}))
            .collect();
        block(json!({"type": "text", "text": ""}), deltas, &mut events);
    }
    for (n, call) in answer.calls.iter().enumerate() {
        let start = json!({
            "type": "tool_use",
            "id": answer.anthropic_call_id(n),
            "name": call.name,
            "input": {},
        });
        let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
        for fragment in fragments(&call.arguments) {
            deltas.push(json!({"type": "input_json_delta", "partial_json": fragment}));
        }
        block(start, deltas, &mut events);
    }
    let delta = json!({
        "type": "message_delta",
        "delta": {"stop_reason": answer.stop.anthropic(), "stop_sequence": null},
        "usage": {"output_tokens": answer.output_tokens},
    });
    events.push(named("message_delta", &delta));
    events.push(named("message_stop", &json!({"type": "message_stop"})));
    events
}

/// Responses events carry a running `sequence_number`.
struct Sequence {
    events: Vec<String>,
    next: u64,
}

impl Sequence {
    fn push(&mut self, kind: &str, mut data: Value) {
        if let Some(fields) = data.as_object_mut() {
            let mut ordered = serde_json::Map::new();
            ordered.insert("type".into(), Value::from(kind));
            ordered.insert("sequence_number".into(), Value::from(self.next));
            ordered.append(fields);
            data = Value::Object(ordered);
        }
        self.next += 1;
        self.events.push(named(kind, &data));
    }
}

fn responses(answer: &Answer) -> Vec<String> {
    let mut seq = Sequence {
        events: Vec::new(),
        next: 0,
    };
    let starting = shapes::responses_object(answer, "in_progress", Vec::new(), false);
    seq.push("response.created", json!({"response": starting}));
    seq.push("response.in_progress", json!({"response": starting}));
    let status = shapes::responses_status(answer);
    let mut output_index = 0;
    if let Some(text) = &answer.text {
        let item_id = answer.message_id();
        let added = shapes::responses_message(answer, "in_progress", None);
        seq.push(
            "response.output_item.added",
            json!({"output_index": output_index, "item": added}),
        );
        let at = json!({"item_id": item_id, "output_index": output_index, "content_index": 0});
        let with = |extra: Value| {
            let mut data = at.clone();
            if let (Some(data), Some(extra)) = (data.as_object_mut(), extra.as_object()) {
                data.extend(extra.clone());
            }
            data
        };
        let empty = shapes::responses_text_part("");
        seq.push("response.content_part.added", with(json!({"part": empty})));
        for piece in text_pieces(text) {
            let delta = json!({"delta": piece, "logprobs": []});
            seq.push("response.output_text.delta", with(delta));
        }
        let done = json!({"text": text, "logprobs": []});
        seq.push("response.output_text.done", with(done));
        let part = shapes::responses_text_part(text);
        seq.push("response.content_part.done", with(json!({"part": part})));
        let item = shapes::responses_message(answer, status, Some(text));
        seq.push(
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
        );
        output_index += 1;
    }
    for (n, call) in answer.calls.iter().enumerate() {
        let item_id = answer.item_id(n);
        let added = shapes::responses_call(answer, n, "in_progress", "");
        seq.push(
            "response.output_item.added",
            json!({"output_index": output_index, "item": added}),
        );
        for fragment in fragments(&call.arguments) {
            let delta =
                json!({"item_id": item_id, "output_index": output_index, "delta": fragment});
            seq.push("response.function_call_arguments.delta", delta);
        }
        let done = json!({
            "item_id": item_id,
            "output_index": output_index,
            "name": call.name,
            "arguments": call.arguments,
        });
        seq.push("response.function_call_arguments.done", done);
        let item = shapes::responses_call(answer, n, "completed", &call.arguments);
        seq.push(
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
        );
        output_index += 1;
    }
    let last = match status {
        "incomplete" => "response.incomplete",
        _ => "response.completed",
    };
    seq.push(
        last,
        json!({"response": shapes::body(ApiShape::Openai, answer)}),
    );
    seq.events
}

fn chat(answer: &Answer, include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish_reason: Option<&str>| {
        let mut chunk = json!({
            "id": answer.completion_id(),
            "object": "chat.completion.chunk",
            "created": answer.created,
            "model": answer.model(),
            "choices": [{
                "index": 0,
                "delta": delta,
                "logprobs": null,
                "finish_reason": finish_reason,
            }],
        });
        if include_usage && let Some(fields) = chunk.as_object_mut() {
            fields.insert("usage".into(), Value::Null);
        }
        format!("data: {chunk}\n\n")
    };
    let mut events = Vec::new();
    let first_content = answer.text.as_ref().map(|_| "");
    let first = json!({"role": "assistant", "content": first_content, "refusal": null});
    events.push(chunk(first, None));
    if let Some(text) = &answer.text {
        for piece in text_pieces(text) {
            events.push(chunk(json!({"content": piece}), None));
        }
    }
    for (n, call) in answer.calls.iter().enumerate() {
        let opening = json!({"tool_calls": [{
            "index": n,
            "id": answer.call_id(n),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]});
        events.push(chunk(opening, None));
        for fragment in fragments(&call.arguments) {
            let more = json!({"tool_calls": [{"index": n, "function": {"arguments": fragment}}]});
            events.push(chunk(more, None));
        }
    }
    events.push(chunk(json!({}), Some(answer.stop.chat())));
    if include_usage {
        let usage = json!({
            "id": answer.completion_id(),
            "object": "chat.completion.chunk",
            "created": answer.created,
            "model": answer.model(),
            "choices": [],
            "usage": shapes::chat_usage(answer),
        });
        events.push(format!("data: {usage}\n\n"));
    }
    events.push("data: [DONE]\n\n".to_string());
    events
}
