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
//! - Gemini: function names `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`
//!   ([`GEMINI_NAME_PATTERN`](crate::wire::convert::GEMINI_NAME_PATTERN)), at most
//!   [`GEMINI_MAX_TOOLS`] declarations per request; no description limit is documented. Both
//!   from the API's own 400 messages as reported in issues (medium confidence), see the
//!   constant.
//! - Every provider needs `input_schema` / `parameters` to be a valid JSON Schema of an
//!   object; a schema that does not compile is refused.
//!
//! Schemas are compiled with the `jsonschema` crate built without its network and file
//! resolvers, so a remote `$ref` is reported, never fetched.

use serde_json::Value;

use super::Code;
use crate::analysis::conformance::DRAFT_07;
use crate::i18n::Said;
use crate::wire::api::ApiShape;
use crate::wire::convert::API_NAME_PATTERN;

/// The most tools OpenAI accepts in one request (Responses and Chat Completions).
pub const OPENAI_MAX_TOOLS: usize = 128;

/// The most function declarations the Gemini API accepts in one request: 512 (the API's 400
/// error text and Gemini CLI's issues #19083, #25440; older Vertex AI reference pages said 128,
/// earlier 64). Confidence medium: several consistent reports, not a stated limit in the
/// Gemini API reference (`../shared/notes/host-rules.md`, 2026-12-06).
pub const GEMINI_MAX_TOOLS: usize = 512;

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
        ApiShape::Gemini => "Google (Gemini API)",
    }
}

/// The most tools one request may carry, when the provider has a limit.
pub fn max_tools(shape: ApiShape) -> Option<usize> {
    match shape {
        ApiShape::Anthropic => None,
        ApiShape::Openai | ApiShape::OpenaiChat => Some(OPENAI_MAX_TOOLS),
        ApiShape::Gemini => Some(GEMINI_MAX_TOOLS),
    }
}

/// The longest tool description the provider accepts, when it has a limit.
pub fn max_description_chars(shape: ApiShape) -> Option<usize> {
    match shape {
        ApiShape::Anthropic | ApiShape::Gemini => None,
        ApiShape::Openai | ApiShape::OpenaiChat => Some(OPENAI_MAX_DESCRIPTION_CHARS),
    }
}

/// What `shape`'s provider allows as a tool name, in words: the rule Anthropic and OpenAI
/// share, or Gemini's.
pub fn name_rule(shape: ApiShape) -> Said {
    match shape {
        ApiShape::Gemini => Said::new("doctor_detail.name_rule_gemini")
            .with("pattern", crate::wire::convert::GEMINI_NAME_PATTERN),
        ApiShape::Anthropic | ApiShape::Openai | ApiShape::OpenaiChat => {
            Said::new("doctor_detail.name_rule").with("pattern", API_NAME_PATTERN)
        }
    }
}

/// Why `schema` is not a valid JSON Schema (compiled offline, draft from `$schema`, else
/// 2020-12 as MCP says), or `None`.
///
/// `jsonschema::options().build` checks a schema against its meta-schema with a validator it
/// builds anew on every call in the browser (and, natively, beside a registry of the draft's
/// meta-schemas it prepares each time): that was most of a step of the doctor's verdicts. A
/// schema that passes [`fast_check`] is valid; anything else is judged by `build` as before,
/// so the words of a problem are the same.
pub fn schema_problem(schema: &Value) -> Option<Said> {
    if fast_check(schema) {
        return None;
    }
    let error = jsonschema::options().build(schema).err()?;
    // Checking a schema is validating it against its meta-schema: the instance path is the
    // place in the tool's schema.
    Some(crate::analysis::conformance::words::said_at(&error))
}

/// Compiles, once a process, what [`schema_problem`] checks every schema with (the crate's
/// cached meta-validators): called where the doctor's verdicts build their catalog, a step of
/// its own where the browser spreads them over frames, so the first tool judged does not
/// pay for it.
pub fn prepare_schema_check() {
    static PREPARED: std::sync::Once = std::sync::Once::new();
    PREPARED.call_once(|| {
        let _ = fast_check(&serde_json::json!({ "type": "object" }));
    });
}

/// The base URI `build` gives a schema without `$id`, so relative references resolve alike.
const DEFAULT_BASE: &str = "json-schema:///";

