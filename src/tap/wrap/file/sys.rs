//! Where keeping a config file's protection differs between systems.
//!
//! Unix: the mode bits and the owner and group, given to the new file before it is renamed over
//! the old one. Windows: the read-only attribute refuses the file as a missing write bit does,
//! and `ReplaceFileW` puts the new file in place *keeping the old one's ACL* (its owner, its
//! security descriptor, its attributes) where a rename would give it the folder's; what
//! Windows cannot keep is a backup's ACL, which is its folder's (the config's folder, so the
//! same readers as a config that inherits it).

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

#[cfg(unix)]
mod unix {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
    use std::path::Path;

    use super::super::{FileError, io_error};

    /// Refuses a file with no write bit, or one `access(2)` says this user may not write.
    pub fn check_writable(
        path: &Path,
        real: &Path,
        meta: &std::fs::Metadata,
    ) -> Result<(), FileError> {
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o222 == 0 {
            return Err(FileError::ReadOnly {
                path: path.to_path_buf(),
                mode,
            });
        }
        let c_path = std::ffi::CString::new(real.as_os_str().as_encoded_bytes()).map_err(|_| {
            FileError::NotWritable {
                path: real.to_path_buf(),
            }
        })?;
        // SAFETY: access(2) reads a NUL-terminated path and touches nothing else.
        if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } != 0 {
            return Err(FileError::NotWritable {
                path: path.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Gives the new file `like`'s owner, group and mode.
    pub fn protect_like(
        file: &File,
        path: &Path,
        like: &std::fs::Metadata,
    ) -> Result<(), FileError> {
        let mine = file
            .metadata()
            .map_err(io_error("read the metadata of", path))?;
        if (mine.uid(), mine.gid()) != (like.uid(), like.gid()) {
            std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid())).map_err(
                |source| FileError::Owner {
                    path: path.with_file_name(""),
                    uid: like.uid(),
                    gid: like.gid(),
                    source,
                },
            )?;
        }
        let mode = like.permissions().mode() & 0o7777;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io_error("set the mode of", path))
    }

    /// Gives a backup the config's owner when this user may (root; otherwise the backup stays
    /// this user's, who could read the config anyway) and its read and write bits.
    pub fn protect_backup_like(file: &File, like: &std::fs::Metadata) -> io::Result<()> {
        let _ = std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid()));
        let mode = like.permissions().mode() & 0o666;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }

    /// Puts `new` in `real`'s place, atomically.
    pub fn replace_with(new: &Path, real: &Path) -> io::Result<()> {
        std::fs::rename(new, real)
    }

    /// A new file readable by its owner only (the mode is set once the content is in).
    pub fn create_private(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
    }

    /// Opened from its start, mode 0600 (an existing file keeps its mode on open: set again).
    pub fn open_private(path: &Path) -> io::Result<File> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        Ok(file)
    }
}

#[cfg(windows)]
mod windows {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::windows::ffi::OsStrExt as _;
    use std::path::Path;

    use super::super::{FileError, io_error};

    /// Refuses a file with the read-only attribute, or one this user cannot open for writing.
    pub fn check_writable(
        path: &Path,
        real: &Path,
        meta: &std::fs::Metadata,
    ) -> Result<(), FileError> {
        if meta.permissions().readonly() {
            return Err(FileError::ReadOnlyAttribute {
                path: path.to_path_buf(),
            });
        }
        // Opening for writing truncates nothing and changes no time; only the ACL is asked.
        if OpenOptions::new().write(true).open(real).is_err() {
            return Err(FileError::NotWritable {
                path: path.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Nothing before the replacement: `ReplaceFileW` gives the new file the old one's ACL.
    pub fn protect_like(
        _file: &File,
        _path: &Path,
        _like: &std::fs::Metadata,
    ) -> Result<(), FileError> {
        let _ = io_error;
        Ok(())
    }

    /// A backup keeps its folder's ACL (see the module); a read-only config gives a read-only
    /// backup.
    pub fn protect_backup_like(file: &File, like: &std::fs::Metadata) -> io::Result<()> {
        if like.permissions().readonly() {
            let mut perms = file.metadata()?.permissions();
            perms.set_readonly(true);
            file.set_permissions(perms)?;
        }
        Ok(())
    }

    /// Puts `new` in `real`'s place with `real`'s ACL and attributes (`ReplaceFileW`).
    pub fn replace_with(new: &Path, real: &Path) -> io::Result<()> {
        use windows_sys::Win32::Storage::FileSystem::{
            REPLACEFILE_IGNORE_MERGE_ERRORS, ReplaceFileW,
        };
        let wide = |p: &Path| -> Vec<u16> { p.as_os_str().encode_wide().chain([0]).collect() };
        let (replaced, replacement) = (wide(real), wide(new));
        // SAFETY: two NUL-terminated wide paths that live across the call; no backup, no
        // reserved pointers.
        let ok = unsafe {
            ReplaceFileW(
                replaced.as_ptr(),
                replacement.as_ptr(),
                std::ptr::null(),
                REPLACEFILE_IGNORE_MERGE_ERRORS,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// A new file (it gets its folder's ACL until it replaces the config).
    pub fn create_private(path: &Path) -> io::Result<File> {
        OpenOptions::new().write(true).create_new(true).open(path)
    }

    /// Opened from its start, with its folder's ACL (the user's data dir keeps others out).
    pub fn open_private(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
    }
}
