//! The agent loop, as the seed article draws it: the host in the middle.
//!
//! 1. The user's prompt arrives (recorded `user -> host`).
//! 2. The host connects to each server and lists its tools; the [`Catalog`] decides what the
//!    model will see.
//! 3. The host sends the LLM request with that `tools` parameter; the model answers.
//! 4. While the model asks for tools, the host sends each call to its server as `tools/call`
//!    and returns the result as a `tool_result`.
//! 5. When the model stops asking, its text goes back to the user (`host -> user`).
//!
//! The model never talks to a server: every message of the loop goes through here.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

mod call;

use super::connector::Remote;
use super::deferral::Deferral;
use super::mcp::{ConnectError, McpConnection};
use super::provider::{Provider, ProviderConfig, ProviderError};
use super::sampling::Sampler;
use super::scenario::{Protocol, Scenario};
use super::scripted::ScriptedModel;
use crate::analysis::narration;
use crate::i18n::{Language, Words};
use crate::tap::Recorder;
use crate::trace::Lane;
use crate::wire::api::ApiShape;
use crate::wire::catalog::{Catalog, Fate};
use crate::wire::convert;

/// How to run a scenario; each field overrides the scenario's own setting.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub shape: Option<ApiShape>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub protocol: Option<Protocol>,
    pub stream: Option<bool>,
    /// How long one LLM request may take.
    pub timeout: Option<Duration>,
    /// How long one MCP request may wait for its answer (default
    /// [`DEFAULT_REQUEST_TIMEOUT`](super::mcp::DEFAULT_REQUEST_TIMEOUT)).
    pub mcp_timeout: Option<Duration>,
    /// Recorded model responses to serve in order instead of asking a model
    /// (`run --replay-model`): the scripted model's server plays them.
    pub cassette: Option<super::replay::cassette::Cassette>,
    /// The language of the progress lines (`run --lang`).
    pub lang: Language,
    /// A person to put the servers' elicitation questions to (the app's live run); without
    /// one the scenario's scripted answer stands for the user.
    pub user: Option<super::user::UserLane>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error("cannot start the scripted model: {0}")]
    Scripted(String),
    #[error("the model's answer could not be read: {0}")]
    Response(String),
    #[error("cannot find the sightline executable to run built-in servers: {0}")]
    SelfExe(std::io::Error),
    /// A server the LLM API is to connect to could not be served.
    #[error("cannot serve the remote server {0}")]
    Remote(String),
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub answer: String,
    pub model_turns: u32,
    pub stop_reason: String,
    pub catalog: Catalog,
}

/// What the loop reports as it goes, for the terminal, in [`RunOptions::lang`].
pub type Progress<'a> = &'a mut (dyn FnMut(&str) + Send);

/// A progress line: `run_progress.<key>` in `lang`, filled in.
pub(super) fn line(lang: Language, key: &str, args: &[(&str, &str)]) -> String {
    Words::of(lang).fmt(&format!("run_progress.{key}"), args)
}

/// A note the host records (in Sightline's English, as the trace keeps it), as a progress
/// line in `lang`: said as the narration says it.
fn note_line(lang: Language, from: Lane, to: Lane, text: &str) -> String {
    let said = narration::note_in(from, to, text, lang);
    line(lang, "note", &[("text", &said)])
}

