//! `--lang`: the language a command prints in. One flag for `run`, `summary`, `doctor`,
//! `export`, `open`, `check`, `diff`, `validate`, `replay` and `poison`, one rule: the flag, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`),
//! else English; an unknown code is a one-line error naming the three there are.

use clap::Args;

use crate::i18n::Language;

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
    Language::parse(code).map_err(|_| anyhow::anyhow!("unknown --lang `{code}`: use en, pt or es"))
}
