//! What a Portuguese or Spanish class still read in English once the reports spoke their
//! language (issue 16, Language): the doctor's hints (each case of each code, and the name it
//! suggests), `sightline pins`, the outcomes `diff` compares and the sides `replay` names,
//! the kinds of secret and the cut of a long excerpt in `check` (text and JUnit), and lists
//! joined with "and" in poisoning findings. Where no shipped scenario shows a case (a call
//! that stops failing, a key in a tool result, a name mixing three scripts), a recorded
//! trace is edited into one. Each test reads the English report of the same input too
//! and requires every translated sentence to differ from it, so English coming back fails
//! here even where `language::english_sentences` (two English function words) would not see
//! it ("tool error", "no answer").

use std::path::Path;

use serde_json::Value;

use crate::language::{english_sentences, sightline};
use crate::util::{run_scenario_to, tempdir};

/// A shipped scenario run into `dir` (with `--set` overrides), as a path.
pub(crate) fn trace(dir: &Path, name: &str, file: &str, set: &[&str]) -> String {
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
pub(crate) fn doctor(args: &[&str], lang: &str) -> String {
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

/// `src` with the `raw` payload of each event `change` rewrites (it gets the payload, returns
/// the new one or `None` to keep it), written to `dst`.
pub(crate) fn edit(src: &str, dst: &Path, change: impl Fn(&str) -> Option<String>) -> String {
    let text = std::fs::read_to_string(src).expect("read trace");
    let mut out = String::new();
    let mut changed = 0;
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).expect("a trace line is JSON");
        if let Some(raw) = v.get("raw").and_then(Value::as_str)
            && let Some(new) = change(raw)
        {
            v["raw"] = Value::from(new);
            changed += 1;
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    assert!(changed > 0, "nothing to edit in {src}");
    std::fs::write(dst, out).expect("write trace");
    dst.to_str().expect("utf-8 path").to_string()
}

/// Whether `word` is one of the words of `text` (`result` is not in `resultado`).
fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// `sightline ARGS --lang LANG` (before a `--`), whatever its exit status.
pub(crate) fn said(args: &[&str], lang: &str) -> String {
    let mut all: Vec<&str> = args.to_vec();
    let at = all.iter().position(|a| *a == "--").unwrap_or(all.len());
    all.splice(at..at, ["--lang", lang]);
    String::from_utf8_lossy(&sightline(&all, "C.UTF-8").stdout).into_owned()
}

/// `diff` names what each call ended with (a result, a tool error, a JSON-RPC error, no
/// answer) in the reader's language, and `replay` its two sides (a missing member, the
/// header of a long text's diff).
#[test]
fn diff_outcomes_and_replay_sides_are_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let a = trace(d, "tool-error-and-image", "a", &[]);
    let failed = |raw: &str| raw.contains("\"isError\":true");
    let better = edit(&a, &d.join("better.jsonl"), |raw| {
        failed(raw).then(|| raw.replace("\"isError\":true", "\"isError\":false"))
    });
    let silent = edit(&a, &d.join("silent.jsonl"), |raw| {
        // Its id no longer pairs it with the call: the call has no answer.
        failed(raw).then(|| raw.replacen("\"id\":", "\"id\":9", 1))
    });
    let error = edit(&a, &d.join("error.jsonl"), |raw| {
        failed(raw).then(|| {
            let id = serde_json::from_str::<Value>(raw).expect("JSON")["id"].clone();
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"boom"}}}}"#)
        })
    });
    let diffs = |lang: &str| {
        [
            said(&["diff", &a, &better], lang),
            said(&["diff", &better, &a], lang),
            said(&["diff", &a, &silent], lang),
            said(&["diff", &a, &error], lang),
        ]
        .concat()
    };
    let en = diffs("en");
    for outcome in [
        "tool error (isError) -> result",
        "result -> tool error (isError)",
        "tool error (isError) -> no answer",
        "tool error (isError) -> error -32603 boom",
    ] {
        assert!(en.contains(outcome), "{outcome}: {en}");
    }
    for (lang, outcome) in [
        ("pt", "erro da ferramenta (isError) -> sem resposta"),
        ("es", "resultado -> error de la herramienta (isError)"),
    ] {
        let out = diffs(lang);
        assert!(out.contains(outcome), "{lang}: {out}");
        for word in ["tool", "result", "answer"] {
            assert!(!has_word(&out, word), "{lang}: `{word}` in {out}");
        }
    }
    // Replayed against another server: members only one side has, long texts that differ.
    let poisoned = trace(d, "tool-poisoning", "poisoned", &[]);
    let bin = crate::util::bin();
    let replay = |lang: &str| {
        let out = d.join(format!("replay-{lang}.jsonl"));
        let out = out.to_str().expect("utf-8 path");
        let args = [
            "replay",
            &poisoned,
            "--trace",
            out,
            "--",
            bin,
            "demo-server",
            "weather",
        ];
        said(&args, lang)
    };
    let en = replay("en");
    for side in [
        "(absent)",
        "\n      --- recorded\n",
        "\n      +++ replayed\n",
    ] {
        assert!(en.contains(side), "{side}: {en}");
    }
    for (lang, absent, old, new) in [
        ("pt", "(ausente)", "--- gravado", "+++ reproduzido"),
        ("es", "(ausente)", "--- grabado", "+++ reproducido"),
    ] {
        let out = replay(lang);
        for side in [absent, old, new] {
            assert!(out.contains(side), "{lang}: {side} in {out}");
        }
        for side in ["(absent)", "--- recorded", "+++ replayed"] {
            assert!(!out.contains(side), "{lang}: {side} in {out}");
        }
    }
}

