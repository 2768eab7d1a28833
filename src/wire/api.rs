//! The four LLM API shapes: what a host sends and gets for tool use.
//!
//! - Anthropic Messages: `POST /v1/messages`, tools `{name, description, input_schema}`,
//!   `tool_use` blocks, `stop_reason`.
//! - OpenAI Responses: `POST /v1/responses`, tools `{type: "function", name, description,
//!   parameters}`, `function_call` output items with `arguments` as a JSON string.
//! - OpenAI Chat Completions: `POST /v1/chat/completions`, tools `{type: "function", function:
//!   {name, description, parameters}}`, `tool_calls`, `finish_reason`.
//! - Gemini: `POST /v1beta/models/<model>:generateContent` (or `:streamGenerateContent`, with
//!   `?alt=sse` for Server-Sent Events, without it a JSON array of responses), tools
//!   `[{functionDeclarations: [{name, description, parameters | parametersJsonSchema}]}]`,
//!   `functionCall` parts with `args` as an object, `finishReason`. The model is named in the
//!   path, not the body, and streaming is chosen by the path, not by a body field.

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
    /// Google Gemini API (`generateContent` / `streamGenerateContent`), as Gemini CLI speaks it.
    Gemini,
}

/// The Gemini methods Sightline reads: `models/<model>:<method>`.
const GEMINI_METHODS: [&str; 2] = ["generateContent", "streamGenerateContent"];

impl ApiShape {
    pub const ALL: [ApiShape; 4] = [
        ApiShape::Anthropic,
        ApiShape::Openai,
        ApiShape::OpenaiChat,
        ApiShape::Gemini,
    ];

    /// The path of the endpoint, appended to a base URL such as `https://api.anthropic.com`.
    /// Gemini's path names the model and the method, so this is its form with a `{model}`
    /// placeholder; [`endpoint_path`](Self::endpoint_path) fills it in.
    pub fn path(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "/v1/messages",
            ApiShape::Openai => "/v1/responses",
            ApiShape::OpenaiChat => "/v1/chat/completions",
            ApiShape::Gemini => "/v1beta/models/{model}:generateContent",
        }
    }

    /// The path a request for `model` goes to. The three fixed paths are [`path`](Self::path);
    /// Gemini's is `/v1beta/models/<model>:generateContent`, or
    /// `:streamGenerateContent?alt=sse` when `stream` (Server-Sent Events, what Gemini CLI asks
    /// for).
    pub fn endpoint_path(self, model: &str, stream: bool) -> String {
        match (self, stream) {
            (ApiShape::Gemini, false) => format!("/v1beta/models/{model}:generateContent"),
            (ApiShape::Gemini, true) => {
                format!("/v1beta/models/{model}:streamGenerateContent?alt=sse")
            }
            _ => self.path().to_string(),
        }
    }

    /// The shape whose endpoint `url` (a full URL or a path, with or without a query) names:
    /// a path ending in one of the fixed paths (with or without `/v1`, as gateways mount
    /// them), or containing `/models/<model>:generateContent` or `:streamGenerateContent`.
    pub fn from_url(url: &str) -> Option<ApiShape> {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        if gemini_method(path).is_some() {
            return Some(ApiShape::Gemini);
        }
        [ApiShape::Anthropic, ApiShape::Openai, ApiShape::OpenaiChat]
            .into_iter()
            .find(|s| {
                path.ends_with(s.path()) || path.ends_with(s.path().trim_start_matches("/v1"))
            })
    }

    /// The model a Gemini URL names (`.../models/<model>:generateContent` gives `<model>`);
    /// `None` for other shapes, whose model is in the body.
    pub fn model_from_url(url: &str) -> Option<&str> {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        gemini_method(path).map(|(model, _)| model)
    }

    /// Whether a request to `url` asks for a streamed answer by its URL (Gemini's
    /// `:streamGenerateContent`); the other shapes say so in the body (`"stream": true`).
    pub fn streams_by_url(url: &str) -> bool {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        gemini_method(path).is_some_and(|(_, method)| method == "streamGenerateContent")
    }

    /// The public endpoint used when a real model is named and no base URL is given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "https://api.anthropic.com",
            ApiShape::Openai | ApiShape::OpenaiChat => "https://api.openai.com",
            ApiShape::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The environment variable holding the API key: for Gemini, `GEMINI_API_KEY`, the one
    /// Gemini CLI reads (Google's own client libraries also read `GOOGLE_API_KEY`; see
    /// [`key_variables`](Self::key_variables)).
    pub fn key_variable(self) -> &'static str {
        self.key_variables()[0]
    }

    /// Every environment variable that may hold the key, the one Sightline reads first first.
    /// Google documents both `GEMINI_API_KEY` and `GOOGLE_API_KEY` for the Gemini API (its
    /// libraries prefer `GOOGLE_API_KEY` when both are set); Sightline, as Gemini CLI does,
    /// reads `GEMINI_API_KEY` first.
    pub fn key_variables(self) -> &'static [&'static str] {
        match self {
            ApiShape::Anthropic => &["ANTHROPIC_API_KEY"],
            ApiShape::Openai | ApiShape::OpenaiChat => &["OPENAI_API_KEY"],
            ApiShape::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        }
    }

    /// The response field that says why the model stopped: `stop_reason` (`tool_use`,
    /// `end_turn`), Responses' `status` (a call is an output item, not a stop reason), Chat
    /// Completions' `finish_reason` (`tool_calls`, `stop`), Gemini's
    /// `candidates[].finishReason` (`STOP` for a call too: the `functionCall` part says it).
    pub fn stop_field(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "stop_reason",
            ApiShape::Openai => "status",
            ApiShape::OpenaiChat => "finish_reason",
            ApiShape::Gemini => "finishReason",
        }
    }

    /// Whether a tool call's `arguments` arrive as a JSON string the host must parse (both
    /// OpenAI shapes) rather than as an object (Anthropic's `input`, Gemini's `args`).
    pub fn arguments_are_a_string(self) -> bool {
        matches!(self, ApiShape::Openai | ApiShape::OpenaiChat)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ApiShape::Anthropic => "anthropic",
            ApiShape::Openai => "openai",
            ApiShape::OpenaiChat => "openai-chat",
            ApiShape::Gemini => "gemini",
        }
    }
}

