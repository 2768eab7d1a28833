//! Live OTLP streaming from the proxies an external host runs: `llm-proxy --otlp-endpoint`,
//! the stdio proxy command `wrap --otlp-endpoint` writes into the host's config (run exactly as
//! written, by the TS SDK host), and the HTTP proxies `wrap --serve --otlp-endpoint` runs. Each
//! sends to its own receiver on 127.0.0.1; what arrives is decoded with the OTLP protobuf types
//! and compared with what `export --format otlp` makes of that proxy's file; and the session's
//! merged export nests what the two proxies could not nest live (docs/otel.md says so).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::Span;
use sightline::trace::Lane;

use crate::http_proxy::{Running, client, everything, stop, wait_until_accepting};
use crate::otlp::{Answer, Receiver, attr_str, spans_of_file};
use crate::otlp_live::{check_live, received};
use crate::sessions::spawn_listening;
use crate::util::*;

fn by_name<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no {name} among {:?}", names(spans)))
}

fn names(spans: &[Span]) -> Vec<&str> {
    spans.iter().map(|s| s.name.as_str()).collect()
}

/// The session's member file that recorded lane `to` (the LLM proxy's or the server proxy's).
fn member(session: &Path, to: &Lane) -> PathBuf {
    std::fs::read_dir(session)
        .expect("session dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .find(|p| load(p).events.iter().any(|e| &e.to == to))
        .unwrap_or_else(|| panic!("no member of {} records {to:?}", session.display()))
}

#[test]
fn an_external_hosts_llm_proxy_and_wrapped_server_stream_live() {
    require_npm_peers();
    let dir = tempdir();
    let session = dir.path().join("demo");
    let session_arg = session.display().to_string();
    let (llm_rx, mcp_rx) = (Receiver::start(Answer::Ok), Receiver::start(Answer::Ok));

    let model_port = free_port();
    let model = spawn_listening(
        Command::new(bin())
            .args(["scripted-model", "--scenario", "scenarios/weather.toml"])
            .args(["--listen", &format!("127.0.0.1:{model_port}")])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        model_port,
    );
    let llm_port = free_port();
    let llm = spawn_listening(
        Command::new(bin())
            .args(["llm-proxy", "--listen", &format!("127.0.0.1:{llm_port}")])
            .args(["--upstream", &format!("http://127.0.0.1:{model_port}")])
            .args(["--session", &session_arg, "--otlp-endpoint", &llm_rx.url]),
        llm_port,
    );

    // The host's config, wrapped with live export: the host starts the proxy as written.
    let config = dir.path().join(".mcp.json");
    let server = serde_json::json!({"command": bin(), "args": ["demo-server", "weather"]});
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {"weather": server}}).to_string(),
    )
    .expect("write config");
    let wrapped = run(
        Command::new(bin()).arg("wrap").arg(&config).args([
            "--session",
            &session_arg,
            "--otlp-endpoint",
            &mcp_rx.url,
        ]),
        Duration::from_secs(30),
    );
    assert!(wrapped.status.success(), "{}", text(&wrapped.stderr));
    let args = wrapped_args(&config, "weather");
    assert!(
        args.windows(2)
            .any(|w| w == ["--otlp-endpoint", mcp_rx.url.as_str()]),
        "{args:?}"
    );
    let out = run(
        Command::new("node")
            .arg(peer("external-host.mjs"))
            .arg(format!("http://127.0.0.1:{llm_port}"))
            .arg("What's the weather in Seoul right now?")
            .arg("--")
            .arg(server["command"].as_str().expect("command"))
            .args(&args),
        Duration::from_secs(40),
    );
    assert!(out.status.success(), "host failed: {}", text(&out.stderr));
    crate::sessions::stop(llm);
    crate::sessions::stop(model);

    // Each proxy streamed exactly the spans the export of its own file gives.
    let llm_live = received(&llm_rx);
    let mcp_live = received(&mcp_rx);
    check_live(&member(&session, &Lane::Llm), &llm_live);
    check_live(&member(&session, &Lane::server("weather")), &mcp_live);
    assert_eq!(
        names(&llm_live)
            .iter()
            .filter(|n| n.starts_with("chat "))
            .count(),
        2
    );
    let tool = by_name(&llm_live, "execute_tool get_weather");
    assert!(attr_str(tool, "gen_ai.tool.call.id").is_some_and(|id| !id.is_empty()));
    let call = by_name(&mcp_live, "tools/call get_weather");
    assert_eq!(attr_str(call, "network.transport"), Some("pipe"));
    // One session, one trace: both proxies' spans are in the session's trace.
    assert_eq!(tool.trace_id, call.trace_id);
    // Live, the server's proxy never saw the model's tool call: its `tools/call` hangs off its
    // own root. The session's export has both halves and nests it under the `execute_tool`
    // (the same span the LLM proxy streamed).
    let mcp_root = by_name(&mcp_live, "invoke_agent");
    assert_eq!(call.parent_span_id, mcp_root.span_id);
    // Both proxies' roots are the session's one root span (same id, each its own file's times),
    // and the LLM proxy's `execute_tool` is a point at the model's ask: it never saw the call.
    assert_eq!(by_name(&llm_live, "invoke_agent").span_id, mcp_root.span_id);
    assert_eq!(tool.start_time_unix_nano, tool.end_time_unix_nano);
    let merged_out = dir.path().join("merged.otlp.json");
    let o = run(
        Command::new(bin())
            .arg("export")
            .arg(&session)
            .args(["--format", "otlp", "--out"])
            .arg(&merged_out),
        Duration::from_secs(30),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let merged = spans_of_file(&merged_out);
    let merged_tool = by_name(&merged, "execute_tool get_weather");
    let merged_call = by_name(&merged, "tools/call get_weather");
    assert_eq!(merged_call.parent_span_id, merged_tool.span_id);
    assert_eq!(merged_tool.trace_id, tool.trace_id);
    assert_eq!(
        merged_tool.span_id, tool.span_id,
        "the same execute_tool span"
    );
    assert_eq!(
        merged_call.span_id, call.span_id,
        "the same tools/call span"
    );
    assert!(merged_tool.end_time_unix_nano >= merged_call.end_time_unix_nano);
}

