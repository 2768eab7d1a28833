//! `sightline session list|path|watch|merge`: the traces of several proxies seen as one.
//!
//! A session is a folder (see [`crate::tap::paths::session_dir`]) where every proxy started
//! with `--session NAME` writes its own trace file; [`crate::trace::session`] merges them. Every
//! command that reads a trace (`summary`, `doctor`, `validate`, `export`, `open`) also takes the
//! folder itself; `merge` writes the merged trace as one file to keep or share.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::errors::Context as _;
use crate::i18n::Said;
use clap::Subcommand;

use crate::tap::paths;
use crate::trace::{self, write_trace};

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// The sessions in the data directory, newest first, with their files and event counts.
    List,
    /// Print the folder of session NAME (for the commands that read a trace).
    Path {
        /// The session's name (or its folder).
        #[arg(value_parser = crate::tap::paths::session_name)]
        name: String,
    },
    /// Open the app on session NAME and show its events live as the proxies record them.
    Watch {
        /// The session's name (or its folder).
        #[arg(value_parser = crate::tap::paths::session_name)]
        name: String,
    },
    /// Write the session's traces merged in time order into one trace file.
    Merge {
        /// The session's name (or its folder).
        #[arg(value_parser = crate::tap::paths::session_name)]
        name: String,
        /// Where to write the merged trace.
        #[arg(long, value_name = "OUT")]
        trace: PathBuf,
    },
}

pub fn run(command: SessionCommand) -> anyhow::Result<ExitCode> {
    match command {
        SessionCommand::List => {
            let sessions = paths::sessions();
            if sessions.is_empty() {
                println!(
                    "no sessions in {} (start proxies with --session NAME)",
                    paths::data_dir().join("sessions").display()
                );
            }
            for (name, dir) in sessions {
                match trace::load(&dir) {
                    Ok(loaded) => {
                        let files = loaded
                            .header
                            .extra
                            .get("members")
                            .and_then(|m| m.as_array())
                            .map_or(0, Vec::len);
                        println!(
                            "{name}\t{files} file(s)\t{} events\t{}",
                            loaded.events.len(),
                            dir.display()
                        );
                    }
                    Err(e) => println!("{name}\t(unreadable: {e})\t{}", dir.display()),
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        SessionCommand::Path { name } => {
            println!("{}", paths::session_dir(&name).display());
            Ok(ExitCode::SUCCESS)
        }
        SessionCommand::Watch { name } => {
            let dir = paths::session_dir(&name);
            std::fs::create_dir_all(&dir)
                .within(|| Said::new("cli_error.cannot_create").with("path", dir.display()))?;
            crate::ui::launch(crate::ui::Start::Follow(dir))
        }
        SessionCommand::Merge { name, trace: out } => {
            let dir = paths::session_dir(&name);
            super::edges::refuse_output_over_input(&out, &[&dir])?;
            let loaded = super::load_trace(&dir)?;
            write_trace(&out, &loaded.header, &loaded.events)?;
            eprintln!(
                "sightline: {} events from {} merged into {}",
                loaded.events.len(),
                dir.display(),
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
