//! The scripted model's answer written in each API shape's (non-streamed) response form.

use serde_json::{Map, Value, json};

use super::read::Conversation;
use super::script::StopReason;
use crate::wire::api::ApiShape;

/// What the model decided to say for one request, before it is written in a shape.
#[derive(Debug, Clone)]
pub(super) struct Answer {
    pub conversation: Conversation,
    /// Text before the calls (or the whole answer).
    pub text: Option<String>,
    pub calls: Vec<Call>,
    pub stop: StopReason,
    pub output_tokens: u64,
    /// Unix seconds, for `created` / `created_at`.
    pub created: u64,
    /// An answer to a request the host sent for a server's sampling request (not a script
    /// turn): its ids say so, so they never collide with the loop's.
    pub sampling: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Call {
    pub name: String,
    /// The Responses `namespace` the tool is a member of (Codex's MCP tools).
    pub namespace: Option<String>,
    pub input: Map<String, Value>,
    /// `input` as compact JSON, the OpenAI `arguments` string.
    pub arguments: String,
}

impl Call {
    pub fn new(name: String, namespace: Option<String>, input: Map<String, Value>) -> Call {
        Call {
            name,
            namespace,
            arguments: Value::Object(input.clone()).to_string(),
            input,
        }
    }
}

impl Answer {
    pub fn turn(&self) -> usize {
        self.conversation.turn
    }

    /// What the ids carry after `sl_`: the assistant turn (tool searches included), or
    /// `sampling_<turn>`.
    fn tag(&self) -> String {
        let turn = self.turn() + self.conversation.searches;
        match self.sampling {
            true => format!("sampling_{turn}"),
            false => turn.to_string(),
        }
    }

    pub fn model(&self) -> &str {
        &self.conversation.model
    }

    /// `msg_sl_<turn>`: the Anthropic message id and the Responses message item id.
    pub fn message_id(&self) -> String {
        format!("msg_sl_{}", self.tag())
    }

    /// `toolu_sl_<turn>_<n>`.
    pub fn anthropic_call_id(&self, n: usize) -> String {
        format!("toolu_sl_{}_{n}", self.tag())
    }

    /// `fc_sl_<turn>_<n>`: the Responses function_call item id.
    pub fn item_id(&self, n: usize) -> String {
        format!("fc_sl_{}_{n}", self.tag())
    }

    /// `call_sl_<turn>_<n>`: the Responses `call_id` and the Chat tool call id.
    pub fn call_id(&self, n: usize) -> String {
        format!("call_sl_{}_{n}", self.tag())
    }

    /// `resp_sl_<turn>` (read back from `previous_response_id`).
    pub fn response_id(&self) -> String {
        format!("resp_sl_{}", self.tag())
    }

    /// `chatcmpl-sl_<turn>`.
    pub fn completion_id(&self) -> String {
        format!("chatcmpl-sl_{}", self.tag())
    }
}

pub(super) fn body(shape: ApiShape, answer: &Answer) -> Value {
    match shape {
        ApiShape::Anthropic => anthropic(answer),
        ApiShape::Openai => responses(answer),
        ApiShape::OpenaiChat => chat(answer),
        ApiShape::Gemini => gemini(answer),
    }
}

/// The parts of the scripted model's Gemini content: the text, then one `functionCall` per call
/// (without an `id`, as Gemini 2.5 answers on the Developer API: the host pairs its response by
/// name).
pub(super) fn gemini_parts(answer: &Answer) -> Vec<Value> {
    let text = answer.text.iter().map(|text| json!({"text": text}));
    let calls = answer
        .calls
        .iter()
        .map(|call| json!({"functionCall": {"name": call.name, "args": call.input}}));
    text.chain(calls).collect()
}

/// One Gemini response record: a candidate with `parts` (and `finishReason` when `done`), and
/// the usage so far.
pub(super) fn gemini_record(answer: &Answer, parts: Vec<Value>, done: bool) -> Value {
    let mut candidate = json!({
        "content": {"parts": parts, "role": "model"},
        "index": 0,
    });
    if done && let Some(fields) = candidate.as_object_mut() {
        fields.insert("finishReason".into(), answer.stop.gemini().into());
    }
    let prompt = answer.conversation.input_tokens;
    let output = if done { answer.output_tokens } else { 0 };
    let mut usage = json!({"promptTokenCount": prompt, "totalTokenCount": prompt + output});
    if done && let Some(fields) = usage.as_object_mut() {
        fields.insert("candidatesTokenCount".into(), output.into());
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": answer.model(),
        "responseId": answer.response_id(),
    })
}

