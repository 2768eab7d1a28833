//! `sightline replay TRACE [--server NAME] [--ignore POINTER]... [--trace OUT] [--timeout D]
//! [--json] (-- CMD [ARGS...] | --url URL)`: a recorded client session sent again to a live
//! server (a command on stdio, or a Streamable HTTP endpoint), and each answer compared with
//! the recorded one.
//!
//! Composition only: [`crate::host::replay`] plays the recorded client through the tap into
//! OUT, [`crate::analysis::replay`] compares OUT with TRACE, [`crate::export::replay`] prints.
//! Exit status 0 when every answer matches, 1 when one differs or is missing, 2 when the
//! replay could not be done (no requests, the server would not start or died), keeping what
//! was recorded in OUT.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::errors::Saying;
use crate::i18n::Said;
use clap::Args;

use crate::analysis::compare::Difference;
use crate::analysis::compare::Pattern;
use crate::analysis::replay::{RequestResult, Side, Status, compare_replay, default_ignore};
use crate::host::replay::{Target, plan, replay_to_file};
use crate::tap::ServerCommand;
use crate::trace::Header;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recorded trace (file or session folder).
    trace: PathBuf,
    /// Which recorded server to replay, when the trace has several.
    #[arg(long, value_name = "NAME")]
    server: Option<String>,
    /// Leave out this JSON pointer when comparing answers (`*`: any index or key), e.g.
    /// `--ignore /result/content/*/text`. Repeatable.
    #[arg(long, value_name = "POINTER", value_parser = super::diff::parse_pattern)]
    ignore: Vec<Pattern>,
    /// Where the replay is recorded. Default: a new file in the data directory.
    #[arg(long = "trace", value_name = "OUT")]
    out: Option<PathBuf>,
    /// How long to wait for each answer: `10s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = super::check::parse_duration)]
    timeout: Duration,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    lang: super::lang::LangArg,
    /// A Streamable HTTP server to replay against instead of a command, e.g.
    /// `http://127.0.0.1:3001/mcp` (reached through the HTTP recording proxy).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// The server to replay against, and its arguments.
    #[arg(last = true, required_unless_present = "url", value_name = "CMD")]
    command: Vec<String>,
}

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let words = crate::i18n::Words::of(args.lang.language()?);
    if let Some(out) = &args.out {
        super::edges::refuse_output_over_input(out, &[&args.trace])?;
    }
    let recorded = super::load_trace(&args.trace)?;
    let rpc = crate::trace::analyze(&recorded.events);
    let plan = plan(&recorded.events, &rpc, args.server.as_deref()).map_err(|e| {
        Saying(
            Said::new("cli_error.in_file")
                .with("path", args.trace.display())
                .with_said("problem", crate::host::said::plan(&e)),
        )
    })?;
    let lane = (plan.lane.clone()).ok_or_else(|| anyhow::anyhow!("the plan names no server"))?;
    let name = lane.server_name().unwrap_or("server").to_string();
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| crate::tap::paths::default_trace_path(&format!("replay-{name}")));
    let mut header = Header::new(format!("sightline replay {}", args.trace.display()));
    header
        .extra
        .insert("replay_of".into(), args.trace.display().to_string().into());
    let target = match &args.url {
        Some(url) => Target::Url {
            url: url.clone(),
            name: name.clone(),
        },
        None => {
            let (program, rest) = args
                .command
                .split_first()
                .ok_or_else(|| Saying(Said::new("cli_error.no_command")))?;
            Target::Command(ServerCommand::new(
                name.clone(),
                program.clone(),
                rest.to_vec(),
            ))
        }
    };
    let shown = target.describe();
    let recorded_replay = replay_to_file(&plan, &target, &out_path, &header, args.timeout)?;
    for warning in &recorded_replay.warnings {
        let said = crate::analysis::trace_error::said(warning).say(words);
        eprintln!("{}", words.fmt("cli_error.warning", &[("message", &said)]));
    }
    let replayed = recorded_replay.replayed.map_err(|e| {
        Saying(
            Said::new("cli_error.replay_failed")
                .with("trace", args.trace.display())
                .with("target", &shown)
                .with_said("why", crate::host::said::replay(&e))
                .with("path", out_path.display()),
        )
    })?;
    let new_lane = target.lane();
    let shown_path = out_path.display().to_string();
    eprintln!(
        "{}",
        words.fmt("replay_text.recorded_in", &[("path", &shown_path)])
    );
    let new = super::load_trace(&out_path)?;
    let new_rpc = crate::trace::analyze(&new.events);
    let ignore = args
        .ignore
        .into_iter()
        .fold(default_ignore(), |i, p| i.with(p));
    let mut results = compare_replay(
        &Side {
            events: &recorded.events,
            rpc: &rpc,
            lane: &lane,
        },
        &Side {
            events: &new.events,
            rpc: &new_rpc,
            lane: &new_lane,
        },
        &ignore,
    );
    rejected_as_differences(&mut results, &replayed.rejected);
    let text = if args.json {
        crate::export::replay::json(&results)
    } else {
        crate::export::replay::text_in(&results, words)
    };
    super::edges::write_stdout(&text)?;
    let same = crate::export::replay::all_same(&results);
    super::edges::leave((recorded, rpc, plan, new, new_rpc, results, text));
    if !replayed.unanswerable.is_empty() {
        let count = replayed
            .unanswerable
            .iter()
            .map(|(_, n)| n)
            .sum::<usize>()
            .to_string();
        let what = replayed
            .unanswerable
            .iter()
            .map(|(method, n)| match n {
                1 => method.clone(),
                n => format!("{method} ×{n}"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        eprintln!(
            "{}",
            words.fmt(
                "replay_text.unanswerable",
                &[("count", &count), ("what", &what)]
            )
        );
    }
    if let Some(failure) = replayed.failure {
        return super::errors::fail(
            Said::new("cli_error.replay_unfinished")
                .with("target", &shown)
                .with_said("why", failure)
                .with("path", out_path.display()),
        );
    }
    Ok(ExitCode::from(u8::from(!same)))
}

/// A request the new server refused without a JSON-RPC answer (an HTTP `4xx`) differs from
/// its recording in the whole answer: the recorded one, then what the server said.
fn rejected_as_differences(results: &mut [RequestResult], rejected: &[(u64, String)]) {
    for (seq, said) in rejected {
        let Some(r) = results.iter_mut().find(|r| r.recorded_seq == *seq) else {
            continue;
        };
        if matches!(r.status, Status::NoAnswer) {
            r.status = Status::Differs {
                differences: vec![Difference {
                    pointer: String::new(),
                    old: Some(serde_json::Value::String("a JSON-RPC answer".into())),
                    new: Some(serde_json::Value::String(format!("rejected: {said}"))),
                }],
            };
        }
    }
}
