//! The host: Sightline plays the application between an LLM API and MCP servers.
//!
//! This is the half of the story no MCP server log shows: the host turns `tools/list` into the
//! LLM API's `tools` parameter, sends the model's tool calls to the servers as `tools/call`,
//! and returns each result as a `tool_result`, until the model stops asking. Every byte of it,
//! JSON-RPC and HTTP, is recorded on one clock.
//!
//! - [`api`]: the three LLM API shapes Sightline speaks.
//! - [`convert`]: pure conversions between MCP and each API shape (tools, calls, results).
//! - [`provider`]: HTTP clients for the three shapes, recording every request and response.
//! - [`scripted`]: the scripted model, an LLM API server on 127.0.0.1 driven by a scenario.

pub mod api;
pub mod convert;
pub mod provider;
pub mod scripted;
