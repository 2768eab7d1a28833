//! The HTTP side: an axum server on a local address answering all four API shapes.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{RequestError, Script, ScriptedError, answer, error_body, stream};
use crate::host::replay::cassette::Cassette;
use crate::wire::api::ApiShape;

/// The largest request body accepted ([`crate::trace::BODY_LIMIT`]).
const BODY_LIMIT: usize = crate::trace::BODY_LIMIT;

/// How long [`ScriptedModel::shutdown`] waits for requests in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

struct Shared {
    script: Script,
    /// The answer to a request the host sends for a server's `sampling/createMessage`.
    sampling_reply: String,
    requests: AtomicU64,
    /// When set, recorded responses are served in order instead of the script's
    /// (`run --replay-model`).
    cassette: Option<Mutex<Cassette>>,
}

/// The scripted model serving on a local address; see the [module docs](super).
///
/// It answers `POST /v1/messages`, `POST /v1/responses`, `POST /v1/chat/completions` and
/// Gemini's `POST /v1beta/models/<model>:<method>` (and `/v1/models/...`) until
/// [`shutdown`](ScriptedModel::shutdown) or drop (which lets requests in flight finish).
#[derive(Debug)]
pub struct ScriptedModel {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl ScriptedModel {
    /// Binds `addr` (e.g. `127.0.0.1:0` for an ephemeral port) and serves all three shapes
    /// until dropped or shut down. Must be called within a Tokio runtime.
    pub async fn start(script: Script, addr: SocketAddr) -> Result<ScriptedModel, ScriptedError> {
        let reply = script.words().get(super::SAMPLING_REPLY).to_string();
        Self::start_with_sampling(script, reply, addr).await
    }

    /// [`start`](Self::start), answering sampling requests (those the host marks with
    /// [`SAMPLING_HEADER`](super::SAMPLING_HEADER)) with `sampling_reply`.
    pub async fn start_with_sampling(
        script: Script,
        sampling_reply: String,
        addr: SocketAddr,
    ) -> Result<ScriptedModel, ScriptedError> {
        let shared = Shared {
            script,
            sampling_reply,
            requests: AtomicU64::new(0),
            cassette: None,
        };
        Self::serve(shared, addr).await
    }

    /// Serves `cassette`'s recorded responses in order, one per request (sampling requests
    /// from their own queue), whatever the requests say. Past the last one it answers `400`
    /// saying so. Must be called within a Tokio runtime.
    pub async fn start_cassette(
        cassette: Cassette,
        addr: SocketAddr,
    ) -> Result<ScriptedModel, ScriptedError> {
        let shared = Shared {
            script: Script::default(),
            sampling_reply: String::new(),
            requests: AtomicU64::new(0),
            cassette: Some(Mutex::new(cassette)),
        };
        Self::serve(shared, addr).await
    }

