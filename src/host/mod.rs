//! The host: Sightline plays the application between an LLM API and MCP servers.
//!
//! This is the half of the story no MCP server log shows: the host turns `tools/list` into the
//! LLM API's `tools` parameter, sends the model's tool calls to the servers as `tools/call`,
//! and returns each result as a `tool_result`, until the model stops asking. Every byte of it,
//! JSON-RPC and HTTP, is recorded on one clock. The wire formats it speaks (API shapes,
//! conversions, the tool catalog, SSE, redaction) are pure code in [`crate::wire`].
//!
//! - [`agent`]: the loop itself: prompt, tools, model, calls, results, answer.
//! - [`connector`]: servers handed to the LLM API, which is their MCP client then.
//! - [`deferral`]: tools sent by name and loaded on the model's search (`defer_tools`).
//! - [`scenario`]: the TOML files that describe a run.
//! - [`mcp`]: the host's MCP client (rmcp), connected to each server through the tap.
//! - [`provider`]: HTTP clients for the three shapes, recording every request and response.
//! - [`scripted`]: the scripted model, an LLM API server on 127.0.0.1 driven by a scenario.
//! - [`said`]: the host's errors (a failed run) said in each language.

pub mod agent;
mod connector;
mod deferral;
pub mod mcp;
pub mod provider;
pub mod replay;
pub mod said;
pub mod sampling;
pub mod scenario;
pub mod scripted;
pub mod user;
