//! `sightline mock TRACE [--server NAME] [--http --listen ADDR] [--match-order]`: the recorded
//! server of a trace comes back as a live MCP server, on stdin/stdout or over Streamable HTTP,
//! so a host, a client library or a CI job can run against a server it cannot start.
//!
//! Composition only: [`crate::analysis::mock`] reads the recording and decides each reply
//! (matching, the caller's id, the nearest recorded request of an unrecorded one); this module
//! moves lines: one JSON-RPC message per line on stdio ([`serve_stdio`]), one per `POST` over
//! HTTP ([`http`]). Nothing is recorded and nothing is timed: answers go out as fast as they
//! are asked for. Exit status 0 when the client hangs up (stdin closes) or on Ctrl-C, 2 when
//! the trace has no server to serve as asked (no server, an unknown `--server`, several without
//! one, no requests) or the address cannot be listened on.

mod http;

use std::io::{BufRead as _, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::errors::Saying;
use crate::analysis::mock::answer::{Mock, Reply};
use crate::analysis::mock::{PickError, Recording};
use crate::i18n::{Said, Words};

#[derive(Debug, Args)]
pub struct MockArgs {
    /// The recorded trace (file or session folder).
    trace: PathBuf,
    /// Which recorded server to serve, when the trace has several.
    #[arg(long, value_name = "NAME")]
    server: Option<String>,
    /// Serve Streamable HTTP at `http://LISTEN/mcp` instead of stdin/stdout, until Ctrl-C.
    #[arg(long)]
    http: bool,
    /// Where to listen with --http (port 0: any free port, printed on stderr).
    #[arg(long, default_value = "127.0.0.1:0", requires = "http")]
    listen: SocketAddr,
    /// Answer a request asked again with the recorded answers in turn (the last one once they
    /// run out), not always the first: for a server whose answers change.
    #[arg(long)]
    match_order: bool,
    #[command(flatten)]
    lang: super::lang::LangArg,
}

pub fn run(args: MockArgs) -> anyhow::Result<ExitCode> {
    let words = Words::of(args.lang.language()?);
    let loaded = super::load_trace(&args.trace)?;
    let rpc = crate::trace::analyze(&loaded.events);
    let recording = Recording::read(&loaded.events, &rpc, args.server.as_deref()).map_err(|e| {
        Saying(
            Said::new("cli_error.in_file")
                .with("path", args.trace.display())
                .with_said("problem", picked(&e)),
        )
    })?;
    super::edges::leave((loaded, rpc));
    let name = recording.lane.server_name().unwrap_or("server").to_string();
    let count = recording.triggers.iter().filter(|t| t.request).count();
    let mock = Mock::new(recording, args.match_order);
    if args.http {
        return http::serve(mock, args.listen, words, &name, count);
    }
    eprintln!(
        "{}",
        words.fmt(
            "mock_text.serving_stdio",
            &[("name", &name), ("count", &count.to_string())]
        )
    );
    serve_stdio(mock, words)
}

/// Why the trace has no server to serve, as a sentence.
fn picked(e: &PickError) -> Said {
    match e {
        PickError::NoServer => Said::new("cli_error.mock_no_server"),
        PickError::Several(list) => Said::new("cli_error.mock_several").with("list", list),
        PickError::Unknown(name, list) => Said::new("cli_error.mock_unknown")
            .with("name", name)
            .with("list", list),
        PickError::NoRequests(name) => Said::new("cli_error.mock_no_requests").with("name", name),
    }
}

/// One message per line in, the recorded lines out, until stdin closes (or stdout does: a
/// client that went away ends the mock quietly).
fn serve_stdio(mut mock: Mock, words: Words) -> anyhow::Result<ExitCode> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.map_err(|e| {
            Saying(Said::new("cli_error.mock_stdin").with_said("why", Said::io(&e)))
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let Reply::Send(lines) = mock.reply(&line) else {
            continue;
        };
        if let Some(method) = &lines.unrecorded {
            eprintln!(
                "{}",
                words.fmt("mock_text.unrecorded", &[("method", method)])
            );
        }
        let mut written = Ok(());
        for o in &lines.out {
            written = written.and_then(|()| writeln!(stdout, "{}", o.text));
        }
        if written.and_then(|()| stdout.flush()).is_err() {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}
