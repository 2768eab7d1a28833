//! Which tools a request offers the model, and which of them a script's tool name means.
//!
//! Real hosts do not send a server's tools as the server named them, nor always in full, so
//! the scripted model reads a request as a model would:
//!
//! - **Names.** A script names a tool as the server does (`get_weather`) or as the host sends
//!   it. It means, in this order: the offered tool of exactly that name; a member of that
//!   name in a Responses `namespace` tool (Codex: namespace `mcp__weather`, member
//!   `get_weather`; `mcp__weather__get_weather` names that member too), called inside the
//!   namespace; the first offered tool (in the request's order) whose name is the host's
//!   qualified form of it: `mcp__<server>__<tool>` (Claude Code, Codex) or
//!   `mcp_<server>_<tool>` (Gemini CLI).
//! - **Deferred tools.** A host may name a tool without sending its definition: Claude Code
//!   lists MCP tools one per line after "The following deferred tools are now available via
//!   ToolSearch" in a system text and offers its own `ToolSearch` tool, which loads a schema
//!   (its result is a `tool_reference` block; from then on the tool is in `tools` with
//!   `defer_loading: true`). A tool in `tools` with `defer_loading: true` is callable once a
//!   `tool_reference` to it is in the conversation, as with the API's own tool search. A step
//!   that calls a deferred tool first makes the model call the search tool with
//!   `{"query": "select:<name>"}`; that turn is not a step of the script.

use serde_json::{Map, Value};

use crate::wire::offered::{self, Delivery};

/// The host-run tool that loads deferred tools (Claude Code).
pub(super) use crate::wire::convert::defer::SEARCH_TOOL;

/// The tools one request offers, as the model may call them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Offered {
    /// Callable by name, in the request's order.
    pub names: Vec<String>,
    /// `(namespace, member)` of Responses `namespace` tools.
    pub namespaced: Vec<(String, String)>,
    /// Named but not loaded: listed in the prompt, or sent with `defer_loading` and not yet
    /// referenced.
    pub deferred: Vec<String>,
    /// Whether the host offers [`SEARCH_TOOL`].
    pub search: bool,
}

/// What a script's tool name means in a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// Call it by this name (inside this namespace).
    Callable {
        name: String,
        namespace: Option<String>,
    },
    /// Only named: load it with the search tool first (its name as the host lists it).
    Deferred(String),
    Missing,
}

impl Offered {
    /// Reads the request's `tools` entries and, for deferral, its conversation, through the
    /// one reading of what a request offers ([`offered::read`]).
    pub fn read(request: &Value, tools: &[Value]) -> Offered {
        let read = offered::read(request, tools);
        let mut out = Offered::default();
        for tool in read.tools {
            let loaded = read.loaded.contains(&tool.name);
            match (tool.delivery, tool.namespace) {
                (Delivery::NameOnly, _) => out.deferred.push(tool.name),
                (Delivery::Deferred, _) if !loaded => out.deferred.push(tool.name),
                (_, Some(namespace)) => out.namespaced.push((namespace, tool.name)),
                (_, None) => {
                    out.search |= tool.name == SEARCH_TOOL;
                    out.names.push(tool.name);
                }
            }
        }
        out
    }

    /// What the script's `tool` means here (see the module docs).
    pub fn find(&self, tool: &str) -> Found {
        if self.names.iter().any(|n| n == tool) {
            return Found::Callable {
                name: tool.into(),
                namespace: None,
            };
        }
        if let Some((namespace, member)) = self
            .namespaced
            .iter()
            .find(|(ns, m)| m == tool || format!("{ns}__{m}") == tool)
        {
            return Found::Callable {
                name: member.clone(),
                namespace: Some(namespace.clone()),
            };
        }
        if let Some(name) = self.names.iter().find(|n| qualifies(n, tool)) {
            return Found::Callable {
                name: name.clone(),
                namespace: None,
            };
        }
        match self
            .deferred
            .iter()
            .find(|n| *n == tool || qualifies(n, tool))
        {
            Some(name) if self.search => Found::Deferred(name.clone()),
            _ => Found::Missing,
        }
    }
}

