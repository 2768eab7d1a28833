//! `sightline export TRACE --format mermaid|svg [--out FILE]`: the sequence diagram of a trace,
//! as Mermaid text or a standalone SVG, to stdout or a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace file (JSON Lines).
    trace: PathBuf,
    /// What to write: `mermaid` (a `sequenceDiagram` for Markdown) or `svg` (for slides).
    #[arg(long, value_enum)]
    format: Format,
    /// Write here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Mermaid,
    Svg,
}

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let loaded = super::load_trace(&args.trace)?;
    let report = crate::analysis::report(&loaded.events);
    let text = match args.format {
        Format::Mermaid => crate::export::mermaid::mermaid(&loaded.events, &report),
        Format::Svg => crate::export::svg::svg(&loaded.events, &report),
    };
    match &args.out {
        Some(path) => write_file(path, &text)?,
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.context("cannot write to stdout")?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
