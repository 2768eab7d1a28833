//! `sightline pins list|accept TRACE|forget SERVER[/TOOL]|check TRACE`: tool pinning and rug
//! pulls (see [`crate::analysis::pins`]).
//!
//! The pin file is `--pins FILE`, else `$SIGHTLINE_PINS`, else `pins.json` in the user's data
//! directory. `check` exits 1 when a definition changed (within the trace or since it was
//! pinned), 2 when the trace or the pin file cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::{Args, Subcommand};

use crate::analysis::definitions::{self, Definitions, ToolList};
use crate::analysis::pins::{self, Finding, PinStore};
use crate::i18n::Words;

pub(super) mod file;

#[derive(Debug, Args)]
pub struct PinsArgs {
    /// The pin file. Default: $SIGHTLINE_PINS, else pins.json in the user's data directory.
    #[arg(long, value_name = "FILE", global = true)]
    pins: Option<PathBuf>,
    /// The language of what is printed: en, pt or es (default: from LC_ALL, LC_MESSAGES or
    /// LANG, else en).
    #[arg(long, value_name = "LANG", global = true)]
    lang: Option<String>,
    #[command(subcommand)]
    command: PinsCommand,
}

#[derive(Debug, Subcommand)]
enum PinsCommand {
    /// Show every pin: server, tool, hash prefix, when it was pinned, the server's command.
    List,
    /// Pin every tool definition of the last tools/list of each server in a trace.
    Accept {
        /// The trace file (JSON Lines).
        trace: PathBuf,
    },
    /// Forget the pins of a server (`SERVER`) or of one tool (`SERVER/TOOL`).
    Forget {
        /// `SERVER` or `SERVER/TOOL`.
        target: String,
    },
    /// Compare a trace with the pins and within itself; exit 1 on any rug pull.
    Check {
        /// The trace file (JSON Lines).
        trace: PathBuf,
        /// One JSON record per finding instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: PinsArgs) -> anyhow::Result<ExitCode> {
    let lang = super::lang::LangArg { lang: args.lang };
    let w = Words::of(lang.language()?);
    let path = file::path_for(args.pins.as_deref())?;
    let mut out = String::new();
    let status = match args.command {
        PinsCommand::List => {
            list(&file::open(&path)?, &mut out, w);
            ExitCode::SUCCESS
        }
        PinsCommand::Accept { trace } => {
            let lists = tool_lists(&trace)?;
            if lists.iter().all(|l| !l.complete) {
                let trace = trace.display().to_string();
                bail!("{}", w.fmt("pins_cli.nothing_to_pin", &[("trace", &trace)]));
            }
            let mut store = file::open(&path)?;
            let accepted = store.accept(&lists, chrono::Utc::now());
            file::save(&store)?;
            for a in &accepted {
                let was = match &a.previous {
                    None => w.get("pins_cli.new").to_string(),
                    Some(p) if *p == a.sha256 => w.get("pins_cli.unchanged").to_string(),
                    Some(p) => w.fmt("pins_cli.was", &[("sha", short(p))]),
                };
                let line = w.fmt(
                    "pins_cli.pinned",
                    &[
                        ("server", &a.server.name),
                        ("tool", &a.tool),
                        ("sha", short(&a.sha256)),
                        ("was", &was),
                    ],
                );
                out.push_str(&line);
                out.push('\n');
            }
            let count = accepted.len().to_string();
            let path = path.display().to_string();
            let line = w.fmt(
                "pins_cli.pinned_count",
                &[("count", &count), ("path", &path)],
            );
            out.push_str(&line);
            out.push('\n');
            ExitCode::SUCCESS
        }
        PinsCommand::Forget { target } => {
            let mut store = file::open(&path)?;
            let removed = store.forget(&target);
            if removed.is_empty() {
                let path = path.display().to_string();
                bail!(
                    "{}",
                    w.fmt("pins_cli.no_match", &[("target", &target), ("path", &path)])
                );
            }
            file::save(&store)?;
            for (server, tool) in &removed {
                let line = w.fmt("pins_cli.forgot", &[("server", server), ("tool", tool)]);
                out.push_str(&line);
                out.push('\n');
            }
            ExitCode::SUCCESS
        }
        PinsCommand::Check { trace, json } => match check(&trace, &path, json, &mut out, w) {
            Ok(status) => status,
            Err(err) => super::exit::trouble(&err),
        },
    };
    super::edges::write_stdout(&out)?;
    Ok(status)
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// Loads a trace and reads its tool listings.
pub(super) fn load(trace: &Path) -> anyhow::Result<Definitions> {
    let loaded = super::load_trace(trace)?;
    let rpc = crate::trace::analyze(&loaded.events);
    Ok(definitions::definitions(&loaded.events, &rpc))
}

fn tool_lists(trace: &Path) -> anyhow::Result<Vec<ToolList>> {
    Ok(load(trace)?.lists)
}

fn list(store: &PinStore, out: &mut String, w: Words) {
    let path = store.path.display().to_string();
    if store.pins().next().is_none() {
        out.push_str(&w.fmt("pins_cli.no_pins", &[("path", &path)]));
        out.push('\n');
        return;
    }
    out.push_str(&w.fmt("pins_cli.pins_in", &[("path", &path)]));
    out.push('\n');
    let rows: Vec<[String; 5]> = store
        .pins()
        .map(|(server, pin)| {
            [
                server.server.clone(),
                pin.tool.clone(),
                short(&pin.sha256).to_string(),
                pin.pinned_at.clone(),
                server
                    .command
                    .as_ref()
                    .map(|c| c.join(" "))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let header = [
        w.get("pins_cli.col_server"),
        w.get("pins_cli.col_tool"),
        "SHA256",
        w.get("pins_cli.col_pinned"),
        w.get("pins_cli.col_command"),
    ];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i == 4 {
                text.push_str(cell);
            } else {
                let pad = widths[i].saturating_sub(cell.chars().count());
                text.push_str(&format!("{cell}{}  ", " ".repeat(pad)));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
}

fn check(
    trace: &Path,
    path: &Path,
    json: bool,
    out: &mut String,
    w: Words,
) -> anyhow::Result<ExitCode> {
    let lists = tool_lists(trace)?;
    let store = file::open(path)?;
    let findings = pins::check_trace(&lists, Some(&store));
    let rug_pulls = findings.iter().filter(|f| f.is_rug_pull()).count();
    if json {
        for f in &findings {
            out.push_str(
                &serde_json::to_string(f).within(|| Said::new("cli_error.encode_finding"))?,
            );
            out.push('\n');
        }
    } else {
        let head = w.fmt(
            "pins_cli.check_head",
            &[
                ("trace", &trace.display().to_string()),
                ("count", &lists.len().to_string()),
                ("path", &path.display().to_string()),
            ],
        );
        out.push_str(&head);
        out.push('\n');
        for f in &findings {
            out.push_str(&f.headline_in(w));
            out.push('\n');
            if let Some(diff) = f.diff_in(w) {
                for line in diff.lines() {
                    out.push_str("    ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        let within = findings
            .iter()
            .filter(|f| matches!(f, Finding::RugPull { .. }))
            .count();
        let counts = if rug_pulls == 0 {
            w.get("pins_cli.no_rug_pull").to_string()
        } else {
            w.fmt(
                "pins_cli.rug_pulls",
                &[
                    ("count", &rug_pulls.to_string()),
                    ("within", &within.to_string()),
                    ("pins", &(rug_pulls - within).to_string()),
                ],
            )
        };
        out.push_str(&counts);
        out.push('\n');
    }
    Ok(super::exit::findings(rug_pulls > 0))
}