/// `check` (text and JUnit) names the kind of secret a message holds, cuts a long excerpt
/// with its own words and counts JUnit's findings in the reader's language; poisoning lists
/// the scripts a name mixes as the language lists (`latim, grego e cirílico`).
#[test]
fn secrets_excerpts_and_lists_are_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let weather = trace(d, "weather", "weather", &[]);
    let key = format!("sk-ant-api03-{}", "a".repeat(40));
    let leaked = edit(&weather, &d.join("leaked.jsonl"), |raw| {
        raw.contains("partly cloudy")
            .then(|| raw.replace("partly cloudy", &format!("partly cloudy, {key}")))
    });
    // `get_weather` spelled with a Cyrillic `е` and a Greek `ε`.
    let mixed = edit(&weather, &d.join("mixed.jsonl"), |raw| {
        raw.contains("\"tools\":[{").then(|| {
            raw.replace(
                "\"name\":\"get_weather\"",
                "\"name\":\"g\u{435}t_w\u{3b5}ather\"",
            )
        })
    });
    let poisoned = trace(d, "tool-poisoning", "poisoned", &[]);
    let reports = |lang: &str| {
        let mut out = String::new();
        for format in ["text", "junit"] {
            for (trace, class) in [
                (&leaked, "secret"),
                (&poisoned, "poison"),
                (&mixed, "poison"),
            ] {
                let args = ["check", trace, "--fail-on", class, "--format", format];
                out.push_str(&said(&args, lang));
            }
        }
        out.push_str(&said(&["poison", &mixed], lang));
        out
    };
    let en = reports("en");
    for english in [
        "an Anthropic API key (sk-ant-…)",
        "chars)…",
        "(1 finding)",
        "mixes Latin, Cyrillic and Greek letters",
    ] {
        assert!(en.contains(english), "{english}: {en}");
    }
    assert!(!en.contains(&key), "the key itself is never repeated");
    for (lang, words) in [
        (
            "pt",
            [
                "uma chave de API da Anthropic (sk-ant-…)",
                "caracteres)…",
                "(1 achado)",
                "letras latinas, cirílicas e gregas",
            ],
        ),
        (
            "es",
            [
                "una clave de API de Anthropic (sk-ant-…)",
                "caracteres)…",
                "(1 hallazgo)",
                "letras latinas, cirílicas y griegas",
            ],
        ),
    ] {
        let out = reports(lang);
        for w in words {
            assert!(out.contains(w), "{lang}: {w} in {out}");
        }
        for english in ["API key", "chars)", "finding"] {
            assert!(!out.contains(english), "{lang}: {english} in {out}");
        }
        // The poisoned server's own text has an "and": only the lines about the name count.
        let names: Vec<&str> = out.lines().filter(|l| l.contains("U+0435")).collect();
        assert_eq!(names.len(), 3, "{lang}: {out}");
        for line in names {
            assert!(!line.contains(" and "), "{lang}: {line}");
        }
    }
}
