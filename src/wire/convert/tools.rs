//! Tool definitions: an MCP `tools/list` entry becomes one entry of the provider's `tools`.
//!
//! The four shapes carry the same three things under different names: the name, the optional
//! description and the JSON Schema of the arguments (`input_schema` for Anthropic, `parameters`
//! for OpenAI, nested under `function` for Chat Completions, `parametersJsonSchema` for a
//! Gemini function declaration). The schema is copied as is, `$schema` included, as the MCP
//! SDKs send it. MCP `title`, `outputSchema`, `annotations`, `icons` and `_meta` have no place
//! in any of them and are dropped.
//!
//! Gemini nests one level deeper: the `tools` parameter is a list of tool objects, and the
//! functions are the `functionDeclarations` of one of them. [`tool_to_api`] gives a declaration
//! (what the model sees of one MCP tool, as for the other shapes);
//! [`request_body`](super::request_body) wraps them. Gemini also takes the older `parameters`
//! field (an OpenAPI 3.0 subset of JSON Schema); `parametersJsonSchema` takes JSON Schema as MCP
//! writes it, and is what Gemini CLI sends for MCP tools.
//!
//! Names are where the two worlds disagree: MCP allows any string, the providers only
//! `^[a-zA-Z0-9_-]{1,64}$` (Gemini: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`, a dot or colon allowed
//! but not a leading digit). A name outside the pattern is rejected by the API for the whole
//! request, which is why some hosts drop such tools and others sanitize the name.

use serde_json::{Map, Value};

use super::json_kind;
use crate::wire::api::ApiShape;

/// The tool-name pattern the three APIs enforce (some providers now allow 128 characters;
/// Sightline keeps to the limit they all share).
pub const API_NAME_PATTERN: &str = "^[a-zA-Z0-9_-]{1,64}$";

/// The longest tool name every provider accepts.
pub const API_NAME_MAX_LEN: usize = 64;

/// The function-name pattern of the Gemini API: a letter or `_` first, then letters, digits,
/// `_`, `.`, `:` or `-`, 64 characters in all (Gemini API function-declaration reference and
/// its 400 error text; older documentation said 63).
pub const GEMINI_NAME_PATTERN: &str = "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$";

/// The tool-name pattern `shape`'s API enforces.
pub fn name_pattern(shape: ApiShape) -> &'static str {
    match shape {
        ApiShape::Gemini => GEMINI_NAME_PATTERN,
        ApiShape::Anthropic | ApiShape::Openai | ApiShape::OpenaiChat => API_NAME_PATTERN,
    }
}

/// Why an MCP tool cannot be offered to the model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolRejected {
    /// The name the model would see does not match the shape's pattern ([`name_pattern`]).
    #[error("tool name {name:?} does not match the provider pattern {pattern}: {problem}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// The pattern it fails ([`API_NAME_PATTERN`] or [`GEMINI_NAME_PATTERN`]).
        pattern: &'static str,
        /// What is wrong with it ("character '.' at position 3 is not allowed").
        problem: String,
    },
    /// The tool has no `inputSchema` (required by MCP; every API needs a schema).
    #[error("the tool has no inputSchema")]
    MissingInputSchema,
    /// `inputSchema` is not a JSON object.
    #[error("inputSchema is {found}, not a JSON Schema object")]
    SchemaNotAnObject {
        /// The JSON type found ("an array", "a string").
        found: &'static str,
    },
    /// `inputSchema` is an object whose `type` is not `"object"`: the APIs take only object
    /// schemas, since the arguments of a call are an object.
    #[error("inputSchema has {}, but the APIs accept only \"type\": \"object\"", describe_type(.found))]
    NotObjectSchema {
        /// The `type` found, if there is one.
        found: Option<Value>,
    },
}

fn describe_type(found: &Option<Value>) -> String {
    match found {
        Some(value) => format!("\"type\": {value}"),
        None => "no \"type\"".to_string(),
    }
}

