//! `sightline proxy --http` in front of server-everything in `streamableHttp` mode, driven by
//! the TypeScript SDK's Streamable HTTP client (`tests/peers/http-client.mjs`).

use std::collections::HashSet;
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline::trace::{Channel, Event, Kind, Lane};

use crate::util::{self, free_port, header};

/// A child process killed when dropped.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn wait_until_accepting(port: u16, child: &mut Child) {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the process on port {port} exited early: {status}");
        }
        assert!(Instant::now() < deadline, "nothing accepts on {addr}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn client(url: &str) -> String {
    let out = util::run(
        Command::new("node")
            .arg(util::peer("http-client.mjs"))
            .arg(url),
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "http-client.mjs {url} failed: {}\n{}",
        out.status,
        util::text(&out.stderr)
    );
    util::text(&out.stdout)
}

/// server-everything in `streamableHttp` mode on a free port, and its endpoint URL.
pub fn everything() -> (Running, String) {
    let server_port = free_port();
    let mut server = Command::new("node");
    server
        .arg(util::peer(
            "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("streamableHttp")
        .env("PORT", server_port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut server = Running(server.spawn().expect("start server-everything"));
    wait_until_accepting(server_port, &mut server.0);
    (server, format!("http://127.0.0.1:{server_port}/mcp"))
}

/// Stops a proxy with SIGTERM, as a terminal would, so its traces are complete.
pub fn stop(proxy: &mut Running) {
    let pid = proxy.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while proxy.0.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the proxy did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn streamable_http_through_the_proxy_is_unchanged_and_recorded() {
    util::require_npm_peers();
    let (server, upstream) = everything();

    let dir = util::tempdir();
    let trace = dir.path().join("http.jsonl");
    let proxy_port = free_port();
    let mut proxy = Command::new(util::bin());
    proxy
        .args(["proxy", "--http", "--listen"])
        .arg(format!("127.0.0.1:{proxy_port}"))
        .args(["--upstream", &upstream, "--name", "everything", "--trace"])
        .arg(&trace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut proxy = Running(proxy.spawn().expect("start the proxy"));
    wait_until_accepting(proxy_port, &mut proxy.0);

    let direct = client(&upstream);
    let proxied = client(&format!("http://127.0.0.1:{proxy_port}/mcp"));
    assert_eq!(
        direct, proxied,
        "the client saw a difference through the proxy"
    );
    assert!(proxied.contains("\"step\":\"closed\""), "{proxied}");

    // A request from a foreign origin is refused (DNS rebinding) and not forwarded.
    let refused = util::run(
        Command::new("curl").args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-H",
            "Origin: http://evil.example",
            "-X",
            "POST",
            &format!("http://127.0.0.1:{proxy_port}/mcp"),
        ]),
        Duration::from_secs(10),
    );
    assert_eq!(util::text(&refused.stdout), "403");

    stop(&mut proxy);

    let loaded = util::load(&trace);
    let analysis = util::analyze(&loaded);
    let events = &loaded.events;
    let host = Lane::Host;
    let srv = Lane::server("everything");
    assert!(
        events
            .iter()
            .all(|e| matches!(e.channel, Channel::Http | Channel::Note)),
        "{events:#?}"
    );
    for (e, d) in events.iter().zip(&analysis.derived) {
        assert_ne!(d.kind, Kind::Invalid, "{e:#?}");
    }

    // Every JSON-RPC message appears once, as its own event.
    let messages: Vec<(&Event, Value)> = events
        .iter()
        .filter(|e| e.channel == Channel::Http && !e.text().is_empty())
        .map(|e| {
            let v: Value = serde_json::from_str(&e.text()).expect("one JSON-RPC message per event");
            (e, v)
        })
        .collect();
    let mut seen = HashSet::new();
    for (e, _) in &messages {
        assert!(seen.insert(e.text().to_string()), "twice: {}", e.text());
    }
    let from_host: Vec<&str> = messages
        .iter()
        .filter(|(e, _)| e.from == host && e.to == srv)
        .filter_map(|(_, v)| v["method"].as_str())
        .collect();
    assert_eq!(
        from_host,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call",
            "tools/call"
        ]
    );
    let from_server: Vec<&Value> = messages
        .iter()
        .filter(|(e, _)| e.from == srv && e.to == host)
        .map(|(_, v)| v)
        .collect();
    let results: Vec<i64> = from_server
        .iter()
        .filter(|v| v.get("result").is_some())
        .filter_map(|v| v["id"].as_i64())
        .collect();
    assert_eq!(results, [0, 1, 2, 3], "{from_server:#?}");

    // Progress notifications precede their result.
    let seq_of = |pred: &dyn Fn(&Value) -> bool| -> Vec<u64> {
        messages
            .iter()
            .filter(|(e, v)| e.from == srv && pred(v))
            .map(|(e, _)| e.seq)
            .collect()
    };
    let progress = seq_of(&|v| v["method"] == "notifications/progress");
    assert_eq!(progress.len(), 3);
    let long_result = seq_of(&|v| v["id"] == 3 && v.get("result").is_some());
    assert!(progress.iter().all(|p| *p < long_result[0]));

    // SSE priming events are recorded with an empty payload and their id.
    assert!(events.iter().any(|e| {
        e.from == srv
            && e.text().is_empty()
            && e.http().is_some_and(|h| h.extra.contains_key("sse_id"))
    }));

    // The session id the server gave survives on every later request, the DELETE included.
    let session = events
        .iter()
        .filter(|e| e.from == srv)
        .find_map(|e| header(e, "mcp-session-id"))
        .expect("the initialize response has a session id")
        .to_string();
    let requests: Vec<&Event> = events
        .iter()
        .filter(|e| e.from == host && e.channel == Channel::Http)
        .collect();
    for request in &requests[1..] {
        assert_eq!(header(request, "mcp-session-id"), Some(session.as_str()));
    }
    let method = |e: &Event| e.http().and_then(|h| h.method.clone());
    assert!(requests.iter().any(|e| method(e).as_deref() == Some("GET")));
    let delete = events
        .iter()
        .position(|e| method(e).as_deref() == Some("DELETE"))
        .expect("the DELETE is recorded");
    let delete_seq = events[delete].seq;
    let answer = events[delete + 1..]
        .iter()
        .find(|e| {
            e.from == srv
                && e.http().is_some_and(|h| {
                    h.status.is_some() && h.extra.get("in_reply_to") == Some(&delete_seq.into())
                })
        })
        .expect("the DELETE's response is recorded, naming its request");
    // The DELETE ends the session (server-everything answers 200 without a session header).
    assert_eq!(answer.http().and_then(|h| h.status), Some(200));

    // The refused request left a note and was not forwarded.
    assert!(
        events
            .iter()
            .any(|e| e.channel == Channel::Note && e.text().contains("neither a loopback origin"))
    );
    drop(server);
}

#[test]
fn a_wrapped_http_server_is_served_recorded_and_restored() {
    util::require_npm_peers();
    let (server, upstream) = everything();
    let dir = util::tempdir();
    let config = dir.path().join(".mcp.json");
    let original = serde_json::to_string_pretty(&serde_json::json!({
        "mcpServers": {
            "everything": {"type": "http", "url": upstream, "headers": {"X-Team": "a"}}
        }
    }))
    .expect("json")
        + "\n";
    std::fs::write(&config, &original).expect("write the config");
    let traces = dir.path().join("traces");
    let port = free_port();
    let wrap = |extra: &[&str]| {
        let mut cmd = Command::new(util::bin());
        cmd.arg("wrap").arg(&config).args(extra);
        cmd
    };
    let port_arg = port.to_string();
    let traces_arg = traces.to_str().expect("utf-8 path");
    let out = util::run(
        &mut wrap(&["--http-port", &port_arg, "--trace-dir", traces_arg]),
        Duration::from_secs(10),
    );
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    assert!(util::text(&out.stdout).contains("everything: wrapped"));
    let wrapped: Value =
        serde_json::from_str(&std::fs::read_to_string(&config).expect("read")).expect("json");
    let local = wrapped["mcpServers"]["everything"]["url"]
        .as_str()
        .expect("a url")
        .to_string();
    let rest = upstream.strip_prefix("http://").expect("http upstream");
    assert_eq!(
        local,
        format!("http://127.0.0.1:{port}/sightline/http/{rest}")
    );
    assert_eq!(
        wrapped["mcpServers"]["everything"]["headers"]["X-Team"],
        "a"
    );

    // The proxies start from the wrapped config alone; the host connects to the local URL.
    let mut serving = wrap(&["--serve", "--trace-dir", traces_arg]);
    serving
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut serving = Running(serving.spawn().expect("start wrap --serve"));
    wait_until_accepting(port, &mut serving.0);
    let direct = client(&upstream);
    let proxied = client(&local);
    assert_eq!(
        direct, proxied,
        "the client saw a difference through the proxy"
    );
    stop(&mut serving);

    let loaded = util::load(&traces.join("everything.jsonl"));
    let analysis = util::analyze(&loaded);
    let srv = Lane::server("everything");
    assert_eq!(
        requests_to(&loaded, &analysis, &srv),
        ["initialize", "tools/list", "tools/call", "tools/call"]
    );
    let requests: Vec<(String, String)> = loaded
        .events
        .iter()
        .filter(|e| e.to == srv)
        .filter_map(|e| e.http())
        .map(|h| {
            (
                h.method.as_deref().unwrap_or_default().to_string(),
                h.url.as_deref().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        requests.iter().all(|(_, url)| *url == upstream),
        "{requests:?}"
    );
    assert!(requests.iter().any(|(method, _)| method == "DELETE"));

    // Undo gives back the very bytes, even without the backup.
    std::fs::remove_file(dir.path().join(".mcp.json.sightline-backup")).expect("backup");
    let out = util::run(&mut wrap(&["--undo"]), Duration::from_secs(10));
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
    drop(server);
}

#[test]
fn an_rmcp_client_and_server_on_2026_07_28_through_the_proxy() {
    use rmcp::model::{CallToolRequestParams, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let server_port = free_port();
    let mut server = Command::new(util::bin());
    server
        .args(["demo-server", "weather", "--http", "--listen"])
        .arg(format!("127.0.0.1:{server_port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut server = Running(server.spawn().expect("start the demo server"));
    wait_until_accepting(server_port, &mut server.0);

    let dir = util::tempdir();
    let trace = dir.path().join("rmcp-http.jsonl");
    let proxy_port = free_port();
    let mut proxy = Command::new(util::bin());
    proxy
        .args(["proxy", "--http", "--listen"])
        .arg(format!("127.0.0.1:{proxy_port}"))
        .arg("--upstream")
        .arg(format!("http://127.0.0.1:{server_port}/mcp"))
        .args(["--name", "weather", "--trace"])
        .arg(&trace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut proxy = Running(proxy.spawn().expect("start the proxy"));
    wait_until_accepting(proxy_port, &mut proxy.0);

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let answer = runtime.block_on(async {
        let http = sightline::tap::client::http().build().expect("client");
        let config = StreamableHttpClientTransportConfig::with_uri(format!(
            "http://127.0.0.1:{proxy_port}/mcp"
        ));
        let transport = StreamableHttpClientTransport::with_client(http, config);
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = ().serve_with_lifecycle(transport, lifecycle).await.expect("discover");
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(tools.len(), 1);
        let mut arguments = serde_json::Map::new();
        arguments.insert("location".into(), "Seoul".into());
        let result = client
            .call_tool(CallToolRequestParams::new("get_weather").with_arguments(arguments))
            .await
            .expect("tools/call");
        let _ = client.cancel().await;
        serde_json::to_value(&result.content).expect("json")
    });
    assert_eq!(answer[0]["text"], "Seoul: 15C, partly cloudy");
    stop(&mut proxy);

    let loaded = util::load(&trace);
    let analysis = util::analyze(&loaded);
    let srv = Lane::server("weather");
    assert_eq!(
        requests_to(&loaded, &analysis, &srv),
        ["server/discover", "tools/list", "tools/call"]
    );
    for (e, d) in loaded.events.iter().zip(&analysis.derived) {
        assert_ne!(d.kind, Kind::Invalid, "{e:#?}");
    }
    // Every request after discovery names the revision in its headers (no session).
    let requests: Vec<&Event> = loaded
        .events
        .iter()
        .filter(|e| e.to == srv && e.channel == Channel::Http)
        .collect();
    for request in &requests[1..] {
        assert_eq!(header(request, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(header(request, "mcp-session-id"), None);
    }
    let session = analysis
        .sessions
        .iter()
        .find(|(lane, _)| *lane == srv)
        .map(|(_, s)| format!("{s:?}"))
        .expect("the server's session");
    assert!(session.contains("2026-07-28"), "{session}");
    drop(server);
}

/// The methods of the requests sent to `server`, in order.
fn requests_to(
    loaded: &sightline::trace::LoadedTrace,
    analysis: &sightline::trace::Analysis,
    server: &Lane,
) -> Vec<String> {
    loaded
        .events
        .iter()
        .zip(&analysis.derived)
        .filter(|(e, d)| &e.to == server && d.kind == Kind::Request)
        .filter_map(|(_, d)| d.method.as_deref().map(String::from))
        .collect()
}
