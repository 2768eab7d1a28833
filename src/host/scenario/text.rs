//! A scenario's words in the class's language: what the user types and what the scripted model
//! says.
//!
//! A workshop runs in its class's language, so a scenario may write each of these once per
//! language, `prompt = { en = "...", pt = "...", es = "..." }`; a plain string is the same text
//! in every language, so every scenario written before still loads as it did. A run picks one
//! language before it starts ([`super::Scenario::in_language`]): the host, the scripted model
//! and the trace only ever see plain text, recorded as it was sent. Tool results are never
//! translated here: they are what the server says.

use serde::{Deserialize, Serialize};

use crate::i18n::{Language, Words};

/// A text of a scenario: one for every language, or one per language (English required, the
/// others falling back to it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Raw", into = "Raw")]
pub enum Text {
    /// The same words in every language.
    One(String),
    /// Each language's words.
    Each {
        en: String,
        pt: Option<String>,
        es: Option<String>,
    },
}

impl Text {
    /// The words in `lang`: its own, else the English.
    pub fn get(&self, lang: Language) -> &str {
        match self {
            Text::One(text) => text,
            Text::Each { en, pt, es } => match lang {
                Language::En => en,
                Language::Pt => pt.as_deref().unwrap_or(en),
                Language::Es => es.as_deref().unwrap_or(en),
            },
        }
    }

    /// The words a run uses: after [`super::Scenario::in_language`] the chosen language's, and
    /// before it the English.
    pub fn as_str(&self) -> &str {
        self.get(Language::En)
    }

    /// The words in `lang` alone.
    pub fn chosen(&self, lang: Language) -> Text {
        Text::One(self.get(lang).to_string())
    }

    pub fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }

    /// Our own words of `key` (`assets/i18n`) in each language: what a scenario says where
    /// its file writes nothing.
    pub fn ours(key: &str) -> Text {
        let get = |lang| Words::of(lang).get(key).to_string();
        Text::Each {
            en: get(Language::En),
            pt: Some(get(Language::Pt)),
            es: Some(get(Language::Es)),
        }
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::One(text.to_string())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::One(text)
    }
}

/// The TOML forms: a string, or a table of language codes.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Raw {
    One(String),
    Each(std::collections::BTreeMap<String, String>),
}

impl TryFrom<Raw> for Text {
    type Error = String;

    fn try_from(raw: Raw) -> Result<Text, String> {
        let mut each = match raw {
            Raw::One(text) => return Ok(Text::One(text)),
            Raw::Each(each) => each,
        };
        if let Some(code) = each
            .keys()
            .find(|code| Language::ALL.iter().all(|l| l.code() != code.as_str()))
        {
            return Err(format!(
                "`{code}` is not a language of a scenario's text: use en, pt or es"
            ));
        }
        let en = each
            .remove("en")
            .ok_or("a text given per language needs its English (`en = \"...\"`)")?;
        Ok(Text::Each {
            en,
            pt: each.remove("pt"),
            es: each.remove("es"),
        })
    }
}

impl From<Text> for Raw {
    fn from(text: Text) -> Raw {
        match text {
            Text::One(text) => Raw::One(text),
            Text::Each { en, pt, es } => Raw::Each(
                [("en", Some(en)), ("pt", pt), ("es", es)]
                    .into_iter()
                    .filter_map(|(code, text)| Some((code.to_string(), text?)))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Doc {
        t: Text,
    }

    fn parse(text: &str) -> Result<Text, String> {
        toml::from_str::<Doc>(text)
            .map(|d| d.t)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_string_is_every_language_and_a_table_each_one() {
        let one = parse("t = \"hi\"").unwrap();
        assert_eq!(one.get(Language::Pt), "hi");
        let each = parse("t = { en = \"hi\", pt = \"oi\" }").unwrap();
        assert_eq!(each.get(Language::Pt), "oi");
        assert_eq!(each.get(Language::Es), "hi", "falls back to English");
        assert_eq!(each.chosen(Language::Pt), Text::One("oi".into()));
        let again = toml::to_string(&Doc { t: each.clone() }).unwrap();
        assert_eq!(parse(&again).unwrap(), each);
    }

    #[test]
    fn a_table_needs_english_and_knows_only_our_languages() {
        let no_en = parse("t = { pt = \"oi\" }").unwrap_err();
        assert!(no_en.contains("en = "), "{no_en}");
        let fr = parse("t = { en = \"hi\", fr = \"salut\" }").unwrap_err();
        assert!(fr.contains("`fr`"), "{fr}");
    }
}
