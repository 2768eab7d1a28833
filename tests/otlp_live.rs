//! Live OTLP streaming (`--otlp-endpoint`) from `proxy`, `proxy --http` and `run` to a receiver
//! on 127.0.0.1, decoded with the OTLP protobuf types and compared with what `export --format
//! otlp` makes of the trace file afterwards; and a backend that is down or hangs while a proxy
//! forwards: the same bytes arrive, the drop is counted in the trace.

use std::collections::HashSet;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::Span;
use sightline::trace::{Channel, Lane};

use crate::http_proxy::{Running, client, everything, stop, wait_until_accepting};
use crate::otlp::{Answer, Receiver, attr_str, flatten, spans_of_file};
use crate::util::free_port;
use crate::util::*;

const SPAN_INTERNAL: i32 = 1;
const SPAN_CLIENT: i32 = 3;

/// What identifies a span and its place in the tree.
type Shape = (Vec<u8>, Vec<u8>, Vec<u8>, String, i32);

fn shape(spans: &[Span]) -> Vec<Shape> {
    let mut v: Vec<Shape> = spans
        .iter()
        .map(|s| {
            (
                s.trace_id.clone(),
                s.span_id.clone(),
                s.parent_span_id.clone(),
                s.name.clone(),
                s.kind,
            )
        })
        .collect();
    v.sort();
    v
}

