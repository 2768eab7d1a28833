//! `sightline validate TRACE [--json]`: every JSON-RPC message of a trace checked against the
//! official MCP JSON Schema of its revision (see [`crate::analysis::conformance`]).
//!
//! Text output is one line per violation, `#seq revision definition pointer: message`, then a
//! count. `--json` prints one JSON object: `checked`, `unpaired`, `unknown` (method -> count)
//! and `violations`. The exit status is 1 when there is at least one violation, 2 when the trace
//! cannot be read ([`super::exit`]).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::Args;

use crate::analysis::conformance::{self, Conformance};
use crate::i18n::Words;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The trace file (JSON Lines).
    trace: PathBuf,
    /// One JSON object (counts and violations) instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    lang: super::lang::LangArg,
}

pub fn run(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let lang = args.lang.language()?;
    let loaded = super::load_trace(&args.trace)?;
    let analysis = crate::trace::analyze(&loaded.events);
    let result = conformance::check(&loaded.events, &analysis);
    let out = if args.json {
        let mut s =
            serde_json::to_string_pretty(&result).within(|| Said::new("cli_error.write_json"))?;
        s.push('\n');
        s
    } else {
        text_in(&result, Words::of(lang))
    };
    super::edges::write_stdout(&out)?;
    Ok(super::exit::findings(!result.violations.is_empty()))
}

/// The text report: one line per violation, then the counts, in the language of `w`
/// (`validate_text.*`); each violation's message says the JSON Schema validator's finding ([`conformance::words`]).
pub fn text_in(result: &Conformance, w: Words) -> String {
    let mut out = String::new();
    for v in &result.violations {
        let pointer = if v.pointer.is_empty() {
            w.get("validate_text.whole_message")
        } else {
            &v.pointer
        };
        let _ = writeln!(
            out,
            "#{} {} {} {pointer}: {}",
            v.seq,
            v.revision,
            v.definition,
            v.message.say(w)
        );
    }
    let n = result.violations.len().to_string();
    let checked = result.checked.to_string();
    out.push_str(&w.fmt("validate_text.counts", &[("n", &n), ("checked", &checked)]));
    if !result.unknown.is_empty() {
        let methods: Vec<String> = result
            .unknown
            .iter()
            .map(|(m, c)| format!("{m} ×{c}"))
            .collect();
        out.push_str(&w.fmt(
            "validate_text.unknown",
            &[
                ("count", &result.unknown_total().to_string()),
                ("methods", &methods.join(", ")),
            ],
        ));
    }
    if result.unpaired > 0 {
        out.push_str(&w.fmt(
            "validate_text.unpaired",
            &[("count", &result.unpaired.to_string())],
        ));
    }
    out.push('\n');
    out
}
