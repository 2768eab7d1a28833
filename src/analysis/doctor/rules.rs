//! The providers' rules the doctor checks beyond what the host's catalog enforces, and the fix
//! for each code.
//!
//! Limits, as the providers state them (checked 2026-11-29; see `docs/doctor.md` for sources):
//! - Tool names: Anthropic Messages and OpenAI (Responses, Chat Completions) all take
//!   `^[a-zA-Z0-9_-]{1,64}$` ([`API_NAME_PATTERN`]).
//! - OpenAI: at most [`OPENAI_MAX_TOOLS`] tools per request (Chat Completions reference: "A max
//!   of 128 functions are supported"; the API answers `array_above_max_length`), and a function
//!   `description` of at most [`OPENAI_MAX_DESCRIPTION_CHARS`] characters (the API answers
//!   `string_above_max_length`). Either refuses the whole request.
//! - Anthropic documents no limit on the number of tools or on description length.
//! - Every provider needs `input_schema` / `parameters` to be a valid JSON Schema of an
//!   object; a schema that does not compile is refused.
//!
//! Schemas are compiled with the `jsonschema` crate built without its network and file
//! resolvers, so a remote `$ref` is reported, never fetched.

use serde_json::Value;

use super::Code;
use crate::i18n::Said;
use crate::wire::api::ApiShape;
use crate::wire::convert::API_NAME_PATTERN;

/// The most tools OpenAI accepts in one request (Responses and Chat Completions).
pub const OPENAI_MAX_TOOLS: usize = 128;

/// The longest function `description` OpenAI accepts, in characters.
pub const OPENAI_MAX_DESCRIPTION_CHARS: usize = 1024;

/// When the limits above were last checked against the providers' documentation.
pub const LIMITS_CHECKED: &str = "2026-11-29";

/// The provider and API behind a shape, for people.
pub fn provider_name(shape: ApiShape) -> &'static str {
    match shape {
        ApiShape::Anthropic => "Anthropic (Messages API)",
        ApiShape::Openai => "OpenAI (Responses API)",
        ApiShape::OpenaiChat => "OpenAI (Chat Completions API)",
    }
}

/// The most tools one request may carry, when the provider has a limit.
pub fn max_tools(shape: ApiShape) -> Option<usize> {
    match shape {
        ApiShape::Anthropic => None,
        ApiShape::Openai | ApiShape::OpenaiChat => Some(OPENAI_MAX_TOOLS),
    }
}

/// The longest tool description the provider accepts, when it has a limit.
pub fn max_description_chars(shape: ApiShape) -> Option<usize> {
    match shape {
        ApiShape::Anthropic => None,
        ApiShape::Openai | ApiShape::OpenaiChat => Some(OPENAI_MAX_DESCRIPTION_CHARS),
    }
}

/// What every provider allows as a tool name, in words.
pub fn name_rule() -> Said {
    Said::new("doctor_detail.name_rule").with("pattern", API_NAME_PATTERN)
}

/// Why `schema` is not a valid JSON Schema (compiled offline, draft from `$schema`, else
/// 2020-12 as MCP says), or `None`.
pub fn schema_problem(schema: &Value) -> Option<String> {
    let error = jsonschema::options().build(schema).err()?;
    // Checking a schema is validating it against its meta-schema: the instance path is the
    // place in the tool's schema.
    let at = error.instance_path().to_string();
    let at = if at.is_empty() { "/".to_string() } else { at };
    Some(format!("{error} (at {at})"))
}

/// A problem the provider would refuse the tool for that the host's catalog does not check:
/// an invalid schema or too long a description.
pub fn tool_problem(shape: ApiShape, tool: &Value) -> Option<(Code, Said)> {
    if let Some(schema) = tool.get("inputSchema")
        && let Some(problem) = schema_problem(schema)
    {
        return Some((
            Code::SchemaInvalid,
            Said::new("doctor_detail.schema_invalid").with("problem", problem),
        ));
    }
    let max = max_description_chars(shape)?;
    let chars = tool
        .get("description")
        .and_then(Value::as_str)
        .map_or(0, |d| d.chars().count());
    (chars > max).then(|| {
        (
            Code::ProviderLimit,
            Said::new("doctor_detail.description_long")
                .with("chars", chars)
                .with("provider", provider_name(shape))
                .with("max", max),
        )
    })
}

/// The code for a host's reason for dropping a tool (the text of its `note`, or of a
/// [`crate::wire::catalog::Fate::Dropped`]).
pub fn classify_drop(why: &str) -> Code {
    if why.contains("`deny`") || why.contains("filtered") {
        Code::HostFiltered
    } else if why.contains("all or nothing") || why.contains("drops every tool") {
        Code::ServerDropped
    } else if why.contains("already taken") {
        Code::DuplicateName
    } else if why.contains("provider pattern") || why.contains("tool name") {
        Code::NameRejected
    } else if why.contains("inputSchema") {
        Code::SchemaNotObject
    } else {
        Code::HostFiltered
    }
}

