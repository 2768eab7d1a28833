//! What a Portuguese or Spanish class still read in English once the reports spoke their
//! language (issue 16, Language): the doctor's hints (each case of each code, and the name it
//! suggests), `sightline pins`, ... Each test reads the English report of the same input too
//! and requires every translated sentence to differ from it, so English coming back fails
//! here even where `language::english_sentences` (two English function words) would not see
//! it ("tool error", "no answer").

use std::path::Path;

use crate::language::{english_sentences, sightline};
use crate::util::{run_scenario_to, tempdir};

/// A shipped scenario run into `dir` (with `--set` overrides), as a path.
fn trace(dir: &Path, name: &str, file: &str, set: &[&str]) -> String {
    let path = dir.join(format!("{file}.jsonl"));
    let mut extra = Vec::new();
    for s in set {
        extra.extend(["--set", s]);
    }
    run_scenario_to(name, &path, &extra);
    path.to_str().expect("utf-8 path").to_string()
}

/// The hints of a doctor report: what follows each `→`.
fn hints(report: &str) -> Vec<String> {
    report
        .lines()
        .filter_map(|l| l.split_once("  → ").map(|(_, h)| h.to_string()))
        .collect()
}

/// `sightline doctor` with `args`, in `lang`, whatever its exit status (1: something hidden).
fn doctor(args: &[&str], lang: &str) -> String {
    let mut all = vec!["doctor"];
    let at = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    all.extend(&args[..at]);
    all.extend(["--lang", lang]);
    all.extend(&args[at..]);
    String::from_utf8_lossy(&sightline(&all, "C.UTF-8").stdout).into_owned()
}

/// Every hint the doctor writes (each code's own, and the ones written for one tool: renamed,
/// dropped with its server, colliding, denied, a stale list, a server that does not start or
/// that exits) is said in Portuguese and Spanish, and none is the English one.
#[test]
fn every_doctor_hint_is_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let invisible = trace(d, "invisible-tool", "invisible", &[]);
    let all_or_nothing = trace(
        d,
        "invisible-tool",
        "drop-server",
        &["host.on_invalid_tool=drop-server"],
    );
    let colliding = trace(d, "two-servers", "no-prefix", &["host.prefix=never"]);
    let denied = trace(d, "weather", "denied", &[r#"host.deny=["get_weather"]"#]);
    let stale = trace(
        d,
        "list-changed",
        "stale",
        &["host.refetch_on_list_changed=false"],
    );
    let renamed = trace(d, "two-servers", "two-servers", &[]);
    let cases: Vec<Vec<&str>> = vec![
        vec![&invisible],
        vec![&all_or_nothing],
        vec![&colliding],
        vec![&denied],
        vec![&stale],
        vec![&renamed],
        vec!["--", "/nonexistent/sightline-server"],
        vec!["--", "sh", "-c", "echo boom >&2; exit 3"],
    ];
    let mut seen = 0;
    for args in &cases {
        let en = hints(&doctor(args, "en"));
        assert!(!en.is_empty(), "{args:?}: no hint in English");
        seen += en.len();
        for lang in ["pt", "es"] {
            let report = doctor(args, lang);
            let said = hints(&report);
            assert_eq!(said.len(), en.len(), "{args:?} ({lang}): {report}");
            for (hint, english) in said.iter().zip(&en) {
                assert_ne!(hint, english, "{args:?} ({lang}): a hint left in English");
                assert!(
                    english_sentences(hint).is_empty(),
                    "{args:?} ({lang}): English in: {hint}"
                );
            }
        }
    }
    assert!(seen >= 10, "{seen} hints");
    // The name suggested for a rejected one passes the providers' rule and reads as a name:
    // no `_` at its end where the 64-character cut fell.
    let en = doctor(&[&invisible], "en");
    for name in [
        "`weather_lookup`",
        "`get_forecast`",
        "`get_current_weather_conditions_including_humidity_and_winds`",
    ] {
        assert!(en.contains(name), "{name}: {en}");
    }
    for hint in hints(&en) {
        assert!(!hint.contains("_`"), "{hint}");
    }
}

/// `sightline pins` takes `--lang` (else the locale) like the other commands: accept, list,
/// check (the headline and the diff's labels) and forget, with plurals in each language.
#[test]
fn pins_speak_the_language_asked() {
    let dir = tempdir();
    let weather = trace(dir.path(), "weather", "weather", &[]);
    let rug = trace(dir.path(), "rug-pull", "rug", &[]);
    let pins = dir.path().join("pins.json");
    let pins = pins.to_str().expect("utf-8 path");
    // English phrases of each subcommand's lines.
    let english = [
        "pinned weather/",
        "tool definition",
        "pins in ",
        "no pins",
        "within the trace",
        "in tools/list result",
        "forgot ",
        "TOOL",
    ];
    let session = |lang: Option<&str>, locale: &str| {
        let _ = std::fs::remove_file(pins);
        let run = |args: &[&str]| {
            let mut all = vec!["pins", "--pins", pins];
            all.extend(args);
            if let Some(lang) = lang {
                all.extend(["--lang", lang]);
            }
            String::from_utf8_lossy(&sightline(&all, locale).stdout).into_owned()
        };
        [
            run(&["accept", &weather]),
            run(&["list"]),
            run(&["check", &rug]),
            run(&["forget", "weather"]),
            run(&["list"]),
        ]
        .concat()
    };
    let en = session(Some("en"), "C.UTF-8");
    for phrase in english {
        assert!(en.contains(phrase), "{phrase}: {en}");
    }
    assert!(en.contains("1 rug pull: 1 within the trace"), "{en}");
    for (lang, locale, sentence) in [
        (
            Some("pt"),
            "C.UTF-8",
            "1 definição de ferramenta fixada em ",
        ),
        (
            Some("es"),
            "C.UTF-8",
            "1 definición de herramienta fijada en ",
        ),
        (None, "pt_BR.UTF-8", "1 rug pull: 1 dentro do trace"),
        (None, "es_ES.UTF-8", "no hay pins en "),
    ] {
        let out = session(lang, locale);
        assert!(out.contains(sentence), "{lang:?} {locale}: {out}");
        for phrase in english {
            assert!(
                !out.contains(phrase),
                "{lang:?} {locale}: {phrase} in {out}"
            );
        }
        // Lines that quote the definitions (the diff's body) are the server's words.
        let ours = out
            .lines()
            .filter(|l| !l.starts_with("    ") || l.starts_with("    --- "));
        for line in ours {
            assert!(
                english_sentences(line).is_empty(),
                "{lang:?} {locale}: English in: {line}"
            );
        }
    }
}
