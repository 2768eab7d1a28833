//! The proxy's own HTTP/1 connections to a loopback `http://` upstream, each driven on the task
//! of the exchange that uses it.
//!
//! Why not the pooled client (which the proxy keeps for `https://` and remote upstreams): its
//! connections run on a task of their own, which hands a response body over one chunk at a
//! time and only after the last one was taken, so the exchange cannot tell what has already
//! arrived from what has not, and every chunk and every answer costs a hop between tasks.
//! Driven here, the connection reads the socket and decodes inside the exchange's own poll:
//! [`UpstreamBody`] yields each chunk already read and is `Pending` only when the socket has
//! nothing more, so the proxy passes on a burst of SSE events in one write, and a JSON answer
//! needs no task switch. Idle connections wait in a small pool for the next exchange.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, Request, Response, Uri, header};
use futures_util::Stream;
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::tap::http_common::describe_chain;

type Connection = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// How many idle connections are kept.
const IDLE: usize = 16;

/// One connection: the half that sends requests and the half that runs it.
struct Conn {
    send: SendRequest<Full<Bytes>>,
    conn: Connection,
}

/// Where the upstream listens, and its idle connections.
pub(super) struct Upstream {
    addrs: Vec<SocketAddr>,
    /// The `Host` every request names (`HOST[:PORT]`, as the URL has it).
    host: HeaderValue,
    idle: Mutex<Vec<Conn>>,
}

impl Upstream {
    /// An upstream at `addrs` (resolved once), reached as `host`.
    pub(super) fn new(addrs: Vec<SocketAddr>, host: &str) -> Option<Upstream> {
        Some(Upstream {
            addrs,
            host: HeaderValue::from_str(host).ok()?,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Sends one request (`path_and_query` on the upstream, `headers` as forwarded) and waits
    /// for the response headers; the body is read through the returned [`UpstreamBody`]. `Err`
    /// says why, without the URL.
    pub(super) async fn send(
        self: &Arc<Self>,
        method: Method,
        path_and_query: &str,
        mut headers: HeaderMap,
        body: Bytes,
    ) -> Result<(Response<()>, UpstreamBody), String> {
        let uri: Uri = path_and_query
            .parse()
            .map_err(|err| format!("invalid request target: {err}"))?;
        headers.insert(header::HOST, self.host.clone());
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        // An idle connection the upstream closed meanwhile gives the request back unsent; it
        // then goes once more, on a new connection.
        let (mut conn, mut fresh) = match self.idle_conn() {
            Some(conn) => (conn, false),
            None => (self.connect().await?, true),
        };
        let response = loop {
            match exchange(&mut conn, request).await {
                Ok(response) => break response,
                Err((Some(unsent), _)) if !fresh => {
                    request = unsent;
                    conn = self.connect().await?;
                    fresh = true;
                }
                Err((_, why)) => return Err(why),
            }
        };
        let (parts, body) = response.into_parts();
        let body = UpstreamBody {
            body,
            conn: Some(conn),
            upstream: Arc::clone(self),
        };
        Ok((Response::from_parts(parts, ()), body))
    }

    /// An idle connection still open and ready for a request.
    fn idle_conn(&self) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        while let Some(mut conn) = idle.pop() {
            // Run it once: it notices a close by the upstream and gets ready for a request.
            if Pin::new(&mut conn.conn).poll(&mut cx).is_pending()
                && matches!(conn.send.poll_ready(&mut cx), Poll::Ready(Ok(())))
            {
                return Some(conn);
            }
        }
        None
    }

    async fn connect(&self) -> Result<Conn, String> {
        let stream = TcpStream::connect(&self.addrs[..])
            .await
            .map_err(|err| format!("tcp connect error: {err}"))?;
        let _ = stream.set_nodelay(true);
        let (send, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|err| describe_chain(&err))?;
        Ok(Conn { send, conn })
    }

    fn keep(&self, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE {
            idle.push(conn);
        }
    }
}

/// Sends `request` on `conn` and runs the connection until the response headers came. `Err`
/// says why, with the request when it was not sent.
async fn exchange(
    conn: &mut Conn,
    request: Request<Full<Bytes>>,
) -> Result<Response<Incoming>, (Option<Request<Full<Bytes>>>, String)> {
    let Conn { send, conn } = conn;
    let mut response = std::pin::pin!(send.try_send_request(request));
    let mut ended = None;
    let answer = std::future::poll_fn(|cx| {
        if let Poll::Ready(answer) = response.as_mut().poll(cx) {
            return Poll::Ready(Some(answer));
        }
        if ended.is_none()
            && let Poll::Ready(end) = Pin::new(&mut *conn).poll(cx)
        {
            ended = Some(end);
        }
        match response.as_mut().poll(cx) {
            Poll::Ready(answer) => Poll::Ready(Some(answer)),
            // The connection ended without answering (it should have said why).
            Poll::Pending if ended.is_some() => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    })
    .await;
    match answer {
        Some(Ok(response)) => Ok(response),
        Some(Err(mut err)) => {
            let unsent = err.take_message();
            Err((unsent, describe_chain(err.error())))
        }
        None => Err((
            None,
            match ended {
                Some(Err(err)) => describe_chain(&err),
                _ => "the upstream closed the connection".into(),
            },
        )),
    }
}

/// A response body from the upstream, read by running its connection on this task: each poll
/// yields a chunk already read, and is `Pending` only when the socket has nothing more. At the
/// end of the body the connection goes back to the pool.
pub(super) struct UpstreamBody {
    body: Incoming,
    conn: Option<Conn>,
    upstream: Arc<Upstream>,
}

impl Stream for UpstreamBody {
    type Item = Result<Bytes, String>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let mut ran = false;
        loop {
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => return Poll::Ready(Some(Ok(data))),
                    // Trailers are not passed on (as with the pooled client).
                    Err(_) => continue,
                },
                Poll::Ready(Some(Err(err))) => {
                    this.conn = None;
                    return Poll::Ready(Some(Err(describe_chain(&err))));
                }
                Poll::Ready(None) => {
                    if let Some(conn) = this.conn.take()
                        && !conn.send.is_closed()
                    {
                        this.upstream.keep(conn);
                    }
                    return Poll::Ready(None);
                }
                Poll::Pending => {}
            }
            // Nothing handed over yet: run the connection (it reads what the socket has and
            // hands over the next chunk), then look once more.
            match this.conn.as_mut() {
                Some(conn) if !ran => {
                    ran = true;
                    if Pin::new(&mut conn.conn).poll(cx).is_ready() {
                        // Closed or failed: the body ends or says why on the next look.
                        this.conn = None;
                    }
                }
                _ => return Poll::Pending,
            }
        }
    }
}
