//! The three LLM API shapes: what a host sends and gets for tool use.
//!
//! - Anthropic Messages: `POST /v1/messages`, tools `{name, description, input_schema}`,
//!   `tool_use` blocks, `stop_reason`.
//! - OpenAI Responses: `POST /v1/responses`, tools `{type: "function", name, description,
//!   parameters}`, `function_call` output items with `arguments` as a JSON string.
//! - OpenAI Chat Completions: `POST /v1/chat/completions`, tools `{type: "function", function:
//!   {name, description, parameters}}`, `tool_calls`, `finish_reason`.

use serde::{Deserialize, Serialize};

/// The request header by which Sightline's host marks an LLM request it sends on behalf of an
/// MCP server's `sampling/createMessage` (the value is the server's name). The analysis keeps
/// such exchanges apart from the agent loop's turns; the scripted model answers them with the
/// scenario's sampling reply; a real API ignores the header.
pub const SAMPLING_HEADER: &str = "x-sightline-sampling-for";

/// Which wire shape a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "native", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ApiShape {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Responses API.
    Openai,
    /// OpenAI Chat Completions API (also Ollama, llama.cpp, vLLM and most gateways).
    OpenaiChat,
}

impl ApiShape {
    pub const ALL: [ApiShape; 3] = [ApiShape::Anthropic, ApiShape::Openai, ApiShape::OpenaiChat];

    /// The path of the endpoint, appended to a base URL such as `https://api.anthropic.com`.
    pub fn path(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "/v1/messages",
            ApiShape::Openai => "/v1/responses",
            ApiShape::OpenaiChat => "/v1/chat/completions",
        }
    }

    /// The public endpoint used when a real model is named and no base URL is given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "https://api.anthropic.com",
            ApiShape::Openai | ApiShape::OpenaiChat => "https://api.openai.com",
        }
    }

    /// The environment variable holding the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "ANTHROPIC_API_KEY",
            ApiShape::Openai | ApiShape::OpenaiChat => "OPENAI_API_KEY",
        }
    }

    /// The response field that says why the model stopped: `stop_reason` (`tool_use`,
    /// `end_turn`), Responses' `status` (a call is an output item, not a stop reason), Chat
    /// Completions' `finish_reason` (`tool_calls`, `stop`).
    pub fn stop_field(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "stop_reason",
            ApiShape::Openai => "status",
            ApiShape::OpenaiChat => "finish_reason",
        }
    }

    /// Whether a tool call's `arguments` arrive as a JSON string the host must parse (both
    /// OpenAI shapes) rather than as an object (Anthropic's `input`).
    pub fn arguments_are_a_string(self) -> bool {
        !matches!(self, ApiShape::Anthropic)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "anthropic",
            ApiShape::Openai => "openai",
            ApiShape::OpenaiChat => "openai-chat",
        }
    }
}
