//! A Portuguese or Spanish class reads no English: the narration of every event of every
//! shipped scenario, under both revisions, and the scenarios' titles and explanations.
//!
//! The judge is [`english_sentences`], a detector that can fail: outside quotes, code and
//! identifiers, a sentence with two or more English function words (words that are not also
//! Portuguese or Spanish: "the", "is", "with", "which", ...) is English. It is shown to catch
//! English in `the_english_detector_catches_english`, and the English narration of the same
//! runs must trip it, so a detector that stopped seeing anything would fail here too.

use std::path::Path;

use sightline::analysis::narration::narrate;
use sightline::analysis::report;
use sightline::host::scenario::Scenario;
use sightline::i18n::{Language, Strings};

use crate::util::{load, run_scenario_to, tempdir};

/// English words that are neither Portuguese nor Spanish ("a", "as", "do", "no", "for", "has"
/// are, so they are not here).
const ENGLISH: &[&str] = &[
    "the", "is", "are", "and", "of", "to", "with", "this", "that", "from", "which", "it", "its",
    "not", "was", "were", "be", "been", "by", "have", "when", "what", "into", "an", "will",
    "would", "can", "does", "then", "than", "there", "their", "they", "only", "because", "after",
    "before", "on", "in", "or", "at", "who", "any", "every", "but", "if", "yet",
];

/// Text with quoted material (“…”, «…», "…", `…`) and JSON (`{…}`, `[…]`) taken out: what is
/// left is the sentence Sightline wrote around the data it quotes.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut closers: Vec<char> = Vec::new();
    for c in text.chars() {
        if closers.last() == Some(&c) {
            closers.pop();
            out.push(' ');
            continue;
        }
        let closer = match c {
            '“' => Some('”'),
            '«' => Some('»'),
            '"' if closers.last() != Some(&'"') => Some('"'),
            '`' => Some('`'),
            '{' => Some('}'),
            '[' => Some(']'),
            _ => None,
        };
        if let Some(closer) = closer {
            closers.push(closer);
        } else if closers.is_empty() {
            out.push(c);
        }
    }
    out
}

/// The sentences of `text` that read as English (see the module documentation).
pub(crate) fn english_sentences(text: &str) -> Vec<String> {
    prose(text)
        .split(['.', ';', ':', '!', '?', '(', ')'])
        .filter(|sentence| {
            let words = sentence.split_whitespace().filter_map(|token| {
                let word = token.trim_matches(|c: char| !c.is_alphanumeric());
                // Identifiers, methods, numbers and names keep their spelling in any language.
                let plain = !word.is_empty()
                    && word.chars().all(char::is_alphabetic)
                    && !word.chars().skip(1).any(char::is_uppercase);
                plain.then(|| word.to_lowercase())
            });
            words.filter(|w| ENGLISH.contains(&w.as_str())).count() >= 2
        })
        .map(|s| s.trim().to_string())
        .collect()
}

#[test]
fn the_english_detector_catches_english() {
    let english = "The host drops get_weather before calling the model (it is not in the list).";
    assert!(!english_sentences(english).is_empty());
    assert!(!english_sentences("Host note: the call failed and it was retried").is_empty());
    let portuguese = "O host descarta get_weather antes de chamar o modelo: “the weather is fine”.";
    assert_eq!(english_sentences(portuguese), Vec::<String>::new());
    let spanish =
        "El host envía tools/call con {\"the\": \"is\"} y `this is code`; no la envía el modelo.";
    assert_eq!(english_sentences(spanish), Vec::<String>::new());
    // One stray word is not a sentence; identifiers are not words.
    assert!(english_sentences("O servidor weather envia inputSchema is_on").is_empty());
}

pub(crate) fn shipped() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("scenarios/")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".toml")?.to_string();
            Some(name)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    names
}

