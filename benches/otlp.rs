//! OpenTelemetry export, measured against baselines of the same run.
//!
//! - **Export of a 100,000-event trace** (both mixes of `traces.rs`): loading the file
//!   (`trace::load`, the baseline every command pays) against mapping it to spans and encoding
//!   the OTLP/protobuf requests (`analysis::report` + `otlp::spans` + `otlp::requests` +
//!   `to_protobuf`); spans per second, and the ratio of the two times. Also the live path: the
//!   same events pushed one at a time through `otlp::stream::Stream` (the window the live
//!   exporter maps), spans per second, its time against the export's, and whether its spans
//!   are the file's (ids, names, parents; the bench fails if not).
//! - **Live streaming's cost to forwarding**: round trips one at a time through
//!   `sightline proxy -- sed` (sed turns each `ping` request into its result, so every round trip
//!   completes a span), without and with `--otlp-endpoint` pointing at an OTLP receiver in this
//!   process, in alternating rounds; the added p50 (goal: at most 5 µs).
//!
//! Run with `cargo bench --bench otlp`.

#[path = "traces.rs"]
mod traces;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use sightline::export::otlp::{self, Options, stream::Stream};
use traces::Mix;

const EVENTS: u64 = 100_000;
const ROUNDS: usize = 6;
const ROUND_TRIPS: usize = 2_000;
const WARMUP: usize = 200;

fn export_bench(dir: &std::path::Path) {
    println!("export of a {EVENTS}-event trace (release build)");
    for mix in Mix::ALL {
        let path = dir.join(format!("{}.jsonl", mix.name().replace(' ', "-")));
        let bytes = mix.write(&path, EVENTS);
        // Median of 3 of each, alternating.
        let (mut loads, mut exports, mut lives) = (Vec::new(), Vec::new(), Vec::new());
        let mut spans_n = 0;
        let mut encoded = 0;
        let mut live_n = 0;
        let mut same = true;
        for _ in 0..3 {
            let t = Instant::now();
            let loaded = sightline::trace::load(&path).expect("load");
            loads.push(t.elapsed().as_secs_f64());

            let t = Instant::now();
            let report = sightline::analysis::report(&loaded.events);
            let options = Options::default();
            let spans = otlp::spans(&loaded.header, &loaded.events, &report, &options);
            spans_n = spans.len();
            let file_tree = tree(&spans);
            encoded = otlp::requests(spans, &options)
                .iter()
                .map(|r| otlp::to_protobuf(r).len())
                .sum::<usize>();
            exports.push(t.elapsed().as_secs_f64());

            let t = Instant::now();
            let mut stream = Stream::new(loaded.header.clone(), Options::default());
            let mut live = Vec::new();
            for event in loaded.events {
                stream.push(event);
                if stream.unmapped() >= otlp::BATCH {
                    live.extend(stream.complete());
                }
            }
            live.extend(stream.finish());
            lives.push(t.elapsed().as_secs_f64());
            live_n = live.len();
            same &= tree(&live) == file_tree;
        }
        let (load, export, live) = (median(loads), median(exports), median(lives));
        println!(
            "  {:<13} {:.1} MB: load {:>7.1} ms | map + encode {:>7.1} ms, {spans_n} spans, {:.1} MB protobuf, {:>9.0} spans/s, {:.2}x the load | live window {:>7.1} ms, {live_n} spans, {:>9.0} spans/s, {:.2}x the export; live spans {} the file's (ids, names, parents)",
            mix.name(),
            bytes as f64 / 1e6,
            load * 1e3,
            export * 1e3,
            encoded as f64 / 1e6,
            spans_n as f64 / export,
            export / load,
            live * 1e3,
            live_n as f64 / live,
            live / export,
            if same { "are" } else { "DIFFER from" },
        );
        assert!(
            same,
            "{}: the live spans differ from the file's",
            mix.name()
        );
    }
}

