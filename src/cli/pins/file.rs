//! The pin file on disk: where it is (`--pins FILE`, else `$SIGHTLINE_PINS`, else the user's
//! data directory), reading it (a missing file is an empty store) and writing it whole through
//! a temporary file and a rename, so that an interrupted write never leaves half a file.

use std::path::{Path, PathBuf};

use crate::cli::errors::{Context as _, Saying};
use crate::i18n::Said;

use crate::analysis::pins::PinStore;

/// Environment variable naming the pin file (overridden by `--pins FILE`).
pub const PINS_ENV: &str = "SIGHTLINE_PINS";

/// Where the pins live: `flag` (`--pins FILE`), else `$SIGHTLINE_PINS`, else `pins.json` in the
/// user's data directory (`~/.local/share/sightline` on Linux).
pub fn path_for(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    path_from(flag, std::env::var_os(PINS_ENV))
}

/// [`path_for`] with the environment variable's value given.
fn path_from(flag: Option<&Path>, env: Option<std::ffi::OsString>) -> anyhow::Result<PathBuf> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = env.filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    match directories::ProjectDirs::from("", "", "sightline") {
        Some(dirs) => Ok(dirs.data_dir().join("pins.json")),
        None => Err(Saying(Said::new("cli_error.no_data_dir").with("variable", PINS_ENV)).into()),
    }
}

/// Loads the pin file at `path`; a missing file is an empty store.
pub fn open(path: &Path) -> anyhow::Result<PinStore> {
    match crate::trace::encoding::read_to_string(path) {
        Ok(text) => Ok(PinStore::parse(path, &text)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PinStore::empty(path)),
        Err(e) => Err(e).within(|| Said::new("cli_error.cannot_read").with("path", path.display())),
    }
}

/// Writes the pin file (through a temporary file and a rename), creating its directory.
pub fn save(store: &PinStore) -> anyhow::Result<()> {
    let path = &store.path;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .within(|| Said::new("cli_error.cannot_create").with("path", dir.display()))?;
    }
    let text = store
        .to_text()
        .within(|| Said::new("cli_error.encode_pins"))?;
    let mut tmp = path.clone().into_os_string();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .within(|| Said::new("cli_error.cannot_write").with("path", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .within(|| Said::new("cli_error.cannot_replace").with("path", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_environment_then_the_data_directory() {
        let env = Some(std::ffi::OsString::from("/tmp/from-env.json"));
        assert_eq!(
            path_from(None, env.clone()).expect("path"),
            Path::new("/tmp/from-env.json")
        );
        assert_eq!(
            path_from(Some(Path::new("x.json")), env).expect("path"),
            Path::new("x.json")
        );
        // In the data directory: `sightline/pins.json` on Linux and macOS,
        // `sightline\data\pins.json` under %APPDATA% on Windows.
        if let Ok(default) = path_from(None, Some("".into())) {
            assert!(
                default.ends_with("pins.json")
                    && default.components().any(|c| c.as_os_str() == "sightline"),
                "{}",
                default.display()
            );
        }
    }

    #[test]
    fn a_missing_file_is_empty_and_a_saved_one_reads_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("nested/pins.json");
        let mut store = open(&path).expect("open missing file");
        assert_eq!(store.pins().count(), 0);
        store.file.servers.push(crate::analysis::pins::ServerPins {
            server: "srv".into(),
            command: None,
            tools: vec![crate::analysis::pins::Pin {
                tool: "fact".into(),
                sha256: "ab".repeat(32),
                pinned_at: "2026-11-29T12:00:00Z".into(),
                definition: r#"{"name":"fact"}"#.into(),
            }],
        });
        save(&store).expect("save");
        assert_eq!(open(&path).expect("reopen"), store);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("list")
            .filter_map(Result::ok)
            .filter(|e| e.file_name() != "pins.json")
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }

    #[test]
    fn a_newer_pin_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("pins.json");
        std::fs::write(&path, r#"{"version": 99, "servers": []}"#).expect("write");
        let err = open(&path).expect_err("newer version");
        assert!(err.to_string().contains("version 99"), "{err}");
    }
}
