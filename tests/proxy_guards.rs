//! The HTTP proxies (`proxy --http`, `llm-proxy`) against hostile requests and bad upstreams:
//! DNS rebinding (`Host`, `Origin`), an upstream that never answers, a client that leaves, a
//! body over the limit, SSE data that is not UTF-8. The upstream is a small HTTP server on
//! 127.0.0.1 in this process; the client speaks raw HTTP/1.1 so every header is as written.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use sightline::trace::Channel;

use crate::util::{self, free_port};

/// The upstream: `/hang` never answers, `/sse` answers an event whose data is not UTF-8,
/// anything else a JSON-RPC result. Counts the requests it answered.
struct Upstream {
    port: u16,
    answered: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

const SSE_BODY: &[u8] = b"id: 1\ndata: caf\xe9 \xff ok\n\ndata: {\"plain\":true}\n\n";

fn upstream() -> Upstream {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind upstream");
    let port = listener.local_addr().expect("addr").port();
    let answered = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (count, stopping) = (answered.clone(), stop.clone());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let count = count.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || serve_one(stream, &count, tx));
            // A hung request's connection stays open (held) until the upstream is dropped.
            if let Ok(Some(hung)) = rx.recv_timeout(Duration::from_secs(5)) {
                held.push(hung);
            }
        }
    });
    Upstream {
        port,
        answered,
        stop,
    }
}

