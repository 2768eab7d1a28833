//! Replacing a host's config file without loosening it, and keeping its backups.
//!
//! A config often holds secrets (`env` values, `headers`), so its mode matters: a `0600` file
//! stays `0600` and keeps its owner and group; nothing written here is ever more readable than
//! the file it came from. The new text goes to a temporary file beside the real file (the
//! target, when the config is a symbolic link, so the link stays a link), is flushed to disk,
//! gets the original's mode and owner, and is renamed over it: a crash leaves the old file or
//! the new one, never half of one. A file without write permission is refused, not replaced.
//! On Windows the read-only attribute and the file's ACL play these parts ([`sys`]).
//!
//! Backups (`CONFIG.sightline-backup`, then `.sightline-backup.2`, ...) are never overwritten:
//! a text already in one of them is not saved again, and any other text gets the next free name.

use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

// An explicit path, as for this file (see tap/wrap.rs).
#[path = "file/sys.rs"]
mod sys;

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(
        "{path} is read-only (mode {mode:04o}); sightline does not replace it: make it writable \
         first (chmod u+w)"
    )]
    ReadOnly { path: PathBuf, mode: u32 },
    #[error(
        "{path} is read-only (its read-only attribute is set); sightline does not replace it: \
         make it writable first (attrib -r)"
    )]
    ReadOnlyAttribute { path: PathBuf },
    #[error("{path} is not writable by this user; sightline does not replace it")]
    NotWritable { path: PathBuf },
    #[error(
        "cannot give the new {path} its owner back (uid {uid}, gid {gid}): {source}; the file \
         is unchanged"
    )]
    Owner {
        path: PathBuf,
        uid: u32,
        gid: u32,
        source: io::Error,
    },
    #[error("cannot {what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

fn io_error<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> FileError + 'a {
    move |source| FileError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses a file this user may not (or should not) write: no write bit, or `access(2)` says no
/// (on Windows: the read-only attribute, or the ACL).
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    let real = std::fs::canonicalize(path).map_err(io_error("resolve", path))?;
    let meta = std::fs::metadata(&real).map_err(io_error("read the metadata of", &real))?;
    sys::check_writable(path, &real, &meta)
}

/// Replaces the file `path` names (through symbolic links) with `contents`, atomically, keeping
/// its mode, owner and group.
pub fn replace(path: &Path, contents: &[u8]) -> Result<(), FileError> {
    check_writable(path)?;
    let real = std::fs::canonicalize(path).map_err(io_error("resolve", path))?;
    let meta = std::fs::metadata(&real).map_err(io_error("read the metadata of", &real))?;
    let name = real
        .file_name()
        .map_or("config".into(), |n| n.to_string_lossy().into_owned());
    let tmp = real.with_file_name(format!(".{name}.sightline-tmp-{}", std::process::id()));
    let written = write_like(&tmp, contents, &meta)
        .and_then(|()| sys::replace_with(&tmp, &real).map_err(io_error("replace", &real)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Writes a new file `path` (which must not exist) holding `contents`, with `like`'s mode,
/// owner and group, flushed to disk.
fn write_like(path: &Path, contents: &[u8], like: &std::fs::Metadata) -> Result<(), FileError> {
    let mut file = create_private(path)?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(io_error("write", path))?;
    sys::protect_like(&file, path, like)
}

/// A new file readable by its owner only (the mode is set once the content is in).
fn create_private(path: &Path) -> Result<File, FileError> {
    sys::create_private(path).map_err(io_error("create", path))
}

/// Opens `path` for writing from its start (made if missing), readable by this user alone:
/// mode 0600 on Unix, set again on a file that existed; on Windows the folder's ACL (see
/// [`sys`]).
pub fn open_private(path: &Path) -> io::Result<File> {
    sys::open_private(path)
}

/// How many backups of one config are looked for.
const MAX_BACKUPS: usize = 100;

/// The backups of `config` that exist, oldest name first.
pub fn backups(config: &Path) -> Vec<PathBuf> {
    (1..=MAX_BACKUPS)
        .map(|n| backup_name(config, n))
        .filter(|p| p.exists())
        .collect()
}

fn backup_name(config: &Path, n: usize) -> PathBuf {
    let mut name = config.as_os_str().to_os_string();
    name.push(".sightline-backup");
    if n > 1 {
        name.push(format!(".{n}"));
    }
    PathBuf::from(name)
}

/// Saves `contents` (the config's text before a change) as a backup of `config`, unless a
/// backup already holds exactly it; never overwrites one. The backup gets the config's mode
/// (and its owner when allowed), never anything wider. Returns the backup holding the text.
pub fn save_backup(config: &Path, contents: &[u8]) -> Result<PathBuf, FileError> {
    let existing = backups(config);
    if let Some(same) = existing
        .iter()
        .find(|b| std::fs::read(b).is_ok_and(|old| old == contents))
    {
        return Ok(same.clone());
    }
    let Some(path) = (1..=MAX_BACKUPS)
        .map(|n| backup_name(config, n))
        .find(|p| !p.exists())
    else {
        return Err(FileError::Io {
            what: "save a backup beside",
            path: config.to_path_buf(),
            source: io::Error::other(format!("{MAX_BACKUPS} backups exist already")),
        });
    };
    let like = std::fs::metadata(config).map_err(io_error("read the metadata of", config))?;
    let mut file = create_private(&path)?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(io_error("write", &path))?;
    sys::protect_backup_like(&file, &like).map_err(io_error("set the mode of", &path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt as _;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    // Modes and symbolic links are Unix's (a Windows symbolic link needs a privilege a user
    // rarely has): Windows has its own test below.
    #[cfg(unix)]
    #[test]
    fn replace_keeps_the_mode_and_the_link_and_refuses_read_only_files() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        replace(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(mode(&real), 0o640);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 2, "no temporary file left");

        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = replace(&real, b"newer").unwrap_err();
        assert!(err.to_string().contains("read-only (mode 0444)"), "{err}");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn backups_are_never_overwritten_nor_repeated() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.json");
        std::fs::write(&config, "x").unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
        let first = save_backup(&config, b"one").unwrap();
        assert_eq!(save_backup(&config, b"one").unwrap(), first);
        let second = save_backup(&config, b"two").unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        assert_eq!(std::fs::read(&second).unwrap(), b"two");
        assert_eq!(backups(&config), [first.clone(), second]);
        #[cfg(unix)]
        assert_eq!(mode(&first), 0o600);
    }

    #[cfg(windows)]
    #[test]
    fn replace_puts_the_text_in_place_and_refuses_a_file_with_the_read_only_attribute() {
        let set_readonly = |path: &Path, readonly: bool| {
            let mut perms = std::fs::metadata(path).unwrap().permissions();
            perms.set_readonly(readonly);
            std::fs::set_permissions(path, perms).unwrap();
        };
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        replace(&real, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left");

        set_readonly(&real, true);
        let backup = save_backup(&real, b"new").unwrap();
        assert!(std::fs::metadata(&backup).unwrap().permissions().readonly());
        let err = replace(&real, b"newer").unwrap_err();
        assert!(matches!(err, FileError::ReadOnlyAttribute { .. }), "{err}");
        assert!(err.to_string().contains("attrib -r"), "{err}");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        for path in [&real, &backup] {
            set_readonly(path, false);
        }
    }
}
