//! `sightline proxy`: a host spawns us in place of its server; we spawn the server behind the tap.
//!
//! Our stdin and stdout belong to the host's MCP client and carry only the server's bytes. We
//! speak on stderr, once, to say where the trace goes. The exit status is the server's (or
//! 128 + the signal that ended it), so the host sees what it would have seen without us.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::errors::{Context as _, Saying};
use crate::i18n::Said;
use clap::Args;

use crate::tap::http_proxy::HttpProxy;
use crate::tap::{Recorder, ServerCommand, StdioTap, paths};
use crate::trace::{Header, Lane, TraceWriter};

#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Where to write the trace. Default: a timestamped file in the platform's data directory
    /// (override the directory with SIGHTLINE_DATA_DIR).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Record into session NAME (a folder under the data dir's `sessions/`, or a path when it
    /// contains `/`) beside the other proxies of that session, so that a host's LLM requests and
    /// its servers' traffic load, and show live, as one trace. Conflicts with --trace.
    #[arg(long, value_name = "NAME", conflicts_with = "trace", value_parser = paths::session_name)]
    session: Option<String>,
    /// The server's name in the trace (its lane is `server:NAME`). Default: from the command.
    #[arg(long)]
    name: Option<String>,
    /// Do not print where the trace goes.
    #[arg(long, short)]
    quiet: bool,
    /// The server command and its arguments, after `--`.
    #[arg(last = true, required_unless_present = "http", value_name = "CMD")]
    command: Vec<String>,
    /// Proxy an MCP server over Streamable HTTP instead of spawning one (needs --upstream).
    #[arg(long, requires = "upstream", conflicts_with = "command")]
    http: bool,
    /// With --http: the address to listen on. Loopback only unless --allow-remote; port 0
    /// picks a free one.
    #[arg(long, default_value = "127.0.0.1:0", requires = "http")]
    listen: SocketAddr,
    /// With --http: the server's MCP endpoint, e.g. http://127.0.0.1:3001/mcp.
    #[arg(long, value_name = "URL", requires = "http")]
    upstream: Option<String>,
    /// With --http: accept connections from other machines (a --listen address that is not
    /// loopback).
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// With --http: seconds to wait for the server's response headers before answering 504 and
    /// noting it in the trace (0: wait forever). Not applied to a GET (the standalone stream).
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = crate::tap::llm_proxy::HEADER_TIMEOUT.as_secs())]
    header_timeout: u64,
    /// With --http: the server's client is an LLM API's own MCP client (Anthropic's MCP
    /// connector, OpenAI's `mcp` tools), not a host: its messages are recorded between `llm`
    /// and `server:NAME`, and joined to the API's `mcp_tool_use` / `mcp_call` in the same
    /// session.
    #[arg(long, requires = "http")]
    api_client: bool,
    #[command(flatten)]
    live: super::otlp::LiveArgs,
}

pub fn run(args: ProxyArgs) -> anyhow::Result<ExitCode> {
    if args.http {
        return run_http(args);
    }
    let cmd = server_command(&args.command, args.name.as_ref())?;
    let name = &cmd.name;
    let mut header = Header::new(format!(
        "sightline proxy -- {}",
        crate::wire::redact_url::redact_argv(&args.command).join(" ")
    ));
    let path = super::edges::trace_path(
        args.trace.as_ref(),
        args.session.as_deref(),
        name,
        &mut header,
    );
    let writer = TraceWriter::create(&path, &header)?;
    if !args.quiet {
        eprintln!("sightline: recording server `{name}` to {}", path.display());
    }
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let live = args.live.start(&recorder, &header)?;
    // Unbuffered handles on our stdin and stdout: each chunk goes out in one write, at once.
    let stdin = crate::tap::stdio::own_stdin().within(|| Said::new("cli_error.use_stdin"))?;
    let stdout =
        crate::tap::stdio::OwnStdout::new().within(|| Said::new("cli_error.use_stdout"))?;
    crate::tap::stdio::widen_own_pipes();
    let tap = match StdioTap::spawn(
        &cmd,
        recorder.clone(),
        Lane::Host,
        Box::new(stdin),
        Box::new(stdout),
        Some(Box::new(std::io::stderr())),
    ) {
        Ok(tap) => tap,
        Err(err) => {
            super::otlp::finish(live);
            recorder.finish();
            eprintln!("sightline: error: {err} (recorded in {})", path.display());
            return Ok(ExitCode::from(127));
        }
    };
    forward_signals(&tap);
    let outcome = tap.wait();
    super::otlp::finish(live);
    let report = super::edges::finish_recording(&recorder);
    tracing::info!(
        "server ended with {outcome}; {} events recorded",
        report.events
    );
    Ok(ExitCode::from(
        u8::try_from(outcome.shell_status()).unwrap_or(1),
    ))
}

