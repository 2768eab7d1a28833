//! Man pages from the command line's own definition (`sightline man DIR`, hidden): the
//! Debian package (`tools/deb.sh`) ships them, so `man sightline-run` says what `sightline run
//! --help` says and can never fall behind it.

use std::path::Path;

use anyhow::Context as _;

/// Writes `sightline.1`, and `sightline-COMMAND.1` for each visible command (and
/// `sightline-COMMAND-SUB.1` for theirs), into `dir`.
pub fn write(mut command: clap::Command, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Built, every command knows its full name (`sightline run`) for its synopsis.
    command.build();
    pages(command, "sightline", dir)
}

/// The page of `command`, named `name`, then its commands' pages.
fn pages(command: clap::Command, name: &str, dir: &Path) -> anyhow::Result<()> {
    let command = command
        .display_name(name)
        .version(env!("CARGO_PKG_VERSION"));
    let mut text = Vec::new();
    clap_mangen::Man::new(command.clone())
        .source(format!("sightline {}", env!("CARGO_PKG_VERSION")))
        .render(&mut text)
        .context("cannot render a man page")?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    // Not clap's own `help` command: `--help` and these pages say it.
    let shown = |s: &&clap::Command| !s.is_hide_set() && s.get_name() != "help";
    for sub in command.get_subcommands().filter(shown) {
        pages(sub.clone(), &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(())
}
