//! `sightline doctor`: why the model can or cannot see each tool, with the event that proves it.
//!
//! Three inputs, one diagnosis ([`crate::analysis::doctor`]):
//! - a trace (`.jsonl`) or a session folder: diagnosed as it is;
//! - a scenario (`.toml`, or a shipped one's name): run headless first, like `sightline run`, into a trace;
//! - `-- CMD [ARGS...]`: the server is spawned behind the tap and asked what a host asks before
//!   the first LLM request (handshake, then `tools/list`), into a trace; see [`probe`].
//!
//! A recorded trace's path goes to stderr, the report to stdout. Exit status: 0 when every
//! listed and expected tool is (or would be) visible, 1 when one is not or a server listed no
//! tools, 2 on usage and I/O errors.

mod probe;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use crate::analysis::doctor::{self, Diagnosis, DoctorOptions, HostChoice};
use crate::analysis::hosts;
use crate::host::agent::{self, RunOptions};
use crate::host::scenario::{Protocol, Scenario};
use crate::i18n::Words;
use crate::tap::Recorder;
use crate::trace::{Header, TraceWriter};
use crate::wire::api::ApiShape;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A trace (.jsonl) or session folder to diagnose, or a scenario (a .toml file, or a shipped
    /// one's name) to run first and then diagnose.
    #[arg(
        value_name = "TRACE|SCENARIO",
        required_unless_present_any = ["command", "host"],
        conflicts_with = "command"
    )]
    input: Option<PathBuf>,
    /// The provider to judge against when the trace has no LLM request (default anthropic);
    /// for a scenario, the API shape its host uses (default: the scenario's).
    #[arg(long, value_name = "PROVIDER")]
    provider: Option<ApiShape>,
    /// A tool the model should see: its MCP name, `server/tool`, or the name the model sees.
    /// Repeat for several.
    #[arg(long, value_name = "NAME")]
    expect: Vec<String>,
    /// One JSON record per line (each server, then each of its tools) instead of text.
    #[arg(long)]
    json: bool,
    /// Judge by this host's profile (its naming, caps, schema rules, timeouts; sources in
    /// docs/hosts.md) instead of the host the trace shows: claude-code, claude-desktop, cursor,
    /// vscode, codex, gemini-cli, windsurf; `all` for a table of tools by hosts; `list` to
    /// name the profiles; `none` for a default host's rules only.
    #[arg(long, value_name = "HOST|all|list|none")]
    host: Option<String>,
    /// Where a scenario run or a `-- CMD` probe records its trace. Default: a new file in the
    /// temporary directory (its path is printed on stderr).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// The MCP lifecycle for a scenario run or a probe: 2025-11-25 (`initialize`, the probe's
    /// default), 2026-07-28 (`server/discover`) or auto.
    #[arg(long, value_name = "REVISION")]
    protocol: Option<Protocol>,
    /// The server's name in a probe's trace (its lane is `server:NAME`). Default: from the
    /// command.
    #[arg(long)]
    name: Option<String>,
    /// How long a probe waits for each answer, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    timeout_secs: u64,
    #[command(flatten)]
    lang: super::lang::LangArg,
    /// The server command to probe, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let lang = match args.lang.language() {
        Ok(lang) => lang,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let w = crate::i18n::Words::of(lang);
    let host = match host_choice(args.host.as_deref(), w) {
        Ok(host) => host,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let host = match host {
        Host::List => {
            return match super::edges::write_stdout(&host_list(w)) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(err) => Ok(super::exit::trouble(&err)),
            };
        }
        Host::All => None,
        Host::One(choice) => Some(choice),
    };
    if args.input.is_none() && args.command.is_empty() {
        let err = anyhow::anyhow!(w.get("doctor_host.no_input").to_string());
        return Ok(super::exit::trouble(&err));
    }
    let Some(choice) = host else {
        return run_matrix(&args, w);
    };
    let diagnosis = match diagnose(&args, w, choice) {
        Ok(d) => d,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let out = if args.json {
        doctor::json_lines(&diagnosis)
    } else {
        doctor::text_in(&diagnosis, crate::i18n::Words::of(lang))
    };
    if let Err(err) = super::edges::write_stdout(&out) {
        return Ok(super::exit::trouble(&err));
    }
    Ok(super::exit::findings(!diagnosis.all_visible()))
}

