//! The recent-files list: the last traces opened or recorded, kept in a small file in the data
//! dir (`recent.json`) so it survives restarts without eframe's persistence feature.

use std::path::{Path, PathBuf};

/// How many entries the list keeps.
const MAX_RECENT: usize = 10;

/// Most recent first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecentFiles {
    pub paths: Vec<PathBuf>,
    /// Where the list is stored; `None` keeps it in memory only (tests).
    file: Option<PathBuf>,
}

impl RecentFiles {
    /// Reads the list from `file`; a missing or unreadable file is an empty list.
    pub fn load(file: PathBuf) -> RecentFiles {
        let paths = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| serde_json::from_str::<Vec<PathBuf>>(&text).ok())
            .unwrap_or_default();
        RecentFiles {
            paths,
            file: Some(file),
        }
    }

    /// A list that is never saved.
    pub fn in_memory() -> RecentFiles {
        RecentFiles::default()
    }

    /// The default location: `recent.json` in the data dir.
    pub fn default_file() -> PathBuf {
        super::live::data_dir().join("recent.json")
    }

    /// Moves `path` to the top and saves the list.
    pub fn push(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| *p != path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
        self.save();
    }

    /// Forgets a path that can no longer be opened.
    pub fn remove(&mut self, path: &Path) {
        self.paths.retain(|p| p != path);
        self.save();
    }

    fn save(&self) {
        let Some(file) = &self.file else { return };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let text = serde_json::to_string_pretty(&self.paths).map_err(std::io::Error::other)?;
            std::fs::write(file, text)
        };
        if let Err(e) = write() {
            tracing::warn!("cannot save the recent-files list {}: {e}", file.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_duplicates_and_survives_a_reload() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("recent.json");
        let mut recent = RecentFiles::load(file.clone());
        assert!(recent.paths.is_empty());
        for name in ["a.jsonl", "b.jsonl", "a.jsonl"] {
            recent.push(&dir.path().join(name));
        }
        let names: Vec<_> = recent
            .paths
            .iter()
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a.jsonl", "b.jsonl"]);
        assert_eq!(RecentFiles::load(file).paths, recent.paths);
    }
}