/// Whether `schema` is certainly valid: checked against its meta-schema by the crate's cached
/// validator, then compiled behind a one-line draft-07 schema that refers to it, which is the
/// only document checked against a meta-schema on the way (draft-07's, one small document).
/// A schema that declares `$schema` below its root is left to `build` (each embedded resource
/// is checked against its own meta-schema there), and so is any failure.
fn fast_check(schema: &Value) -> bool {
    fn nested_dialect(v: &Value) -> bool {
        match v {
            Value::Object(map) => map
                .iter()
                .any(|(k, child)| k == "$schema" || nested_dialect(child)),
            Value::Array(items) => items.iter().any(nested_dialect),
            _ => false,
        }
    }
    let Some(map) = schema.as_object() else {
        return false;
    };
    if map.values().any(nested_dialect)
        || jsonschema::meta::validate_for::<jsonschema::json::SerdeJson>(schema).is_err()
    {
        return false;
    }
    let resource = jsonschema::Resource::from_contents(schema.clone());
    let Ok(registry) = jsonschema::Registry::new()
        .add(DEFAULT_BASE, resource)
        .and_then(|r| r.prepare())
    else {
        return false;
    };
    let mut root = serde_json::Map::new();
    root.insert("$schema".into(), DRAFT_07.into());
    root.insert("$ref".into(), DEFAULT_BASE.into());
    jsonschema::options()
        .with_base_uri("json-schema:///sightline-root")
        .with_registry(&registry)
        .build(&Value::Object(root))
        .is_ok()
}

