//! Latency the Streamable HTTP proxy adds, measured against a direct connection in the same run.
//!
//! The upstream is a small axum server on 127.0.0.1 inside this process: `POST /mcp` answers a
//! JSON-RPC result as `application/json`; `POST /sse?n=N&gap=G` answers an SSE stream of N
//! events, each stamped with the moment the upstream hands it over. The client is reqwest. The
//! proxy is [`HttpProxy`], the type `sightline proxy --http` runs, recording to a trace file.
//!
//! - per request: one JSON POST at a time, round trip, direct and through the proxy;
//! - per SSE event, paced: one event every `gap` ms, time from the upstream's hand-over to the
//!   client reading it (one clock: the same process);
//! - per SSE event, burst: N events written back to back, total time over N.
//!
//! A third proxy, on a current-thread runtime like the second, records to no sink: it takes
//! every request and response apart and numbers them as the others do but writes no trace, so
//! the difference to the second is what writing the trace costs, and what is left is what
//! passing the bytes through a second HTTP connection costs.
//!
//! Upstream, proxy and client each run on their own thread and runtime, as three processes
//! would. Direct and proxied runs alternate in rounds, so drift hits both. The added latency is
//! the difference of the percentiles. Run with `cargo bench --bench http_proxy_latency`.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use sightline::tap::Recorder;
use sightline::tap::http_proxy::HttpProxy;
use sightline::trace::{Header, TraceWriter};

const ROUNDS: usize = 10;
const REQUESTS_PER_ROUND: usize = 200;
const WARMUP: usize = 200;
const PACED_EVENTS: usize = 200;
const BURST_EVENTS: usize = 5_000;

/// The one clock: microseconds since the first call.
fn now_us() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_micros() as u64
}

/// The value of `key` in the query of `uri` (`n` events, `gap` milliseconds between them).
fn query(uri: &Uri, key: &str) -> u64 {
    uri.query()
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn json_result(body: Bytes) -> Response {
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or_default();
    let result = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"content": [{"type": "text", "text": "Seoul: 15C, clear sky, wind 3 m/s"}], "isError": false}
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        result.to_string(),
    )
        .into_response()
}

async fn sse_stream(uri: Uri) -> Response {
    let (n, gap) = (query(&uri, "n"), query(&uri, "gap"));
    let events = futures_util::stream::unfold(0u64, move |i| async move {
        if i == n {
            return None;
        }
        if gap > 0 && i > 0 {
            tokio::time::sleep(Duration::from_millis(gap)).await;
        }
        let event = format!(
            "id: {i}\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":1,\"progress\":{i},\"sent_us\":{}}}}}\n\n",
            now_us()
        );
        Some((Ok::<_, std::io::Error>(Bytes::from(event)), i + 1))
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(events),
    )
        .into_response()
}

async fn upstream() -> SocketAddr {
    let router = Router::new()
        .route("/mcp", post(json_result))
        .route("/sse", post(sse_stream));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind upstream");
    let addr = listener.local_addr().expect("addr");
    // Like Node's HTTP server: no Nagle delay on small writes such as one SSE event.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

fn request_body(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"Seoul"}}}}}}"#
    )
}

/// Round trips of `count` JSON POSTs, one at a time, in microseconds.
async fn json_round_trips(client: &reqwest::Client, base: &str, count: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(count);
    for id in 0..count {
        let start = Instant::now();
        let response = client
            .post(format!("{base}/mcp"))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .body(request_body(id))
            .send()
            .await
            .expect("send");
        assert!(response.status().is_success());
        let body = response.bytes().await.expect("body");
        assert!(!body.is_empty());
        out.push(start.elapsed().as_secs_f64() * 1e6);
    }
    out
}

