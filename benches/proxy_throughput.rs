//! Proxy overhead, measured against a plain pipe in the same run.
//!
//! - Throughput: 100,000 small JSON-RPC lines written into `cat` and read back, directly and
//!   through `sightline proxy -- cat` (which records every line to a trace file): the time to
//!   the client's last byte, and to the proxy's exit with the whole trace written.
//! - Latency: one line at a time, waiting for its echo, directly and through the proxy; the
//!   added latency is the difference of the percentiles.
//! - One 50 MB line (a base64 image in a `tools/call` result) through `cat` and back: the time
//!   to the last byte, and the proxy's peak memory (its VmHWM) against the line's size.
//!
//! Every section also runs a forwarder that records nothing (this bench binary itself, started
//! again as one: it copies stdin to `cat` and `cat` to stdout with `std::io::copy`, which moves
//! pipe to pipe with `splice(2)` on Linux): what any proxy between two pipes costs on this
//! machine, so the goals' ratios can be read against what is reachable at all.
//!
//! Run with `cargo bench --bench proxy_throughput`. With `SIGHTLINE_BASELINE=/path/to/sightline`
//! an older build runs beside this one in every round, for before/after figures from one run.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MESSAGES: usize = 100_000;
const ROUNDS: usize = 11;
const ROUND_TRIPS: usize = 2_000;
const LONG_LINE: usize = 50 << 20;
const LONG_ROUNDS: usize = 5;

/// What carries the bytes: `cat` alone, a sightline binary's `proxy -- cat`, or the forwarder
/// that records nothing ([`forward_only`]).
#[derive(Clone, Copy)]
enum Via<'a> {
    Direct,
    Proxy(&'a str),
    Bare,
}

/// The environment variable that starts this binary as the forwarder that records nothing.
const FORWARD_ONLY: &str = "SIGHTLINE_BENCH_FORWARD_ONLY";

/// The forwarder that records nothing: `cat` behind two copies, stdin to its stdin and its
/// stdout to stdout, each closing its end when the other side closes.
fn forward_only() {
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn cat");
    let mut to_cat = cat.stdin.take().expect("cat's stdin");
    let mut from_cat = cat.stdout.take().expect("cat's stdout");
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_cat);
        });
        let _ = std::io::copy(&mut from_cat, &mut std::io::stdout().lock());
    });
    cat.wait().expect("wait for cat");
}

fn message(i: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":7,\"progress\":{i},\"total\":{MESSAGES}}}}}\n"
    )
}

fn spawn(via: Via<'_>, trace: &std::path::Path) -> Child {
    let mut cmd = match via {
        Via::Proxy(bin) => {
            // The last run's trace goes now, untimed: a proxy that truncated it on start
            // would pay for freeing its pages (~35 ms for a 100 MB trace still being written
            // back, which the carrier run just after another proxy always met).
            let _ = std::fs::remove_file(trace);
            let mut c = Command::new(bin);
            c.arg("proxy")
                .arg("--quiet")
                .arg("--trace")
                .arg(trace)
                .args(["--", "cat"]);
            c
        }
        Via::Bare => {
            let mut c = Command::new(std::env::current_exe().expect("this bench's path"));
            c.env(FORWARD_ONLY, "1");
            c
        }
        Via::Direct => Command::new("cat"),
    };
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn")
}

/// Pushes `payload` through and reads every byte back: the time to the last byte, to the
/// exit of what carried it (for the proxy: with the whole trace written), and its peak
/// resident memory in bytes (read from /proc before its stdin closes, so while it runs).
fn throughput_run(
    via: Via<'_>,
    payload: &[u8],
    trace: &std::path::Path,
) -> (Duration, Duration, u64) {
    let mut child = spawn(via, trace);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let start = Instant::now();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || {
            stdin.write_all(payload).expect("write");
            stdin
        });
        let mut got = 0usize;
        let mut buf = vec![0u8; 64 * 1024];
        while got < payload.len() {
            let n = stdout.read(&mut buf).expect("read");
            assert!(n > 0, "stream ended early after {got} bytes");
            got += n;
        }
        let last_byte = start.elapsed();
        let peak = peak_rss(child.id());
        drop(writer.join().expect("writer"));
        child.wait().expect("wait");
        (last_byte, start.elapsed(), peak)
    })
}

/// A running process's peak resident memory (VmHWM) in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn latencies(via: Via<'_>, trace: &std::path::Path) -> Vec<Duration> {
    let mut child = spawn(via, trace);
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

/// A `tools/call` result carrying one image of about `size` bytes, as one line.
fn long_line(size: usize) -> Vec<u8> {
    let head = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"image","mimeType":"image/png","data":""#;
    let tail = b"\"}]}}\n";
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut line = Vec::with_capacity(size);
    line.extend_from_slice(head);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    while line.len() < size - tail.len() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        line.push(alphabet[(x % 64) as usize]);
    }
    line.extend_from_slice(tail);
    line
}

