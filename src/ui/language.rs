//! Which language the app starts in: `--lang` wins; else the language the user last picked in
//! the app (kept with the other [`super::settings`] in eframe's storage); else, before anything
//! was saved, the system's (`LC_ALL`, `LC_MESSAGES`, `LANG`); else English.

use super::app::SightlineApp;
use crate::i18n::Language;

/// The language to start in (see the module documentation).
pub fn starting_language(flag: Option<Language>, remembered: Option<Language>) -> Language {
    flag.or(remembered).unwrap_or_else(Language::from_env)
}

impl SightlineApp {
    /// The app in `lang`.
    pub fn with_language(mut self, lang: Language) -> SightlineApp {
        self.lang = lang;
        self
    }

    /// The app in the language `--lang` names, if it does; else as it is.
    pub fn with_language_flag(self, flag: Option<Language>) -> SightlineApp {
        let lang = starting_language(flag, Some(self.lang));
        self.with_language(lang)
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
}
