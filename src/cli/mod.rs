//! The command line: arguments parsed into settings, then handed to the module that does the work.
//!
//! Every command's own output goes to stdout; diagnostics go to stderr through `tracing`. The
//! proxy is the exception that proves the rule: its stdout belongs to the MCP client, so it
//! writes nothing there but the server's bytes.

mod check;
mod diff;
mod doctor;
mod edges;
mod errors;
pub mod exit;
mod export;
mod filter;
mod import;
mod lang;
mod llm_proxy;
mod man;
mod mock;
mod otlp;
mod pins;
mod poison;
mod proxy;
mod replay;
mod replay_model;
mod run;
mod serve;
mod session;
mod stats;
mod validate;
mod wrap;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Makes the Model Context Protocol visible: records every message \
between a host, its model and its MCP servers, byte for byte."
)]
struct Cli {
    /// Without a command, the app opens and runs the `weather` scenario live.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// A transparent stdio proxy: put it in place of a server command in any host's config.
    ///
    /// Example: `sightline proxy --trace weather.jsonl -- node weather-server.mjs`; for a server
    /// over Streamable HTTP: `sightline proxy --http --listen 127.0.0.1:8787 --upstream
    /// http://127.0.0.1:3001/mcp --trace weather.jsonl`
    Proxy(proxy::ProxyArgs),
    /// A recording reverse proxy for LLM APIs (Anthropic Messages, OpenAI Responses and Chat
    /// Completions, compatible servers): requests and responses pass unchanged, streams flow
    /// as they arrive, API keys are never recorded.
    ///
    /// Example: `sightline llm-proxy --listen 127.0.0.1:8788 --upstream https://api.anthropic.com
    /// --trace claude.jsonl`, then `ANTHROPIC_BASE_URL=http://127.0.0.1:8788 claude`
    LlmProxy(llm_proxy::LlmProxyArgs),
    /// Play the host headless: run a scenario, print the conversation and the summary.
    ///
    /// Example: `sightline run weather` (a shipped scenario; `--list` names them), or
    /// `sightline run my-scenario.toml --trace my.jsonl`
    Run(run::RunArgs),
    /// Serve the scripted model of a scenario on its own, for another host to use.
    ScriptedModel {
        /// The scenario whose `[[script]]` the model follows: a shipped one's name or a file.
        #[arg(long)]
        scenario: PathBuf,
        /// Address to listen on (loopback by default).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
    },
    /// Draw a trace as a sequence diagram (Mermaid text or a standalone SVG), export it as
    /// OpenTelemetry spans (OTLP/JSON to a file, OTLP/HTTP to a tracing backend), or write the
    /// app's viewer and the trace as one HTML file that opens from disk with no network.
    ///
    /// Examples: `sightline export weather.jsonl --format svg --out weather.svg`,
    /// `sightline export weather.jsonl --format otlp --endpoint http://127.0.0.1:4318`,
    /// `sightline export weather.jsonl --format html --out weather.html --lang pt`
    Export(export::ExportArgs),
    /// Serve the web viewer and a trace or session folder over HTTP, followed live, read-only.
    ///
    /// Example: `sightline serve "$(sightline session path demo)" --listen 0.0.0.0:6300` (off
    /// the loopback every request needs the token printed in the URL)
    Serve(serve::ServeArgs),
    /// Open a saved trace in the app (sequence diagram, inspector, teaching mode), or two side
    /// by side.
    ///
    /// Examples: `sightline open weather.jsonl`; `sightline open weather-2025.jsonl
    /// weather-2026.jsonl` (the same scenario under two revisions, differences named). With no
    /// command at all, the app opens and runs the `weather` scenario live.
    Open {
        /// The trace file (JSON Lines), or a session folder.
        trace: PathBuf,
        /// A second trace, shown beside the first in two synchronised diagrams.
        #[arg(conflicts_with = "follow")]
        other: Option<PathBuf>,
        /// Keep reading it as proxies write it: new events appear live (live attach).
        #[arg(long)]
        follow: bool,
        /// The app's language: en, pt or es (default: the one last picked in the app, else
        /// from LC_ALL, LC_MESSAGES or LANG, else en).
        #[arg(long, value_name = "LANG")]
        lang: Option<String>,
    },
    /// Sessions: the traces several proxies started with the same `--session NAME` write
    /// together (an external host's LLM requests and its servers' traffic), seen as one.
    ///
    /// Examples: `sightline session list`, `sightline session watch demo`,
    /// `sightline session merge demo --trace demo.jsonl`, `sightline doctor $(sightline session
    /// path demo)`.
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Why the model can or cannot see each tool: one finding per server and tool, with the
    /// event that proves it and a fix (codes in docs/doctor.md).
    ///
    /// Examples: `sightline doctor weather.jsonl`, `sightline doctor invisible-tool` (a shipped scenario),
    /// `sightline doctor --provider openai -- npx -y @modelcontextprotocol/server-everything`.
    /// Exit status 1 when a listed or expected tool is not visible, 2 on usage or I/O errors.
    Doctor(doctor::DoctorArgs),
    /// A trace as a CI gate: expected, forbidden and visible tools, latency and token
    /// limits, and finding classes (errors, schema violations, drift, poisoning, hidden tools,
    /// deprecated features, secrets); text, JUnit or SARIF.
    ///
    /// Example: `sightline check run.jsonl --forbid-tool delete_repo --expect-visible
    /// get_weather --format junit --out check.xml` (exit status 1 when a test fails)
    Check(check::CheckArgs),
    /// Send a recorded client session again to a live server and compare each answer with
    /// the recorded one (structurally; ids, progress tokens and `_meta` times ignored).
    ///
    /// Example: `sightline replay session.jsonl -- node build/server.js` (exit status 1 when an
    /// answer differs, 2 when the replay could not be done)
    Replay(replay::ReplayArgs),
    /// Serve a trace's recorded server again as a live MCP server (stdio, or Streamable HTTP
    /// with --http): each request answered with its recorded answer, matched by method and
    /// params, under the caller's id; an unrecorded one gets an error naming the nearest.
    ///
    /// Example: `sightline mock weather.jsonl` in a host's config in place of the server
    /// command, or `sightline mock weather.jsonl --http --listen 127.0.0.1:3001` (then
    /// `http://127.0.0.1:3001/mcp`)
    Mock(mock::MockArgs),
    /// What changed between two recordings: tools, prompts, resources, instructions,
    /// capabilities, what the model was sent, and each call's outcome and latency.
    ///
    /// Example: `sightline diff before.jsonl after.jsonl --exit-code` (exit status 1 on a
    /// removal, a changed definition, a worse outcome or a slowdown; 2 when a trace cannot be
    /// read)
    Diff(diff::DiffArgs),
    /// Tool pinning and rug pulls: pin tool definitions, list or forget pins, and check a
    /// trace against them and within itself.
    ///
    /// Examples: `sightline pins accept day1.jsonl`, `sightline pins check day7.jsonl` (exit
    /// status 1 on a rug pull), `sightline pins forget rugpull/get_fact`. The pin file is
    /// `--pins FILE`, else $SIGHTLINE_PINS, else pins.json in the user's data directory.
    Pins(pins::PinsArgs),
    /// Poisoning highlights in a trace's tool definitions and server instructions: hidden
    /// Unicode, text addressed to the model, references to keys and other tools. Local only.
    ///
    /// Example: `sightline poison tool-poisoning.jsonl` (exit status 1 on a warning or danger)
    Poison(poison::PoisonArgs),
    /// Print a trace one line per event, in the style `C->S initialize 2025-11-25`.
    Summary {
        /// The trace file (JSON Lines).
        trace: PathBuf,
        /// One derived JSON record per event instead of text.
        #[arg(long)]
        json: bool,
        /// Only the events this display filter keeps, e.g. `method:tools/call and
        /// latency:>100ms` (fields: method, tool, server, lane, dir, kind, status, latency,
        /// rev, seq; free text; and, or, not, parentheses).
        #[arg(long, value_name = "EXPR")]
        filter: Option<String>,
        #[command(flatten)]
        lang: lang::LangArg,
    },
    /// Numbers of a trace: counts, errors and error rate, latency p50/p95/p99/max per method,
    /// tool, server and model; each LLM request's tool tokens and time to its first and last
    /// byte; the busiest second.
    ///
    /// Example: `sightline stats weather.jsonl --by tool,server`, `sightline stats run.jsonl
    /// --json`
    Stats(stats::StatsArgs),
    /// Check every message of a trace against the official MCP JSON Schema of its revision.
    ///
    /// Example: `sightline validate weather.jsonl` (exit status 1 when a message violates it)
    Validate(validate::ValidateArgs),
    /// Put every server of a host's MCP config behind a proxy: stdio ones behind `sightline
    /// proxy`, HTTP ones behind a local HTTP proxy that `--serve` runs (or take them back out
    /// with --undo), keeping a backup and every other field.
    ///
    /// Example: `sightline wrap ~/.config/Claude/claude_desktop_config.json --trace-dir traces`
    Wrap(wrap::WrapArgs),
    /// Turn another tool's recording into a trace: Claude Desktop MCP logs, MCP Inspector
    /// exports, HAR files.
    ///
    /// Example: `sightline import claude-desktop mcp-server-weather.log --trace weather.jsonl`
    Import(import::ImportArgs),
    /// Run a built-in demo MCP server on stdin/stdout (or Streamable HTTP with --http): weather,
    /// tour, poisoned, rugpull, oddnames, forecast, media, hostrules, crowd.
    ///
    /// Example: `sightline demo-server weather --http --listen 127.0.0.1:3001` (then
    /// `http://127.0.0.1:3001/mcp`)
    DemoServer {
        /// Which server: weather (the seed article's), tour (every primitive), poisoned (tool
        /// poisoning), rugpull (a definition that changes after first use), oddnames (names
        /// the LLM APIs reject), forecast (a second `get_weather`), media (an image, audio and
        /// an error as results), hostrules (one tool per real host's rule), crowd (130 tools).
        name: String,
        /// Serve Streamable HTTP at `http://LISTEN/mcp` instead of stdio, until Ctrl-C.
        #[arg(long)]
        http: bool,
        /// Where to listen with --http (port 0: any free port, printed on stderr).
        #[arg(long, default_value = "127.0.0.1:0", requires = "http")]
        listen: std::net::SocketAddr,
        /// Wait this long before serving, like a server that downloads or loads something at
        /// start: a host's startup timeout can be watched (`doctor --host codex`).
        #[arg(long, value_name = "MS", default_value_t = 0)]
        start_delay_ms: u64,
        /// List the tools in pages of N (a `nextCursor` on each page but the last), like a
        /// server with many tools: a host that reads only the first page can be watched
        /// (`doctor --host claude-code`). hostrules and crowd only.
        #[arg(long, value_name = "N")]
        page_size: Option<usize>,
    },
    /// Print a completion script for a shell, so a class's terminals complete commands,
    /// flags and scenario files.
    ///
    /// Example: `sightline completions bash > ~/.local/share/bash-completion/completions/sightline`,
    /// `sightline completions zsh > ~/.zfunc/_sightline`, `sightline completions fish >
    /// ~/.config/fish/completions/sightline.fish`
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Write the man pages (sightline.1, sightline-COMMAND.1) into DIR, for packages.
    #[command(hide = true)]
    Man {
        /// The folder to write them in (made if missing).
        dir: PathBuf,
    },
}