fn main() {
    if std::env::var_os(FORWARD_ONLY).is_some() {
        forward_only();
        return;
    }
    let dir = std::env::temp_dir().join(format!("sightline-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let trace = dir.join("bench.jsonl");
    let payload: Vec<u8> = (0..MESSAGES)
        .flat_map(|i| message(i).into_bytes())
        .collect();
    let mb = payload.len() as f64 / 1e6;
    let baseline = std::env::var("SIGHTLINE_BASELINE").ok();
    let mut proxies = vec![("proxy", Via::Proxy(env!("CARGO_BIN_EXE_sightline")))];
    if let Some(old) = &baseline {
        proxies.push(("baseline", Via::Proxy(old.as_str())));
    }
    // Last, so its name's longer column does not shift the others.
    proxies.push(("no-record", Via::Bare));

    let mut direct = (Vec::new(), Vec::new());
    let mut proxied = vec![(Vec::new(), Vec::new()); proxies.len()];
    for _ in 0..ROUNDS {
        let (last, exit, _) = throughput_run(Via::Direct, &payload, &trace);
        direct.0.push(last.as_secs_f64());
        direct.1.push(exit.as_secs_f64());
        for (k, &(_, via)) in proxies.iter().enumerate() {
            let (last, exit, _) = throughput_run(via, &payload, &trace);
            proxied[k].0.push(last.as_secs_f64());
            proxied[k].1.push(exit.as_secs_f64());
        }
    }
    let d = median(direct.0);
    println!("throughput: {MESSAGES} messages ({mb:.1} MB), median of {ROUNDS} rounds");
    println!(
        "  plain pipe (cat):         {:>8.1} ms  {:>10.0} msg/s",
        d * 1e3,
        MESSAGES as f64 / d
    );
    for (&(name, via), (last, exit)) in proxies.iter().zip(proxied) {
        let (p, e) = (median(last), median(exit));
        println!(
            "  {name:<9} last byte      {:>8.1} ms  ratio direct/proxy {:>6.3}  (goal >= 0.9)",
            p * 1e3,
            d / p
        );
        // The forwarder that records nothing has no trace to write: only its exit.
        let label = match via {
            Via::Bare => "exit (no trace)    ",
            _ => "exit, trace on disk",
        };
        println!(
            "  {name:<9} {label} {:>5.1} ms  ratio direct/proxy {:>6.3}  (goal >= 0.5)",
            e * 1e3,
            d / e
        );
    }
    let recorded = std::fs::read_to_string(&trace)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    println!(
        "  trace lines of the last proxied round: {recorded} (header + spawn + messages + exit)"
    );

    let direct = latencies(Via::Direct, &trace);
    println!("round trip latency, {ROUND_TRIPS} round trips one at a time (microseconds)");
    println!(
        "  plain pipe  p50 {:>7.1}  p99 {:>7.1}",
        pct(&direct, 0.5),
        pct(&direct, 0.99)
    );
    for &(name, via) in &proxies {
        let proxied = latencies(via, &trace);
        println!(
            "  {name:<9}   p50 {:>7.1}  p99 {:>7.1}",
            pct(&proxied, 0.5),
            pct(&proxied, 0.99)
        );
        println!(
            "  {name:<9} added p50 {:>7.1}  p99 {:>7.1}  (goal p50 <= 15, p99 <= 50)",
            pct(&proxied, 0.5) - pct(&direct, 0.5),
            pct(&proxied, 0.99) - pct(&direct, 0.99)
        );
    }

    let line = long_line(LONG_LINE);
    let mut direct = Vec::new();
    let mut proxied = vec![(Vec::new(), 0u64); proxies.len()];
    for _ in 0..LONG_ROUNDS {
        direct.push(throughput_run(Via::Direct, &line, &trace).0.as_secs_f64());
        for (k, &(_, via)) in proxies.iter().enumerate() {
            let (last, _, peak) = throughput_run(via, &line, &trace);
            proxied[k].0.push(last.as_secs_f64());
            proxied[k].1 = proxied[k].1.max(peak);
        }
    }
    let d = median(direct);
    println!(
        "one {} MB line through cat and back, median of {LONG_ROUNDS} rounds",
        LONG_LINE >> 20
    );
    println!("  plain pipe (cat):         {:>8.1} ms", d * 1e3);
    for ((name, _), (last, peak)) in proxies.iter().zip(proxied) {
        let p = median(last);
        println!(
            "  {name:<9} last byte      {:>8.1} ms  ratio direct/proxy {:>6.3}  (goal >= 0.8)",
            p * 1e3,
            d / p
        );
        println!(
            "  {name:<9} peak memory    {:>8.1} MB  {:.2}x the line  (goal <= 1x)",
            peak as f64 / 1e6,
            peak as f64 / line.len() as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
