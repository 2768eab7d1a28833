//! `--lang`: the language a command prints in. One flag for `run`, `summary`, `doctor`,
//! `export`, `open`, `check`, `diff`, `validate`, `replay`, `poison` and `import`, one rule: the flag, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`),
//! else English; an unknown code is a one-line error naming the three there are.

use clap::Args;

use crate::i18n::{Language, Said};

#[derive(Debug, Clone, Default, Args)]
pub struct LangArg {
    /// The language of what is printed: en, pt or es (default: from LC_ALL, LC_MESSAGES or
    /// LANG, else en).
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
}

impl LangArg {
    /// The language asked for, or the locale's.
    pub fn language(&self) -> anyhow::Result<Language> {
        match self.lang.as_deref() {
            Some(code) => parse(code),
            None => Ok(Language::from_env()),
        }
    }
}

/// A `--lang` value: `en`, `pt` or `es` (a locale such as `pt_BR` names its language).
pub fn parse(code: &str) -> anyhow::Result<Language> {
    match Language::parse(code) {
        Ok(lang) => Ok(lang),
        Err(_) => super::errors::fail(Said::new("cli_error.unknown_lang").with("code", code)),
    }
}

/// The language this process's command prints in, for what is said before or outside the
/// command (its errors): the `--lang` on the command line (before any `--`, after which the
/// words are a server's), else the locale's. A `--lang` that is not one of ours counts as
/// absent, so the error saying so is in the locale's language.
pub fn of_process() -> Language {
    of_args(std::env::args().skip(1))
}

fn of_args(args: impl IntoIterator<Item = String>) -> Language {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let value = match arg.strip_prefix("--lang") {
            Some("") => args.next(),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(lang) = value.as_deref().and_then(Language::from_code) {
            return lang;
        }
    }
    Language::from_env()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(args: &[&str]) -> Language {
        of_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn the_language_of_a_command_line_is_its_lang_flag() {
        assert_eq!(of(&["summary", "x.jsonl", "--lang", "pt"]), Language::Pt);
        assert_eq!(of(&["run", "--lang=es", "s.toml"]), Language::Es);
        // After `--`, the words are the server's.
        let probe = of(&["doctor", "--", "server", "--lang", "pt"]);
        assert_eq!(probe, Language::from_env());
        assert_eq!(of(&["summary", "--lang", "fr"]), Language::from_env());
    }
}
