//! The `weather` demo server: the seed article's TypeScript server, rebuilt with rmcp so a
//! trace of it can be compared with the article line by line.
//!
//! Same serverInfo (`weather` 1.0.0), same instructions, one tool `get_weather` with the same
//! description and input schema, and the same canned answer `<location>: 15C, partly cloudy`.
//! The input schema is written out by hand, key order included, as the article's demo output
//! prints it: the TypeScript SDK adds `"$schema": "http://json-schema.org/draft-07/schema#"`
//! to the schema zod produces, and the host passes it on to the model. A class sees that the
//! SDK, not the author, wrote that key.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{Implementation, JsonObject, ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::json;

/// Server name sent in `serverInfo` and in the start-up line.
pub const NAME: &str = "weather";
/// Server version sent in `serverInfo`.
pub const VERSION: &str = "1.0.0";
/// The `instructions` field of the initialize (and discover) result.
pub const INSTRUCTIONS: &str = "Use get_weather for current conditions only.";

/// The `$schema` the TypeScript SDK (1.32.1, zod 4) adds to every input schema.
pub const SDK_SCHEMA_DIALECT: &str = "http://json-schema.org/draft-07/schema#";

/// The weather server. Stateless: every call gets the same canned forecast.
#[derive(Debug, Clone)]
pub struct Weather {
    tool_router: ToolRouter<Self>,
}

/// Arguments of `get_weather`.
#[derive(Debug, Deserialize)]
struct GetWeatherArgs {
    location: String,
}

/// The JSON Schema the TypeScript SDK sends for `{ location: z.string() }`:
/// `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],
/// "$schema":"http://json-schema.org/draft-07/schema#"}`, key order included.
fn get_weather_input_schema() -> Arc<JsonObject> {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert(
        "properties".into(),
        json!({ "location": { "type": "string" } }),
    );
    schema.insert("required".into(), json!(["location"]));
    schema.insert("$schema".into(), json!(SDK_SCHEMA_DIALECT));
    Arc::new(schema)
}

#[tool_router]
impl Weather {
    /// A new weather server.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Get current weather information for a location",
        input_schema = get_weather_input_schema()
    )]
    fn get_weather(&self, Parameters(args): Parameters<GetWeatherArgs>) -> String {
        format!("{}: 15C, partly cloudy", args.location)
    }
}

impl Default for Weather {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weather {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, VERSION))
            .with_instructions(INSTRUCTIONS)
    }
}
