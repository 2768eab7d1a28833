//! A sentence kept as its key and arguments, so each reader's language can say it.
//!
//! An analysis that explains itself (the doctor's details, a rug pull's headline, a schema
//! violation) runs once, but its words are read in English by `--lang en`, in Portuguese by
//! the next command and in Spanish by the app. [`Said`] is that sentence before it is put
//! into words: a key of the text files and its arguments, each plain text, another
//! [`Said`], or a text already written in every language (what another part of the crate
//! says in each, such as a host's reason). [`Said::say`] writes it in one language.

use super::{Language, Words};

/// One sentence by key (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Said {
    key: &'static str,
    args: Vec<(&'static str, Arg)>,
}

/// An argument of a [`Said`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    Text(String),
    Said(Said),
    /// The same text in each language, in [`Language::ALL`] order.
    Each([String; 3]),
}

impl From<String> for Said {
    /// Text that is the same in every language.
    fn from(text: String) -> Self {
        Said::plain(text)
    }
}

impl Said {
    /// The sentence of `key`.
    pub fn new(key: &'static str) -> Self {
        Said {
            key,
            args: Vec::new(),
        }
    }

    /// A text that is the same in every language (data, or words nobody translated).
    pub fn plain(text: impl Into<String>) -> Self {
        Said::new("").with("text", text.into())
    }

    /// What `each` says in each language.
    pub fn each(each: impl Fn(Language) -> String) -> Self {
        Said::new("").with_each("text", each)
    }

    /// An operating system's error, said by its kind (`not found`, `permission denied`); a
    /// kind without words of ours is the system's own text, quoted. English says the
    /// system's own text (`No such file or directory (os error 2)`), as it always did.
    pub fn io(err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let key = match err.kind() {
            ErrorKind::NotFound => "io_error.not_found",
            ErrorKind::PermissionDenied => "io_error.permission_denied",
            ErrorKind::AlreadyExists => "io_error.already_exists",
            ErrorKind::IsADirectory => "io_error.is_a_directory",
            ErrorKind::NotADirectory => "io_error.not_a_directory",
            ErrorKind::InvalidData => "io_error.invalid_data",
            ErrorKind::StorageFull => "io_error.storage_full",
            _ => "io_error.other",
        };
        let os = err.to_string();
        Said::each(|lang| match lang {
            Language::En => os.clone(),
            _ => Words::of(lang).fmt(key, &[("text", &os)]),
        })
    }

    /// Nothing: says the empty string.
    pub fn empty() -> Self {
        Said::plain("")
    }

    /// With `{name}` filled in by `value`, the same in every language.
    pub fn with(mut self, name: &'static str, value: impl ToString) -> Self {
        self.args.push((name, Arg::Text(value.to_string())));
        self
    }

    /// With `{name}` filled in by another sentence, said in the same language.
    pub fn with_said(mut self, name: &'static str, value: Said) -> Self {
        self.args.push((name, Arg::Said(value)));
        self
    }

    /// With `{name}` filled in by what `each` says in each language.
    pub fn with_each(mut self, name: &'static str, each: impl Fn(Language) -> String) -> Self {
        let texts = Language::ALL.map(each);
        self.args.push((name, Arg::Each(texts)));
        self
    }

    /// The sentence in the language of `w`.
    pub fn say(&self, w: Words) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(name, arg)| {
                let text = match arg {
                    Arg::Text(t) => t.clone(),
                    Arg::Said(s) => s.say(w),
                    Arg::Each(texts) => texts[w.lang.index()].clone(),
                };
                (*name, text)
            })
            .collect();
        if self.key.is_empty() {
            return args.into_iter().map(|(_, t)| t).collect();
        }
        let args: Vec<(&str, &str)> = args.iter().map(|(n, t)| (*n, t.as_str())).collect();
        w.fmt(self.key, &args)
    }

    /// The sentence in English.
    pub fn english(&self) -> String {
        self.say(Words::of(Language::En))
    }

    /// Whether it says nothing in every language (no key, every argument empty).
    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
            && self.args.iter().all(|(_, arg)| match arg {
                Arg::Text(t) => t.is_empty(),
                Arg::Said(s) => s.is_empty(),
                Arg::Each(texts) => texts.iter().all(String::is_empty),
            })
    }

    /// For `#[serde(serialize_with)]`: the sentence as its English text (what scripts read).
    pub fn serialize_english<S: serde::Serializer>(said: &Said, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&said.english())
    }

    /// The keys this sentence and its parts use (for tests: each must exist).
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = Vec::new();
        if !self.key.is_empty() {
            keys.push(self.key);
        }
        for (_, arg) in &self.args {
            if let Arg::Said(s) = arg {
                keys.extend(s.keys());
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_said_sentence_is_written_in_each_language() {
        let said = Said::new("doctor_text.visible_count").with("count", 2);
        assert_eq!(said.english(), "; 2 visible");
        assert_eq!(said.say(Words::of(Language::Pt)), "; 2 visíveis");
        let outer = Said::new("doctor_text.verdict").with_said("text", said.clone());
        assert_eq!(
            outer.say(Words::of(Language::Es)),
            "veredicto: ; 2 visibles"
        );
        let each = Said::new("doctor_text.verdict").with_each("text", |l| l.code().to_string());
        assert_eq!(each.say(Words::of(Language::Pt)), "veredito: pt");
        assert_eq!(Said::plain("as is").say(Words::of(Language::Es)), "as is");
        assert!(Said::empty().is_empty() && !said.is_empty());
        assert_eq!(
            outer.keys(),
            ["doctor_text.verdict", "doctor_text.visible_count"]
        );
    }

    #[test]
    fn an_os_error_is_said_by_its_kind() {
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let said = Said::io(&missing);
        assert_eq!(said.english(), missing.to_string());
        assert_eq!(
            said.say(Words::of(Language::Pt)),
            Words::of(Language::Pt).get("io_error.not_found")
        );
        assert_ne!(said.say(Words::of(Language::Es)), said.english());
        let other = std::io::Error::other("disk on fire");
        assert!(
            Said::io(&other)
                .say(Words::of(Language::Es))
                .contains("disk on fire")
        );
    }
}
