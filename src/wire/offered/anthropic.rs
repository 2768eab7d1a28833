//! The conversation half of what a request offers: tools named only in prompt text, tools a
//! search loaded, and every content block kept by its type.
//!
//! Read from `system` and `messages` (Anthropic, Chat), `input` (Responses), `contents` and
//! `systemInstruction` (Gemini): the same walk serves every shape, since the texts and blocks
//! it looks for have one form wherever they sit.

use serde_json::Value;

use super::{DEFERRED_MARKER, Delivery, Offered, Tool, Unknown, kind_by_name, mcp_namespace};

/// The text by which Codex names the tool namespaces it deferred behind its `tool_search`.
pub const NAMESPACES_MARKER: &str = "Deferred tool namespaces:";

/// Content block types every shape's reading knows; anything else is kept and said once.
const KNOWN_BLOCKS: &[&str] = &[
    // Anthropic Messages
    "text",
    "image",
    "document",
    "search_result",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "tool_search_tool_result",
    "tool_search_tool_search_result",
    "tool_reference",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    // OpenAI Responses items and parts
    "message",
    "input_text",
    "output_text",
    "input_image",
    "input_file",
    "refusal",
    "reasoning",
    "summary_text",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
    "file_search_call",
    "local_shell_call",
    "local_shell_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "tool_search_call",
    "tool_search_output",
    "compaction",
    // Chat Completions parts
    "image_url",
    "input_audio",
    "file",
];

/// Reads the conversation of `body` into `out`: deferred names, loads, blocks.
pub(super) fn read_conversation(out: &mut Offered, body: &Value) {
    let mut walk = Walk::default();
    for key in ["system", "systemInstruction", "instructions"] {
        if let Some(v) = body.get(key) {
            walk.content(key, v);
        }
    }
    for key in ["messages", "input", "contents"] {
        match body.get(key) {
            Some(Value::Array(items)) => {
                for (m, item) in items.iter().enumerate() {
                    let at = format!("{key}[{m}]");
                    walk.item(&at, item);
                }
            }
            Some(v @ Value::String(_)) => walk.content(key, v),
            _ => {}
        }
    }
    for name in walk.deferred {
        match out
            .tools
            .iter_mut()
            .find(|t| t.name == name && t.namespace.is_none())
        {
            Some(t) => t.named_in_text = true,
            None => out.tools.push(Tool {
                kind: kind_by_name(&name),
                name,
                namespace: None,
                delivery: Delivery::NameOnly,
                entry: None,
                named_in_text: true,
            }),
        }
    }
    for ns in walk.namespaces {
        if out.namespaces.iter().any(|(n, _)| *n == ns) {
            continue;
        }
        // A deferred namespace: the model knows its name; its tools come with a search. One
        // tool stands for it, named as the namespace, until a search names its members.
        let kind = match mcp_namespace(&ns) {
            true => super::Kind::Mcp,
            false => super::Kind::Host,
        };
        out.tools.push(Tool {
            name: ns.clone(),
            namespace: Some(ns.clone()),
            kind,
            delivery: Delivery::NameOnly,
            entry: None,
            named_in_text: true,
        });
        out.namespaces.push((ns, Vec::new()));
    }
    out.loaded = walk.loaded;
    out.blocks = walk.blocks;
    out.cache_control = walk.cache_control;
    out.unknown.extend(walk.unknown);
}

#[derive(Default)]
struct Walk {
    deferred: Vec<String>,
    /// Namespaces named in text only (Codex's "Deferred tool namespaces:" list).
    namespaces: Vec<String>,
    loaded: Vec<String>,
    blocks: Vec<(String, usize)>,
    cache_control: usize,
    unknown: Vec<Unknown>,
}

impl Walk {
    /// One conversation entry: a message with `content` (or Gemini `parts`), or a Responses
    /// item, which is a block itself.
    fn item(&mut self, at: &str, item: &Value) {
        if item.get("role").is_some() || item.get("parts").is_some() {
            if let Some(c) = item.get("content").or_else(|| item.get("parts")) {
                self.content(&format!("{at}.content"), c);
            }
        } else {
            self.block(at, item);
        }
    }