fn serve_one(
    stream: TcpStream,
    count: &AtomicUsize,
    hung: std::sync::mpsc::Sender<Option<TcpStream>>,
) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        let _ = hung.send(None);
        return;
    }
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let mut stream = reader.into_inner();
    if request_line.contains(" /hang") {
        let _ = hung.send(Some(stream));
        return;
    }
    let _ = hung.send(None);
    count.fetch_add(1, Ordering::SeqCst);
    if request_line.contains(" /burst") {
        burst(stream);
        return;
    }
    let (kind, body): (&str, &[u8]) = if request_line.contains(" /sse") {
        ("text/event-stream", SSE_BODY)
    } else {
        (
            "application/json",
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        )
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// How many SSE events `/burst` sends at once.
const BURST: usize = 50;

/// The SSE event `i` of `/burst`: every third names its type, the third sets `retry`.
fn burst_event(i: usize) -> String {
    let kind = if i % 3 == 1 { "event: message\n" } else { "" };
    let retry = if i == 2 { "retry: 1500\n" } else { "" };
    format!(
        "id: {i}\n{kind}{retry}data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{i}}}}}\n\n"
    )
}

/// The SSE fields of a recorded event, in the order they are in its `http` object.
fn sse_fields(line: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    line["http"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !matches!(key.as_str(), "status" | "headers"))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// `/burst`: [`BURST`] SSE events, each its own HTTP chunk, in one write; the body ends only
/// 300 ms later, so what the proxy passes on before then is what it took from one read.
fn burst(mut stream: TcpStream) {
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\
         connection: close\r\n\r\n",
    );
    for i in 0..BURST {
        let event = burst_event(i);
        out.push_str(&format!("{:x}\r\n{event}\r\n", event.len()));
    }
    let _ = stream.write_all(out.as_bytes());
    std::thread::sleep(Duration::from_millis(300));
    let _ = stream.write_all(b"0\r\n\r\n");
}

/// The chunks of a `transfer-encoding: chunked` body.
fn chunks(mut body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&body[..end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
            .expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push(body[end + 2..end + 2 + size].to_vec());
        body = &body[end + 2 + size + 2..];
    }
    out
}

/// A proxy process killed when dropped.
struct Proxy {
    child: Child,
    port: u16,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Proxy {
    /// Stops it with SIGTERM (so it finishes its trace) and waits.
    fn stop(mut self) {
        // SAFETY: kill(2) on our own child, not yet waited for.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.child.try_wait().expect("try_wait").is_none() {
            assert!(Instant::now() < deadline, "the proxy did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn start(args: &[String], trace: &Path) -> Proxy {
    let port = free_port();
    let child = Command::new(util::bin())
        .args(args)
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--trace")
        .arg(trace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the proxy");
    let mut proxy = Proxy { child, port };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = proxy.child.try_wait() {
            panic!("the proxy exited early: {status}");
        }
        assert!(Instant::now() < deadline, "the proxy does not accept");
        std::thread::sleep(Duration::from_millis(50));
    }
    proxy
}

fn mcp_proxy(upstream: &Upstream, trace: &Path, extra: &[&str]) -> Proxy {
    let mut args: Vec<String> = ["proxy", "--http", "--quiet", "--name", "up", "--upstream"]
        .map(String::from)
        .to_vec();
    args.push(format!("http://127.0.0.1:{}/mcp", upstream.port));
    args.extend(extra.iter().map(|s| s.to_string()));
    start(&args, trace)
}

fn llm_proxy(upstream: &Upstream, trace: &Path) -> Proxy {
    let args = [
        "llm-proxy".to_string(),
        "--upstream".into(),
        format!("http://127.0.0.1:{}", upstream.port),
    ];
    start(&args, trace)
}

/// Sends raw `head` (without its final blank line) and `body`; returns the status and the
/// response body.
fn send(port: u16, head: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let head = format!(
        "{head}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    let _ = stream.write_all(body);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP response: {text:?}"));
    let at = memchr_blank(&response);
    (status, response[at..].to_vec())
}

fn memchr_blank(bytes: &[u8]) -> usize {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(bytes.len(), |p| p + 4)
}

fn post(port: u16, path: &str, host: &str, extra: &str) -> u16 {
    let head =
        format!("POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json{extra}");
    send(port, &head, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).0
}

fn notes(trace: &Path) -> Vec<String> {
    util::load(trace)
        .events
        .iter()
        .filter(|e| e.channel == Channel::Note)
        .map(|e| e.text().into_owned())
        .collect()
}

#[test]
fn both_proxies_refuse_a_foreign_host_or_origin() {
    let up = upstream();
    let dir = util::tempdir();
    for (i, kind) in ["proxy --http", "llm-proxy"].into_iter().enumerate() {
        let trace = dir.path().join(format!("{i}.jsonl"));
        let proxy = if i == 0 {
            mcp_proxy(&up, &trace, &[])
        } else {
            llm_proxy(&up, &trace)
        };
        let port = proxy.port;
        let before = up.answered.load(Ordering::SeqCst);
        let me = format!("127.0.0.1:{port}");
        assert_eq!(post(port, "/mcp", &me, ""), 200, "{kind}: a local request");
        assert_eq!(
            post(port, "/mcp", &format!("localhost:{port}"), ""),
            200,
            "{kind}: localhost"
        );
        assert_eq!(
            post(port, "/mcp", &me, "\r\norigin: http://localhost:6274"),
            200,
            "{kind}: a loopback origin"
        );
        assert_eq!(
            post(port, "/mcp", "evil.example", ""),
            403,
            "{kind}: Host evil.example"
        );
        assert_eq!(
            post(port, "/mcp", &format!("evil.example:{port}"), ""),
            403,
            "{kind}: a rebound name"
        );
        assert_eq!(
            post(port, "/mcp", &me, "\r\norigin: http://evil.example"),
            403,
            "{kind}: a foreign origin"
        );
        assert_eq!(
            up.answered.load(Ordering::SeqCst) - before,
            3,
            "{kind}: only the local requests were forwarded"
        );
        proxy.stop();
        let notes = notes(&trace);
        let refused: Vec<_> = notes.iter().filter(|n| n.contains("refused")).collect();
        assert_eq!(refused.len(), 3, "{kind}: {notes:?}");
        assert!(refused[0].contains("evil.example"), "{refused:?}");
    }
}

#[test]
fn a_hung_upstream_times_out_a_client_that_leaves_is_noted_and_a_huge_body_is_recorded() {
    let up = upstream();
    let dir = util::tempdir();
    let trace = dir.path().join("t.jsonl");
    let proxy = mcp_proxy(&up, &trace, &["--header-timeout", "2"]);
    let port = proxy.port;
    let me = format!("127.0.0.1:{port}");

    let start = Instant::now();
    assert_eq!(post(port, "/hang", &me, ""), 504, "a hung upstream");
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );

    // A client that gives up before the upstream answers.
    let mut leaving = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let body = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let head = format!(
        "POST /hang HTTP/1.1\r\nhost: {me}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    leaving.write_all(head.as_bytes()).expect("write");
    leaving.write_all(body).expect("write");
    std::thread::sleep(Duration::from_millis(300));
    drop(leaving);

    // A body over the 32 MiB limit, announced by its length.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {me}\r\ncontent-type: application/json\r\nx-test: big"
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let head = format!("{head}\r\ncontent-length: 40000000\r\n\r\n");
    let mut writing = stream.try_clone().expect("clone");
    let writer = std::thread::spawn(move || {
        let _ = writing.write_all(head.as_bytes());
        let _ = writing.write_all(&vec![b' '; 40_000_000]);
    });
    let mut response = vec![0; 4096];
    let n = stream.read(&mut response).expect("a response");
    let text = String::from_utf8_lossy(&response[..n]).into_owned();
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    drop(stream);
    let _ = writer.join();

    std::thread::sleep(Duration::from_secs(3));
    proxy.stop();
    let loaded = util::load(&trace);
    let notes = notes(&trace);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("sent no response headers within 2 s")),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("the client left")),
        "{notes:#?}"
    );
    assert!(notes.iter().any(|n| n.contains("413")), "{notes:#?}");
    let big = loaded.events.iter().any(|e| {
        e.http().is_some_and(|h| {
            h.method.as_deref() == Some("POST")
                && h.headers.iter().any(|(n, v)| n == "x-test" && v == "big")
        })
    });
    assert!(big, "the refused request's line and headers are recorded");
}

