//! Built-in demo MCP servers, so Sightline has something real to trace with no network and
//! no npm.
//!
//! Each server is a plain rmcp [`ServerHandler`] that speaks both protocol eras on one
//! stdio connection: the 2025-11-25 `initialize` handshake and the 2026-07-28 stateless
//! lifecycle (`server/discover` plus per-request `_meta`). rmcp picks the era from the first
//! request it reads; the handlers only look at [`RequestContext::protocol_version`] where the
//! two eras really differ (server-to-client requests versus multi round-trip results, and how
//! change notifications reach the client).
//!
//! - [`weather`]: the one-tool server from the seed article, byte for byte the same tool.
//! - [`tour`]: a workshop server that exercises every primitive: tools, resources, templates,
//!   subscriptions, prompts, progress, logging, sampling, elicitation, roots and
//!   `list_changed`.
//!
//! Four more servers are small workshop scenarios about what can go wrong:
//!
//! - [`poisoned`]: tool poisoning, instructions for the model hidden in a tool description
//!   (some of them in invisible Unicode tag characters).
//! - [`rugpull`]: a tool whose definition changes silently after its first use.
//! - [`oddnames`]: tool names MCP allows but the LLM providers' function-calling APIs reject.
//! - [`forecast`]: a second server with a tool named `get_weather`, colliding with
//!   [`weather`]'s.
//! - [`hostrules`]: `hostrules`, one tool per real host's rule (a dot, a long name, a
//!   top-level `anyOf`, an array without `items`, a long description), and `crowd`, 130 tools.
//!
//! Stdout is the protocol channel; the only other output is one start-up line on stderr.
//!
//! [`run_http`] serves the same handlers over Streamable HTTP at `/mcp` (rmcp's server
//! transport, through axum), so the HTTP proxy can be watched with a server of either era:
//! 2026-07-28 requests are served statelessly, older ones in sessions.
//!
//! [`RequestContext::protocol_version`]: rmcp::service::RequestContext::protocol_version

use rmcp::{
    RoleServer, ServerHandler, ServiceExt,
    model::{CacheScope, ListToolsResult, ProtocolVersion, Tool},
    service::{RequestContext, ServerInitializeError},
};

pub mod forecast;
pub mod hostrules;
pub mod media;
pub mod oddnames;
pub mod poisoned;
pub mod rugpull;
pub mod tour;
pub mod weather;

#[cfg(test)]
mod tests;

/// Names of the built-in servers, for `sightline demo-server NAME` and help text.
pub const NAMES: &[&str] = &[
    "weather",
    "tour",
    "poisoned",
    "rugpull",
    "oddnames",
    "forecast",
    "media",
    "hostrules",
    "crowd",
];

/// The servers that page their `tools/list` when given a page size.
pub const PAGED: &[&str] = &["hostrules", "crowd"];

