//! The shipped scenarios, compiled into the binary, so `sightline run weather` and the app run
//! them from any folder, and an installed binary needs no checkout beside it.
//!
//! The files under `scenarios/` stay the source of truth (the docs quote them, a teacher copies
//! one to change it); `build.rs` lists every `scenarios/*.toml` and embeds its text, so a
//! scenario added there ships without touching this file.

use std::path::{Path, PathBuf};

use super::{Scenario, ScenarioError};
use crate::i18n::{Language, Strings};

/// One embedded scenario: its file name and its TOML text.
#[derive(Debug, Clone, Copy)]
pub struct Shipped {
    /// The file stem, e.g. `weather`.
    pub name: &'static str,
    pub text: &'static str,
}

/// Every scenario under `scenarios/`, the seed article's `weather` first, then by name.
pub const SHIPPED: &[Shipped] = include!(concat!(env!("OUT_DIR"), "/shipped_scenarios.rs"));

/// The scenario `sightline` runs when started with no arguments.
pub const DEFAULT: &str = "weather";

impl Shipped {
    /// Finds a shipped scenario by name.
    pub fn find(name: &str) -> Option<Shipped> {
        SHIPPED.iter().copied().find(|s| s.name == name)
    }

    /// Where the file sits in a checkout; it names the scenario in errors.
    pub fn path(&self) -> PathBuf {
        Path::new("scenarios").join(format!("{}.toml", self.name))
    }

    /// Parses the embedded text.
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        Scenario::parse(self.text, &self.path())
    }
}

/// The title of a trace of a shipped scenario in `lang`: its header's `title` (the English one)
/// and `scenario` (what `run` was given: `weather`, `scenarios/weather.toml`) name it; `None`
/// for any other trace, or a scenario whose title was changed, which keeps its own.
pub fn trace_title_in<'a>(
    strings: &'a Strings,
    lang: Language,
    title: &str,
    scenario: &str,
) -> Option<&'a str> {
    let name = Path::new(scenario).file_stem()?.to_str()?;
    let key = format!("scenario.{name}.title");
    if strings.lookup(Language::En, &key)?.trim() != title.trim() {
        return None;
    }
    strings.lookup(lang, &key).map(str::trim)
}

/// Where a scenario argument's text comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A file that exists.
    File(PathBuf),
    /// A shipped scenario, named as such (`weather`, `weather.toml`) or by its checkout path
    /// (`scenarios/weather.toml`) where no such file is.
    Shipped(Shipped),
}

impl Source {
    /// A file that exists wins (a teacher's edited copy); else the argument is a shipped
    /// scenario's name, its file name, or its path in a checkout (the docs' commands work from
    /// any folder); else it is an error that names both looks and `run --list`.
    pub fn of(arg: &Path) -> Result<Source, ScenarioError> {
        if arg.is_file() {
            return Ok(Source::File(arg.to_path_buf()));
        }
        shipped_named(arg)
            .map(Source::Shipped)
            .ok_or_else(|| ScenarioError::NotFound {
                path: arg.to_path_buf(),
            })
    }

    /// The scenario's name: the file's stem, or the shipped name (the key of its texts in
    /// `assets/i18n`, and the default trace's name).
    pub fn name(&self) -> String {
        match self {
            Source::File(path) => path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Source::Shipped(s) => s.name.to_string(),
        }
    }

    /// The text, read from the file or embedded.
    pub fn text(&self) -> Result<String, ScenarioError> {
        match self {
            Source::File(path) => {
                crate::trace::encoding::read_to_string(path).map_err(|source| ScenarioError::Read {
                    path: path.clone(),
                    source,
                })
            }
            Source::Shipped(s) => Ok(s.text.to_string()),
        }
    }

    /// The path errors name and relative `cwd`s are anchored at.
    pub fn path(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Shipped(s) => s.path(),
        }
    }
}

/// `weather`, `weather.toml` and `scenarios/weather.toml` name the shipped `weather`; a path
/// into any other folder names a file only.
fn shipped_named(arg: &Path) -> Option<Shipped> {
    let parent = arg.parent().filter(|p| !p.as_os_str().is_empty());
    if parent.is_some_and(|p| p != Path::new("scenarios")) {
        return None;
    }
    let file = arg.file_name()?.to_str()?;
    let name = file.strip_suffix(".toml").unwrap_or(file);
    if parent.is_some() && name == file {
        return None;
    }
    Shipped::find(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_scenario_parses() {
        for s in SHIPPED {
            s.load().unwrap_or_else(|e| panic!("{}: {e}", s.name));
        }
        assert_eq!(SHIPPED[0].name, DEFAULT);
    }

    #[test]
    fn every_file_under_scenarios_is_shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("scenarios/") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                let shipped = Shipped::find(stem).unwrap_or_else(|| panic!("{stem} not embedded"));
                assert_eq!(
                    shipped.text,
                    std::fs::read_to_string(&path).expect("read"),
                    "{stem}"
                );
                files += 1;
            }
        }
        assert_eq!(files, SHIPPED.len());
    }

    #[test]
    fn a_shipped_scenario_is_named_by_name_file_name_or_checkout_path() {
        for arg in ["weather", "weather.toml", "scenarios/weather.toml"] {
            let found = shipped_named(Path::new(arg)).map(|s| s.name);
            assert_eq!(found, Some("weather"), "{arg}");
        }
        for arg in [
            "elsewhere/weather.toml",
            "scenarios/weather",
            "/weather",
            "nope",
        ] {
            assert!(shipped_named(Path::new(arg)).is_none(), "{arg}");
        }
    }

    #[test]
    fn a_shipped_scenarios_trace_is_titled_in_the_language() {
        let strings = Strings::embedded();
        let english = "Weather: the seed article's demo";
        let pt = trace_title_in(&strings, Language::Pt, english, "scenarios/weather.toml");
        assert_eq!(pt, Some("Clima: o exemplo do artigo"));
        assert_eq!(
            trace_title_in(&strings, Language::Pt, "Our own", "weather"),
            None
        );
        assert_eq!(
            trace_title_in(&strings, Language::Pt, english, "mine.toml"),
            None
        );
    }

    #[test]
    fn an_argument_that_is_neither_says_so_in_each_language() {
        let err = Source::of(Path::new("no-such-scenario")).unwrap_err();
        assert!(matches!(err, ScenarioError::NotFound { .. }), "{err}");
        for lang in crate::i18n::Language::ALL {
            let said = err.said().say(crate::i18n::Words::of(lang));
            assert!(
                said.contains("no-such-scenario") && said.contains("run --list"),
                "{said}"
            );
        }
    }
}
