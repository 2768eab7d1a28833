//! Full schema validation of a large trace: `trace::analyze` plus
//! `analysis::conformance::validate` over a synthesized 100,000-event trace.
//!
//! The trace is two servers seen by one host, one per revision, so both the draft-07-era
//! handshake and 2026-07-28 per-request `_meta` are exercised:
//! - `server:weather` (2025-11-25, `initialize`), `server:tour` (2026-07-28, `server/discover`);
//! - then, round after round until 100,000 events: `tools/list` and its result (four tools),
//!   two `tools/call`s with their results (text; text plus a small image), progress and log
//!   notifications, a `notifications/tools/list_changed`, a `ping`; on the 2026 server the same
//!   with `_meta`, `resultType`, `ttlMs` and `cacheScope`.
//!
//! Every message is valid, so the figure is the price of validating clean traffic (the common
//! case); a second pass over the same events shows the warm figure (validators compiled and
//! cached by the first). It also times `analysis::report` (LLM exchanges, chains, tool views),
//! which the doctor runs too, and `analyze + validate` together.
//!
//! Run with `cargo bench --bench doctor_validate`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline::analysis::{conformance, doctor, report};
use sightline::trace::{Channel, Event, Lane, analyze};

const EVENTS: usize = 100_000;
const RUNS: usize = 3;

const META_2026: &str = "io.modelcontextprotocol/protocolVersion";

fn tools() -> Value {
    let tool = |name: &str, description: &str, prop: &str| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {
                "type": "object",
                "properties": {prop: {"type": "string", "description": format!("The {prop}")}},
                "required": [prop],
            },
            "annotations": {"readOnlyHint": true},
        })
    };
    json!([
        tool(
            "get_weather",
            "Get current weather information for a location",
            "location"
        ),
        tool(
            "get_forecast",
            "Get a three-day forecast for a location",
            "location"
        ),
        tool(
            "convert_units",
            "Convert a temperature between Celsius and Fahrenheit",
            "value"
        ),
        tool(
            "search_places",
            "Find places whose name matches a query",
            "query"
        ),
    ])
}

struct Builder {
    events: Vec<Event>,
    t0: chrono::DateTime<chrono::Utc>,
}

impl Builder {
    fn push(&mut self, from: Lane, to: Lane, v: &Value) {
        let seq = self.events.len() as u64;
        let time = self.t0 + chrono::Duration::microseconds(seq as i64 * 50);
        self.events.push(Event::with_bytes(
            seq,
            time,
            from,
            to,
            Channel::Stdio,
            serde_json::to_vec(v).expect("json"),
        ));
    }
}

