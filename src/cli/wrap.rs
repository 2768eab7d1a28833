//! `sightline wrap CONFIG [--undo] [--trace-dir DIR] [--http-port PORT] [--serve]`: put a
//! host's servers behind the proxies.
//!
//! The rewriting itself is [`crate::tap::wrap`] (the text edited in place); this reads the file
//! and has [`crate::tap::wrap::file`] write it. Before a change is written, the file as it was
//! is saved as a backup (`CONFIG.sightline-backup`, never overwritten); the new text replaces
//! the config atomically, through a symbolic link to its target, with the same mode and owner,
//! in the encoding it was saved in (UTF-16 or a byte-order mark, as Windows editors save:
//! [`crate::trace::encoding`]); a read-only config is refused. Nothing changes, and nothing is written, when every server
//! is already as asked.
//!
//! The host starts the proxy of a stdio server itself; the proxies of HTTP servers must already
//! listen when the host connects: `--serve` runs them (one listener per wrapped HTTP server,
//! each recording its own trace) until Ctrl-C.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::errors::{Context as _, Saying};
use crate::i18n::Said;
use clap::Args;

use crate::tap::Recorder;
use crate::tap::http_proxy::HttpProxy;
use crate::tap::paths;
use crate::tap::wrap::{self, Format, HttpRoute, WrapOptions, file};
use crate::trace::{Header, TraceWriter, encoding};
use crate::wire::redact_url::redact_url;

#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The host's MCP config: claude_desktop_config.json, .cursor/mcp.json, .mcp.json, VS
    /// Code's mcp.json, or Codex's ~/.codex/config.toml (read as TOML for a name in .toml).
    #[arg(required_unless_present = "host")]
    config: Option<PathBuf>,
    /// Find the config where host NAME keeps it on this system (claude-desktop, cursor,
    /// vscode, claude-code, codex, gemini-cli, windsurf): the project's first, then the user's.
    #[arg(long, value_name = "NAME", conflicts_with = "config")]
    host: Option<String>,
    /// Restore every wrapped server's original command (read from the proxy's arguments).
    #[arg(long)]
    undo: bool,
    /// Record each server to DIR/NAME.jsonl. Default: the proxy's own default, a timestamped
    /// file per run in the data directory.
    #[arg(long, value_name = "DIR", conflicts_with = "undo")]
    trace_dir: Option<PathBuf>,
    /// Record every server (and, with --serve, every HTTP server's proxy) into session NAME,
    /// so that `sightline llm-proxy --session NAME` completes the host's loop in one trace
    /// (see `sightline session`).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["undo", "trace_dir"], value_parser = paths::session_name)]
    session: Option<String>,
    /// The first local port for HTTP servers' proxies (each takes the next free one).
    #[arg(
        long,
        value_name = "PORT",
        default_value_t = 6280,
        conflicts_with = "undo"
    )]
    http_port: u16,
    /// Then run the proxies of the config's HTTP servers until Ctrl-C (the host connects to
    /// them; stdio servers' proxies are started by the host).
    #[arg(long, conflicts_with = "undo")]
    serve: bool,
    /// Live OpenTelemetry streaming: written into every stdio server's proxy arguments (header
    /// values go to a private file the arguments name, never into the config), and used by the
    /// proxies `--serve` runs.
    #[command(flatten)]
    live: super::otlp::LiveArgs,
}

pub fn run(args: WrapArgs) -> anyhow::Result<ExitCode> {
    let path = &config_path(&args)?;
    // The backup keeps these bytes; the text is edited and written back in their encoding.
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(
                Saying(Said::new("cli_error.no_config").with("path", path.display())).into(),
            );
        }
        Err(e) => {
            return Err(e)
                .within(|| Said::new("cli_error.cannot_read").with("path", path.display()));
        }
    };
    let (text, encoding) = encoding::decode(&bytes)
        .within(|| Said::new("cli_error.cannot_read").with("path", path.display()))?;
    let format = Format::of(path);
    let rewrite = if args.undo {
        wrap::unwrap_as(format, &text)
    } else {
        let sightline = std::env::current_exe().within(|| Said::new("cli_error.self_exe"))?;
        let trace_dir = match &args.trace_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .within(|| Said::new("cli_error.cannot_create").with("path", dir.display()))?;
                Some(std::path::absolute(dir)?.display().to_string())
            }
            None => None,
        };
        wrap::wrap_as(
            format,
            &text,
            &WrapOptions {
                sightline: sightline.display().to_string(),
                trace_dir,
                session: session_dir(&args)?.map(|d| d.display().to_string()),
                http_port: args.http_port,
                port_is_free: |port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok(),
                proxy_args: args.live.proxy_args()?,
            },
        )
    }
    .within(|| Said::plain(path.display().to_string()))?;

    for server in &rewrite.servers {
        println!("{}: {}", server.name, server.action.describe());
    }
    let routes = wrap::http_routes_as(format, &rewrite.text)?;
    if !rewrite.changed() {
        println!("{}: nothing to change", path.display());
        return finish(&args, path, &routes);
    }
    let mut new_bytes = encoding.encode(&rewrite.text);
    if args.undo {
        // When a backup holds this very config, give back its exact bytes.
        let config = format.parse(&rewrite.text)?;
        if let Some(old) = file::backups(path)
            .iter()
            .rev()
            .filter_map(|b| std::fs::read(b).ok())
            .find(|old| {
                encoding::decode(old)
                    .is_ok_and(|(old, _)| format.parse(&old).is_ok_and(|v| v == config))
            })
        {
            new_bytes = old;
        }
    }
    file::check_writable(path)?;
    let backup = file::save_backup(path, &bytes)?;
    file::replace(path, &new_bytes)?;
    println!(
        "{}: updated (previous version in {}); restart the host to apply",
        path.display(),
        backup.display()
    );
    finish(&args, path, &routes)
}