    /// A content value: a string, one block, or an array of blocks.
    fn content(&mut self, at: &str, content: &Value) {
        match content {
            Value::String(text) => self.text(text),
            Value::Array(blocks) => {
                for (b, block) in blocks.iter().enumerate() {
                    self.block(&format!("{at}[{b}]"), block);
                }
            }
            Value::Object(_) => self.item(at, content),
            _ => {}
        }
    }

    fn block(&mut self, at: &str, block: &Value) {
        if block.get("cache_control").is_some() {
            self.cache_control += 1;
        }
        let Some(kind) = block.get("type").and_then(Value::as_str) else {
            // Gemini parts have no type: `{text}`, `{functionCall}`, `{functionResponse}`.
            if let Some(text) = block.get("text").and_then(Value::as_str) {
                self.text(text);
            }
            return;
        };
        match self.blocks.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => {
                self.blocks.push((kind.to_string(), 1));
                if !KNOWN_BLOCKS.contains(&kind) {
                    self.unknown.push(Unknown {
                        at: at.to_string(),
                        why: format!("a `{kind}` block, a type this reading does not know"),
                    });
                }
            }
        }
        if kind == "tool_reference"
            && let Some(name) = block.get("tool_name").and_then(Value::as_str)
        {
            self.load(name.to_string());
        }
        if kind == "tool_search_output" {
            self.search_output(block);
        }
        for key in ["text", "output"] {
            if let Some(text) = block.get(key).and_then(Value::as_str) {
                self.text(text);
            }
        }
        // Results hold blocks of their own (a `tool_result`'s content, a tool search's
        // `tool_references`).
        for key in ["content", "tool_references"] {
            match block.get(key) {
                Some(inner @ Value::Array(_)) => self.content(&format!("{at}.{key}"), inner),
                Some(inner @ Value::Object(_)) => self.block(&format!("{at}.{key}"), inner),
                Some(Value::String(text)) => self.text(text),
                _ => {}
            }
        }
    }

    /// Namespaces listed after [`NAMESPACES_MARKER`], one `- name: description` a line.
    fn namespaces(&mut self, text: &str) {
        let Some(at) = text.find(NAMESPACES_MARKER) else {
            return;
        };
        for line in text[at..].lines().skip(1) {
            let Some(item) = line.trim().strip_prefix("- ") else {
                break;
            };
            let name = item.split(':').next().unwrap_or_default().trim();
            if !name.is_empty() && !self.namespaces.iter().any(|n| n == name) {
                self.namespaces.push(name.to_string());
            }
        }
    }

    /// What Codex's `tool_search` returned (a `tool_search_output`): its `tools`, function
    /// tools or namespaces of them, are loaded from here on; a namespace's member as
    /// `namespace.tool`.
    fn search_output(&mut self, block: &Value) {
        let name = |v: &Value| v.get("name").and_then(Value::as_str).map(str::to_string);
        let tools = block.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            let Some(tool_name) = name(tool) else {
                continue;
            };
            match tool.get("tools").and_then(Value::as_array) {
                Some(members) => {
                    for m in members.iter().filter_map(name) {
                        self.load(format!("{tool_name}.{m}"));
                    }
                }
                None => self.load(tool_name),
            }
        }
    }

    fn load(&mut self, name: String) {
        if !self.loaded.contains(&name) {
            self.loaded.push(name);
        }
    }

    /// Names listed after [`DEFERRED_MARKER`], one per line, in a text.
    fn text(&mut self, text: &str) {
        self.namespaces(text);
        let mut rest = text;
        while let Some(at) = rest.find(DEFERRED_MARKER) {
            rest = &rest[at + DEFERRED_MARKER.len()..];
            let mut started = false;
            // The marker's own line explains itself; the names follow, one a line.
            for line in rest.lines().skip(1) {
                let line = line.trim();
                let name_like = !line.is_empty()
                    && line
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
                if name_like {
                    started = true;
                    if !self.deferred.iter().any(|d| d == line) {
                        self.deferred.push(line.to_string());
                    }
                } else if started {
                    break;
                }
            }
        }
    }
}

/// Deferred names in `text`, as [`read_conversation`] finds them.
#[cfg(test)]
pub(super) fn deferred_names(text: &str) -> Vec<String> {
    let mut walk = Walk::default();
    walk.text(text);
    walk.deferred
}
