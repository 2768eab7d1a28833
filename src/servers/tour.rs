//! The `tour` demo server: one small server that touches every part of MCP a workshop teaches,
//! in both protocol eras, so each feature can be watched on the wire.
//!
//! Tools live in `tour/tools.rs`, fixed texts in `tour/content.rs`, and the era-dependent
//! "ask the client" logic in `tour/ask.rs`. This file holds the connection state and the
//! [`ServerHandler`] methods that are not tools: resources, subscriptions, prompts, logging.
//!
//! Where the eras differ, the server follows each request's own protocol version:
//!
//! | Feature | 2025-11-25 | 2026-07-28 |
//! |---|---|---|
//! | sampling, elicitation, roots | server-to-client request | `input_required` + retry |
//! | `tools/list_changed` | sent at once on the connection | only on a `subscriptions/listen` stream that asked for it |
//! | `resources/updated` | after `resources/subscribe` | on a listen stream naming the URI |
//! | `notifications/message` | filtered by `logging/setLevel` | only if `_meta` has a `logLevel` |

use std::{
    collections::BTreeSet,
    sync::{
        Arc, Mutex, MutexGuard, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    handler::server::{router::tool::ToolRouter, tool::ToolCallContext},
    model::{
        CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
        Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestParams,
        SubscriptionFilter, Tool, UnsubscribeRequestParams,
    },
    service::{Peer, RequestContext, SubscriptionContext, SubscriptionSink},
};
// Logging is deprecated by SEP-2577 (use stderr or OpenTelemetry) but is still part of both
// revisions, and showing `notifications/message` is part of the tour. Every use below carries
// its own `#[allow(deprecated)]`.
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};

mod ask;
mod content;
mod tools;

use ask::is_modern;

/// Server name sent in `serverInfo` and in the start-up line.
pub const NAME: &str = "tour";
/// The `instructions` field of the initialize (and discover) result.
pub const INSTRUCTIONS: &str = "A guided tour of MCP. Read tour://readme first; \
    unlock_bonus makes a hidden tool appear.";
/// The tool that stays out of `tools/list` until `unlock_bonus` runs.
pub const BONUS_TOOL: &str = "bonus_fact";
/// How long after a subscription to `tour://clock` the clock "ticks" once.
const CLOCK_TICK_DELAY: Duration = Duration::from_millis(200);

/// The tour server. Clones share one connection's state (one stdio process serves one client).
#[derive(Clone)]
pub struct Tour {
    inner: Arc<Inner>,
}

#[allow(deprecated)] // LoggingLevel, see the import.
struct Inner {
    tool_router: ToolRouter<Tour>,
    bonus_unlocked: AtomicBool,
    /// URIs from `resources/subscribe` (2025-11-25).
    legacy_subscriptions: Mutex<BTreeSet<String>>,
    /// Open `subscriptions/listen` streams (2026-07-28).
    listeners: Mutex<Vec<SubscriptionSink>>,
    /// The level from `logging/setLevel` (2025-11-25).
    min_log_level: Mutex<LoggingLevel>,
}

// The std mutexes above are only held for a copy or an insert, never across an `.await`, so
// they cannot block the runtime. A panic while holding one leaves plain data behind, which is
// still fine to use.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Order of the syslog levels, lowest first.
#[allow(deprecated)] // LoggingLevel, see the import.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl Tour {
    /// A new tour server with `bonus_fact` still hidden.
    #[allow(deprecated)] // LoggingLevel, see the import.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                tool_router: Self::tool_router(),
                bonus_unlocked: AtomicBool::new(false),
                legacy_subscriptions: Mutex::new(BTreeSet::new()),
                listeners: Mutex::new(Vec::new()),
                min_log_level: Mutex::new(LoggingLevel::Info),
            }),
        }
    }

    fn is_visible(&self, tool: &str) -> bool {
        tool != BONUS_TOOL || self.inner.bonus_unlocked.load(Ordering::SeqCst)
    }

    /// Send a `notifications/message` if the client asked for this level.
    #[allow(deprecated)] // Logging, see the import.
    async fn log(
        &self,
        context: &RequestContext<RoleServer>,
        level: LoggingLevel,
        message: String,
    ) -> Result<(), McpError> {
        let threshold = if is_modern(context) {
            match context.meta.log_level() {
                Some(level) => level,
                None => return Ok(()),
            }
        } else {
            *lock(&self.inner.min_log_level)
        };
        if severity(level) < severity(threshold) {
            return Ok(());
        }
        let param = LoggingMessageNotificationParam::new(level, message.into()).with_logger(NAME);
        context
            .peer
            .notify_logging_message(param)
            .await
            .map_err(|error| McpError::internal_error(format!("sending a log: {error}"), None))
    }

    /// Listen streams still open (`listen` removes each one when it ends).
    fn open_listeners(&self) -> Vec<SubscriptionSink> {
        lock(&self.inner.listeners).clone()
    }

    /// Tell the client the tool list changed; returns a sentence saying how.
    async fn announce_tool_list_changed(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, McpError> {
        if !is_modern(context) {
            context
                .peer
                .notify_tool_list_changed()
                .await
                .map_err(|error| McpError::internal_error(error.to_string(), None))?;
            return Ok("Sent notifications/tools/list_changed.".to_owned());
        }
        let mut sent = 0;
        for sink in self.open_listeners() {
            if sink.accepted().tools_list_changed == Some(true)
                && sink.notify_tool_list_changed().await.is_ok()
            {
                sent += 1;
            }
        }
        Ok(if sent == 0 {
            "No subscriptions/listen stream asked for toolsListChanged, so nothing was sent; \
             call tools/list again to see it."
                .to_owned()
        } else {
            format!("Sent notifications/tools/list_changed on {sent} listen stream(s).")
        })
    }

    /// Send `notifications/resources/updated` to everyone subscribed to `uri`; returns how
    /// many subscriptions were told.
    async fn announce_resource_updated(
        &self,
        context: &RequestContext<RoleServer>,
        uri: &str,
    ) -> Result<usize, McpError> {
        if !is_modern(context) {
            if !lock(&self.inner.legacy_subscriptions).contains(uri) {
                return Ok(0);
            }
            notify_updated(&context.peer, uri).await?;
            return Ok(1);
        }
        let mut sent = 0;
        for sink in self.open_listeners() {
            if subscribes_to(sink.accepted(), uri)
                && sink.notify_resource_updated(uri).await.is_ok()
            {
                sent += 1;
            }
        }
        Ok(sent)
    }
}

