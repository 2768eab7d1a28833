//! The translation files are complete and consistent, and lookups behave.

use super::*;

#[test]
fn the_embedded_files_parse() {
    let s = Strings::embedded();
    for lang in Language::ALL {
        assert!(s.keys(lang).count() > 200, "{lang:?}");
    }
    assert_eq!(s.get(Language::En, "menu.open"), "Open…");
    assert_eq!(s.get(Language::Pt, "menu.file"), "Arquivo");
    assert_eq!(s.get(Language::Es, "menu.quit"), "Salir");
}

#[test]
fn every_language_has_the_same_keys() {
    let s = Strings::embedded();
    let en: Vec<&str> = s.keys(Language::En).collect();
    for lang in [Language::Pt, Language::Es] {
        let missing: Vec<&&str> = en.iter().filter(|k| !s.has(lang, k)).collect();
        assert!(missing.is_empty(), "{lang:?} lacks {missing:?}");
        let extra: Vec<&str> = s.keys(lang).filter(|k| !s.has(Language::En, k)).collect();
        assert!(
            extra.is_empty(),
            "{lang:?} has keys English lacks: {extra:?}"
        );
    }
}

#[test]
fn placeholders_match_across_languages() {
    let s = Strings::embedded();
    let mut mismatches = Vec::new();
    for key in s.keys(Language::En) {
        let en = placeholders(s.get(Language::En, key));
        for lang in [Language::Pt, Language::Es] {
            let other = placeholders(s.get(lang, key));
            if other != en {
                mismatches.push(format!("{key} ({}): {en:?} vs {other:?}", lang.code()));
            }
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

#[test]
fn translations_are_translated() {
    // Texts that may legitimately be identical across languages: names, symbols, codes.
    let same_ok = |key: &str, text: &str| {
        placeholders(text).len() * 8 + 12 >= text.chars().count()
            || key.starts_with("primitive.")
            || key.starts_with("legend.")
            || key.starts_with("kind.")
            || key.starts_with("filter.show_")
            || key == "panel.inspector"
            // A field name and its value: the same words in every language.
            || key == "summary.server_name"
            // `host -> weather: tools/call get_weather`: lanes and a method, no words.
            || key == "run_progress.tools_call"
            // `sightline: error: …`: Spanish says "error" too.
            || key == "cli_error.line"
            // The API's own item and its fields: no words of ours.
            || key == "label.approval_response"
    };
    let s = Strings::embedded();
    let mut untranslated = Vec::new();
    for key in s.keys(Language::En) {
        let en = s.get(Language::En, key);
        for lang in [Language::Pt, Language::Es] {
            if s.get(lang, key) == en && !same_ok(key, en) {
                untranslated.push(format!("{key} ({})", lang.code()));
            }
        }
    }
    assert!(untranslated.is_empty(), "{untranslated:#?}");
}

#[test]
fn the_labels_the_app_needs_exist() {
    let s = Strings::embedded();
    for key in [
        "menu.file",
        "menu.open",
        "menu.open_recent",
        "menu.run_scenario",
        "menu.export_mermaid",
        "menu.export_svg",
        "menu.export",
        "menu.export_html",
        "menu.language",
        "menu.quit",
        "panel.sequence_diagram",
        "panel.inspector",
        "panel.raw",
        "panel.pretty_json",
        "panel.paired_message",
        "panel.tool_call_chain",
        "panel.timing",
        "panel.revision",
        "panel.what_model_sees",
        "panel.tools_sent",
        "panel.listed_not_sent",
        "panel.instructions_system",
        "panel.messages",
        "filter.filter",
        "filter.search",
        "replay.replay",
        "replay.play",
        "replay.pause",
        "replay.next",
        "replay.previous",
        "replay.speed",
        "legend.request",
        "legend.response",
        "legend.notification",
        "legend.error",
        "legend.invalid",
        "legend.unanswered",
        "legend.stderr",
        "legend.process",
        "diagram.lesson_none",
        "diagram.lesson_some",
        "app.no_display",
    ] {
        for lang in Language::ALL {
            assert!(s.has(lang, key), "{key} ({})", lang.code());
        }
    }
    assert_eq!(
        s.fmt(Language::En, "diagram.lesson_none", &[("count", "0")])
            .replace('|', ""),
        "the model never talks to the server: the host sits in the middle (0 direct messages)"
    );
    assert_eq!(
        s.get(Language::En, "app.no_display"),
        "no display: run `sightline run SCENARIO` or `sightline summary TRACE` instead"
    );
}

#[test]
fn lookups_fall_back_to_english_then_to_the_key() {
    let s = Strings::parse(
        "[a]\nx = \"X {n}\"\ny = \"Y\"\n",
        "[a]\nx = \"Xis {n}\"\n",
        "",
    )
    .expect("parse");
    assert_eq!(s.get(Language::Pt, "a.x"), "Xis {n}");
    assert_eq!(s.get(Language::Pt, "a.y"), "Y");
    assert_eq!(s.get(Language::Es, "a.x"), "X {n}");
    assert_eq!(s.get(Language::Es, "a.nope"), "a.nope");
    assert_eq!(s.fmt(Language::Pt, "a.x", &[("n", "3")]), "Xis 3");
    assert!(!s.has(Language::Es, "a.x"));
}

#[test]
fn bad_files_are_errors() {
    let err = Strings::parse("[a]\nx = 3\n", "", "").expect_err("number");
    assert_eq!(
        err,
        I18nError::NotText {
            lang: "en",
            key: "a.x".into()
        }
    );
    assert!(matches!(
        Strings::parse("", "x = ", ""),
        Err(I18nError::Toml { lang: "pt", .. })
    ));
}

#[test]
fn filling_placeholders() {
    assert_eq!(
        fill("{a} and {b}, {a}", &[("a", "1"), ("b", "two")]),
        "1 and two, 1"
    );
    // Unknown names, non-names and unclosed braces stay as written.
    assert_eq!(fill("{x} {} {a b} {", &[("a", "1")]), "{x} {} {a b} {");
    assert_eq!(fill("{{a}}", &[("a", "1")]), "{1}");
    // Values are not scanned again.
    assert_eq!(fill("{a}{b}", &[("a", "{b}"), ("b", "2")]), "{b}2");
    assert_eq!(fill("ação {a}", &[("a", "ñ")]), "ação ñ");
    assert_eq!(placeholders("{b} {a} {b} {not one} {"), vec!["a", "b"]);
}

#[test]
fn plural_forms_follow_the_number() {
    let t = "{n} {n:tool|tools}";
    assert_eq!(fill(t, &[("n", "1")]), "1 tool");
    assert_eq!(fill(t, &[("n", "0")]), "0 tools");
    assert_eq!(fill(t, &[("n", "2")]), "2 tools");
    assert_eq!(fill(t, &[("n", "11")]), "11 tools");
    // An empty form is allowed; without a value, or without `|`, it stays as written.
    assert_eq!(fill("line{n:|s}", &[("n", "3")]), "lines");
    // A form holds placeholders of its own (the doctor's "all {total} tools").
    let nested = "{n:the only tool|all {n} tools} {n:is|are} {what}";
    assert_eq!(
        fill(nested, &[("n", "1"), ("what", "ok")]),
        "the only tool is ok"
    );
    assert_eq!(
        fill(nested, &[("n", "4"), ("what", "ok")]),
        "all 4 tools are ok"
    );
    assert_eq!(fill("{n:a|b} {m:x}", &[]), "{n:a|b} {m:x}");
    assert_eq!(
        fill("{\"tools\": [...]}", &[("tools", "1")]),
        "{\"tools\": [...]}"
    );
    assert_eq!(placeholders("{n} {n:a|b} {m:a|b} {k:x}"), vec!["m", "n"]);
}

#[test]
fn no_text_writes_a_plural_as_parentheses() {
    // `tool(s)` reads as a machine's; `{count:tool|tools}` says it in words.
    let s = Strings::embedded();
    for lang in Language::ALL {
        for key in s.keys(lang) {
            let text = s.get(lang, key);
            for bad in ["(s)", "(es)", "(ns)"] {
                assert!(!text.contains(bad), "{} `{key}`: {text}", lang.code());
            }
        }
    }
}

#[test]
fn languages() {
    assert_eq!(Language::ALL.map(Language::code), ["en", "pt", "es"]);
    assert_eq!(Language::Pt.name(), "Português");
    assert_eq!(Language::Es.to_string(), "Español");
    assert_eq!(Language::from_code("pt_BR.UTF-8"), Some(Language::Pt));
    assert_eq!(Language::from_code("es-AR"), Some(Language::Es));
    assert_eq!(Language::from_code("EN"), Some(Language::En));
    assert_eq!(Language::from_code("fr"), None);
    assert_eq!(Language::from_code(""), None);
    assert_eq!(Language::default(), Language::En);
    assert_eq!(
        serde_json::to_string(&Language::Es).expect("json"),
        "\"es\""
    );
}

#[test]
fn the_locale_decides_the_language() {
    let v = |s: &str| Some(s.to_string());
    assert_eq!(
        Language::from_locale(None, None, v("pt_BR.UTF-8")),
        Language::Pt
    );
    assert_eq!(
        Language::from_locale(v("es_ES.UTF-8"), None, v("pt_BR.UTF-8")),
        Language::Es
    );
    assert_eq!(
        Language::from_locale(None, v("es_MX"), v("pt_BR")),
        Language::Es
    );
    // An empty variable is as good as unset; the first set one decides, even if it is not ours.
    assert_eq!(Language::from_locale(v(""), None, v("pt_PT")), Language::Pt);
    assert_eq!(
        Language::from_locale(v("fr_FR.UTF-8"), None, v("pt_BR")),
        Language::En
    );
    assert_eq!(
        Language::from_locale(None, None, v("C.UTF-8")),
        Language::En
    );
    assert_eq!(Language::from_locale(None, None, None), Language::En);
}

#[test]
fn an_unknown_language_is_a_clear_error() {
    assert_eq!(Language::parse("pt"), Ok(Language::Pt));
    assert_eq!(Language::parse("es-AR"), Ok(Language::Es));
    let err = Language::parse("fr").expect_err("fr");
    assert_eq!(err.to_string(), "unknown language `fr`: use en, pt or es");
}

/// Whether `text` has a word (or words) that start with `start`: `says("é obsoleto", "obsolet")`,
/// but not `says("tool_loop", "loop")`.
fn says(text: &str, start: &str) -> bool {
    let words: String = format!(" {} ", text.to_lowercase())
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                ' '
            }
        })
        .collect();
    words.contains(&format!(" {start}"))
}

