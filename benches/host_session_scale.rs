//! A long real-host session: Claude Code's recorded weather run (`traces::claude_code_session`)
//! repeated to about 110 MB (some 2,000 LLM exchanges, each request about 53 KB of Claude
//! Code's own tools, system prompt and deferred-tool list). Real hosts send far bigger requests
//! than Sightline's own host, so what reads the LLM side (what a request offered, the host's
//! naming joins, the doctor's verdicts from what was sent) must stay as fast per megabyte.
//!
//! Measured in the same run: the baseline (reading the file and splitting its lines), then
//! `summary` and `doctor` as the real binary (wall time, peak memory against the file), and the
//! app opening it (load, analyse, lay out; memory after). Beside them, the same commands on the
//! weather mix of about the same size, so the cost per megabyte of a real host's trace is put
//! against Sightline's own. Goals (issue 34): `summary` and `doctor` under 1 s and the app
//! open in under 2 s on a release build, memory under 1.5x the file.
//!
//! Run with `cargo bench --bench host_session_scale` (add a number of megabytes to change the
//! size: `-- 20`).

use std::time::{Duration, Instant};

#[path = "traces.rs"]
mod traces;
use traces::{Mix, rss_bytes, run_binary};

const COMMANDS: &[(&str, &[&str])] = &[("summary", &["summary"]), ("doctor", &["doctor"])];

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Each command on `path`: its wall time, and a line printed with its peak memory.
fn commands(path: &std::path::Path, bytes: u64) -> Vec<Duration> {
    COMMANDS
        .iter()
        .map(|(name, args)| {
            let (t, rss, code) = run_binary(args, path);
            println!(
                "  {name:<8} {:>7.2} s  peak {:>7.1} MB ({:.2}x the file)  exit {code}",
                secs(t),
                rss as f64 / 1e6,
                rss as f64 / bytes as f64
            );
            t
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let megabytes: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(110);
    let dir = std::env::temp_dir().join(format!("sightline-host-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");

    let claude = dir.join("claude-code.jsonl");
    let (bytes, exchanges) = traces::claude_code_session(&claude, megabytes * 1_000_000);
    let (lines, baseline) = traces::read_and_split(&claude);
    println!(
        "Claude Code session: {exchanges} LLM exchanges, {:.1} MB ({lines} lines), read + split {:.0} ms (baseline)",
        bytes as f64 / 1e6,
        secs(baseline) * 1e3
    );
    let host = commands(&claude, bytes);
    for ((name, _), t) in COMMANDS.iter().zip(&host) {
        println!(
            "  {name:<8} {:>7.1}x the baseline (goal < 1 s on a release build: {})",
            secs(*t) / secs(baseline),
            if secs(*t) < 1.0 { "met" } else { "NOT MET" }
        );
    }
    let before = rss_bytes();
    let start = Instant::now();
    let app = sightline::ui::SightlineApp::from_trace(&claude).expect("the app opens it");
    let open = start.elapsed();
    let memory = rss_bytes().saturating_sub(before);
    println!(
        "  app open {:>7.2} s  ({:.1}x the baseline; goal < 2 s), memory {:.1} MB ({:.2}x the file; goal < 1.5x)",
        secs(open),
        secs(open) / secs(baseline),
        memory as f64 / 1e6,
        memory as f64 / bytes as f64
    );
    drop(app);

    // Sightline's own host at about the same size: events of the weather mix.
    let probe = dir.join("probe.jsonl");
    let per_event = Mix::Weather.write(&probe, 10_000) as f64 / 10_000.0;
    let n = (bytes as f64 / per_event) as u64;
    let weather = dir.join("weather.jsonl");
    let weather_bytes = Mix::Weather.write(&weather, n);
    let (_, weather_baseline) = traces::read_and_split(&weather);
    println!(
        "weather mix, {n} events, {:.1} MB, read + split {:.0} ms",
        weather_bytes as f64 / 1e6,
        secs(weather_baseline) * 1e3
    );
    let own = commands(&weather, weather_bytes);
    for (((name, _), h), o) in COMMANDS.iter().zip(&host).zip(&own) {
        let per_mb = |t: &Duration, b: u64| secs(*t) / (b as f64 / 1e6);
        println!(
            "  {name:<8} per MB: Claude Code {:.1} ms, weather {:.1} ms ({:.2}x)",
            per_mb(h, bytes) * 1e3,
            per_mb(o, weather_bytes) * 1e3,
            per_mb(h, bytes) / per_mb(o, weather_bytes)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