/// What identifies each span and its place in the tree, sorted.
fn tree(spans: &[opentelemetry_proto::tonic::trace::v1::Span]) -> Vec<(Vec<u8>, Vec<u8>, String)> {
    let mut v: Vec<_> = spans
        .iter()
        .map(|s| (s.span_id.clone(), s.parent_span_id.clone(), s.name.clone()))
        .collect();
    v.sort();
    v
}

/// An OTLP/HTTP receiver in this process: answers 200 to every POST, counts the bodies.
fn receiver(runtime: &tokio::runtime::Runtime, got: Arc<AtomicU64>) -> SocketAddr {
    runtime.block_on(async move {
        let router = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(move |body: axum::body::Bytes| {
                let got = got.clone();
                async move {
                    got.fetch_add(body.len() as u64, Ordering::Relaxed);
                    ""
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, router).await });
        addr
    })
}

fn spawn(trace: &std::path::Path, endpoint: Option<&str>) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sightline"));
    c.args(["proxy", "--quiet", "--trace"]).arg(trace);
    if let Some(url) = endpoint {
        c.args(["--otlp-endpoint", url]);
    }
    c.args(["--", "sed", "-u", r#"s/"method":"ping"/"result":{}/"#])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the proxy")
}

/// Round trips one at a time, in microseconds, sorted.
fn latencies(trace: &std::path::Path, endpoint: Option<&str>, first_id: usize) -> Vec<f64> {
    let mut child = spawn(trace, endpoint);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut out = Vec::with_capacity(ROUND_TRIPS);
    for i in 0..ROUND_TRIPS + WARMUP {
        let msg = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}}\n",
            first_id + i
        );
        let start = Instant::now();
        stdin.write_all(msg.as_bytes()).expect("write");
        line.clear();
        stdout.read_line(&mut line).expect("read");
        assert!(line.contains("\"result\""), "{line}");
        if i >= WARMUP {
            out.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    drop(stdin);
    child.wait().expect("wait");
    out.sort_by(f64::total_cmp);
    out
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn latency_bench(dir: &std::path::Path) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let got = Arc::new(AtomicU64::new(0));
    let addr = receiver(&runtime, got.clone());
    let url = format!("http://{addr}");
    let trace = dir.join("latency.jsonl");
    let (mut without, mut with) = (Vec::new(), Vec::new());
    let (mut p50_without, mut p50_with) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let a = latencies(&trace, None, round * 10_000);
        let b = latencies(&trace, Some(&url), round * 10_000);
        p50_without.push(pct(&a, 0.5));
        p50_with.push(pct(&b, 0.5));
        without.extend(a);
        with.extend(b);
    }
    without.sort_by(f64::total_cmp);
    with.sort_by(f64::total_cmp);
    let sent = got.load(Ordering::Relaxed);
    println!(
        "proxy round trip, {ROUNDS} alternating rounds of {ROUND_TRIPS} (microseconds; `sightline proxy -- sed`)"
    );
    println!(
        "  without --otlp-endpoint  p50 {:>7.1}  p99 {:>7.1}",
        pct(&without, 0.5),
        pct(&without, 0.99)
    );
    println!(
        "  with --otlp-endpoint     p50 {:>7.1}  p99 {:>7.1}  ({:.1} MB of OTLP received)",
        pct(&with, 0.5),
        pct(&with, 0.99),
        sent as f64 / 1e6
    );
    let diffs: Vec<f64> = p50_with
        .iter()
        .zip(&p50_without)
        .map(|(w, o)| w - o)
        .collect();
    println!(
        "  added p50 {:>+6.1} (all round trips), median of the rounds' differences {:>+6.1}, p99 {:>+6.1}  (goal: p50 <= 5)",
        pct(&with, 0.5) - pct(&without, 0.5),
        median(diffs),
        pct(&with, 0.99) - pct(&without, 0.99)
    );
    assert!(sent > 0, "the receiver got no spans");
}

fn main() {
    let dir = std::env::temp_dir().join(format!("sightline-otlp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    export_bench(&dir);
    latency_bench(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}
