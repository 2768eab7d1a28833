//! Tool results: an MCP `CallToolResult` goes back to the model as the provider's result.
//!
//! Text passes through unchanged in every shape. The rest is decided per shape, because the
//! four accept different things:
//!
//! | MCP block            | Anthropic `tool_result`     | Responses `function_call_output` | Chat `role: "tool"` | Gemini `functionResponse` |
//! |----------------------|-----------------------------|----------------------------------|---------------------|---------------------------|
//! | `text`               | `text` block                | text                             | text                | `response.output` text    |
//! | `image`              | `image` block (base64)      | `input_image` (data URL)         | description         | `inlineData` part after it |
//! | `audio`              | description                 | description                      | description         | description               |
//! | `resource_link`      | `[resource link: name <uri>]` | same                           | same                | same                      |
//! | `resource` (text)    | its text                    | its text                         | its text            | its text                  |
//! | `resource` (blob)    | `[embedded resource uri (mime), N bytes blob]` | same          | same                | same                      |
//! | `structuredContent`  | JSON text, only when there are no content blocks | same        | same                | same                      |
//! | `isError: true`      | `is_error: true`            | text starts with `Error`         | same as Responses   | `response.error` instead of `output` |
//!
//! Gemini's `functionResponse` carries the call's `name` (the API pairs a response with its call
//! by name when there is no id) and `id`, and its `response` is an object: `{output}` for a
//! result, `{error}` for a failure, the keys Gemini CLI uses.
//!
//! Images go as images only in the types the vision APIs take (PNG, JPEG, GIF, WebP); any other
//! image is described. A description names the MIME type and the size of the base64 text as it
//! was on the wire: `[image: image/svg+xml, 1024 bytes base64 omitted]`. Responses output is a
//! plain string unless an image is sent, in which case it uses the array form
//! (`input_text` / `input_image`). Chat tool messages take text only. Neither OpenAI shape has an
//! error flag, so the error is said in words: the text gets an `Error: ` prefix unless it already
//! starts with "error". Several text parts are joined with a newline. `annotations` and `_meta`
//! are not passed on.

use serde_json::{Map, Value, json};

use super::str_field;
use crate::wire::api::ApiShape;

/// The image types Anthropic and OpenAI accept as input.
const VISION_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// One piece of a result, before it takes a shape.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    /// An image the vision APIs take (see [`VISION_TYPES`]).
    Image {
        mime: String,
        data: String,
    },
}

impl Part {
    /// The part as text: images are described (for Chat, which takes no images).
    fn as_text(&self) -> String {
        match self {
            Part::Text(text) => text.clone(),
            Part::Image { mime, data } => omitted("image", mime, data),
        }
    }
}

fn omitted(kind: &str, mime: &str, data: &str) -> String {
    format!("[{kind}: {mime}, {} bytes base64 omitted]", data.len())
}

/// The result's content blocks as parts; `structuredContent` as JSON text when there are none.
fn parts(result: &Value) -> Vec<Part> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if blocks.is_empty() {
        return match result.get("structuredContent") {
            Some(structured) if !structured.is_null() => vec![Part::Text(structured.to_string())],
            _ => Vec::new(),
        };
    }
    blocks.iter().map(part).collect()
}

fn part(block: &Value) -> Part {
    let mime = str_field(block, "mimeType").unwrap_or("unknown type");
    let data = str_field(block, "data").unwrap_or_default();
    match str_field(block, "type") {
        Some("text") => Part::Text(str_field(block, "text").unwrap_or_default().to_string()),
        Some("image") if VISION_TYPES.contains(&mime) && !data.is_empty() => Part::Image {
            mime: mime.to_string(),
            data: data.to_string(),
        },
        Some("image") => Part::Text(omitted("image", mime, data)),
        Some("audio") => Part::Text(omitted("audio", mime, data)),
        Some("resource_link") => {
            let uri = str_field(block, "uri").unwrap_or_default();
            Part::Text(match str_field(block, "name") {
                Some(name) => format!("[resource link: {name} <{uri}>]"),
                None => format!("[resource link: <{uri}>]"),
            })
        }
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            if let Some(text) = str_field(resource, "text") {
                return Part::Text(text.to_string());
            }
            let uri = str_field(resource, "uri").unwrap_or_default();
            let blob = str_field(resource, "blob").unwrap_or_default();
            Part::Text(match str_field(resource, "mimeType") {
                Some(mime) => format!(
                    "[embedded resource {uri} ({mime}), {} bytes blob]",
                    blob.len()
                ),
                None => format!("[embedded resource {uri}, {} bytes blob]", blob.len()),
            })
        }
        Some(other) => Part::Text(format!("[{other} content omitted]")),
        None => Part::Text("[content block without a type omitted]".to_string()),
    }
}

