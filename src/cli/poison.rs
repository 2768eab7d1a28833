//! `sightline poison TRACE [--json]`: poisoning highlights in the tool definitions and server
//! `instructions` of a trace (see [`crate::analysis::poison`]). Local only: the text is read
//! from the trace file and never sent anywhere.
//!
//! Exit status 1 when a finding of severity `warning` or `danger` is found, 2 when the trace
//! cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::Args;

use crate::analysis::poison::{self, Kind, Severity};
use crate::i18n::Words;

#[derive(Debug, Args)]
pub struct PoisonArgs {
    /// The trace file (JSON Lines).
    trace: PathBuf,
    /// One JSON record per finding instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    lang: super::lang::LangArg,
}

/// A severity's word in the reader's language (`poison_text.severity_*`).
fn severity(w: Words<'static>, s: Severity) -> &'static str {
    w.get(match s {
        Severity::Danger => "poison_text.severity_danger",
        Severity::Warning => "poison_text.severity_warning",
        Severity::Info => "poison_text.severity_info",
    })
}

pub fn run(args: PoisonArgs) -> anyhow::Result<ExitCode> {
    let w = Words::of(args.lang.language()?);
    let defs = match super::pins::load(&args.trace) {
        Ok(defs) => defs,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let findings = poison::scan_definitions(&defs);
    let mut out = String::new();
    if args.json {
        for f in &findings {
            out.push_str(
                &serde_json::to_string(f).within(|| Said::new("cli_error.encode_finding"))?,
            );
            out.push('\n');
        }
    } else {
        for f in &findings {
            let whose = match &f.tool {
                Some(tool) => format!("{}/{tool}", f.server),
                None => f.server.clone(),
            };
            out.push_str(&format!(
                "#{} {whose} {} [{}..{}] {} ({})\n    {}\n    {}\n",
                f.seq,
                f.field,
                f.span.0,
                f.span.1,
                f.kind,
                severity(w, f.severity),
                f.excerpt_in(w),
                f.explanation_in(w)
            ));
            if let Some(hidden) = f.hidden.as_ref().filter(|_| f.kind != Kind::TagCharacters) {
                let hidden = format!("{hidden:?}");
                let line = w.fmt("poison_text.hidden", &[("text", &hidden)]);
                out.push_str(&format!("    {line}\n"));
            }
        }
        let count = |s: Severity| {
            findings
                .iter()
                .filter(|f| f.severity == s)
                .count()
                .to_string()
        };
        out.push_str(&if findings.is_empty() {
            w.get("poison_text.none").to_string()
        } else {
            w.fmt(
                "poison_text.counts",
                &[
                    ("count", &findings.len().to_string()),
                    ("danger", &count(Severity::Danger)),
                    ("warning", &count(Severity::Warning)),
                    ("info", &count(Severity::Info)),
                ],
            )
        });
        out.push('\n');
    }
    super::edges::write_stdout(&out)?;
    let serious = findings.iter().any(|f| f.severity >= Severity::Warning);
    Ok(super::exit::findings(serious))
}
