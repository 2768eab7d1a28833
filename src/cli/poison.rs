//! `sightline poison TRACE [--json]`: poisoning highlights in the tool definitions and server
//! `instructions` of a trace (see [`crate::analysis::poison`]). Local only: the text is read
//! from the trace file and never sent anywhere.
//!
//! Exit status 1 when a finding of severity `warning` or `danger` is found, 2 when the trace
//! cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::analysis::poison::{self, Kind, Severity};

#[derive(Debug, Args)]
pub struct PoisonArgs {
    /// The trace file (JSON Lines).
    trace: PathBuf,
    /// One JSON record per finding instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: PoisonArgs) -> anyhow::Result<ExitCode> {
    let defs = match super::pins::load(&args.trace) {
        Ok(defs) => defs,
        Err(err) => return Ok(super::exit::trouble(&err)),
    };
    let findings = poison::scan_definitions(&defs);
    let mut out = String::new();
    if args.json {
        for f in &findings {
            out.push_str(&serde_json::to_string(f).context("cannot encode a finding")?);
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
                f.severity.as_str(),
                f.excerpt,
                f.explanation
            ));
            if let Some(hidden) = f.hidden.as_ref().filter(|_| f.kind != Kind::TagCharacters) {
                out.push_str(&format!("    hidden text, decoded: {hidden:?}\n"));
            }
        }
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        out.push_str(&if findings.is_empty() {
            "no findings\n".to_string()
        } else {
            format!(
                "{} finding(s): {} danger, {} warning, {} info\n",
                findings.len(),
                count(Severity::Danger),
                count(Severity::Warning),
                count(Severity::Info)
            )
        });
    }
    super::edges::write_stdout(&out)?;
    let serious = findings.iter().any(|f| f.severity >= Severity::Warning);
    Ok(super::exit::findings(serious))
}