fn synthesize(n: usize) -> Vec<Event> {
    let mut b = Builder {
        events: Vec::with_capacity(n + 64),
        t0: chrono::Utc::now(),
    };
    let h = Lane::Host;
    let w = Lane::server("weather");
    let t = Lane::server("tour");
    let tools = tools();
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    // Handshakes.
    b.push(h.clone(), w.clone(), &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}));
    b.push(
        w.clone(),
        h.clone(),
        &json!({"jsonrpc":"2.0","id":0,"result":{
        "protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},
        "serverInfo":{"name":"weather","version":"1"}}}),
    );
    b.push(
        h.clone(),
        w.clone(),
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    let meta = json!({META_2026: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    b.push(
        h.clone(),
        t.clone(),
        &json!({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":meta}}),
    );
    b.push(t.clone(), h.clone(), &json!({"jsonrpc":"2.0","id":0,"result":{"resultType":"complete",
        "supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public",
        "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tour","version":"1"}}}}));

    let mut id = 1u64;
    while b.events.len() < n {
        // 2025-11-25 server.
        b.push(
            h.clone(),
            w.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"tools/list"}),
        );
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","id":id,"result":{"tools":tools}}),
        );
        id += 1;
        b.push(
            h.clone(),
            w.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"get_weather","arguments":{"location":"Seoul"},"_meta":{"progressToken":id}}}),
        );
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","method":"notifications/progress","params":{
            "progressToken":id,"progress":1,"total":2}}),
        );
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","method":"notifications/message","params":{
            "level":"info","logger":"weather","data":"fetching Seoul"}}),
        );
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","id":id,"result":{
            "content":[{"type":"text","text":"Seoul: 15C, partly cloudy"}],"isError":false}}),
        );
        id += 1;
        b.push(
            h.clone(),
            w.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"get_forecast","arguments":{"location":"Busan"}}}),
        );
        b.push(w.clone(), h.clone(), &json!({"jsonrpc":"2.0","id":id,"result":{"content":[
            {"type":"text","text":"Busan: sunny"},{"type":"image","data":image,"mimeType":"image/png"}]}}));
        id += 1;
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}),
        );
        b.push(
            h.clone(),
            w.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"ping"}),
        );
        b.push(
            w.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","id":id,"result":{}}),
        );
        id += 1;

        // 2026-07-28 server.
        b.push(
            h.clone(),
            t.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"_meta":meta}}),
        );
        b.push(
            t.clone(),
            h.clone(),
            &json!({"jsonrpc":"2.0","id":id,"result":{
            "resultType":"complete","tools":tools,"ttlMs":0,"cacheScope":"private"}}),
        );
        id += 1;
        b.push(
            h.clone(),
            t.clone(),
            &json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"get_weather","arguments":{"location":"Seoul"},"_meta":meta}}),
        );
        b.push(t.clone(), h.clone(), &json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete",
            "content":[{"type":"text","text":"Seoul: 15C"}],"structuredContent":{"temperature":15}}}));
        id += 1;
    }
    b.events.truncate(n);
    b.events
}

fn rate(n: usize, d: Duration) -> String {
    format!(
        "{:>9.0} events/s ({:>7.1} ms)",
        n as f64 / d.as_secs_f64(),
        d.as_secs_f64() * 1e3
    )
}

fn best<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

fn main() {
    let events = synthesize(EVENTS);
    let n = events.len();
    let bytes: usize = events
        .iter()
        .map(|e| e.raw.as_deref().map_or(0, str::len))
        .sum();
    println!(
        "doctor_validate: {n} events, {:.1} MB of JSON-RPC",
        bytes as f64 / 1e6
    );

    // Cold: the first validation compiles the validators it needs.
    let analysis = analyze(&events);
    let start = Instant::now();
    let cold = conformance::check(&events, &analysis);
    let cold_time = start.elapsed();
    assert!(
        cold.violations.is_empty(),
        "synthesized traffic is valid: {:#?}",
        &cold.violations[..cold.violations.len().min(5)]
    );
    assert!(cold.unknown.is_empty(), "{:?}", cold.unknown);

    let (analyze_time, analysis) = best(|| analyze(black_box(&events)));
    let (validate_time, result) = best(|| conformance::check(black_box(&events), &analysis));
    let (both_time, _) = best(|| {
        let a = analyze(black_box(&events));
        conformance::validate(&events, &a)
    });
    let (report_time, _) = best(|| report(black_box(&events)));
    let options = doctor::DoctorOptions {
        provider: sightline::wire::api::ApiShape::Anthropic,
        expect: Vec::new(),
        ..doctor::DoctorOptions::default()
    };
    let (doctor_time, _) = best(|| {
        let r = report(black_box(&events));
        let diagnosis = doctor::diagnose(&events, &r, &options);
        let violations = conformance::validate(&events, &r.rpc);
        (diagnosis, violations)
    });

    println!(
        "  messages checked: {} against {} definitions",
        result.checked,
        result.definitions.len()
    );
    println!("  analyze             {}", rate(n, analyze_time));
    println!("  validate (cold)     {}", rate(n, cold_time));
    println!("  validate (warm)     {}", rate(n, validate_time));
    println!("  analyze + validate  {}", rate(n, both_time));
    println!("  report (doctor's)   {}", rate(n, report_time));
    println!("  doctor + validation {}", rate(n, doctor_time));
}
