//! What a poisoning finding says, kept as a key of `poison_why.*` and its values, so that the
//! same finding is explained in the reader's language: `sightline poison --lang pt`, `check`,
//! the app's badges and doctor panel. [`super::Finding::explanation`] is the English text (the
//! JSON output's), rendered from the same key.

use crate::i18n::{Language, Words};

/// A sentence of `poison_why.*` and the values of its placeholders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Said {
    pub key: &'static str,
    pub args: Vec<(&'static str, Arg)>,
}

/// One placeholder's value: text quoted as it is, a sentence of its own (a note), or a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Text(String),
    Said(Said),
    /// Joined by `, `, or as the language lists with "and" when `and` is true (`Latin and
    /// Cyrillic`, see [`Words::and_list`]).
    List {
        items: Vec<Arg>,
        and: bool,
    },
}

impl Said {
    /// A sentence with the values of its placeholders.
    pub fn new(key: &'static str, args: Vec<(&'static str, Arg)>) -> Self {
        Said { key, args }
    }

    /// The sentence in the language of `w`.
    pub fn render(&self, w: Words) -> String {
        let values: Vec<(&str, String)> =
            self.args.iter().map(|(n, a)| (*n, a.render(w))).collect();
        let refs: Vec<(&str, &str)> = values.iter().map(|(n, v)| (*n, v.as_str())).collect();
        w.fmt(self.key, &refs)
    }

    /// The sentence in English.
    pub fn english(&self) -> String {
        self.render(Words::of(Language::En))
    }
}

impl Arg {
    fn render(&self, w: Words) -> String {
        match self {
            Arg::Text(t) => t.clone(),
            Arg::Said(s) => s.render(w),
            Arg::List { items, and } => {
                let parts: Vec<String> = items.iter().map(|a| a.render(w)).collect();
                if *and {
                    w.and_list(&parts)
                } else {
                    parts.join(", ")
                }
            }
        }
    }
}

/// A text value.
pub fn value(value: impl Into<String>) -> Arg {
    Arg::Text(value.into())
}
