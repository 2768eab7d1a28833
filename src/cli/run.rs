//! `sightline run SCENARIO`: play the host headless, print the conversation, then the summary.
//!
//! With the scenario's default model (`scripted`) nothing leaves the machine: the scripted model
//! listens on 127.0.0.1 and the servers are built in. Naming a real model sends the requests to
//! the provider (key from `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`) or to `--base-url`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::host::agent::{self, RunOptions};
use crate::host::scenario::{Protocol, SCRIPTED_MODEL, Scenario};
use crate::tap::Recorder;
use crate::trace::{Header, TraceWriter};
use crate::wire::api::ApiShape;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (see scenarios/ and docs/scenarios.md).
    scenario: PathBuf,
    /// Where to write the trace. Default: the scenario's name with `.jsonl`, in the current
    /// directory.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// The LLM API shape. `scripted` is the Anthropic shape against the embedded scripted model.
    #[arg(long, value_name = "PROVIDER")]
    provider: Option<ProviderArg>,
    /// Send requests here instead of the provider's public endpoint (Ollama, vLLM, a gateway).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model; `scripted` (the default of every shipped scenario) is the embedded model.
    #[arg(long)]
    model: Option<String>,
    /// The MCP lifecycle: the 2025-11-25 handshake, 2026-07-28 discover, or auto.
    #[arg(long, value_name = "REVISION")]
    protocol: Option<Protocol>,
    /// Ask for streamed (SSE) responses.
    #[arg(long)]
    stream: bool,
    /// Do not print the summary at the end.
    #[arg(long)]
    no_summary: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ProviderArg {
    Scripted,
    Anthropic,
    Openai,
    OpenaiChat,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let scenario = Scenario::load(&args.scenario)?;
    let (shape, model) = match args.provider {
        Some(ProviderArg::Scripted) => {
            (Some(ApiShape::Anthropic), Some(SCRIPTED_MODEL.to_string()))
        }
        Some(ProviderArg::Anthropic) => (Some(ApiShape::Anthropic), args.model.clone()),
        Some(ProviderArg::Openai) => (Some(ApiShape::Openai), args.model.clone()),
        Some(ProviderArg::OpenaiChat) => (Some(ApiShape::OpenaiChat), args.model.clone()),
        None => (None, args.model.clone()),
    };
    let options = RunOptions {
        shape,
        model,
        base_url: args.base_url.clone(),
        protocol: args.protocol,
        stream: args.stream.then_some(true),
        timeout: None,
    };
    let path = args
        .trace
        .clone()
        .unwrap_or_else(|| agent::default_trace_name(&args.scenario));
    let mut header = Header::new(scenario.title.clone());
    header.extra.insert(
        "scenario".into(),
        serde_json::json!(args.scenario.display().to_string()),
    );
    let writer = TraceWriter::create(&path, &header)?;
    let recorder = Recorder::start(vec![Box::new(writer)]);

    say(&format!("== {}", scenario.title));
    for line in scenario.explanation.trim().lines() {
        say(&format!("   {line}"));
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let mut print = |line: &str| say(line);
    let outcome = runtime.block_on(agent::run(
        &scenario,
        &options,
        recorder.clone(),
        &mut print,
    ));
    let report = recorder.finish();
    for err in &report.errors {
        eprintln!("sightline: warning: {err}");
    }
    drop(runtime);
    let status = match &outcome {
        Ok(done) => {
            say(&format!(
                "== answer ({} model turns, stop: {}): {}",
                done.model_turns, done.stop_reason, done.answer
            ));
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("sightline: run failed: {err}");
            ExitCode::from(super::exit::TROUBLE)
        }
    };
    say(&format!(
        "== trace: {} ({} events)",
        path.display(),
        report.events
    ));
    let loaded = crate::trace::load(&path)?;
    let report = crate::analysis::report(&loaded.events);
    if args.no_summary {
        // What the model was given (tools and their tokens, instructions) is part of the lesson.
        say(crate::export::context::lines(&loaded.events, &report).trim_end());
    } else {
        say(crate::export::summary::text(&loaded.events, &report).trim_end());
    }
    Ok(status)
}

/// Prints a line to stdout; once stdout is gone (`sightline run ... | head`), stops printing
/// quietly and lets the run and its trace finish.
fn say(line: &str) {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    static GONE: AtomicBool = AtomicBool::new(false);
    if GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        GONE.store(true, Ordering::Relaxed);
    }
}