/// The config named on the command line, or the first of `--host`'s that exists.
fn config_path(args: &WrapArgs) -> anyhow::Result<PathBuf> {
    if let Some(path) = &args.config {
        return Ok(path.clone());
    }
    let name = args.host.as_deref().unwrap_or_default();
    let Some(profile) = crate::analysis::hosts::find(name) else {
        let known = crate::analysis::hosts::ids().join(", ");
        return Err(Saying(
            Said::new("cli_error.unknown_host")
                .with("host", name)
                .with("known", known),
        )
        .into());
    };
    let dirs = directories::BaseDirs::new();
    let home = dirs.as_ref().map(|d| d.home_dir().to_path_buf());
    let config = dirs.as_ref().map(|d| d.config_dir().to_path_buf());
    let candidates = match (&profile.config, home, config) {
        (Some(files), Some(home), Some(config)) => files.rule.expand(&home, &config),
        _ => Vec::new(),
    };
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        println!("{}: {}", profile.name, found.display());
        return Ok(found.clone());
    }
    let looked = candidates
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Err(Saying(
        Said::new("cli_error.no_host_config")
            .with("host", &profile.name)
            .with("looked", looked),
    )
    .into())
}

/// Serves the HTTP servers' proxies when asked, else says how.
fn finish(args: &WrapArgs, path: &Path, routes: &[HttpRoute]) -> anyhow::Result<ExitCode> {
    if args.serve {
        if routes.is_empty() {
            let said = Said::new("cli_error.nothing_to_serve").with("path", path.display());
            return Err(Saying(said).into());
        }
        return serve(
            routes,
            args.trace_dir.as_deref(),
            session_dir(args)?.as_deref(),
            &args.live,
        );
    }
    if !routes.is_empty() && !args.undo {
        println!(
            "HTTP servers reach the host through local proxies: run `sightline wrap {} --serve` \
             before starting the host",
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs one HTTP proxy per wrapped HTTP server until Ctrl-C / SIGTERM / SIGHUP.
fn serve(
    routes: &[HttpRoute],
    trace_dir: Option<&Path>,
    session: Option<&Path>,
    live: &super::otlp::LiveArgs,
) -> anyhow::Result<ExitCode> {
    let mut exports = Vec::new();
    let runtime = super::edges::runtime()?;
    let mut recorders = Vec::new();
    let served = runtime.block_on(async {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut tasks = Vec::new();
        for route in routes {
            let name = crate::tap::paths::file_stem(&route.name);
            let shown = redact_url(&route.upstream).0;
            let mut header =
                Header::new(format!("sightline wrap --serve: {} -> {shown}", route.name));
            let trace = super::edges::trace_path(
                trace_dir
                    .map(|dir| dir.join(format!("{name}.jsonl")))
                    .as_ref(),
                session.map(|s| s.display().to_string()).as_deref(),
                &name,
                &mut header,
            );
            let writer = TraceWriter::create(&trace, &header)?;
            let recorder = Recorder::start(vec![Box::new(writer)]);
            exports.push(live.start(&recorder, &header)?);
            recorders.push(recorder.clone());
            let listen = SocketAddr::from(([127, 0, 0, 1], route.port));
            let proxy = HttpProxy::bind(listen, &route.upstream, &name, recorder)
                .await
                .within(|| Said::new("cli_error.server").with("name", &route.name))?
                .strip_prefix(&route.prefix);
            eprintln!(
                "sightline: {}: http://{}/sightline/{} -> {shown}, recording to {}",
                route.name,
                proxy.local_addr(),
                shown.replacen("://", "/", 1),
                trace.display()
            );
            if has_userinfo(&route.upstream) {
                eprintln!(
                    "sightline: warning: {}: the credentials in the URL are not sent upstream; \
                     the proxy forwards only what the host sends (give the host an \
                     `Authorization` header in the server's `headers`)",
                    route.name
                );
            }
            let mut stop = stop_rx.clone();
            tasks.push(tokio::spawn(proxy.serve(
                async move {
                    let _ = stop.wait_for(|stopped| *stopped).await;
                },
                super::edges::GRACE,
            )));
        }
        super::edges::stopped().await;
        let _ = stop_tx.send(true);
        for task in tasks {
            task.await
                .within(|| Said::new("cli_error.proxy_failed"))??;
        }
        anyhow::Ok(())
    });
    exports.into_iter().for_each(super::otlp::finish);
    for recorder in &recorders {
        super::edges::finish_recording(recorder);
    }
    served?;
    Ok(ExitCode::SUCCESS)
}

/// The session folder as an absolute path, so the host's proxies find the same folder
/// whatever their working directory and environment.
fn session_dir(args: &WrapArgs) -> anyhow::Result<Option<PathBuf>> {
    let Some(name) = &args.session else {
        return Ok(None);
    };
    let dir = paths::session_dir(name);
    std::fs::create_dir_all(&dir)
        .within(|| Said::new("cli_error.cannot_create").with("path", dir.display()))?;
    Ok(Some(std::path::absolute(&dir)?))
}

/// Whether a URL carries `user[:password]@` before its host.
fn has_userinfo(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| !u.username().is_empty() || u.password().is_some())
}
