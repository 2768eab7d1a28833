//! The recent-files list: the last traces opened or recorded, most recent first. It is saved
//! with the other settings ([`super::settings::Settings::recent`]); Sightline 0.1 kept it in
//! `recent.json` in the data dir, which is read when no settings are saved yet.

use std::path::{Path, PathBuf};

/// How many entries the list keeps.
const MAX_RECENT: usize = 10;

/// Most recent first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecentFiles {
    pub paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list `paths` (saved settings), at most [`MAX_RECENT`] long.
    pub fn from_paths(mut paths: Vec<PathBuf>) -> RecentFiles {
        paths.truncate(MAX_RECENT);
        RecentFiles { paths }
    }

    /// The list an earlier version kept in `file`; a missing or unreadable file is an empty
    /// list.
    pub fn legacy(file: &Path) -> Vec<PathBuf> {
        std::fs::read_to_string(file)
            .ok()
            .and_then(|text| serde_json::from_str::<Vec<PathBuf>>(&text).ok())
            .unwrap_or_default()
    }

    /// Where an earlier version kept the list: `recent.json` in the data dir.
    pub fn legacy_file() -> PathBuf {
        super::live::data_dir().join("recent.json")
    }

    /// Moves `path` to the top.
    pub fn push(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| *p != path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
    }

    /// Forgets a path that can no longer be opened.
    pub fn remove(&mut self, path: &Path) {
        self.paths.retain(|p| p != path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_duplicates_and_the_old_file_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut recent = RecentFiles::default();
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

        let file = dir.path().join("recent.json");
        assert!(RecentFiles::legacy(&file).is_empty());
        std::fs::write(&file, serde_json::to_string(&recent.paths).expect("json")).expect("write");
        assert_eq!(RecentFiles::legacy(&file), recent.paths);
        let many = (0..20).map(|i| PathBuf::from(format!("/t/{i}"))).collect();
        assert_eq!(RecentFiles::from_paths(many).paths.len(), MAX_RECENT);
    }
}