/// The model and method of a Gemini path: `.../models/<model>:<method>` where the method is
/// one of [`GEMINI_METHODS`] (the model is one path segment, `gemini-2.5-flash`).
fn gemini_method(path: &str) -> Option<(&str, &str)> {
    let (_, rest) = path.rsplit_once("/models/")?;
    let (model, method) = rest.rsplit_once(':')?;
    let valid = !model.is_empty() && !model.contains('/') && GEMINI_METHODS.contains(&method);
    valid.then_some((model, method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_read_from_urls() {
        let cases = [
            (
                "https://api.anthropic.com/v1/messages?beta=true",
                Some(ApiShape::Anthropic),
            ),
            ("http://127.0.0.1:1/v1/responses", Some(ApiShape::Openai)),
            (
                "http://localhost:11434/chat/completions",
                Some(ApiShape::OpenaiChat),
            ),
            (
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                Some(ApiShape::Gemini),
            ),
            (
                "/v1/models/gemini-pro:generateContent",
                Some(ApiShape::Gemini),
            ),
            ("/v1beta/models/gemini-2.5-flash:countTokens", None),
            ("/v1beta/models/:generateContent", None),
            ("/v1beta/models", None),
            ("/v2/whatever", None),
        ];
        for (url, shape) in cases {
            assert_eq!(ApiShape::from_url(url), shape, "{url}");
        }
        for shape in ApiShape::ALL {
            let path = shape.endpoint_path("m-1", false);
            assert_eq!(ApiShape::from_url(&path), Some(shape), "{path}");
            let streamed = shape.endpoint_path("m-1", true);
            assert_eq!(ApiShape::from_url(&streamed), Some(shape), "{streamed}");
            assert_eq!(
                ApiShape::streams_by_url(&streamed),
                shape == ApiShape::Gemini
            );
        }
    }

    #[test]
    fn gemini_model_and_stream_come_from_the_path() {
        let url = "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
        assert_eq!(ApiShape::model_from_url(url), Some("gemini-2.5-flash"));
        assert!(ApiShape::streams_by_url(url));
        let plain = "/v1/models/gemini-2.0-flash:generateContent?key=[redacted]";
        assert_eq!(ApiShape::model_from_url(plain), Some("gemini-2.0-flash"));
        assert!(!ApiShape::streams_by_url(plain));
        assert_eq!(ApiShape::model_from_url("/v1/messages"), None);
        assert_eq!(
            ApiShape::Gemini.endpoint_path("gemini-2.5-flash", true),
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
    }

    #[test]
    fn gemini_facts() {
        let g = ApiShape::Gemini;
        assert_eq!(g.as_str(), "gemini");
        assert_eq!(g.key_variable(), "GEMINI_API_KEY");
        assert_eq!(g.key_variables(), ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
        assert_eq!(g.stop_field(), "finishReason");
        assert!(!g.arguments_are_a_string());
        assert_eq!(
            g.default_base_url(),
            "https://generativelanguage.googleapis.com"
        );
        let json = serde_json::to_string(&g).expect("serializes");
        assert_eq!(json, "\"gemini\"");
    }
}
