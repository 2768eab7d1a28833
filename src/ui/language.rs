//! Which language the app starts in, and the choice remembered from one run to the next.
//!
//! `--lang` wins; else the language the user last picked in the app; else the system's
//! (`LC_ALL`, `LC_MESSAGES`, `LANG`); else English. The pick is kept in `language.json` in the
//! data dir, written when it changes, the way [`super::recent`] keeps the recent files (the
//! app does not use eframe's persistence).

use std::path::PathBuf;

use super::app::SightlineApp;
use crate::i18n::Language;

/// The language to start in (see the module documentation).
pub fn starting_language(flag: Option<Language>, remembered: Option<Language>) -> Language {
    flag.or(remembered).unwrap_or_else(Language::from_env)
}

/// The remembered choice and where it is kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LanguageFile {
    /// The language last written (or read).
    pub chosen: Option<Language>,
    /// The language the app shows: a different one is the user's new pick.
    pub shown: Language,
    /// `None` keeps it in memory only (tests).
    file: Option<PathBuf>,
}

impl LanguageFile {
    /// Reads the choice from `file`; a missing or unreadable file is no choice.
    pub fn load(file: PathBuf) -> LanguageFile {
        let chosen = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| serde_json::from_str::<Language>(&text).ok());
        LanguageFile {
            chosen,
            shown: Language::default(),
            file: Some(file),
        }
    }

    /// The default location: `language.json` in the data dir.
    pub fn default_file() -> PathBuf {
        super::live::data_dir().join("language.json")
    }

    /// Keeps `lang` as the choice, writing the file when it changed.
    pub fn remember(&mut self, lang: Language) {
        self.shown = lang;
        if self.chosen == Some(lang) {
            return;
        }
        self.chosen = Some(lang);
        let Some(file) = &self.file else { return };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(file, format!("\"{}\"\n", lang.code()))
        };
        if let Err(e) = write() {
            tracing::warn!("cannot save the language to {}: {e}", file.display());
        }
    }
}

impl SightlineApp {
    /// The app in `lang`.
    pub fn with_language(mut self, lang: Language) -> SightlineApp {
        self.lang = lang;
        self
    }

    /// Keeps the language in `file` from now on: the app starts in `flag`, else the file's
    /// choice, else the system's; a language picked later is written back.
    pub fn with_language_file(mut self, flag: Option<Language>, file: LanguageFile) -> Self {
        self.lang = starting_language(flag, file.chosen);
        // Starting in a language is not picking it: only a change is written.
        self.platform.language = LanguageFile {
            shown: self.lang,
            ..file
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_then_the_remembered_choice_then_the_system() {
        assert_eq!(
            starting_language(Some(Language::Es), Some(Language::Pt)),
            Language::Es
        );
        assert_eq!(starting_language(None, Some(Language::Pt)), Language::Pt);
        assert_eq!(starting_language(None, None), Language::from_env());
    }

    #[test]
    fn the_choice_survives_a_restart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub").join("language.json");
        assert_eq!(LanguageFile::load(path.clone()).chosen, None);
        let mut file = LanguageFile::load(path.clone());
        file.remember(Language::Pt);
        assert_eq!(LanguageFile::load(path.clone()).chosen, Some(Language::Pt));
        std::fs::write(&path, "not json").expect("write");
        assert_eq!(
            LanguageFile::load(path).chosen,
            None,
            "a bad file is no choice"
        );
    }
}
