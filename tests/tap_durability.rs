//! The stdio proxy under abuse: killed with SIGKILL mid-flood, flooded faster than it can
//! record, and a server that closes its stdout but keeps running.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sightline::trace::{Channel, Lane};

use crate::util::*;

/// One flood, killed after `after`: how many echoes the client had received in full, and how
/// many of those are not in the trace.
fn flood_and_kill(after: Duration) -> (usize, usize) {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let mut proxy = Command::new(bin())
        .arg("proxy")
        .arg("--quiet")
        .arg("--trace")
        .arg(&trace)
        .args(["--name", "cat", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the proxy");
    let mut stdin = proxy.stdin.take().expect("stdin");
    let stdout = proxy.stdout.take().expect("stdout");
    let writer = std::thread::spawn(move || {
        for i in 0u64.. {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{i}}}}}\n"
            );
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let (flowing_tx, flowing) = std::sync::mpsc::channel::<()>();
    let reader = std::thread::spawn(move || {
        let mut received = Vec::new();
        let mut lines = BufReader::new(stdout).split(b'\n');
        // `split` also yields a last line without its `\n`: only whole lines were delivered.
        let mut pending: Option<Vec<u8>> = None;
        while let Some(Ok(line)) = lines.next() {
            let _ = flowing_tx.send(());
            if let Some(done) = pending.replace(line) {
                received.push(done);
            }
        }
        (received, pending)
    });
    // `after` counts from the first echo, so the kill lands mid-flood even when a loaded
    // machine is slow to start the proxy and its server.
    flowing
        .recv_timeout(Duration::from_secs(30))
        .expect("no echo within 30 s");
    std::thread::sleep(after);
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe {
        libc::kill(proxy.id() as i32, libc::SIGKILL);
    }
    proxy.wait().expect("wait");
    let (mut received, last) = reader.join().expect("reader");
    let _ = writer.join();
    // The last piece counts only if its newline arrived; `split` cannot tell, so check the
    // stream's tail: a piece is whole when the next one started, and the very last one is
    // whole only if it parses as a complete message.
    if let Some(last) = last
        && last.ends_with(b"}}}")
    {
        received.push(last);
    }
    let loaded = load(&trace);
    // seq order is the order bytes crossed: each echo after the line it echoes, and the
    // trace gap-free.
    let sent: Vec<u64> = stdio_seqs(&loaded.events, &Lane::Host, &Lane::server("cat"));
    let echoed: Vec<u64> = stdio_seqs(&loaded.events, &Lane::server("cat"), &Lane::Host);
    for (i, (s, e)) in sent.iter().zip(&echoed).enumerate() {
        assert!(
            e > s,
            "echo {i} has seq {e}, before the line it echoes ({s})"
        );
    }
    for pair in loaded.events.windows(2) {
        assert_eq!(
            pair[1].seq,
            pair[0].seq + 1,
            "seqs are gap-free after a kill"
        );
    }
    let recorded: HashSet<Vec<u8>> = loaded
        .events
        .iter()
        .filter(|e| {
            e.channel == Channel::Stdio && e.from == Lane::server("cat") && e.to == Lane::Host
        })
        .filter_map(|e| e.bytes().map(|b| b.into_owned()))
        .collect();
    let missing = received.iter().filter(|l| !recorded.contains(*l)).count();
    (received.len(), missing)
}

/// The `seq`s of the stdio lines `from` -> `to`, in trace order.
fn stdio_seqs(events: &[sightline::trace::Event], from: &Lane, to: &Lane) -> Vec<u64> {
    events
        .iter()
        .filter(|e| e.channel == Channel::Stdio && &e.from == from && &e.to == to)
        .map(|e| e.seq)
        .collect()
}

#[test]
fn sigkill_mid_flood_loses_no_delivered_message() {
    let (mut delivered, mut missing) = (0, 0);
    for run in 0..20u64 {
        let (d, m) = flood_and_kill(Duration::from_millis(150 + 10 * run));
        delivered += d;
        missing += m;
    }
    eprintln!("kill -9 over 20 runs: {delivered} echoes delivered, {missing} missing");
    assert!(delivered > 1000, "the flood went through: {delivered}");
    assert_eq!(
        missing, 0,
        "{missing} of {delivered} delivered messages are not in the trace"
    );
}

/// The proxy's peak resident memory (VmHWM), read from /proc while it runs.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn a_flood_faster_than_the_disk_keeps_memory_bounded() {
    const FLOOD: u64 = 512 << 20;
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let script = format!("yes \"$(printf %01000d 0)\" | head -c {FLOOD}");
    let mut proxy = Command::new(bin())
        .arg("proxy")
        .arg("--quiet")
        .arg("--trace")
        .arg(&trace)
        .args(["--name", "flood", "--", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the proxy");
    let pid = proxy.id();
    let mut stdout = proxy.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    let start = Instant::now();
    let mut peak = 0;
    while proxy.try_wait().expect("try_wait").is_none() {
        peak = peak_rss_kb(pid).unwrap_or(peak).max(peak);
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the flood did not end"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let forwarded = reader.join().expect("reader");
    eprintln!(
        "{} MB flood: proxy peak RSS {} MB",
        FLOOD >> 20,
        peak / 1024
    );
    assert_eq!(forwarded, FLOOD, "every byte was forwarded");
    // A clean exit leaves the whole trace.
    // Header, spawn, a line per 1001 bytes (the last one unterminated), exit.
    let mut lines = 0u64;
    let mut file = std::fs::File::open(&trace).expect("open the trace");
    let mut buf = vec![0u8; 1 << 20];
    while let Ok(n) = file.read(&mut buf) {
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    assert_eq!(
        lines,
        FLOOD.div_ceil(1001) + 3,
        "every line forwarded is in the trace"
    );
    assert!(peak > 0, "the proxy's memory was read");
    assert!(
        peak < 64 * 1024,
        "the proxy held {} MB while flooded with {} MB",
        peak / 1024,
        FLOOD >> 20
    );
}

#[test]
fn a_server_that_closes_stdout_gives_the_client_eof_at_once() {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let mut proxy = Command::new(bin())
        .arg("proxy")
        .arg("--quiet")
        .arg("--trace")
        .arg(&trace)
        .args(["--", "sh", "-c", "echo hello; exec >&-; sleep 20"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the proxy");
    let stdin = proxy.stdin.take();
    let mut stdout = proxy.stdout.take().expect("stdout");
    let start = Instant::now();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = stdout.read_to_end(&mut all);
        (all, start.elapsed())
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let finished = reader.is_finished();
    // Closing stdin stops the server (stdin closed, then SIGTERM after the grace period).
    drop(stdin);
    let out = wait_with_deadline(proxy, Duration::from_secs(30));
    let (bytes, took) = reader.join().expect("reader");
    assert!(
        finished,
        "the client saw no EOF within 10 s of the server closing its stdout"
    );
    assert_eq!(bytes, b"hello\n");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(!out.status.success(), "the server was stopped by a signal");
    let loaded = load(&trace);
    assert!(
        loaded
            .events
            .iter()
            .any(|e| e.process().is_some_and(|p| p.event == "exit")),
        "the exit is recorded"
    );
}
