use serde_json::json;

use super::*;
use crate::wire::sse::SseParser;

fn run(shape: ApiShape, text: &str) -> Result<Value, String> {
    reassemble(shape, &SseParser::parse(text.as_bytes()))
}

/// An Anthropic stream: text, then a tool call whose input is split over three fragments.
pub(crate) const ANTHROPIC_STREAM: &str = concat!(
    "event: message_start\n",
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n",
    "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"check.\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Par\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"is\\\", \\\"days\\\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\": 3}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: message_delta\n",
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":42}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

pub(crate) fn anthropic_expected() -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "Paris", "days": 3}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 25, "output_tokens": 42}
    })
}

/// A Responses stream whose function call arguments arrive in fragments before completion.
pub(crate) const RESPONSES_STREAM: &str = concat!(
    "event: response.created\n",
    "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[]}}\n\n",
    "event: response.output_item.added\n",
    "data: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\"}}\n\n",
    "event: response.function_call_arguments.delta\n",
    "data: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"city\\\":\"}\n\n",
    "event: response.function_call_arguments.delta\n",
    "data: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":3,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"\\\"Paris\\\"}\"}\n\n",
    "event: response.completed\n",
    "data: {\"type\":\"response.completed\",\"sequence_number\":4,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\",\"status\":\"completed\"}],\"usage\":{\"input_tokens\":30,\"output_tokens\":9,\"total_tokens\":39}}}\n\n",
);

pub(crate) fn responses_expected() -> Value {
    json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": "get_weather", "arguments": "{\"city\":\"Paris\"}",
                    "status": "completed"}],
        "usage": {"input_tokens": 30, "output_tokens": 9, "total_tokens": 39}
    })
}

/// A Chat Completions stream: content, then two tool calls whose arguments interleave.
pub(crate) const CHAT_STREAM: &str = concat!(
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Checking \"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"both.\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\":\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\"CET\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764400000,\"model\":\"gpt-x\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":20,\"total_tokens\":70}}\n\n",
    "data: [DONE]\n\n",
);

pub(crate) fn chat_expected() -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764400000, "model": "gpt-x",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant", "content": "Checking both.",
                "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "get_time", "arguments": "{\"tz\":\"CET\"}"}}
                ]
            },
            "finish_reason": "tool_calls",
            "logprobs": null
        }],
        "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
    })
}

#[test]
fn anthropic_stream_becomes_the_message() {
    assert_eq!(
        run(ApiShape::Anthropic, ANTHROPIC_STREAM),
        Ok(anthropic_expected())
    );
}

#[test]
fn anthropic_thinking_signature_and_empty_tool_input() {
    let text = concat!(
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1}}}\n\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Hm, \"}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"ok.\"}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig\"}}\n\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"now\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n",
    );
    let body = run(ApiShape::Anthropic, text).expect("reassembled");
    assert_eq!(
        body["content"],
        json!([
            {"type": "thinking", "thinking": "Hm, ok.", "signature": "sig"},
            {"type": "tool_use", "id": "t", "name": "now", "input": {}}
        ])
    );
    assert_eq!(
        body["usage"],
        json!({"input_tokens": 1, "output_tokens": 5})
    );
}

#[test]
fn anthropic_stream_failures_are_described() {
    let start =
        "data: {\"type\":\"message_start\",\"message\":{\"content\":[],\"stop_reason\":null}}\n\n";
    let error = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    assert_eq!(
        run(ApiShape::Anthropic, &format!("{start}{error}")),
        Err("the stream reported overloaded_error: Overloaded".into())
    );
    assert_eq!(
        run(ApiShape::Anthropic, start),
        Err("the stream ended before `message_stop`".into())
    );
    assert_eq!(
        run(ApiShape::Anthropic, ""),
        Err("the stream has no `message_start`".into())
    );
    let bad_input = concat!(
        "data: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"name\":\"f\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );
    let err = run(ApiShape::Anthropic, bad_input).expect_err("bad input");
    assert!(
        err.starts_with("the input of content block 0 (`f`) is not JSON"),
        "{err}"
    );
    let not_json = run(ApiShape::Anthropic, "event: message_start\ndata: {oops\n\n");
    let err = not_json.expect_err("not JSON");
    assert!(
        err.starts_with("the data of a `message_start` event is not JSON"),
        "{err}"
    );
}

#[test]
fn responses_stream_takes_the_completed_response() {
    assert_eq!(
        run(ApiShape::Openai, RESPONSES_STREAM),
        Ok(responses_expected())
    );
    let failed = "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n";
    assert_eq!(
        run(ApiShape::Openai, failed),
        Err("the response failed: server_error: boom".into())
    );
    let error = "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit\",\"message\":\"slow down\"}\n\n";
    assert_eq!(
        run(ApiShape::Openai, error),
        Err("the stream reported rate_limit: slow down".into())
    );
    let cut = RESPONSES_STREAM.split("event: response.completed").next();
    assert_eq!(
        run(ApiShape::Openai, cut.unwrap_or_default()),
        Err("the stream ended without `response.completed`".into())
    );
}

#[test]
fn chat_stream_merges_deltas_and_tool_call_fragments() {
    assert_eq!(run(ApiShape::OpenaiChat, CHAT_STREAM), Ok(chat_expected()));
}

#[test]
fn chat_stream_without_tool_calls_index_or_content() {
    // Some local servers send whole tool calls without `index`, and no content at all.
    let text = concat!(
        "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"think \"}}]}\n\n",
        "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"more\",\"tool_calls\":[{\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"y\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"a\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
    );
    let body = run(ApiShape::OpenaiChat, text).expect("reassembled without [DONE]");
    assert_eq!(
        body["choices"][0]["message"],
        json!({
            "role": "assistant", "content": null, "reasoning_content": "think more",
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "y", "type": "function", "function": {"name": "g", "arguments": "{\"a\":1}"}}
            ]
        })
    );
}

