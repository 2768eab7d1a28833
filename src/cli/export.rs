//! `sightline export TRACE --format mermaid|svg|otlp [--out FILE | --endpoint URL]`: the
//! sequence diagram as Mermaid text or a standalone SVG, or the trace as OpenTelemetry spans
//! (OTLP/JSON to a file, or OTLP/HTTP to a tracing backend).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

use super::otlp::OtlpArgs;
use crate::export::otlp;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace file (JSON Lines), or a session folder.
    trace: PathBuf,
    /// What to write: `mermaid` (a `sequenceDiagram` for Markdown), `svg` (for slides) or
    /// `otlp` (OpenTelemetry spans: OTLP/JSON with --out, OTLP/HTTP with --endpoint).
    #[arg(long, value_enum)]
    format: Format,
    /// Write here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// With --format otlp: send the spans to this OTLP/HTTP traces endpoint (a base URL such
    /// as http://127.0.0.1:4318 gets /v1/traces added) instead of writing them.
    #[arg(long, value_name = "URL", conflicts_with = "out")]
    endpoint: Option<String>,
    #[command(flatten)]
    otlp: OtlpArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Mermaid,
    Svg,
    Otlp,
}

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let loaded = super::load_trace(&args.trace)?;
    let report = crate::analysis::report(&loaded.events);
    let text = match args.format {
        Format::Mermaid => crate::export::mermaid::mermaid(&loaded.events, &report),
        Format::Svg => crate::export::svg::svg(&loaded.events, &report),
        Format::Otlp => {
            let options = args.otlp.options();
            let spans = otlp::spans(&loaded.header, &loaded.events, &report, &options);
            let count = spans.len();
            let requests = otlp::requests(spans, &options);
            let wants_endpoint = args.endpoint.is_some()
                || (args.out.is_none() && args.otlp.env_endpoint().is_some());
            if wants_endpoint {
                let endpoint = args.otlp.endpoint(args.endpoint.as_deref())?;
                let url = endpoint.url.clone();
                send_all(endpoint, &requests)?;
                eprintln!("sightline: sent {count} spans to {url}");
                return Ok(ExitCode::SUCCESS);
            }
            // One ExportTraceServiceRequest per line, as the Collector's file exporter writes.
            let mut text = String::new();
            for request in &requests {
                text.push_str(&otlp::to_json(request));
                text.push('\n');
            }
            text
        }
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

fn send_all(
    endpoint: otlp::send::Endpoint,
    requests: &[opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest],
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let sender = otlp::send::Sender::new(endpoint)?;
        for request in requests {
            sender.send(request).await?;
        }
        anyhow::Ok(())
    })
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
