//! `replay`, `diff` and `check` at scale, each against a baseline measured in the same run.
//!
//! - **replay**: a minimal client (this process, lockstep over pipes) sends 10,000 requests
//!   (`initialize`, then `tools/call get_weather` with a new location each) straight to the
//!   built-in weather server (`sightline demo-server weather`, Rust, fast); what it sent and got
//!   back becomes the recording; then `sightline replay` sends the same requests to a new
//!   server through the tap, recording the replay and comparing every answer. The figure is
//!   the added time per request, (replay - direct) / requests; goal <= 50 µs. The replay's time
//!   counts everything the command does: loading the recording, spawning, the round trips,
//!   the trace it writes, loading that back and the comparison.
//! - **diff** and **check** on 100,000-event traces of both mixes (`traces.rs`), run as the
//!   real binary with output to /dev/null; goal < 1 s each. Baseline: `summary` of the same
//!   trace (read, analyse, print one line per event), so the ratio says what diffing or
//!   checking costs beyond reading.
//!
//! Run with `cargo bench --bench replay_diff_check` (`-- replay`, `-- diff` or `-- check` for
//! one part; a number for another count of requests). With `SIGHTLINE_BASELINE_BIN` set to an
//! earlier build of the binary, the replay and each diff and check are also timed with that
//! build, in the same run, and the ratio printed; then each diff and check is run again with
//! both builds, untimed, and their outputs and exit codes must be byte for byte the same (the
//! bench fails otherwise).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sightline::trace::{Channel, Event, Header, Lane, TraceWriter, now};

#[path = "traces.rs"]
mod traces;
use traces::Mix;

fn bin() -> std::ffi::OsString {
    std::env::var_os("SIGHTLINE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_sightline").into())
}

/// The requests: `initialize`, `notifications/initialized`, then `n - 1` tool calls.
fn requests(n: usize) -> Vec<String> {
    let mut out = vec![
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
    ];
    for k in 1..n {
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":{k},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"city {k}"}}}}}}"#
        ));
    }
    out
}

