//! Sampling through the host's model: what the article means by "the server asks the
//! client's LLM".
//!
//! A server's `sampling/createMessage` (or, on 2026-07-28, the same request riding on an
//! `input_required` result) is not answered by the host itself: the host turns it into an
//! ordinary LLM API request of the run's shape, sends it through the same recording provider
//! as the agent loop, and answers the server with the model's reply. So the diagram shows
//! server -> host -> LLM -> host -> server, and the model still never talks to the server.
//!
//! The request carries [`SAMPLING_HEADER`] (the server's name): the trace says why the host
//! asked, and the scripted model answers it with the scenario's `sampling_reply` instead of
//! playing a turn of its script.

use std::sync::Arc;

#[allow(deprecated)] // sampling is deprecated by SEP-2577 but part of both revisions we speak
use rmcp::model::CreateMessageRequestParams;
use serde_json::{Value, json};

use super::provider::Provider;
use crate::tap::Recorder;
use crate::wire::api::{ApiShape, SAMPLING_HEADER};
use crate::wire::convert;

/// The host's model, as the MCP client's handler reaches it.
pub struct Sampler {
    pub provider: Arc<Provider>,
    pub shape: ApiShape,
    pub model: String,
    /// Used when the server's request names no `maxTokens`.
    pub max_tokens: u32,
}

impl Sampler {
    /// Asks the model on behalf of `server`; returns the reply's text and the model's name,
    /// or a sentence saying what went wrong (recorded by the caller as a host note).
    #[allow(deprecated)] // see the import
    pub async fn sample(
        &self,
        server: &str,
        params: &CreateMessageRequestParams,
        recorder: &Recorder,
    ) -> Result<(String, String), String> {
        let params = serde_json::to_value(params)
            .map_err(|e| format!("the sampling request of `{server}` cannot be read: {e}"))?;
        let body = request_body(self.shape, &self.model, self.max_tokens, &params);
        let reply = self
            .provider
            .send_with_headers(&body, &[(SAMPLING_HEADER, server)], recorder)
            .await
            .map_err(|e| {
                format!("the host's model did not answer `{server}`'s sampling request: {e}")
            })?;
        let turn = convert::parse_response(self.shape, &reply.body).map_err(|e| {
            format!("the host's model answered `{server}`'s sampling request unreadably: {e}")
        })?;
        let model = reply
            .body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(&self.model)
            .to_string();
        Ok((turn.text, model))
    }
}

/// The LLM request for a `sampling/createMessage`'s params (as JSON): its messages in order
/// (text kept, other content named in brackets), its `systemPrompt` as the system text, its
/// `maxTokens` as the limit, and no tools: sampling asks for a completion, not a tool loop.
pub fn request_body(shape: ApiShape, model: &str, max_tokens: u32, params: &Value) -> Value {
    let conversation: Vec<Value> = params
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            let role = match m.get("role").and_then(Value::as_str) {
                Some("assistant") => "assistant",
                _ => "user",
            };
            json!({"role": role, "content": content_text(m.get("content"))})
        })
        .collect();
    let system = params.get("systemPrompt").and_then(Value::as_str);
    let limit = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(max_tokens);
    convert::request_body(shape, model, system, &[], &conversation, limit, false)
}

/// The text of a sampling message's content: one block or (2025-11-25) an array of blocks.
fn content_text(content: Option<&Value>) -> String {
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    blocks
        .iter()
        .map(
            |b| match (b.get("type").and_then(Value::as_str), b.get("text")) {
                (Some("text"), Some(Value::String(text))) => text.clone(),
                (Some(kind), _) => format!("[{kind} content]"),
                (None, _) => String::new(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampling_request_becomes_a_tool_free_llm_request_in_each_shape() {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize: MCP"}}],
            "systemPrompt": "You summarize.",
            "maxTokens": 100
        });
        let anthropic = request_body(ApiShape::Anthropic, "m", 1024, &params);
        assert_eq!(anthropic["system"], "You summarize.");
        assert_eq!(anthropic["max_tokens"], 100);
        assert_eq!(anthropic["messages"][0]["content"], "Summarize: MCP");
        assert!(anthropic.get("tools").is_none());
        let chat = request_body(ApiShape::OpenaiChat, "m", 1024, &params);
        assert_eq!(chat["messages"][0]["role"], "system");
        assert_eq!(chat["messages"][1]["content"], "Summarize: MCP");
        let responses = request_body(ApiShape::Openai, "m", 1024, &params);
        assert_eq!(responses["instructions"], "You summarize.");
        assert_eq!(responses["input"][0]["role"], "user");
    }

    #[test]
    fn content_arrays_and_non_text_blocks_are_kept_readable() {
        let content = json!([{"type": "text", "text": "a"}, {"type": "image", "data": "x"}]);
        assert_eq!(content_text(Some(&content)), "a\n[image content]");
    }
}