/// Reads one SSE stream of `n` events; for each, microseconds from the upstream's hand-over to
/// its receipt here. Also returns the time from sending the request to the last event.
async fn sse_events(
    client: &reqwest::Client,
    base: &str,
    n: usize,
    gap: u64,
) -> (Vec<f64>, Duration) {
    let start = Instant::now();
    let mut response = client
        .post(format!("{base}/sse?n={n}&gap={gap}"))
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .body(request_body(0))
        .send()
        .await
        .expect("send");
    assert!(response.status().is_success());
    let mut latencies = Vec::with_capacity(n);
    let mut pending: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await.expect("chunk") {
        let received = now_us();
        pending.extend_from_slice(&chunk);
        // Each complete event in what came, read in place: a chunk of many events (what the
        // proxy coalesces) costs the client what the same events cost one chunk at a time.
        let mut start = 0;
        while let Some(end) = memchr::memmem::find(&pending[start..], b"\n\n") {
            let event = &pending[start..start + end + 2];
            start += end + 2;
            let text = String::from_utf8_lossy(event);
            let sent = text
                .split("\"sent_us\":")
                .nth(1)
                .and_then(|rest| rest.split('}').next())
                .and_then(|n| n.parse::<u64>().ok())
                .expect("a stamped event");
            latencies.push(received.saturating_sub(sent) as f64);
        }
        pending.drain(..start);
    }
    assert_eq!(latencies.len(), n, "every event arrives");
    (latencies, start.elapsed())
}

fn pct(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn median(values: &[f64]) -> f64 {
    pct(values, 0.5)
}

fn report(what: &str, unit: &str, direct: &[f64], proxied: &[f64]) {
    println!("{what} ({} samples each, {unit})", direct.len());
    for (name, v) in [("direct", direct), ("proxy ", proxied)] {
        println!(
            "  {name}  p50 {:>8.1}  p99 {:>8.1}",
            pct(v, 0.5),
            pct(v, 0.99)
        );
    }
    println!(
        "  added   p50 {:>8.1}  p99 {:>8.1}  ratio p50 proxy/direct {:.2}",
        pct(proxied, 0.5) - pct(direct, 0.5),
        pct(proxied, 0.99) - pct(direct, 0.99),
        pct(proxied, 0.5) / pct(direct, 0.5)
    );
}

/// Runs `serve` on its own thread and runtime, as a separate process would; returns the
/// address it reports.
fn on_own_thread<F>(runtime: tokio::runtime::Runtime, serve: F) -> SocketAddr
where
    F: AsyncFnOnce(std::sync::mpsc::Sender<SocketAddr>) + Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || runtime.block_on(serve(tx)));
    rx.recv().expect("the server started")
}