/// The command line's definition, for what describes it (shell completions, man pages).
fn definition() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Parses the command line, runs the command, and turns its outcome into an exit status.
pub fn main() -> ExitCode {
    init_tracing();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => exit::trouble(&err),
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SIGHTLINE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a log file or a pipe gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Some(command) = cli.command else {
        return crate::ui::launch(crate::ui::Start::Live);
    };
    match command {
        Command::Open {
            trace,
            other,
            follow,
            lang,
        } => {
            let lang = lang.as_deref().map(lang::parse).transpose()?;
            let start = match other {
                Some(other) => crate::ui::Start::Compare(trace, other),
                None if follow => crate::ui::Start::Follow(trace),
                None => crate::ui::Start::Open(trace),
            };
            crate::ui::desktop::launch_in(start, lang)
        }
        Command::Session(command) => session::run(command),
        Command::Proxy(args) => proxy::run(args),
        Command::LlmProxy(args) => llm_proxy::run(args),
        Command::Run(args) => run::run(args),
        Command::ScriptedModel { scenario, listen } => scripted_model(&scenario, listen),
        Command::Export(args) => export::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Check(args) => check::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Mock(args) => mock::run(args),
        Command::Pins(args) => pins::run(args),
        Command::Poison(args) => poison::run(args),
        Command::Summary {
            trace,
            json,
            filter,
            lang,
        } => summary(&trace, json, filter.as_deref(), lang.language()?),
        Command::Stats(args) => stats::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Wrap(args) => wrap::run(args),
        Command::Import(args) => import::run(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut definition(), "sightline", &mut script);
            edges::write_stdout(&String::from_utf8_lossy(&script))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { dir } => {
            man::write(definition(), &dir)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::DemoServer {
            name,
            http,
            listen,
            start_delay_ms,
            page_size,
        } => {
            std::thread::sleep(std::time::Duration::from_millis(start_delay_ms));
            let runtime = edges::runtime()?;
            if http {
                let stop = edges::stopped();
                runtime.block_on(crate::servers::run_http(&name, listen, page_size, stop))?;
            } else {
                runtime.block_on(crate::servers::run_stdio(&name, page_size))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn scripted_model(
    path: &std::path::Path,
    listen: std::net::SocketAddr,
) -> anyhow::Result<ExitCode> {
    let (scenario, _) = crate::host::scenario::Scenario::find(path, &[])?;
    let scenario = scenario.in_language(crate::i18n::Language::from_env());
    let runtime = edges::runtime()?;
    runtime.block_on(async {
        let model = crate::host::scripted::ScriptedModel::start(scenario.script.clone(), listen)
            .await
            .within(|| Said::new("cli_error.scripted_model"))?;
        let base = model.base_url();
        println!(
            "scripted model for `{}` listening on {base}",
            scenario.title
        );
        for shape in crate::wire::api::ApiShape::ALL {
            println!("  {:<12} POST {base}{}", shape.as_str(), shape.path());
        }
        println!("press Ctrl-C to stop");
        tokio::signal::ctrl_c()
            .await
            .within(|| Said::new("cli_error.ctrl_c"))?;
        model.shutdown().await;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Loads a trace file or session folder for a command: an error names the path, and each
/// skipped line is reported on stderr with it.
fn load_trace(path: &std::path::Path) -> anyhow::Result<crate::trace::LoadedTrace> {
    use crate::i18n::Said;
    let loaded = crate::trace::load(path).map_err(|err| match err {
        // Already names the file.
        crate::trace::TraceError::Open { .. } => anyhow::anyhow!(err),
        crate::trace::TraceError::BadHeader(_)
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("toml")) =>
        {
            errors::Saying(Said::new("cli_error.scenario_not_trace").with("path", path.display()))
                .into()
        }
        other => {
            let said = errors::said(&other).unwrap_or_else(|| Said::plain(other.to_string()));
            errors::Saying(
                Said::new("cli_error.in_file")
                    .with("path", path.display())
                    .with_said("problem", said),
            )
            .into()
        }
    })?;
    let w = crate::i18n::Words::of(lang::of_process());
    let first = crate::analysis::trace_error::FIRST_OF_A_KIND;
    for said in crate::analysis::trace_error::warnings_once(&loaded.warnings, first) {
        eprintln!("sightline: {}: {}", path.display(), said.say(w));
    }
    Ok(loaded)
}

fn summary(
    path: &std::path::Path,
    json: bool,
    filter: Option<&str>,
    lang: crate::i18n::Language,
) -> anyhow::Result<ExitCode> {
    let matcher = filter.map(filter::parse).transpose()?;
    let loaded = load_trace(path)?;
    let report = crate::analysis::report(&loaded.events);
    let kept = matcher.map(|m| filter::kept(&loaded.events, &report.rpc, &m));
    let keep = |i: usize| kept.as_ref().is_none_or(|k| k[i]);
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if json {
        crate::export::summary::write_json_lines_kept(&mut stdout, &loaded.events, &report, &keep)
    } else {
        crate::export::summary::write_text_kept(&mut stdout, &loaded.events, &report, lang, &keep)
    };
    use std::io::Write as _;
    edges::stdout_written(written.and_then(|()| stdout.flush()))?;
    Ok(ExitCode::SUCCESS)
}
