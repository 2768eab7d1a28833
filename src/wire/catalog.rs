//! The tool catalog: which MCP tools the host shows the model, under which names, and why
//! some are not shown.
//!
//! This is where "why can't the model see my tool?" is decided in a real host: names the
//! provider rejects, collisions between servers, host-side filters. Sightline makes every
//! decision explicit and records it.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::api::ApiShape;
use super::convert;

/// When the host prefixes tool names with their server's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prefix {
    /// Only names that collide across servers (`server__tool`).
    #[default]
    OnCollision,
    Always,
    /// Never: the first server's tool wins a collision, the other is dropped.
    Never,
}

/// What the host does with a tool the provider would reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnInvalidTool {
    /// Drop that tool, keep the rest (most hosts).
    #[default]
    DropTool,
    /// Drop every tool of that server (hosts that validate a server's tools all or nothing).
    DropServer,
    /// Rename it to a valid name (replace invalid characters with `_`).
    Sanitize,
}

/// How the host decides: the part of a scenario's `[host]` table the catalog reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct CatalogOptions<'a> {
    pub prefix: Prefix,
    pub on_invalid_tool: OnInvalidTool,
    /// Tools the host will not show the model, as `server/tool` or `tool`.
    pub deny: &'a [String],
}

/// What happened to one tool a server listed.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Sent to the model under `api_name`.
    Sent,
    /// Not sent, and why.
    Dropped(String),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub server: String,
    pub mcp_name: String,
    /// The name the model sees (the MCP name, or prefixed, or sanitized).
    pub api_name: String,
    /// The `tools/list` entry as received.
    pub tool: Value,
    /// The entry of the LLM request's `tools` parameter, when sent.
    pub api_tool: Option<Value>,
    pub fate: Fate,
}

/// Every tool of every server, with its fate.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub entries: Vec<Entry>,
}

impl Catalog {
    /// Decides the fate of each tool. `servers` holds each server's name and `tools/list`.
    pub fn build(
        shape: ApiShape,
        servers: &[(String, Vec<Value>)],
        options: &CatalogOptions,
    ) -> Catalog {
        let mut count: HashMap<String, usize> = HashMap::new();
        for (_, tools) in servers {
            for tool in tools {
                *count.entry(tool_name(tool)).or_default() += 1;
            }
        }
        let mut entries = Vec::new();
        let mut taken: HashMap<String, String> = HashMap::new();
        for (server, tools) in servers {
            let mut server_entries = Vec::new();
            for tool in tools {
                let mcp_name = tool_name(tool);
                let collides = count.get(&mcp_name).copied().unwrap_or(0) > 1;
                let mut api_name = match options.prefix {
                    Prefix::Always => format!("{server}__{mcp_name}"),
                    Prefix::OnCollision if collides => format!("{server}__{mcp_name}"),
                    _ => mcp_name.clone(),
                };
                if options.on_invalid_tool == OnInvalidTool::Sanitize
                    && !convert::valid_name_for(shape, &api_name)
                {
                    api_name = convert::sanitize_name_for(shape, &api_name);
                }
                let mut entry = Entry {
                    server: server.clone(),
                    mcp_name: mcp_name.clone(),
                    api_name: api_name.clone(),
                    tool: tool.clone(),
                    api_tool: None,
                    fate: Fate::Sent,
                };
                if options
                    .deny
                    .iter()
                    .any(|d| *d == mcp_name || *d == format!("{server}/{mcp_name}"))
                {
                    entry.fate = Fate::Dropped("filtered by host configuration (`deny`)".into());
                } else if let Some(first) = taken.get(&api_name) {
                    entry.fate = Fate::Dropped(format!(
                        "name `{api_name}` is already taken by server `{first}` (the host does not prefix names)"
                    ));
                } else {
                    match convert::tool_to_api(shape, tool, &api_name) {
                        Ok(api_tool) => {
                            entry.api_tool = Some(api_tool);
                            taken.insert(api_name, server.clone());
                        }
                        Err(why) => entry.fate = Fate::Dropped(format!("{why}")),
                    }
                }
                server_entries.push(entry);
            }
            let rejected = server_entries
                .iter()
                .find(|e| matches!(&e.fate, Fate::Dropped(why) if !why.contains("deny") && !why.contains("already taken")))
                .map(|e| e.mcp_name.clone());
            if options.on_invalid_tool == OnInvalidTool::DropServer
                && let Some(bad) = rejected
            {
                for e in &mut server_entries {
                    if e.fate == Fate::Sent {
                        taken.remove(&e.api_name);
                        e.api_tool = None;
                        e.fate = Fate::Dropped(format!(
                            "the host drops every tool of server `{server}` because `{bad}` is invalid (all or nothing)"
                        ));
                    }
                }
            }
            entries.extend(server_entries);
        }
        Catalog { entries }
    }

    /// The LLM request's `tools` parameter.
    pub fn api_tools(&self) -> Vec<Value> {
        self.entries
            .iter()
            .filter_map(|e| e.api_tool.clone())
            .collect()
    }

    /// The tool the model called by `api_name`, if it was sent.
    pub fn resolve(&self, api_name: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.fate == Fate::Sent && e.api_name == api_name)
    }

    pub fn dropped(&self) -> impl Iterator<Item = (&Entry, &str)> {
        self.entries.iter().filter_map(|e| match &e.fate {
            Fate::Dropped(why) => Some((e, why.as_str())),
            Fate::Sent => None,
        })
    }
}

fn tool_name(tool: &Value) -> String {
    tool.get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
    }

    fn fates(c: &Catalog) -> Vec<(String, String, bool)> {
        c.entries
            .iter()
            .map(|e| (e.server.clone(), e.api_name.clone(), e.fate == Fate::Sent))
            .collect()
    }

    #[test]
    fn collisions_are_prefixed_and_invalid_names_dropped() {
        let servers = vec![
            (
                "weather".to_string(),
                vec![tool("get_weather"), tool("weather.lookup")],
            ),
            ("forecast".to_string(), vec![tool("get_weather")]),
        ];
        let c = Catalog::build(ApiShape::Anthropic, &servers, &CatalogOptions::default());
        assert_eq!(
            fates(&c),
            [
                ("weather".into(), "weather__get_weather".into(), true),
                ("weather".into(), "weather.lookup".into(), false),
                ("forecast".into(), "forecast__get_weather".into(), true),
            ]
        );
        assert_eq!(
            c.resolve("forecast__get_weather")
                .map(|e| e.mcp_name.as_str()),
            Some("get_weather")
        );
        assert_eq!(c.api_tools().len(), 2);
    }

    #[test]
    fn all_or_nothing_hosts_drop_the_whole_server() {
        let servers = vec![(
            "odd".to_string(),
            vec![tool("get_time"), tool("get forecast")],
        )];
        let options = CatalogOptions {
            on_invalid_tool: OnInvalidTool::DropServer,
            ..CatalogOptions::default()
        };
        let c = Catalog::build(ApiShape::Openai, &servers, &options);
        assert!(c.api_tools().is_empty());
        let never = CatalogOptions {
            prefix: Prefix::Never,
            ..CatalogOptions::default()
        };
        let two = vec![
            ("a".to_string(), vec![tool("t")]),
            ("b".to_string(), vec![tool("t")]),
        ];
        let c = Catalog::build(ApiShape::Openai, &two, &never);
        assert_eq!(
            fates(&c),
            [
                ("a".into(), "t".into(), true),
                ("b".into(), "t".into(), false)
            ]
        );
    }
}
