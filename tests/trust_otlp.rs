//! An OTLP endpoint's URL may carry credentials (`http://user:PASSWORD@host/v1/traces?token=T`,
//! the same in `OTEL_EXPORTER_OTLP_ENDPOINT`): they are sent, but never printed, recorded in a
//! trace's notes or written into a host's config (issue 37, item 1). Receivers on 127.0.0.1
//! that accept, refuse or are not there.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::otlp::{Answer, Receiver};
use crate::util::*;

const PASSWORD: &str = "hunter2-otlp-PASSWORD";
const TOKEN: &str = "tok-otlp-QUERY-SECRET";

const SESSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    "\n",
);

/// `base` (`http://127.0.0.1:PORT`) with a user and password, `path` and a credential
/// parameter.
fn with_credentials(base: &str, path: &str) -> String {
    let host = base.trim_start_matches("http://");
    format!("http://otel-user:{PASSWORD}@{host}{path}?token={TOKEN}")
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in [PASSWORD, TOKEN] {
        assert!(!text.contains(secret), "{what} holds {secret}:\n{text}");
    }
}

/// A URL on 127.0.0.1 where nothing listens.
fn refused() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    format!("http://{}", l.local_addr().expect("addr"))
}

fn weather_trace(dir: &Path) -> std::path::PathBuf {
    let trace = dir.join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    trace
}

#[test]
fn otlp_export_never_prints_the_endpoints_credentials() {
    let dir = tempdir();
    let trace = weather_trace(dir.path());
    let ok = Receiver::start(Answer::Ok);
    let failing = Receiver::start(Answer::Status(400));
    let down = refused();
    for (what, url, sent) in [
        ("accepted", ok.url.as_str(), true),
        ("refused with 400", failing.url.as_str(), false),
        ("down", down.as_str(), false),
    ] {
        for by_variable in [false, true] {
            // The variable names a base URL: /v1/traces goes into its path, before the query.
            let endpoint = with_credentials(url, if by_variable { "" } else { "/v1/traces" });
            let mut cmd = Command::new(bin());
            cmd.arg("export")
                .arg(&trace)
                .args(["--format", "otlp"])
                .env("OTEL_EXPORTER_OTLP_TIMEOUT", "500")
                .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
            if by_variable {
                cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint);
            } else {
                cmd.args(["--endpoint", &endpoint])
                    .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
            }
            let o = run(cmd.env("SIGHTLINE_LOG", "debug"), Duration::from_secs(60));
            let stderr = text(&o.stderr);
            assert_eq!(o.status.success(), sent, "{what}: {stderr}");
            assert!(stderr.contains("[redacted]"), "{what}: {stderr}");
            assert!(stderr.contains("127.0.0.1"), "names the endpoint: {stderr}");
            assert_no_secret(&format!("stderr ({what}, variable {by_variable})"), &stderr);
        }
    }
    // The credentials still reach the backend: redaction is for what is shown.
    let got = ok.got.lock().expect("lock");
    assert!(!got.is_empty(), "nothing was sent");
    for (path, headers, _) in got.iter() {
        assert_eq!(path, &format!("/v1/traces?token={TOKEN}"));
        assert!(
            headers
                .iter()
                .any(|(k, v)| k == "authorization" && v.starts_with("Basic ")),
            "{headers:?}"
        );
    }
}

#[test]
fn live_otlp_never_records_the_endpoints_credentials() {
    let failing = Receiver::start(Answer::Status(400));
    let down = refused();
    let dir = tempdir();
    for (what, url) in [("failing", failing.url.as_str()), ("down", down.as_str())] {
        let trace = dir.path().join(format!("{what}.jsonl"));
        let o = run_with_input(
            Command::new(bin())
                .args(["proxy", "--name", "weather", "--trace"])
                .arg(&trace)
                .args(["--otlp-endpoint", &with_credentials(url, "/v1/traces")])
                .args(["--", bin(), "demo-server", "weather"])
                .env("OTEL_EXPORTER_OTLP_TIMEOUT", "500")
                .env("SIGHTLINE_LOG", "debug"),
            SESSION.as_bytes(),
            Duration::from_secs(30),
        );
        let stderr = text(&o.stderr);
        assert!(o.status.success(), "{what}: {stderr}");
        let recorded = std::fs::read_to_string(&trace).expect("trace");
        assert!(
            recorded.contains("OpenTelemetry live export to http://[redacted]@127.0.0.1"),
            "{what}: the note names the endpoint, redacted:\n{recorded}"
        );
        assert_no_secret(&format!("the trace ({what})"), &recorded);
        assert_no_secret(&format!("stderr ({what})"), &stderr);
    }
}

#[test]
fn wrap_refuses_an_otlp_endpoint_with_credentials_and_leaves_the_config() {
    let dir = tempdir();
    let config = dir.path().join("mcp.json");
    let original = r#"{"mcpServers": {"weather": {"command": "node", "args": ["weather.mjs"]}}}"#;
    std::fs::write(&config, original).expect("write");
    for endpoint in [
        format!("http://otel-user:{PASSWORD}@127.0.0.1:4318"),
        format!("http://127.0.0.1:4318/v1/traces?token={TOKEN}"),
    ] {
        let o = run(
            Command::new(bin())
                .arg("wrap")
                .arg(&config)
                .args(["--otlp-endpoint", &endpoint])
                .env("SIGHTLINE_DATA_DIR", dir.path().join("data")),
            Duration::from_secs(20),
        );
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--otlp-header"),
            "says what to do: {stderr}"
        );
        assert_no_secret("stderr", &stderr);
        assert_no_secret("stdout", &text(&o.stdout));
        assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
    }
}
