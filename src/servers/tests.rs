//! Tests for the demo servers: a real rmcp client talks to each server over an in-memory
//! `tokio::io::duplex` pipe, in both protocol eras.
//!
//! This file holds the shared harness (a recording client handler, connection helpers, a line
//! tap); the checks are in [`weather`], [`tour`], [`poisoned`], [`rugpull`], [`oddnames`]
//! and [`forecast`].

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData as McpError, RoleClient,
    ServerHandler, ServiceError, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
        ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
        InitializeRequestParams, JsonObject, ProgressNotificationParam, ProtocolVersion,
        ResourceUpdatedNotificationParam,
    },
    service::{ClientCacheConfig, NotificationContext, RequestContext, RunningService},
};
// Sampling, roots and logging are deprecated by SEP-2577; the test client must still answer
// them because the tour server exercises them.
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ListRootsResult,
    LoggingMessageNotificationParam, Root, SamplingMessage,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream},
    sync::mpsc,
};

mod forecast;
mod oddnames;
mod poisoned;
mod rugpull;
mod tour;
mod weather;

/// How long a test waits for something the server should send soon.
const PATIENCE: Duration = Duration::from_secs(5);
/// The answer the test client's "model" gives to every sampling request.
const SAMPLED: &str = "MCP lets hosts plug tools into models.";

/// Something the server made the test client see.
#[derive(Debug, Clone, PartialEq)]
enum Event {
    Sampling,
    Elicitation(String),
    Roots,
    ToolsChanged,
    Progress(f64),
    Log(Value),
    ResourceUpdated(String),
}

/// A client handler that answers every server request and records every notification.
#[derive(Clone)]
struct TestClient {
    info: ClientConfig,
    events: mpsc::UnboundedSender<Event>,
}

impl TestClient {
    /// A client on `version` declaring sampling, elicitation and roots.
    fn new(version: ProtocolVersion) -> (Self, mpsc::UnboundedReceiver<Event>) {
        #[allow(deprecated)] // Sampling and roots, see the import.
        let capabilities = ClientCapabilities::builder()
            .enable_roots()
            .enable_sampling()
            .enable_elicitation()
            .build();
        Self::with_capabilities(version, capabilities)
    }

    fn with_capabilities(
        version: ProtocolVersion,
        capabilities: ClientCapabilities,
    ) -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (events, received) = mpsc::unbounded_channel();
        let info = InitializeRequestParams::new(
            capabilities,
            Implementation::new("sightline-test-host", "0.0.0"),
        )
        .with_protocol_version(version);
        (Self { info, events }, received)
    }

    fn record(&self, event: Event) {
        // The receiver lives as long as the test; a send error only means the test ended.
        let _ = self.events.send(event);
    }
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    #[allow(deprecated)] // Sampling, see the import.
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        self.record(Event::Sampling);
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(SAMPLED),
            "test-model".into(),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let message = match request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message,
            _ => String::new(),
        };
        self.record(Event::Elicitation(message));
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": true })))
    }

    #[allow(deprecated)] // Roots, see the import.
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        self.record(Event::Roots);
        Ok(ListRootsResult::new(vec![
            Root::new("file:///work/demo").with_name("demo"),
        ]))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.record(Event::ToolsChanged);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.record(Event::Progress(params.progress));
    }

    #[allow(deprecated)] // Logging, see the import.
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.record(Event::Log(params.data));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.record(Event::ResourceUpdated(params.uri));
    }
}

type Client = RunningService<RoleClient, TestClient>;

/// Serve `server` on one end of a fresh duplex pipe and return the other end.
fn spawn_server<S: ServerHandler>(server: S) -> DuplexStream {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    client_end
}

/// Connect with the 2025-11-25 `initialize` handshake; the response cache is off so every
/// `tools/list` reaches the server.
async fn connect_legacy<S: ServerHandler>(server: S, client: TestClient) -> Client {
    let running = client
        .serve(spawn_server(server))
        .await
        .expect("initialize handshake");
    running
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    running
}

/// Connect with the 2026-07-28 `server/discover` lifecycle (per-request `_meta`).
async fn connect_modern<S: ServerHandler>(server: S, client: TestClient) -> Client {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let running = client
        .serve_with_lifecycle(spawn_server(server), lifecycle)
        .await
        .expect("server/discover");
    running
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    running
}

/// The next event, failing the test if none comes in time.
async fn next_event(events: &mut mpsc::UnboundedReceiver<Event>) -> Event {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("an event in time")
        .expect("the client is still running")
}

/// Build a JSON object of tool arguments.
fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("tool arguments must be an object, not {other}"),
    }
}

/// Call a tool and return its first text block, checking it is not an error.
async fn call_text(client: &Client, name: &'static str, arguments: Value) -> String {
    let result = call(client, name, arguments).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{name} failed: {result:?}");
    first_text(&result)
}

async fn call(
    client: &Client,
    name: &'static str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments)))
        .await
}

fn first_text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .expect("a text block")
}

/// Every line that crossed a tapped pipe, prefixed `C->S ` or `S->C `.
type WireLog = Arc<Mutex<Vec<String>>>;

/// Serve `server` behind a line tap and return the client's end plus the log.
fn spawn_tapped_server<S: ServerHandler>(server: S) -> (DuplexStream, WireLog) {
    let log = WireLog::default();
    let (client_end, tap_client_side) = tokio::io::duplex(64 * 1024);
    let tap_server_side = spawn_server(server);
    let (from_client, to_client) = tokio::io::split(tap_client_side);
    let (from_server, to_server) = tokio::io::split(tap_server_side);
    tokio::spawn(pump(from_client, to_server, "C->S", log.clone()));
    tokio::spawn(pump(from_server, to_client, "S->C", log.clone()));
    (client_end, log)
}

/// Copy lines from `from` to `to`, logging each one before forwarding it.
async fn pump<R, W>(from: R, mut to: W, direction: &'static str, log: WireLog)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let mut from = BufReader::new(from);
    let mut line = String::new();
    loop {
        line.clear();
        match from.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        log.lock()
            .expect("wire log lock")
            .push(format!("{direction} {}", line.trim_end()));
        if to.write_all(line.as_bytes()).await.is_err() || to.flush().await.is_err() {
            return;
        }
    }
}

#[tokio::test]
async fn unknown_server_name_is_an_error() {
    let error = super::run_stdio("nope", None)
        .await
        .expect_err("unknown name");
    assert!(matches!(error, super::ServerError::Unknown(ref name) if name == "nope"));
    assert_eq!(
        error.to_string(),
        "unknown demo server `nope` (known: weather, tour, poisoned, rugpull, oddnames, forecast, media, hostrules, crowd)"
    );
}