/// `sightline proxy --http`: serve the Streamable HTTP proxy until Ctrl-C / SIGTERM / SIGHUP.
fn run_http(args: ProxyArgs) -> anyhow::Result<ExitCode> {
    let upstream = args
        .upstream
        .clone()
        .ok_or_else(|| Saying(Said::new("cli_error.needs_upstream")))?;
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        anyhow::bail!(
            "refusing to listen on {}, which is not a loopback address: anyone who can reach it \
             could use the MCP server and the credentials that pass through; add --allow-remote \
             if that is intended",
            args.listen
        );
    }
    let name = match &args.name {
        Some(name) => paths::file_stem(name),
        None => reqwest::Url::parse(&upstream)
            .ok()
            .and_then(|url| url.host_str().map(paths::file_stem))
            .unwrap_or_else(|| "server".into()),
    };
    let shown = crate::wire::redact_url::redact_url(&upstream).0;
    let mut header = Header::new(format!("sightline proxy --http --upstream {shown}"));
    let path = super::edges::trace_path(
        args.trace.as_ref(),
        args.session.as_deref(),
        &name,
        &mut header,
    );
    let writer = TraceWriter::create(&path, &header)?;
    let recorder = Recorder::start(vec![Box::new(writer)]);
    let live = args.live.start(&recorder, &header)?;
    let runtime = super::edges::proxy_runtime()?;
    let served = runtime.block_on(async {
        let proxy = HttpProxy::bind(args.listen, &upstream, &name, recorder.clone())
            .await?
            .header_timeout(
                (args.header_timeout > 0).then(|| Duration::from_secs(args.header_timeout)),
            );
        let proxy = match args.api_client {
            true => proxy.client_lane(Lane::Llm),
            false => proxy,
        };
        if !args.quiet {
            eprintln!(
                "sightline: proxy listening on http://{}, forwarding to {shown}",
                proxy.local_addr()
            );
            eprintln!("sightline: recording server `{name}` to {}", path.display());
        }
        proxy
            .serve(super::edges::stopped(), super::edges::GRACE)
            .await
            .within(|| Said::new("cli_error.proxy_stopped"))
    });
    super::otlp::finish(live);
    let report = super::edges::finish_recording(&recorder);
    served?;
    tracing::info!("proxy stopped; {} events recorded", report.events);
    Ok(ExitCode::SUCCESS)
}

/// When the host stops us (Ctrl-C, SIGTERM, a closed terminal), stop the server properly so its
/// exit is recorded, instead of leaving it orphaned.
fn forward_signals(tap: &StdioTap) {
    let tap = tap.clone();
    super::edges::on_stop_signal(move |signal| {
        tracing::info!("received signal {signal}: stopping the server");
        tap.terminate();
    });
}

/// The server command after `--`, named by `--name` or else after its program
/// ([`default_name`]).
pub(super) fn server_command(
    command: &[String],
    name: Option<&String>,
) -> anyhow::Result<ServerCommand> {
    let Some((program, rest)) = command.split_first() else {
        return super::errors::fail(crate::i18n::Said::new("cli_error.no_command"));
    };
    let name = name.cloned().unwrap_or_else(|| default_name(command));
    Ok(ServerCommand::new(name, program, rest.to_vec()))
}

/// `node weather-server.mjs` -> `weather-server`; `uvx mcp-server-git` -> `mcp-server-git`.
pub(super) fn default_name(command: &[String]) -> String {
    const LAUNCHERS: &[&str] = &[
        "node", "python", "python3", "npx", "uvx", "uv", "deno", "bun", "sh", "bash", "env", "java",
    ];
    let stem = |s: &str| {
        let base = s.rsplit('/').next().unwrap_or(s);
        let base = base
            .split('@')
            .next()
            .filter(|b| !b.is_empty())
            .unwrap_or(base);
        base.rsplit_once('.')
            .map_or(base, |(stem, _)| stem)
            .to_string()
    };
    let program = command.first().map(String::as_str).unwrap_or("server");
    if stem(program) == "sightline"
        && command.get(1).map(String::as_str) == Some("demo-server")
        && let Some(demo) = command.get(2)
    {
        return paths::file_stem(demo);
    }
    let inline_code = command.iter().skip(1).any(|a| a == "-c" || a == "-e");
    if LAUNCHERS.contains(&stem(program).as_str())
        && !inline_code
        && let Some(script) = command[1..]
            .iter()
            .find(|a| !a.starts_with('-') && !matches!(a.as_str(), "run" | "x"))
    {
        return paths::file_stem(&stem(script));
    }
    paths::file_stem(&stem(program))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(cmd: &str) -> String {
        default_name(&cmd.split(' ').map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn default_names_come_from_the_script_not_the_launcher() {
        assert_eq!(name("node weather-server.mjs"), "weather-server");
        assert_eq!(
            name("npx -y @modelcontextprotocol/server-everything"),
            "server-everything"
        );
        assert_eq!(name("/usr/bin/python3 -u misbehave.py"), "misbehave");
        assert_eq!(
            name("target/debug/sightline demo-server weather"),
            "weather"
        );
        assert_eq!(name("./my server"), "my");
        assert_eq!(name("sh -c exit 3"), "sh");
    }
}
