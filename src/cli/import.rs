//! `sightline import FORMAT FILE --trace OUT [--name NAME] [--lang LANG]`: other tools' recordings
//! as traces.
//!
//! Reading and parsing is [`crate::trace::import::import_file`] (the app's File > Import uses
//! it too), with the provider's credential redaction and SSE parser as the HTTP hooks; this
//! reports skipped lines on stderr and writes the trace, saying both in the language asked
//! (`import_text.*`; what the importer found wrong is its own words, quoted).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::i18n::{Said, Words};
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
    /// A HAR file holding MCP Streamable HTTP traffic and LLM API exchanges (a browser's
    /// dev tools', or `sightline export --format har`'s, which comes back as it was).
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
    #[command(flatten)]
    lang: super::lang::LangArg,
}

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let path = &args.file;
    super::edges::refuse_output_over_input(&args.trace, &[path])?;
    let file = import::import_file(
        args.format.into(),
        path,
        args.name.as_deref(),
        crate::host::provider::import_hooks(),
    )?;
    let w = Words::of(args.lang.language()?);
    for warning in &file.imported.warnings {
        let key = match warning.unit {
            "entry" => "import_text.skipped_entry",
            _ => "import_text.skipped_line",
        };
        let said = Said::new(key)
            .with("number", warning.number)
            .with("detail", &warning.message);
        eprintln!("sightline: {}: {}", path.display(), said.say(w));
    }
    if file.imported.synthetic_times {
        let said = Said::new("import_text.synthetic_times").with("path", path.display());
        eprintln!("sightline: {}", said.say(w));
    }
    write_trace(&args.trace, &file.header, &file.imported.events)?;
    let said = Said::new("import_text.written")
        .with("count", file.imported.events.len())
        .with("path", path.display())
        .with("trace", args.trace.display());
    eprintln!("sightline: {}", said.say(w));
    Ok(ExitCode::SUCCESS)
}
