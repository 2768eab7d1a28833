//! `sightline run SCENARIO`: play the host headless, print the conversation, then the summary.
//!
//! With the scenario's default model (`scripted`) nothing leaves the machine: the scripted model
//! listens on 127.0.0.1 and the servers are built in. Naming a real model sends the requests to
//! the provider (key from `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` / `GEMINI_API_KEY`, else
//! `GOOGLE_API_KEY`) or to `--base-url`. Each `--provider` but `scripted` is also an API shape
//! the scripted model speaks, so the same scenario shows the same `tools/list` become each
//! provider's `tools` parameter.
//!
//! Nothing is left behind and nothing good is lost: each MCP request waits at most
//! `--timeout` for its answer; on Ctrl-C or SIGTERM the servers' process groups are stopped
//! and their exits recorded; the trace is written to a temporary file beside `--trace` and
//! renamed over it only when the run succeeds (a failed run's trace goes to `NAME.failed.jsonl`
//! when `--trace` already exists).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::Args;

use crate::host::agent::{self, RunOptions};
use crate::host::scenario::shipped::SHIPPED;
use crate::host::scenario::{Protocol, SCRIPTED_MODEL, Scenario};
use crate::i18n::Words;
use crate::tap::Recorder;
use crate::trace::{Header, TraceWriter};
use crate::wire::api::ApiShape;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario: a shipped one's name (`weather`; `--list` names them) or a scenario
    /// file (docs/scenarios.md).
    #[arg(required_unless_present = "list")]
    scenario: Option<PathBuf>,
    /// Name the shipped scenarios, with their titles, and run nothing.
    #[arg(long, conflicts_with = "scenario")]
    list: bool,
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
    #[command(flatten)]
    lang: super::lang::LangArg,
    /// How long each MCP request waits for the server's answer (`30s`, `500ms`, `2m`).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    timeout: Duration,
    /// Serve the model's responses recorded in TRACE, in order, instead of asking a model, and
    /// report the turn at which the loop diverged from the recording (exit 1 if it did).
    #[arg(long, value_name = "TRACE")]
    replay_model: Option<PathBuf>,
    #[command(flatten)]
    live: super::otlp::LiveArgs,
    /// Change one value of the scenario for this run, without editing it:
    /// `--set host.prefix=never`, `--set host.refetch_on_list_changed=false`. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