/// The minimal client: each request written, its answer read, in lockstep. Returns the
/// time from the first request to the last answer, and every (line sent, answer) pair.
fn direct(lines: &[String]) -> (Duration, Vec<(String, Option<String>)>) {
    let mut child = Command::new(bin())
        .args(["demo-server", "weather"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the weather server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut pairs = Vec::with_capacity(lines.len());
    let start = Instant::now();
    for line in lines {
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
        if !line.contains(r#""id":"#) {
            pairs.push((line.clone(), None));
            continue;
        }
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("read");
        pairs.push((line.clone(), Some(answer.trim_end().to_string())));
    }
    let elapsed = start.elapsed();
    drop(stdin);
    let _ = child.wait();
    (elapsed, pairs)
}

/// The direct session as a trace (what `sightline proxy` would have recorded).
fn recording(path: &Path, pairs: &[(String, Option<String>)]) {
    let mut w = TraceWriter::create(path, &Header::new("bench recording")).expect("create");
    let t0 = now();
    let mut seq = 0;
    let mut push = |from: Lane, to: Lane, raw: &str| {
        let time = t0 + chrono::Duration::microseconds(seq as i64 * 50);
        let e = Event::with_bytes(seq, time, from, to, Channel::Stdio, raw.as_bytes().to_vec());
        w.append(&e).expect("append");
        seq += 1;
    };
    for (sent, answer) in pairs {
        push(Lane::Host, Lane::server("weather"), sent);
        if let Some(a) = answer {
            push(Lane::server("weather"), Lane::Host, a);
        }
    }
    w.flush().expect("flush");
}

/// Runs the binary with `args`, output discarded; its wall time and exit code.
fn timed(args: &[&std::ffi::OsStr]) -> (Duration, i32) {
    timed_with(&bin(), args)
}

/// [`timed`] with another build of the binary.
fn timed_with(bin: &std::ffi::OsStr, args: &[&std::ffi::OsStr]) -> (Duration, i32) {
    let start = Instant::now();
    let status = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run sightline");
    (start.elapsed(), status.code().unwrap_or(-1))
}

/// The binary's standard output and exit code on `args`.
fn output_of(bin: &std::ffi::OsStr, args: &[&std::ffi::OsStr]) -> (Vec<u8>, i32) {
    let out = Command::new(bin)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .expect("run sightline");
    (out.stdout, out.status.code().unwrap_or(-1))
}

fn replay_part(dir: &Path, n: usize) {
    let lines = requests(n);
    let requests_sent = lines.len() - 1;
    // A warm-up run, so neither side pays for a cold page cache of the binary.
    let _ = direct(&lines[..50.min(lines.len())]);
    let (direct_time, pairs) = direct(&lines);
    let rec = dir.join("recording.jsonl");
    recording(&rec, &pairs);
    let out = dir.join("replay.jsonl");
    let b = bin();
    let (replay_time, code) = timed(&[
        "replay".as_ref(),
        rec.as_os_str(),
        "--trace".as_ref(),
        out.as_os_str(),
        "--".as_ref(),
        b.as_os_str(),
        "demo-server".as_ref(),
        "weather".as_ref(),
    ]);
    // The fixed part of a replay: the same command on a recording of 2 requests.
    let small = dir.join("small.jsonl");
    recording(&small, &pairs[..3]);
    let (fixed, _) = timed(&[
        "replay".as_ref(),
        small.as_os_str(),
        "--trace".as_ref(),
        dir.join("small-replay.jsonl").as_os_str(),
        "--".as_ref(),
        b.as_os_str(),
        "demo-server".as_ref(),
        "weather".as_ref(),
    ]);
    let per = |d: Duration| d.as_secs_f64() * 1e6 / requests_sent as f64;
    let added =
        (replay_time.as_secs_f64() - direct_time.as_secs_f64()) * 1e6 / requests_sent as f64;
    let added_loop = (replay_time.as_secs_f64() - fixed.as_secs_f64() - direct_time.as_secs_f64())
        * 1e6
        / requests_sent as f64;
    println!(
        "replay of {requests_sent} requests against `sightline demo-server weather` (exit {code}, 0 = every answer the same)"
    );
    println!(
        "  direct, minimal client      {:>8.3} s  {:>7.1} µs/request",
        direct_time.as_secs_f64(),
        per(direct_time)
    );
    println!(
        "  sightline replay (whole)    {:>8.3} s  {:>7.1} µs/request  ({:.2}x direct)",
        replay_time.as_secs_f64(),
        per(replay_time),
        replay_time.as_secs_f64() / direct_time.as_secs_f64()
    );
    println!(
        "  replay's fixed part (2 requests: start, load, spawn, compare) {:.3} s",
        fixed.as_secs_f64()
    );
    let verdict = |us: f64| if us <= 50.0 { "ok" } else { "NOT MET" };
    println!(
        "  added per request: {added:.1} µs whole command, {added_loop:.1} µs without the fixed part (goal <= 50 µs): {}",
        verdict(added)
    );
    // SIGHTLINE_BASELINE_BIN: an earlier build replaying the same recording against the same
    // server, in this run.
    if let Some(old) = std::env::var_os("SIGHTLINE_BASELINE_BIN") {
        let (t, code) = timed_with(
            &old,
            &[
                "replay".as_ref(),
                rec.as_os_str(),
                "--trace".as_ref(),
                dir.join("baseline-replay.jsonl").as_os_str(),
                "--".as_ref(),
                b.as_os_str(),
                "demo-server".as_ref(),
                "weather".as_ref(),
            ],
        );
        let old_added = (t.as_secs_f64() - direct_time.as_secs_f64()) * 1e6 / requests_sent as f64;
        println!(
            "  the baseline build's replay  {:>8.3} s  {:>7.1} µs/request  (exit {code}), added {old_added:.1} µs/request; this build takes {:.2}x its time",
            t.as_secs_f64(),
            per(t),
            replay_time.as_secs_f64() / t.as_secs_f64()
        );
    }
}

fn scale_part(dir: &Path, which: &[&str]) {
    let n = 100_000;
    for mix in Mix::ALL {
        let name = mix.name().replace(' ', "-");
        let a = dir.join(format!("{name}-a.jsonl"));
        let b = dir.join(format!("{name}-b.jsonl"));
        let bytes = mix.write(&a, n);
        mix.write(&b, n);
        println!(
            "{} trace, {n} events, {:.1} MB",
            mix.name(),
            bytes as f64 / 1e6
        );
        let (summary, _) = timed(&["summary".as_ref(), a.as_os_str()]);
        println!("  baseline: summary       {:>7.3} s", summary.as_secs_f64());
        let mut runs: Vec<(&str, Vec<&std::ffi::OsStr>)> = Vec::new();
        if which.contains(&"diff") {
            runs.push((
                "diff A B",
                vec!["diff".as_ref(), a.as_os_str(), b.as_os_str()],
            ));
            runs.push((
                "diff A A",
                vec!["diff".as_ref(), a.as_os_str(), a.as_os_str()],
            ));
        }
        if which.contains(&"check") {
            runs.push(("check (defaults)", vec!["check".as_ref(), a.as_os_str()]));
            runs.push((
                "check (all classes, text)",
                vec![
                    "check".as_ref(),
                    a.as_os_str(),
                    "--fail-on".as_ref(),
                    "error,invalid,unanswered,schema,drift,poison,hidden,deprecated,secret"
                        .as_ref(),
                ],
            ));
            runs.push((
                "check (all classes, rules)",
                vec![
                    "check".as_ref(),
                    a.as_os_str(),
                    "--fail-on".as_ref(),
                    "error,invalid,unanswered,schema,drift,poison,hidden,deprecated,secret"
                        .as_ref(),
                    "--forbid-tool".as_ref(),
                    "rm_rf".as_ref(),
                    "--max-latency".as_ref(),
                    "1s".as_ref(),
                    "--format".as_ref(),
                    "sarif".as_ref(),
                ],
            ));
        }
        for (label, args) in runs {
            let (t, code) = timed(&args);
            let verdict = if t < Duration::from_secs(1) {
                "ok"
            } else {
                "NOT MET"
            };
            println!(
                "  {label:<26} {:>7.3} s  {:>5.2}x summary  exit {code}  (goal < 1 s: {verdict})",
                t.as_secs_f64(),
                t.as_secs_f64() / summary.as_secs_f64()
            );
            // SIGHTLINE_BASELINE_BIN: an earlier build, timed on the same command in this run.
            if let Some(old) = std::env::var_os("SIGHTLINE_BASELINE_BIN") {
                let (b, _) = timed_with(&old, &args);
                println!(
                    "  {:<26} {:>7.3} s  (this build takes {:.2}x the baseline build's time)",
                    "  the baseline build",
                    b.as_secs_f64(),
                    t.as_secs_f64() / b.as_secs_f64()
                );
                // Faster, not different: both builds' output and exit status, byte for byte
                // (run again, untimed, with the output kept).
                let (ours, theirs) = (output_of(&bin(), &args), output_of(&old, &args));
                assert!(
                    ours == theirs,
                    "{label}: this build's output ({} bytes, exit {}) differs from the baseline \
                     build's ({} bytes, exit {})",
                    ours.0.len(),
                    ours.1,
                    theirs.0.len(),
                    theirs.1
                );
                println!(
                    "  {:<26} same output as the baseline build ({} bytes)",
                    "",
                    ours.0.len()
                );
            }
        }
        let _ = std::fs::remove_file(&a);
        let _ = std::fs::remove_file(&b);
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let parts: Vec<&str> = ["replay", "diff", "check"]
        .into_iter()
        .filter(|p| {
            !args
                .iter()
                .any(|a| ["replay", "diff", "check"].contains(&a.as_str()))
                || args.iter().any(|a| a == p)
        })
        .collect();
    let n = args.iter().find_map(|a| a.parse().ok()).unwrap_or(10_000);
    let dir = std::env::temp_dir().join(format!("sightline-replay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    if parts.contains(&"replay") {
        replay_part(&dir, n);
    }
    if parts.contains(&"diff") || parts.contains(&"check") {
        scale_part(&dir, &parts);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
