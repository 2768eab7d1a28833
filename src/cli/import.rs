//! `sightline import FORMAT FILE --trace OUT [--name NAME]`: other tools' recordings as traces.
//!
//! Reading and parsing is [`crate::trace::import::import_file`] (the app's File > Import uses
//! it too), with the provider's credential redaction and SSE parser as the HTTP hooks; this
//! reports skipped lines on stderr and writes the trace.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::trace::import;
use crate::trace::write_trace;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Claude Desktop's MCP logs: mcp-server-NAME.log or mcp.log.
    ClaudeDesktop,
    /// An MCP Inspector export: the Protocol panel's Export (inspector-protocol-*.json), its
    /// Console export, `--cli --method logging/tail` output, or v1 History items copied into a
    /// JSON array.
    Inspector,
    /// A HAR file holding MCP Streamable HTTP traffic.
    Har,
}

impl From<Format> for import::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::ClaudeDesktop => import::Format::ClaudeDesktop,
            Format::Inspector => import::Format::Inspector,
            Format::Har => import::Format::Har,
        }
    }
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
    /// The server's name (lane `server:NAME`). Default: from the file name or the log lines
    /// (Claude Desktop), the file name or the `initialize` answer (Inspector), or the URL's
    /// host (HAR).
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let path = &args.file;
    let file = import::import_file(
        args.format.into(),
        path,
        args.name.as_deref(),
        crate::host::provider::import_hooks(),
    )?;
    for warning in &file.imported.warnings {
        eprintln!("sightline: {}: {warning} (skipped)", path.display());
    }
    if file.imported.synthetic_times {
        eprintln!(
            "sightline: {} has no times: the events get the file's modification time plus 1 ms \
             each (marked `synthetic_times` in the trace header)",
            path.display()
        );
    }
    write_trace(&args.trace, &file.header, &file.imported.events)?;
    eprintln!(
        "sightline: {} events from {} written to {}",
        file.imported.events.len(),
        path.display(),
        args.trace.display()
    );
    Ok(ExitCode::SUCCESS)
}