/// What `--host` asked for.
enum Host {
    List,
    All,
    One(HostChoice),
}

fn host_choice(host: Option<&str>, w: Words) -> anyhow::Result<Host> {
    Ok(match host {
        None => Host::One(HostChoice::Recognise),
        Some("list") => Host::List,
        Some("all") => Host::All,
        Some("none") => Host::One(HostChoice::None),
        Some(name) => match hosts::find(name) {
            Some(p) => Host::One(HostChoice::Named(p)),
            None => anyhow::bail!(w.fmt(
                "doctor_host.unknown",
                &[("name", name), ("known", &hosts::ids().join(", "))]
            )),
        },
    })
}

/// `--host list`: each profile's id, name, how it is recognised, and its rules with their
/// sources.
fn host_list(w: Words) -> String {
    let mut out = String::new();
    for p in hosts::profiles() {
        let by: Vec<String> = p
            .client_names
            .iter()
            .map(|c| format!("clientInfo `{c}`"))
            .chain(p.user_agents.iter().map(|u| format!("user-agent `{u}…`")))
            .collect();
        out.push_str(&w.fmt(
            "doctor_host.list_line",
            &[("id", &p.id), ("name", &p.name), ("by", &by.join(", "))],
        ));
        out.push('\n');
        for (rule, note, source, date, confidence) in p.rules() {
            let confidence = w.get(confidence.key());
            out.push_str(&format!(
                "  {rule}: {note} ({source}, {date}; {confidence})\n"
            ));
        }
    }
    out
}

