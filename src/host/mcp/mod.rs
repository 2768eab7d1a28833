//! The host's MCP client: rmcp, connected to each server *through the tap*.
//!
//! rmcp speaks the protocol; the tap records it. They meet at a socket pair (Unix; loopback TCP
//! on Windows, [`crate::tap::stdio::socket_pair`]): rmcp gets one
//! end as its transport, the tap pumps the other end to the server process. So every byte rmcp
//! sends or receives is recorded exactly as it crossed, including what rmcp's typed layer
//! would hide (unknown fields, non-JSON lines, its own automatic error replies).
//!
//! The client answers the server's requests (sampling, elicitation, roots, and their
//! 2026-07-28 `input_required` forms) from the scenario, and raises a flag when the server
//! says its tool list changed.
//!
//! Every request the host makes waits at most the connection's timeout for its answer
//! ([`ConnectError::Timeout`] names the server, the request and the time). A connection that
//! goes away without [`McpConnection::close`] (an error, a cancelled run, a panic) still
//! stops its server: its process group gets SIGTERM, then SIGKILL, and the exit is recorded.

use crate::tap::stdio::PairStream;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, ProtocolVersion, ReadResourceRequestParams,
    SubscriptionFilter,
};
use rmcp::service::{ClientCacheConfig, RunningService};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;

mod client;

pub use client::HostClient;

use crate::host::sampling::Sampler;
use crate::host::scenario::{HostOptions, Protocol};
use crate::tap::{Recorder, ServerCommand, StdioTap, TapError};
use crate::trace::Lane;

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Tap(#[from] TapError),
    #[error("cannot connect the tap to the MCP client: {0}")]
    Socket(io::Error),
    #[error("server `{server}`: {what} failed: {message}")]
    Protocol {
        server: String,
        what: &'static str,
        message: String,
    },
    #[error("server `{server}` did not answer {request} within {timeout:?} (see --timeout)")]
    Timeout {
        server: String,
        request: String,
        timeout: Duration,
    },
}

/// How long the host waits for the answer to one MCP request unless told otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// One server, connected through the tap.
pub struct McpConnection {
    pub name: String,
    client: RunningService<RoleClient, HostClient>,
    tap: StopOnDrop,
    /// How long one request may wait for its answer.
    timeout: Duration,
    tools_changed: Arc<AtomicBool>,
    /// `list_changed` notifications seen on the wire by the tap, and delivered by rmcp.
    announced: Arc<AtomicU64>,
    delivered: Arc<AtomicU64>,
    /// The 2026-07-28 listen stream for `list_changed`, when the server offers one.
    listen: Option<ListenTask>,
}

/// What the server told us about itself.
#[derive(Debug, Clone, Default)]
pub struct ServerFacts {
    pub protocol_version: String,
    pub instructions: Option<String>,
    pub server_name: Option<String>,
    pub tools_list_changed: bool,
}

impl McpConnection {
    /// Spawns `cmd` behind the tap and connects rmcp to it with the chosen lifecycle; each
    /// request then waits at most `timeout` for its answer. This host has no model: it refuses
    /// sampling requests (see [`connect_with_model`]).
    ///
    /// [`connect_with_model`]: McpConnection::connect_with_model
    pub async fn connect(
        cmd: &ServerCommand,
        recorder: Arc<Recorder>,
        protocol: Protocol,
        options: Arc<HostOptions>,
        timeout: Duration,
    ) -> Result<McpConnection, ConnectError> {
        Self::connect_with_model(cmd, recorder, protocol, options, None, timeout).await
    }

