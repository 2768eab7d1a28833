//! Gemini through `sightline llm-proxy`, as Gemini CLI reaches it with only
//! `GOOGLE_GEMINI_BASE_URL` set: the paths `/v1beta/models/<model>:generateContent` and
//! `:streamGenerateContent` (SSE with `?alt=sse`, a JSON array without) go upstream unchanged,
//! the bytes come back identical, and the trace holds them with the key (`x-goog-api-key` or
//! `?key=`) redacted; the analysis reads the recorded exchanges as Gemini.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use sightline::host::scripted::{Script, ScriptedModel};
use sightline::wire::api::ApiShape;

use crate::llm_proxy::{llm_events, start_proxy, stop};
use crate::util::{self, header};

const SCRIPT: &str = r#"
[[script]]
say = "Let me check."
call = [{ tool = "get_weather", arguments = { location = "Seoul" } }]
"#;

/// What Gemini CLI sends its key as (the header), and what a `curl` user puts in the URL.
const HEADER_KEY: &str = "AIzaSyHEADER-SECRET-0123456789";
const QUERY_KEY: &str = "AIzaSyQUERY-SECRET-0123456789";

#[test]
fn gemini_paths_pass_through_llm_proxy_unchanged_and_are_read() {
    let dir = util::tempdir();
    let trace = dir.path().join("gemini.jsonl");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let model = runtime
        .block_on(ScriptedModel::start(
            Script::from_toml(SCRIPT).expect("script"),
            SocketAddr::from(([127, 0, 0, 1], 0)),
        ))
        .expect("scripted model");
    let upstream = model.base_url();
    let (proxy, port) = start_proxy(&upstream, &trace);
    // What GOOGLE_GEMINI_BASE_URL is set to: the proxy's root, nothing else.
    let base = format!("http://127.0.0.1:{port}");
    let client = sightline::tap::client::http()
        .no_proxy()
        .build()
        .expect("client");
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Weather in Seoul?"}]}],
        "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "d",
            "parametersJsonSchema": {"type": "object", "properties": {
                "location": {"type": "string"}, "wait_for_previous": {"type": "boolean"}}}}]}],
        "generationConfig": {"temperature": 0}
    });
    let bytes = serde_json::to_vec(&body).expect("json");
    let paths = [
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".to_string(),
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent".to_string(),
        format!("/v1/models/gemini-2.5-flash:generateContent?key={QUERY_KEY}"),
    ];
    let send = |root: &str, path: &str| {
        let request = client
            .post(format!("{root}{path}"))
            .header("content-type", "application/json")
            .header("x-goog-api-key", HEADER_KEY)
            .body(bytes.clone());
        runtime.block_on(async {
            let response = request.send().await.expect("POST");
            let status = response.status().as_u16();
            let kind = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            (status, kind, response.bytes().await.expect("body").to_vec())
        })
    };
    let mut received = Vec::new();
    for path in &paths {
        let direct = send(&upstream, path);
        let through = send(&base, path);
        assert_eq!(
            through.0,
            200,
            "{path}: {}",
            String::from_utf8_lossy(&through.2)
        );
        assert_eq!((through.0, &through.1), (direct.0, &direct.1), "{path}");
        // The scripted model's answer holds no clock: the bytes are the same both ways.
        assert_eq!(through.2, direct.2, "{path}: the body changed on the way");
        received.push(through.2);
    }
    // The streamed round trip, direct and through the proxy, for the record.
    let time = |root: &str| {
        let start = std::time::Instant::now();
        for _ in 0..50 {
            send(root, &paths[0]);
        }
        start.elapsed() / 50
    };
    let (direct, through) = (time(&upstream), time(&base));
    eprintln!(
        "llm-proxy Gemini SSE round trip (mean of 50): direct {direct:?}, through the proxy \
         {through:?}, added {:?}",
        through.saturating_sub(direct)
    );
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8");
    assert!(text(&received[0]).starts_with("data: "), "SSE with alt=sse");
    assert!(
        text(&received[1]).starts_with('['),
        "a JSON array without alt"
    );
    assert!(text(&received[2]).starts_with('{'), "a whole body");

    // The three exchanges, then the 50 timed ones through the proxy.
    let events = llm_events(&trace, 2 * (paths.len() + 50));
    assert_eq!(events.len(), 2 * (paths.len() + 50));
    for (n, path) in paths.iter().enumerate() {
        let (request, response) = (&events[2 * n], &events[2 * n + 1]);
        let info = request.http().expect("http info");
        let recorded = path.replace(QUERY_KEY, "[redacted]");
        assert_eq!(
            info.url.as_deref(),
            Some(format!("{upstream}{recorded}").as_str())
        );
        assert_eq!(header(request, "x-goog-api-key"), Some("[redacted]"));
        assert_eq!(request.bytes().as_deref(), Some(&bytes[..]), "{path}");
        assert_eq!(
            response.bytes().as_deref(),
            Some(&received[n][..]),
            "{path}"
        );
    }
    let stderr = stop(proxy);
    let file = std::fs::read_to_string(&trace).expect("trace");
    for secret in [HEADER_KEY, QUERY_KEY, "SECRET"] {
        assert!(!file.contains(secret), "`{secret}` reached the trace");
        assert!(!stderr.contains(secret), "`{secret}` reached the log");
    }

    // Read back: each exchange is Gemini, with its tool, its call and the stop reason.
    let loaded = util::load(&trace);
    let report = sightline::analysis::report(&loaded.events);
    assert_eq!(report.llm.len(), 53);
    for (x, streamed) in report.llm.iter().zip([true, true, false]) {
        assert_eq!(x.shape, Some(ApiShape::Gemini));
        assert_eq!(x.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(x.tools, ["get_weather"]);
        assert_eq!(x.streamed, streamed);
        assert_eq!(x.problem, None);
        assert_eq!(x.stop_reason.as_deref(), Some("STOP"));
        let calls: Vec<&str> = x.tool_calls.iter().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(calls, ["get_weather#1"]);
        assert_eq!(x.text, "Let me check.");
    }
    let out = util::run(
        Command::new(util::bin()).arg("summary").arg(&trace),
        Duration::from_secs(20),
    );
    let summary = util::text(&out.stdout);
    for line in [
        "gemini request: 1 tool [get_weather]",
        "(streamed)",
        "get_weather [get_weather#1]",
    ] {
        assert!(summary.contains(line), "no `{line}` in:\n{summary}");
    }
    assert!(!summary.contains("? request"), "{summary}");
    runtime.block_on(model.shutdown());
}
