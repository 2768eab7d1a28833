//! Pure conversions between MCP and the four LLM API shapes: what the host does between them.
//!
//! The model never talks to an MCP server. The host turns each `tools/list` entry into an entry
//! of the provider's `tools` parameter, reads the tool calls out of the model's answer, sends them
//! as `tools/call`, and hands each `CallToolResult` back in the provider's result shape. Almost all
//! of it is a renaming of fields: MCP `inputSchema` becomes Anthropic `input_schema`, OpenAI
//! `parameters` or Gemini `parametersJsonSchema`, Anthropic `tool_use.input` and Gemini
//! `functionCall.args` go into `tools/call` `arguments` as they are, and text results keep
//! their form. The exceptions are where the shapes really differ, and each is documented where
//! it is handled: OpenAI `arguments` arrive as a JSON *string* to parse; Gemini calls may come
//! without an id, so results go back by name; tool names must match `^[a-zA-Z0-9_-]{1,64}$`
//! (Gemini: its own pattern) where MCP allows any string; and results that are not text
//! (images, audio, resources, `structuredContent`, `isError`) each need a decision per shape.
//!
//! Everything here is a function over [`serde_json::Value`] taken exactly as received (unknown
//! fields are tolerated and ignored), with no I/O, so the recorder, the scripted model and the
//! real host all share one definition of each conversion.
//!
//! - [`tool_to_api`], [`valid_api_name`], [`sanitize_name`] (and their `_for` forms by shape):
//!   tool definitions and names.
//! - [`parse_response`]: a response body into a [`ModelTurn`] (text, tool calls, loop signal).
//! - [`tool_result_to_api`], [`tool_error_to_api`]: MCP results back to the model.
//! - [`user_message`], [`tool_results_message`], [`request_body`]: building the next request.
//! - [`defer`]: a host that sends its tools' names and loads them on the model's search
//!   (Claude Code's `ToolSearch` and `tool_reference`).
//! - [`tool_result_ids_in_request`], [`tool_names_in_request`], [`tool_entries`]: reading
//!   requests back, for the trace's correlation of model calls with `tools/call`.
//!
//! One wire consequence the renaming cannot show: when a function tool omits `strict`, the OpenAI
//! Responses API normalizes its schema into strict mode (every property required,
//! `additionalProperties: false`), while Chat Completions stays non-strict. [`tool_to_api`] sends
//! no `strict` field, as the MCP SDK demo does; a host that wants MCP's optional parameters to stay
//! optional on Responses adds `"strict": false` itself.

pub mod defer;
mod request;
mod response;
mod results;
mod tools;

pub use request::{
    request_body, tool_entries, tool_names, tool_names_in_request, tool_result_ids_in_request,
    tool_results_message, user_message, user_words,
};
pub use response::{
    ArgumentsError, ModelToolCall, ModelTurn, ResponseError, gemini_call_id, gemini_call_keys,
    parse_arguments, parse_response,
};
pub use results::{tool_error_to_api, tool_result_to_api};
pub use tools::{
    API_NAME_MAX_LEN, API_NAME_PATTERN, GEMINI_NAME_PATTERN, ToolRejected, name_pattern,
    sanitize_name, sanitize_name_for, tool_to_api, valid_api_name, valid_name_for,
};

use serde_json::Value;

/// The JSON type of a value, for error messages ("an array", "a string").
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value[key]` as a string, if it is one.
fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Paths of the golden files under `tests/golden/convert/`, shared by the submodules' tests.
#[cfg(test)]
mod golden {
    /// The `anthropic:`, `openai:` and `tool_result:` lines of seed article 001's demo output,
    /// verbatim (MCP TypeScript SDK 1.32.1).
    pub const SEED_001: &str = include_str!("../../tests/golden/convert/seed_001_get_weather.txt");
    /// A Messages API response asking for one tool (`stop_reason: "tool_use"`).
    pub const ANTHROPIC_TOOL_USE: &str =
        include_str!("../../tests/golden/convert/anthropic_tool_use.json");
    /// A Responses API response with a reasoning item and one `function_call` item.
    pub const RESPONSES_FUNCTION_CALL: &str =
        include_str!("../../tests/golden/convert/responses_function_call.json");
    /// A Chat Completions response with `finish_reason: "tool_calls"`.
    pub const CHAT_TOOL_CALLS: &str =
        include_str!("../../tests/golden/convert/chat_tool_calls.json");
    /// A Gemini `generateContent` response with a `functionCall` part (no id, as Gemini 2.5
    /// sends it), `finishReason: "STOP"`.
    pub const GEMINI_FUNCTION_CALL: &str =
        include_str!("../../tests/golden/convert/gemini_function_call.json");

    /// Parses a golden JSON file.
    pub fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).expect("golden file is JSON")
    }

    /// The JSON after `prefix` on its line in [`SEED_001`].
    pub fn seed_line(prefix: &str) -> (String, serde_json::Value) {
        let line = SEED_001
            .lines()
            .find_map(|line| line.strip_prefix(prefix))
            .expect("line present in the seed golden file")
            .to_string();
        let value = serde_json::from_str(&line).expect("seed line is JSON");
        (line, value)
    }
}
