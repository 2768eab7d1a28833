//! The `oddnames` demo server: tool names that MCP accepts but the LLM providers'
//! function-calling APIs reject.
//!
//! MCP's tool-name guidance (a SHOULD, not a MUST) is 1 to 128 characters of letters,
//! digits, `_`, `-` and `.`, and no spaces or commas. The Anthropic and OpenAI APIs accept a
//! function name only if it matches `^[a-zA-Z0-9_-]{1,64}$` ([`provider_accepts`]). So a host
//! that passes MCP names through unchanged gets its whole request refused, and a workshop can
//! see where the host has to rename, skip or fail:
//!
//! - [`DOTTED`]: a dot, valid in MCP.
//! - [`SPACED`]: a space, against MCP's guidance yet still sent as-is; no provider takes it.
//! - [`LONG`]: 70 characters, over the providers' 64.
//! - [`TIME`]: an ordinary name, the control case.
//!
//! Every tool answers something simple when called. The tools are listed by hand rather than
//! through rmcp's tool router, which would log a warning per odd name on stderr.

use std::sync::Arc;

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
        Tool,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use super::tools_result;

/// Server name sent in `serverInfo` and in the start-up line.
pub const NAME: &str = "oddnames";
/// Server version sent in `serverInfo`.
pub const VERSION: &str = "1.0.0";
/// The `instructions` field of the initialize (and discover) result.
pub const INSTRUCTIONS: &str = "Weather and time tools. Some names here are valid MCP but \
    not valid function names for LLM APIs (^[a-zA-Z0-9_-]{1,64}$); get_time is the only \
    one that is.";
/// A tool name with a dot.
pub const DOTTED: &str = "weather.lookup";
/// A tool name with a space.
pub const SPACED: &str = "get forecast";
/// A tool name of 70 characters.
pub const LONG: &str = "get_current_weather_conditions_including_humidity_and_winds_for_a_city";
/// The one ordinary tool name.
pub const TIME: &str = "get_time";
/// What `get_time` always answers.
pub const FIXED_TIME: &str = "12:00 UTC";

/// Whether an LLM function-calling API would take `name` as it is: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn provider_accepts(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The oddly named tools server. Stateless.
#[derive(Debug, Clone, Default)]
pub struct OddNames;

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        // Only ever called with the object literals below.
        _ => Arc::new(JsonObject::new()),
    }
}

fn city_schema() -> Arc<JsonObject> {
    schema(json!({
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"]
    }))
}

/// The four tools, in the order `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            DOTTED,
            "Look up the current weather for a city.",
            city_schema(),
        ),
        Tool::new(SPACED, "Get tomorrow's forecast for a city.", city_schema()),
        Tool::new(
            LONG,
            "Get current conditions, humidity and wind for a city.",
            city_schema(),
        ),
        Tool::new(
            TIME,
            "Get the current time (a fixed 12:00 UTC in this demo).",
            schema(json!({ "type": "object", "properties": {} })),
        ),
    ]
}

impl OddNames {
    /// A new oddly named tools server.
    pub fn new() -> Self {
        Self
    }
}

fn text(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(message)]).into()
}

/// The non-empty string argument `city`, or the error text naming the tool.
fn city(request: &CallToolRequestParams) -> Result<&str, String> {
    request
        .arguments
        .as_ref()
        .and_then(|arguments| arguments.get("city"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|city| !city.is_empty())
        .ok_or_else(|| format!("{} needs a non-empty string argument `city`", request.name))
}

impl ServerHandler for OddNames {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, VERSION))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(tools_result(tools(), &context))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let answer = match request.name.as_ref() {
            TIME => FIXED_TIME.to_owned(),
            DOTTED | SPACED | LONG => {
                let city = match city(&request) {
                    Ok(city) => city,
                    Err(message) => {
                        return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
                    }
                };
                match request.name.as_ref() {
                    DOTTED => format!("{city}: 15C, partly cloudy"),
                    SPACED => format!("{city}: tomorrow 17C sunny"),
                    _ => format!("{city}: 15C, partly cloudy, humidity 60%, wind 10 km/h"),
                }
            }
            // The same answer rmcp's tool router gives for a name it does not know.
            _ => return Err(McpError::invalid_params("tool not found", None)),
        };
        Ok(text(answer))
    }
}