/// Whether `offered` is a host's qualified name for `tool`.
fn qualifies(offered: &str, tool: &str) -> bool {
    let claude = offered
        .strip_prefix("mcp__")
        .and_then(|rest| rest.strip_suffix(tool))
        .and_then(|server| server.strip_suffix("__"))
        .is_some_and(|server| !server.is_empty());
    let gemini = offered
        .strip_prefix("mcp_")
        .and_then(|rest| rest.strip_suffix(tool))
        .and_then(|server| server.strip_suffix('_'))
        .is_some_and(|server| !server.is_empty() && !server.starts_with('_'));
    claude || gemini
}

/// The model's search call for a deferred tool.
pub(super) fn search_input(name: &str) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert("query".into(), Value::from(format!("select:{name}")));
    input
}

/// Whether an Anthropic assistant message is a search turn of the model's own: tool calls,
/// all to [`SEARCH_TOOL`].
pub(super) fn is_search_turn(message: &Value) -> bool {
    let Some(blocks) = message.get("content").and_then(Value::as_array) else {
        return false;
    };
    let mut calls = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .peekable();
    calls.peek().is_some()
        && calls.all(|b| b.get("name").and_then(Value::as_str) == Some(SEARCH_TOOL))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_script_name_means_the_hosts_qualified_and_namespaced_forms() {
        let tools = [
            json!({"name": "Bash"}),
            json!({"name": "mcp__weather__get_weather"}),
            json!({"type": "namespace", "name": "mcp__forecast", "tools": [{"name": "daily"}]}),
            json!({"name": "mcp_gem_lookup"}),
        ];
        let offered = Offered::read(&json!({}), &tools);
        let call = |name: &str, ns: Option<&str>| Found::Callable {
            name: name.into(),
            namespace: ns.map(str::to_string),
        };
        assert_eq!(offered.find("Bash"), call("Bash", None));
        assert_eq!(
            offered.find("get_weather"),
            call("mcp__weather__get_weather", None)
        );
        assert_eq!(offered.find("daily"), call("daily", Some("mcp__forecast")));
        assert_eq!(
            offered.find("mcp__forecast__daily"),
            call("daily", Some("mcp__forecast"))
        );
        assert_eq!(offered.find("lookup"), call("mcp_gem_lookup", None));
        assert_eq!(offered.find("weather"), Found::Missing);
        assert_eq!(offered.find("et_weather"), Found::Missing);
    }

    #[test]
    fn deferred_tools_are_found_by_name_and_loaded_by_reference() {
        let text = "Intro\nThe following deferred tools are now available via ToolSearch. \
                    Use ToolSearch with query \"select:<name>\":\nWebFetch\n\
                    mcp__weather__get_weather\n\nAvailable agent types: x y";
        let tools = [
            json!({"name": "ToolSearch"}),
            json!({"name": "DeferredToolPlaceholder", "defer_loading": true}),
        ];
        let request = json!({"system": text});
        let offered = Offered::read(&request, &tools);
        assert_eq!(
            offered.deferred,
            [
                "DeferredToolPlaceholder",
                "WebFetch",
                "mcp__weather__get_weather"
            ]
        );
        assert_eq!(
            offered.find("get_weather"),
            Found::Deferred("mcp__weather__get_weather".into())
        );
        let loaded = [
            json!({"name": "ToolSearch"}),
            json!({"name": "mcp__weather__get_weather", "defer_loading": true}),
        ];
        let searched = json!({"system": text, "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [
                {"type": "tool_reference", "tool_name": "mcp__weather__get_weather"}]}]}]});
        let offered = Offered::read(&searched, &loaded);
        assert!(matches!(
            offered.find("get_weather"),
            Found::Callable { .. }
        ));
        let unreferenced = Offered::read(&json!({}), &loaded[1..]);
        assert_eq!(
            unreferenced.find("get_weather"),
            Found::Missing,
            "no search tool"
        );
    }
}
