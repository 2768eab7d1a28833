//! `sightline serve` under load: pages × trace size, each against baselines of the same run.
//!
//! For each trace size (the weather mix of `traces.rs`) and each number of pages, `serve`
//! runs on 127.0.0.1 and the pages open `/events` and never read (the worst case for memory:
//! what the server keeps for them has nowhere to go). Printed per row:
//!
//! - **memory**: the server's resident set with the pages open, against the same server's
//!   with no page open (the trace read once), as a ratio: one shared reader keeps it near 1
//!   whatever the pages (issue 37 measured 4.5 GB for 200 pages of 26 MB with a reader each);
//! - **CPU after they leave**: the server's CPU over 3 s once every page closed (0 %: nothing
//!   goes on reading for pages that are gone);
//! - **time to first event** for one more page opened while the others are held, against the
//!   time `trace::load` takes to read the same file in this process.
//!
//! Run with `cargo bench --bench serve_load` (sizes in events: `-- 20000 100000`).

#[path = "traces.rs"]
mod traces;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use traces::Mix;

const PAGES: [usize; 3] = [1, 50, 200];

/// The `VmRSS` of `pid`, in MB.
fn rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// User + system CPU seconds of `pid`.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / hz
}

/// `sightline serve TRACE` and its port.
fn serve(trace: &std::path::Path) -> (Child, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("serve")
        .arg(trace)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the URL");
    let port = line
        .split(" at ")
        .nth(1)
        .and_then(|u| u.trim().trim_end_matches('/').rsplit_once(':'))
        .and_then(|(_, p)| p.parse().ok())
        .expect("a port");
    (child, port)
}

/// A page that asked for the stream and reads nothing.
fn idle_page(port: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(s, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").expect("request");
    s
}

/// How long a page waits for its first event.
fn first_event(port: u16) -> Duration {
    let started = Instant::now();
    let mut s = idle_page(port);
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    while !got.windows(5).any(|w| w == b"\nid: ") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    started.elapsed()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let sizes: Vec<u64> = if args.is_empty() {
        vec![20_000, 100_000]
    } else {
        args.iter().filter_map(|a| a.parse().ok()).collect()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    println!("sightline serve under load (pages that never read)");
    for events in sizes {
        let path = dir.path().join(format!("weather-{events}.jsonl"));
        let bytes = Mix::Weather.write(&path, events);
        let started = Instant::now();
        let loaded = sightline::trace::load(&path).expect("load");
        let load_time = started.elapsed();
        drop(loaded);
        println!(
            "{events} events ({:.1} MB): trace::load {:.0} ms",
            bytes as f64 / 1e6,
            load_time.as_secs_f64() * 1e3
        );
        for pages in PAGES {
            let (mut child, port) = serve(&path);
            let pid = child.id();
            // The trace read once, no page open: the baseline.
            let _ = first_event(port);
            std::thread::sleep(Duration::from_millis(500));
            let alone = rss_mb(pid);
            let held: Vec<TcpStream> = (0..pages).map(|_| idle_page(port)).collect();
            std::thread::sleep(Duration::from_secs(3));
            let with_pages = rss_mb(pid);
            let first = first_event(port);
            drop(held);
            std::thread::sleep(Duration::from_secs(1));
            let cpu_before = cpu_s(pid);
            std::thread::sleep(Duration::from_secs(3));
            let cpu_after = (cpu_s(pid) - cpu_before) / 3.0 * 100.0;
            println!(
                "  {pages:>4} pages: memory {with_pages:.0} MB vs {alone:.0} MB alone \
                 ({:.2}x); CPU after they left {cpu_after:.0} %; first event {:.0} ms \
                 ({:.2}x trace::load)",
                with_pages / alone.max(1.0),
                first.as_secs_f64() * 1e3,
                first.as_secs_f64() / load_time.as_secs_f64().max(1e-6)
            );
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