#[test]
fn no_portuguese_or_spanish_narration_of_a_shipped_scenario_is_english() {
    let dir = tempdir();
    let strings = Strings::embedded();
    let mut found = Vec::new();
    let (mut events_seen, mut english_in_english) = (0, 0);
    for name in shipped() {
        for revision in ["2025-11-25", "2026-07-28"] {
            let path = dir.path().join(format!("{name}-{revision}.jsonl"));
            run_scenario_to(&name, &path, &["--protocol", revision]);
            let trace = load(&path);
            let r = report(&trace.events);
            for i in 0..trace.events.len() {
                events_seen += 1;
                let en = narrate(&trace.events, &r, i, &strings, Language::En);
                english_in_english += usize::from(!english_sentences(&en).is_empty());
                for lang in [Language::Pt, Language::Es] {
                    let text = narrate(&trace.events, &r, i, &strings, lang);
                    for sentence in english_sentences(&text) {
                        let seq = trace.events[i].seq;
                        found.push(format!(
                            "{name} {revision} #{seq} ({}): “{sentence}” in: {text}",
                            lang.code()
                        ));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "English in:\n- {}", found.join("\n- "));
    // The detector sees English where there is English: most English narrations trip it.
    assert!(
        english_in_english * 2 > events_seen,
        "only {english_in_english} of {events_seen} English narrations read as English"
    );
}

#[test]
fn every_shipped_scenario_has_a_title_and_explanation_in_each_language() {
    let strings = Strings::embedded();
    for name in shipped() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.toml"));
        let scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let en_title = scenario.title_in(&strings, Language::En, &name);
        assert_eq!(
            en_title, scenario.title,
            "{name}: English is the file's own"
        );
        for lang in [Language::Pt, Language::Es] {
            let title = scenario.title_in(&strings, lang, &name);
            let explanation = scenario.explanation_in(&strings, lang, &name);
            assert_ne!(title, scenario.title, "{name} has no {} title", lang.code());
            assert_ne!(
                explanation.trim(),
                scenario.explanation.trim(),
                "{name} has no {} explanation",
                lang.code()
            );
            let english = english_sentences(&format!("{title}. {explanation}"));
            assert!(english.is_empty(), "{name} ({}): {english:?}", lang.code());
        }
        let english = english_sentences(&scenario.explanation);
        assert!(
            !english.is_empty(),
            "{name}: the English explanation reads as English"
        );
    }
}

/// `sightline ARGS...` with `LANG` set to `lang` (and no LC_ALL / LC_MESSAGES), its output.
pub(crate) fn sightline(args: &[&str], lang: &str) -> std::process::Output {
    crate::util::run(
        std::process::Command::new(crate::util::bin())
            .args(args)
            .env("LANG", lang)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        std::time::Duration::from_secs(60),
    )
}

pub(crate) fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{}",
        crate::util::text(&out.stderr)
    );
    crate::util::text(&out.stdout)
}

#[test]
fn summary_doctor_and_run_speak_the_language_asked_or_the_locales() {
    let dir = tempdir();
    let trace = dir.path().join("invisible-tool.jsonl");
    run_scenario_to("invisible-tool", &trace, &[]);
    let trace = trace.to_str().expect("utf-8 path");

    let en = stdout(&sightline(&["summary", trace], "C.UTF-8"));
    let pt = stdout(&sightline(&["summary", trace, "--lang", "pt"], "C.UTF-8"));
    let from_lang = stdout(&sightline(&["summary", trace], "pt_BR.UTF-8"));
    assert!(
        en.contains(" events: ") && en.contains("result initialize"),
        "{en}"
    );
    assert!(
        pt.contains(" eventos: ") && pt.contains("resultado initialize"),
        "{pt}"
    );
    assert!(pt.contains("o modelo viu"), "{pt}");
    assert_eq!(
        pt, from_lang,
        "LANG=pt_BR picks Portuguese as --lang pt does"
    );
    assert_eq!(
        en.lines().count(),
        pt.lines().count(),
        "the same lines, other words"
    );
    // The totals and the token lines; the instructions line quotes the server's own words.
    let ours = |l: &&str| l.starts_with("--") && !l.contains(" instructions de ");
    for line in pt.lines().filter(ours) {
        assert!(english_sentences(line).is_empty(), "English in: {line}");
    }
    // The flag beats the locale.
    let es = stdout(&sightline(
        &["summary", trace, "--lang", "es"],
        "pt_BR.UTF-8",
    ));
    assert!(
        es.contains(" eventos: ") && es.contains("solicitudes"),
        "{es}"
    );

    let doctor = stdout(&sightline(&["doctor", trace, "--lang", "es"], "C.UTF-8"));
    assert!(
        doctor.contains("evaluado según la última solicitud al LLM"),
        "{doctor}"
    );
    assert!(doctor.contains("veredicto:"), "{doctor}");
    assert!(
        doctor.contains("name-rejected"),
        "codes stay as they are: {doctor}"
    );
    assert!(
        doctor.contains("cámbiale el nombre en el servidor, por ejemplo `weather_lookup`"),
        "the hint: {doctor}"
    );
    let doctor_en = stdout(&sightline(&["doctor", trace], "C"));
    assert!(doctor_en.contains("verdict:"), "{doctor_en}");

    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/weather.toml");
    let scenario = scenario.to_str().expect("utf-8 path");
    let out_trace = dir.path().join("weather.jsonl");
    let out_trace = out_trace.to_str().expect("utf-8 path");
    let run = stdout(&sightline(
        &["run", scenario, "--trace", out_trace],
        "es_ES.UTF-8",
    ));
    assert!(
        run.starts_with("== El tiempo: el ejemplo del artículo"),
        "{run}"
    );
    assert!(run.contains("== respuesta ("), "{run}");
    assert!(run.contains(" eventos: "), "{run}");
}

/// `run`'s progress follows `--lang`, the host's notes (a dropped tool, a renamed one) said as
/// the narration says them; English runs of the same scenarios trip the detector, so the test
/// can fail.
#[test]
fn run_progress_speaks_the_language_asked() {
    let dir = tempdir();
    for name in ["invisible-tool", "two-servers"] {
        let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.toml"));
        let scenario = scenario.to_str().expect("utf-8 path");
        let trace = dir.path().join(format!("{name}.jsonl"));
        let trace = trace.to_str().expect("utf-8 path");
        let progress = |lang: &str| {
            let out = stdout(&sightline(
                &[
                    "run",
                    scenario,
                    "--trace",
                    trace,
                    "--no-summary",
                    "--lang",
                    lang,
                ],
                "C.UTF-8",
            ));
            // The host's own lines; the user's prompt and the model's text are the scenario's.
            out.lines()
                .filter(|l| l.starts_with("host"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let en = progress("en");
        assert!(
            en.iter().any(|l| !english_sentences(l).is_empty()),
            "{name}: the English progress should read as English: {en:#?}"
        );
        for lang in ["pt", "es"] {
            let lines = progress(lang);
            assert_eq!(lines.len(), en.len(), "{name} ({lang}): {lines:#?}");
            for line in &lines {
                assert!(
                    english_sentences(line).is_empty(),
                    "{name} ({lang}): English in: {line}"
                );
            }
        }
    }
}

#[test]
fn mermaid_and_svg_labels_follow_lang() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let trace = trace.to_str().expect("utf-8 path");
    let export = |format: &str, lang: &[&str]| {
        let mut args = vec!["export", trace, "--format", format];
        args.extend(lang);
        stdout(&sightline(&args, "C.UTF-8"))
    };
    let en = export("mermaid", &[]);
    assert!(en.contains("participant U as User"), "{en}");
    assert!(en.contains("the model never talks to the server"), "{en}");
    let pt = export("mermaid", &["--lang", "pt"]);
    assert!(pt.contains("participant U as Usuário"), "{pt}");
    assert!(pt.contains("box Host (loop do LLM + cliente MCP)"), "{pt}");
    assert!(
        pt.contains(
            "o modelo nunca fala com o servidor: o host fica no meio (0 mensagens diretas)"
        ),
        "{pt}"
    );
    let es = export("svg", &["--lang", "es"]);
    assert!(es.contains("Diagrama de secuencia de Sightline"), "{es}");
    assert!(es.contains(">API del LLM<"), "{es}");
    assert!(es.contains(">el modelo nunca habla </tspan>"), "{es}");
}

#[test]
fn an_unknown_lang_is_a_one_line_error() {
    for args in [
        &["summary", "no-such.jsonl", "--lang", "fr"][..],
        &["doctor", "no-such.jsonl", "--lang", "fr"],
        &["run", "scenarios/weather.toml", "--lang", "fr"],
        &["check", "no-such.jsonl", "--lang", "fr"],
        &["validate", "no-such.jsonl", "--lang", "fr"],
        &[
            "export",
            "no-such.jsonl",
            "--format",
            "mermaid",
            "--lang",
            "fr",
        ],
    ] {
        let out = sightline(args, "C.UTF-8");
        let err = crate::util::text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("unknown --lang `fr`: use en, pt or es"),
            "{args:?}: {err}"
        );
    }
}

/// Run by [`the_app_starts_in_the_language_of_lang`] in a child process whose `LANG` is set:
/// the app, started as `sightline open` starts it (no `--lang`, nothing remembered), shows
/// its menus in the language `SIGHTLINE_EXPECT_LANG` names.
#[test]
#[ignore = "run by the_app_starts_in_the_language_of_lang with LANG set"]
fn the_app_in_the_language_of_its_environment() {
    use egui_kittest::kittest::Queryable;
    use sightline::ui::SightlineApp;
    use sightline::ui::language::starting_language;

    let expected = std::env::var("SIGHTLINE_EXPECT_LANG").expect("set by the parent test");
    let expected = Language::parse(&expected).expect("a language");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/narration/weather.jsonl");
    let app = SightlineApp::from_trace(&fixture)
        .expect("open the fixture")
        .with_language(starting_language(None, None));
    assert_eq!(app.language(), expected);
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_accessibility_check(false)
        .build_ui_state(|ui, app: &mut SightlineApp| app.ui(ui), app);
    h.run();
    let file = Strings::embedded().get(expected, "menu.file").to_string();
    assert!(h.query_by_label(&file).is_some(), "no {file:?} menu");
    if expected != Language::En {
        let english = Strings::embedded()
            .get(Language::En, "menu.file")
            .to_string();
        assert!(
            h.query_by_label(&english).is_none(),
            "an English {english:?} menu"
        );
    }
}

#[test]
fn the_app_starts_in_the_language_of_lang() {
    let me = std::env::current_exe().expect("the test binary");
    for (lang, expected) in [
        ("pt_BR.UTF-8", "pt"),
        ("es_AR.UTF-8", "es"),
        ("C.UTF-8", "en"),
    ] {
        let out = crate::util::run(
            std::process::Command::new(&me)
                .args(["--exact", "--ignored", "--test-threads=1"])
                .arg("language::the_app_in_the_language_of_its_environment")
                .env("LANG", lang)
                .env_remove("LC_ALL")
                .env_remove("LC_MESSAGES")
                .env("SIGHTLINE_EXPECT_LANG", expected),
            std::time::Duration::from_secs(120),
        );
        let stdout = crate::util::text(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "LANG={lang}: {stdout}\n{}",
            crate::util::text(&out.stderr)
        );
    }
}

/// `summary` says the host's own notes (a dropped tool, a renamed one, the roots it answers
/// with, a sampling or elicitation step) in the language asked, as the narration says them;
/// the English summary quotes them as the trace keeps them, and they read as English.
#[test]
fn summary_says_the_hosts_notes_in_the_language_asked() {
    let dir = tempdir();
    let mut notes_seen = 0;
    for name in ["invisible-tool", "two-servers", "primitives-tour"] {
        let path = dir.path().join(format!("{name}.jsonl"));
        run_scenario_to(name, &path, &[]);
        let trace = path.to_str().expect("utf-8 path");
        let host_notes = |lang: &str| {
            let out = stdout(&sightline(&["summary", trace, "--lang", lang], "C.UTF-8"));
            out.lines()
                .filter(|l| l.contains("  H->H  "))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let en = host_notes("en");
        assert!(!en.is_empty(), "{name}: no host note");
        notes_seen += en.len();
        assert!(
            en.iter().all(|l| !english_sentences(l).is_empty()),
            "{name}: the English notes read as English: {en:#?}"
        );
        for lang in ["pt", "es"] {
            let lines = host_notes(lang);
            assert_eq!(lines.len(), en.len(), "{name} ({lang}): {lines:#?}");
            for line in &lines {
                assert!(
                    english_sentences(line).is_empty(),
                    "{name} ({lang}): English in: {line}"
                );
            }
        }
    }
    assert!(notes_seen >= 5, "{notes_seen}");
}