#[test]
fn chat_stream_failures_are_described() {
    let first = CHAT_STREAM.split("\n\n").next().unwrap_or_default();
    assert_eq!(
        run(ApiShape::OpenaiChat, &format!("{first}\n\n")),
        Err("the stream ended before `data: [DONE]`".into())
    );
    assert_eq!(
        run(ApiShape::OpenaiChat, "data: [DONE]\n\n"),
        Err("the stream held no chunks".into())
    );
    let error = "data: {\"error\":{\"message\":\"model not loaded\"}}\n\n";
    assert_eq!(
        run(ApiShape::OpenaiChat, error),
        Err("the stream reported model not loaded".into())
    );
}

/// A Gemini SSE stream as the API sends it (CRLF, one record per event, no end marker): a
/// thought summary, text in two pieces with the signature on the second, a whole
/// `functionCall`, then the `finishReason` and the final usage.
pub(crate) const GEMINI_STREAM: &str = concat!(
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Planning\",\"thought\": true}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 71,\"totalTokenCount\": 71},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Let me \"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"check.\",\"thoughtSignature\": \"c2ln\"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"location\": \"Seoul\"}}}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 71,\"candidatesTokenCount\": 22,\"totalTokenCount\": 151,\"thoughtsTokenCount\": 58},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
);

pub(crate) fn gemini_expected() -> Value {
    json!({
        "candidates": [{
            "content": {"parts": [
                {"text": "Planning", "thought": true},
                {"text": "Let me check.", "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "get_weather", "args": {"location": "Seoul"}}}
            ], "role": "model"},
            "index": 0,
            "finishReason": "STOP"
        }],
        "usageMetadata": {"promptTokenCount": 71, "candidatesTokenCount": 22,
                          "totalTokenCount": 151, "thoughtsTokenCount": 58},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1"
    })
}

#[test]
fn gemini_sse_records_merge() {
    let body = run(ApiShape::Gemini, GEMINI_STREAM).expect("reassembles");
    assert_eq!(body, gemini_expected());
    let turn = crate::wire::convert::parse_response(ApiShape::Gemini, &body).expect("reads");
    assert_eq!(turn.text, "Let me check.");
    assert_eq!(turn.tool_calls[0].id, "get_weather#1");
}

/// Without `?alt=sse` the same records come as one JSON array (Google's REST streaming), and
/// [`read_body`] tells the two forms and a plain body apart.
#[test]
fn gemini_json_array_stream_merges_the_same() {
    let records: Vec<&str> = GEMINI_STREAM
        .split("\r\n\r\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .collect();
    let array = format!("[{}]", records.join("\n,\r\n"));
    assert_eq!(gemini_json_array(&array), Ok(gemini_expected()));
    assert_eq!(
        read_body(ApiShape::Gemini, &array),
        (true, Ok(gemini_expected()))
    );
    assert_eq!(
        read_body(ApiShape::Gemini, GEMINI_STREAM),
        (true, Ok(gemini_expected()))
    );
    let plain = gemini_expected().to_string();
    assert_eq!(
        read_body(ApiShape::Gemini, &plain),
        (false, Ok(gemini_expected()))
    );
    // An array from another shape is not a stream.
    assert_eq!(read_body(ApiShape::Openai, "[1]"), (false, Ok(json!([1]))));
    // A cut array, an array of something else.
    let cut = &array[..array.len() / 2];
    assert!(gemini_json_array(cut).is_err_and(|e| e.contains("not a whole JSON array")));
    assert_eq!(
        gemini_json_array("[1]"),
        Err("record 1 of the stream is not a JSON object".into())
    );
    assert_eq!(
        gemini_json_array("{}"),
        Err("the streamed answer is not a JSON array of responses".into())
    );
}

#[test]
fn gemini_stream_errors() {
    assert_eq!(
        run(ApiShape::Gemini, ""),
        Err("the stream has no responses".into())
    );
    let cut: String = GEMINI_STREAM
        .split("\r\n\r\n")
        .take(2)
        .collect::<Vec<_>>()
        .join("\r\n\r\n");
    assert_eq!(
        run(ApiShape::Gemini, &cut),
        Err("the stream ended before a `finishReason`".into())
    );
    let error = "data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n";
    assert_eq!(
        run(ApiShape::Gemini, error),
        Err("the stream reported UNAVAILABLE: The model is overloaded.".into())
    );
    assert!(
        run(ApiShape::Gemini, "data: {not json\r\n\r\n")
            .is_err_and(|e| e.contains("record 1 of the stream is not JSON"))
    );
    // A blocked prompt: no candidates, the feedback kept for the reader to say why.
    let blocked = "data: {\"promptFeedback\": {\"blockReason\": \"SAFETY\"}}\r\n\r\n";
    assert_eq!(
        run(ApiShape::Gemini, blocked),
        Ok(json!({"promptFeedback": {"blockReason": "SAFETY"}}))
    );
}
