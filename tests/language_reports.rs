//! The command-line reports a class reads, in Portuguese and Spanish: `check` (every finding
//! class, the doctor's details inside it), `doctor`, `diff`, `validate`, `replay` and `poison`.
//! The judge is `language::english_sentences`; the English reports of the same traces must
//! trip it, so each test can fail.

use crate::language::{english_sentences, sightline, stdout};
use crate::util::{run_scenario_to, tempdir};

/// `check`, `diff`, `validate`, `replay` and `poison` print in the language asked (or the
/// locale's): a sentence of each one's table in pt and es, none of the English framing, and the
/// English lines of the same reports read as English, so the detector can fail here.
#[test]
fn check_diff_validate_replay_and_poison_speak_the_language_asked() {
    let dir = tempdir();
    let trace = |name: &str| {
        let path = dir.path().join(format!("{name}.jsonl"));
        run_scenario_to(name, &path, &[]);
        path.to_str().expect("utf-8 path").to_string()
    };
    let (weather, rug, poisoned) = (trace("weather"), trace("rug-pull"), trace("tool-poisoning"));
    let bin = crate::util::bin();
    let replay_out = dir.path().join("replay.jsonl");
    let replay_out = replay_out.to_str().expect("utf-8 path");
    let commands: Vec<(&str, Vec<&str>)> = vec![
        (
            "check",
            vec![
                "check",
                &weather,
                "--expect-tool",
                "nope",
                "--forbid-tool",
                "get_weather",
                "--max-tool-tokens",
                "1",
            ],
        ),
        ("diff", vec!["diff", &weather, &rug]),
        ("validate", vec!["validate", &weather]),
        (
            "replay",
            vec![
                "replay",
                &weather,
                "--trace",
                replay_out,
                "--",
                bin,
                "demo-server",
                "forecast",
            ],
        ),
        ("poison", vec!["poison", &poisoned]),
    ];
    // (command, language) -> a sentence of its table that must be there.
    let expected = [
        (
            "check",
            "pt",
            "a ferramenta proibida `get_weather` foi chamada no evento #",
        ),
        ("check", "es", "3 de 8 pruebas fallaron, 4 hallazgos"),
        ("diff", "pt", "o servidor não está em B"),
        (
            "diff",
            "es",
            "lo que recibió el modelo (última solicitud al LLM)",
        ),
        ("validate", "pt", "0 violações em "),
        ("validate", "es", "0 violaciones en "),
        (
            "replay",
            "pt",
            "3 requisições reproduzidas: 0 iguais, 3 diferem",
        ),
        ("replay", "es", "grabado #"),
        ("poison", "pt", "10 achados: 8 de perigo, 2 de alerta"),
        ("poison", "es", "texto oculto, decodificado: "),
        (
            "poison",
            "pt",
            "o texto pede ao modelo que deixe o usuário de fora",
        ),
        (
            "poison",
            "es",
            "(en el texto oculto en caracteres de etiqueta): una descripción de herramienta",
        ),
    ];
    // A sentence of each English report, which pt and es must not print.
    let english_framing = [
        ("check", "tests failed, 4 findings"),
        ("diff", "the server is not in B"),
        ("validate", "violations in 7 messages checked"),
        ("replay", "requests replayed: 0 same"),
        ("poison", "findings: 8 danger"),
    ];
    for (name, args) in &commands {
        // Lines Sightline writes itself: the ones that quote a server's text (a changed
        // value, a poisoned description) are left out.
        let quoting = match *name {
            "diff" => "      ",
            "replay" | "poison" => "    ",
            "validate" => "#",
            _ => "\0",
        };
        let ours = |l: &&str| !l.starts_with(quoting);
        let en = stdout(&sightline(args, "C.UTF-8"));
        let (_, english) = english_framing
            .iter()
            .find(|(n, _)| n == name)
            .expect("an English sentence for each command");
        assert!(en.contains(english), "{name}: {en}");
        assert!(
            matches!(*name, "validate" | "poison")
                || en
                    .lines()
                    .filter(ours)
                    .any(|l| !english_sentences(l).is_empty()),
            "{name}: the English report should read as English: {en}"
        );
        for lang in ["pt", "es"] {
            let mut with_lang = args.clone();
            with_lang.extend(["--lang", lang]);
            if *name == "replay" {
                // `--lang` before `--`: the rest is the server's command.
                let at = with_lang.iter().position(|a| *a == "--").expect("--");
                with_lang.truncate(with_lang.len() - 2);
                with_lang.splice(at..at, ["--lang", lang]);
            }
            let out = stdout(&sightline(&with_lang, "C.UTF-8"));
            for (_, _, sentence) in expected.iter().filter(|(n, l, _)| n == name && *l == lang) {
                assert!(out.contains(sentence), "{name} --lang {lang}: {out}");
            }
            assert!(!out.contains(english), "{name} --lang {lang}: {out}");
            if *name == "poison" {
                // Each finding's explanation, the line after its excerpt.
                let explained = explanations(&out);
                assert_eq!(explained.len(), 10, "{out}");
                for line in explained {
                    assert!(
                        english_sentences(line).is_empty(),
                        "poison --lang {lang}: English in: {line}"
                    );
                }
                assert!(
                    explanations(&en)
                        .iter()
                        .all(|l| !english_sentences(l).is_empty()),
                    "the English explanations read as English: {en}"
                );
            }
            for line in out.lines().filter(ours) {
                assert!(
                    english_sentences(line).is_empty(),
                    "{name} --lang {lang}: English in: {line}"
                );
            }
        }
    }
    // The locale decides without the flag, as for summary.
    let from_locale = stdout(&sightline(&["validate", &weather], "es_ES.UTF-8"));
    assert!(
        from_locale.contains(" mensajes comprobados"),
        "{from_locale}"
    );
}

