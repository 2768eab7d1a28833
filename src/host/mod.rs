//! The host: Sightline plays the application between an LLM API and MCP servers.
//!
//! This is the half of the story no MCP server log shows: the host turns `tools/list` into the
//! LLM API's `tools` parameter, sends the model's tool calls to the servers as `tools/call`,
//! and returns each result as a `tool_result`, until the model stops asking. Every byte of it,
//! JSON-RPC and HTTP, is recorded on one clock.
//!
//! - [`agent`]: the loop itself: prompt, tools, model, calls, results, answer.
//! - [`scenario`]: the TOML files that describe a run.
//! - [`mcp`]: the host's MCP client (rmcp), connected to each server through the tap.
//! - [`catalog`]: which tools the model sees, under which names, and why some are dropped.
//! - [`api`]: the three LLM API shapes Sightline speaks.
//! - [`convert`]: pure conversions between MCP and each API shape (tools, calls, results).
//! - [`provider`]: HTTP clients for the three shapes, recording every request and response.
//! - [`scripted`]: the scripted model, an LLM API server on 127.0.0.1 driven by a scenario.

pub mod agent;
pub mod api;
pub mod catalog;
pub mod convert;
pub mod mcp;
pub mod provider;
pub mod sampling;
pub mod scenario;
pub mod scripted;