/// Why a demo server could not be served.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The name is not one of [`NAMES`].
    #[error("unknown demo server `{0}` (known: {known})", known = NAMES.join(", "))]
    Unknown(String),
    /// A page size for a server that lists its tools in one page.
    #[error("demo server `{0}` lists its tools in one page (only {paged} take a page size)", paged = PAGED.join(" and "))]
    NotPaged(String),
    /// The first exchange with the client failed (bad first message, broken pipe).
    #[error("the demo server could not start serving")]
    Start(#[source] Box<ServerInitializeError>),
    /// The task running the connection panicked or was aborted.
    #[error("the demo server stopped unexpectedly")]
    Stopped(#[source] tokio::task::JoinError),
    /// The HTTP listener could not be opened, or stopped with an error.
    #[error("the demo server cannot serve HTTP on {addr}")]
    Http {
        addr: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// `page_size` for a server that cannot page: refused rather than ignored.
fn check_paging(name: &str, page_size: Option<usize>) -> Result<(), ServerError> {
    match page_size {
        Some(_) if NAMES.contains(&name) && !PAGED.contains(&name) => {
            Err(ServerError::NotPaged(name.to_owned()))
        }
        _ => Ok(()),
    }
}

/// Serve the named demo server over this process's stdin/stdout until stdin closes, its
/// `tools/list` in pages of `page_size` tools when given ([`PAGED`] servers only).
///
/// A client that closes stdin before sending its first request is a normal end, not an error.
pub async fn run_stdio(name: &str, page_size: Option<usize>) -> Result<(), ServerError> {
    check_paging(name, page_size)?;
    match name {
        "weather" => serve_stdio(weather::Weather::new(), "weather").await,
        "tour" => serve_stdio(tour::Tour::new(), "tour").await,
        "poisoned" => serve_stdio(poisoned::Poisoned::new(), poisoned::NAME).await,
        "rugpull" => serve_stdio(rugpull::RugPull::new(), rugpull::NAME).await,
        "oddnames" => serve_stdio(oddnames::OddNames::new(), oddnames::NAME).await,
        "forecast" => serve_stdio(forecast::Forecast::new(), forecast::NAME).await,
        "media" => serve_stdio(media::Media::new(), media::NAME).await,
        "hostrules" => {
            let server = hostrules::HostRules::new().paged(page_size);
            serve_stdio(server, hostrules::NAME).await
        }
        "crowd" => {
            let server = hostrules::HostRules::crowd().paged(page_size);
            serve_stdio(server, hostrules::CROWD_NAME).await
        }
        other => Err(ServerError::Unknown(other.to_owned())),
    }
}

/// Serve the named demo server over Streamable HTTP at `http://LISTEN/mcp` until `stop`
/// completes, its `tools/list` in pages of `page_size` tools when given.
pub async fn run_http(
    name: &str,
    listen: std::net::SocketAddr,
    page_size: Option<usize>,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    if !NAMES.contains(&name) {
        return Err(ServerError::Unknown(name.to_owned()));
    }
    check_paging(name, page_size)?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| ServerError::Http {
            addr: listen,
            source,
        })?;
    if let Ok(addr) = listener.local_addr() {
        eprintln!("{name} MCP server running on http://{addr}/mcp");
    }
    run_paged_http(name, listener, page_size, stop).await
}

/// [`run_http`] on a listener already bound (its caller knows the port before serving: the
/// host serving a server that an LLM API connects to), without the start-up line.
pub async fn run_http_on(
    name: &str,
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    run_paged_http(name, listener, None, stop).await
}

async fn run_paged_http(
    name: &str,
    listener: tokio::net::TcpListener,
    page_size: Option<usize>,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let rules = move || hostrules::HostRules::new().paged(page_size);
    let crowd = move || hostrules::HostRules::crowd().paged(page_size);
    match name {
        "weather" => serve_http(weather::Weather::new, listener, stop).await,
        "tour" => serve_http(tour::Tour::new, listener, stop).await,
        "poisoned" => serve_http(poisoned::Poisoned::new, listener, stop).await,
        "rugpull" => serve_http(rugpull::RugPull::new, listener, stop).await,
        "oddnames" => serve_http(oddnames::OddNames::new, listener, stop).await,
        "forecast" => serve_http(forecast::Forecast::new, listener, stop).await,
        "media" => serve_http(media::Media::new, listener, stop).await,
        "hostrules" => serve_http(rules, listener, stop).await,
        "crowd" => serve_http(crowd, listener, stop).await,
        other => Err(ServerError::Unknown(other.to_owned())),
    }
}

async fn serve_http<S: ServerHandler + Send + 'static>(
    make: impl Fn() -> S + Send + Sync + 'static,
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let unspecified = std::net::SocketAddr::from(([0, 0, 0, 0], 0));
    let failed = |addr, source| ServerError::Http { addr, source };
    let addr = listener
        .local_addr()
        .map_err(|source| failed(unspecified, source))?;
    let service = StreamableHttpService::new(
        move || Ok(make()),
        std::sync::Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    axum::serve(listener, router)
        .with_graceful_shutdown(stop)
        .await
        .map_err(|source| failed(addr, source))
}

async fn serve_stdio<S: ServerHandler>(server: S, name: &str) -> Result<(), ServerError> {
    eprintln!("{name} MCP server running on stdio");
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(error) => return Err(ServerError::Start(Box::new(error))),
    };
    running.waiting().await.map_err(ServerError::Stopped)?;
    Ok(())
}

/// True when the request being served uses the 2026-07-28 rules (`subscriptions/listen`,
/// cache hints). rmcp answers from the request's own `_meta` first and falls back to the
/// version negotiated by `initialize`.
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// A one-page `tools/list` result for the servers that list their tools by hand, with the
/// same cache hints `#[tool_handler]` adds for 2026-07-28 peers (`ttlMs: 0`: ask again
/// every time, the list may change).
fn tools_result(tools: Vec<Tool>, context: &RequestContext<RoleServer>) -> ListToolsResult {
    let result = ListToolsResult::with_all_items(tools);
    if is_modern(context) {
        result.with_ttl_ms(0).with_cache_scope(CacheScope::Public)
    } else {
        result
    }
}
