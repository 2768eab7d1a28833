//! Replacing a host's config file without loosening it, and keeping its backups.
//!
//! A config often holds secrets (`env` values, `headers`), so its mode matters: a `0600` file
//! stays `0600` and keeps its owner and group; nothing written here is ever more readable than
//! the file it came from. The new text goes to a temporary file beside the real file (the
//! target, when the config is a symbolic link, so the link stays a link), is flushed to disk,
//! gets the original's mode and owner, and is renamed over it: a crash leaves the old file or
//! the new one, never half of one. A file without write permission is refused, not replaced.
//!
//! Backups (`CONFIG.sightline-backup`, then `.sightline-backup.2`, ...) are never overwritten:
//! a text already in one of them is not saved again, and any other text gets the next free name.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(
        "{path} is read-only (mode {mode:04o}); sightline does not replace it: make it writable \
         first (chmod u+w)"
    )]
    ReadOnly { path: PathBuf, mode: u32 },
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

/// Refuses a file this user may not (or should not) write: no write bit, or `access(2)` says no.
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    let real = std::fs::canonicalize(path).map_err(io_error("resolve", path))?;
    let meta = std::fs::metadata(&real).map_err(io_error("read the metadata of", &real))?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o222 == 0 {
        return Err(FileError::ReadOnly {
            path: path.to_path_buf(),
            mode,
        });
    }
    let c_path = std::ffi::CString::new(real.as_os_str().as_encoded_bytes())
        .map_err(|_| FileError::NotWritable { path: real.clone() })?;
    // SAFETY: access(2) reads a NUL-terminated path and touches nothing else.
    if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } != 0 {
        return Err(FileError::NotWritable {
            path: path.to_path_buf(),
        });
    }
    Ok(())
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
        .and_then(|()| std::fs::rename(&tmp, &real).map_err(io_error("replace", &real)));
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
    let mine = file
        .metadata()
        .map_err(io_error("read the metadata of", path))?;
    if (mine.uid(), mine.gid()) != (like.uid(), like.gid()) {
        std::os::unix::fs::fchown(&file, Some(like.uid()), Some(like.gid())).map_err(|source| {
            FileError::Owner {
                path: path.with_file_name(""),
                uid: like.uid(),
                gid: like.gid(),
                source,
            }
        })?;
    }
    let mode = like.permissions().mode() & 0o7777;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io_error("set the mode of", path))
}

/// A new file readable by its owner only (the mode is set once the content is in).
fn create_private(path: &Path) -> Result<File, FileError> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_error("create", path))
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
    // The owner when this user may give it (root); otherwise the backup stays this user's,
    // who could read the config anyway.
    let _ = std::os::unix::fs::fchown(&file, Some(like.uid()), Some(like.gid()));
    let mode = like.permissions().mode() & 0o666;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io_error("set the mode of", &path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

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
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
        let first = save_backup(&config, b"one").unwrap();
        assert_eq!(save_backup(&config, b"one").unwrap(), first);
        let second = save_backup(&config, b"two").unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        assert_eq!(std::fs::read(&second).unwrap(), b"two");
        assert_eq!(backups(&config), [first.clone(), second]);
        assert_eq!(mode(&first), 0o600);
    }
}
