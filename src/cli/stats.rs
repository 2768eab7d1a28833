//! `sightline stats TRACE [--json] [--by method|tool|server|model]`: counts, errors and
//! latency percentiles per method, tool, server and model, each LLM request's tool tokens and
//! times, and the busiest second ([`crate::analysis::stats`], written by
//! [`crate::export::stats`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::analysis::stats::By;
use crate::i18n::Words;

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The trace file (JSON Lines), or a session folder.
    trace: PathBuf,
    /// One JSON document instead of text tables.
    #[arg(long)]
    json: bool,
    /// The tables to print, by what their rows are grouped (repeat or separate with commas;
    /// default: all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    by: Vec<ByArg>,
    /// Count only the events this display filter keeps (the language of `summary --filter`).
    #[arg(long, value_name = "EXPR")]
    filter: Option<String>,
    #[command(flatten)]
    lang: super::lang::LangArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ByArg {
    Method,
    Tool,
    Server,
    Model,
}

impl From<ByArg> for By {
    fn from(b: ByArg) -> By {
        match b {
            ByArg::Method => By::Method,
            ByArg::Tool => By::Tool,
            ByArg::Server => By::Server,
            ByArg::Model => By::Model,
        }
    }
}

pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let words = Words::of(args.lang.language()?);
    let matcher = args
        .filter
        .as_deref()
        .map(super::filter::parse)
        .transpose()?;
    let loaded = super::load_trace(&args.trace)?;
    let events = &loaded.events;
    let (rpc, exchanges) = crate::trace::halves::join(
        || crate::trace::analyze(events),
        || crate::analysis::llm_counts(events),
    );
    let by: Vec<By> = match args.by.is_empty() {
        true => By::ALL.to_vec(),
        false => args.by.into_iter().map(By::from).collect(),
    };
    let llm: Vec<_> = exchanges.iter().collect();
    let bpe = crate::analysis::tokens::own();
    let kept = matcher.map(|m| super::filter::kept(events, &rpc, &m));
    let keep = |i: usize| kept.as_ref().is_none_or(|k| k[i]);
    let stats = crate::analysis::stats::stats(events, &rpc, &llm, &by, bpe, &keep);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match args.json {
        true => crate::export::stats::write_json(&mut out, &stats),
        false => crate::export::stats::write_text(&mut out, &stats, words),
    };
    use std::io::Write as _;
    super::edges::stdout_written(written.and_then(|()| out.flush()))?;
    drop(llm);
    // The process ends next: the trace and its analysis go back to the system with it, not
    // freed one allocation at a time (millions of them in a big trace).
    std::mem::forget((loaded, rpc, exchanges));
    Ok(ExitCode::SUCCESS)
}