/// `run --list`: each shipped scenario's name and its title in `lang`.
fn list(words: Words, lang: crate::i18n::Language) -> anyhow::Result<ExitCode> {
    let mut out = words.get("run_text.list_head").to_string();
    out.push('\n');
    let width = SHIPPED.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for shipped in SHIPPED {
        let scenario = shipped.load()?;
        let title = scenario.title_in(words.strings, lang, shipped.name);
        out.push_str(&format!("  {:<width$}  {title}\n", shipped.name));
    }
    if let Err(err) = super::edges::write_stdout(&out) {
        return Ok(super::exit::trouble(&err));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ProviderArg {
    Scripted,
    Anthropic,
    Openai,
    OpenaiChat,
    Gemini,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let lang = args.lang.language()?;
    let words = Words::of(lang);
    let Some(arg) = args.scenario.as_deref() else {
        return list(words, lang);
    };
    let (scenario, source) = Scenario::find(arg, &args.set)?;
    let stem = source.name();
    let (shape, model) = match args.provider {
        Some(ProviderArg::Scripted) => {
            (Some(ApiShape::Anthropic), Some(SCRIPTED_MODEL.to_string()))
        }
        Some(ProviderArg::Anthropic) => (Some(ApiShape::Anthropic), args.model.clone()),
        Some(ProviderArg::Openai) => (Some(ApiShape::Openai), args.model.clone()),
        Some(ProviderArg::OpenaiChat) => (Some(ApiShape::OpenaiChat), args.model.clone()),
        Some(ProviderArg::Gemini) => (Some(ApiShape::Gemini), args.model.clone()),
        None => (None, args.model.clone()),
    };
    let options = RunOptions {
        shape,
        model,
        base_url: args.base_url.clone(),
        protocol: args.protocol,
        stream: args.stream.then_some(true),
        timeout: None,
        mcp_timeout: Some(args.timeout),
        cassette: match &args.replay_model {
            Some(trace) => Some(super::replay_model::cassette(trace)?),
            None => None,
        },
        lang,
        user: None,
    };
    let path = args
        .trace
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{stem}.jsonl")));
    let mut header = Header::new(scenario.title.clone());
    header.extra.insert(
        "scenario".into(),
        serde_json::json!(arg.display().to_string()),
    );
    let staging = staging_path(&path);
    let writer = TraceWriter::create(staging.as_deref().unwrap_or(&path), &header)?;
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let live = args.live.start(&recorder, &header)?;

    say(&format!(
        "== {}",
        scenario.title_in(words.strings, lang, &stem)
    ));
    for line in scenario
        .explanation_in(words.strings, lang, &stem)
        .trim()
        .lines()
    {
        say(&format!("   {line}"));
    }
    let runtime = super::edges::runtime()?;
    let mut print = |line: &str| say(line);
    let ended = runtime.block_on(async {
        // Listen for the signals before any server starts, so none can orphan it.
        let stop = super::edges::stop_signal();
        tokio::select! {
            outcome = agent::run(&scenario, &options, recorder.clone(), &mut print) => Ok(outcome),
            // Dropping the run stops its servers (see host::mcp) and records their exits.
            signal = stop => Err(signal),
        }
    });
    if let Err(signal) = ended {
        let name = crate::trace::signal_name(signal);
        recorder.record_note(
            crate::trace::Lane::User,
            crate::trace::Lane::Host,
            &format!("sightline run: stopped by {name}; the servers were stopped"),
        );
    }
    super::otlp::finish(live);
    let report = super::edges::finish_recording(&recorder);
    drop(runtime);
    let status = match &ended {
        Err(signal) => {
            let name = crate::trace::signal_name(*signal);
            eprintln!(
                "{}",
                words.fmt("cli_error.run_stopped", &[("signal", name)])
            );
            ExitCode::from(u8::try_from(128 + signal).unwrap_or(1))
        }
        Ok(Ok(done)) => {
            let turns = done.model_turns.to_string();
            let args = [
                ("turns", turns.as_str()),
                ("stop", done.stop_reason.as_str()),
                ("answer", done.answer.as_str()),
            ];
            say(&words.fmt("run_text.answer", &args));
            ExitCode::SUCCESS
        }
        Ok(Err(err)) => {
            let error = super::errors::error_in(err, words);
            eprintln!(
                "{}",
                words.fmt("cli_error.run_failed", &[("error", &error)])
            );
            ExitCode::from(super::exit::TROUBLE)
        }
    };
    let succeeded = matches!(ended, Ok(Ok(_)));
    let path = keep_trace(staging, &path, succeeded, words)?;
    let (shown, count) = (path.display().to_string(), report.events.to_string());
    say(&words.fmt("run_text.trace", &[("path", &shown), ("count", &count)]));
    let loaded = crate::trace::load(&path)?;
    let report = crate::analysis::report(&loaded.events);
    if args.no_summary {
        // What the model was given (tools and their tokens, instructions) is part of the lesson.
        say(crate::export::context::lines_in(&loaded.events, &report, words).trim_end());
    } else {
        say(crate::export::summary::text_in(&loaded.events, &report, lang).trim_end());
    }
    if let Some(recorded) = &args.replay_model {
        let diverged = super::replay_model::report(recorded, &path, lang)?;
        if diverged && succeeded {
            return Ok(ExitCode::from(1));
        }
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

/// Where the trace is written while the run lasts: a hidden file beside `path`, unless
/// `path` is something other than a regular file (`/dev/stdout`), which is written directly.
fn staging_path(path: &Path) -> Option<PathBuf> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return None;
    }
    let name = path.file_name()?.to_string_lossy();
    Some(path.with_file_name(format!(".{name}.sightline-tmp-{}", std::process::id())))
}

/// Moves the staged trace into place: over `path` when the run succeeded or `path` does not
/// exist; else beside it as `NAME.failed.jsonl`, so a good trace is never replaced by a
/// failed run's. Returns where the trace is.
fn keep_trace(
    staging: Option<PathBuf>,
    path: &Path,
    succeeded: bool,
    words: Words,
) -> anyhow::Result<PathBuf> {
    let Some(staging) = staging else {
        return Ok(path.to_path_buf());
    };
    let target = if succeeded || !path.exists() {
        path.to_path_buf()
    } else {
        let stem = path
            .file_stem()
            .map_or("trace".into(), |s| s.to_string_lossy());
        let failed = path.with_file_name(format!("{stem}.failed.jsonl"));
        let (kept, failed_at) = (path.display().to_string(), failed.display().to_string());
        eprintln!(
            "{}",
            words.fmt(
                "cli_error.trace_kept",
                &[("path", &kept), ("failed", &failed_at)]
            )
        );
        failed
    };
    std::fs::rename(&staging, &target).within(|| {
        Said::new("cli_error.move_trace")
            .with("from", staging.display())
            .with("to", target.display())
    })?;
    Ok(target)
}

/// `30s`, `500ms`, `2m`, or a number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try 30s, 500ms or 2m)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        _ => return Err(format!("`{text}`: the unit must be ms, s or m")),
    };
    if !(seconds > 0.0 && seconds < 1e9) {
        return Err(format!("`{text}` must be more than zero"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_unit() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("5h").unwrap_err().contains("unit"));
        assert!(parse_duration("soon").is_err());
    }
}