/// MCP tool (a `tools/list` entry) → one entry of the provider's `tools` parameter, or why it
/// cannot be sent.
///
/// - Anthropic: `{name, description, input_schema}`
/// - Responses: `{type: "function", name, description, parameters}`
/// - Chat: `{type: "function", function: {name, description, parameters}}`
/// - Gemini: one function declaration `{name, description, parametersJsonSchema}`
///
/// `api_name` is the name the model sees (the host may have prefixed or sanitized the MCP name);
/// calls come back under it. `description` is left out when the tool has none (or a non-string
/// one): all four APIs make it optional. The schema is copied unchanged.
pub fn tool_to_api(shape: ApiShape, tool: &Value, api_name: &str) -> Result<Value, ToolRejected> {
    if let Some(problem) = name_problem_for(shape, api_name) {
        return Err(ToolRejected::InvalidName {
            name: api_name.to_string(),
            pattern: name_pattern(shape),
            problem,
        });
    }
    let schema = object_schema(tool)?;
    let description = tool.get("description").and_then(Value::as_str);

    // The function fields, in the order the MCP SDK demo prints them.
    let function = |schema_key: &str| {
        let mut fields = Map::new();
        fields.insert("name".into(), api_name.into());
        if let Some(description) = description {
            fields.insert("description".into(), description.into());
        }
        fields.insert(schema_key.into(), schema.clone());
        fields
    };
    let entry = match shape {
        ApiShape::Anthropic => function("input_schema"),
        ApiShape::Openai => {
            let mut entry = Map::new();
            entry.insert("type".into(), "function".into());
            entry.extend(function("parameters"));
            entry
        }
        ApiShape::OpenaiChat => {
            let mut entry = Map::new();
            entry.insert("type".into(), "function".into());
            entry.insert("function".into(), Value::Object(function("parameters")));
            entry
        }
        ApiShape::Gemini => function("parametersJsonSchema"),
    };
    Ok(Value::Object(entry))
}

/// The tool's `inputSchema`, if it is an object schema.
fn object_schema(tool: &Value) -> Result<&Value, ToolRejected> {
    let schema = tool
        .get("inputSchema")
        .ok_or(ToolRejected::MissingInputSchema)?;
    if !schema.is_object() {
        return Err(ToolRejected::SchemaNotAnObject {
            found: json_kind(schema),
        });
    }
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "object" => Ok(schema),
        found => Err(ToolRejected::NotObjectSchema {
            found: found.cloned(),
        }),
    }
}

/// Whether the providers accept `name` as a tool name ([`API_NAME_PATTERN`]).
pub fn valid_api_name(name: &str) -> bool {
    name_problem(name).is_none()
}