/// `--host all`: the tools by hosts table (or its JSON); exit 1 when a tool is hidden under
/// some host.
fn run_matrix(args: &DoctorArgs, w: Words) -> anyhow::Result<ExitCode> {
    let (events, report, options) = match prepare(args, w, HostChoice::Recognise) {
        Ok(x) => x,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let m = doctor::matrix(&events, &report, &options);
    let out = if args.json {
        format!("{}\n", doctor::matrix_json(&m))
    } else {
        doctor::matrix_text(&m, w)
    };
    if let Err(err) = super::edges::write_stdout(&out) {
        return Ok(super::exit::trouble(&err));
    }
    Ok(super::exit::findings(!m.all_visible()))
}

fn diagnose(args: &DoctorArgs, w: Words, host: HostChoice) -> anyhow::Result<Diagnosis> {
    let (events, report, options) = prepare(args, w, host)?;
    let mut diagnosis = doctor::diagnose(&events, &report, &options);
    if args.input.is_none() && args.name.is_none() {
        name_probed_servers(&mut diagnosis, &report);
    }
    Ok(diagnosis)
}

/// The trace to diagnose (recorded first for a scenario or a probe), its analysis and the
/// options.
fn prepare(
    args: &DoctorArgs,
    w: Words,
    host: HostChoice,
) -> anyhow::Result<(
    Vec<crate::trace::Event>,
    crate::analysis::Report,
    DoctorOptions,
)> {
    let mut provider = args.provider.unwrap_or(ApiShape::Anthropic);
    let path = match &args.input {
        Some(input) if is_scenario(input) => {
            let (scenario, _) = Scenario::find(input, &[])?;
            provider = args.provider.unwrap_or(scenario.provider);
            let path = scratch_trace_path(args);
            run_scenario(input, &scenario, args, &path, w)?;
            path
        }
        Some(trace) => trace.clone(),
        None => {
            let path = scratch_trace_path(args);
            run_probe(args, &path, w)?;
            path
        }
    };
    let loaded = super::load_trace(&path)?;
    let report = crate::analysis::report(&loaded.events);
    if args.provider.is_none()
        && let HostChoice::Named(p) = host
    {
        provider = p.api;
    }
    let options = DoctorOptions {
        provider,
        expect: args.expect.clone(),
        host,
    };
    Ok((loaded.events, report, options))
}

/// A probed server is named after its `serverInfo.name`, as a host shows it, rather than
/// after the program that runs it (`server-everything` is `mcp-servers/everything`).
fn name_probed_servers(diagnosis: &mut Diagnosis, report: &crate::analysis::Report) {
    for (lane, session) in &report.rpc.sessions {
        let (crate::trace::Lane::Server(probe), Some(info)) = (lane, &session.server_name) else {
            continue;
        };
        let (probe, info) = (probe.to_string(), info.to_string());
        for s in diagnosis.servers.iter_mut().filter(|s| s.server == probe) {
            s.server = info.clone();
        }
        for t in &mut diagnosis.tools {
            if t.server.as_deref() == Some(probe.as_str()) {
                t.server = Some(info.clone());
            }
        }
    }
}

/// A `.toml` file, or a shipped scenario's name where no file or folder is (`invisible-tool`).
fn is_scenario(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
        || (!path.exists() && crate::host::scenario::Source::of(path).is_ok())
}

/// `--trace`, or a new file in the temporary directory (the doctor's own run is scratch, not a
/// recording to keep: it does not go to the data dir as [`super::edges::trace_path`]'s do).
fn scratch_trace_path(args: &DoctorArgs) -> PathBuf {
    args.trace.clone().unwrap_or_else(|| {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        std::env::temp_dir().join(format!(
            "sightline-doctor-{stamp}-{}.jsonl",
            std::process::id()
        ))
    })
}

fn run_scenario(
    input: &Path,
    scenario: &Scenario,
    args: &DoctorArgs,
    path: &Path,
    w: Words,
) -> anyhow::Result<()> {
    let mut header = Header::new(scenario.title.clone());
    header.extra.insert(
        "scenario".into(),
        serde_json::json!(input.display().to_string()),
    );
    let writer = TraceWriter::create(path, &header)?;
    let (input, shown) = (input.display().to_string(), path.display().to_string());
    eprintln!(
        "{}",
        w.fmt(
            "cli_error.doctor_running",
            &[("input", &input), ("path", &shown)]
        )
    );
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let options = RunOptions {
        shape: args.provider,
        protocol: args.protocol,
        ..RunOptions::default()
    };
    let runtime = super::edges::runtime()?;
    let mut quiet = |_: &str| {};
    let outcome = runtime.block_on(agent::run(scenario, &options, recorder.clone(), &mut quiet));
    super::edges::finish_recording(&recorder);
    drop(runtime);
    if let Err(err) = outcome {
        let error = super::errors::error_in(&err, w);
        eprintln!(
            "{}",
            w.fmt("cli_error.doctor_run_failed", &[("error", &error)])
        );
    }
    Ok(())
}

fn run_probe(args: &DoctorArgs, path: &Path, w: Words) -> anyhow::Result<()> {
    let cmd = super::proxy::server_command(&args.command, args.name.as_ref())?;
    let header = Header::new(format!(
        "sightline doctor -- {}",
        crate::wire::redact_url::redact_argv(&args.command).join(" ")
    ));
    let writer = TraceWriter::create(path, &header)?;
    let shown = path.display().to_string();
    eprintln!(
        "{}",
        w.fmt(
            "doctor_server.probing",
            &[("name", &cmd.name), ("path", &shown)]
        )
    );
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let protocol = args.protocol.unwrap_or(Protocol::V2025_11_25);
    let timeout = Duration::from_secs(args.timeout_secs.max(1));
    let outcome = probe::probe(&cmd, recorder.clone(), protocol, timeout);
    super::edges::finish_recording(&recorder);
    outcome
}
