//! Tests of MCP results given back to the model, block by block, in the four shapes.

use super::*;
use crate::wire::convert::golden;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The three shapes whose result is always one value, each answered alike.
const THREE: [ApiShape; 3] = [ApiShape::Anthropic, ApiShape::Openai, ApiShape::OpenaiChat];

/// The result as [Anthropic, Responses, Chat] values.
fn all(result: &Value) -> [Value; 3] {
    THREE.map(|shape| {
        let mut values = tool_result_to_api(shape, "call_1", "t", result);
        assert_eq!(values.len(), 1);
        values.remove(0)
    })
}

fn responses(output: Value) -> Value {
    json!({"type": "function_call_output", "call_id": "call_1", "output": output})
}

fn chat(content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": "call_1", "content": content})
}

fn anthropic(content: Value) -> Value {
    json!({"type": "tool_result", "tool_use_id": "call_1", "content": content})
}

/// What each API gets for a result given to the model as the one text `text`.
fn as_text(text: &str) -> [Value; 3] {
    [
        anthropic(json!([{"type": "text", "text": text}])),
        responses(json!(text)),
        chat(text),
    ]
}

#[test]
fn seed_article_tool_result_line_is_reproduced() {
    let (line, expected) = golden::seed_line("tool_result: ");
    let result = json!({"content": [{"type": "text", "text": "Seoul: 15C, partly cloudy"}]});
    let got = tool_result_to_api(ApiShape::Anthropic, "toolu_demo", "get_weather", &result);
    assert_eq!(got, vec![expected]);
    assert_eq!(serde_json::to_string(&got[0]).unwrap(), line);
}

#[test]
fn text() {
    let result = json!({"content": [
        {"type": "text", "text": "Seoul: 15C"},
        {"type": "text", "text": "partly cloudy", "annotations": {"audience": ["assistant"]}}
    ], "isError": false});
    assert_eq!(
        all(&result),
        [
            anthropic(json!([
                {"type": "text", "text": "Seoul: 15C"},
                {"type": "text", "text": "partly cloudy"}
            ])),
            responses(json!("Seoul: 15C\npartly cloudy")),
            chat("Seoul: 15C\npartly cloudy"),
        ]
    );
}

#[test]
fn image() {
    let result = json!({"content": [
        {"type": "text", "text": "The chart:"},
        {"type": "image", "data": PNG, "mimeType": "image/png"}
    ]});
    assert_eq!(
        all(&result),
        [
            anthropic(json!([
                {"type": "text", "text": "The chart:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            ])),
            responses(json!([
                {"type": "input_text", "text": "The chart:"},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")}
            ])),
            chat("The chart:\n[image: image/png, 96 bytes base64 omitted]"),
        ]
    );
}

#[test]
fn image_of_a_type_the_apis_refuse_is_described() {
    let result = json!({"content": [{"type": "image", "data": "PHN2Zz48L3N2Zz4=", "mimeType": "image/svg+xml"}]});
    let text = "[image: image/svg+xml, 16 bytes base64 omitted]";
    assert_eq!(all(&result), as_text(text));
}

#[test]
fn audio() {
    let result = json!({"content": [{"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"}]});
    let text = "[audio: audio/wav, 16 bytes base64 omitted]";
    assert_eq!(all(&result), as_text(text));
}

#[test]
fn resource_link() {
    let result = json!({"content": [{"type": "resource_link", "uri": "file:///project/README.md",
        "name": "README.md", "mimeType": "text/markdown", "description": "The readme"}]});
    let text = "[resource link: README.md <file:///project/README.md>]";
    assert_eq!(all(&result), as_text(text));
}

#[test]
fn embedded_resources() {
    let result = json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "remember the milk"}},
        {"type": "resource", "resource": {"uri": "file:///data.bin", "mimeType": "application/octet-stream", "blob": "AAECAwQFBgc="}}
    ]});
    let blob = "[embedded resource file:///data.bin (application/octet-stream), 12 bytes blob]";
    assert_eq!(
        all(&result),
        [
            anthropic(json!([
                {"type": "text", "text": "remember the milk"},
                {"type": "text", "text": blob}
            ])),
            responses(json!(format!("remember the milk\n{blob}"))),
            chat(&format!("remember the milk\n{blob}")),
        ]
    );
}

