//! Every word a participant reads, in English, Portuguese and Spanish.
//!
//! Workshops mix audiences, so every label, explanation, teaching-mode sentence and line of
//! the command line's reports is looked up by key in the current [`Language`]. The text itself lives in `assets/i18n/{en,pt,es}.toml`
//! (embedded at build time), never in code, so a translator edits one file per language. Each
//! file is a set of `[section]` tables of `key = "text"` pairs, read as `section.key`; `{name}`
//! marks a placeholder that [`Strings::fmt`] fills in, and `{name:one|other}` the
//! singular or plural form that the number in `name` asks for. English is the reference: a key missing
//! in another language falls back to English, and a key missing everywhere shows as itself
//! (visible in the UI, and caught by the tests below).
//!
//! It sits at the top of the crate and uses nothing else in it (nor egui), so `analysis`
//! (narration, the doctor), `export` (summary, Mermaid, SVG), `cli` and `ui` all speak the
//! same words without any of them using another for it. Which language a process starts in
//! comes from the environment ([`Language::from_env`]: `LC_ALL`, `LC_MESSAGES`, `LANG`).

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

mod said;
pub use said::Said;

/// A language of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    Pt,
    Es,
}

impl Language {
    pub const ALL: [Language; 3] = [Language::En, Language::Pt, Language::Es];