    /// [`connect`](McpConnection::connect), answering the server's sampling requests with
    /// `sampler`, the host's model.
    pub async fn connect_with_model(
        cmd: &ServerCommand,
        recorder: Arc<Recorder>,
        protocol: Protocol,
        options: Arc<HostOptions>,
        sampler: Option<Arc<Sampler>>,
        timeout: Duration,
    ) -> Result<McpConnection, ConnectError> {
        let (host_end, tap_end) = crate::tap::stdio::socket_pair().map_err(ConnectError::Socket)?;
        let tap_in = tap_end.try_clone().map_err(ConnectError::Socket)?;
        // Counts the `list_changed` notifications that crossed the wire, so the loop can wait
        // until rmcp has delivered each one before it builds the next model request.
        let announced = Arc::new(AtomicU64::new(0));
        let counter = announced.clone();
        let observer: crate::tap::stdio::LineObserver = Arc::new(move |line: &[u8]| {
            const METHOD: &str = "notifications/tools/list_changed";
            if memchr::memmem::find(line, METHOD.as_bytes()).is_none() {
                return;
            }
            // Only a notification with that method counts (a description may mention it).
            let is_it = serde_json::from_slice::<Value>(line).ok().is_some_and(|v| {
                v.get("method").and_then(Value::as_str) == Some(METHOD) && v.get("id").is_none()
            });
            if is_it {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let tap = StopOnDrop(StdioTap::spawn_observed(
            cmd,
            recorder.clone(),
            Lane::Host,
            Box::new(tap_in),
            Box::new(ShutdownOnDrop(tap_end)),
            None,
            Some(observer),
        )?);
        let stream = crate::tap::stdio::into_async(host_end).map_err(ConnectError::Socket)?;
        let handler = HostClient::new(protocol, options, cmd.name.clone(), recorder, sampler);
        let tools_changed = handler.tools_changed.clone();
        let delivered = handler.delivered.clone();
        let lifecycle = match protocol {
            Protocol::V2025_11_25 => ClientLifecycleMode::Initialize,
            Protocol::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            Protocol::Auto => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        };
        let what = if protocol == Protocol::V2025_11_25 {
            "initialize"
        } else {
            "server/discover"
        };
        let started =
            tokio::time::timeout(timeout, handler.serve_with_lifecycle(stream, lifecycle));
        let failed = match started.await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(e)) => Err(ConnectError::Protocol {
                server: cmd.name.clone(),
                what,
                message: e.to_string(),
            }),
            Err(_) => Err(ConnectError::Timeout {
                server: cmd.name.clone(),
                request: format!("`{what}`"),
                timeout,
            }),
        };
        let client = match failed {
            Ok(client) => client,
            Err(err) => {
                tap.stop().await;
                return Err(err);
            }
        };
        // Every tools/list must reach the wire, or the trace would not show what the host saw.
        client
            .peer()
            .set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        let mut connection = McpConnection {
            name: cmd.name.clone(),
            client,
            tap,
            timeout,
            tools_changed,
            announced,
            delivered,
            listen: None,
        };
        connection.listen_for_changes().await;
        Ok(connection)
    }

    /// On 2026-07-28, `list_changed` arrives only on a `subscriptions/listen` stream.
    async fn listen_for_changes(&mut self) {
        let facts = self.facts();
        if !facts.protocol_version.starts_with("2026") || !facts.tools_list_changed {
            return;
        }
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match self.client.peer().listen(filter).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(server = %self.name, "subscriptions/listen failed: {e}");
                return;
            }
        };
        let flag = self.tools_changed.clone();
        let delivered = self.delivered.clone();
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    next = subscription.next() => match next {
                        Ok(Some(rmcp::model::ServerNotification::ToolListChangedNotification(_))) => {
                            flag.store(true, Ordering::SeqCst);
                            delivered.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(Some(_)) => {}
                        Ok(None) | Err(_) => break,
                    },
                    _ = &mut stopped => {
                        // End the stream the way the spec says a stdio client does:
                        // `notifications/cancelled` naming the listen request.
                        let _ = subscription.cancel().await;
                        break;
                    }
                }
            }
        });
        self.listen = Some(ListenTask { stop, task });
    }

    pub fn facts(&self) -> ServerFacts {
        let Some(info) = self.client.peer_info() else {
            return ServerFacts::default();
        };
        ServerFacts {
            protocol_version: info.protocol_version.to_string(),
            instructions: info.instructions.clone(),
            server_name: info.server_info.as_ref().map(|i| i.name.clone()),
            tools_list_changed: info
                .capabilities
                .tools
                .as_ref()
                .and_then(|t| t.list_changed)
                .unwrap_or(false),
        }
    }

    /// Waits (up to `limit`) until rmcp has delivered every `list_changed` that crossed the wire.
    ///
    /// rmcp reads the wire in order but runs notification handlers as separate tasks, so a
    /// notification that arrived just before a `tools/call` result may not have been handled
    /// when the call returns. The tap counts them as they cross; this waits for the handlers.
    pub async fn settle(&self, limit: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self.delivered.load(Ordering::SeqCst) < self.announced.load(Ordering::SeqCst) {
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(server = %self.name, "a tools/list_changed was not delivered in time");
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }

    /// Whether a `list_changed` arrived since the last call (and clears it).
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::SeqCst)
    }

    /// `tools/list`, every page, as JSON (what the server sent, as rmcp understood it).
    pub async fn list_tools(&self) -> Result<Vec<Value>, ConnectError> {
        let tools = self
            .answer("`tools/list`", self.client.list_all_tools())
            .await?
            .map_err(|e| self.error("tools/list", e))?;
        Ok(tools
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect())
    }

    /// What a host typically does right after connecting: list the other primitives the
    /// server offers (resources, prompts), so they are on the wire for the audience.
    pub async fn list_other_primitives(&self) -> Result<(usize, usize), ConnectError> {
        let Some(info) = self.client.peer_info() else {
            return Ok((0, 0));
        };
        let resources = match info.capabilities.resources {
            Some(_) => self
                .answer("`resources/list`", self.client.list_all_resources())
                .await?
                .map_err(|e| self.error("resources/list", e))?
                .len(),
            None => 0,
        };
        let prompts = match info.capabilities.prompts {
            Some(_) => self
                .answer("`prompts/list`", self.client.list_all_prompts())
                .await?
                .map_err(|e| self.error("prompts/list", e))?
                .len(),
            None => 0,
        };
        Ok((resources, prompts))
    }

    /// `resources/read`: the text of every text content of the resource.
    pub async fn read_resource(&self, uri: &str) -> Result<String, ConnectError> {
        let request = self
            .client
            .read_resource(ReadResourceRequestParams::new(uri.to_string()));
        let result = self
            .answer(&format!("`resources/read` {uri}"), request)
            .await?
            .map_err(|e| self.error("resources/read", e))?;
        let value = serde_json::to_value(&result).unwrap_or_default();
        let texts: Vec<String> = value
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("text").and_then(Value::as_str).map(str::to_string))
            .collect();
        Ok(texts.join("\n"))
    }

    /// `prompts/get`: the text of the prompt's messages, joined.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<String, ConnectError> {
        let request = self
            .client
            .get_prompt(GetPromptRequestParams::new(name.to_string()).with_arguments(arguments));
        let result = self
            .answer(&format!("`prompts/get` {name}"), request)
            .await?
            .map_err(|e| self.error("prompts/get", e))?;
        let value = serde_json::to_value(&result).unwrap_or_default();
        let texts: Vec<String> = value
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| {
                m.pointer("/content/text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect();
        Ok(texts.join("\n\n"))
    }

    /// `tools/call`, driving 2026-07-28 `input_required` rounds through the handler. Returns
    /// the `CallToolResult` as JSON, or the JSON-RPC error as text.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, ConnectError> {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let result = self
            .answer(
                &format!("`tools/call` {name}"),
                self.client.call_tool(params),
            )
            .await?
            .map_err(|e| self.error("tools/call", e))?;
        serde_json::to_value(&result).map_err(|e| ConnectError::Protocol {
            server: self.name.clone(),
            what: "tools/call",
            message: e.to_string(),
        })
    }

    /// `request`'s answer, or [`ConnectError::Timeout`] once the connection's timeout passed.
    async fn answer<T>(
        &self,
        request: &str,
        answer: impl Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<Result<T, rmcp::ServiceError>, ConnectError> {
        tokio::time::timeout(self.timeout, answer)
            .await
            .map_err(|_| ConnectError::Timeout {
                server: self.name.clone(),
                request: request.to_string(),
                timeout: self.timeout,
            })
    }

    fn error(&self, what: &'static str, e: rmcp::ServiceError) -> ConnectError {
        ConnectError::Protocol {
            server: self.name.clone(),
            what,
            message: e.to_string(),
        }
    }

    /// Ends the session: closes the transport, then stops the server gracefully.
    pub async fn close(self) {
        if let Some(listen) = self.listen {
            let _ = listen.stop.send(());
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), listen.task).await;
        }
        let _ = self.client.cancel().await;
        self.tap.stop().await;
    }
}

