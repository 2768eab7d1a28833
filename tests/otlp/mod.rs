//! `sightline export --format otlp`: every scenario, both revisions and an external host's
//! session, decoded back with the OTLP protobuf types from the file (`--out`) and from what a
//! receiver on 127.0.0.1 got over OTLP/HTTP (`--endpoint`), and checked against the
//! conventions; endpoints that refuse, fail or hang.

use std::collections::HashSet;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::Span;

use crate::util::*;

mod conventions;
mod receiver;

use conventions::{SPAN_CLIENT, check};
pub use conventions::{attr_str, flatten, spans_of_file};
pub use receiver::{Answer, Receiver};

fn export(trace: &Path, extra: &[&str]) -> std::process::Output {
    run(
        Command::new(bin())
            .arg("export")
            .arg(trace)
            .args(["--format", "otlp"])
            .args(extra)
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_HEADERS"),
        Duration::from_secs(60),
    )
}

fn spans_by_both_routes(trace: &Path, extra: &[&str]) -> Vec<Span> {
    let dir = tempdir();
    let out = dir.path().join("spans.json");
    let o = export(
        trace,
        &[&["--out", out.to_str().expect("utf-8")], extra].concat(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let from_file = spans_of_file(&out);
    let receiver = Receiver::start(Answer::Ok);
    let o = export(
        trace,
        &[&["--endpoint", receiver.url.as_str()], extra].concat(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!("sent {} spans", from_file.len())),
        "{}",
        text(&o.stderr)
    );
    let sent: Vec<Span> = receiver.requests().into_iter().flat_map(flatten).collect();
    assert_eq!(
        sent, from_file,
        "the file and the wire carry the same spans"
    );
    from_file
}

#[test]
fn every_scenario_and_both_revisions_export_by_the_conventions() {
    let dir = tempdir();
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&scenarios)
        .expect("scenarios")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".toml")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    let mut revisions_seen = HashSet::new();
    for name in &names {
        for revision in ["2025-11-25", "2026-07-28"] {
            let trace = dir.path().join(format!("{name}-{revision}.jsonl"));
            run_scenario_to(name, &trace, &["--protocol", revision]);
            let spans = spans_by_both_routes(&trace, &[]);
            check(&trace, &spans, false);
            for s in &spans {
                if let Some(v) = attr_str(s, "mcp.protocol.version") {
                    revisions_seen.insert(v.to_string());
                }
            }
        }
    }
    assert!(
        revisions_seen.contains("2025-11-25") && revisions_seen.contains("2026-07-28"),
        "{revisions_seen:?}"
    );
}

/// The same loop in the Gemini shape: `generate_content {model}` spans of provider
/// `gcp.gemini`, with the attributes the other shapes get, and the content read from
/// `contents` / `functionCall` / `functionResponse`.
#[test]
fn the_gemini_loop_exports_gcp_gemini_spans() {
    let dir = tempdir();
    let trace = dir.path().join("gemini.jsonl");
    run_scenario_to("weather", &trace, &["--provider", "gemini", "--stream"]);
    let spans = spans_by_both_routes(&trace, &["--otlp-content"]);
    check(&trace, &spans, true);
    let models: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "generate_content scripted")
        .collect();
    assert_eq!(
        models.len(),
        2,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for s in &models {
        assert_eq!(attr_str(s, "gen_ai.provider.name"), Some("gcp.gemini"));
        assert_eq!(
            attr_str(s, "gen_ai.operation.name"),
            Some("generate_content")
        );
        assert_eq!(attr_str(s, "gen_ai.request.model"), Some("scripted"));
        assert_eq!(attr_str(s, "gen_ai.response.model"), Some("scripted"));
        assert!(attr_str(s, "gen_ai.response.id").is_some_and(|id| id.starts_with("resp_sl_")));
        let defs = attr_str(s, "gen_ai.tool.definitions").expect("tool definitions");
        let defs: serde_json::Value = serde_json::from_str(defs).expect("JSON");
        assert_eq!(defs[0]["name"], "get_weather");
        assert_eq!(defs[0]["parameters"]["type"], "object");
    }
    let tool = spans
        .iter()
        .find(|s| s.name == "execute_tool get_weather")
        .expect("execute_tool");
    assert_eq!(attr_str(tool, "gen_ai.tool.call.id"), Some("get_weather#1"));
    let input = attr_str(models[1], "gen_ai.input.messages").expect("input messages");
    let input: serde_json::Value = serde_json::from_str(input).expect("JSON");
    assert_eq!(input[1]["role"], "assistant");
    assert_eq!(input[1]["parts"][1]["type"], "tool_call");
    assert_eq!(input[2]["parts"][0]["type"], "tool_call_response");
    assert_eq!(input[2]["parts"][0]["id"], "get_weather#1");
    let output = attr_str(models[1], "gen_ai.output.messages").expect("output");
    assert!(output.contains("Seoul"), "{output}");
}

