//! `sightline wrap CONFIG [--undo] [--trace-dir DIR]`: put a host's stdio servers behind the proxy.
//!
//! The rewriting itself is [`crate::tap::wrap`]; this reads and writes the file. Before a change
//! is written, the file as it was is copied to `CONFIG.sightline-backup`; the new text replaces
//! the config atomically (a temporary file renamed over it). Nothing changes, and nothing is
//! written, when every server is already as asked.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::tap::wrap::{self, WrapOptions};

#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The host's MCP config: claude_desktop_config.json, .cursor/mcp.json, .mcp.json, or VS
    /// Code's mcp.json.
    config: PathBuf,
    /// Restore every wrapped server's original command (read from the proxy's arguments).
    #[arg(long)]
    undo: bool,
    /// Record each server to DIR/NAME.jsonl. Default: the proxy's own default, a timestamped
    /// file per run in the data directory.
    #[arg(long, value_name = "DIR", conflicts_with = "undo")]
    trace_dir: Option<PathBuf>,
}

pub fn run(args: WrapArgs) -> anyhow::Result<ExitCode> {
    let path = &args.config;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("config file {} does not exist", path.display())
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut config = wrap::parse_config(&text).with_context(|| format!("{}", path.display()))?;
    let backup = backup_path(path);
    let report = if args.undo {
        wrap::unwrap(&mut config)
    } else {
        let sightline =
            std::env::current_exe().context("cannot find the path of this sightline executable")?;
        let trace_dir = match &args.trace_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                Some(std::path::absolute(dir)?.display().to_string())
            }
            None => None,
        };
        wrap::wrap(
            &mut config,
            &WrapOptions {
                sightline: sightline.display().to_string(),
                trace_dir,
            },
        )
    }
    .with_context(|| format!("{}", path.display()))?;

    for server in &report {
        println!("{}: {}", server.name, server.action.describe());
    }
    if !report.iter().any(|s| s.action.changed()) {
        println!("{}: nothing to change", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut new_text = wrap::render_like(&config, &text);
    if args.undo {
        // When the backup holds exactly this config, give back its very bytes.
        if let Ok(old) = std::fs::read_to_string(&backup)
            && wrap::parse_config(&old).is_ok_and(|v| v == config)
        {
            new_text = old;
        }
    }
    std::fs::write(&backup, &text)
        .with_context(|| format!("cannot write the backup {}", backup.display()))?;
    let tmp = path.with_file_name(format!(
        ".{}.sightline-tmp",
        path.file_name()
            .map_or("config".into(), |n| n.to_string_lossy())
    ));
    std::fs::write(&tmp, &new_text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    println!(
        "{}: updated (previous version in {}); restart the host to apply",
        path.display(),
        backup.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".sightline-backup");
    PathBuf::from(name)
}
