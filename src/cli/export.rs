//! `sightline export TRACE --format mermaid|svg|otlp|html [--from SEQ] [--to SEQ] [--out FILE |
//! --endpoint URL] [--lang en|pt|es]`: the sequence diagram of a trace (or of a range of its
//! events) as Mermaid text or a standalone SVG, the trace as OpenTelemetry spans (OTLP/JSON to
//! a file, or OTLP/HTTP to a tracing backend), the whole viewer and the trace in one HTML
//! file (`crate::export::html`), or its HTTP exchanges as a HAR (`crate::export::har`).
//!
//! Diagrams are written as they are made, so a trace of any size exports in the memory its
//! analysis takes. Past the sizes a format's readers cope with, the command says so on stderr
//! and suggests a range.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::errors::Context as _;
use crate::host::scenario::shipped::trace_title_in;
use crate::i18n::{Said, Words};
use clap::{Args, ValueEnum};

use super::otlp::OtlpArgs;
use crate::analysis::tokens::{Carried, Tiktoken};
use crate::export::otlp;
use crate::trace::Event;

/// Mermaid renderers refuse longer text by default (`maxTextSize`, 50,000 characters; GitHub's
/// included).
const MERMAID_MAX_TEXT: u64 = 50_000;
/// SVG rows past which browsers and slide tools become slow to open the file (30 px a row: a
/// document 150,000 px tall, ~3 MB).
const SVG_MAX_ROWS: usize = 5_000;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace file (JSON Lines), or a session folder.
    trace: PathBuf,
    /// What to write: `mermaid` (a `sequenceDiagram` for Markdown), `svg` (for slides) or
    /// `otlp` (OpenTelemetry spans: OTLP/JSON with --out, OTLP/HTTP with --endpoint) or `html`
    /// (the app's viewer and the trace in one file that opens from disk, no network).
    #[arg(long, value_enum)]
    format: Format,
    /// Start at the event with this `seq` (as `summary` numbers them; default: the first).
    #[arg(long, value_name = "SEQ")]
    from: Option<u64>,
    /// End at the event with this `seq`, included (default: the last).
    #[arg(long, value_name = "SEQ")]
    to: Option<u64>,
    /// Only the events this display filter keeps (the language of `summary --filter`),
    /// exported as a trace of their own: a kept request whose answer is not kept shows as
    /// unanswered.
    #[arg(long, value_name = "EXPR")]
    filter: Option<String>,
    /// Write here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// With --format otlp: send the spans to this OTLP/HTTP traces endpoint (a base URL such
    /// as http://127.0.0.1:4318 gets /v1/traces added) instead of writing them.
    #[arg(long, value_name = "URL", conflicts_with = "out")]
    endpoint: Option<String>,
    #[command(flatten)]
    otlp: OtlpArgs,
    /// The language of the diagram's words: en, pt or es (default for mermaid, svg and
    /// handout: from LC_ALL, LC_MESSAGES or LANG, else en; for html: the browser's).
    #[arg(long, value_name = "LANG")]
    lang: Option<String>,
    /// With --format handout: Markdown (the diagram as Mermaid) instead of HTML.
    #[arg(long)]
    md: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Mermaid,
    Svg,
    Otlp,
    Html,
    /// A printable handout: the diagram, then each step with its narration and raw message.
    Handout,
    /// An HTTP Archive (HAR 1.2) of the trace's HTTP exchanges (Streamable HTTP and LLM
    /// APIs), for browsers' dev tools; `sightline import har` reads it back.
    Har,
}

