//! The `hostrules` and `crowd` demo servers: tools built to trip the rules real hosts apply
//! before their model sees a tool (`sightline doctor --host all`, docs/hosts.md).
//!
//! `hostrules` lists one tool per rule, each valid MCP:
//!
//! - [`TIME`]: an ordinary name, the control case.
//! - [`DOTTED`]: a dot. Claude Desktop withholds the whole server; Claude Code and VS Code
//!   rename it.
//! - [`LONG`]: 56 characters. With a host's prefix it passes 64 (Claude Code's requests fail,
//!   Codex hashes it, Gemini CLI and VS Code cut it), and with the server's name it passes
//!   Cursor's 60.
//! - [`ANY_OF`]: a top-level `anyOf` schema, which the Anthropic API refuses, Claude Desktop's
//!   validator refuses, and which makes Claude Code drop the server's tools.
//! - [`UNTYPED_ARRAY`]: an array without `items`, which VS Code's draft-07 validator refuses.
//! - [`VERBOSE`]: a 2,500-byte description, cut at 2 KB by Claude Code.
//!
//! `crowd` lists [`CROWD`] ordinary tools, more than VS Code's 128, Windsurf's 100, Cursor's 40.
//!
//! Either pages its `tools/list` when given a page size ([`HostRules::paged`], `demo-server
//! crowd --page-size 50`): each page has at most that many tools and a `nextCursor` while more
//! are left, the cursor being the next tool's index. A host that reads only the first page
//! (Claude Code before 2.1.144) then never sees the rest.
//!
//! Every tool answers a fixed text. The tools are listed by hand: rmcp's tool router would
//! warn on stderr about the odd names and schemas.

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

/// Server name of the rules server, in `serverInfo` and the start-up line.
pub const NAME: &str = "hostrules";
/// Server name of the many-tools server.
pub const CROWD_NAME: &str = "crowd";
pub const VERSION: &str = "1.0.0";
pub const TIME: &str = "get_time";
pub const DOTTED: &str = "files.read";
pub const LONG: &str = "summarize_pull_request_review_comments_grouped_by_author";
pub const ANY_OF: &str = "find_place";
pub const UNTYPED_ARRAY: &str = "tag_items";
pub const VERBOSE: &str = "explain_everything";
/// How many tools `crowd` lists.
pub const CROWD: usize = 130;
/// What every tool answers.
pub const ANSWER: &str = "done";

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        // Only ever called with the object literals below.
        _ => Arc::new(JsonObject::new()),
    }
}

fn empty() -> Arc<JsonObject> {
    schema(json!({ "type": "object", "properties": {} }))
}

/// `hostrules`' tools, in the order `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let verbose = format!(
        "Explains everything. {}",
        "Every detail of every option is written out here at length. ".repeat(40)
    );
    vec![
        Tool::new(TIME, "Get the current time.", empty()),
        Tool::new(
            DOTTED,
            "Read a file.",
            schema(json!({
                "type": "object",
                "properties": { "path": { "type": "string" } },
                "required": ["path"]
            })),
        ),
        Tool::new(LONG, "Summarize review comments by author.", empty()),
        Tool::new(
            ANY_OF,
            "Find a place by city or by postcode.",
            schema(json!({
                "anyOf": [
                    { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] },
                    { "type": "object", "properties": { "zip": { "type": "string" } }, "required": ["zip"] }
                ]
            })),
        ),
        Tool::new(
            UNTYPED_ARRAY,
            "Tag items.",
            schema(json!({
                "type": "object",
                "properties": { "tags": { "type": "array" } }
            })),
        ),
        Tool::new(VERBOSE, verbose, empty()),
    ]
}

/// `crowd`'s tools: `tool_000` to `tool_129`.
pub fn crowd_tools() -> Vec<Tool> {
    (0..CROWD)
        .map(|k| Tool::new(format!("tool_{k:03}"), format!("Tool number {k}."), empty()))
        .collect()
}

/// The rules server (`crowd: false`) or the many-tools one, its list in pages of `page` tools
/// when set. Stateless.
#[derive(Debug, Clone, Default)]
pub struct HostRules {
    crowd: bool,
    page: Option<usize>,
}

impl HostRules {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn crowd() -> Self {
        Self {
            crowd: true,
            page: None,
        }
    }

    /// The same server, its `tools/list` in pages of `size` tools (`None` or 0: one page).
    pub fn paged(self, size: Option<usize>) -> Self {
        Self {
            page: size.filter(|&n| n > 0),
            ..self
        }
    }

    fn list(&self) -> Vec<Tool> {
        if self.crowd { crowd_tools() } else { tools() }
    }

    /// The page that starts at `cursor` (none: the first), and the cursor of the next one.
    fn page(&self, cursor: Option<&str>) -> Result<(Vec<Tool>, Option<String>), McpError> {
        let all = self.list();
        let Some(size) = self.page else {
            return Ok((all, None));
        };
        let start = match cursor {
            None => 0,
            // The spec's answer to a cursor the server did not give: invalid params.
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|&n| n < all.len())
                .ok_or_else(|| McpError::invalid_params("invalid cursor", None))?,
        };
        let end = start.saturating_add(size).min(all.len());
        let next = (end < all.len()).then(|| end.to_string());
        Ok((all[start..end].to_vec(), next))
    }
}

impl ServerHandler for HostRules {
    fn get_info(&self) -> ServerConfig {
        let name = if self.crowd { CROWD_NAME } else { NAME };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(name, VERSION))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let (tools, next) = self.page(request.as_ref().and_then(|r| r.cursor.as_deref()))?;
        let mut result = tools_result(tools, &context);
        result.next_cursor = next;
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.list().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if self.get_tool(&request.name).is_none() {
            // The same answer rmcp's tool router gives for a name it does not know.
            return Err(McpError::invalid_params("tool not found", None));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(ANSWER)]).into())
    }
}