/// A JSON value for people: strings without their quotes.
pub fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The generic fix for a code; findings about one tool add its specifics.
pub fn hint(code: Code, server: &str) -> String {
    match code {
        // Nothing to fix: the detail says whether the model called it.
        Code::VisibleCalled | Code::VisibleNotCalled => String::new(),
        Code::ServerFailedToStart => format!(
            "check the command of server `{server}`: is it installed, on PATH, executable, and \
             is the working directory right?"
        ),
        Code::ServerCrashed => format!(
            "run server `{server}`'s command by hand and read its stderr; fix what makes it exit"
        ),
        Code::HandshakeFailed => format!(
            "server `{server}` must answer initialize (2025-11-25) or server/discover \
             (2026-07-28) with a result; see its error and stderr"
        ),
        Code::ProtocolVersionRefused => format!(
            "use a host and server `{server}` that share a protocol revision: upgrade the older \
             side, or pick the version with `--protocol`"
        ),
        Code::NoToolsCapability => format!(
            "server `{server}` must declare `capabilities.tools` (`{{}}` is enough) in its \
             handshake result; SDKs do this when a tool is registered before connecting"
        ),
        Code::ToolsListNeverSent => {
            "the host never asked for tools: check that it enables this server and that it \
             lists tools after connecting (some hosts only list on start: restart it)"
                .into()
        }
        Code::ToolsListError => format!(
            "server `{server}` must answer tools/list with {{\"tools\": [...]}}; see its error \
             and stderr"
        ),
        Code::NameRejected => {
            "rename the tool on the server to match ^[a-zA-Z0-9_-]{1,64}$, or use a host that \
             sanitizes names"
                .into()
        }
        Code::DuplicateName => {
            "give the tools distinct names, or use a host that prefixes colliding names with \
             the server's name"
                .into()
        }
        Code::SchemaNotObject => {
            "declare inputSchema as {\"type\": \"object\", \"properties\": {...}}; wrap a \
             single value in a property"
                .into()
        }
        Code::SchemaInvalid => {
            "make inputSchema valid against its meta-schema (draft 2020-12 unless $schema says \
             otherwise); a provider refuses the whole request for one invalid schema"
                .into()
        }
        Code::ProviderLimit => {
            "offer fewer tools (disable servers or tools in the host) and keep descriptions \
             short"
                .into()
        }
        Code::StaleList => {
            "the host must send tools/list again after notifications/tools/list_changed; \
             until it does, restart the session to pick up the new list"
                .into()
        }
        Code::HostFiltered => {
            "the host's configuration hides it: remove it from the host's deny list or enable \
             it in the host's tool settings"
                .into()
        }
        Code::ServerDropped => format!(
            "fix the invalid tool of server `{server}` (see its finding), or use a host that \
             drops only the invalid tool"
        ),
        Code::ExpectedNotListed => {
            "check the spelling, and that the server that should offer it is configured and \
             registers it before it answers tools/list"
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schemas_compile_offline() {
        assert_eq!(schema_problem(&json!({"type": "object"})), None);
        assert_eq!(
            schema_problem(&json!({
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "$schema": "http://json-schema.org/draft-07/schema#"
            })),
            None
        );
        let bad = schema_problem(&json!({"type": "object", "properties": {"a": {"type": 12}}}));
        assert!(
            bad.is_some_and(|p| p.contains("properties")),
            "names the place"
        );
        // A remote reference is reported, not fetched.
        let remote = json!({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s.json"}}});
        assert!(schema_problem(&remote).is_some());
    }

    #[test]
    fn openai_limits_descriptions_anthropic_does_not() {
        let tool = json!({"name": "t", "description": "x".repeat(1025), "inputSchema": {"type": "object"}});
        assert_eq!(tool_problem(ApiShape::Anthropic, &tool), None);
        for shape in [ApiShape::Openai, ApiShape::OpenaiChat] {
            let (code, _) = tool_problem(shape, &tool).expect("too long");
            assert_eq!(code, Code::ProviderLimit);
        }
    }

    #[test]
    fn host_notes_classify() {
        let cases = [
            (
                "filtered by host configuration (`deny`)",
                Code::HostFiltered,
            ),
            (
                "the host drops every tool of server `o` because `a.b` is invalid (all or nothing)",
                Code::ServerDropped,
            ),
            (
                "name `t` is already taken by server `a` (the host does not prefix names)",
                Code::DuplicateName,
            ),
            (
                "tool name \"a.b\" does not match the provider pattern ^[a-zA-Z0-9_-]{1,64}$: x",
                Code::NameRejected,
            ),
            ("the tool has no inputSchema", Code::SchemaNotObject),
        ];
        for (why, code) in cases {
            assert_eq!(classify_drop(why), code, "{why}");
        }
    }
}
