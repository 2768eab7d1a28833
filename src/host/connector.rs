//! The servers a scenario hands the LLM API rather than connecting to them (`client = "api"`):
//! the host as the seed article's "Quando a API vira o cliente MCP" draws it, a host that never
//! sees the server.
//!
//! A `builtin` server is served in-process over Streamable HTTP, behind the tap's HTTP proxy
//! (the code of `sightline proxy --http`), which records every message on the server's own lane
//! with the LLM API as its client ([`HttpProxy::client_lane`]): what the API's MCP client sent
//! and what the server answered, byte for byte. Each LLM request then declares the proxy's URL,
//! the way each API's hosted MCP client takes it: Anthropic's MCP connector as an
//! `mcp_servers` entry (`{"type": "url", url, name}`, with the `anthropic-beta:
//! mcp-client-2025-11-20` header) and an `mcp_toolset` entry in `tools`; OpenAI Responses as a
//! `{"type": "mcp", server_label, server_url, require_approval: "never"}` tool.
//!
//! A `command` server is declared as what it is, a local stdio server (`{"type": "stdio",
//! name, command, args}`), and is never started: the APIs connect to remote servers by URL
//! only, so the API refuses the request ("Local STDIO servers cannot be connected directly").
//! The host then says so and sends the request again without those servers
//! ([`Remote::drop_stdio`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::agent::RunError;
use super::scenario::{Scenario, ServerClient, ServerSpec};
use crate::tap::Recorder;
use crate::tap::http_proxy::HttpProxy;
use crate::trace::Lane;
use crate::wire::api::ApiShape;

/// The beta Anthropic's MCP connector needs on each request.
pub const CONNECTOR_BETA: (&str, &str) = ("anthropic-beta", "mcp-client-2025-11-20");

/// How long the proxy gives exchanges in flight when the run ends.
const GRACE: Duration = Duration::from_secs(1);

/// One server the API is to connect to.
struct Declared {
    name: String,
    /// The proxy's URL; `None` for a local stdio server (a `command`).
    url: Option<String>,
    spec: ServerSpec,
}

/// The scenario's `client = "api"` servers, those served running until [`Remote::stop`].
pub(super) struct Remote {
    declared: Vec<Declared>,
    /// Whether the API refused the stdio servers and they are no longer declared.
    stdio_dropped: AtomicBool,
    stop: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Remote {
    /// Serves each `builtin` server of `scenario` that the API is the client of, behind a
    /// recording proxy; a scenario without any starts nothing.
    pub(super) async fn start(
        scenario: &Scenario,
        recorder: &Arc<Recorder>,
    ) -> Result<Remote, RunError> {
        let mut remote = Remote {
            declared: Vec::new(),
            stdio_dropped: AtomicBool::new(false),
            stop: Vec::new(),
            tasks: Vec::new(),
        };
        let specs = scenario.servers.iter();
        for spec in specs.filter(|s| s.client == ServerClient::Api) {
            let url = match &spec.builtin {
                Some(builtin) => Some(remote.serve(builtin, &spec.name, recorder).await?),
                None => None,
            };
            remote.declared.push(Declared {
                name: spec.name.clone(),
                url,
                spec: spec.clone(),
            });
        }
        Ok(remote)
    }

    /// The built-in server `builtin` on a loopback port, and the proxy recording it as
    /// `server:<name>` in front of it; the proxy's endpoint URL.
    async fn serve(
        &mut self,
        builtin: &str,
        name: &str,
        recorder: &Arc<Recorder>,
    ) -> Result<String, RunError> {
        let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let failed = |e: &dyn std::fmt::Display| RunError::Remote(format!("{name}: {e}"));
        let listener = tokio::net::TcpListener::bind(loopback)
            .await
            .map_err(|e| failed(&e))?;
        let server_addr = listener.local_addr().map_err(|e| failed(&e))?;
        let (stop_server, server_stopped) = oneshot::channel::<()>();
        let builtin = builtin.to_string();
        self.tasks.push(tokio::spawn(async move {
            let stopped = async move {
                let _ = server_stopped.await;
            };
            if let Err(error) = crate::servers::run_http_on(&builtin, listener, stopped).await {
                tracing::warn!(%error, "remote demo server stopped");
            }
        }));
        self.stop.push(stop_server);
        let upstream = format!("http://{server_addr}/mcp");
        let proxy = HttpProxy::bind(loopback, &upstream, name, recorder.clone())
            .await
            .map_err(|e| failed(&e))?
            .client_lane(Lane::Llm);
        let url = format!("http://{}/mcp", proxy.local_addr());
        let (stop_proxy, proxy_stopped) = oneshot::channel::<()>();
        self.tasks.push(tokio::spawn(async move {
            let stopped = async move {
                let _ = proxy_stopped.await;
            };
            if let Err(error) = proxy.serve(stopped, GRACE).await {
                tracing::warn!(%error, "remote server's proxy stopped");
            }
        }));
        self.stop.push(stop_proxy);
        Ok(url)
    }

    /// Whether the scenario hands the API any server.
    pub(super) fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }

