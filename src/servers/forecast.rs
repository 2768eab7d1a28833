//! The `forecast` demo server: a second server whose tool is also named `get_weather`, so a
//! host connected to both it and [`weather`](super::weather) holds two different tools under
//! one name.
//!
//! MCP scopes tool names per server; the model sees one flat list. A workshop can watch what
//! the host does about it: prefix names with the server (`weather__get_weather`), keep only
//! one, or send the provider two functions with the same name and get the request refused.
//! The two tools also disagree on meaning: `weather`'s answers current conditions,
//! this one a 3-day forecast, and each server's `instructions` claim the name for itself.
//!
//! - `get_weather(location)`: `<location>: tomorrow 17C sunny, then rain`, with the same
//!   input schema as the `weather` server's tool, key order included.
//! - `get_forecast(location, days)`: 1 to 7 days of canned forecast.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
    },
    tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// Server name sent in `serverInfo` and in the start-up line.
pub const NAME: &str = "forecast";
/// Server version sent in `serverInfo`.
pub const VERSION: &str = "1.0.0";
/// The `instructions` field: claims `get_weather` for forecasts, where the `weather` server's
/// instructions claim it for current conditions.
pub const INSTRUCTIONS: &str = "Use get_weather for the 3-day forecast and get_forecast \
    for up to 7 days.";
/// Most days `get_forecast` gives.
pub const MAX_DAYS: u32 = 7;
/// The canned forecast, one entry per day from tomorrow.
const DAYS: [&str; MAX_DAYS as usize] = [
    "tomorrow 17C sunny",
    "14C rain",
    "12C rain",
    "15C cloudy",
    "18C sunny",
    "19C sunny",
    "16C showers",
];

/// The forecast server. Stateless.
#[derive(Debug, Clone)]
pub struct Forecast {
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize)]
struct GetWeatherArgs {
    location: String,
}

#[derive(Debug, Deserialize)]
struct GetForecastArgs {
    location: String,
    days: u32,
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        // Only ever called with the object literals below.
        _ => Arc::new(JsonObject::new()),
    }
}

/// Byte for byte the `weather` server's schema for its `get_weather`.
fn get_weather_input_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": { "location": { "type": "string" } },
        "required": ["location"],
        "$schema": super::weather::SDK_SCHEMA_DIALECT
    }))
}

fn get_forecast_input_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "location": { "type": "string" },
            "days": { "type": "integer", "minimum": 1, "maximum": MAX_DAYS }
        },
        "required": ["location", "days"]
    }))
}

#[tool_router]
impl Forecast {
    /// A new forecast server.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Get the weather forecast for the next 3 days for a location",
        input_schema = get_weather_input_schema()
    )]
    fn get_weather(&self, Parameters(args): Parameters<GetWeatherArgs>) -> String {
        format!("{}: tomorrow 17C sunny, then rain", args.location)
    }

    #[tool(
        description = "Get a day-by-day weather forecast of 1 to 7 days for a location",
        input_schema = get_forecast_input_schema()
    )]
    fn get_forecast(&self, Parameters(args): Parameters<GetForecastArgs>) -> CallToolResult {
        if !(1..=MAX_DAYS).contains(&args.days) {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "days must be between 1 and {MAX_DAYS}"
            ))]);
        }
        let days: Vec<&str> = DAYS.iter().copied().take(args.days as usize).collect();
        CallToolResult::success(vec![ContentBlock::text(format!(
            "{}: {}",
            args.location,
            days.join(", then ")
        ))])
    }
}

impl Default for Forecast {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Forecast {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, VERSION))
            .with_instructions(INSTRUCTIONS)
    }
}
