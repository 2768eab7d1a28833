//! Provider errors: a canned HTTP API answers 401, 429, 500 or not-JSON (or nothing
//! listens), and the run ends with one clear line, the key never in the trace.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use sightline::trace::{Channel, Lane};

use super::{
    RUN_LIMIT, assert_no_model_server_traffic, is_llm_request, is_llm_response, next_after,
    sightline_run,
};
use crate::util::{self, repo};

/// The API key of the provider-error runs; it must never reach the trace.
const SECRET: &str = "sk-test-SECRET-123";

/// A one-shot LLM API on 127.0.0.1: every connection gets the same canned response; each
/// request received (headers and body) is sent back to the test.
pub(crate) struct FakeApi {
    pub(crate) port: u16,
    requests: mpsc::Receiver<Vec<u8>>,
    stop: Arc<AtomicBool>,
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

pub(crate) fn fake_api(response: String) -> FakeApi {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        let deadline = Instant::now() + RUN_LIMIT;
        while !stopped.load(Ordering::SeqCst) && Instant::now() < deadline {
            match listener.accept() {
                Ok((stream, _)) => {
                    let request = serve_one(stream, response.as_bytes());
                    if tx.send(request).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(_) => return,
            }
        }
    });
    FakeApi {
        port,
        requests: rx,
        stop,
    }
}

/// Reads one request (headers, then `Content-Length` bytes of body), writes `response`, closes.
fn serve_one(mut stream: TcpStream, response: &[u8]) -> Vec<u8> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break Some(at + 4);
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break None,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    };
    if let Some(end) = header_end {
        let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while request.len() < end + length {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => request.extend_from_slice(&buf[..n]),
            }
        }
    }
    let _ = stream.write_all(response);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
    request
}

/// A raw HTTP/1.1 response with a JSON (or not) body and `Connection: close`.
fn http_response(status: &str, extra_headers: &[&str], body: &str) -> String {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for h in extra_headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    format!("{head}\r\n{body}")
}

#[test]
fn provider_errors_end_the_run_with_one_clear_line() {
    struct Case {
        name: &'static str,
        response: Option<String>,
        status: Option<u16>,
        says: &'static [&'static str],
    }
    let cases = [
        Case {
            name: "401",
            response: Some(http_response(
                "401 Unauthorized",
                &["request-id: req_test_401"],
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            )),
            status: Some(401),
            says: &["401", "invalid x-api-key"],
        },
        Case {
            name: "429",
            response: Some(http_response(
                "429 Too Many Requests",
                &["retry-after: 7"],
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
            )),
            status: Some(429),
            says: &["429", "retry after 7"],
        },
        Case {
            name: "500",
            // An API that echoes the key: it must still not reach the trace.
            response: Some(http_response(
                "500 Internal Server Error",
                &[],
                r#"{"type":"error","error":{"type":"api_error","message":"Internal server error for key sk-test-SECRET-123"}}"#,
            )),
            status: Some(500),
            says: &["500", "Internal server error"],
        },
        Case {
            name: "200 not JSON",
            response: Some(http_response("200 OK", &[], "not json at all")),
            status: Some(200),
            says: &["not JSON", "not json at all"],
        },
        Case {
            name: "connection refused",
            response: None,
            status: None,
            says: &["cannot reach"],
        },
    ];
    let scenario = repo("scenarios/weather.toml");
    for case in cases {
        let what = case.name;
        let (api, port) = match case.response {
            Some(response) => {
                let api = fake_api(response);
                let port = api.port;
                (Some(api), port)
            }
            None => (None, util::free_port()),
        };
        let base = format!("http://127.0.0.1:{port}");
        let url = format!("{base}/v1/messages");
        let run = sightline_run(
            &scenario,
            &[
                "--provider",
                "anthropic",
                "--model",
                "claude-test",
                "--base-url",
                &base,
                "--no-summary",
            ],
            &[("ANTHROPIC_API_KEY", SECRET)],
        );

        assert!(
            !run.output.status.success(),
            "{what}: the run succeeded:\n{}",
            run.stdout
        );
        let failed: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("sightline: run failed:"))
            .collect();
        assert_eq!(
            failed.len(),
            1,
            "{what}: expected one `sightline: run failed:` line, stderr:\n{}",
            run.stderr
        );
        let line = failed[0];
        assert!(
            line.contains(&url),
            "{what}: the line does not name {url}: {line}"
        );
        for needle in case.says {
            assert!(
                line.contains(needle),
                "{what}: the line lacks {needle:?}: {line}"
            );
        }
        assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);

        // The key went over the wire (so redaction is the recorder's doing)...
        if let Some(api) = &api {
            let received = api
                .requests
                .recv_timeout(Duration::from_secs(5))
                .unwrap_or_else(|_| panic!("{what}: the fake API got no request"));
            let head = util::text(&received).to_ascii_lowercase();
            assert!(
                head.starts_with("post /v1/messages "),
                "{what}: {}",
                head.lines().next().unwrap_or("")
            );
            assert!(
                head.contains(&format!("x-api-key: {}", SECRET.to_ascii_lowercase())),
                "{what}: the key was not sent"
            );
        }
        // ...and is nowhere in the trace, nor in what the user saw.
        let file = std::fs::read_to_string(&run.trace_path).expect("read trace");
        assert!(
            !file.contains(SECRET),
            "{what}: the API key is in the trace"
        );
        assert!(
            !run.stderr.contains(SECRET) && !run.stdout.contains(SECRET),
            "{what}: the API key was printed"
        );

        let events = run.events();
        let llm: Vec<usize> = (0..events.len())
            .filter(|&i| events[i].channel == Channel::LlmHttp)
            .collect();
        let request_at = *llm
            .iter()
            .find(|&&i| is_llm_request(&events[i]))
            .unwrap_or_else(|| panic!("{what}: no LLM request recorded"));
        let request_http = events[request_at].http().expect("request http info");
        assert_eq!(request_http.url.as_deref(), Some(url.as_str()), "{what}");
        assert!(
            request_http
                .headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case("x-api-key") && v == "[redacted]"),
            "{what}: the recorded request headers do not show x-api-key [redacted]: {:?}",
            request_http.headers
        );
        let last = *llm.last().expect("an llm-http event");
        match case.status {
            Some(status) => {
                let e = &events[last];
                assert!(
                    is_llm_response(e),
                    "{what}: the last llm-http event is {} -> {}",
                    e.from,
                    e.to
                );
                assert_eq!(e.http().and_then(|h| h.status), Some(status), "{what}");
                if status == 200 {
                    assert_eq!(e.text(), "not json at all", "{what}");
                }
            }
            None => {
                assert_eq!(
                    last, request_at,
                    "{what}: the last llm-http event is not the request"
                );
                let note = next_after(&run, last, |e| !e.from.is_server() && !e.to.is_server())
                    .unwrap_or_else(|| panic!("{what}: nothing follows the request"));
                let e = &events[note];
                assert!(
                    e.channel == Channel::Note && e.from == Lane::Llm && e.to == Lane::Host,
                    "{what}: the request is followed by #{} {} -> {} {}",
                    e.seq,
                    e.from,
                    e.to,
                    e.channel.as_str()
                );
                assert!(
                    e.text().contains("cannot reach"),
                    "{what}: note {:?}",
                    e.text()
                );
            }
        }
        assert_no_model_server_traffic(&run, what);
        drop(api);
    }
}