/// The spans `export --format otlp --out` makes of `trace`.
fn exported(trace: &Path) -> Vec<Span> {
    let out_file = trace.with_extension("otlp.json");
    let o = run(
        Command::new(bin())
            .arg("export")
            .arg(trace)
            .args(["--format", "otlp", "--out"])
            .arg(&out_file),
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    spans_of_file(&out_file)
}

/// The spans a receiver got, each once.
pub fn received(receiver: &Receiver) -> Vec<Span> {
    let spans: Vec<Span> = receiver.requests().into_iter().flat_map(flatten).collect();
    let ids: HashSet<&[u8]> = spans.iter().map(|s| s.span_id.as_slice()).collect();
    assert_eq!(ids.len(), spans.len(), "each span is sent once");
    spans
}

/// The trace's notes.
fn notes(trace: &Path) -> Vec<String> {
    load(trace)
        .events
        .iter()
        .filter(|e| e.channel == Channel::Note)
        .map(|e| e.text().to_string())
        .collect()
}

/// Live spans are the file's spans: same ids, names, kinds and parents, one trace id; the
/// trace notes what was sent.
pub fn check_live(trace: &Path, live: &[Span]) {
    let file = exported(trace);
    assert_eq!(shape(live), shape(&file), "live and file exports differ");
    let trace_ids: HashSet<&[u8]> = live.iter().map(|s| s.trace_id.as_slice()).collect();
    assert_eq!(trace_ids.len(), 1, "one run, one trace id");
    let root = live
        .iter()
        .find(|s| s.name.starts_with("invoke_agent"))
        .expect("root");
    assert!(root.parent_span_id.is_empty());
    let ids: HashSet<&[u8]> = live.iter().map(|s| s.span_id.as_slice()).collect();
    for s in live.iter().filter(|s| !s.parent_span_id.is_empty()) {
        assert!(
            ids.contains(s.parent_span_id.as_slice()),
            "{}: its parent was sent",
            s.name
        );
    }
    let sent = format!("{} spans sent, 0 dropped", live.len());
    assert!(
        notes(trace).iter().any(|n| n.contains(&sent)),
        "{:?}",
        notes(trace)
    );
}

#[test]
fn a_stdio_proxy_streams_its_spans_live() {
    require_npm_peers();
    let receiver = Receiver::start(Answer::Ok);
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    let o = run(
        Command::new("node")
            .arg(peer("seed-client.mjs"))
            .arg(bin())
            .args(["proxy", "--name", "weather", "--trace"])
            .arg(&trace)
            .args(["--otlp-endpoint", &receiver.url, "--"])
            .args([bin(), "demo-server", "weather"]),
        Duration::from_secs(40),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let live = received(&receiver);
    check_live(&trace, &live);
    let names: HashSet<&str> = live.iter().map(|s| s.name.as_str()).collect();
    for name in [
        "invoke_agent",
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call get_weather",
    ] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    let call = live
        .iter()
        .find(|s| s.name == "tools/call get_weather")
        .expect("call");
    assert_eq!(call.kind, SPAN_CLIENT);
    assert_eq!(attr_str(call, "network.transport"), Some("pipe"));
    assert_eq!(attr_str(call, "mcp.protocol.version"), Some("2025-11-25"));
}

#[test]
fn an_http_proxy_streams_its_spans_live() {
    require_npm_peers();
    let receiver = Receiver::start(Answer::Ok);
    let (_server, upstream) = everything();
    let dir = tempdir();
    let trace = dir.path().join("http.jsonl");
    let port = free_port();
    let mut proxy = Running(
        Command::new(bin())
            .args(["proxy", "--http", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["--upstream", &upstream, "--name", "everything", "--trace"])
            .arg(&trace)
            .args(["--otlp-endpoint", &receiver.url])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the proxy"),
    );
    wait_until_accepting(port, &mut proxy.0);
    client(&format!("http://127.0.0.1:{port}/mcp"));
    // Spans leave while the proxy runs, not only when it stops.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while receiver.got.lock().expect("lock").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no span arrived while the proxy ran"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    stop(&mut proxy);
    let live = received(&receiver);
    check_live(&trace, &live);
    let echo = live
        .iter()
        .find(|s| s.name == "tools/call echo")
        .expect("echo");
    assert_eq!(attr_str(echo, "network.transport"), Some("tcp"));
    assert!(attr_str(echo, "mcp.session.id").is_some());
}

#[test]
fn run_streams_the_whole_loop_live() {
    let receiver = Receiver::start(Answer::Ok);
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &["--otlp-endpoint", &receiver.url]);
    let live = received(&receiver);
    check_live(&trace, &live);
    let by_name = |n: &str| live.iter().find(|s| s.name == n).expect(n);
    let root = by_name("invoke_agent sightline");
    let tool = by_name("execute_tool get_weather");
    let call = by_name("tools/call get_weather");
    assert_eq!(tool.kind, SPAN_INTERNAL);
    assert_eq!(tool.parent_span_id, root.span_id);
    assert_eq!(call.parent_span_id, tool.span_id);
    assert_eq!(live.iter().filter(|s| s.name == "chat scripted").count(), 2);
}

/// Raw JSON-RPC lines a host would send the weather server.
const SESSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Seoul"}}}"#,
    "\n",
);

/// The lines of `bytes`, sorted: the server answers concurrent requests in either order.
fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn a_backend_that_is_down_or_hangs_never_touches_forwarding() {
    let direct = run_with_input(
        Command::new(bin()).args(["demo-server", "weather"]),
        SESSION.as_bytes(),
        Duration::from_secs(20),
    );
    let answers = text(&direct.stdout);
    assert_eq!(answers.lines().count(), 3, "{answers}");
    assert!(answers.contains("Seoul: 15C"), "{answers}");
    let refused = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    let hanging = Receiver::start(Answer::Hang);
    let dir = tempdir();
    for (what, url) in [
        ("down", refused.as_str()),
        ("hanging", hanging.url.as_str()),
    ] {
        let trace = dir.path().join(format!("{what}.jsonl"));
        let started = std::time::Instant::now();
        let o = run_with_input(
            Command::new(bin())
                .args(["proxy", "--name", "weather", "--trace"])
                .arg(&trace)
                .args(["--otlp-endpoint", url, "--otlp-header"])
                .arg("Authorization=Bearer sk-otlp-LIVE-SECRET")
                .args(["--", bin(), "demo-server", "weather"])
                .env("OTEL_EXPORTER_OTLP_TIMEOUT", "500"),
            SESSION.as_bytes(),
            Duration::from_secs(30),
        );
        assert!(o.status.success(), "{what}: {}", text(&o.stderr));
        // The host got the server's answers, and exactly the bytes the server wrote.
        assert_eq!(
            sorted_lines(&o.stdout),
            sorted_lines(&direct.stdout),
            "{what}"
        );
        let loaded = load(&trace);
        assert_same_bytes(
            what,
            &stdio_bytes(&loaded.events, &Lane::server("weather"), &Lane::Host),
            &o.stdout,
        );
        // The proxy stopped within the shutdown grace.
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{what}: {:?}",
            started.elapsed()
        );
        let notes = notes(&trace);
        let summary = notes
            .iter()
            .find(|n| n.starts_with("OpenTelemetry live export to"))
            .unwrap_or_else(|| panic!("{what}: no count in {notes:?}"));
        assert!(summary.contains("0 spans sent"), "{what}: {summary}");
        assert!(!summary.contains(", 0 dropped"), "{what}: {summary}");
        assert!(summary.contains(&format!("{url}/v1/traces")), "{summary}");
        let all = notes.join("\n") + &text(&o.stderr);
        assert!(!all.contains("sk-otlp"), "{what}: a header value leaked");
        assert!(
            text(&o.stderr).contains("dropped"),
            "{what}: said on stderr: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn wrap_writes_live_export_into_the_config_but_never_a_header_value() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempdir();
    let config = dir.path().join("mcp.json");
    let original = r#"{"mcpServers": {"weather": {"command": "node", "args": ["weather.mjs"]}}}"#;
    std::fs::write(&config, original).expect("write");
    let data = dir.path().join("data");
    let o = run(
        Command::new(bin())
            .arg("wrap")
            .arg(&config)
            .args(["--otlp-endpoint", "http://127.0.0.1:4318", "--otlp-header"])
            .arg("Authorization=Bearer sk-otlp-WRAP-SECRET")
            .env("SIGHTLINE_DATA_DIR", &data),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let text_now = std::fs::read_to_string(&config).expect("read");
    assert!(!text_now.contains("sk-otlp"), "{text_now}");
    let v: serde_json::Value = serde_json::from_str(&text_now).expect("json");
    let args: Vec<&str> = v["mcpServers"]["weather"]["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    let at = |flag: &str| args.iter().position(|a| *a == flag).map(|i| args[i + 1]);
    assert_eq!(at("--otlp-endpoint"), Some("http://127.0.0.1:4318"));
    let file = at("--otlp-headers-file").expect("a headers file");
    assert!(Path::new(file).starts_with(&data), "{file}");
    let mode = std::fs::metadata(file).expect("file").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "only the user reads it");
    assert!(
        std::fs::read_to_string(file)
            .expect("read")
            .contains("Authorization=Bearer sk-otlp-WRAP-SECRET")
    );
    // The proxy reads the file: the header reaches the backend.
    let receiver = Receiver::start(Answer::Ok);
    let trace = dir.path().join("w.jsonl");
    let o = run_with_input(
        Command::new(bin())
            .args(["proxy", "--name", "weather", "--trace"])
            .arg(&trace)
            .args([
                "--otlp-endpoint",
                &receiver.url,
                "--otlp-headers-file",
                file,
            ])
            .args(["--", bin(), "demo-server", "weather"]),
        SESSION.as_bytes(),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let got = receiver.got.lock().expect("lock");
    assert!(!got.is_empty());
    assert!(got.iter().all(|(_, headers, _)| {
        headers
            .iter()
            .any(|(k, v)| k == "authorization" && v == "Bearer sk-otlp-WRAP-SECRET")
    }));
    drop(got);
    // Undo gives the config back byte for byte.
    let o = run(
        Command::new(bin()).arg("wrap").arg(&config).arg("--undo"),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
}

/// The benches' tool-heavy mix (`benches/traces.rs`: the primitives tour on both revisions,
/// over stdio and Streamable HTTP, run again and again: server restarts, sampling,
/// elicitation, roots, progress, `input_required` retries, LLM turns) pushed through the live
/// stream one event at a time, with a pass as often as the exporter makes one when events
/// trickle in (every event), at an odd cadence, and once per full batch (over enough runs that
/// the window used to reach its bound and lose spans' context): the spans handed out are
/// exactly the file's (ids, names, parents, times, attributes, events, links), each once, none
/// given up, and the window holds what is in flight, not a run's worth.
#[test]
fn tool_heavy_traffic_streams_exactly_the_file_exports_spans() {
    use sightline::export::otlp::{self, Options, stream::Stream};
    let all = crate::traces::Mix::ToolHeavy.events(12_000);
    let header = sightline::trace::Header::new("synthetic");
    for (every, n) in [(1, 2_000), (7, 3_000), (otlp::BATCH, all.len())] {
        let events = &all[..n];
        let report = sightline::analysis::report(events);
        let mut whole = otlp::spans(&header, events, &report, &Options::default());
        whole.sort_by(|a, b| a.span_id.cmp(&b.span_id));
        let names: HashSet<&str> = whole.iter().map(|s| s.name.as_str()).collect();
        for name in [
            "execute_tool summarize",
            "tools/call summarize",
            "sampling/createMessage",
            "elicitation/create",
            "roots/list",
        ] {
            assert!(names.contains(name), "{name} in {names:?}");
        }
        let mut stream = Stream::new(header.clone(), Options::default());
        let mut live = Vec::new();
        let mut largest = 0;
        for (k, e) in events.iter().enumerate() {
            stream.push(e.clone());
            if (k + 1) % every == 0 {
                live.extend(stream.complete());
                largest = largest.max(stream.window_len());
            }
        }
        assert_eq!(stream.abandoned(), 0, "every {every}");
        live.extend(stream.finish());
        live.sort_by(|a, b| a.span_id.cmp(&b.span_id));
        assert_eq!(shape(&live), shape(&whole), "every {every}: names, parents");
        assert_eq!(live.len(), whole.len(), "every {every}: each span once");
        for (l, w) in live.iter().zip(&whole) {
            assert_eq!(l, w, "every {every}: {}", w.name);
        }
        // A run of the tour is about 40 events.
        assert!(largest < 40 + every, "every {every}: window of {largest}");
    }
}
