//! The benches' synthetic traces, shared (`#[path = "traces.rs"] mod traces;`), so every bench
//! measures the same two mixes and a path that is quadratic in one of them cannot hide:
//!
//! - **weather**: the seed article's loop, 12 small events (a prompt, `tools/list`, one
//!   `tools/call`, a log and a progress notification, a ping, stderr, a non-JSON line, the
//!   answer);
//! - **tool-heavy**: the primitives tour as Sightline recorded it (`tests/fixtures/narration`,
//!   `benches/fixtures`), run again and again: each run spawns the server, does the handshake,
//!   reads a resource and a prompt, lists 7 tools, sends 2 LLM requests of 3-4 KB, makes 4 tool
//!   calls (progress notifications, logs, sampling, elicitation, roots) and exits. The runs
//!   rotate between 2026-07-28 over stdio (`input_required` and retries), 2025-11-25 over stdio
//!   (the server's own requests to the host) and 2026-07-28 over Streamable HTTP (`http`
//!   events with request lines, statuses and headers). Model call ids and message ids are made
//!   unique per run.

#![allow(dead_code)]

use chrono::{DateTime, Utc};
use sightline::trace::{Channel, Event, Header, HttpInfo, Lane, TraceWriter, now};

/// The baseline a bench measures its trace against in the same run: reading the file and
/// splitting it into lines, nothing else. Returns the line count and the time it took.
pub fn read_and_split(path: &std::path::Path) -> (usize, std::time::Duration) {
    let start = std::time::Instant::now();
    let text = std::fs::read(path).expect("read");
    let lines = text.split(|&b| b == b'\n').count();
    (lines, start.elapsed())
}

/// Wall time, peak RSS (bytes) and exit code of the binary run with `args` and the trace
/// (`TRACE` in `args` stands for it; appended when absent).
pub fn run_binary(args: &[&str], trace: &std::path::Path) -> (std::time::Duration, u64, i32) {
    let start = std::time::Instant::now();
    // SIGHTLINE_BIN: another build to measure (a baseline kept aside), default this one.
    let bin =
        std::env::var_os("SIGHTLINE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_sightline").into());
    let mut command = std::process::Command::new(bin);
    for a in args {
        match *a {
            "TRACE" => command.arg(trace),
            a => command.arg(a),
        };
    }
    if !args.contains(&"TRACE") {
        command.arg(trace);
    }
    // Reaped by the wait4 below, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn sightline");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child just spawned (its pid), writing into locals we own.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    assert!(pid > 0, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (elapsed, usage.ru_maxrss as u64 * 1024, code)
}

/// This process's resident memory now, in bytes (0 where `/proc` is not).
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// A real host's session as it was recorded: Claude Code's weather run
/// (`tests/fixtures/hosts/claude-code`: its LLM side through `llm-proxy`, three exchanges of
/// about 53 KB requests, and its server through `proxy`), repeated until the file holds at least
/// `min_bytes`, each repeat later in time and with its own message and tool-call ids. Returns
/// the file's size and the number of LLM exchanges in it.
pub fn claude_code_session(path: &std::path::Path, min_bytes: u64) -> (u64, u64) {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hosts/claude-code");
    let session = sightline::trace::load(&fixture).expect("the Claude Code fixture loads");
    let template = session.events;
    let requests = template
        .iter()
        .filter(|e| e.channel == Channel::LlmHttp && e.from == Lane::Host)
        .count() as u64;
    let start = template[0].time;
    let span = template[template.len() - 1].time - start + chrono::Duration::milliseconds(50);
    let mut writer = TraceWriter::create(path, &session.header).expect("create");
    let (mut seq, mut k, mut written) = (0u64, 0i32, 0u64);
    while written < min_bytes {
        for e in &template {
            let mut e = e.clone();
            e.seq = seq;
            e.time += span * k;
            unique_ids(&mut e, k);
            written += e.raw.as_deref().map_or(0, |r| r.len() as u64) + 128;
            writer.append(&e).expect("append");
            seq += 1;
        }
        k += 1;
    }
    writer.flush().expect("flush");
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    (bytes, requests * k as u64)
}

/// Makes an LLM event's message and tool-call ids its run's own (`k`), so repeated runs do
/// not pair with each other.
fn unique_ids(e: &mut Event, k: impl std::fmt::Display) {
    if let Some(raw) = &e.raw
        && e.channel == Channel::LlmHttp
    {
        let unique = raw
            .replace("toolu_sl_", &format!("toolu_sl_r{k}_"))
            .replace("msg_sl_", &format!("msg_sl_r{k}_"));
        e.raw = Some(unique.into_boxed_str());
    }
}

/// Which mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mix {
    Weather,
    ToolHeavy,
}

impl Mix {
    pub const ALL: [Mix; 2] = [Mix::Weather, Mix::ToolHeavy];

