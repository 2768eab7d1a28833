//! File > Compare with... and File > Replay against... in the app, driven headless with
//! `egui_kittest`: two real recordings of the weather loop against the Python
//! `changed_server.py` (one whose tool lost a sibling and gained an argument), compared side
//! by side with `diff`'s findings and the changed definition in the rug-pull diff view; then
//! the first recording replayed from the app against the changed server (a real process, on
//! the replay's own thread) and compared with its replay.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::i18n::Words;
use sightline::ui::{Language, SightlineApp, Strings};

use crate::check_diff::{record, weather_scenario};
use crate::util::{self, harness};

fn text(key: &str) -> String {
    Strings::embedded().get(Language::En, key).to_string()
}

#[test]
fn compare_with_shows_both_traces_the_diff_and_the_changed_definition_side_by_side() {
    let dir = util::tempdir();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    record(&weather_scenario(dir.path(), "weather-a"), &a, &[]);
    record(&weather_scenario(dir.path(), "weather-b"), &b, &[]);
    let mut h = harness(SightlineApp::from_trace(&a).expect("open a"));
    // The menu item is there; without a desktop portal it says how else to compare.
    h.get_by_label(&text("menu.file")).click();
    h.run();
    h.get_by_label(&text("compare_with.menu")).click();
    h.run();
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        let notice = h.state().notice().expect("a notice").text.clone();
        assert_eq!(notice, text("compare_with.no_dialog"));
    }
    // The dialog's answer: the other trace.
    h.state_mut().compare_with(&b);
    h.run();
    let view = h.state().compare().expect("the compare view");
    assert_eq!(view.sides[1].store.source.path(), Some(b.as_path()));
    let notes: Vec<String> = view.notes.iter().map(|n| n.text.english()).collect();
    for needle in [
        "weather: tool get_forecast removed",
        r#"weather: tool get_weather changed: /inputSchema/properties/units: (absent) -> {"type":"string","enum":["C","F"]}"#,
        r#"weather: call get_weather {"location":"Seoul"} changed: /content/0/text: "Seoul: 15C, partly cloudy" -> "Seoul: 3C, snow""#,
    ] {
        assert!(
            notes.iter().any(|n| n.starts_with(needle)),
            "no note {needle:?} in {notes:#?}"
        );
        assert!(
            h.query_all_by_label_contains(needle).next().is_some(),
            "{needle:?} is not shown"
        );
    }
    // The changed definition in the rug-pull diff view: both definitions, line by line.
    assert_eq!(
        view.definitions.len(),
        2,
        "the tool and what the model was sent"
    );
    let title = text("compare_with.definitions").replace("{count}", "2");
    h.get_by_label(&title).click();
    h.run();
    let before = text("doctor.before").replace("{seq}", &view_seq(&h, 0));
    assert!(h.query_by_label(&before).is_some(), "no {before:?} column");
    let added = h.state().compare().expect("compare").definitions[0]
        .rows
        .iter()
        .find(|r| r.changed && r.after.as_deref().is_some_and(|l| l.contains("\"units\"")))
        .and_then(|r| r.after.clone())
        .expect("the new argument's line, changed");
    assert!(
        h.query_all_by_label(&added).next().is_some(),
        "{added:?} not drawn"
    );
    // A note selects what it is about on both sides.
    let call = notes
        .iter()
        .find(|n| n.starts_with("weather: call get_weather"))
        .expect("the call note")
        .clone();
    h.get_by_label(&call).click();
    h.run();
    let view = h.state().compare().expect("compare");
    for side in &view.sides {
        let e = side.selected.expect("selected");
        assert!(
            side.store.events[e].text().contains("tools/call"),
            "{}",
            side.store.events[e].text()
        );
    }
}

