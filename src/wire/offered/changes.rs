//! What a host changed between a server's `tools/list` entry and the definition the model got:
//! the name (`mcp__weather__get_weather`), the description (cut, rewritten, left out), and the
//! schema (properties added, as Gemini CLI adds `wait_for_previous`; keywords stripped, as
//! Gemini CLI and Codex strip `additionalProperties` or `$schema`).

use serde_json::Value;

/// One difference, the schema's by JSON pointer (`/properties/wait_for_previous`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Renamed {
        from: String,
        to: String,
    },
    /// The model got a prefix of the server's description: characters before and after.
    DescriptionCut {
        from: usize,
        to: usize,
    },
    DescriptionChanged {
        from: usize,
        to: usize,
    },
    DescriptionDropped,
    /// In the model's schema, not the server's.
    Added(String),
    /// In the server's schema, not the model's.
    Removed(String),
    /// In both, with other values.
    Changed(String),
}

/// The definition of the tool the model calls `name` within a `tools` entry: a namespace's or
/// a Gemini declaration list's member, a Chat entry's `function`, or the entry itself.
pub fn definition<'a>(entry: &'a Value, name: &str) -> Option<&'a Value> {
    let named = |list: &'a Value| {
        list.as_array()?
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    };
    if let Some(list) = entry
        .get("tools")
        .or_else(|| entry.get("functionDeclarations"))
        .or_else(|| entry.get("function_declarations"))
    {
        return named(list);
    }
    Some(
        entry
            .get("function")
            .filter(|f| f.is_object())
            .unwrap_or(entry),
    )
}

fn schema_of(definition: &Value) -> Option<&Value> {
    [
        "inputSchema",
        "input_schema",
        "parameters",
        "parametersJsonSchema",
    ]
    .iter()
    .find_map(|k| definition.get(*k))
}

/// The changes from the server's `tool` to the model's `sent` definition (`None`: the model
/// got the name only), seen under `api_name`.
pub fn changes(tool: &Value, sent: Option<&Value>, api_name: &str) -> Vec<Change> {
    let mut out = Vec::new();
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    if name != api_name {
        out.push(Change::Renamed {
            from: name.to_string(),
            to: api_name.to_string(),
        });
    }
    let Some(sent) = sent else { return out };
    let description = |v: &Value| {
        v.get("description")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (description(tool), description(sent)) {
        (Some(a), None) if !a.is_empty() => out.push(Change::DescriptionDropped),
        (Some(a), Some(b)) if a != b => {
            let (from, to) = (a.chars().count(), b.chars().count());
            out.push(
                match a.starts_with(b.trim_end_matches(['.', '…'])) && to < from {
                    true => Change::DescriptionCut { from, to },
                    false => Change::DescriptionChanged { from, to },
                },
            );
        }
        _ => {}
    }
    if let (Some(a), Some(b)) = (schema_of(tool), schema_of(sent)) {
        diff("", a, b, &mut out);
    }
    out
}

fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<Change>) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let at = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                match b.get(k) {
                    Some(w) => diff(&at, v, w, out),
                    None => out.push(Change::Removed(at)),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(Change::Added(format!(
                    "{path}/{}",
                    k.replace('~', "~0").replace('/', "~1")
                )));
            }
        }
        _ if a != b => out.push(Change::Changed(if path.is_empty() {
            "/".into()
        } else {
            path.to_string()
        })),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hosts_changes_are_named() {
        let tool = json!({"name": "get_weather", "description": "Get current weather information for a location",
            "inputSchema": {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
                            "properties": {"location": {"type": "string"}}, "additionalProperties": false}});
        // Gemini CLI: renamed, `wait_for_previous` added, keywords stripped.
        let gemini = json!({"functionDeclarations": [{"name": "mcp_weather_get_weather",
            "description": "Get current weather information for a location",
            "parametersJsonSchema": {"type": "object", "properties": {"location": {"type": "string"},
                                     "wait_for_previous": {"type": "boolean"}}}}]});
        let sent = definition(&gemini, "mcp_weather_get_weather");
        assert_eq!(
            changes(&tool, sent, "mcp_weather_get_weather"),
            [
                Change::Renamed {
                    from: "get_weather".into(),
                    to: "mcp_weather_get_weather".into()
                },
                Change::Removed("/$schema".into()),
                Change::Added("/properties/wait_for_previous".into()),
                Change::Removed("/additionalProperties".into()),
            ]
        );
        // A namespace member with the description cut, a Chat entry unchanged.
        let codex = json!({"type": "namespace", "name": "mcp__weather", "tools": [
            {"type": "function", "name": "get_weather", "description": "Get current weather",
             "parameters": tool["inputSchema"]}]});
        assert_eq!(
            changes(&tool, definition(&codex, "get_weather"), "get_weather"),
            [Change::DescriptionCut { from: 46, to: 19 }]
        );
        let chat = json!({"type": "function", "function": {"name": "get_weather",
            "description": tool["description"], "parameters": tool["inputSchema"]}});
        assert!(changes(&tool, definition(&chat, "get_weather"), "get_weather").is_empty());
        assert_eq!(changes(&tool, None, "get_weather"), []);
    }
}
