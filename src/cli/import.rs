//! `sightline import FORMAT FILE --trace OUT [--name NAME]`: other tools' recordings as traces.
//!
//! Parsing is [`crate::trace::import`]; this reads the file, passes in the HTTP hooks (the
//! provider's credential redaction and SSE parser), reports skipped lines on stderr and writes
//! the trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

use crate::trace::import::{self, HttpHooks};
use crate::trace::{Header, write_trace};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Claude Desktop's MCP logs: mcp-server-NAME.log or mcp.log.
    ClaudeDesktop,
    /// A HAR file holding MCP Streamable HTTP traffic.
    Har,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// What FILE is.
    #[arg(value_enum)]
    format: Format,
    /// The file to import.
    file: PathBuf,
    /// Where to write the trace.
    #[arg(long, value_name = "OUT")]
    trace: PathBuf,
    /// The server's name (lane `server:NAME`). Default: from the log lines (Claude Desktop) or
    /// the URL's host (HAR).
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let path = &args.file;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let (kind, imported) = match args.format {
        Format::ClaudeDesktop => {
            let file_name = path.file_name().map(|n| n.to_string_lossy());
            let from_file = file_name
                .as_deref()
                .and_then(import::claude_desktop::name_from_file);
            let name = args.name.as_deref().or(from_file);
            ("claude-desktop", import::claude_desktop::parse(&text, name))
        }
        Format::Har => (
            "har",
            import::har::parse(&text, args.name.as_deref(), hooks())
                .with_context(|| format!("{}", path.display()))?,
        ),
    };
    for warning in &imported.warnings {
        eprintln!("sightline: {}: {warning} (skipped)", path.display());
    }
    let header = Header::new(format!("sightline import {kind} {}", path.display()));
    write_trace(&args.trace, &header, &imported.events)?;
    eprintln!(
        "sightline: {} events from {} written to {}",
        imported.events.len(),
        path.display(),
        args.trace.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn hooks() -> HttpHooks {
    HttpHooks {
        redact: crate::host::provider::redact_headers,
        sse_data: |bytes| {
            crate::host::provider::sse::SseParser::parse(bytes)
                .into_iter()
                .map(|e| e.data)
                .collect()
        },
    }
}
