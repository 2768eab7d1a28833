//! Host overhead per loop iteration, against the embedded scripted model, with a plain
//! `tools/call` round trip measured in the same run as the yardstick.
//!
//! Each run plays `scenarios/weather.toml` through the library (`host::agent::run`) with a
//! [`MemorySink`], so every number comes from the recorded events' timestamps (the trace clock,
//! microseconds), not from a stopwatch around the loop:
//!
//! - **loop**: the first `llm-http` request (host -> llm) to the `host -> user` note;
//! - **model**: the sum over `llm-http` request -> its response (HTTP on 127.0.0.1 plus the
//!   scripted model's answer);
//! - **server**: the sum over `tools/call` request -> its response, as the tap saw them;
//! - **host**: loop - model - server, i.e. everything the host itself does between them
//!   (parsing answers, rmcp client, socket pair to the tap, building the next request,
//!   recording), divided by the number of model turns (2 for weather: call, then reply).
//!
//! The baseline is one long-lived rmcp connection to the same weather server through the same
//! tap, calling `get_weather` a few times after every loop run; its figure is the `tools/call`
//! request -> response time of the recorded events only, the same measure as **server** above.
//! The first call after a loop run finds the server idle, as the one call inside a weather run
//! does; the next ones come back to back. Both are shown, and the host overhead is given as a
//! ratio to each. Loop runs of the three API shapes and baseline calls are interleaved, so load
//! from other processes and drift hit all of them alike.
//!
//! Run with `cargo bench --bench host_loop`.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use sightline::host::agent::{RunOptions, run};
use sightline::host::mcp::McpConnection;
use sightline::host::scenario::{HostOptions, Protocol, Scenario};
use sightline::tap::{MemorySink, Recorder, ServerCommand};
use sightline::trace::{Channel, Event, Lane};
use sightline::wire::api::ApiShape;

const WARMUP: usize = 3;
const RUNS: usize = 30;
/// Baseline `tools/call`s after each loop run: the first follows an idle server (as the one
/// call inside a weather run does), the others come back to back.
const CALLS_PER_RUN: usize = 4;
const SHAPES: [ApiShape; 3] = [ApiShape::Anthropic, ApiShape::Openai, ApiShape::OpenaiChat];

/// One run's figures, in microseconds.
#[derive(Debug, Clone, Copy)]
struct RunFigures {
    total: f64,
    model: f64,
    server: f64,
    turns: usize,
}

impl RunFigures {
    fn host_per_turn(&self) -> f64 {
        (self.total - self.model - self.server) / self.turns as f64
    }
}

fn micros(from: &Event, to: &Event) -> f64 {
    (to.time - from.time)
        .num_microseconds()
        .expect("a run lasts less than 292,000 years") as f64
}

fn json_of(event: &Event) -> Option<Value> {
    serde_json::from_slice(&event.bytes()?).ok()
}

/// `tools/call` request -> response times on stdio, paired by server and JSON-RPC id.
fn tool_call_times(events: &[Event]) -> Vec<f64> {
    let mut open: HashMap<(sightline::trace::Shared, String), &Event> = HashMap::new();
    let mut times = Vec::new();
    for event in events.iter().filter(|e| e.channel == Channel::Stdio) {
        let Some(message) = json_of(event) else {
            continue;
        };
        let id = message.get("id").map(Value::to_string);
        match (&event.from, &event.to, id) {
            (Lane::Host, Lane::Server(server), Some(id))
                if message.get("method").and_then(Value::as_str) == Some("tools/call") =>
            {
                open.insert((server.clone(), id), event);
            }
            (Lane::Server(server), Lane::Host, Some(id)) if message.get("method").is_none() => {
                if let Some(request) = open.remove(&(server.clone(), id)) {
                    times.push(micros(request, event));
                }
            }
            _ => {}
        }
    }
    times
}

/// The loop figures of one recorded run.
fn figures(events: &[Event]) -> RunFigures {
    let llm: Vec<&Event> = events
        .iter()
        .filter(|e| e.channel == Channel::LlmHttp)
        .collect();
    let requests: Vec<&Event> = llm
        .iter()
        .copied()
        .filter(|e| e.from == Lane::Host && e.to == Lane::Llm)
        .collect();
    // The loop is sequential: each request is followed by its response before the next one.
    let mut model = 0.0;
    for pair in llm.chunks(2) {
        match pair {
            [request, response] if request.from == Lane::Host && response.from == Lane::Llm => {
                model += micros(request, response);
            }
            _ => panic!("llm-http events are not request/response pairs"),
        }
    }
    let first = requests.first().expect("at least one LLM request");
    let answer = events
        .iter()
        .find(|e| e.channel == Channel::Note && e.from == Lane::Host && e.to == Lane::User)
        .expect("the host -> user note");
    RunFigures {
        total: micros(first, answer),
        model,
        server: tool_call_times(events).iter().sum(),
        turns: requests.len(),
    }
}

