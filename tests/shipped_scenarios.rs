//! The shipped scenarios travel with the binary: an installed `sightline` runs them by name
//! from a folder with no checkout in it, `run --list` names them in the class's language, a
//! file still wins over a shipped name, and an argument that is neither says where to look.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use sightline::host::scenario::shipped::SHIPPED;
use sightline::i18n::{Language, Strings};

use crate::util::{bin, run, tempdir, text};

/// `sightline ARGS` in `dir`, with no API key in the environment.
fn sightline_in(dir: &Path, args: &[&str]) -> Output {
    run(
        Command::new(bin())
            .args(args)
            .current_dir(dir)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY"),
        Duration::from_secs(60),
    )
}

#[test]
fn a_shipped_scenario_runs_by_name_from_an_empty_folder() {
    let dir = tempdir();
    let out = sightline_in(dir.path(), &["run", "weather", "--no-summary"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let trace = dir.path().join("weather.jsonl");
    let loaded = crate::util::load(&trace);
    assert!(loaded.events.len() > 10, "{} events", loaded.events.len());
    assert!(text(&out.stdout).contains("weather.jsonl"));
    // The docs' commands name the checkout's path; it works where no checkout is, too.
    let out = sightline_in(
        dir.path(),
        &["run", "scenarios/tool-poisoning.toml", "--no-summary"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("tool-poisoning.jsonl").is_file());
}

#[test]
fn the_list_names_every_shipped_scenario_with_its_title_in_the_language() {
    let strings = Strings::embedded();
    let dir = tempdir();
    for lang in Language::ALL {
        let out = sightline_in(dir.path(), &["run", "--list", "--lang", lang.code()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let listed = text(&out.stdout);
        assert_eq!(listed.lines().count(), SHIPPED.len() + 1, "{listed}");
        for shipped in SHIPPED {
            let title = strings
                .lookup(lang, &format!("scenario.{}.title", shipped.name))
                .unwrap_or_else(|| panic!("no title for {}", shipped.name));
            let line = listed
                .lines()
                .find(|l| l.split_whitespace().next() == Some(shipped.name))
                .unwrap_or_else(|| panic!("{} not listed:\n{listed}", shipped.name));
            assert!(line.ends_with(title.trim()), "{lang:?}: {line}");
        }
    }
}

#[test]
fn a_file_wins_over_a_shipped_name_and_neither_is_a_clear_error() {
    let dir = tempdir();
    let own = include_str!("../scenarios/weather.toml").replace(
        "title = \"Weather: the seed article's demo\"",
        "title = \"Our own weather\"",
    );
    std::fs::write(dir.path().join("weather.toml"), own).expect("write");
    let out = sightline_in(dir.path(), &["run", "weather.toml", "--no-summary"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Our own weather"),
        "{}",
        text(&out.stdout)
    );

    let out = sightline_in(dir.path(), &["run", "wether", "--lang", "pt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("wether") && err.contains("sightline run --list") && err.contains("cenário"),
        "{err}"
    );
    assert!(!dir.path().join("wether.jsonl").exists());
}

#[test]
fn the_doctor_runs_a_shipped_scenario_by_name() {
    let dir = tempdir();
    let trace = dir.path().join("doctor.jsonl");
    let trace = trace.to_str().expect("utf-8 path");
    let out = sightline_in(dir.path(), &["doctor", "invisible-tool", "--trace", trace]);
    // The shipped scenario hides a tool from the model: findings, exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(Path::new(trace).is_file());
}