#[test]
fn sse_data_that_is_not_utf8_is_recorded_exactly() {
    let up = upstream();
    let dir = util::tempdir();
    let trace = dir.path().join("t.jsonl");
    let proxy = mcp_proxy(&up, &trace, &[]);
    let head = format!(
        "POST /sse HTTP/1.1\r\nhost: 127.0.0.1:{}\r\naccept: text/event-stream",
        proxy.port
    );
    let (status, body) = send(proxy.port, &head, b"{}");
    assert_eq!(status, 200);
    assert_eq!(body, SSE_BODY, "the client gets the bytes unchanged");
    proxy.stop();
    let loaded = util::load(&trace);
    let data: Vec<Vec<u8>> = loaded
        .events
        .iter()
        .filter(|e| e.channel == Channel::Http && e.http().is_some_and(|h| h.method.is_none()))
        .map(|e| e.bytes().expect("payload").into_owned())
        .collect();
    assert_eq!(
        data,
        vec![b"caf\xe9 \xff ok".to_vec(), b"{\"plain\":true}".to_vec()]
    );
    let first = loaded
        .events
        .iter()
        .find(|e| e.raw_b64().is_some())
        .expect("an event in raw_b64");
    assert!(first.raw.is_none());
}

#[test]
fn sse_events_already_read_go_on_in_one_write_and_each_is_recorded() {
    let up = upstream();
    let dir = util::tempdir();
    let trace = dir.path().join("t.jsonl");
    let proxy = mcp_proxy(&up, &trace, &[]);
    let head = format!(
        "POST /burst HTTP/1.1\r\nhost: 127.0.0.1:{}\r\naccept: text/event-stream",
        proxy.port
    );
    let (status, body) = send(proxy.port, &head, b"{}");
    assert_eq!(status, 200);
    let chunks = chunks(&body);
    let events: String = (0..BURST).map(burst_event).collect();
    assert_eq!(
        String::from_utf8_lossy(&chunks.concat()),
        events,
        "the client gets the bytes unchanged, in order"
    );
    // One read upstream brought every event: they go on together, not one write each.
    assert!(
        chunks.len() <= 3,
        "{BURST} events already read were passed on in {} writes",
        chunks.len()
    );
    proxy.stop();
    let loaded = util::load(&trace);
    let recorded: Vec<String> = loaded
        .events
        .iter()
        .filter(|e| e.channel == Channel::Http && e.http().is_some_and(|h| h.method.is_none()))
        .map(|e| e.text().into_owned())
        .collect();
    assert_eq!(recorded.len(), BURST, "each event is recorded");
    assert!(recorded[BURST - 1].contains(&format!("\"progress\":{}", BURST - 1)));
    // Each event's SSE fields, then the request it answers, in this order, as the file has them.
    let request = loaded
        .events
        .iter()
        .find(|e| e.http().is_some_and(|h| h.method.is_some()))
        .expect("the request is recorded")
        .seq;
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .expect("the trace")
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .filter(|line: &serde_json::Value| {
            line["http"].is_object() && line["http"].get("method").is_none()
        })
        .collect();
    assert_eq!(lines.len(), BURST);
    for (i, line) in lines.iter().enumerate() {
        let mut expected = vec![("sse_id".to_string(), json!(i.to_string()))];
        if i % 3 == 1 {
            expected.push(("sse_event".into(), json!("message")));
        }
        if i == 2 {
            expected.push(("retry".into(), json!(1500)));
        }
        expected.push(("in_reply_to".into(), json!(request)));
        assert_eq!(sse_fields(line), expected, "the SSE fields of event {i}");
        assert_eq!(line["http"].get("status").is_some(), i == 0);
    }
}
