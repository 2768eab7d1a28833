//! `sightline export TRACE --format mermaid|svg|html [--out FILE] [--lang en|pt|es]`: the
//! sequence diagram of a trace, as Mermaid text or a standalone SVG, or the whole viewer and the
//! trace in one HTML file (`crate::export::html`), to stdout or a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace file (JSON Lines).
    trace: PathBuf,
    /// What to write: `mermaid` (a `sequenceDiagram` for Markdown), `svg` (for slides) or
    /// `html` (the app's viewer and the trace in one file that opens from disk, no network).
    #[arg(long, value_enum)]
    format: Format,
    /// Write here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The HTML page's language: en, pt or es (default: the browser's).
    #[arg(long, value_name = "LANG")]
    lang: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Mermaid,
    Svg,
    Html,
}

/// `--lang` checked: one of the app's languages, by code.
pub(super) fn check_lang(lang: Option<&str>) -> anyhow::Result<Option<&'static str>> {
    let Some(code) = lang else {
        return Ok(None);
    };
    match crate::ui::Language::ALL
        .into_iter()
        .find(|l| l.code() == code)
    {
        Some(l) => Ok(Some(l.code())),
        None => anyhow::bail!("unknown --lang `{code}`: use en, pt or es"),
    }
}

/// A browser tab's WebAssembly memory ends at 4 GiB. The viewer holds the trace's bytes while
/// it reads them, and then about this much per event beside the raw text (measured in headless
/// Chromium on 100,000 events of 200 bytes: 832 bytes per event of wasm memory in all).
const WEB_BYTES_PER_EVENT: u64 = 640;
const WEB_MEMORY_BUDGET: u64 = 3 << 30;

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let lang = check_lang(args.lang.as_deref())?;
    if args.lang.is_some() && args.format != Format::Html {
        anyhow::bail!("--lang is for --format html");
    }
    let loaded = super::load_trace(&args.trace)?;
    let text = match args.format {
        Format::Mermaid => {
            let report = crate::analysis::report(&loaded.events);
            crate::export::mermaid::mermaid(&loaded.events, &report)
        }
        Format::Svg => {
            let report = crate::analysis::report(&loaded.events);
            crate::export::svg::svg(&loaded.events, &report)
        }
        Format::Html => html(&args.trace, &loaded, lang)?,
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

/// The viewer with the trace: a file's bytes as they are (its bad lines too, so the page warns
/// as the app does), a session folder merged.
fn html(
    path: &Path,
    loaded: &crate::trace::LoadedTrace,
    lang: Option<&str>,
) -> anyhow::Result<String> {
    let bundle = crate::export::html::bundle()?;
    let size = std::fs::metadata(path).map_or(0, |m| if m.is_dir() { 0 } else { m.len() });
    let needed = loaded.events.len() as u64 * WEB_BYTES_PER_EVENT + size;
    if needed > WEB_MEMORY_BUDGET {
        anyhow::bail!(
            "{}: {} events need about {} MB in the browser, more than a tab's WebAssembly \
             memory allows ({} MB of its 4096); export a part of it, or open it in the app",
            path.display(),
            loaded.events.len(),
            needed >> 20,
            WEB_MEMORY_BUDGET >> 20
        );
    }
    let bytes = if path.is_dir() {
        crate::trace::trace_bytes(&loaded.header, &loaded.events)
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    let title = if loaded.header.title.is_empty() {
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    } else {
        loaded.header.title.clone()
    };
    Ok(crate::export::html::render(
        bundle,
        &crate::export::html::Page {
            title: &title,
            lang,
            trace: Some(&bytes),
            live: None,
        },
    ))
}