#[test]
fn the_weather_loop_nests_as_the_conventions_draw_it() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let spans = spans_by_both_routes(&trace, &["--otlp-content"]);
    check(&trace, &spans, true);
    let spans: Vec<Span> = spans;
    let names: Vec<&str> = spans
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !n.starts_with("notifications/"))
        .collect();
    assert_eq!(
        names,
        [
            "invoke_agent sightline",
            "initialize",
            "tools/list",
            "chat scripted",
            "execute_tool get_weather",
            "tools/call get_weather",
            "chat scripted"
        ]
    );
    let by_name = |n: &'static str| spans.iter().filter(move |s| s.name == n);
    let call = by_name("tools/call get_weather")
        .next()
        .expect("tools/call");
    assert_eq!(
        attr_str(call, "gen_ai.tool.call.arguments"),
        Some(r#"{"location":"Seoul"}"#)
    );
    assert!(attr_str(call, "gen_ai.tool.call.result").is_some_and(|r| r.contains("Seoul: 15C")));
    assert_eq!(attr_str(call, "jsonrpc.request.id"), Some("2"));
    assert_eq!(attr_str(call, "network.transport"), Some("pipe"));
    let tool = by_name("execute_tool get_weather")
        .next()
        .expect("execute_tool");
    assert_eq!(attr_str(tool, "gen_ai.tool.call.id"), Some("toolu_sl_0_0"));
    let second = by_name("chat scripted").nth(1).expect("the second turn");
    let input = attr_str(second, "gen_ai.input.messages").expect("input messages");
    let input: serde_json::Value = serde_json::from_str(input).expect("JSON");
    assert_eq!(input[0]["role"], "user");
    assert_eq!(
        input[0]["parts"][0]["content"],
        "What's the weather in Seoul right now?"
    );
    assert_eq!(input[2]["parts"][0]["type"], "tool_call_response");
    // `notifications/initialized` goes out with no request open: a zero-length CLIENT span.
    let initialized = spans
        .iter()
        .find(|s| s.name == "notifications/initialized")
        .expect("the notification");
    assert_eq!(initialized.kind, SPAN_CLIENT);
    assert_eq!(
        initialized.start_time_unix_nano,
        initialized.end_time_unix_nano
    );
}

#[test]
fn tool_errors_are_errors_and_nothing_secret_leaves() {
    let dir = tempdir();
    let trace = dir.path().join("errors.jsonl");
    run_scenario_to("tool-error-and-image", &trace, &[]);
    let spans = spans_by_both_routes(&trace, &[]);
    check(&trace, &spans, false);
    let failed: Vec<&Span> = spans
        .iter()
        .filter(|s| attr_str(s, "error.type") == Some("tool_error"))
        .collect();
    assert!(
        !failed.is_empty(),
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for s in failed {
        assert_eq!(s.status.as_ref().map(|st| st.code), Some(2));
    }
    // The file holds no header and no credential of any kind.
    let out = dir.path().join("all.json");
    let o = export(
        &trace,
        &["--out", out.to_str().expect("utf-8"), "--otlp-content"],
    );
    assert!(o.status.success());
    let json = std::fs::read_to_string(&out)
        .expect("read")
        .to_ascii_lowercase();
    for word in ["authorization", "x-api-key", "redacted"] {
        assert!(!json.contains(word), "{word} in the export");
    }
}

#[test]
fn the_json_file_follows_the_otlp_json_mapping() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let out = dir.path().join("spans.json");
    assert!(
        export(&trace, &["--out", out.to_str().expect("utf-8")])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&out).expect("read");
    let v: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
    let span = &v["resourceSpans"][0]["scopeSpans"][0]["spans"][1];
    // Hex ids (not base64), 64-bit integers as strings, enums as numbers, camelCase keys.
    let hex = |s: &serde_json::Value, n: usize| {
        s.as_str().is_some_and(|s| {
            s.len() == n
                && s.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        })
    };
    assert!(hex(&span["traceId"], 32), "{span}");
    assert!(
        hex(&span["spanId"], 16) && hex(&span["parentSpanId"], 16),
        "{span}"
    );
    assert!(
        span["startTimeUnixNano"]
            .as_str()
            .is_some_and(|s| s.parse::<u64>().is_ok()),
        "{span}"
    );
    assert_eq!(span["kind"], 3);
    let resource = &v["resourceSpans"][0]["resource"]["attributes"];
    assert_eq!(resource[0]["key"], "service.name");
    assert_eq!(resource[0]["value"]["stringValue"], "sightline");
    let int = v["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .flat_map(|s| s["attributes"].as_array().cloned().unwrap_or_default())
        .find(|a| a["key"] == "gen_ai.usage.input_tokens")
        .expect("usage");
    assert!(int["value"]["intValue"].is_string(), "{int}");
}

#[test]
fn an_external_hosts_session_is_one_trace() {
    require_npm_peers();
    let dir = tempdir();
    let session = crate::sessions::record_external_session(dir.path());
    let spans = spans_by_both_routes(&session, &[]);
    check(&session, &spans, false);
    assert_eq!(
        spans.iter().filter(|s| s.name.starts_with("chat ")).count(),
        2
    );
    let tool = spans
        .iter()
        .find(|s| s.name == "execute_tool get_weather")
        .expect("execute_tool");
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call get_weather")
        .expect("tools/call");
    assert_eq!(call.parent_span_id, tool.span_id);
    assert_eq!(spans[0].name, "invoke_agent");
}

#[test]
fn endpoints_that_refuse_fail_or_hang_are_one_line_errors() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    const SECRET: &str = "Bearer sk-otlp-SECRET-123";
    let auth = format!("Authorization={SECRET}");
    let refused = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    let unauthorized = Receiver::start(Answer::Status(401));
    let unavailable = Receiver::start(Answer::Status(503));
    let hanging = Receiver::start(Answer::Hang);
    for (url, wanted) in [
        (refused.as_str(), "cannot reach OTLP endpoint"),
        (unauthorized.url.as_str(), "answered HTTP 401"),
        (unavailable.url.as_str(), "answered HTTP 503"),
        (hanging.url.as_str(), "did not answer within 300ms"),
    ] {
        let o = run(
            Command::new(bin())
                .arg("export")
                .arg(&trace)
                .args([
                    "--format",
                    "otlp",
                    "--endpoint",
                    url,
                    "--otlp-header",
                    &auth,
                ])
                .env("OTEL_EXPORTER_OTLP_TIMEOUT", "300"),
            Duration::from_secs(30),
        );
        let err = text(&o.stderr);
        // Status 1: the backend refused, failed or hung (docs/otel.md); 2 stays for trouble
        // with the command itself (below).
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(wanted) && err.contains(&format!("{url}/v1/traces")),
            "{err}"
        );
        assert!(!err.contains("sk-otlp"), "{err}");
    }
    // Trouble with the command itself (not an http(s) URL, a header that is not K=V) stays
    // status 2, and still shows no header value.
    for extra in [
        [
            "--endpoint",
            "ftp://127.0.0.1:4318",
            "--otlp-header",
            auth.as_str(),
        ],
        ["--endpoint", refused.as_str(), "--otlp-header", SECRET],
    ] {
        let o = export(&trace, &extra);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("sk-otlp"), "{err}");
    }
    // The backend got the header (it is sent, just never shown); 503 was retried.
    let got = unauthorized.got.lock().expect("lock");
    assert!(
        got[0]
            .1
            .iter()
            .any(|(k, v)| k == "authorization" && v == SECRET)
    );
    assert!(
        unavailable.got.lock().expect("lock").len() > 1,
        "503 is retried"
    );
}