    async fn serve(shared: Shared, addr: SocketAddr) -> Result<ScriptedModel, ScriptedError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ScriptedError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(ScriptedError::LocalAddr)?;
        let shared = Arc::new(shared);
        let route = |shape: ApiShape| {
            post(
                move |State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes| async move {
                    let sampling = headers.contains_key(super::SAMPLING_HEADER);
                    if let Some(response) = connector(&shared, shape, &body, sampling).await {
                        return response;
                    }
                    handle(&shared, shape, &body, sampling, None)
                },
            )
        };
        let gemini = post(
            |State(shared): State<Arc<Shared>>,
             Path(target): Path<String>,
             uri: Uri,
             headers: HeaderMap,
             body: Bytes| async move {
                let sampling = headers.contains_key(super::SAMPLING_HEADER);
                gemini_handle(&shared, &target, &uri, &body, sampling)
            },
        );
        let router = Router::new()
            .route(ApiShape::Anthropic.path(), route(ApiShape::Anthropic))
            .route(ApiShape::Openai.path(), route(ApiShape::Openai))
            .route(ApiShape::OpenaiChat.path(), route(ApiShape::OpenaiChat))
            .route("/v1beta/models/{target}", gemini.clone())
            .route("/v1/models/{target}", gemini)
            .fallback(not_found)
            .layer(DefaultBodyLimit::max(BODY_LIMIT))
            .with_state(shared);
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = axum::serve(listener, router).with_graceful_shutdown(async move {
            // A dropped sender stops the server too.
            let _ = stopped.await;
        });
        let task = tokio::spawn(async move {
            if let Err(error) = serving.await {
                tracing::warn!(%error, "scripted model server stopped");
            }
        });
        tracing::debug!(%addr, "scripted model listening");
        Ok(ScriptedModel {
            addr,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// `http://<ip>:<port>`, the base URL to give a provider (it appends `/v1/...`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets requests in flight finish (at most a few seconds) and returns
    /// when the server is gone.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(SHUTDOWN_GRACE, &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The next recorded response, or a `400` saying the recording has no more.
fn from_cassette(cassette: &Mutex<Cassette>, shape: ApiShape, sampling: bool) -> Response {
    let mut cassette = cassette
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let recorded_turns = cassette.recorded_turns;
    match cassette.next(sampling) {
        Some(recorded) => {
            let status = StatusCode::from_u16(recorded.status).unwrap_or(StatusCode::OK);
            let content_type = HeaderValue::from_str(&recorded.content_type)
                .unwrap_or(HeaderValue::from_static("application/json"));
            (
                status,
                [(header::CONTENT_TYPE, content_type)],
                recorded.body,
            )
                .into_response()
        }
        None => {
            let what = if sampling {
                "sampling responses"
            } else {
                "model responses"
            };
            let error = RequestError::Invalid(format!(
                "sightline replay: the recording has no more {what} (it has {recorded_turns} turn(s))"
            ));
            bad_request(shape, &error)
        }
    }
}

/// How a Gemini request asks to be answered: its method and `alt`, in the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GeminiDelivery {
    /// `:generateContent`.
    Whole,
    /// `:streamGenerateContent?alt=sse`.
    Sse,
    /// `:streamGenerateContent` without `alt=sse`: a JSON array of records.
    Array,
}

/// A Gemini request to `models/<target>`: `<model>:generateContent`,
/// `:streamGenerateContent` or `:countTokens`; anything else is a 404 in Gemini's error shape.
fn gemini_handle(
    shared: &Shared,
    target: &str,
    uri: &Uri,
    body: &[u8],
    sampling: bool,
) -> Response {
    let sse = uri
        .query()
        .is_some_and(|q| q.split('&').any(|pair| pair == "alt=sse"));
    let (model, delivery) = match target.rsplit_once(':') {
        Some((model, "generateContent")) => (model, GeminiDelivery::Whole),
        Some((model, "streamGenerateContent")) if sse => (model, GeminiDelivery::Sse),
        Some((model, "streamGenerateContent")) => (model, GeminiDelivery::Array),
        Some((_, "countTokens")) => return gemini_count_tokens(body),
        _ => {
            let message = format!(
                "the scripted model serves POST /v1beta/models/<model>:generateContent, \
                 :streamGenerateContent and :countTokens, not {}",
                uri.path()
            );
            let body = json!({"error": {"code": 404, "message": message, "status": "NOT_FOUND"}});
            return json_response(StatusCode::NOT_FOUND, &body);
        }
    };
    handle(
        shared,
        ApiShape::Gemini,
        body,
        sampling,
        Some((model, delivery)),
    )
}

/// `:countTokens`: the request's rough token count, as `{totalTokens}`.
fn gemini_count_tokens(body: &[u8]) -> Response {
    match serde_json::from_slice::<Value>(body) {
        Ok(request) => {
            let chars = serde_json::to_string(&request).map_or(0, |s| s.len());
            let total = super::read::tokens(chars);
            json_response(StatusCode::OK, &json!({"totalTokens": total}))
        }
        Err(error) => bad_request(ApiShape::Gemini, &RequestError::NotJson(error.to_string())),
    }
}

fn handle(
    shared: &Shared,
    shape: ApiShape,
    body: &[u8],
    sampling: bool,
    gemini: Option<(&str, GeminiDelivery)>,
) -> Response {
    let number = shared.requests.fetch_add(1, Ordering::Relaxed);
    if let Some(cassette) = &shared.cassette {
        return from_cassette(cassette, shape, sampling);
    }
    let sampling = sampling.then_some(shared.sampling_reply.as_str());
    let mut response = match serde_json::from_slice::<Value>(body) {
        Err(error) => bad_request(shape, &RequestError::NotJson(error.to_string())),
        Ok(request) => match answer(&shared.script, shape, &request, sampling) {
            Err(error) => bad_request(shape, &error),
            Ok(mut answer) => {
                tracing::debug!(
                    shape = shape.as_str(),
                    turn = answer.turn(),
                    "scripted answer"
                );
                if let Some((model, delivery)) = gemini {
                    answer.conversation.model = model.to_string();
                    match delivery {
                        GeminiDelivery::Whole => {
                            json_response(StatusCode::OK, &super::shapes::body(shape, &answer))
                        }
                        GeminiDelivery::Sse => sse(stream::events(shape, &answer, false)),
                        GeminiDelivery::Array => json_stream(stream::gemini_array(&answer)),
                    }
                } else if request.get("stream").and_then(Value::as_bool) == Some(true) {
                    let include_usage = request
                        .pointer("/stream_options/include_usage")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    sse(stream::events(shape, &answer, include_usage))
                } else {
                    json_response(StatusCode::OK, &super::shapes::body(shape, &answer))
                }
            }
        },
    };
    let id_header = match shape {
        ApiShape::Anthropic => "request-id",
        ApiShape::Openai | ApiShape::OpenaiChat => "x-request-id",
        ApiShape::Gemini => "x-goog-request-id",
    };
    if let Ok(value) = HeaderValue::from_str(&format!("req_sl_{number}")) {
        response.headers_mut().insert(id_header, value);
    }
    response
}

/// The answer of an API that is itself the MCP client of the servers the request hands it
/// (see [`super::connector`]); `None` when the request hands it none.
async fn connector(
    shared: &Shared,
    shape: ApiShape,
    body: &[u8],
    sampling: bool,
) -> Option<Response> {
    if sampling || shared.cassette.is_some() {
        return None;
    }
    let request = serde_json::from_slice::<Value>(body).ok()?;
    let answer = super::connector::answer(&shared.script, shape, &request).await?;
    let number = shared.requests.fetch_add(1, Ordering::Relaxed);
    let mut response = match answer {
        Err(error) => bad_request(shape, &error),
        Ok(answer) if request.get("stream").and_then(Value::as_bool) == Some(true) => {
            sse(super::connector::events(shape, &answer))
        }
        Ok(answer) => json_response(StatusCode::OK, &answer),
    };
    let id_header = match shape {
        ApiShape::Anthropic => "request-id",
        _ => "x-request-id",
    };
    if let Ok(value) = HeaderValue::from_str(&format!("req_sl_{number}")) {
        response.headers_mut().insert(id_header, value);
    }
    Some(response)
}

fn bad_request(shape: ApiShape, error: &RequestError) -> Response {
    tracing::debug!(shape = shape.as_str(), %error, "scripted model rejected a request");
    json_response(StatusCode::BAD_REQUEST, &error_body(shape, error))
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let content_type = [(header::CONTENT_TYPE, "application/json")];
    (status, content_type, bytes).into_response()
}

fn sse(events: Vec<String>) -> Response {
    let chunks = events
        .into_iter()
        .map(|event| Ok::<_, Infallible>(Bytes::from(event)));
    let body = Body::from_stream(futures_util::stream::iter(chunks));
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
        (header::CACHE_CONTROL, "no-cache"),
    ];
    (StatusCode::OK, headers, body).into_response()
}

/// A body sent as it is made, one chunk per string, as JSON (Gemini's array stream).
fn json_stream(chunks: Vec<String>) -> Response {
    let chunks = chunks
        .into_iter()
        .map(|chunk| Ok::<_, Infallible>(Bytes::from(chunk)));
    let body = Body::from_stream(futures_util::stream::iter(chunks));
    let headers = [(header::CONTENT_TYPE, "application/json; charset=UTF-8")];
    (StatusCode::OK, headers, body).into_response()
}

async fn not_found(uri: Uri) -> Response {
    let message = format!(
        "the scripted model serves POST {}, {}, {} and {}, not {}",
        ApiShape::Anthropic.path(),
        ApiShape::Openai.path(),
        ApiShape::OpenaiChat.path(),
        ApiShape::Gemini.path(),
        uri.path()
    );
    let body = json!({"error": {"message": message, "type": "not_found_error"}});
    json_response(StatusCode::NOT_FOUND, &body)
}
