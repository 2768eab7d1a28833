//! Proxy overhead, measured against a plain pipe in the same run.
//!
//! Throughput: 100,000 small JSON-RPC lines written into `cat` and read back, directly and
//! through `sightline proxy -- cat` (which records every line to a trace file). Latency: one
//! line at a time, waiting for its echo, directly and through the proxy; the added latency is
//! the difference of the percentiles. Run with `cargo bench --bench proxy_throughput`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MESSAGES: usize = 100_000;
const ROUNDS: usize = 11;
const ROUND_TRIPS: usize = 2_000;

fn message(i: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":7,\"progress\":{i},\"total\":{MESSAGES}}}}}\n"
    )
}

fn spawn(through_proxy: bool, trace: &std::path::Path) -> Child {
    let mut cmd = if through_proxy {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sightline"));
        c.arg("proxy")
            .arg("--quiet")
            .arg("--trace")
            .arg(trace)
            .args(["--", "cat"]);
        c
    } else {
        Command::new("cat")
    };
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn")
}

/// Seconds to push every message through and read every byte back.
fn throughput_run(through_proxy: bool, payload: &[u8], trace: &std::path::Path) -> Duration {
    let mut child = spawn(through_proxy, trace);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let start = Instant::now();
    let data = payload.to_vec();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&data).expect("write");
    });
    let mut got = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    while got < payload.len() {
        let n = stdout.read(&mut buf).expect("read");
        assert!(n > 0, "stream ended early after {got} bytes");
        got += n;
    }
    let elapsed = start.elapsed();
    writer.join().expect("writer");
    child.wait().expect("wait");
    elapsed
}

fn latencies(through_proxy: bool, trace: &std::path::Path) -> Vec<Duration> {
    let mut child = spawn(through_proxy, trace);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut out = Vec::with_capacity(ROUND_TRIPS);
    for i in 0..ROUND_TRIPS + 100 {
        let msg = message(i);
        let start = Instant::now();
        stdin.write_all(msg.as_bytes()).expect("write");
        line.clear();
        stdout.read_line(&mut line).expect("read");
        if i >= 100 {
            out.push(start.elapsed()); // the first 100 warm up
        }
    }
    drop(stdin);
    child.wait().expect("wait");
    out.sort();
    out
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("sightline-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let trace = dir.join("bench.jsonl");
    let payload: Vec<u8> = (0..MESSAGES)
        .flat_map(|i| message(i).into_bytes())
        .collect();
    let mb = payload.len() as f64 / 1e6;

    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        direct.push(throughput_run(false, &payload, &trace).as_secs_f64());
        proxied.push(throughput_run(true, &payload, &trace).as_secs_f64());
    }
    let (d, p) = (median(direct), median(proxied));
    println!("throughput: {MESSAGES} messages ({mb:.1} MB), median of {ROUNDS} rounds");
    println!(
        "  plain pipe (cat):        {:>8.1} ms  {:>10.0} msg/s",
        d * 1e3,
        MESSAGES as f64 / d
    );
    println!(
        "  sightline proxy -- cat:  {:>8.1} ms  {:>10.0} msg/s",
        p * 1e3,
        MESSAGES as f64 / p
    );
    println!("  ratio proxy/direct:      {:>8.3}  (target >= 0.9)", d / p);
    let recorded = std::fs::read_to_string(&trace)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    println!(
        "  trace lines of the last proxied round: {recorded} (header + spawn + messages + exit)"
    );

    let direct = latencies(false, &trace);
    let proxied = latencies(true, &trace);
    println!("round trip latency, {ROUND_TRIPS} round trips one at a time (microseconds)");
    println!(
        "  plain pipe p50 {:>7.1}  p99 {:>7.1}",
        pct(&direct, 0.5),
        pct(&direct, 0.99)
    );
    println!(
        "  proxy      p50 {:>7.1}  p99 {:>7.1}",
        pct(&proxied, 0.5),
        pct(&proxied, 0.99)
    );
    println!(
        "  added      p50 {:>7.1}  p99 {:>7.1}  (target p50 <= 50)",
        pct(&proxied, 0.5) - pct(&direct, 0.5),
        pct(&proxied, 0.99) - pct(&direct, 0.99)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
