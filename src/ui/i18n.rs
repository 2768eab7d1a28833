//! The user interface's words, in English, Portuguese and Spanish.
//!
//! Workshops mix audiences, so every label, explanation and teaching-mode sentence is looked
//! up by key in the current [`Language`]. The text itself lives in `assets/i18n/{en,pt,es}.toml`
//! (embedded at build time), never in code, so a translator edits one file per language. Each
//! file is a set of `[section]` tables of `key = "text"` pairs, read as `section.key`; `{name}`
//! marks a placeholder that [`Strings::fmt`] fills in. English is the reference: a key missing
//! in another language falls back to English, and a key missing everywhere shows as itself
//! (visible in the UI, and caught by the tests below).
//!
//! This module does not depend on egui.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

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

/// Replaces each `{name}` of `template` that has a value in `args`.
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let value = is_name(name)
                .then(|| args.iter().find(|(n, _)| *n == name))
                .flatten();
            value.map(|(_, v)| (*v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
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

/// The placeholder names of a template, sorted, without repeats.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                names.push(&after[..close]);
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
mod tests {
    use super::*;
    use crate::analysis::explain::{self, Controller, Primitive};

    #[test]
    fn the_embedded_files_parse() {
        let s = Strings::embedded();
        for lang in Language::ALL {
            assert!(s.keys(lang).count() > 200, "{lang:?}");
        }
        assert_eq!(s.get(Language::En, "menu.open"), "Open…");
        assert_eq!(s.get(Language::Pt, "menu.file"), "Arquivo");
        assert_eq!(s.get(Language::Es, "menu.quit"), "Salir");
    }

    #[test]
    fn every_language_has_the_same_keys() {
        let s = Strings::embedded();
        let en: Vec<&str> = s.keys(Language::En).collect();
        for lang in [Language::Pt, Language::Es] {
            let missing: Vec<&&str> = en.iter().filter(|k| !s.has(lang, k)).collect();
            assert!(missing.is_empty(), "{lang:?} lacks {missing:?}");
            let extra: Vec<&str> = s.keys(lang).filter(|k| !s.has(Language::En, k)).collect();
            assert!(
                extra.is_empty(),
                "{lang:?} has keys English lacks: {extra:?}"
            );
        }
    }

    #[test]
    fn placeholders_match_across_languages() {
        let s = Strings::embedded();
        let mut mismatches = Vec::new();
        for key in s.keys(Language::En) {
            let en = placeholders(s.get(Language::En, key));
            for lang in [Language::Pt, Language::Es] {
                let other = placeholders(s.get(lang, key));
                if other != en {
                    mismatches.push(format!("{key} ({}): {en:?} vs {other:?}", lang.code()));
                }
            }
        }
        assert!(mismatches.is_empty(), "{mismatches:#?}");
    }

    #[test]
    fn translations_are_translated() {
        // Texts that may legitimately be identical across languages: names, symbols, codes.
        let same_ok = |key: &str, text: &str| {
            placeholders(text).len() * 8 + 12 >= text.chars().count()
                || key.starts_with("primitive.")
                || key.starts_with("legend.")
                || key.starts_with("kind.")
                || key.starts_with("filter.show_")
                || key == "panel.inspector"
        };
        let s = Strings::embedded();
        let mut untranslated = Vec::new();
        for key in s.keys(Language::En) {
            let en = s.get(Language::En, key);
            for lang in [Language::Pt, Language::Es] {
                if s.get(lang, key) == en && !same_ok(key, en) {
                    untranslated.push(format!("{key} ({})", lang.code()));
                }
            }
        }
        assert!(untranslated.is_empty(), "{untranslated:#?}");
    }

    #[test]
    fn every_explanation_and_name_has_a_text() {
        let s = Strings::embedded();
        let keys = explain::all_keys()
            .chain(Primitive::ALL.iter().map(|p| p.key()))
            .chain(Controller::ALL.iter().map(|c| c.key()));
        for key in keys {
            for lang in Language::ALL {
                assert!(s.has(lang, key), "{key} missing in {}", lang.code());
            }
        }
        for method in explain::known_methods() {
            assert!(
                s.has(Language::En, explain::explain(method).key),
                "{method}"
            );
        }
    }

    #[test]
    fn the_labels_the_app_needs_exist() {
        let s = Strings::embedded();
        for key in [
            "menu.file",
            "menu.open",
            "menu.open_recent",
            "menu.run_scenario",
            "menu.export_mermaid",
            "menu.export_svg",
            "menu.export",
            "menu.export_html",
            "menu.language",
            "menu.quit",
            "panel.sequence_diagram",
            "panel.inspector",
            "panel.raw",
            "panel.pretty_json",
            "panel.paired_message",
            "panel.tool_call_chain",
            "panel.timing",
            "panel.revision",
            "panel.what_model_sees",
            "panel.tools_sent",
            "panel.listed_not_sent",
            "panel.instructions_system",
            "panel.messages",
            "filter.filter",
            "filter.search",
            "replay.replay",
            "replay.play",
            "replay.pause",
            "replay.next",
            "replay.previous",
            "replay.speed",
            "legend.request",
            "legend.response",
            "legend.notification",
            "legend.error",
            "legend.invalid",
            "legend.unanswered",
            "legend.stderr",
            "legend.process",
            "diagram.host_in_middle",
            "app.no_display",
        ] {
            for lang in Language::ALL {
                assert!(s.has(lang, key), "{key} ({})", lang.code());
            }
        }
        assert_eq!(
            s.fmt(Language::En, "diagram.host_in_middle", &[("count", "0")]),
            "the model never talks to the server: the host sits in the middle (0 direct messages)"
        );
        assert_eq!(
            s.get(Language::En, "app.no_display"),
            "no display: run `sightline run SCENARIO` or `sightline summary TRACE` instead"
        );
    }

    #[test]
    fn lookups_fall_back_to_english_then_to_the_key() {
        let s = Strings::parse(
            "[a]\nx = \"X {n}\"\ny = \"Y\"\n",
            "[a]\nx = \"Xis {n}\"\n",
            "",
        )
        .expect("parse");
        assert_eq!(s.get(Language::Pt, "a.x"), "Xis {n}");
        assert_eq!(s.get(Language::Pt, "a.y"), "Y");
        assert_eq!(s.get(Language::Es, "a.x"), "X {n}");
        assert_eq!(s.get(Language::Es, "a.nope"), "a.nope");
        assert_eq!(s.fmt(Language::Pt, "a.x", &[("n", "3")]), "Xis 3");
        assert!(!s.has(Language::Es, "a.x"));
    }

    #[test]
    fn bad_files_are_errors() {
        let err = Strings::parse("[a]\nx = 3\n", "", "").expect_err("number");
        assert_eq!(
            err,
            I18nError::NotText {
                lang: "en",
                key: "a.x".into()
            }
        );
        assert!(matches!(
            Strings::parse("", "x = ", ""),
            Err(I18nError::Toml { lang: "pt", .. })
        ));
    }

    #[test]
    fn filling_placeholders() {
        assert_eq!(
            fill("{a} and {b}, {a}", &[("a", "1"), ("b", "two")]),
            "1 and two, 1"
        );
        // Unknown names, non-names and unclosed braces stay as written.
        assert_eq!(fill("{x} {} {a b} {", &[("a", "1")]), "{x} {} {a b} {");
        assert_eq!(fill("{{a}}", &[("a", "1")]), "{1}");
        // Values are not scanned again.
        assert_eq!(fill("{a}{b}", &[("a", "{b}"), ("b", "2")]), "{b}2");
        assert_eq!(fill("ação {a}", &[("a", "ñ")]), "ação ñ");
        assert_eq!(placeholders("{b} {a} {b} {not one} {"), vec!["a", "b"]);
    }

    #[test]
    fn languages() {
        assert_eq!(Language::ALL.map(Language::code), ["en", "pt", "es"]);
        assert_eq!(Language::Pt.name(), "Português");
        assert_eq!(Language::Es.to_string(), "Español");
        assert_eq!(Language::from_code("pt_BR.UTF-8"), Some(Language::Pt));
        assert_eq!(Language::from_code("es-AR"), Some(Language::Es));
        assert_eq!(Language::from_code("EN"), Some(Language::En));
        assert_eq!(Language::from_code("fr"), None);
        assert_eq!(Language::from_code(""), None);
        assert_eq!(Language::default(), Language::En);
        assert_eq!(
            serde_json::to_string(&Language::Es).expect("json"),
            "\"es\""
        );
    }
}