/// The compare view's notes and its changed definitions' headlines follow the language picked
/// in the app: `diff`'s words (`tool`, `removed`, `(absent)`) in Portuguese and Spanish, none
/// of the English ones left.
#[test]
fn compare_with_says_its_notes_and_headlines_in_the_language_picked() {
    let dir = util::tempdir();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    record(&weather_scenario(dir.path(), "weather-a"), &a, &[]);
    record(&weather_scenario(dir.path(), "weather-b"), &b, &[]);
    let mut h = harness(SightlineApp::from_trace(&a).expect("open a"));
    h.state_mut().compare_with(&b);
    h.run();
    let said = |h: &Harness<'static, SightlineApp>, lang: Language| {
        let view = h.state().compare().expect("the compare view");
        let w = Words::of(lang);
        let notes: Vec<String> = view.notes.iter().map(|n| n.text.say(w)).collect();
        let headlines: Vec<String> = view
            .definitions
            .iter()
            .map(|d| d.headline(w).to_string())
            .collect();
        (notes, headlines)
    };
    let (english, english_headlines) = said(&h, Language::En);
    for needle in [
        "weather: tool get_forecast removed",
        "weather: tool get_weather changed: /inputSchema/properties/units: (absent) -> ",
    ] {
        assert!(
            english.iter().any(|n| n.starts_with(needle)),
            "{needle}: {english:#?}"
        );
    }
    assert!(english_headlines.contains(&"weather: tool get_weather changed".to_string()));
    for (lang, code, removed, changed) in [
        (
            Language::Pt,
            "PT",
            "weather: ferramenta get_forecast remoção",
            "weather: ferramenta get_weather alteração: /inputSchema/properties/units: (ausente) -> ",
        ),
        (
            Language::Es,
            "ES",
            "weather: herramienta get_forecast baja",
            "weather: herramienta get_weather cambio: /inputSchema/properties/units: (ausente) -> ",
        ),
    ] {
        h.get_by_label(code).click();
        h.run();
        let (notes, headlines) = said(&h, lang);
        for needle in [removed, changed] {
            assert!(
                notes.iter().any(|n| n.starts_with(needle)),
                "{lang:?}: {needle} in {notes:#?}"
            );
        }
        for note in &notes {
            assert!(
                h.query_all_by_label(note).next().is_some(),
                "{lang:?}: {note:?} is not shown"
            );
            assert!(
                !note.contains(" tool ") && !note.contains("(absent)"),
                "{note}"
            );
        }
        for english in &english {
            assert!(
                !notes.contains(english),
                "{lang:?}: {english:?} left in English"
            );
        }
        let title = Strings::embedded()
            .get(lang, "compare_with.definitions")
            .replace("{count}", &headlines.len().to_string());
        h.get_by_label(&title).click();
        h.run();
        for headline in &headlines {
            assert!(!english_headlines.contains(headline), "{headline}");
            assert!(
                h.query_all_by_label(headline).next().is_some(),
                "{lang:?}: {headline:?} is not shown"
            );
        }
        // Closed again for the next language.
        h.get_by_label(&title).click();
        h.run();
    }
}

/// The `before_seq` of definition `k`, as the diff view titles it.
fn view_seq(h: &Harness<'static, SightlineApp>, k: usize) -> String {
    h.state().compare().expect("compare").definitions[k]
        .before_seq
        .to_string()
}

#[test]
fn replay_against_runs_off_the_ui_thread_then_compares_the_recording_with_its_replay() {
    let dir = util::tempdir();
    let a = dir.path().join("a.jsonl");
    record(&weather_scenario(dir.path(), "weather-a"), &a, &[]);
    let mut h = harness(SightlineApp::from_trace(&a).expect("open a"));
    h.get_by_label(&text("menu.file")).click();
    h.run();
    h.get_by_label(&text("compare_with.replay_menu")).click();
    h.run();
    assert!(
        h.query_by_label(&text("compare_with.replay_title"))
            .is_some(),
        "the window is open"
    );
    let target = format!(
        "python3 {} weather-b",
        util::peer("replay/changed_server.py")
    );
    h.state_mut().replay_against(&target);
    let deadline = Instant::now() + Duration::from_secs(60);
    // The UI keeps drawing while the replay runs (it asks for repaints until it ends).
    loop {
        h.step();
        let ctx = h.ctx.clone();
        if h.state_mut().replay_finished(&ctx) {
            break;
        }
        assert!(Instant::now() < deadline, "the replay did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    h.run();
    let notice = h.state().notice().map(|n| n.text.clone());
    let view = h
        .state()
        .compare()
        .unwrap_or_else(|| panic!("no comparison; notice: {notice:?}"));
    // The right side is the replay, a new trace with the changed server's answers.
    let replay = view.sides[1]
        .store
        .source
        .path()
        .expect("a file")
        .to_path_buf();
    assert_ne!(replay, a);
    let replayed = util::load(&replay);
    assert!(
        replayed
            .events
            .iter()
            .any(|e| e.text().contains("Seoul: 3C, snow"))
    );
    assert!(
        view.notes.iter().any(|n| n
            .text
            .english()
            .starts_with("weather: tool get_forecast removed")),
        "{:#?}",
        view.notes
            .iter()
            .map(|n| n.text.english())
            .collect::<Vec<_>>()
    );
    let _ = std::fs::remove_file(&replay);
}