/// Runs `scenario` to the end, recording everything through `recorder`; the user and the
/// scripted model speak [`RunOptions::lang`] where the scenario gives their words in it.
pub async fn run(
    scenario: &Scenario,
    options: &RunOptions,
    recorder: Arc<Recorder>,
    progress: Progress<'_>,
) -> Result<RunOutcome, RunError> {
    let scenario = &scenario.clone().in_language(options.lang);
    let cassette = options.cassette.as_ref();
    let shape = options
        .shape
        .or(cassette.and_then(|c| c.shape))
        .unwrap_or(scenario.provider);
    let model = options
        .model
        .clone()
        .unwrap_or_else(|| scenario.model.clone());
    let protocol = options.protocol.unwrap_or(scenario.protocol);
    let stream = options
        .stream
        .or(cassette.map(|c| c.stream))
        .unwrap_or(scenario.host.stream);
    let mut host = scenario.host.clone();
    host.user = options.user.clone();
    let host = Arc::new(host);

    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let scripted = if let Some(cassette) = cassette {
        let m = ScriptedModel::start_cassette(cassette.clone(), addr)
            .await
            .map_err(|e| RunError::Scripted(e.to_string()))?;
        Some(m)
    } else if model == super::scenario::SCRIPTED_MODEL && options.base_url.is_none() {
        let m = ScriptedModel::start_with_sampling(
            scenario.script.clone(),
            scenario.host.sampling_reply.as_str().to_string(),
            addr,
        )
        .await
        .map_err(|e| RunError::Scripted(e.to_string()))?;
        Some(m)
    } else {
        None
    };
    let base_url = match (&scripted, &options.base_url) {
        (Some(m), _) => m.base_url(),
        (None, Some(url)) => url.clone(),
        (None, None) => shape.default_base_url().to_string(),
    };
    // A key is never sent to the cassette's local server.
    let api_key = shape
        .key_variables()
        .iter()
        .find_map(|variable| std::env::var(variable).ok().filter(|k| !k.is_empty()))
        .filter(|_| cassette.is_none());
    let provider = Arc::new(Provider::new(ProviderConfig {
        shape,
        base_url: base_url.clone(),
        model: model.clone(),
        api_key,
        stream,
        timeout: options.timeout.unwrap_or(Duration::from_secs(120)),
        extra_headers: Vec::new(),
    })?);
    // Sampling asks the client's model: the same model and provider as the loop.
    let sampler = Arc::new(Sampler {
        provider: provider.clone(),
        shape,
        model: model.clone(),
        max_tokens: host.max_tokens,
    });

    recorder.record_note(Lane::User, Lane::Host, scenario.prompt.as_str());
    let lang = options.lang;
    progress(&line(lang, "user", &[("text", scenario.prompt.as_str())]));

    let remote = match Remote::start(scenario, &recorder).await {
        Ok(remote) => remote,
        Err(error) => {
            if let Some(m) = scripted {
                m.shutdown().await;
            }
            return Err(error);
        }
    };
    let mut connections = Vec::new();
    let result = async {
        for spec in scenario.host_servers() {
            let cmd = super::mcp::server_command(spec).map_err(RunError::SelfExe)?;
            let args = [
                ("server", spec.name.as_str()),
                ("revision", protocol.as_str()),
            ];
            progress(&line(lang, "starting", &args));
            let timeout = options
                .mcp_timeout
                .unwrap_or(super::mcp::DEFAULT_REQUEST_TIMEOUT);
            let connection = McpConnection::connect_with_model(
                &cmd,
                recorder.clone(),
                protocol,
                host.clone(),
                Some(sampler.clone()),
                timeout,
            )
            .await?;
            connections.push(connection);
        }
        let ctx = Loop {
            shape,
            model: &model,
            scenario,
            provider: &provider,
            recorder: &recorder,
            connections: &connections,
            remote: &remote,
            max_tokens: host.max_tokens,
            stream,
            lang,
        };
        ctx.run(progress).await
    }
    .await;

    for connection in connections {
        connection.close().await;
    }
    remote.stop().await;
    if let Some(m) = scripted {
        m.shutdown().await;
    }
    result
}

struct Loop<'a> {
    shape: ApiShape,
    model: &'a str,
    scenario: &'a Scenario,
    provider: &'a Provider,
    recorder: &'a Recorder,
    connections: &'a [McpConnection],
    /// The servers the LLM API itself is the client of.
    remote: &'a Remote,
    max_tokens: u32,
    stream: bool,
    lang: Language,
}

