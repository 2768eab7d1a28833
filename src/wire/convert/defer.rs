//! A host that defers its MCP tools, as Claude Code does: the model gets the tools' names, not
//! their definitions, and a search tool the host runs itself to load the ones it wants.
//!
//! A host with many servers would spend thousands of tokens a request on tool definitions the
//! model never uses. Claude Code (2.1, Anthropic's Messages API) sends instead its own
//! `ToolSearch` tool and names the deferred tools in a text: "The following deferred tools are
//! now available via ToolSearch ...", one name a line. The model calls `ToolSearch` with
//! `{"query": "select:<name>[,<name>...]"}`; the host answers with a `tool_result` holding one
//! `tool_reference` block per loaded tool, and from the next request on sends those tools whole
//! (with `"defer_loading": true`, as the API's own tool search marks them). No MCP server hears
//! of the search: the host answers it. The wording is Claude Code's, so a trace of Sightline's
//! own deferring host reads as a trace of Claude Code does ([`crate::wire::offered`]).
//!
//! Only the Anthropic shape has `tool_reference` blocks; a host on another API sends its tools
//! whole.

use serde_json::{Value, json};

use crate::wire::offered::DEFERRED_MARKER;

/// The host-run tool that loads deferred tools.
pub const SEARCH_TOOL: &str = "ToolSearch";

/// The search tool's entry in the `tools` parameter (Anthropic shape).
pub fn search_tool() -> Value {
    json!({
        "name": SEARCH_TOOL,
        "description": "Loads the definitions of deferred tools so that they can be called. \
            Query \"select:<name>[,<name>...]\" loads those tools by name.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "\"select:<name>[,<name>...]\""
                }
            },
            "required": ["query"]
        }
    })
}

/// The text that names the deferred tools, one a line, for the system prompt.
pub fn deferred_text<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = format!(
        "{DEFERRED_MARKER}. Their schemas are NOT loaded - calling them directly will fail. \
         Use {SEARCH_TOOL} with query \"select:<name>[,<name>...]\" to load tool schemas before \
         calling them:"
    );
    for name in names {
        text.push('\n');
        text.push_str(name);
    }
    text
}

/// The names a search asks for: `select:a,b` gives `a` and `b`; any other query none (this
/// host loads by name only).
pub fn selected(arguments: &serde_json::Map<String, Value>) -> Vec<String> {
    arguments
        .get("query")
        .and_then(Value::as_str)
        .and_then(|q| q.trim().strip_prefix("select:"))
        .map(|names| {
            names
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The host's answer to a search: a `tool_result` with one `tool_reference` per loaded tool,
/// or, when none of the names is a deferred tool, an error that says which names there are.
pub fn search_result(call_id: &str, loaded: &[String], known: &[&str]) -> Value {
    if loaded.is_empty() {
        return json!({
            "type": "tool_result",
            "tool_use_id": call_id,
            "is_error": true,
            "content": [{
                "type": "text",
                "text": format!("no deferred tool of that name; the deferred tools are: {}", known.join(", "))
            }]
        });
    }
    let references: Vec<Value> = loaded
        .iter()
        .map(|name| json!({"type": "tool_reference", "tool_name": name}))
        .collect();
    json!({"type": "tool_result", "tool_use_id": call_id, "content": references})
}

/// A loaded tool as the `tools` parameter carries it from then on.
pub fn loaded_tool(api_tool: &Value) -> Value {
    let mut tool = api_tool.clone();
    if let Some(object) = tool.as_object_mut() {
        object.insert("defer_loading".into(), Value::Bool(true));
    }
    tool
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::offered;

    #[test]
    fn a_search_selects_names() {
        let args = |q: &str| {
            json!({ "query": q })
                .as_object()
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(
            selected(&args("select:get_weather, forecast")),
            ["get_weather", "forecast"]
        );
        assert!(selected(&args("weather tools")).is_empty());
        assert!(selected(&serde_json::Map::new()).is_empty());
    }

    #[test]
    fn the_request_reads_as_claude_codes_does() {
        // What the host sends before and after a search, read back by the one reading of
        // what a request offers.
        let definition = json!({"name": "get_weather", "description": "d",
            "input_schema": {"type": "object"}});
        let before = json!({
            "system": deferred_text(["get_weather"]),
            "tools": [search_tool()],
            "messages": [{"role": "user", "content": "weather?"}]
        });
        let read = offered::read(&before, before["tools"].as_array().expect("tools"));
        let weather = read.tools.iter().find(|t| t.name == "get_weather");
        assert!(
            weather.is_some_and(|t| t.delivery == offered::Delivery::NameOnly && t.named_in_text),
            "{read:?}"
        );
        assert_eq!(read.host, None, "a ToolSearch alone is no Claude Code");
        let after = json!({
            "system": deferred_text(["get_weather"]),
            "tools": [search_tool(), loaded_tool(&definition)],
            "messages": [
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                    "name": SEARCH_TOOL, "input": {"query": "select:get_weather"}}]},
                {"role": "user", "content": [search_result("t1", &["get_weather".into()], &[])]}
            ]
        });
        let read = offered::read(&after, after["tools"].as_array().expect("tools"));
        assert!(read.loaded.iter().any(|l| l == "get_weather"), "{read:?}");
        let weather = read.tools.iter().find(|t| t.name == "get_weather");
        assert!(
            weather
                .is_some_and(|t| t.delivery == offered::Delivery::Deferred && t.entry == Some(1)),
            "{read:?}"
        );
    }

    #[test]
    fn an_unknown_name_is_answered_with_the_names_there_are() {
        let r = search_result("t1", &[], &["get_weather"]);
        assert_eq!(r["is_error"], true);
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("get_weather")
        );
    }
}