/// The explanation lines of `sightline poison`'s text: each the second line after a finding's
/// `#seq` line (the first is its excerpt).
fn explanations(out: &str) -> Vec<&str> {
    let lines: Vec<&str> = out.lines().collect();
    (2..lines.len())
        .filter(|&i| lines[i - 2].starts_with('#'))
        .map(|i| lines[i])
        .collect()
}

/// The doctor's details (why a tool is hidden, renamed, visible), in `doctor` and inside
/// `check --fail-on hidden,drift` / `--expect-visible` (with the rug pull's headline), are said in the language asked: every line
/// of the pt/es reports of the scenarios about visibility reads as no English, and the
/// English ones do.
#[test]
fn the_doctors_details_follow_the_language_in_doctor_and_check() {
    let dir = tempdir();
    for name in ["invisible-tool", "two-servers", "list-changed", "rug-pull"] {
        let path = dir.path().join(format!("{name}.jsonl"));
        run_scenario_to(name, &path, &[]);
        let trace = path.to_str().expect("utf-8 path");
        let reports = |lang: &str| {
            let doctor = stdout(&sightline(&["doctor", trace, "--lang", lang], "C.UTF-8"));
            let check = stdout(&sightline(
                &[
                    "check",
                    trace,
                    "--fail-on",
                    "hidden,drift",
                    "--expect-visible",
                    "get_weather",
                    "--lang",
                    lang,
                ],
                "C.UTF-8",
            ));
            format!("{doctor}{check}")
        };
        let en = reports("en");
        assert!(
            en.lines()
                .filter(|l| !english_sentences(l).is_empty())
                .count()
                >= 2,
            "{name}: the English details read as English: {en}"
        );
        for lang in ["pt", "es"] {
            let out = reports(lang);
            // A `{name}` nobody filled in (the tool-name pattern's `{1,64}` is data).
            let left = out
                .match_indices('{')
                .any(|(i, _)| out[i + 1..].starts_with(|c: char| c.is_ascii_lowercase()));
            assert!(!left, "{name} ({lang}): a placeholder left: {out}");
            for line in out.lines() {
                assert!(
                    english_sentences(line).is_empty(),
                    "{name} ({lang}): English in: {line}"
                );
            }
        }
    }
}

/// `export` warns when a Mermaid text or an SVG grows past what their readers cope with; the
/// warning is said in the language asked (English too, so the judge can fail).
#[test]
fn exports_size_warnings_are_said_in_the_language_asked() {
    let dir = tempdir();
    let path = dir.path().join("long.jsonl");
    let mut text = String::from(
        "{\"sightline_trace\":1,\"created\":\"2026-12-02T10:00:00Z\",\"sightline_version\":\"0.1.0\",\"title\":\"long\"}\n",
    );
    for seq in 0..5_001u32 {
        let (s, ms) = (seq / 1000, seq % 1000);
        text.push_str(&format!(
            "{{\"seq\":{seq},\"time\":\"2026-12-02T10:00:{s:02}.{ms:03}Z\",\"from\":\"server:weather\",\"to\":\"host\",\"channel\":\"stdio\",\"raw\":\"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"notifications/progress\\\",\\\"params\\\":{{\\\"progressToken\\\":1,\\\"progress\\\":{seq}}}}}\"}}\n"
        ));
    }
    std::fs::write(&path, text).expect("write trace");
    let trace = path.to_str().expect("utf-8 path");
    let out = dir.path().join("out");
    let out = out.to_str().expect("utf-8 path");
    for format in ["mermaid", "svg"] {
        let warning = |lang: &str| {
            let args = [
                "export", trace, "--format", format, "--out", out, "--lang", lang,
            ];
            let run = sightline(&args, "C.UTF-8");
            assert!(run.status.success(), "{format} {lang}: {run:?}");
            String::from_utf8_lossy(&run.stderr).into_owned()
        };
        let en = warning("en");
        let english = if format == "mermaid" {
            "sightline: the Mermaid text of the whole trace (5001 events) is "
        } else {
            "sightline: the SVG of the whole trace (5001 events) is "
        };
        assert!(en.contains(english), "{format}: {en}");
        assert!(!english_sentences(&en).is_empty(), "{format}: {en}");
        for (lang, said) in [
            ("pt", "do trace inteiro (5001 eventos)"),
            ("es", "del trace entero (5001 eventos)"),
        ] {
            let text = warning(lang);
            assert!(text.contains(said), "{format} {lang}: {text}");
            let english = english_sentences(&text);
            assert!(english.is_empty(), "{format} {lang}: {english:?} in {text}");
        }
    }
}