#[test]
fn a_malformed_traceparent_is_reported_by_validate_and_ignored_by_export() {
    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const BAD: &str = "00-4BF92F3577B34DA6-nothex-01";
    let call = |id: u32, tp: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"Seoul"}},"_meta":{{"traceparent":"{tp}"}}}}}}"#
        )
    };
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        call(1, GOOD),
        call(2, BAD),
    ]
    .join("\n")
        + "\n";
    let dir = tempdir();
    let trace = dir.path().join("tp.jsonl");
    let o = run_with_input(
        Command::new(bin())
            .args(["proxy", "--name", "weather", "--trace"])
            .arg(&trace)
            .args(["--", bin(), "demo-server", "weather"]),
        input.as_bytes(),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let loaded = load(&trace);
    let bad_seq = loaded
        .events
        .iter()
        .find(|e| e.text().contains(BAD))
        .expect("the bad call is recorded")
        .seq;

    let v = run(
        Command::new(bin()).arg("validate").arg(&trace),
        Duration::from_secs(30),
    );
    let report = text(&v.stdout);
    assert_eq!(v.status.code(), Some(1), "{report}");
    let line = report
        .lines()
        .find(|l| l.contains("traceparent"))
        .unwrap_or_else(|| panic!("no traceparent line in {report}"));
    assert!(line.starts_with(&format!("#{bad_seq} ")), "{line}");
    assert!(
        line.contains(BAD) && line.contains("/params/_meta/traceparent"),
        "{line}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("traceparent")).count(),
        1,
        "the valid one is not reported: {report}"
    );

    let out = dir.path().join("tp.otlp.json");
    let e = export(&trace, &["--out", out.to_str().expect("path")]);
    assert!(e.status.success(), "{}", text(&e.stderr));
    let spans = spans_of_file(&out);
    let root = &spans[0];
    let id = |s: &&Span| attr_str(s, "jsonrpc.request.id").map(str::to_string);
    let calls: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "tools/call get_weather")
        .collect();
    let joined = calls
        .iter()
        .find(|s| id(s).as_deref() == Some("1"))
        .expect("1");
    let ignored = calls
        .iter()
        .find(|s| id(s).as_deref() == Some("2"))
        .expect("2");
    let caller = sightline::wire::traceparent::parse_traceparent(GOOD).expect("valid");
    assert_eq!(joined.trace_id, caller.trace_id);
    assert_eq!(joined.parent_span_id, caller.span_id);
    assert_eq!(
        ignored.trace_id, root.trace_id,
        "the malformed one is ignored"
    );
    assert_eq!(ignored.parent_span_id, root.span_id);
}
