//! The model's calls in a response body, read by form in every shape: Anthropic `tool_use`
//! and the API's own `server_tool_use`; Responses `function_call` (with the `namespace` Codex
//! needs) and `custom_tool_call`; Chat `tool_calls`; Gemini `functionCall` parts. Also the
//! tools a search loaded where the response says so (a server-side tool search's
//! `tool_reference` blocks).

use serde_json::Value;

/// Who runs a call the model made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// The host runs it (an MCP tool, or one of the host's own).
    Client,
    /// The API runs it itself (`server_tool_use`, Responses `web_search_call`).
    Server,
}

/// One call the model made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// `tool_use.id`, `call_id`, `tool_calls[].id`, `functionCall.id` (empty when absent).
    pub id: String,
    pub name: String,
    /// The namespace the call was made in (Responses), if any.
    pub namespace: Option<String>,
    pub kind: CallKind,
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The calls of a (reassembled) response body, in order.
pub fn calls(body: &Value) -> Vec<Call> {
    let mut out = Vec::new();
    let call = |id: Option<&str>, name: &str, namespace: Option<&str>, kind| Call {
        id: id.unwrap_or_default().to_string(),
        name: name.to_string(),
        namespace: namespace.map(str::to_string),
        kind,
    };
    // Anthropic: content blocks.
    for block in body
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = match s(block, "type") {
            Some("tool_use") => CallKind::Client,
            Some("server_tool_use") => CallKind::Server,
            _ => continue,
        };
        if let Some(name) = s(block, "name") {
            out.push(call(s(block, "id"), name, None, kind));
        }
    }
    // Responses: output items.
    for item in body
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match s(item, "type") {
            Some("function_call" | "custom_tool_call") => {
                if let Some(name) = s(item, "name") {
                    let id = s(item, "call_id");
                    out.push(call(id, name, s(item, "namespace"), CallKind::Client));
                }
            }
            Some("local_shell_call") => {
                out.push(call(
                    s(item, "call_id"),
                    "local_shell",
                    None,
                    CallKind::Client,
                ));
            }
            // Codex's own tool search, run by the host: a call like any of its tools'.
            Some("tool_search_call") if s(item, "execution") == Some("client") => {
                let id = s(item, "call_id").or_else(|| s(item, "id"));
                out.push(call(id, "tool_search", None, CallKind::Client));
            }
            // The API's own MCP client's call to a remote server: `wire::remote` reads it.
            Some("mcp_call") => {}
            Some(kind) if kind.ends_with("_call") => {
                let name = kind.trim_end_matches("_call");
                out.push(call(s(item, "id"), name, None, CallKind::Server));
            }
            _ => {}
        }
    }
    // Chat Completions: the first choice's tool calls.
    let chat = body.pointer("/choices/0/message/tool_calls");
    for c in chat.and_then(Value::as_array).into_iter().flatten() {
        if let Some(name) = c.pointer("/function/name").and_then(Value::as_str) {
            out.push(call(s(c, "id"), name, None, CallKind::Client));
        }
    }
    // Gemini: the first candidate's `functionCall` parts.
    let parts = body.pointer("/candidates/0/content/parts");
    for p in parts.and_then(Value::as_array).into_iter().flatten() {
        if let Some(f) = p.get("functionCall")
            && let Some(name) = s(f, "name")
        {
            out.push(call(s(f, "id"), name, None, CallKind::Client));
        }
    }
    out
}

/// The tool names of every `tool_reference` block in `value`, in order, once each: what a
/// tool search loaded (Anthropic's `tool_search_tool_result`, Claude Code's `ToolSearch`
/// answered with `tool_result` content).
pub fn tool_references(value: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>, depth: usize) {
        if depth > 64 {
            return;
        }
        match v {
            Value::Object(map) => {
                if map.get("type").and_then(Value::as_str) == Some("tool_reference")
                    && let Some(name) = map.get("tool_name").and_then(Value::as_str)
                    && !out.iter().any(|n| n == name)
                {
                    out.push(name.to_string());
                }
                for inner in map.values() {
                    walk(inner, out, depth + 1);
                }
            }
            Value::Array(items) => {
                for inner in items {
                    walk(inner, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out, 0);
    out
}
