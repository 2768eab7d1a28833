//! `sightline diff A B [--exit-code] [--json] [--ignore POINTER]... [--latency-ratio R]
//! [--latency-min-ms MS]`: what changed between two recordings (see
//! [`crate::analysis::diff`]).
//!
//! Without `--exit-code` the status is 0 whatever changed (like `git diff`); with it, 1 when a
//! change fails ([`crate::analysis::diff::Change::fails`]). 2 when a trace cannot be read or
//! the two traces speak different revisions.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::analysis::compare::{Ignore, Pattern};
use crate::analysis::diff::{self, DiffOptions};
use crate::i18n::Said;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier trace (file or session folder).
    a: PathBuf,
    /// The later trace (file or session folder).
    b: PathBuf,
    /// Exit 1 on a removal, a changed definition, a worse or changed outcome or a slowdown.
    #[arg(long)]
    exit_code: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Leave out this JSON pointer when comparing definitions and results (`*`: any index or
    /// key), e.g. `--ignore /content/*/text`. Repeatable.
    #[arg(long, value_name = "POINTER", value_parser = parse_pattern)]
    ignore: Vec<Pattern>,
    /// A call is slower when it takes this many times as long as in A...
    #[arg(long, default_value_t = 2.0, value_name = "RATIO")]
    latency_ratio: f64,
    /// ...and at least this many milliseconds longer.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    latency_min_ms: u64,
    #[command(flatten)]
    lang: super::lang::LangArg,
}

pub(crate) fn parse_pattern(s: &str) -> Result<Pattern, String> {
    Pattern::parse(s).map_err(|e| e.to_string())
}

/// Errors reach `cli::exit::trouble` (exit status 2), so a CI script can tell "differs" (1)
/// from "could not compare" (2).
pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let lang = args.lang.language()?;
    if !(args.latency_ratio.is_finite() && args.latency_ratio >= 1.0) {
        return super::errors::fail(
            Said::new("cli_error.latency_ratio").with("ratio", args.latency_ratio),
        );
    }
    // Only what the inventory reads is analysed: the JSON-RPC half and the last LLM request.
    let side = |path: &std::path::Path| -> anyhow::Result<(_, diff::Inventory)> {
        let loaded = super::load_trace(path)?;
        let inventory = diff::inventory_of(&loaded.events);
        Ok((loaded, inventory))
    };
    // The two sides are independent: read and analysed on two threads.
    let (a, b) = crate::trace::halves::join(|| side(&args.a), || side(&args.b));
    let ((loaded_a, a), (loaded_b, b)) = (a?, b?);
    let options = DiffOptions {
        ignore: args
            .ignore
            .into_iter()
            .fold(Ignore::defaults(), Ignore::with),
        latency_ratio: args.latency_ratio,
        latency_min_us: i64::try_from(args.latency_min_ms.saturating_mul(1000)).unwrap_or(i64::MAX),
    };
    let result = diff::diff(&a, &b, &options).map_err(|e| {
        super::errors::Saying(
            Said::new("cli_error.diff_pair")
                .with("a", args.a.display())
                .with("b", args.b.display())
                .with_said("problem", e.said()),
        )
    })?;
    let out = if args.json {
        crate::export::diff::json(&result)
    } else {
        crate::export::diff::text_in(&result, crate::i18n::Words::of(lang))
    };
    super::edges::write_stdout(&out)?;
    let status = super::exit::findings(args.exit_code && result.exit_status() == 1);
    super::edges::leave((loaded_a, loaded_b, a, b, result, out));
    Ok(status)
}
