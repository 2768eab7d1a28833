//! The `media` demo server: tool results that do not convert as plain text.
//!
//! Text results pass to the model almost unchanged, but images, audio, resource links,
//! embedded resources, `structuredContent` and `isError` each take a different shape in each
//! LLM API (and some have no equivalent at all). Each tool here returns one of them, so a trace
//! shows the MCP result next to the `tool_result` / `function_call_output` / `role: tool`
//! the host made of it.

use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, Implementation, Resource, ServerCapabilities, ServerConfig,
    },
    schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::json;

/// Server name sent in `serverInfo` and in the start-up line.
pub const NAME: &str = "media";

/// A 1x1 PNG, the smallest honest image.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/// A WAV file with no samples.
const EMPTY_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

#[derive(Debug, Clone)]
pub struct Media {
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ChartArgs {
    /// City to chart.
    location: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct DivideArgs {
    a: f64,
    b: f64,
}

#[tool_router]
impl Media {
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "A temperature chart for a city, as a PNG image with a caption")]
    fn chart(&self, Parameters(args): Parameters<ChartArgs>) -> CallToolResult {
        CallToolResult::success(vec![
            ContentBlock::text(format!("Temperature chart for {}", args.location)),
            ContentBlock::image(PIXEL_PNG, "image/png"),
        ])
    }

    #[tool(
        description = "Divide a by b; dividing by zero is a tool error (isError), not a protocol error"
    )]
    fn divide(&self, Parameters(args): Parameters<DivideArgs>) -> CallToolResult {
        if args.b == 0.0 {
            return CallToolResult::error(vec![ContentBlock::text("cannot divide by zero")]);
        }
        CallToolResult::success(vec![ContentBlock::text(format!("{}", args.a / args.b))])
    }

    #[tool(description = "A recorded voice note (audio content)")]
    fn voice_note(&self) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::audio(EMPTY_WAV, "audio/wav")])
    }

    #[tool(description = "Where to find the full report: a resource link and an embedded excerpt")]
    fn report(&self) -> CallToolResult {
        let link = Resource::new("media://reports/2026-q4", "Q4 report");
        CallToolResult::success(vec![
            ContentBlock::resource_link(link),
            ContentBlock::embedded_text("media://reports/2026-q4#summary", "Sales grew 12% in Q4."),
        ])
    }

    #[tool(description = "Today's statistics as structured content (JSON), with no text blocks")]
    fn stats(&self) -> CallToolResult {
        let mut result =
            CallToolResult::structured(json!({ "visitors": 1280, "conversion": 0.034 }));
        result.content.clear();
        result
    }
}

impl Default for Media {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Media {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, "1.0.0"))
    }
}
