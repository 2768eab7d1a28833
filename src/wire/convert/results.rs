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
mod tests;
