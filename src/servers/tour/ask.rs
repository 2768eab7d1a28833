//! Asking the client for something (a sampling completion, an elicitation answer, its roots)
//! the way the request's protocol era allows.
//!
//! The same request object goes out either way, which is the point the tour wants to show:
//!
//! - **2025-11-25 and older**: a real server-to-client JSON-RPC request sent while the
//!   `tools/call` is still open; the tool waits for the client's answer.
//! - **2026-07-28**: servers must not send requests. The tool returns an
//!   `InputRequiredResult` (`resultType: "input_required"`) holding the request under a key,
//!   plus a `requestState`. The client fulfils it and retries the *same* `tools/call` with a
//!   new JSON-RPC id, `inputResponses: {key: result}` and the echoed `requestState`
//!   (multi round-trip requests, SEP-2322). The retry carries the original arguments again, so
//!   the state only marks which round this is; nothing in it is trusted.

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{
        CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, InputRequest,
        InputRequests, InputRequiredResult, InputResponses, ProtocolVersion, ServerRequest,
    },
    service::RequestContext,
};
use serde::de::DeserializeOwned;

/// What came of asking.
pub(crate) enum Asked<T> {
    /// The client answered; carry on with the tool.
    Answered(T),
    /// Return this from the tool as it is: an `input_required` round (2026-07-28) or a tool
    /// error the user should read (capability not declared, request refused).
    Return(Box<CallToolResponse>),
}

/// True when the request being served uses the 2026-07-28 rules (no server-to-client
/// requests, MRTR, `subscriptions/listen`). rmcp answers from the request's own `_meta`
/// first and falls back to the version negotiated by `initialize`.
pub(crate) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// The `requestState` the tour uses for a round that waits on `key`.
fn round_state(key: &str) -> String {
    format!("tour/awaiting/{key}")
}

/// Ask the client for `request` and decode its answer as `T` (`CreateMessageResult`,
/// `ElicitResult` or `ListRootsResult`).
///
/// `request_state` and `input_responses` are the MRTR fields of the current `tools/call`
/// (both `None` on the first round and always on 2025-11-25).
pub(crate) async fn ask<T: DeserializeOwned>(
    context: &RequestContext<RoleServer>,
    key: &str,
    request: InputRequest,
    request_state: Option<String>,
    input_responses: Option<InputResponses>,
) -> Result<Asked<T>, McpError> {
    let Some(need) = Need::of(&request) else {
        return Err(unknown_kind());
    };
    let declared = context
        .client_capabilities()
        .is_some_and(|capabilities| need.is_declared_in(&capabilities));
    let modern = is_modern(context);
    if !declared {
        if modern {
            // 2026-07-28 has a dedicated error for this (-32021, data.requiredCapabilities).
            return Err(McpError::missing_required_client_capability(
                need.capability(),
            ));
        }
        return Ok(tool_error(format!(
            "this tool asks the client for {}, but the client did not declare the `{}` capability",
            need.method(),
            need.name()
        )));
    }

    if modern {
        let state = round_state(key);
        if request_state.as_deref() == Some(state.as_str())
            && let Some(answer) = input_responses.and_then(|mut responses| responses.remove(key))
        {
            let answer = serde_json::from_value(answer).map_err(|error| {
                McpError::invalid_params(
                    format!(
                        "inputResponses.{key} is not a {} result: {error}",
                        need.method()
                    ),
                    None,
                )
            })?;
            return Ok(Asked::Answered(answer));
        }
        let mut requests = InputRequests::new();
        requests.insert(key.to_owned(), request);
        let round = InputRequiredResult::new(Some(requests), Some(state));
        return Ok(Asked::Return(Box::new(round.into())));
    }

    // Legacy: send the request itself. rmcp's named helpers are `Peer::create_message`,
    // `Peer::list_roots` (both #[deprecated], SEP-2577) and `Peer::create_elicitation`
    // (behind rmcp's `elicitation` feature, not enabled here); `send_request` covers all
    // three with the very object an MRTR round would carry.
    let server_request = match request {
        InputRequest::CreateMessage(request) => ServerRequest::CreateMessageRequest(request),
        InputRequest::Elicitation(request) => ServerRequest::ElicitRequest(request),
        InputRequest::ListRoots(request) => ServerRequest::ListRootsRequest(request),
        _ => return Err(unknown_kind()),
    };
    let result = match context.peer.send_request(server_request).await {
        Ok(result) => result,
        Err(error) => {
            return Ok(tool_error(format!(
                "the client did not answer {}: {error}",
                need.method()
            )));
        }
    };
    let answer = serde_json::to_value(result)
        .and_then(serde_json::from_value)
        .map_err(|error| {
            McpError::invalid_params(
                format!(
                    "the client's {} result is malformed: {error}",
                    need.method()
                ),
                None,
            )
        })?;
    Ok(Asked::Answered(answer))
}

/// `InputRequest` is non-exhaustive: a kind added by a later rmcp has no legacy request here.
fn unknown_kind() -> McpError {
    McpError::internal_error("the tour does not know this kind of input request", None)
}

fn tool_error<T>(message: String) -> Asked<T> {
    let result = CallToolResult::error(vec![ContentBlock::text(message)]);
    Asked::Return(Box::new(result.into()))
}

/// The client capability behind each kind of input request.
#[derive(Debug, Clone, Copy)]
enum Need {
    Sampling,
    Elicitation,
    Roots,
}

impl Need {
    fn of(request: &InputRequest) -> Option<Self> {
        match request {
            InputRequest::CreateMessage(_) => Some(Self::Sampling),
            InputRequest::Elicitation(_) => Some(Self::Elicitation),
            InputRequest::ListRoots(_) => Some(Self::Roots),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Sampling => "sampling",
            Self::Elicitation => "elicitation",
            Self::Roots => "roots",
        }
    }

    fn method(self) -> &'static str {
        match self {
            Self::Sampling => "sampling/createMessage",
            Self::Elicitation => "elicitation/create",
            Self::Roots => "roots/list",
        }
    }

    // Sampling and roots are deprecated by SEP-2577 but still part of both revisions.
    #[allow(deprecated)]
    fn is_declared_in(self, capabilities: &ClientCapabilities) -> bool {
        match self {
            Self::Sampling => capabilities.sampling.is_some(),
            Self::Elicitation => capabilities.elicitation.is_some(),
            Self::Roots => capabilities.roots.is_some(),
        }
    }

    // Sampling and roots are deprecated by SEP-2577 but still part of both revisions.
    #[allow(deprecated)]
    fn capability(self) -> ClientCapabilities {
        match self {
            Self::Sampling => ClientCapabilities::builder().enable_sampling().build(),
            Self::Elicitation => ClientCapabilities::builder().enable_elicitation().build(),
            Self::Roots => ClientCapabilities::builder().enable_roots().build(),
        }
    }
}
