//! Credentials in URLs and command lines never reach a trace or stderr; the proxies never make
//! up an `Authorization` from a URL's userinfo; a recorded body that had a secret scrubbed out
//! says where (issue 11, items 5, 6, 8 and 10).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sightline::trace::Channel;

use crate::util::{self, free_port};

const PASSWORD: &str = "pw-SECRET-userinfo-1234";
const QUERY_KEY: &str = "qk-SECRET-query-5678";
const API_KEY: &str = "sk-ant-SECRET-header-9012";

/// An HTTP upstream on 127.0.0.1 that keeps every request it gets (head and body, as text) and
/// answers each with a JSON body naming the request's `x-api-key` (as an API's error might).
struct Upstream {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Upstream {
    fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let request = read_request(&mut stream);
                let key = request
                    .lines()
                    .find(|l| l.to_ascii_lowercase().starts_with("x-api-key:"))
                    .map_or("none", |l| l["x-api-key:".len()..].trim())
                    .to_string();
                keep.lock().unwrap().push(request);
                let body = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}},\"error_detail\":\"bad key {key}\"}}"
                );
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Upstream { port, seen }
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// One HTTP/1.1 request: the head, then `content-length` bytes of body, as text.
fn read_request(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&data).to_ascii_lowercase();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                break;
            }
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&data).into_owned()
}

/// Whether a request sent an `Authorization` header.
fn has_authorization(request: &str) -> bool {
    request.to_ascii_lowercase().contains("\r\nauthorization:")
}