    /// The sizes and mixes a scale bench's arguments ask for: a number is the one size (else
    /// 100k and 1M events); `weather` or `tool` keeps only the mixes named (else both).
    pub fn from_args(args: &[String]) -> (Vec<u64>, Vec<Mix>) {
        let sizes = match args.iter().find_map(|a| a.parse().ok()) {
            Some(n) => vec![n],
            None => vec![100_000, 1_000_000],
        };
        let named = |word: &str| args.iter().any(|a| a == word);
        let mixes = Mix::ALL
            .into_iter()
            .filter(|m| {
                let word = m.name().split([' ', '-']).next().unwrap_or_default();
                !(named("tool") || named("weather")) || named(word)
            })
            .collect();
        (sizes, mixes)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mix::Weather => "weather loop",
            Mix::ToolHeavy => "tool-heavy",
        }
    }

    /// Exactly `n` events of this mix.
    pub fn events(self, n: u64) -> Vec<Event> {
        let mut out = Vec::with_capacity(n as usize);
        self.each(n, |e| out.push(e));
        out
    }

    /// Calls `f` with each of the `n` events, in order (no need to hold them all).
    pub fn each(self, n: u64, mut f: impl FnMut(Event)) {
        let t0 = now();
        match self {
            Mix::Weather => weather(n, t0, &mut f),
            Mix::ToolHeavy => tool_heavy(n, t0, &mut f),
        }
    }

    /// Writes `n` events as a trace file; returns its size in bytes.
    pub fn write(self, path: &std::path::Path, n: u64) -> u64 {
        let mut writer = TraceWriter::create(path, &Header::new("synthetic")).expect("create");
        self.each(n, |e| writer.append(&e).expect("append"));
        writer.flush().expect("flush");
        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
    }
}

/// One weather loop as the host records it: 12 events.
fn loop_events(k: u64) -> Vec<(Lane, Lane, Channel, String)> {
    let s = || Lane::server("weather");
    let id = 1 + 2 * k;
    vec![
        (Lane::User, Lane::Host, Channel::Note, format!("What's the weather in city {k}?")),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"get_weather","description":"Get current weather information for a location","inputSchema":{{"type":"object","properties":{{"location":{{"type":"string"}}}},"required":["location"]}}}}]}}}}"#)),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"city {k}"}}}}}}"#, id + 1)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"city {k}: 15C, partly cloudy"}}],"isError":false}}}}"#, id + 1)),
        (s(), Lane::Host, Channel::Stdio, r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"served"}}"#.to_string()),
        (s(), Lane::Host, Channel::Stderr, format!("served city {k}")),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{k},"progress":1}}}}"#)),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":"p{k}","method":"ping"}}"#)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":"p{k}","result":{{}}}}"#)),
        (s(), Lane::Host, Channel::Stdio, "debug output that is not JSON".to_string()),
        (Lane::Host, Lane::User, Channel::Note, format!("city {k}: 15C, partly cloudy")),
    ]
}

fn weather(n: u64, t0: DateTime<Utc>, f: &mut impl FnMut(Event)) {
    let mut seq = 0;
    let mut k = 0;
    while seq < n {
        for (from, to, channel, raw) in loop_events(k) {
            if seq == n {
                return;
            }
            let time = t0 + chrono::Duration::microseconds(seq as i64 * 50);
            f(Event::with_bytes(
                seq,
                time,
                from,
                to,
                channel,
                raw.into_bytes(),
            ));
            seq += 1;
        }
        k += 1;
    }
}

const TOUR_2026: &str =
    include_str!("../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl");
const TOUR_2025: &str = include_str!("fixtures/primitives-tour-2025-11-25.jsonl");

/// The events of a recorded trace (its header skipped).
fn template(text: &str) -> Vec<Event> {
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("template event"))
        .collect()
}

/// The stdio exchanges of a run moved to Streamable HTTP, as `proxy --http` records them:
/// requests with their request line and headers, answers as SSE events of a 200 response.
fn over_http(mut e: Event, port: u16) -> Event {
    if e.channel != Channel::Stdio {
        return e;
    }
    e.channel = Channel::Http;
    let mut info = HttpInfo::default();
    if e.from == Lane::Host {
        info.method = Some("POST".into());
        info.url = Some(format!("http://127.0.0.1:{port}/mcp").into());
        info.headers = vec![
            ("content-type".into(), "application/json".into()),
            (
                "accept".into(),
                "application/json, text/event-stream".into(),
            ),
            ("mcp-protocol-version".into(), "2026-07-28".into()),
        ];
    } else {
        info.status = Some(200);
        info.headers = vec![
            ("content-type".into(), "text/event-stream".into()),
            ("cache-control".into(), "no-cache".into()),
        ];
        info.extra.insert("sse_event".into(), "message".into());
    }
    e.set_http(Some(info));
    e
}

fn tool_heavy(n: u64, t0: DateTime<Utc>, f: &mut impl FnMut(Event)) {
    let runs = [template(TOUR_2026), template(TOUR_2025)];
    let mut seq = 0u64;
    let mut clock = t0;
    let mut k = 0u64;
    while seq < n {
        // 2026 stdio, 2025 stdio, 2026 HTTP, ...
        let (run, http) = match k % 3 {
            0 => (&runs[0], false),
            1 => (&runs[1], false),
            _ => (&runs[0], true),
        };
        let start = run[0].time;
        let mut last = clock;
        for e in run {
            if seq == n {
                return;
            }
            let mut e = e.clone();
            e.seq = seq;
            e.time = clock + (e.time - start);
            last = e.time;
            unique_ids(&mut e, k);
            if http {
                e = over_http(e, 40_000 + (k % 1000) as u16);
            }
            f(e);
            seq += 1;
        }
        clock = last + chrono::Duration::milliseconds(5);
        k += 1;
    }
}
