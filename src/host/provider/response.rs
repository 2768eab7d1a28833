//! Reading an answer: its status, then its body as JSON or as a stream to reassemble.

use serde_json::Value;

use super::{Provider, ProviderError, error};
use crate::wire::api::ApiShape;
use crate::wire::{reassemble, sse};

impl Provider {
    /// The answer as JSON, or the error its status or body amounts to.
    pub(super) fn interpret(
        &self,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<Value, ProviderError> {
        let url = self.url.clone();
        match status {
            401 | 403 => {
                let variable = self.config.shape.key_variable();
                let sent_key = self.config.api_key.as_deref();
                let key_sent = sent_key.is_some_and(|key| !key.trim().is_empty());
                let message = error::error_message(body);
                return Err(ProviderError::Unauthorized {
                    url,
                    status,
                    message,
                    variable,
                    key_sent,
                });
            }
            429 => {
                let message = match body.is_empty() {
                    true => String::new(),
                    false => error::error_message(body),
                };
                let retry_after = error::retry_after(headers);
                return Err(ProviderError::RateLimited {
                    url,
                    retry_after,
                    message,
                });
            }
            300..=399 => {
                let location = header(headers, "location").unwrap_or("no location given");
                let message = format!("redirected to {location} (redirects are not followed)");
                return Err(ProviderError::Status {
                    url,
                    status,
                    message,
                });
            }
            200..=299 => {}
            _ => {
                let message = error::error_message(body);
                return Err(ProviderError::Status {
                    url,
                    status,
                    message,
                });
            }
        }
        let content_type = header(headers, "content-type").unwrap_or("");
        if content_type
            .to_ascii_lowercase()
            .starts_with("text/event-stream")
        {
            let events = sse::SseParser::parse(body);
            return reassemble::reassemble(self.config.shape, &events).map_err(|detail| {
                ProviderError::BadStream {
                    url,
                    status,
                    detail,
                }
            });
        }
        let value: Value = serde_json::from_slice(body).map_err(|_| ProviderError::NotJson {
            url: url.clone(),
            status,
            snippet: error::body_snippet(body),
        })?;
        match value {
            // Gemini's `streamGenerateContent` without `?alt=sse`: a JSON array of responses.
            Value::Array(_) if self.config.shape == ApiShape::Gemini => {
                let text = String::from_utf8_lossy(body);
                reassemble::gemini_json_array(&text).map_err(|detail| ProviderError::BadStream {
                    url,
                    status,
                    detail,
                })
            }
            value => Ok(value),
        }
    }
}

/// The first value of a header, by name in any case.
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}