fn gemini(answer: &Answer) -> Value {
    gemini_record(answer, gemini_parts(answer), true)
}

fn anthropic(answer: &Answer) -> Value {
    let mut content = Vec::new();
    if let Some(text) = &answer.text {
        content.push(json!({"type": "text", "text": text}));
    }
    for (n, call) in answer.calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use",
            "id": answer.anthropic_call_id(n),
            "name": call.name,
            "input": call.input,
        }));
    }
    json!({
        "id": answer.message_id(),
        "type": "message",
        "role": "assistant",
        "model": answer.model(),
        "content": content,
        "stop_reason": answer.stop.anthropic(),
        "stop_sequence": null,
        "usage": anthropic_usage(answer, answer.output_tokens),
    })
}

pub(super) fn anthropic_usage(answer: &Answer, output_tokens: u64) -> Value {
    json!({
        "input_tokens": answer.conversation.input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    })
}

/// Responses status of the whole response and of its items.
pub(super) fn responses_status(answer: &Answer) -> &'static str {
    match answer.stop.responses_incomplete() {
        Some(_) => "incomplete",
        None => "completed",
    }
}

/// The Responses output message item holding `text`.
pub(super) fn responses_message(answer: &Answer, status: &str, text: Option<&str>) -> Value {
    let content = match text {
        Some(text) => vec![responses_text_part(text)],
        None => Vec::new(),
    };
    json!({
        "id": answer.message_id(),
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content,
    })
}

pub(super) fn responses_text_part(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

/// The Responses function_call item for call `n`.
pub(super) fn responses_call(answer: &Answer, n: usize, status: &str, arguments: &str) -> Value {
    let call = answer.calls.get(n);
    let mut item = json!({
        "id": answer.item_id(n),
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": answer.call_id(n),
        "name": call.map_or("", |call| call.name.as_str()),
    });
    // A member of a namespace tool is called inside it (Codex refuses the flat name).
    if let Some(namespace) = call.and_then(|call| call.namespace.as_deref()) {
        item["namespace"] = Value::from(namespace);
    }
    item
}

/// The whole Responses object with the given status, output and usage.
pub(super) fn responses_object(
    answer: &Answer,
    status: &str,
    output: Vec<Value>,
    done: bool,
) -> Value {
    let incomplete_details = match (done, answer.stop.responses_incomplete()) {
        (true, Some(reason)) => json!({"reason": reason}),
        _ => Value::Null,
    };
    let usage = if done {
        let output_tokens = answer.output_tokens;
        let input_tokens = answer.conversation.input_tokens;
        json!({
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        })
    } else {
        Value::Null
    };
    let mut object = json!({
        "id": answer.response_id(),
        "object": "response",
        "created_at": answer.created,
        "status": status,
        "error": null,
        "incomplete_details": incomplete_details,
        "model": answer.model(),
        "output": output,
        "parallel_tool_calls": true,
        "temperature": 1.0,
        "tool_choice": "auto",
        "top_p": 1.0,
        "usage": usage,
    });
    if let Some(fields) = object.as_object_mut() {
        for (key, value) in &answer.conversation.echo {
            fields.insert(key.clone(), value.clone());
        }
    }
    object
}

fn responses(answer: &Answer) -> Value {
    let status = responses_status(answer);
    let mut output = Vec::new();
    if let Some(text) = &answer.text {
        output.push(responses_message(answer, status, Some(text)));
    }
    for (n, call) in answer.calls.iter().enumerate() {
        output.push(responses_call(answer, n, "completed", &call.arguments));
    }
    responses_object(answer, status, output, true)
}

/// The Chat `tool_calls` entry for call `n`.
fn chat_tool_call(answer: &Answer, n: usize, call: &Call) -> Value {
    json!({
        "id": answer.call_id(n),
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    })
}

pub(super) fn chat_usage(answer: &Answer) -> Value {
    let prompt = answer.conversation.input_tokens;
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": answer.output_tokens,
        "total_tokens": prompt + answer.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    })
}

fn chat(answer: &Answer) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": answer.text,
        "refusal": null,
    });
    if !answer.calls.is_empty()
        && let Some(fields) = message.as_object_mut()
    {
        let calls = answer.calls.iter().enumerate();
        let calls = calls
            .map(|(n, call)| chat_tool_call(answer, n, call))
            .collect();
        fields.insert("tool_calls".into(), Value::Array(calls));
    }
    json!({
        "id": answer.completion_id(),
        "object": "chat.completion",
        "created": answer.created,
        "model": answer.model(),
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": answer.stop.chat(),
        }],
        "usage": chat_usage(answer),
    })
}