/// Counts what passes through.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: std::io::Write> std::io::Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The event indices `--from`/`--to` select (by `seq`, both included).
fn range(
    events: &[Event],
    from: Option<u64>,
    to: Option<u64>,
) -> anyhow::Result<std::ops::Range<usize>> {
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return super::errors::fail(
            Said::new("cli_error.from_after_to")
                .with("from", from)
                .with("to", to),
        );
    }
    let start = match from {
        Some(from) => events.iter().position(|e| e.seq >= from),
        None => Some(0),
    };
    let end = match to {
        Some(to) => events.iter().rposition(|e| e.seq <= to).map(|i| i + 1),
        None => Some(events.len()),
    };
    match (start, end) {
        (Some(start), Some(end)) if start < end || events.is_empty() => Ok(start..end),
        _ => {
            let (first, last) = (
                events.first().map_or(0, |e| e.seq),
                events.last().map_or(0, |e| e.seq),
            );
            super::errors::fail(
                Said::new("cli_error.empty_range")
                    .with("from", from.map_or(String::new(), |f| f.to_string()))
                    .with("to", to.map_or(String::new(), |t| t.to_string()))
                    .with("first", first)
                    .with("last", last),
            )
        }
    }
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
        None => super::errors::fail(Said::new("cli_error.unknown_lang").with("code", code)),
    }
}

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let lang = check_lang(args.lang.as_deref())?;
    if args.lang.is_some() && args.format == Format::Otlp {
        return super::errors::fail(Said::new("cli_error.lang_not_otlp"));
    }
    if args.md && args.format != Format::Handout {
        return super::errors::fail(Said::new("cli_error.md_handout"));
    }
    // Mermaid and SVG: the flag, else the locale; the HTML page: the flag, else the browser's.
    let words = match lang {
        Some(code) => crate::i18n::Words::of(super::lang::parse(code)?),
        None => crate::i18n::Words::of(crate::i18n::Language::from_env()),
    };
    if let Some(out) = &args.out {
        super::edges::refuse_output_over_input(out, &[&args.trace])?;
    }
    let matcher = args
        .filter
        .as_deref()
        .map(super::filter::parse)
        .transpose()?;
    let mut loaded = super::load_trace(&args.trace)?;
    if let Some(m) = matcher {
        let kept = super::filter::kept(&loaded.events, &crate::trace::analyze(&loaded.events), &m);
        let mut at = 0;
        loaded.events.retain(|_| {
            at += 1;
            kept[at - 1]
        });
    }
    let events = &loaded.events;
    let rows = range(events, args.from, args.to)?;
    if args.format == Format::Har {
        let har = crate::export::har::har(
            &loaded.header,
            &events[rows.clone()],
            &crate::analysis::llm_exchanges(&events[rows]),
        );
        let text = serde_json::to_string_pretty(&har).unwrap_or_default();
        return write_text(args.out.as_deref(), &(text + "\n"));
    }
    let report = crate::analysis::report(events);
    if args.format == Format::Otlp {
        let status = export_otlp(&args, &loaded, &report);
        super::edges::leave((loaded, report));
        return status;
    }
    if args.format == Format::Html {
        if args.from.is_some() || args.to.is_some() {
            return super::errors::fail(Said::new("cli_error.range_not_html"));
        }
        let page = html(&args.trace, &loaded, lang, words)?;
        return write_text(args.out.as_deref(), &page);
    }
    if args.format == Format::Handout {
        if args.from.is_some() || args.to.is_some() {
            return super::errors::fail(Said::new("cli_error.range_not_handout"));
        }
        let lang = words.lang;
        let title = if loaded.header.title.is_empty() {
            args.trace.display().to_string()
        } else {
            title_in(&loaded.header, words)
        };
        let page = if args.md {
            crate::export::handout::markdown(&title, events, &report, lang)
        } else {
            crate::export::handout::html(&title, events, &report, lang)
        };
        return write_text(args.out.as_deref(), &page);
    }
    let diagram = crate::analysis::diagram::build(events, &report);
    let count = rows.len();

    let mut out = Counting {
        inner: sink(args.out.as_deref())?,
        bytes: 0,
    };
    let written = match args.format {
        Format::Mermaid => crate::export::mermaid::write_in(
            &mut out,
            &diagram,
            events,
            &report,
            rows.clone(),
            words,
        ),
        Format::Svg | Format::Otlp | Format::Html | Format::Handout | Format::Har => {
            crate::export::svg::write_in(&mut out, &diagram, events, &report, rows, words)
        }
    }
    .and_then(|()| out.flush());
    sunk(args.out.as_deref(), written)?;
    let whole = words.get(if count == events.len() {
        "cli_error.of_whole_trace"
    } else {
        "cli_error.of_this_range"
    });
    match args.format {
        Format::Mermaid if out.bytes > MERMAID_MAX_TEXT => eprintln!(
            "{}",
            words.fmt(
                "cli_error.mermaid_too_long",
                &[
                    ("what", whole),
                    ("count", &count.to_string()),
                    ("chars", &out.bytes.to_string()),
                    ("max", &MERMAID_MAX_TEXT.to_string()),
                ],
            )
        ),
        Format::Svg if count > SVG_MAX_ROWS => eprintln!(
            "{}",
            words.fmt(
                "cli_error.svg_too_tall",
                &[
                    ("what", whole),
                    ("count", &count.to_string()),
                    ("mb", &format!("{:.1}", out.bytes as f64 / 1e6)),
                    (
                        "px",
                        &((count as f64 * crate::export::svg::ROW_H) as u64).to_string(),
                    ),
                    ("max", &SVG_MAX_ROWS.to_string()),
                ],
            )
        ),
        _ => {}
    }
    super::edges::leave((loaded, report, diagram));
    Ok(ExitCode::SUCCESS)
}