impl Default for Tour {
    fn default() -> Self {
        Self::new()
    }
}

fn subscribes_to(filter: &SubscriptionFilter, uri: &str) -> bool {
    filter
        .resource_subscriptions
        .as_ref()
        .is_some_and(|uris| uris.iter().any(|subscribed| subscribed == uri))
}

async fn notify_updated(peer: &Peer<RoleServer>, uri: &str) -> Result<(), McpError> {
    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
        .await
        .map_err(|error| McpError::internal_error(error.to_string(), None))
}

impl ServerHandler for Tour {
    #[allow(deprecated)] // enable_logging, see the import.
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.inner.tool_router.list_all();
        let visible = tools.into_iter().filter(|tool| self.is_visible(&tool.name));
        // rmcp adds `ttlMs: 0` and `cacheScope` for 2026-07-28 peers: the list can change.
        Ok(ListToolsResult::with_all_items(visible.collect()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.is_visible(name)
            .then(|| self.inner.tool_router.get(name).cloned())
            .flatten()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.is_visible(&request.name) {
            // The same answer the router gives for a name it does not know.
            return Err(McpError::invalid_params("tool not found", None));
        }
        let call = ToolCallContext::new(self, request, context);
        self.inner.tool_router.call(call).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(content::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            content::resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        content::read(&request.uri).map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let uri = request.uri;
        if !content::is_known_uri(&uri) {
            return Err(McpError::resource_not_found(
                format!("the tour has no resource {uri}"),
                None,
            ));
        }
        lock(&self.inner.legacy_subscriptions).insert(uri.clone());
        if uri == content::CLOCK_URI {
            // The clock "ticks" once soon after, so a subscriber sees an update arrive.
            let (tour, peer) = (self.clone(), context.peer.clone());
            tokio::spawn(async move {
                tokio::time::sleep(CLOCK_TICK_DELAY).await;
                if lock(&tour.inner.legacy_subscriptions).contains(&uri) {
                    // The connection may be gone by now; there is nobody left to tell.
                    let _ = notify_updated(&peer, &uri).await;
                }
            });
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        lock(&self.inner.legacy_subscriptions).remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // rmcp then drops whatever the capabilities do not advertise (prompts and resource
        // list changes here).
        let mut accepted = requested.clone();
        if let Some(uris) = accepted.resource_subscriptions.as_mut() {
            uris.retain(|uri| content::is_known_uri(uri));
        }
        Some(accepted)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        let sink = subscription.sink().clone();
        lock(&self.inner.listeners).push(sink.clone());
        if subscribes_to(sink.accepted(), content::CLOCK_URI) {
            let tick = sink.clone();
            tokio::spawn(async move {
                tokio::time::sleep(CLOCK_TICK_DELAY).await;
                // Fails only if the stream was closed meanwhile; nothing to do then.
                let _ = tick.notify_resource_updated(content::CLOCK_URI).await;
            });
        }
        subscription.cancelled().await;
        lock(&self.inner.listeners).retain(|open| open.id() != sink.id());
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(content::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        content::get_prompt(&request.name, request.arguments.as_ref()).map(Into::into)
    }

    #[allow(deprecated)] // Logging, see the import.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        *lock(&self.inner.min_log_level) = request.level;
        Ok(())
    }
}