#[test]
fn no_text_uses_a_term_the_glossary_rules_out() {
    // The glossaries at the top of pt.toml and es.toml pick one term per concept, after the
    // seed article; these are the words they replaced, so a new text cannot bring them back.
    let ruled_out: [(Language, &[&str]); 2] = [
        (
            Language::Pt,
            &[
                "pedido de",
                "um pedido",
                "o pedido",
                "capacidade",
                "obsolet",
                "modo de ensino",
                "doutor",
                "avaliado contra",
            ],
        ),
        (
            Language::Es,
            &[
                "petición",
                "peticion",
                "traza",
                "capacidad",
                "obsolet",
                "modo de enseñanza",
                "guionizado",
                "ratón",
                "coste",
                "loop",
                "usted",
            ],
        ),
    ];
    assert!(says("O host envia um pedido de sampling.", "pedido de"));
    assert!(says("deprecated (obsoleto)", "obsolet"));
    assert!(!says("o que foi pedido", "pedido de"));
    assert!(!says("`tool_loop`", "loop"));
    let s = Strings::embedded();
    let mut found = Vec::new();
    for (lang, words) in ruled_out {
        for key in s.keys(lang) {
            for word in words.iter().filter(|w| says(s.get(lang, key), w)) {
                found.push(format!("{} `{key}` says {word:?}", lang.code()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn lists_are_joined_as_each_language_does() {
    let items = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let three = items(&["Latin", "Greek", "Cyrillic"]);
    assert_eq!(
        Words::of(Language::En).and_list(&three),
        "Latin, Greek and Cyrillic"
    );
    let pt = items(&["latim", "grego", "cirílico"]);
    assert_eq!(
        Words::of(Language::Pt).and_list(&pt),
        "latim, grego e cirílico"
    );
    let es = Words::of(Language::Es);
    assert_eq!(es.and_list(&items(&["latín", "griego"])), "latín y griego");
    assert_eq!(
        es.and_list(&items(&["griego", "italiano"])),
        "griego e italiano"
    );
    assert_eq!(es.and_list(&items(&["agua", "hierro"])), "agua y hierro");
    assert_eq!(es.and_list(&items(&["latín", "hindi"])), "latín e hindi");
    assert_eq!(es.and_list(&items(&["solo"])), "solo");
    assert_eq!(es.and_list(&[]), "");
}