#[test]
fn structured_content_only() {
    let result = json!({"content": [], "structuredContent": {"temperature": 15, "conditions": "partly cloudy"}});
    let text = r#"{"temperature":15,"conditions":"partly cloudy"}"#;
    assert_eq!(all(&result), as_text(text));
}

#[test]
fn structured_content_is_ignored_next_to_content() {
    let result =
        json!({"content": [{"type": "text", "text": "15C"}], "structuredContent": {"t": 15}});
    assert_eq!(
        all(&result),
        [
            anthropic(json!([{"type": "text", "text": "15C"}])),
            responses(json!("15C")),
            chat("15C"),
        ]
    );
}

#[test]
fn is_error() {
    let result =
        json!({"content": [{"type": "text", "text": "Unknown city: Atlantis"}], "isError": true});
    assert_eq!(
        all(&result),
        [
            json!({"type": "tool_result", "tool_use_id": "call_1",
                   "content": [{"type": "text", "text": "Unknown city: Atlantis"}], "is_error": true}),
            responses(json!("Error: Unknown city: Atlantis")),
            chat("Error: Unknown city: Atlantis"),
        ]
    );
    // No doubled prefix when the server already says so.
    let result =
        json!({"content": [{"type": "text", "text": "error: no such city"}], "isError": true});
    assert_eq!(all(&result)[2], chat("error: no such city"));
    // An error with an image first, and one with nothing at all.
    let result = json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}], "isError": true});
    assert_eq!(
        all(&result)[1],
        responses(json!([
            {"type": "input_text", "text": "Error"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")}
        ]))
    );
    let result = json!({"content": [], "isError": true});
    assert_eq!(
        all(&result),
        [
            json!({"type": "tool_result", "tool_use_id": "call_1", "is_error": true}),
            responses(json!("Error")),
            chat("Error"),
        ]
    );
}

#[test]
fn empty_and_unknown_blocks() {
    assert_eq!(
        all(&json!({"content": []})),
        [
            json!({"type": "tool_result", "tool_use_id": "call_1"}),
            responses(json!("")),
            chat(""),
        ]
    );
    let result = json!({"content": [{"type": "video", "data": "xx"}]});
    assert_eq!(all(&result)[2], chat("[video content omitted]"));
}

#[test]
fn tool_error() {
    let message = "MCP error -32602: Unknown tool: get_wether";
    let got = THREE.map(|shape| tool_error_to_api(shape, "call_1", "t", message));
    assert_eq!(
        got,
        [
            vec![json!({"type": "tool_result", "tool_use_id": "call_1",
                        "content": [{"type": "text", "text": message}], "is_error": true})],
            vec![responses(json!(format!("Error: {message}")))],
            vec![chat(&format!("Error: {message}"))],
        ]
    );
}

/// Gemini: the name and id go back with the result; text under `output`, a failure under
/// `error` (no `Error:` prefix: the key says it), images as `inlineData` parts after it.
#[test]
fn gemini_function_responses() {
    let g = ApiShape::Gemini;
    let result = json!({"content": [{"type": "text", "text": "Seoul: 15C"},
        {"type": "text", "text": "partly cloudy"}]});
    assert_eq!(
        tool_result_to_api(g, "get_weather#1", "get_weather", &result),
        [
            json!({"functionResponse": {"id": "get_weather#1", "name": "get_weather",
            "response": {"output": "Seoul: 15C\npartly cloudy"}}})
        ]
    );
    assert_eq!(
        tool_error_to_api(g, "c1", "get_wether", "Unknown tool: get_wether"),
        [
            json!({"functionResponse": {"id": "c1", "name": "get_wether",
            "response": {"error": "Unknown tool: get_wether"}}})
        ]
    );
    let result = json!({"content": [
        {"type": "text", "text": "The chart:"},
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"}
    ]});
    assert_eq!(
        tool_result_to_api(g, "c1", "chart", &result),
        [
            json!({"functionResponse": {"id": "c1", "name": "chart", "response": {
                "output": "The chart:\n[audio: audio/wav, 16 bytes base64 omitted]"}}}),
            json!({"inlineData": {"mimeType": "image/png", "data": PNG}}),
        ]
    );
    let structured = json!({"content": [], "structuredContent": {"t": 15}});
    assert_eq!(
        tool_result_to_api(g, "c1", "t", &structured)[0]["functionResponse"]["response"],
        json!({"output": "{\"t\":15}"})
    );
}