/// POSTs `body` to `path` on 127.0.0.1:`port` and returns the whole response.
fn post(port: u16, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!("POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "content-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut out = String::new();
    let _ = stream.read_to_string(&mut out);
    out
}

fn wait_listening(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(child.try_wait().unwrap().is_none(), "the proxy exited");
        assert!(Instant::now() < deadline, "nothing listened on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// SIGTERM, then stderr once it has exited.
fn stop(child: Child) -> String {
    // SAFETY: signalling a child this test spawned and has not reaped.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = util::wait_with_deadline(child, Duration::from_secs(20));
    util::text(&out.stderr)
}

fn spawn(args: &[&str]) -> Child {
    Command::new(util::bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn assert_absent(what: &str, text: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!text.contains(secret), "{secret} in {what}:\n{text}");
    }
}

fn trace_text(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

#[test]
fn llm_proxy_redacts_userinfo_mints_no_authorization_and_marks_scrubbed_bytes() {
    let upstream = Upstream::start();
    let dir = util::tempdir();
    let trace = dir.path().join("llm.jsonl");
    let port = free_port();
    let url = format!("http://alice:{PASSWORD}@127.0.0.1:{}", upstream.port);
    let mut proxy = spawn(&[
        "llm-proxy",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &url,
        "--trace",
        trace.to_str().unwrap(),
    ]);
    wait_listening(port, &mut proxy);
    let reply = post(
        port,
        &format!("/v1/messages?key={QUERY_KEY}"),
        &[("x-api-key", API_KEY)],
        "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[]}",
    );
    let stderr = stop(proxy);
    assert!(reply.contains(&format!("bad key {API_KEY}")), "{reply}");
    let seen = upstream.requests();
    assert_eq!(seen.len(), 1);
    assert!(
        !has_authorization(&seen[0]),
        "no Authorization made up from the userinfo:\n{}",
        seen[0]
    );
    assert_absent(
        "the trace",
        &trace_text(&trace),
        &[PASSWORD, QUERY_KEY, API_KEY],
    );
    assert_absent("stderr", &stderr, &[PASSWORD, QUERY_KEY, API_KEY]);

    let loaded = util::load(&trace);
    let response = loaded
        .events
        .iter()
        .find(|e| e.channel == Channel::LlmHttp && e.http().is_some_and(|h| h.status.is_some()))
        .expect("the response");
    let bytes = response.bytes().unwrap();
    let ranges = &response.http().unwrap().redacted;
    assert_eq!(ranges.len(), 1, "one scrubbed range: {ranges:?}");
    let [start, end] = ranges[0];
    assert_eq!(&bytes[start..end], b"[redacted]");
    let request = loaded
        .events
        .iter()
        .find(|e| e.channel == Channel::LlmHttp)
        .unwrap();
    assert!(
        request.http().unwrap().redacted.is_empty(),
        "nothing scrubbed, no ranges"
    );
}

#[test]
fn wrap_serve_never_prints_records_or_sends_the_upstreams_credentials() {
    let upstream = Upstream::start();
    let dir = util::tempdir();
    let config = dir.path().join(".mcp.json");
    let url = format!(
        "http://bob:{PASSWORD}@127.0.0.1:{}/mcp?token={QUERY_KEY}",
        upstream.port
    );
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {"remote": {"url": url}}}).to_string(),
    )
    .unwrap();
    let traces = dir.path().join("traces");
    let port = free_port();
    let (c, t, p) = (
        config.to_str().unwrap(),
        traces.to_str().unwrap(),
        port.to_string(),
    );
    let out = util::run(
        Command::new(util::bin()).args(["wrap", c, "--trace-dir", t, "--http-port", &p]),
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    let mut serve = spawn(&["wrap", c, "--serve", "--trace-dir", t]);
    wait_listening(port, &mut serve);
    let local = format!(
        "/sightline/http/bob:{PASSWORD}@127.0.0.1:{}/mcp?token={QUERY_KEY}",
        upstream.port
    );
    let reply = post(
        port,
        &local,
        &[],
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
    );
    let stderr = stop(serve);
    assert!(reply.contains("\"result\""), "{reply}");
    let seen = upstream.requests();
    assert_eq!(seen.len(), 1, "{stderr}");
    assert!(
        !has_authorization(&seen[0]),
        "the proxy sent credentials the host did not:\n{}",
        seen[0]
    );
    assert!(stderr.contains("are not sent upstream"), "{stderr}");
    assert_absent("stderr", &stderr, &[PASSWORD, QUERY_KEY]);
    assert_absent(
        "the trace",
        &trace_text(&traces.join("remote.jsonl")),
        &[PASSWORD, QUERY_KEY],
    );
}

#[test]
fn run_through_a_base_url_with_credentials_records_none_of_them() {
    let dir = util::tempdir();
    let port = free_port();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let weather = root.join("scenarios/weather.toml");
    let mut model = Command::new(util::bin())
        .args(["scripted-model", "--scenario"])
        .arg(&weather)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(port, &mut model);
    let trace = dir.path().join("t.jsonl");
    let out = util::run(
        Command::new(util::bin())
            .arg("run")
            .arg(&weather)
            .arg("--trace")
            .arg(&trace)
            .args([
                "--model",
                "scripted",
                "--base-url",
                &format!("http://carol:{PASSWORD}@127.0.0.1:{port}"),
            ])
            .env_remove("ANTHROPIC_API_KEY"),
        Duration::from_secs(60),
    );
    let _ = model.kill();
    let _ = model.wait();
    let (stdout, stderr) = (util::text(&out.stdout), util::text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let text = trace_text(&trace);
    assert!(
        text.contains("[redacted]@127.0.0.1"),
        "the URL is still shown"
    );
    assert_absent("the trace", &text, &[PASSWORD]);
    assert_absent("stdout", &stdout, &[PASSWORD]);
    assert_absent("stderr", &stderr, &[PASSWORD]);
}

#[test]
fn server_command_lines_lose_their_credentials_in_spawn_events_and_titles() {
    let dir = util::tempdir();
    let trace = dir.path().join("p.jsonl");
    let secrets = [
        "sk-live-0123456789SECRET",
        "tok-SECRET-value-77",
        "hunter2-SECRET",
        "Bearer-SECRET-abcdef",
    ];
    let out = util::run(
        Command::new(util::bin()).args([
            "proxy",
            "--trace",
            trace.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "exit 0",
            "sh",
            "--api-key=sk-live-0123456789SECRET",
            "--token",
            "tok-SECRET-value-77",
            "--password",
            "hunter2-SECRET",
            "--header",
            "Authorization: Bearer Bearer-SECRET-abcdef",
            "--port",
            "8080",
        ]),
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    let text = trace_text(&trace);
    assert_absent("the trace", &text, &secrets);
    assert_absent("stderr", &util::text(&out.stderr), &secrets);
    let loaded = util::load(&trace);
    assert!(
        loaded.header.title.contains("--api-key=[redacted]"),
        "{}",
        loaded.header.title
    );
    let spawn = loaded
        .events
        .iter()
        .find_map(|e| e.process().filter(|p| p.event == "spawn"))
        .expect("spawn event");
    assert_eq!(
        spawn.command[4..],
        [
            "--api-key=[redacted]",
            "--token",
            "[redacted]",
            "--password",
            "[redacted]",
            "--header",
            "Authorization: Bearer [redacted]",
            "--port",
            "8080"
        ]
    );
}

/// The request line an upstream got: `POST /path?query HTTP/1.1`'s target.
fn target(request: &str) -> &str {
    request.split(' ').nth(1).unwrap_or("")
}

#[test]
fn llm_proxy_joins_an_upstream_query_with_the_clients_and_redacts_both() {
    let upstream = Upstream::start();
    let dir = util::tempdir();
    let trace = dir.path().join("azure.jsonl");
    let port = free_port();
    // Azure-style: the upstream's path and query, set by whoever runs the proxy.
    let url = format!(
        "http://127.0.0.1:{}/openai/deployments/d?api-version=2024-10-21",
        upstream.port
    );
    let mut proxy = spawn(&[
        "llm-proxy",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &url,
        "--trace",
        trace.to_str().unwrap(),
    ]);
    wait_listening(port, &mut proxy);
    post(
        port,
        &format!("/chat/completions?key={QUERY_KEY}"),
        &[],
        "{\"model\":\"m\",\"messages\":[]}",
    );
    let stderr = stop(proxy);
    let seen = upstream.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        target(&seen[0]),
        format!("/openai/deployments/d/chat/completions?api-version=2024-10-21&key={QUERY_KEY}"),
        "the path after the upstream's path, the queries merged"
    );
    let recorded = trace_text(&trace);
    assert_absent("the trace", &recorded, &[QUERY_KEY]);
    assert_absent("stderr", &stderr, &[QUERY_KEY]);
    let loaded = util::load(&trace);
    let request = loaded
        .events
        .iter()
        .find(|e| e.channel == Channel::LlmHttp)
        .expect("the request");
    let recorded_url = request
        .http()
        .unwrap()
        .url
        .as_deref()
        .unwrap_or("")
        .to_string();
    assert!(
        recorded_url.ends_with("/chat/completions?api-version=2024-10-21&key=[redacted]"),
        "{recorded_url}"
    );
}

#[test]
fn http_proxy_keeps_the_upstreams_query_when_the_client_sends_one() {
    let upstream = Upstream::start();
    let dir = util::tempdir();
    let trace = dir.path().join("mcp.jsonl");
    let port = free_port();
    let url = format!("http://127.0.0.1:{}/mcp?api_key={QUERY_KEY}", upstream.port);
    let mut proxy = spawn(&[
        "proxy",
        "--http",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &url,
        "--name",
        "keyed",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    wait_listening(port, &mut proxy);
    let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    post(port, "/mcp", &[], body);
    post(port, "/mcp?tenant=t1", &[], body);
    let stderr = stop(proxy);
    let seen = upstream.requests();
    assert_eq!(seen.len(), 2);
    assert_eq!(target(&seen[0]), format!("/mcp?api_key={QUERY_KEY}"));
    assert_eq!(
        target(&seen[1]),
        format!("/mcp?api_key={QUERY_KEY}&tenant=t1"),
        "the upstream's own query is kept"
    );
    assert_absent("the trace", &trace_text(&trace), &[QUERY_KEY]);
    assert_absent("stderr", &stderr, &[QUERY_KEY]);
}
