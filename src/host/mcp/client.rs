//! The host's side of the conversation the server starts: what [`HostClient`] answers to
//! sampling, elicitation and roots requests, and how it notices `list_changed`. Apart from the
//! connection ([`super::McpConnection`]) because these are the host's decisions, not transport.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
// Sampling and roots are deprecated by SEP-2577 but still part of both revisions we speak.
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ListRootsResult, Root, SamplingMessage,
};
use serde_json::Value;

use crate::host::sampling::Sampler;
use crate::host::scenario::{HostOptions, Protocol};
use crate::tap::Recorder;
use crate::trace::Lane;

/// Answers the server's requests as a host does, and notices `list_changed`: sampling goes to
/// the host's model (a recorded LLM request), elicitation to the user (the scenario's answer,
/// drawn on the user lane), roots come from the host's configuration.
#[derive(Clone)]
pub struct HostClient {
    info: ClientConfig,
    options: Arc<HostOptions>,
    /// The server's name, for the notes the host records.
    server: String,
    recorder: Arc<Recorder>,
    /// The host's model, asked for `sampling/createMessage`; `None` when the host has none.
    sampler: Option<Arc<Sampler>>,
    pub(super) tools_changed: Arc<AtomicBool>,
    /// How many `list_changed` notifications rmcp has delivered (handler or listen stream).
    pub(super) delivered: Arc<AtomicU64>,
}

impl HostClient {
    pub(super) fn new(
        protocol: Protocol,
        options: Arc<HostOptions>,
        server: String,
        recorder: Arc<Recorder>,
        sampler: Option<Arc<Sampler>>,
    ) -> Self {
        #[allow(deprecated)] // roots and sampling, see the import
        let capabilities = ClientCapabilities::builder()
            .enable_roots()
            .enable_sampling()
            .enable_elicitation()
            .build();
        let mut info = ClientConfig::new(
            capabilities,
            Implementation::new("sightline-host", env!("CARGO_PKG_VERSION")),
        );
        if protocol == Protocol::V2025_11_25 {
            // rmcp's default `initialize` would name 2026-07-28, a revision without `initialize`.
            info = info.with_protocol_version(ProtocolVersion::V_2025_11_25);
        }
        HostClient {
            info,
            options,
            server,
            recorder,
            sampler,
            tools_changed: Arc::new(AtomicBool::new(false)),
            delivered: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl ClientHandler for HostClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    #[allow(deprecated)] // sampling, see the import
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let Some(sampler) = &self.sampler else {
            let text = format!(
                "host has no model to answer the sampling request of server `{}`",
                self.server
            );
            self.recorder.record_note(Lane::Host, Lane::Host, &text);
            return Err(McpError::internal_error(text, None));
        };
        let (text, model) = sampler
            .sample(&self.server, &params, &self.recorder)
            .await
            .map_err(|text| {
                self.recorder.record_note(Lane::Host, Lane::Host, &text);
                McpError::internal_error(text, None)
            })?;
        Ok(
            CreateMessageResult::new(SamplingMessage::assistant_text(text), model)
                .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        // Elicitation asks the user, not the model: the host shows the question on the user
        // lane and brings back the user's answer (the app's dialog in a live run, else
        // scripted by the scenario).
        let request = serde_json::to_value(&request).unwrap_or_default();
        let question = request
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.recorder.record_note(
            Lane::Host,
            Lane::User,
            &format!("server `{}` asks the user: {question}", self.server),
        );
        let asked;
        let answer = match &self.options.user {
            Some(user) => {
                let schema = request.get("requestedSchema").cloned().unwrap_or_default();
                asked = user.ask(&self.server, &question, schema).await;
                &asked
            }
            None => &self.options.elicitation,
        };
        let reply = match &answer.content {
            Some(content) if answer.action == "accept" => {
                format!("the user answers: accept {content}")
            }
            _ => format!("the user answers: {}", answer.action),
        };
        self.recorder.record_note(Lane::User, Lane::Host, &reply);
        let action = match answer.action.as_str() {
            "accept" => ElicitationAction::Accept,
            "cancel" => ElicitationAction::Cancel,
            _ => ElicitationAction::Decline,
        };
        let accept = matches!(action, ElicitationAction::Accept);
        let mut result = ElicitResult::new(action);
        if let (true, Some(content)) = (accept, &answer.content) {
            result = result.with_content(content.clone());
        }
        Ok(result)
    }

    #[allow(deprecated)] // roots, see the import
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        let uris: Vec<&str> = self.options.roots.iter().map(|r| r.uri.as_str()).collect();
        self.recorder.record_note(
            Lane::Host,
            Lane::Host,
            &format!(
                "host answers roots/list of server `{}` from its own configuration (no model, no user): {}",
                self.server,
                match uris.is_empty() {
                    true => "no roots".to_string(),
                    false => uris.join(", "),
                }
            ),
        );
        let roots = self
            .options
            .roots
            .iter()
            .map(|r| {
                let root = Root::new(r.uri.clone());
                match &r.name {
                    Some(name) => root.with_name(name.clone()),
                    None => root,
                }
            })
            .collect();
        Ok(ListRootsResult::new(roots))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
        self.delivered.fetch_add(1, Ordering::SeqCst);
    }
}