/// Whether `shape`'s API accepts `name` as a tool name ([`name_pattern`]).
pub fn valid_name_for(shape: ApiShape, name: &str) -> bool {
    name_problem_for(shape, name).is_none()
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The characters a Gemini function name may hold.
fn gemini_allowed(c: char) -> bool {
    allowed(c) || c == '.' || c == ':'
}

/// What keeps `name` from matching [`API_NAME_PATTERN`], in words; `None` when it matches.
fn name_problem(name: &str) -> Option<String> {
    name_problem_for(ApiShape::Anthropic, name)
}

/// What keeps `name` from matching `shape`'s [`name_pattern`], in words; `None` when it
/// matches.
fn name_problem_for(shape: ApiShape, name: &str) -> Option<String> {
    let gemini = shape == ApiShape::Gemini;
    if name.is_empty() {
        return Some("it is empty".to_string());
    }
    let ok = |c: char| {
        if gemini {
            gemini_allowed(c)
        } else {
            allowed(c)
        }
    };
    if let Some((position, c)) = name.chars().enumerate().find(|(_, c)| !ok(*c)) {
        return Some(format!(
            "character {c:?} at position {position} is not allowed"
        ));
    }
    if gemini
        && let Some(first) = name
            .chars()
            .next()
            .filter(|c| !c.is_ascii_alphabetic() && *c != '_')
    {
        return Some(format!("it starts with {first:?}, not a letter or '_'"));
    }
    // Only ASCII is left, so bytes are characters.
    (name.len() > API_NAME_MAX_LEN).then(|| {
        format!(
            "it is {} characters long, at most {API_NAME_MAX_LEN} are allowed",
            name.len()
        )
    })
}

/// Turns an MCP tool name into one the providers accept: every character outside
/// `[a-zA-Z0-9_-]` becomes `_` (one `_` per character, so `é` gives one `_`), and the result is
/// cut to 64 characters. An empty name becomes `_`. Distinct MCP names can collide once
/// sanitized (`a.b` and `a/b`); detecting that is the caller's job.
pub fn sanitize_name(name: &str) -> String {
    let sanitized: String = name
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .take(API_NAME_MAX_LEN)
        .collect();
    if sanitized.is_empty() {
        "_".to_string()
    } else {
        sanitized
    }
}

/// [`sanitize_name`] by `shape`'s rule: for Gemini, `.` and `:` are kept, and a name that does
/// not start with a letter or `_` gets a `_` in front (Gemini CLI does the same, then cuts);
/// the result is cut to 64 characters.
pub fn sanitize_name_for(shape: ApiShape, name: &str) -> String {
    if shape != ApiShape::Gemini {
        return sanitize_name(name);
    }
    let mut sanitized: String = name
        .chars()
        .map(|c| if gemini_allowed(c) { c } else { '_' })
        .collect();
    if !sanitized.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        sanitized.insert(0, '_');
    }
    sanitized.chars().take(API_NAME_MAX_LEN).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::convert::golden;

    /// The seed article's `get_weather`, as the MCP TypeScript SDK lists it.
    fn get_weather() -> Value {
        json!({
            "name": "get_weather",
            "description": "Get current weather information for a location",
            "inputSchema": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
                "$schema": "http://json-schema.org/draft-07/schema#"
            }
        })
    }

    #[test]
    fn seed_article_anthropic_line_is_reproduced() {
        let (line, expected) = golden::seed_line("anthropic: ");
        let got = tool_to_api(ApiShape::Anthropic, &get_weather(), "get_weather").unwrap();
        assert_eq!(got, expected);
        // Same key order as the SDK demo, so even the bytes match.
        assert_eq!(serde_json::to_string(&got).unwrap(), line);
    }

    #[test]
    fn seed_article_openai_line_is_reproduced() {
        let (line, expected) = golden::seed_line("openai: ");
        let got = tool_to_api(ApiShape::Openai, &get_weather(), "get_weather").unwrap();
        assert_eq!(got, expected);
        assert_eq!(serde_json::to_string(&got).unwrap(), line);
    }

    #[test]
    fn chat_shape_nests_the_function() {
        let got = tool_to_api(ApiShape::OpenaiChat, &get_weather(), "get_weather").unwrap();
        assert_eq!(
            got,
            json!({
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Get current weather information for a location",
                    "parameters": {
                        "type": "object",
                        "properties": {"location": {"type": "string"}},
                        "required": ["location"],
                        "$schema": "http://json-schema.org/draft-07/schema#"
                    }
                }
            })
        );
    }

    #[test]
    fn api_name_replaces_the_mcp_name_and_missing_description_is_omitted() {
        let tool = json!({
            "name": "weather.get",
            "inputSchema": {"type": "object"},
            "title": "Weather",
            "annotations": {"readOnlyHint": true},
            "_meta": {"x": 1}
        });
        let expected = [
            json!({"name": "weather__get", "input_schema": {"type": "object"}}),
            json!({"type": "function", "name": "weather__get", "parameters": {"type": "object"}}),
            json!({"type": "function", "function": {"name": "weather__get", "parameters": {"type": "object"}}}),
            json!({"name": "weather__get", "parametersJsonSchema": {"type": "object"}}),
        ];
        for (shape, expected) in ApiShape::ALL.into_iter().zip(expected) {
            assert_eq!(tool_to_api(shape, &tool, "weather__get").unwrap(), expected);
        }
    }

    #[test]
    fn invalid_api_name_is_rejected_with_the_pattern() {
        let err = tool_to_api(ApiShape::Anthropic, &get_weather(), "weather.get").unwrap_err();
        assert_eq!(
            err,
            ToolRejected::InvalidName {
                name: "weather.get".into(),
                pattern: API_NAME_PATTERN,
                problem: "character '.' at position 7 is not allowed".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "tool name \"weather.get\" does not match the provider pattern \
             ^[a-zA-Z0-9_-]{1,64}$: character '.' at position 7 is not allowed"
        );
    }

    #[test]
    fn schema_problems_are_rejected() {
        let cases = [
            (json!({"name": "t"}), ToolRejected::MissingInputSchema),
            (
                json!({"name": "t", "inputSchema": "object"}),
                ToolRejected::SchemaNotAnObject { found: "a string" },
            ),
            (
                json!({"name": "t", "inputSchema": {"type": "array"}}),
                ToolRejected::NotObjectSchema {
                    found: Some(json!("array")),
                },
            ),
            (
                json!({"name": "t", "inputSchema": {"properties": {}}}),
                ToolRejected::NotObjectSchema { found: None },
            ),
            (json!("not a tool"), ToolRejected::MissingInputSchema),
        ];
        for (tool, expected) in cases {
            for shape in ApiShape::ALL {
                assert_eq!(tool_to_api(shape, &tool, "t"), Err(expected.clone()));
            }
        }
        assert_eq!(
            ToolRejected::NotObjectSchema {
                found: Some(json!("array"))
            }
            .to_string(),
            "inputSchema has \"type\": \"array\", but the APIs accept only \"type\": \"object\""
        );
        assert_eq!(
            ToolRejected::NotObjectSchema { found: None }.to_string(),
            "inputSchema has no \"type\", but the APIs accept only \"type\": \"object\""
        );
    }

    #[test]
    fn name_validation() {
        let max = "a".repeat(64);
        let too_long = "a".repeat(65);
        for good in ["get_weather", "get-weather", "A1", "_", max.as_str()] {
            assert!(valid_api_name(good), "{good} should be valid");
        }
        let bad = [
            ("fs.read_file", "character '.' at position 2 is not allowed"),
            (
                "github/create_issue",
                "character '/' at position 6 is not allowed",
            ),
            ("get weather", "character ' ' at position 3 is not allowed"),
            ("météo", "character 'é' at position 1 is not allowed"),
            ("", "it is empty"),
            (
                too_long.as_str(),
                "it is 65 characters long, at most 64 are allowed",
            ),
        ];
        for (name, problem) in bad {
            assert!(!valid_api_name(name), "{name} should be invalid");
            assert_eq!(name_problem(name).as_deref(), Some(problem));
        }
    }

    /// Gemini: a dot or a colon is fine, a leading digit is not; the schema goes under
    /// `parametersJsonSchema`, unchanged.
    #[test]
    fn gemini_declarations_and_names() {
        let got = tool_to_api(ApiShape::Gemini, &get_weather(), "get_weather").unwrap();
        assert_eq!(
            got,
            json!({
                "name": "get_weather",
                "description": "Get current weather information for a location",
                "parametersJsonSchema": get_weather()["inputSchema"],
            })
        );
        let g = ApiShape::Gemini;
        for good in [
            "weather.get",
            "ns:tool",
            "_x",
            "a-b",
            "a".repeat(64).as_str(),
        ] {
            assert!(valid_name_for(g, good), "{good}");
        }
        let bad = [
            ("1tool", "it starts with '1', not a letter or '_'"),
            ("-x", "it starts with '-', not a letter or '_'"),
            ("a b", "character ' ' at position 1 is not allowed"),
            ("a/b", "character '/' at position 1 is not allowed"),
            ("", "it is empty"),
        ];
        for (name, problem) in bad {
            assert_eq!(
                name_problem_for(g, name).as_deref(),
                Some(problem),
                "{name}"
            );
        }
        let err = tool_to_api(g, &get_weather(), "21st_magic").unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool name \"21st_magic\" does not match the provider pattern \
             ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$: it starts with '2', not a letter or '_'"
        );
        assert_eq!(sanitize_name_for(g, "21st magic/x.y"), "_21st_magic_x.y");
        assert_eq!(sanitize_name_for(g, &"b".repeat(70)), "b".repeat(64));
        assert_eq!(sanitize_name_for(ApiShape::Openai, "a.b"), "a_b");
        for name in ["9", "", "é", "a.b:c", "-"] {
            assert!(valid_name_for(g, &sanitize_name_for(g, name)), "{name}");
        }
    }

    #[test]
    fn sanitize_replaces_and_truncates() {
        assert_eq!(sanitize_name("fs.read_file"), "fs_read_file");
        assert_eq!(sanitize_name("github/create issue"), "github_create_issue");
        assert_eq!(sanitize_name("météo"), "m_t_o");
        assert_eq!(sanitize_name(""), "_");
        assert_eq!(sanitize_name("get_weather"), "get_weather");
        let long = format!("{}.x", "a".repeat(70));
        assert_eq!(sanitize_name(&long), "a".repeat(64));
        for name in ["fs.read_file", "météo", "", long.as_str(), "a b/c.d"] {
            assert!(valid_api_name(&sanitize_name(name)));
        }
    }
}
