//! Where recordings go when the user does not say: the data directory, its `traces/` folder
//! and its `sessions/` folders.
//!
//! One place decides this so that the proxies, the app and the importers agree, and so that a
//! session named on one command line (`--session demo`) is the same folder for every proxy
//! that names it. `SIGHTLINE_DATA_DIR` overrides the platform's data directory (tests use it).

use std::path::{Path, PathBuf};

/// The directory for Sightline's own files: `$SIGHTLINE_DATA_DIR`, else the platform data dir
/// (`~/.local/share/sightline` on Linux), else the temporary directory.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIGHTLINE_DATA_DIR") {
        return PathBuf::from(dir);
    }
    directories::ProjectDirs::from("", "", "sightline")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join("sightline"))
}

/// A fresh, timestamped trace path for `name` under the data dir's `traces/`.
pub fn default_trace_path(name: &str) -> PathBuf {
    data_dir().join("traces").join(stamped(name))
}

/// The folder of session `name`: used as given when it looks like a path (it contains a `/`),
/// else `sessions/NAME` in the data dir.
pub fn session_dir(name: &str) -> PathBuf {
    if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
        PathBuf::from(name)
    } else {
        data_dir().join("sessions").join(name)
    }
}

/// Checks a session name given on the command line (a clap value parser): a name is one
/// folder under `sessions/`, so `..`, `.` and the empty name, which would name the data dir, the
/// sessions folder itself or nothing, are refused; a name with a `/` is a path, as the user
/// wrote it.
pub fn session_name(name: &str) -> Result<String, String> {
    if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
        return Ok(name.to_string());
    }
    match name.trim() {
        "" => Err("a session needs a name".into()),
        "." | ".." => Err(format!(
            "`{name}` would escape the sessions folder: name the session (`demo`), or give \
             its folder as a path with a `/` (`./demo`)"
        )),
        _ if name.chars().any(char::is_control) => {
            Err("a session name cannot hold control characters".into())
        }
        _ => Ok(name.to_string()),
    }
}

/// A fresh trace path for one recorder (`member`: a server's or the LLM proxy's name) joining
/// the session in `dir`. The process id keeps two recorders of the same name apart.
pub fn session_member_path(dir: &Path, member: &str) -> PathBuf {
    dir.join(stamped(&format!("{member}-{}", std::process::id())))
}

/// The sessions in the data dir, newest first: (name, folder).
pub fn sessions() -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(data_dir().join("sessions")) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| {
            let modified = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (
                modified,
                e.file_name().to_string_lossy().into_owned(),
                e.path(),
            )
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, n, p)| (n, p)).collect()
}

/// `TIME-NAME.jsonl`, the name made safe by [`file_stem`].
fn stamped(name: &str) -> String {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    format!("{stamp}-{}.jsonl", file_stem(name))
}

/// A name (a server's, a recorder's) made safe as a file name and a lane name, the one rule for
/// every file Sightline names after something it was told: letters, digits, `-`, `_` and `.`
/// stay, anything else (`/`, `\\`, spaces, control characters) becomes `_`; an empty name, or
/// one that would start with a dot (hidden, or `..`), gets `server` in front.
pub fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("server{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_with_a_slash_are_paths() {
        assert_eq!(session_dir("/tmp/s1"), PathBuf::from("/tmp/s1"));
        assert_eq!(session_dir("./s1"), PathBuf::from("./s1"));
        assert!(session_dir("demo").ends_with("sessions/demo"));
    }

    #[test]
    fn session_names_that_escape_the_sessions_folder_are_refused() {
        for name in ["..", ".", "", " ", "a\nb"] {
            assert!(session_name(name).is_err(), "{name:?}");
        }
        for name in ["demo", "...", "../elsewhere", "/tmp/s1", "a..b"] {
            assert_eq!(session_name(name).as_deref(), Ok(name));
        }
    }

    #[test]
    fn recorder_names_stay_in_their_folder() {
        let p = session_member_path(Path::new("/s"), "../../etc/x");
        assert_eq!(p.parent(), Some(Path::new("/s")), "{}", p.display());
        let p = default_trace_path("a/b\\c");
        assert_eq!(p.parent(), Some(data_dir().join("traces").as_path()));
    }

    #[test]
    fn file_stems_never_leave_their_folder_nor_hide() {
        assert_eq!(file_stem("weather"), "weather");
        assert_eq!(file_stem("weather-2.1_x"), "weather-2.1_x");
        assert_eq!(file_stem("a/b\\c d\n"), "a_b_c_d_");
        assert_eq!(file_stem(".."), "server..");
        assert_eq!(file_stem(".env"), "server.env");
        assert_eq!(file_stem("/etc"), "_etc");
        assert_eq!(file_stem(""), "server");
        assert_eq!(file_stem("météo"), "météo");
        let dir = Path::new("/s");
        for name in ["..", ".", "../x", ".hidden", ""] {
            let p = dir.join(format!("{}.jsonl", file_stem(name)));
            assert_eq!(p.parent(), Some(dir), "{name:?}");
            let file = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            assert!(!file.starts_with('.'), "{name:?} -> {file}");
        }
    }

    #[test]
    fn member_paths_name_the_member_and_the_process() {
        let p = session_member_path(Path::new("/s"), "weather");
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        assert!(name.ends_with(&format!("-weather-{}.jsonl", std::process::id())));
        assert_eq!(p.parent(), Some(Path::new("/s")));
    }
}