    fn current(&self) -> impl Iterator<Item = &Declared> {
        let dropped = self.stdio_dropped.load(Ordering::Relaxed);
        self.declared
            .iter()
            .filter(move |d| d.url.is_some() || !dropped)
    }

    /// Declares the servers in request `body` of `shape`, as that API takes them; the headers
    /// the request needs besides.
    pub(super) fn declare(
        &self,
        shape: ApiShape,
        body: &mut Value,
    ) -> Vec<(&'static str, &'static str)> {
        if self.is_empty() {
            return Vec::new();
        }
        let Some(fields) = body.as_object_mut() else {
            return Vec::new();
        };
        match shape {
            ApiShape::Anthropic => {
                let servers: Vec<Value> = self.current().map(anthropic_entry).collect();
                let toolsets = self
                    .current()
                    .filter(|d| d.url.is_some())
                    .map(|d| json!({"type": "mcp_toolset", "mcp_server_name": d.name}));
                let tools = fields.entry("tools").or_insert_with(|| json!([]));
                if let Some(tools) = tools.as_array_mut() {
                    tools.extend(toolsets);
                }
                fields.insert("mcp_servers".into(), Value::Array(servers));
                vec![CONNECTOR_BETA]
            }
            ApiShape::Openai => {
                let entries: Vec<Value> = self.current().map(responses_entry).collect();
                let tools = fields.entry("tools").or_insert_with(|| json!([]));
                if let Some(tools) = tools.as_array_mut() {
                    tools.extend(entries);
                }
                Vec::new()
            }
            // Chat Completions and Gemini have no hosted MCP client to hand a server to.
            ApiShape::OpenaiChat | ApiShape::Gemini => Vec::new(),
        }
    }

    /// After the API refused a request: when it still declared stdio servers, stop declaring
    /// them, and the names of those dropped (the host sends the request again); empty when
    /// the refusal is not theirs to answer.
    pub(super) fn drop_stdio(&self) -> Vec<String> {
        if self.stdio_dropped.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        let stdio = self.declared.iter().filter(|d| d.url.is_none());
        stdio.map(|d| d.name.clone()).collect()
    }

    /// Stops the servers and their proxies, giving exchanges in flight a moment.
    pub(super) async fn stop(self) {
        for stop in self.stop {
            let _ = stop.send(());
        }
        for task in self.tasks {
            if tokio::time::timeout(GRACE * 2, task).await.is_err() {
                tracing::warn!("a remote server did not stop in time");
            }
        }
    }
}

/// The `mcp_servers` entry of Anthropic's MCP connector: a URL, or a local stdio server as a
/// desktop host's configuration would write it.
fn anthropic_entry(d: &Declared) -> Value {
    match &d.url {
        Some(url) => json!({"type": "url", "url": url, "name": d.name}),
        None => stdio_entry(d),
    }
}

/// An OpenAI Responses `mcp` tool (a stdio server has no `server_url` to give).
fn responses_entry(d: &Declared) -> Value {
    match &d.url {
        Some(url) => json!({
            "type": "mcp",
            "server_label": d.name,
            "server_url": url,
            "require_approval": "never",
        }),
        None => {
            let mut entry = stdio_entry(d);
            if let Some(fields) = entry.as_object_mut() {
                fields.insert("type".into(), "mcp".into());
                fields.insert("server_label".into(), d.name.clone().into());
                fields.remove("name");
            }
            entry
        }
    }
}

fn stdio_entry(d: &Declared) -> Value {
    json!({
        "type": "stdio",
        "name": d.name,
        "command": d.spec.command.clone().unwrap_or_default(),
        "args": d.spec.args,
    })
}