    /// The ISO 639-1 code: `en`, `pt`, `es`.
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Pt => "pt",
            Language::Es => "es",
        }
    }

    /// The language's own name for itself, as a language menu shows it.
    pub fn name(self) -> &'static str {
        match self {
            Language::En => "English",
            Language::Pt => "Português",
            Language::Es => "Español",
        }
    }

    /// The language of a code or a locale (`pt`, `pt-BR`, `es_AR.UTF-8`, `EN`), if it is one
    /// of ours.
    pub fn from_code(code: &str) -> Option<Language> {
        let lang = code
            .split(['-', '_', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Language::ALL.into_iter().find(|l| l.code() == lang)
    }

    /// A `--lang` value: one of our codes (or a locale of one), else an error that says
    /// which codes there are.
    pub fn parse(code: &str) -> Result<Language, I18nError> {
        Language::from_code(code).ok_or_else(|| I18nError::UnknownLanguage(code.to_string()))
    }

    /// The language of the process's locale, as POSIX orders the variables: the first
    /// non-empty one of `LC_ALL`, `LC_MESSAGES`, `LANG` decides; English if that is not one
    /// of ours (`C`, `POSIX`, `fr_FR.UTF-8`) or none is set.
    pub fn from_env() -> Language {
        let var = |name: &str| std::env::var(name).ok();
        Language::from_locale(var("LC_ALL"), var("LC_MESSAGES"), var("LANG"))
    }

    /// [`Language::from_env`] with the variables' values given.
    pub fn from_locale(
        lc_all: Option<String>,
        lc_messages: Option<String>,
        lang: Option<String>,
    ) -> Language {
        [lc_all, lc_messages, lang]
            .into_iter()
            .flatten()
            .find(|value| !value.trim().is_empty())
            .and_then(|value| Language::from_code(value.trim()))
            .unwrap_or_default()
    }

    fn index(self) -> usize {
        match self {
            Language::En => 0,
            Language::Pt => 1,
            Language::Es => 2,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The embedded translation files, in [`Language::ALL`] order.
const FILES: [&str; 3] = [
    include_str!("../../assets/i18n/en.toml"),
    include_str!("../../assets/i18n/pt.toml"),
    include_str!("../../assets/i18n/es.toml"),
];

/// Why a translation file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum I18nError {
    #[error("the {lang} text file is not valid TOML: {message}")]
    Toml { lang: &'static str, message: String },
    #[error("in the {lang} text file, `{key}` is not a string")]
    NotText { lang: &'static str, key: String },
    #[error("unknown language `{0}`: use en, pt or es")]
    UnknownLanguage(String),
}

/// Every text of every language, by key.
#[derive(Debug, Clone)]
pub struct Strings {
    tables: [HashMap<String, String>; 3],
}

impl Default for Strings {
    fn default() -> Self {
        Strings::embedded()
    }
}

impl Strings {
    /// The texts shipped in `assets/i18n/`. They are checked by this module's tests, so a
    /// failure here is a build defect, not a user error.
    pub fn embedded() -> Self {
        #[cfg(test)]
        EMBEDDED_PARSED.with(|n| n.set(n.get() + 1));
        match Strings::parse(FILES[0], FILES[1], FILES[2]) {
            Ok(strings) => strings,
            Err(err) => panic!("embedded assets/i18n file: {err}"),
        }
    }

    /// Reads three translation files (English, Portuguese, Spanish).
    pub fn parse(en: &str, pt: &str, es: &str) -> Result<Self, I18nError> {
        Ok(Strings {
            tables: [
                table(Language::En, en)?,
                table(Language::Pt, pt)?,
                table(Language::Es, es)?,
            ],
        })
    }

    /// The text of `key` in `lang`; else in English; else the key itself.
    pub fn get<'a>(&'a self, lang: Language, key: &'a str) -> &'a str {
        self.tables[lang.index()]
            .get(key)
            .or_else(|| self.tables[Language::En.index()].get(key))
            .map_or(key, String::as_str)
    }

    /// The text of `key` in `lang` itself, without falling back.
    pub fn lookup(&self, lang: Language, key: &str) -> Option<&str> {
        self.tables[lang.index()].get(key).map(String::as_str)
    }

    /// [`Strings::get`], with each `{name}` placeholder replaced by its value. Placeholders
    /// without a value stay as they are.
    pub fn fmt(&self, lang: Language, key: &str, args: &[(&str, &str)]) -> String {
        fill(self.get(lang, key), args)
    }

    /// Whether `lang` itself (without falling back) has `key`.
    pub fn has(&self, lang: Language, key: &str) -> bool {
        self.tables[lang.index()].contains_key(key)
    }

    /// The keys of one language, in no particular order.
    pub fn keys(&self, lang: Language) -> impl Iterator<Item = &str> {
        self.tables[lang.index()].keys().map(String::as_str)
    }
}

#[cfg(test)]
thread_local! {
    /// How many times this thread parsed the embedded texts (the app's tests check that it
    /// uses [`shared`]'s, which the findings use too).
    static EMBEDDED_PARSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has parsed the embedded texts.
#[cfg(test)]
pub(crate) fn embedded_parsed_on_this_thread() -> usize {
    EMBEDDED_PARSED.with(std::cell::Cell::get)
}

/// The embedded texts, parsed once for the whole process.
pub fn shared() -> &'static Strings {
    static SHARED: std::sync::OnceLock<Strings> = std::sync::OnceLock::new();
    SHARED.get_or_init(Strings::embedded)
}

/// The texts of one language: what a renderer (a summary, a report, a diagram) is handed so
/// that it writes in the reader's language.
#[derive(Debug, Clone, Copy)]
pub struct Words<'a> {
    pub strings: &'a Strings,
    pub lang: Language,
}

impl Words<'static> {
    /// The embedded texts in `lang`.
    pub fn of(lang: Language) -> Self {
        Words {
            strings: shared(),
            lang,
        }
    }
}

impl<'a> Words<'a> {
    /// See [`Strings::get`].
    pub fn get(&self, key: &'a str) -> &'a str {
        self.strings.get(self.lang, key)
    }

    /// See [`Strings::fmt`].
    pub fn fmt(&self, key: &str, args: &[(&str, &str)]) -> String {
        self.strings.fmt(self.lang, key, args)
    }

    /// Items as the language lists them with "and": `Latin, Greek and Cyrillic`, `latim, grego
    /// e cirílico`, `latín, griego y cirílico` (`list.*`). Spanish says `e` for `y` before a
    /// word that starts with the sound i (`griego e italiano`), as its grammar asks.
    pub fn and_list(&self, items: &[String]) -> String {
        match items {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => {
                let key = if self.lang == Language::Es && starts_with_i_sound(last) {
                    "list.and_before_i"
                } else {
                    "list.and"
                };
                let rest = rest.join(self.get("list.separator"));
                self.fmt(key, &[("rest", &rest), ("last", last)])
            }
        }
    }
}

/// Whether a Spanish word starts with the sound i (`i`, `hi`, not the `hie`/`hia` of `hierro`,
/// whose sound is y): before it, `y` becomes `e`.
fn starts_with_i_sound(word: &str) -> bool {
    let lower = word.trim_start().to_lowercase();
    let after_h = lower.strip_prefix('h').unwrap_or(&lower);
    let mut chars = after_h.chars();
    matches!(chars.next(), Some('i' | 'í'))
        && !(lower.starts_with('h') && matches!(chars.next(), Some('a' | 'e' | 'o' | 'u')))
}

/// Reads one file into `section.key -> text`.
fn table(lang: Language, text: &str) -> Result<HashMap<String, String>, I18nError> {
    let root: toml::Table = toml::from_str(text).map_err(|e| I18nError::Toml {
        lang: lang.code(),
        message: e.to_string(),
    })?;
    let mut out = HashMap::new();
    flatten(lang, "", root, &mut out)?;
    Ok(out)
}

fn flatten(
    lang: Language,
    prefix: &str,
    table: toml::Table,
    out: &mut HashMap<String, String>,
) -> Result<(), I18nError> {
    for (key, value) in table {
        let key = if prefix.is_empty() {
            key
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::String(text) => {
                out.insert(key, text);
            }
            toml::Value::Table(inner) => flatten(lang, &key, inner, out)?,
            _ => {
                return Err(I18nError::NotText {
                    lang: lang.code(),
                    key,
                });
            }
        }
    }
    Ok(())
}

/// Whether `name` can be a placeholder name: ASCII letters, digits and `_`.
fn is_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Replaces each `{name}` of `template` that has a value in `args`, and each plural choice
/// `{name:one|other}` by `one` when the value of `name` is 1, else by `other` (`{count}
/// {count:tool|tools}`); a form may hold placeholders of its own (`{n:the tool|all {n}
/// tools}`). Braces that are neither stay as they are.
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = matching_close(after).and_then(|close| {
            let inner = &after[..close];
            let (name, forms) = match inner.split_once(':') {
                Some((name, forms)) => (name, Some(split_forms(forms)?)),
                None => (inner, None),
            };
            let value = is_name(name)
                .then(|| args.iter().find(|(n, _)| *n == name))
                .flatten()?
                .1;
            let text = match forms {
                Some((one, _)) if value.trim() == "1" => fill(one, args),
                Some((_, other)) => fill(other, args),
                None => value.to_string(),
            };
            Some((text, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(&v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where the `}` that closes an opened `{` is in `after` (the text after the `{`), counting
/// the braces opened inside.
fn matching_close(after: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in after.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `one|other` split at the `|` outside any inner braces.
fn split_forms(forms: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (i, b) in forms.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'|' if depth == 0 => return Some((&forms[..i], &forms[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The placeholder names of a template, sorted, without repeats.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let name = |close: usize| {
            let inner = &after[..close];
            match inner.split_once(':') {
                Some((name, forms)) if forms.contains('|') => name,
                _ => inner,
            }
        };
        match after.find('}') {
            Some(close) if is_name(name(close)) => {
                names.push(name(close));
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests;