impl Loop<'_> {
    /// Whether the API's refusal was of the stdio servers the request handed it; the host
    /// stops declaring them and says so.
    fn stdio_refused(&self, progress: Progress<'_>) -> bool {
        let dropped = self.remote.drop_stdio();
        if !dropped.is_empty() {
            let (servers, count) = (dropped.join(", "), dropped.len().to_string());
            let args = [("servers", servers.as_str()), ("count", count.as_str())];
            progress(&line(self.lang, "stdio_refused", &args));
        }
        !dropped.is_empty()
    }

    /// A note the host records about itself, and says on the run's progress.
    fn host_note(&self, text: &str, progress: Progress<'_>) {
        self.recorder.record_note(Lane::Host, Lane::Host, text);
        progress(&note_line(self.lang, Lane::Host, Lane::Host, text));
    }

    async fn catalog(&self, progress: Progress<'_>) -> Result<Catalog, RunError> {
        let mut listed = Vec::new();
        for c in self.connections {
            let tools = c.list_tools().await?;
            let count = tools.len().to_string();
            let args = [("server", c.name.as_str()), ("count", count.as_str())];
            progress(&line(self.lang, "listed", &args));
            listed.push((c.name.clone(), tools));
        }
        let catalog = Catalog::build(self.shape, &listed, &self.scenario.host.catalog());
        for (entry, why) in catalog.dropped() {
            let text = format!(
                "host drops tool `{}` of server `{}`: {why}",
                entry.mcp_name, entry.server
            );
            self.host_note(&text, progress);
        }
        for e in catalog
            .entries
            .iter()
            .filter(|e| e.fate == Fate::Sent && e.api_name != e.mcp_name)
        {
            let text = format!(
                "host shows tool `{}` of server `{}` to the model as `{}`",
                e.mcp_name, e.server, e.api_name
            );
            self.host_note(&text, progress);
        }
        Ok(catalog)
    }

    /// The system text: the scenario's, then each server's `instructions` (as hosts do).
    fn system(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .scenario
            .system
            .iter()
            .map(|s| s.as_str().to_string())
            .collect();
        for c in self.connections {
            if let Some(instructions) = c.facts().instructions {
                parts.push(format!(
                    "Instructions from MCP server `{}`: {instructions}",
                    c.name
                ));
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// Resources and prompts: listed on connect, read or fetched when the scenario says so.
    async fn context(&self, progress: Progress<'_>) -> Result<(Option<String>, String), RunError> {
        for c in self.connections {
            let (resources, prompts) = c.list_other_primitives().await?;
            if resources + prompts > 0 {
                let (resources, prompts) = (resources.to_string(), prompts.to_string());
                let args = [
                    ("server", c.name.as_str()),
                    ("resources", resources.as_str()),
                    ("prompts", prompts.as_str()),
                ];
                progress(&line(self.lang, "offers", &args));
            }
        }
        let mut system = self.system();
        for uri in &self.scenario.host.attach_resources {
            for c in self.connections {
                if let Ok(text) = c.read_resource(uri).await {
                    let args = [("uri", uri.as_str()), ("server", c.name.as_str())];
                    progress(&line(self.lang, "attached", &args));
                    let attached = format!("Resource {uri} (attached by the host):\n{text}");
                    system = Some(match system {
                        Some(s) => format!("{s}\n\n{attached}"),
                        None => attached,
                    });
                    break;
                }
            }
        }
        let mut user_text = self.scenario.prompt.as_str().to_string();
        if let Some(t) = &self.scenario.prompt_template
            && let Some(c) = self.connections.iter().find(|c| c.name == t.server)
        {
            let arguments = t
                .arguments
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            user_text = c.get_prompt(&t.name, arguments).await?;
            let args = [
                ("name", t.name.as_str()),
                ("server", t.server.as_str()),
                ("text", user_text.as_str()),
            ];
            progress(&line(self.lang, "picked_prompt", &args));
        }
        Ok((system, user_text))
    }

    async fn run(&self, progress: Progress<'_>) -> Result<RunOutcome, RunError> {
        let (system, user_text) = self.context(progress).await?;
        let mut catalog = self.catalog(progress).await?;
        let mut conversation = convert::user_message(self.shape, &user_text);
        let mut turns = 0;
        let mut deferral = Deferral::for_run(
            self.scenario.host.defer_tools,
            self.shape,
            self.lang,
            progress,
        );
        loop {
            // Every list_changed that crossed the wire before the last result is handled first
            // (see McpConnection::settle). A host that skipped this would send the model a
            // stale list by accident; Sightline shows a stale list only when a scenario asks.
            for c in self.connections {
                c.settle(Duration::from_secs(2)).await;
            }
            let changed = self
                .connections
                .iter()
                .any(McpConnection::take_tools_changed);
            if changed {
                if self.scenario.host.refetch_on_list_changed {
                    progress(&line(self.lang, "refetch", &[]));
                    catalog = self.catalog(progress).await?;
                } else {
                    let text = "host ignores notifications/tools/list_changed: the model keeps the stale list";
                    self.host_note(text, progress);
                }
            }
            let (tools, system) = match &deferral {
                Some(d) => (d.tools(&catalog), d.system(system.as_deref(), &catalog)),
                None => (catalog.api_tools(), system.clone()),
            };
            let mut body = convert::request_body(
                self.shape,
                self.model,
                system.as_deref(),
                &tools,
                &conversation,
                self.max_tokens,
                self.stream,
            );
            let count = tools.len().to_string();
            let args = [("shape", self.shape.as_str()), ("count", count.as_str())];
            progress(&line(self.lang, "llm_request", &args));
            let headers = self.remote.declare(self.shape, &mut body);
            let sent = (self.provider)
                .send_with_headers(&body, &headers, self.recorder)
                .await;
            let reply = match sent {
                // The API refused the local stdio servers it was handed: say so, and send the
                // request again without them.
                Err(ProviderError::Status { status: 400, .. }) if self.stdio_refused(progress) => {
                    continue;
                }
                sent => sent?,
            };
            turns += 1;
            let turn = convert::parse_response(self.shape, &reply.body)
                .map_err(|e| RunError::Response(e.to_string()))?;
            if !turn.text.is_empty() {
                progress(&line(self.lang, "llm_text", &[("text", &turn.text)]));
            }
            conversation.extend(turn.assistant_message.iter().cloned());
            if !turn.wants_tools
                || turn.tool_calls.is_empty()
                || turns >= self.scenario.host.max_turns
            {
                progress(&line(self.lang, "llm_stop", &[("stop", &turn.stop_reason)]));
                self.recorder
                    .record_note(Lane::Host, Lane::User, &turn.text);
                return Ok(RunOutcome {
                    answer: turn.text,
                    model_turns: turns,
                    stop_reason: turn.stop_reason,
                    catalog,
                });
            }
            let mut results = Vec::new();
            for call in &turn.tool_calls {
                match deferral.as_mut() {
                    Some(d) if Deferral::is_search(call) => {
                        results.push(d.answer(&catalog, call, self.lang, progress));
                    }
                    _ => results.extend(self.call(&catalog, call, progress).await),
                }
            }
            conversation.extend(convert::tool_results_message(self.shape, results));
        }
    }
}