/// A problem the provider would refuse the tool for that the host's catalog does not check:
/// an invalid schema or too long a description.
pub fn tool_problem(shape: ApiShape, tool: &Value) -> Option<(Code, Said)> {
    if let Some(schema) = tool.get("inputSchema")
        && let Some(problem) = schema_problem(schema)
    {
        return Some((
            Code::SchemaInvalid,
            Said::new("doctor_detail.schema_invalid").with_said("problem", problem),
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

/// The generic fix for a code (`doctor_hint.*`, with the server's name); findings about one
/// tool add their specifics ([`tool_hint`]). Nothing for a visible tool: the detail says
/// whether the model called it.
pub fn hint(code: Code, server: &str) -> Said {
    let key = match code {
        Code::VisibleCalled | Code::VisibleNotCalled | Code::VisibleOnDemand => {
            return Said::empty();
        }
        Code::RenamedByHost => "doctor_hint.renamed_by_host",
        Code::DescriptionCut => "doctor_hint.description_cut",
        Code::HiddenByCap => "doctor_hint.hidden_by_cap",
        Code::TooSlowToStart => "doctor_hint.too_slow_to_start",
        Code::SchemaRefused => "doctor_hint.schema_refused",
        Code::PageNotRead => "doctor_host.hint_pages",
        Code::ServerFailedToStart => "doctor_hint.server_failed_to_start",
        Code::ServerCrashed => "doctor_hint.server_crashed",
        Code::HandshakeFailed => "doctor_hint.handshake_failed",
        Code::ProtocolVersionRefused => "doctor_hint.protocol_version_refused",
        Code::NoToolsCapability => "doctor_hint.no_tools_capability",
        Code::ToolsListNeverSent => "doctor_hint.tools_list_never_sent",
        Code::ToolsListError => "doctor_hint.tools_list_error",
        Code::NameRejected => "doctor_hint.name_rejected",
        Code::DuplicateName => "doctor_hint.duplicate_name",
        Code::SchemaNotObject => "doctor_hint.schema_not_object",
        Code::SchemaInvalid => "doctor_hint.schema_invalid",
        Code::ProviderLimit => "doctor_hint.provider_limit",
        Code::StaleList => "doctor_hint.stale_list",
        Code::HostFiltered => "doctor_hint.host_filtered",
        Code::ServerDropped => "doctor_hint.server_dropped",
        Code::ExpectedNotListed => "doctor_hint.expected_not_listed",
    };
    Said::new(key).with("server", server)
}

/// The fix for one tool's code, naming the tool (and a name that would pass, for a rejected
/// one); `why` is the host's reason for dropping it. Other codes get [`hint`].
pub fn tool_hint(code: Code, server: &str, name: &str, why: &str) -> Said {
    match code {
        Code::NameRejected => Said::new("doctor_hint.rename_to").with("a", suggest_name(name)),
        // The host's note names the invalid tool second: "... server `s` because `t` is ...".
        Code::ServerDropped => match why.split('`').nth(3) {
            Some(bad) => Said::new("doctor_hint.fix_tool")
                .with("a", bad)
                .with("b", server),
            None => hint(code, server),
        },
        Code::DuplicateName => Said::new("doctor_hint.rename_one")
            .with("a", name)
            .with("b", format!("{server}__{name}")),
        Code::HostFiltered => Said::new("doctor_hint.remove_deny")
            .with("a", name)
            .with("b", format!("{server}/{name}")),
        other => hint(other, server),
    }
}

/// A name to suggest for a tool whose name the providers reject: what the host's sanitizing
/// would give (each character outside `[a-zA-Z0-9_-]` becomes `_`), but as a person would
/// write it: no run of `_`, none at either end, and a name longer than the limit cut at the
/// last word that fits rather than mid-word, and not on a joining word (`weather.lookup` ->
/// `weather_lookup`, `get  forecast!` -> `get_forecast`). Always valid for
/// [`API_NAME_PATTERN`].
pub fn suggest_name(name: &str) -> String {
    let max = crate::wire::convert::API_NAME_MAX_LEN;
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            word.push(c);
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let words: Vec<&str> = words
        .iter()
        .map(|w| w.trim_matches('-'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut len = 0;
    for (i, w) in words.iter().enumerate() {
        let extra = usize::from(i > 0) + w.len();
        if len + extra > max {
            if kept.is_empty() {
                kept.push(&w[..max]);
            }
            // Cut short: a name does not end on a joining word (`..._winds_for`).
            const JOINING: [&str; 12] = [
                "a", "an", "the", "of", "for", "and", "or", "to", "in", "on", "with", "by",
            ];
            while kept.len() > 1 && kept.last().is_some_and(|w| JOINING.contains(w)) {
                kept.pop();
            }
            break;
        }
        kept.push(w);
        len += extra;
    }
    if kept.is_empty() {
        "tool".to_string()
    } else {
        kept.join("_")
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
            bad.is_some_and(|p| p.english().contains("properties")),
            "names the place"
        );
        // A remote reference is reported, not fetched.
        let remote = json!({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s.json"}}});
        assert!(schema_problem(&remote).is_some());
    }

    /// The quick check passes the usual valid schemas (else it saves nothing) and never one
    /// that `build` refuses (else a problem would go unreported).
    #[test]
    fn the_quick_check_agrees_with_build() {
        let valid = [
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "object", "$defs": {"x": {"type": "integer"}},
                   "properties": {"a": {"$ref": "#/$defs/x"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"a": {"exclusiveMinimum": 1}}}),
            json!({"$id": "https://example.com/t.json", "type": "object",
                   "$defs": {"b": {"$id": "b.json", "type": "string"}},
                   "properties": {"a": {"$ref": "b.json"}}}),
        ];
        for s in &valid {
            assert!(jsonschema::options().build(s).is_ok(), "{s}");
            assert!(fast_check(s), "{s} takes the quick way");
        }
        let invalid = [
            json!({"type": "object", "properties": {"a": {"type": "strin"}}}),
            json!({"type": "object", "properties": {"a": {"pattern": "(("}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "other.json"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
            json!({"type": "object", "properties": {"a": {"minLength": -1}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                   "properties": {"a": {"exclusiveMaximum": 5}}}),
            json!({"$schema": "https://example.com/custom", "type": "object"}),
        ];
        for s in &invalid {
            let error = jsonschema::options().build(s).err();
            assert!(!fast_check(s), "{s} is left to build");
            let words = error.map(|e| crate::analysis::conformance::words::said_at(&e));
            assert!(words.is_some(), "{s} is invalid");
            assert_eq!(schema_problem(s), words, "{s}: the same words");
        }
    }

    #[test]
    fn a_suggested_name_is_valid_and_reads_as_written() {
        use crate::wire::convert::valid_api_name;
        let long = "get_current_weather_conditions_including_humidity_and_winds_for_a_city";
        let cases = [
            ("weather.lookup", "weather_lookup"),
            ("get forecast", "get_forecast"),
            ("  a..b  ", "a_b"),
            (
                long,
                "get_current_weather_conditions_including_humidity_and_winds",
            ),
            ("météo", "m_t_o"),
            ("...", "tool"),
            ("-x-", "x"),
        ];
        for (name, want) in cases {
            let got = suggest_name(name);
            assert_eq!(got, want, "{name}");
            assert!(valid_api_name(&got), "{got}");
            assert!(!got.ends_with('_') && !got.starts_with('_'), "{got}");
        }
        let one_word = "x".repeat(70);
        assert_eq!(suggest_name(&one_word), "x".repeat(64));
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

    /// Gemini's limits and rule, as the module docs give them.
    #[test]
    fn gemini_limits_and_name_rule() {
        assert_eq!(max_tools(ApiShape::Gemini), Some(512));
        assert_eq!(max_description_chars(ApiShape::Gemini), None);
        assert_eq!(provider_name(ApiShape::Gemini), "Google (Gemini API)");
        let words = crate::i18n::Words::of(crate::i18n::Language::En);
        let rule = name_rule(ApiShape::Gemini).say(words);
        assert!(rule.contains("^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"), "{rule}");
        assert!(
            name_rule(ApiShape::Openai)
                .say(words)
                .contains(API_NAME_PATTERN)
        );
    }
}
