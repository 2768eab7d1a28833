//! The tour's tools, one per protocol feature a workshop walks through.
//!
//! Tools that need something from the client (`summarize`, `confirm_action`,
//! `list_workspace`) go through [`ask`](super::ask::ask), which picks a server-to-client
//! request or an MRTR round by protocol era, so each tool reads the same in both eras.

use std::{sync::atomic::Ordering, time::Duration};

use rmcp::{
    ErrorData as McpError, RoleServer,
    handler::server::{
        tool::{InputResponses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
        ElicitResult, ElicitationAction, ElicitationSchema, InputRequest,
        ProgressNotificationParam,
    },
    service::RequestContext,
    tool, tool_router,
};
// Sampling, roots and logging are deprecated by SEP-2577 but still part of both revisions;
// `summarize`, `list_workspace` and `slow_count` exist to show them, and each use carries its
// own `#[allow(deprecated)]`.
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ListRootsRequest,
    ListRootsResult, LoggingLevel, SamplingMessage,
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Tour,
    ask::{Asked, ask},
    content,
};

/// Longest count `slow_count` accepts, so a typo cannot keep a call open for minutes.
const MAX_STEPS: u32 = 20;
/// Pause between two counts of `slow_count`.
const STEP_DELAY: Duration = Duration::from_millis(150);

#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct EchoArgs {
    /// Text to send back unchanged.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct SlowCountArgs {
    /// How far to count (1 to 20); one progress notification per step.
    steps: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct SummarizeArgs {
    /// Text for the client's model to summarize.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct ConfirmActionArgs {
    /// What the user is asked to allow, e.g. "delete the draft".
    action: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct TouchResourceArgs {
    /// URI of the resource to mark as changed, e.g. tour://clock.
    uri: String,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message)])
}

fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

fn internal(what: &str, error: impl std::fmt::Display) -> McpError {
    McpError::internal_error(format!("{what}: {error}"), None)
}

#[tool_router(vis = "pub(super)")]
impl Tour {
    /// Send the text back.
    #[tool(description = "Echo the text back unchanged (the simplest tools/call)")]
    fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    #[tool(
        description = "Count slowly, sending notifications/progress (when the request has a \
                       progressToken) and notifications/message log lines"
    )]
    async fn slow_count(
        &self,
        Parameters(args): Parameters<SlowCountArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let steps = args.steps;
        if !(1..=MAX_STEPS).contains(&steps) {
            return Ok(failure(format!("steps must be between 1 and {MAX_STEPS}")));
        }
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                () = context.ct.cancelled() => {
                    return Ok(failure(format!("cancelled after {} of {steps}", step - 1)));
                }
                () = tokio::time::sleep(STEP_DELAY) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(steps))
                    .with_message(format!("counted {step} of {steps}"));
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(|error| internal("sending progress", error))?;
            }
            #[allow(deprecated)] // Logging, see the import.
            let level = LoggingLevel::Info;
            self.log(&context, level, format!("slow_count reached {step}"))
                .await?;
        }
        Ok(text(format!("Counted to {steps}.")))
    }

    #[tool(description = "Summarize text by asking the client's model (sampling/createMessage)")]
    #[allow(deprecated)] // Sampling, see the import.
    async fn summarize(
        &self,
        Parameters(args): Parameters<SummarizeArgs>,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, McpError> {
        let request = InputRequest::CreateMessage(CreateMessageRequest::new(
            CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text(format!(
                    "Summarize in one sentence:\n\n{}",
                    args.text
                ))],
                200,
            )
            .with_system_prompt("You write one-sentence summaries."),
        ));
        let result: CreateMessageResult =
            match ask(&context, "summary", request, state, responses).await? {
                Asked::Answered(result) => result,
                Asked::Return(response) => return Ok(*response),
            };
        let summary: Vec<&str> = result
            .message
            .content
            .iter()
            .filter_map(|block| block.as_text())
            .map(|text| text.text.as_str())
            .collect();
        Ok(text(format!(
            "Summary by {}: {}",
            result.model,
            summary.join(" ")
        ))
        .into())
    }

    #[tool(description = "Ask the user to confirm an action (elicitation/create)")]
    async fn confirm_action(
        &self,
        Parameters(args): Parameters<ConfirmActionArgs>,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, McpError> {
        let schema = ElicitationSchema::builder()
            .required_bool_property("confirm", |schema| {
                schema.title("Confirm").description("Allow this action?")
            })
            .build()
            .map_err(|error| internal("building the elicitation schema", error))?;
        let request = InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: format!("The tour server wants to: {}. Allow it?", args.action),
                requested_schema: schema,
            },
        ));
        let result: ElicitResult = match ask(&context, "confirm", request, state, responses).await?
        {
            Asked::Answered(result) => result,
            Asked::Return(response) => return Ok(*response),
        };
        let confirmed = result
            .content
            .as_ref()
            .and_then(|content| content.get("confirm"))
            .and_then(|confirm| confirm.as_bool());
        let outcome = match (result.action, confirmed) {
            (ElicitationAction::Accept, Some(true)) => {
                format!("Confirmed: {} (a demo; nothing was done).", args.action)
            }
            (ElicitationAction::Accept, _) => format!("Not confirmed: {}.", args.action),
            (ElicitationAction::Decline, _) => format!("Declined: {}.", args.action),
            _ => format!("Cancelled: {}.", args.action),
        };
        Ok(text(outcome).into())
    }

    #[tool(description = "List the client's workspace roots (roots/list)")]
    #[allow(deprecated)] // Roots, see the import.
    async fn list_workspace(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, McpError> {
        let request = InputRequest::ListRoots(ListRootsRequest::default());
        let result: ListRootsResult =
            match ask(&context, "roots", request, state, responses).await? {
                Asked::Answered(result) => result,
                Asked::Return(response) => return Ok(*response),
            };
        if result.roots.is_empty() {
            return Ok(text("The client shared no roots.").into());
        }
        let lines: Vec<String> = result
            .roots
            .iter()
            .map(|root| match &root.name {
                Some(name) => format!("{} ({name})", root.uri),
                None => root.uri.clone(),
            })
            .collect();
        Ok(text(format!("Workspace roots:\n{}", lines.join("\n"))).into())
    }

    #[tool(
        description = "Reveal the hidden tool bonus_fact and announce it with \
                       notifications/tools/list_changed"
    )]
    async fn unlock_bonus(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if self.inner.bonus_unlocked.swap(true, Ordering::SeqCst) {
            return Ok(text("bonus_fact is already unlocked."));
        }
        let how = self.announce_tool_list_changed(&context).await?;
        Ok(text(format!("Unlocked bonus_fact. {how}")))
    }

    #[tool(description = "A fact about MCP, hidden until unlock_bonus is called")]
    fn bonus_fact(&self) -> String {
        content::BONUS_FACT.to_owned()
    }

    #[tool(
        description = "Mark a resource as changed: subscribers get notifications/resources/updated"
    )]
    async fn touch_resource(
        &self,
        Parameters(args): Parameters<TouchResourceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if !content::is_known_uri(&args.uri) {
            return Ok(failure(format!("the tour has no resource {}", args.uri)));
        }
        let notified = self.announce_resource_updated(&context, &args.uri).await?;
        Ok(text(format!(
            "Touched {}; notified {notified} subscriber(s).",
            args.uri
        )))
    }
}