/// The server behind a connection: stopped gracefully by [`stop`](Self::stop), and at once
/// (SIGTERM to its process group, then SIGKILL) when dropped without it, so no exit path of
/// the host leaves a server running.
struct StopOnDrop(StdioTap);

impl StopOnDrop {
    /// Closes the server's stdin and waits for it to leave (SIGTERM, SIGKILL if it does not).
    async fn stop(self) {
        let tap = self.0.clone();
        let _ = tokio::task::spawn_blocking(move || tap.shutdown()).await;
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        // Returns at once when the server has already exited.
        self.0.terminate();
    }
}

/// The task reading a `subscriptions/listen` stream, and how to ask it to cancel the stream.
struct ListenTask {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

/// The tap's write half toward rmcp: when the server's stdout ends, rmcp must see EOF.
struct ShutdownOnDrop(PairStream);

impl io::Write for ShutdownOnDrop {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Drop for ShutdownOnDrop {
    fn drop(&mut self) {
        let _ = self.0.shutdown(std::net::Shutdown::Write);
    }
}

/// How the host starts a scenario's server: a built-in one as this executable's `demo-server`,
/// else its command, with the scenario's environment and folder. Fails only when this
/// executable's own path cannot be known.
pub fn server_command(spec: &crate::host::scenario::ServerSpec) -> io::Result<ServerCommand> {
    let (program, args) = match (&spec.builtin, &spec.command) {
        (Some(builtin), _) => (
            std::env::current_exe()?.display().to_string(),
            vec!["demo-server".to_string(), builtin.clone()],
        ),
        (None, Some(command)) => (command.clone(), spec.args.clone()),
        (None, None) => unreachable!("scenarios are validated on load"),
    };
    let mut cmd = ServerCommand::new(spec.name.clone(), program, args);
    cmd.env = spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    cmd.cwd = spec.cwd.clone();
    Ok(cmd)
}