#[test]
fn wrap_serve_streams_its_http_proxies_live() {
    require_npm_peers();
    let receiver = Receiver::start(Answer::Ok);
    let (_server, upstream) = everything();
    let dir = tempdir();
    let config = dir.path().join(".mcp.json");
    let servers =
        serde_json::json!({"mcpServers": {"everything": {"type": "http", "url": upstream}}});
    std::fs::write(&config, servers.to_string()).expect("write the config");
    let traces = dir.path().join("traces");
    let traces_arg = traces.to_str().expect("utf-8 path");
    let port = free_port();
    let wrap = |extra: &[&str]| {
        let mut cmd = Command::new(bin());
        cmd.arg("wrap").arg(&config).args(extra);
        cmd
    };
    let o = run(
        &mut wrap(&["--http-port", &port.to_string(), "--trace-dir", traces_arg]),
        Duration::from_secs(10),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let wrapped = read_json(&config);
    let local = wrapped["mcpServers"]["everything"]["url"]
        .as_str()
        .expect("a url")
        .to_string();
    let mut serving = wrap(&[
        "--serve",
        "--trace-dir",
        traces_arg,
        "--otlp-endpoint",
        &receiver.url,
    ]);
    serving
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut serving = Running(serving.spawn().expect("start wrap --serve"));
    wait_until_accepting(port, &mut serving.0);
    client(&local);
    stop(&mut serving);
    let live = received(&receiver);
    check_live(&traces.join("everything.jsonl"), &live);
    let echo = by_name(&live, "tools/call echo");
    assert_eq!(attr_str(echo, "network.transport"), Some("tcp"));
    assert!(attr_str(echo, "mcp.session.id").is_some());
}