/// Where a streamed export goes, buffered: the file `out` (created now), else stdout.
fn sink(out: Option<&Path>) -> anyhow::Result<std::io::BufWriter<Box<dyn std::io::Write>>> {
    let sink: Box<dyn std::io::Write> = match out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .within(|| Said::new("cli_error.cannot_write").with("path", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    Ok(std::io::BufWriter::with_capacity(1 << 16, sink))
}

/// What writing a [`sink`] came to: on stdout a reader that went away ends the output
/// quietly; a file that could not be written is an error naming it.
fn sunk(out: Option<&Path>, written: std::io::Result<()>) -> anyhow::Result<()> {
    match out {
        None => super::edges::stdout_written(written),
        Some(path) => {
            written.within(|| Said::new("cli_error.cannot_write_to").with("path", path.display()))
        }
    }
}

/// `--format otlp`: the spans to a file or stdout (one ExportTraceServiceRequest per line, as
/// the Collector's file exporter writes), or to an OTLP/HTTP endpoint.
fn export_otlp(
    args: &ExportArgs,
    loaded: &crate::trace::LoadedTrace,
    report: &crate::analysis::Report,
) -> anyhow::Result<ExitCode> {
    let options = args.otlp.options();
    let spans = otlp::spans(&loaded.header, &loaded.events, report, &options);
    let count = spans.len();
    let requests = otlp::requests(spans, &options);
    let wants_endpoint =
        args.endpoint.is_some() || (args.out.is_none() && args.otlp.env_endpoint().is_some());
    if wants_endpoint {
        let endpoint = args.otlp.endpoint(args.endpoint.as_deref())?;
        let url = endpoint.shown();
        return match send_all(endpoint, &requests)? {
            Ok(()) => {
                eprintln!("sightline: sent {count} spans to {url}");
                Ok(ExitCode::SUCCESS)
            }
            // The backend refused, failed or hung: exit 1, one line naming the endpoint and
            // the status (never a header's value), as docs/otel.md says.
            Err(err) => {
                eprintln!("sightline: error: {err}");
                Ok(ExitCode::from(super::exit::FINDINGS))
            }
        };
    }
    // A request at a time: a million events make gigabytes of JSON, never held whole.
    let mut out = sink(args.out.as_deref())?;
    let written = requests
        .iter()
        .try_for_each(|request| {
            serde_json::to_writer(&mut out, request)?;
            out.write_all(b"\n")
        })
        .and_then(|()| out.flush());
    sunk(args.out.as_deref(), written)?;
    super::edges::leave(requests);
    Ok(ExitCode::SUCCESS)
}

/// `text` to `out`, or to stdout (a closed pipe is not an error).
fn write_text(out: Option<&Path>, text: &str) -> anyhow::Result<ExitCode> {
    match out {
        Some(path) => std::fs::write(path, text)
            .within(|| Said::new("cli_error.cannot_write").with("path", path.display()))?,
        None => super::edges::write_stdout(text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Sends every request: the outer error is Sightline's own trouble (no runtime, no HTTP
/// client), the inner one what the endpoint did (refused, answered 4xx/5xx, hung).
fn send_all(
    endpoint: otlp::send::Endpoint,
    requests: &[opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest],
) -> anyhow::Result<Result<(), otlp::send::SendError>> {
    let runtime = super::edges::runtime()?;
    let sender = otlp::send::Sender::new(endpoint, crate::tap::client::http())?;
    Ok(runtime.block_on(async {
        for request in requests {
            sender.send(request).await?;
        }
        Ok(())
    }))
}

/// The viewer with the trace: a file's bytes as they are (its bad lines too, so the page warns
/// as the app does), a session folder merged.
/// The trace's title, in the language when it is a shipped scenario's.
fn title_in(header: &crate::trace::Header, words: Words) -> String {
    let scenario = header.extra.get("scenario").and_then(|s| s.as_str());
    scenario
        .and_then(|scenario| trace_title_in(words.strings, words.lang, &header.title, scenario))
        .unwrap_or(&header.title)
        .to_string()
}

fn html(
    path: &Path,
    loaded: &crate::trace::LoadedTrace,
    lang: Option<&str>,
    words: Words,
) -> anyhow::Result<String> {
    let bundle = crate::export::html::bundle()?;
    let bytes = if path.is_dir() {
        crate::trace::trace_bytes(&loaded.header, &loaded.events)
    } else {
        std::fs::read(path)
            .within(|| Said::new("cli_error.cannot_read").with("path", path.display()))?
    };
    if let Err(e) = crate::export::html::fits_in_a_tab(loaded.events.len(), bytes.len() as u64) {
        return super::errors::fail(
            Said::new("cli_error.html_too_large")
                .with("path", path.display())
                .with("events", e.events)
                .with("needed_mb", e.needed_mb)
                .with("budget_mb", e.budget_mb),
        );
    }
    let title = if loaded.header.title.is_empty() {
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    } else {
        title_in(&loaded.header, words)
    };
    let tokens = Carried::of(&loaded.events, &Tiktoken);
    Ok(crate::export::html::render(
        bundle,
        &crate::export::html::Page {
            title: &title,
            lang,
            trace: Some(&bytes),
            live: None,
            tokens: Some(&tokens),
        },
    ))
}