fn main() {
    let dir = std::env::temp_dir().join(format!("sightline-http-bench-{}", std::process::id()));
    let trace = dir.join("http-bench.jsonl");
    let writer = TraceWriter::create(&trace, &Header::new("http proxy bench")).expect("trace");
    let recorder = Recorder::start(vec![Box::new(writer)]);

    // Three "processes": the upstream on one thread, the proxy on a runtime like the CLI's,
    // the client on the main thread.
    let single = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    };
    let upstream = on_own_thread(single(), async |tx| {
        let addr = upstream().await;
        let _ = tx.send(addr);
        std::future::pending::<()>().await;
    });
    let direct = format!("http://{upstream}");
    // The proxy twice: on a multi-threaded runtime (as `sightline wrap --serve` runs it)
    // and on a current-thread one (as `sightline proxy --http` runs it), measured in
    // the same rounds.
    let start_proxy = |runtime: tokio::runtime::Runtime, proxy_recorder: Arc<Recorder>| {
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let endpoint = format!("{direct}/mcp");
        let addr = on_own_thread(runtime, async move |tx| {
            let listen = SocketAddr::from(([127, 0, 0, 1], 0));
            let proxy = HttpProxy::bind(listen, &endpoint, "bench", proxy_recorder)
                .await
                .expect("bind the proxy");
            let _ = tx.send(proxy.local_addr());
            let stop = async move {
                let _ = stop_rx.await;
            };
            let _ = proxy.serve(stop, Duration::from_secs(1)).await;
        });
        (format!("http://{addr}"), stop_tx)
    };
    let multi = tokio::runtime::Runtime::new().expect("runtime");
    let (proxied, stop_tx) = start_proxy(multi, Arc::clone(&recorder));
    let (proxied_one, stop_one) = start_proxy(single(), Arc::clone(&recorder));
    let unrecorded = Recorder::start(Vec::new());
    let (proxied_none, stop_none) = start_proxy(single(), Arc::clone(&unrecorded));

    single().block_on(async {
        let client = sightline::tap::client::http()
            .no_proxy()
            .build()
            .expect("client");
        json_round_trips(&client, &direct, WARMUP).await;
        json_round_trips(&client, &proxied, WARMUP).await;
        json_round_trips(&client, &proxied_one, WARMUP).await;
        json_round_trips(&client, &proxied_none, WARMUP).await;
        let (mut d_json, mut p_json, mut o_json) = (Vec::new(), Vec::new(), Vec::new());
        let (mut d_paced, mut p_paced, mut o_paced) = (Vec::new(), Vec::new(), Vec::new());
        let (mut d_burst, mut p_burst, mut o_burst) = (Vec::new(), Vec::new(), Vec::new());
        let (mut n_json, mut n_paced, mut n_burst) = (Vec::new(), Vec::new(), Vec::new());
        let per_event =
            |(_, total): (Vec<f64>, Duration)| total.as_secs_f64() * 1e6 / BURST_EVENTS as f64;
        for _ in 0..ROUNDS {
            d_json.extend(json_round_trips(&client, &direct, REQUESTS_PER_ROUND).await);
            p_json.extend(json_round_trips(&client, &proxied, REQUESTS_PER_ROUND).await);
            o_json.extend(json_round_trips(&client, &proxied_one, REQUESTS_PER_ROUND).await);
            n_json.extend(json_round_trips(&client, &proxied_none, REQUESTS_PER_ROUND).await);
            d_paced.extend(sse_events(&client, &direct, PACED_EVENTS, 1).await.0);
            p_paced.extend(sse_events(&client, &proxied, PACED_EVENTS, 1).await.0);
            o_paced.extend(sse_events(&client, &proxied_one, PACED_EVENTS, 1).await.0);
            n_paced.extend(sse_events(&client, &proxied_none, PACED_EVENTS, 1).await.0);
            d_burst.push(per_event(
                sse_events(&client, &direct, BURST_EVENTS, 0).await,
            ));
            p_burst.push(per_event(
                sse_events(&client, &proxied, BURST_EVENTS, 0).await,
            ));
            o_burst.push(per_event(
                sse_events(&client, &proxied_one, BURST_EVENTS, 0).await,
            ));
            n_burst.push(per_event(
                sse_events(&client, &proxied_none, BURST_EVENTS, 0).await,
            ));
        }

        for (runtime, json, paced, burst) in [
            ("multi-thread runtime", &p_json, &p_paced, &p_burst),
            ("current-thread runtime", &o_json, &o_paced, &o_burst),
            (
                "current-thread runtime, recording to no sink",
                &n_json,
                &n_paced,
                &n_burst,
            ),
        ] {
            println!("== proxy on a {runtime}");
            report(
                "JSON request round trip, one at a time (goal: added p50 <= 50)",
                "microseconds",
                &d_json,
                json,
            );
            report(
                "SSE event, one every 1 ms: upstream hand-over to client receipt",
                "microseconds",
                &d_paced,
                paced,
            );
            let (d, p) = (median(&d_burst), median(burst));
            println!(
                "SSE burst: {BURST_EVENTS} events back to back, median of {ROUNDS} streams (microseconds per event)"
            );
            println!("  direct {d:>8.2}  proxy {p:>8.2}  ratio {:.2}  (goal <= 2)", p / d);
        }
    });
    let _ = stop_tx.send(());
    let _ = stop_one.send(());
    let _ = stop_none.send(());
    let written = recorder.finish();
    println!(
        "recorded {} events to the trace ({} errors)",
        written.events,
        written.errors.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
