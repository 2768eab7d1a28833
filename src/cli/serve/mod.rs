//! `sightline serve (TRACE | SESSION_DIR) [--listen ADDR]`: the web viewer and a trace over
//! HTTP, followed live, so a class watches the teacher's run on their own screens.
//!
//! Two routes, both `GET`: `/` is the viewer's page (the same page `export --format html`
//! writes, with the event stream's URL in place of the trace) and `/events` is a Server-Sent
//! Events stream: the trace's header (`event: header`), then every event as one trace line
//! (`id:` its index, so a reconnecting browser resumes where it was), then each new one as
//! [`crate::trace::Follower`] reads it (every 100 ms), and bad lines as `event: warning` (a
//! typed `trace::LoadWarning`, which the page words in its own language);
//! before the events that hold LLM requests, their tools' exact token counts (`event: tokens`,
//! `analysis::tokens::Carried`: the viewer links no tokenizer). One thread reads the trace for
//! every client ([`hub`]).
//! Nothing the page can send starts a process or writes a file: there is nothing to send to.
//!
//! Loopback by default, and then only requests whose `Host` names the loopback (a web page
//! elsewhere cannot reach it by rebinding a DNS name). Another address only when given with
//! `--listen`, and then a random token, printed once in the URL, is required on every request
//! (`?token=`); without it the answer is 403.
//!
//! Ctrl-C, SIGTERM or SIGHUP end every open stream at once (an open tab would otherwise keep
//! the server up for as long as it stays open) and the server exits within
//! [`super::edges::GRACE`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use clap::Args;

use crate::trace::Follower;
use crate::wire::gate;

mod hub;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The trace file (JSON Lines) or session folder to serve; followed as it grows.
    trace: PathBuf,
    /// Where to listen. Loopback by default; any other address requires the printed token.
    #[arg(long, default_value = "127.0.0.1:6300")]
    listen: SocketAddr,
    /// The page's language: en, pt or es (default: the browser's).
    #[arg(long, value_name = "LANG")]
    lang: Option<String>,
}

struct Served {
    path: PathBuf,
    /// The one reader of the trace, which every stream reads from.
    hub: Arc<hub::Hub>,
    page: String,
    /// Required on every request when listening off the loopback.
    token: Option<String>,
    /// Becomes `true` on a stop signal: every stream ends.
    stopping: tokio::sync::watch::Receiver<bool>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let lang = super::export::check_lang(args.lang.as_deref())?;
    let bundle = crate::export::html::bundle()?;
    // Fails now, with the path, when it is neither a trace nor a session folder.
    let follower = Follower::new(&args.trace).map_err(|e| anyhow::anyhow!(e))?;
    // The page names what it follows by its file name (the page may be shown to a class: the
    // folders above it are the server's business); the stream's header then gives the
    // trace's own title.
    let title = args.trace.file_name().map_or_else(
        || args.trace.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let token = (!args.listen.ip().is_loopback())
        .then(new_token)
        .transpose()?;
    let live = match &token {
        Some(t) => format!("events?token={t}"),
        None => "events".to_string(),
    };
    let page = crate::export::html::render(
        bundle,
        &crate::export::html::Page {
            title: &title,
            lang,
            trace: None,
            live: Some(&live),
            tokens: None,
        },
    );
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let hub = hub::Hub::start(follower);
    let served = Arc::new(Served {
        path: args.trace.clone(),
        hub: hub.clone(),
        page,
        token,
        stopping,
    });
    let runtime = super::edges::runtime()?;
    let served = runtime.block_on(serve(served, args.listen, stop));
    hub.stop();
    served?;
    // A stream's reader may be inside a read of the trace: it is not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}

async fn serve(
    served: Arc<Served>,
    listen: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .within(|| Said::new("cli_error.listen").with("address", listen))?;
    let addr = listener
        .local_addr()
        .within(|| Said::new("cli_error.listen").with("address", listen))?;
    let url = match &served.token {
        Some(t) if addr.ip().is_unspecified() => format!(
            "http://<this machine's address>:{}/?token={t}  (listening on every address)",
            addr.port()
        ),
        Some(t) => format!("http://{addr}/?token={t}"),
        None => format!("http://{addr}/"),
    };
    // The one place the token is shown. A closed stdout must not stop the server.
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "serving {} at {url}", served.path.display());
        let _ = writeln!(out, "read-only; press Ctrl-C to stop");
        let _ = out.flush();
    }
    let mut stopping = served.stopping.clone();
    let router = axum::Router::new()
        .route("/", axum::routing::get(page))
        .route("/events", axum::routing::get(events))
        .layer(middleware::from_fn_with_state(served.clone(), guard))
        .with_state(served);
    let signal = super::edges::stop_signal();
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        signal.await;
        // Every stream ends now; the connections then close as their responses end.
        let _ = stop.send(true);
    });
    // A client that does not let its connection close gets the grace, not more.
    let grace = async move {
        let _ = stopping.wait_for(|stopped| *stopped).await;
        tokio::time::sleep(super::edges::GRACE).await;
    };
    tokio::select! {
        served = server => served.within(|| Said::new("cli_error.server_failed")),
        () = grace => Ok(()),
    }
}

/// 32 hex digits from the operating system's random source.
fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("no random source for the token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Every request: the token when one is required, else a loopback `Host`.
async fn guard(State(served): State<Arc<Served>>, request: Request, next: Next) -> Response {
    let allowed = match &served.token {
        Some(token) => gate::query_param(request.uri().query(), "token")
            .is_some_and(|t| gate::same_secret(t, token)),
        None => request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(gate::host_is_loopback),
    };
    if !allowed {
        let why = if served.token.is_some() {
            "403 Forbidden: this page needs the token printed by `sightline serve` (?token=...)\n"
        } else {
            "403 Forbidden: sightline serve answers only requests addressed to the loopback\n"
        };
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

async fn page(State(served): State<Arc<Served>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        served.page.clone(),
    )
        .into_response()
}

/// The trace as Server-Sent Events, from event `Last-Event-ID + 1` on, read from the shared
/// log ([`hub`]); `503` when [`hub::MAX_CLIENTS`] streams are open.
async fn events(State(served): State<Arc<Served>>, headers: HeaderMap) -> Response {
    let resume = gate::resume_from(headers.get("last-event-id").and_then(|v| v.to_str().ok()));
    let Some(client) = served.hub.client(resume) else {
        let why = format!(
            "503 Service Unavailable: sightline serve streams to at most {} pages at once; \
             close one and reload\n",
            hub::MAX_CLIENTS
        );
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "10")],
            why,
        )
            .into_response();
    };
    let mut stopping = served.stopping.clone();
    let stopped = async move {
        let _ = stopping.wait_for(|stopped| *stopped).await;
    };
    let body = futures_util::StreamExt::take_until(
        futures_util::stream::unfold(client, |mut client| async move {
            client
                .next_chunk()
                .await
                .map(|chunk| (Ok::<_, std::convert::Infallible>(chunk), client))
        }),
        stopped,
    );
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (new_token().expect("token"), new_token().expect("token"));
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