/// One headless run of `scenario` in `shape`, recorded in memory.
async fn one_run(scenario: &Scenario, shape: ApiShape) -> RunFigures {
    let sink = MemorySink::default();
    let recorder = Recorder::start(vec![Box::new(sink.clone())]);
    let options = RunOptions {
        shape: Some(shape),
        ..RunOptions::default()
    };
    let mut quiet = |_: &str| {};
    let outcome = run(scenario, &options, recorder.clone(), &mut quiet)
        .await
        .expect("the weather scenario runs");
    assert!(
        outcome.answer.contains("Seoul"),
        "unexpected answer: {}",
        outcome.answer
    );
    let report = recorder.finish();
    assert!(report.errors.is_empty(), "recording failed");
    let mut events = sink.snapshot();
    events.sort_by_key(|e| e.seq);
    let figures = figures(&events);
    assert_eq!(figures.turns as u32, outcome.model_turns);
    figures
}

fn weather_command() -> (String, Vec<String>) {
    (
        env!("CARGO_BIN_EXE_sightline").to_string(),
        vec!["demo-server".to_string(), "weather".to_string()],
    )
}

fn pct(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn row(label: &str, values: &[f64]) {
    println!(
        "  {label:<34} {:>9.1} {:>9.1}",
        pct(values, 0.5),
        pct(values, 0.9)
    );
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/weather.toml");
    let mut scenario = Scenario::load(std::path::Path::new(path)).expect("load weather.toml");
    // Built-in servers run as `current_exe() demo-server NAME`; here current_exe is this bench.
    let (program, args) = weather_command();
    for server in &mut scenario.servers {
        server.builtin = None;
        server.command = Some(program.clone());
        server.args = args.clone();
    }

    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let (per_shape, baseline, client_side) = runtime.block_on(async {
        let base_sink = MemorySink::default();
        let base_recorder = Recorder::start(vec![Box::new(base_sink.clone())]);
        let connection = McpConnection::connect(
            &ServerCommand::new("weather", program.clone(), args.clone()),
            base_recorder.clone(),
            Protocol::default(),
            Arc::new(HostOptions::default()),
            sightline::host::mcp::DEFAULT_REQUEST_TIMEOUT,
        )
        .await
        .expect("connect to the weather server");
        let arguments: Map<String, Value> = match json!({"location": "Seoul"}) {
            Value::Object(map) => map,
            _ => unreachable!(),
        };

        let mut per_shape: Vec<Vec<RunFigures>> = vec![Vec::new(); SHAPES.len()];
        let mut client_side = Vec::new();
        for round in 0..WARMUP + RUNS {
            for (i, shape) in SHAPES.iter().enumerate() {
                let figures = one_run(&scenario, *shape).await;
                if round >= WARMUP {
                    per_shape[i].push(figures);
                }
                for _ in 0..CALLS_PER_RUN {
                    let start = std::time::Instant::now();
                    connection
                        .call_tool("get_weather", arguments.clone())
                        .await
                        .expect("tools/call");
                    if round >= WARMUP {
                        client_side.push(start.elapsed().as_secs_f64() * 1e6);
                    }
                }
            }
        }
        connection.close().await;
        base_recorder.finish();
        let mut events = base_sink.snapshot();
        events.sort_by_key(|e| e.seq);
        let baseline: Vec<f64> = tool_call_times(&events)
            .into_iter()
            .skip(WARMUP * SHAPES.len() * CALLS_PER_RUN)
            .collect();
        (per_shape, baseline, client_side)
    });

    let nth = |keep: fn(usize) -> bool| -> Vec<f64> {
        (0..baseline.len())
            .filter(|i| keep(i % CALLS_PER_RUN))
            .map(|i| baseline[i])
            .collect()
    };
    let first = nth(|position| position == 0);
    let next = nth(|position| position > 0);
    let (first_median, next_median) = (pct(&first, 0.5), pct(&next, 0.5));
    println!(
        "host loop: scenarios/weather.toml against the scripted model, {RUNS} runs per shape \
         after {WARMUP} warm-ups (microseconds, from recorded event timestamps)"
    );
    println!("  {:<34} {:>9} {:>9}", "", "median", "p90");
    for (shape, runs) in SHAPES.iter().zip(&per_shape) {
        let turns = runs[0].turns;
        let total: Vec<f64> = runs.iter().map(|r| r.total).collect();
        let model: Vec<f64> = runs.iter().map(|r| r.model).collect();
        let server: Vec<f64> = runs.iter().map(|r| r.server).collect();
        let host: Vec<f64> = runs.iter().map(RunFigures::host_per_turn).collect();
        println!("{} ({turns} model turns per run)", shape.as_str());
        row("loop total", &total);
        row("  inside the model (llm-http)", &model);
        row("  inside the server (tools/call)", &server);
        row("host overhead per model turn", &host);
        for (label, base) in [
            ("  / back-to-back tools/call", next_median),
            ("  / first tools/call after idle", first_median),
        ] {
            println!(
                "  {label:<34} {:>9.2} {:>9.2}",
                pct(&host, 0.5) / base,
                pct(&host, 0.9) / base
            );
        }
    }
    println!(
        "baseline: bare rmcp tools/call through the tap, {} calls ({CALLS_PER_RUN} after each loop run)",
        baseline.len()
    );
    row("request -> response events, all", &baseline);
    row("  back-to-back calls", &next);
    row("  first call after idle", &first);
    row("client side (call_tool wall time)", &client_side);
    println!(
        "(ratios: host overhead per model turn, median and p90, over the median of that baseline)"
    );
}
