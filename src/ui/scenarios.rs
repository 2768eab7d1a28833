//! The shipped scenarios, compiled into the binary so the app runs them from any directory.
//!
//! The files under `scenarios/` stay the source of truth (the CLI and the docs use them); this
//! module only embeds their text. Built-in servers need no files: the agent spawns them through
//! the running executable.

use std::path::Path;

use crate::host::scenario::{Scenario, ScenarioError};

/// One embedded scenario: its file name and its TOML text.
#[derive(Debug, Clone, Copy)]
pub struct Shipped {
    /// The file stem, e.g. `weather`.
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! shipped {
    ($($name:literal),* $(,)?) => {
        &[$(Shipped {
            name: $name,
            text: include_str!(concat!("../../scenarios/", $name, ".toml")),
        }),*]
    };
}

/// Every scenario under `scenarios/`, the seed article's `weather` first.
pub const SHIPPED: &[Shipped] = shipped![
    "weather",
    "invisible-tool",
    "list-changed",
    "multi-round-trip",
    "primitives-tour",
    "revision-2026-07-28",
    "rug-pull",
    "tool-error-and-image",
    "tool-poisoning",
    "two-servers",
];

/// The scenario `sightline` runs when started with no arguments.
pub const DEFAULT: &str = "weather";

impl Shipped {
    /// Finds a shipped scenario by name.
    pub fn find(name: &str) -> Option<Shipped> {
        SHIPPED.iter().copied().find(|s| s.name == name)
    }

    /// Parses the embedded text; the path only names it in errors.
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        let path = format!("scenarios/{}.toml", self.name);
        Scenario::parse(self.text, Path::new(&path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_scenario_parses() {
        for s in SHIPPED {
            s.load().unwrap_or_else(|e| panic!("{}: {e}", s.name));
        }
        assert!(Shipped::find(DEFAULT).is_some());
    }

    #[test]
    fn every_file_under_scenarios_is_shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        for entry in std::fs::read_dir(dir).expect("scenarios/") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                assert!(Shipped::find(stem).is_some(), "{stem} is not embedded");
            }
        }
    }
}
