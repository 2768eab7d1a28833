//! `sightline check TRACE [rules] [--format text|junit|sarif] [--out FILE]`: a trace as a CI
//! gate (see [`crate::analysis::check`]).
//!
//! Exit status 0 when every test passes, 1 when one fails, 2 when the trace, the pin file or
//! a rule cannot be read, or the report cannot be written. The report goes to `--out FILE`
//! (written whole, after the checks) or stdout.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::{Args, ValueEnum};

use crate::analysis::check::{self, CheckOptions, Class};
use crate::i18n::{Language, Words};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Junit,
    Sarif,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trace file (JSON Lines) or session folder.
    trace: PathBuf,
    /// A tool that must have been called (MCP name or `server/tool`). Repeatable.
    #[arg(long, value_name = "NAME")]
    expect_tool: Vec<String>,
    /// A tool that must not have been called. Repeatable.
    #[arg(long, value_name = "NAME")]
    forbid_tool: Vec<String>,
    /// A tool the model must see in its `tools` parameter (from the doctor). Repeatable.
    #[arg(long, value_name = "NAME")]
    expect_visible: Vec<String>,
    /// Judge --expect-visible by this host's profile (claude-code, claude-desktop, cursor,
    /// vscode, codex, gemini-cli, windsurf; `sightline doctor --host list`) instead of the
    /// host the trace shows.
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
    /// The longest a tools/call may take: `500ms`, `2s`, `1.5s`.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    max_latency: Option<Duration>,
    /// The most tokens the tools parameter of an LLM request may cost.
    #[arg(long, value_name = "N")]
    max_tool_tokens: Option<usize>,
    /// Finding classes that fail the check, comma separated: error, invalid, unanswered,
    /// schema, drift, poison, hidden, deprecated, secret.
    #[arg(long, value_name = "CLASSES", value_delimiter = ',', value_parser = parse_class,
          default_value = "error,invalid,unanswered,schema,poison")]
    fail_on: Vec<Class>,
    /// The pin file `drift` also checks against (default: none, only drift within the trace).
    #[arg(long, value_name = "FILE")]
    pins: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the report here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    // The language of the text report and of JUnit's messages; SARIF stays in English (code
    // scanning shows its rules' texts as they are).
    #[command(flatten)]
    lang: super::lang::LangArg,
}

fn parse_class(s: &str) -> Result<Class, String> {
    Class::parse(s.trim()).ok_or_else(|| {
        let all: Vec<&str> = Class::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown class `{s}`; the classes are {}", all.join(", "))
    })
}

/// `250ms`, `2s`, `1.5s`, `300us`; a bare number is milliseconds.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => t.split_at(i),
        None => (t, "ms"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (e.g. 500ms, 2s)"))?;
    let secs = match unit {
        "us" | "µs" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "m" | "min" => value * 60.0,
        _ => {
            return Err(format!(
                "`{s}`: unknown unit `{unit}` (use us, ms, s or min)"
            ));
        }
    };
    Duration::try_from_secs_f64(secs).map_err(|e| format!("`{s}`: {e}"))
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let lang = args.lang.language()?;
    if let Some(out) = &args.out {
        super::edges::refuse_output_over_input(out, &[&args.trace])?;
    }
    let loaded = super::load_trace(&args.trace)?;
    let store = match &args.pins {
        Some(path) => Some(
            super::pins::file::open(path)
                .within(|| Said::new("cli_error.pin_file").with("path", path.display()))?,
        ),
        None => None,
    };
    let host = match args.host.as_deref() {
        None => crate::analysis::doctor::HostChoice::Recognise,
        Some(name) => match crate::analysis::hosts::find(name) {
            Some(p) => crate::analysis::doctor::HostChoice::Named(p),
            None => anyhow::bail!(Words::of(lang).fmt(
                "doctor_host.unknown",
                &[
                    ("name", name),
                    ("known", &crate::analysis::hosts::ids().join(", "))
                ]
            )),
        },
    };
    let options = CheckOptions {
        host,
        expect_tool: args.expect_tool,
        forbid_tool: args.forbid_tool,
        expect_visible: args.expect_visible,
        max_latency_us: args
            .max_latency
            .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX)),
        max_tool_tokens: args.max_tool_tokens,
        fail_on: args.fail_on,
        lang: if args.format == Format::Sarif {
            Language::En
        } else {
            lang
        },
    };
    let report = options.report(&loaded.events);
    // A trace with nothing anyone asked (no events, only answers, only lines that are not
    // events) passes every rule: a recorder that broke would keep CI green.
    let asked = report.rpc.derived.iter().any(|d| {
        matches!(
            d.kind,
            crate::trace::Kind::Request
                | crate::trace::Kind::Notification
                | crate::trace::Kind::LlmHttp
        )
    });
    if !asked {
        return super::errors::fail(
            Said::new("cli_error.check_nothing")
                .with("path", args.trace.display())
                .with("events", loaded.events.len())
                .with("skipped", loaded.warnings.len()),
        );
    }
    let result = check::check(&loaded.events, &report, &options, store.as_ref());
    let trace = args.trace.display().to_string();
    let out = match args.format {
        Format::Text => crate::export::check::text_in(&result, Words::of(lang)),
        Format::Junit => crate::export::check::junit(&result, &trace, Words::of(lang)),
        Format::Sarif => {
            let lines = if args.trace.is_file() {
                let wanted = crate::export::check::finding_seqs(&result);
                std::fs::File::open(&args.trace)
                    .and_then(|f| crate::export::check::event_lines_of(f, Some(&wanted)))
                    .unwrap_or_default()
            } else {
                Default::default()
            };
            crate::export::check::sarif(&result, &trace, &lines)
        }
    };
    match &args.out {
        Some(path) => std::fs::write(path, &out).within(|| {
            Said::new("cli_error.write_report")
                .with("format", format!("{:?}", args.format).to_lowercase())
                .with("path", path.display())
        })?,
        None => super::edges::write_stdout(&out)?,
    }
    if args.out.is_some() {
        let failed = Words::of(lang).fmt(
            "check_text.failed",
            &[
                ("failed", &result.failed().to_string()),
                ("tests", &result.tests.len().to_string()),
            ],
        );
        eprintln!("sightline: {failed}");
    }
    let status = super::exit::findings(result.failed() > 0);
    super::edges::leave((loaded, report, result, out));
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_take_units_and_bare_milliseconds() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3h").is_err());
    }
}