/// Says "error" in words, for the shapes without an error flag.
fn mark_error(parts: &mut Vec<Part>) {
    match parts.first_mut() {
        Some(Part::Text(text)) if text.is_empty() => *text = "Error".to_string(),
        Some(Part::Text(text)) => {
            if !text.trim_start().to_ascii_lowercase().starts_with("error") {
                text.insert_str(0, "Error: ");
            }
        }
        _ => parts.insert(0, Part::Text("Error".to_string())),
    }
}

fn joined_text(parts: &[Part]) -> String {
    parts
        .iter()
        .map(Part::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// MCP `CallToolResult` → what goes back to the model for call `call_id` of tool `name` (the
/// name the model called; only Gemini's result carries it). One value, but for Gemini with
/// images, where each image follows as its own part:
///
/// - Anthropic: one content block `{type: "tool_result", tool_use_id, content: [blocks],
///   is_error?: true}` (`content` left out when there is nothing to say), to be wrapped by
///   [`tool_results_message`](super::tool_results_message);
/// - Responses: one input item `{type: "function_call_output", call_id, output}`;
/// - Chat: one message `{role: "tool", tool_call_id, content}`;
/// - Gemini: one part `{functionResponse: {id, name, response: {output | error}}}`, then an
///   `{inlineData: {mimeType, data}}` part per image, all to be wrapped by
///   [`tool_results_message`](super::tool_results_message).
///
/// The module documentation has the table of what becomes of each kind of MCP block.
pub fn tool_result_to_api(
    shape: ApiShape,
    call_id: &str,
    name: &str,
    result: &Value,
) -> Vec<Value> {
    let mut parts = parts(result);
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let value = match shape {
        ApiShape::Anthropic => {
            let mut block = Map::new();
            block.insert("type".into(), "tool_result".into());
            block.insert("tool_use_id".into(), call_id.into());
            if !parts.is_empty() {
                let content = parts.iter().map(anthropic_block).collect();
                block.insert("content".into(), Value::Array(content));
            }
            if is_error {
                block.insert("is_error".into(), true.into());
            }
            Value::Object(block)
        }
        ApiShape::Openai => {
            if is_error {
                mark_error(&mut parts);
            }
            let has_image = parts.iter().any(|p| matches!(p, Part::Image { .. }));
            let output = if has_image {
                Value::Array(parts.iter().map(responses_part).collect())
            } else {
                Value::String(joined_text(&parts))
            };
            json!({"type": "function_call_output", "call_id": call_id, "output": output})
        }
        ApiShape::OpenaiChat => {
            if is_error {
                mark_error(&mut parts);
            }
            json!({"role": "tool", "tool_call_id": call_id, "content": joined_text(&parts)})
        }
        ApiShape::Gemini => return gemini_response(call_id, name, &parts, is_error),
    };
    vec![value]
}

/// Gemini's `functionResponse` part, then the images as `inlineData` parts.
fn gemini_response(call_id: &str, name: &str, parts: &[Part], is_error: bool) -> Vec<Value> {
    let text: Vec<&Part> = parts
        .iter()
        .filter(|p| matches!(p, Part::Text(_)))
        .collect();
    let text = text
        .iter()
        .map(|p| p.as_text())
        .collect::<Vec<_>>()
        .join("\n");
    let key = if is_error { "error" } else { "output" };
    let mut response = Map::new();
    response.insert(key.into(), text.into());
    let mut out = vec![json!({"functionResponse": {
        "id": call_id,
        "name": name,
        "response": response,
    }})];
    out.extend(parts.iter().filter_map(|p| match p {
        Part::Image { mime, data } => Some(json!({"inlineData": {"mimeType": mime, "data": data}})),
        Part::Text(_) => None,
    }));
    out
}

fn anthropic_block(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({"type": "text", "text": text}),
        Part::Image { mime, data } => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime, "data": data},
        }),
    }
}

fn responses_part(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({"type": "input_text", "text": text}),
        Part::Image { mime, data } => json!({
            "type": "input_image",
            "image_url": format!("data:{mime};base64,{data}"),
        }),
    }
}

/// A tool call that failed without a `CallToolResult`: it never reached the server (unknown
/// tool, unusable arguments, server gone) or came back as a JSON-RPC error. The model gets it
/// as an error result, exactly as if the server had answered `isError: true` with `message`.
pub fn tool_error_to_api(shape: ApiShape, call_id: &str, name: &str, message: &str) -> Vec<Value> {
    let result = json!({"content": [{"type": "text", "text": message}], "isError": true});
    tool_result_to_api(shape, call_id, name, &result)
}

#[cfg(test)]
mod tests {
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
        let result = json!({"content": [{"type": "text", "text": "Unknown city: Atlantis"}], "isError": true});
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
}
