//! A real OTLP backend: Arize Phoenix from PyPI (installed pinned by `tests/run.sh`, path in
//! `SIGHTLINE_PHOENIX`), started on 127.0.0.1, fed by `sightline export --endpoint` and then
//! live by `sightline run --otlp-endpoint`, and queried back through its own REST API.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::free_port;
use crate::util::*;

/// Phoenix, stopped when dropped.
struct Phoenix(Child);

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// GET `path` on 127.0.0.1:`port`: status and body, or `None` while nothing listens.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut conn = TcpStream::connect(("127.0.0.1", port)).ok()?;
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut reply = Vec::new();
    conn.read_to_end(&mut reply).ok()?;
    let reply = String::from_utf8_lossy(&reply);
    let status = reply.split(' ').nth(1)?.parse().ok()?;
    let (head, body) = reply.split_once("\r\n\r\n")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    Some((status, body))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

#[test]
fn phoenix_receives_the_weather_loop_and_gives_it_back() {
    let exe = std::env::var("SIGHTLINE_PHOENIX").unwrap_or_else(|_| {
        panic!("SIGHTLINE_PHOENIX is not set: run `tests/run.sh`, which installs Arize Phoenix (pinned) and sets it")
    });
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);

    let (port, grpc) = (free_port(), free_port());
    let _phoenix = Phoenix(
        Command::new(&exe)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {exe}: {e}")),
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    while get(port, "/healthz").map(|(s, _)| s) != Some(200) {
        assert!(
            Instant::now() < deadline,
            "Phoenix never became healthy on port {port}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }

    let out = run(
        Command::new(bin())
            .arg("export")
            .arg(&trace)
            .args(["--format", "otlp", "--endpoint"])
            .arg(format!("http://127.0.0.1:{port}/v1/traces")),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    // Phoenix ingests asynchronously: poll its REST API until all 8 spans are there.
    let spans = spans_in_phoenix(port, 8);
    check_weather(&spans);
    let exported: std::collections::HashSet<String> = spans
        .iter()
        .filter_map(|s| s["context"]["trace_id"].as_str().map(str::to_string))
        .collect();

    // Live: a second run streams its spans while it runs; they are a trace of their own.
    let live_trace = dir.path().join("live.jsonl");
    let endpoint = format!("http://127.0.0.1:{port}/v1/traces");
    run_scenario_to("weather", &live_trace, &["--otlp-endpoint", &endpoint]);
    let all = spans_in_phoenix(port, 16);
    let live: Vec<Value> = all
        .into_iter()
        .filter(|s| {
            s["context"]["trace_id"]
                .as_str()
                .is_some_and(|t| !exported.contains(t))
        })
        .collect();
    check_weather(&live);
    let note = load(&live_trace)
        .events
        .iter()
        .map(|e| e.text().to_string())
        .find(|t| t.starts_with("OpenTelemetry live export to"))
        .expect("the live export's count is noted");
    assert!(note.contains("8 spans sent, 0 dropped"), "{note}");
}

/// Phoenix's spans (default project), once at least `want` are there (or after a minute).
fn spans_in_phoenix(port: u16, want: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let spans = get(port, "/v1/projects/default/spans?limit=100")
            .filter(|(s, _)| *s == 200)
            .and_then(|(_, body)| serde_json::from_str::<Value>(&body).ok())
            .and_then(|v| v["data"].as_array().cloned())
            .unwrap_or_default();
        if spans.len() >= want || Instant::now() > deadline {
            return spans;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The weather loop's 8 spans, as Phoenix gives them back: one trace, nested, converted.
fn check_weather(spans: &[Value]) {
    let mut names: Vec<&str> = spans.iter().filter_map(|s| s["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "chat scripted",
            "chat scripted",
            "execute_tool get_weather",
            "initialize",
            "invoke_agent sightline",
            "notifications/initialized",
            "tools/call get_weather",
            "tools/list"
        ]
    );
    let trace_ids: std::collections::HashSet<&str> = spans
        .iter()
        .filter_map(|s| s["context"]["trace_id"].as_str())
        .collect();
    assert_eq!(trace_ids.len(), 1, "{trace_ids:?}");
    let by_name = |n: &str| spans.iter().find(|s| s["name"] == n).expect(n);
    let tool = by_name("execute_tool get_weather");
    let call = by_name("tools/call get_weather");
    assert_eq!(call["parent_id"], tool["context"]["span_id"]);
    assert_eq!(tool["attributes"]["gen_ai.tool.call.id"], "toolu_sl_0_0");
    // Phoenix read the GenAI conventions: the chat is an LLM span, the execution a TOOL span.
    assert_eq!(by_name("chat scripted")["span_kind"], "LLM");
    assert_eq!(tool["span_kind"], "TOOL");
    assert_eq!(
        by_name("chat scripted")["attributes"]["gen_ai.provider.name"],
        "anthropic"
    );
}
