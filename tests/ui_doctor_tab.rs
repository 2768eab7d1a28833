//! The app's Doctor tab, driven headless like `ui_app`: the findings of a recorded scenario
//! listed with their reason codes, the arrows that prove them badged, a rug pull side by side,
//! and only the findings in view laid out.

use egui_kittest::kittest::Queryable;
use sightline::ui::{Command, Language, SightlineApp, Tab};

use crate::ui_app::{record, text};
use crate::util::{self, harness};

/// The Doctor tab's label: its name, and how many events carry findings.
fn doctor_tab(app: &SightlineApp) -> String {
    let name = text(Language::En, "panel.doctor");
    match app.store().findings.marked_events() {
        0 => name,
        n => format!("{name} ({n})"),
    }
}

#[test]
fn the_doctor_tab_lists_tool_poisoning_and_the_tools_list_arrow_carries_a_badge() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "tool-poisoning");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    let store = app.store();
    let finding = store
        .findings
        .poison
        .iter()
        .find(|f| f.tool.is_some())
        .expect("a poisoning finding in a tool definition")
        .clone();
    let event = store
        .index_of_seq(finding.seq)
        .expect("the finding's event");
    let row = store
        .diagram
        .rows
        .iter()
        .find(|r| r.event() == event)
        .expect("the finding's row")
        .clone();
    let row_label = store.row_label(event);
    assert!(
        row_label.contains("tools/list"),
        "the finding is not on a tools/list result: {row_label:?}"
    );
    let marks = store.findings.marks(event).len();
    assert!(marks >= 1);
    let badge = format!("#{} {row_label} ⚠ {marks}", store.events[row.event()].seq);
    app.apply(Command::Select(event));
    let mut h = harness(app);
    assert!(
        h.query_by_label(&badge).is_some(),
        "the diagram does not expose the badge label {badge:?}"
    );

    let tab = doctor_tab(h.state());
    h.get_by_label(&tab).click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Doctor);
    assert!(
        h.query_by_label(&finding.excerpt).is_some(),
        "the Doctor tab does not show the excerpt {:?}",
        finding.excerpt
    );
    assert!(
        h.query_all_by_label_contains(finding.kind.code()).count() >= 1,
        "the Doctor tab does not name the finding's kind"
    );
    // What the model sees marks the poisoned tool too.
    h.state_mut().set_tab(Tab::ModelView);
    h.run();
    let poison = text(Language::En, "badge.poison");
    assert!(
        h.query_all_by_label_contains(&poison).count() >= 1,
        "what the model sees has no poisoning badge"
    );
    h.state_mut().set_tab(Tab::Doctor);
    h.run();
    // The evidence link selects the tools/list result.
    h.state_mut().apply(Command::Select(0));
    h.run();
    let link = text(Language::En, "doctor.evidence").replace("{seq}", &finding.seq.to_string());
    h.get_all_by_label(&link)
        .next()
        .expect("evidence link")
        .click();
    h.run();
    assert_eq!(h.state().selected(), Some(event));
}

#[test]
fn a_rug_pull_is_shown_side_by_side_in_the_doctor_tab() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "rug-pull");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    let rug = app
        .store()
        .findings
        .rug_pulls
        .first()
        .expect("a rug pull")
        .clone();
    assert!(rug.rows.iter().any(|r| r.changed), "no changed line");
    app.set_tab(Tab::Doctor);
    let h = harness(app);
    let before = text(Language::En, "doctor.before").replace("{seq}", &rug.before_seq.to_string());
    let after = text(Language::En, "doctor.after").replace("{seq}", &rug.after_seq.to_string());
    assert!(h.query_by_label(&before).is_some(), "no {before:?} column");
    assert!(h.query_by_label(&after).is_some(), "no {after:?} column");
    // Both definitions are there, line by line.
    let changed = rug
        .rows
        .iter()
        .find(|r| r.changed && r.before.is_some() && r.after.is_some())
        .expect("a line changed on both sides");
    for line in [&changed.before, &changed.after].into_iter().flatten() {
        let shown = sightline::ui::visible::escape(line).into_owned();
        assert!(
            h.query_all_by_label(&shown).count() >= 1,
            "the diff does not show {shown:?}"
        );
    }
}

/// A rug pull's headline is kept in each language: the Doctor tab says it in the language
/// picked in the app, and not in English once another is picked.
#[test]
fn a_rug_pulls_headline_follows_the_language_picked() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "rug-pull");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    let rug = app
        .store()
        .findings
        .rug_pulls
        .first()
        .expect("a rug pull")
        .clone();
    app.set_tab(Tab::Doctor);
    let mut h = harness(app);
    let said = |lang| {
        let headline = rug.headline(sightline::i18n::Words::of(lang));
        sightline::ui::visible::escape(headline).into_owned()
    };
    let english = said(Language::En);
    assert!(
        english.contains(" changed between tools/list results #"),
        "{english}"
    );
    assert!(h.query_by_label(&english).is_some(), "no {english:?}");
    for (lang, code, words) in [
        (
            Language::Pt,
            "PT",
            " mudou entre os resultados de tools/list #",
        ),
        (
            Language::Es,
            "ES",
            " cambió entre los resultados de tools/list #",
        ),
    ] {
        h.get_by_label(code).click();
        h.run();
        assert_eq!(h.state().language(), lang);
        let headline = said(lang);
        assert!(headline.contains(words), "{lang:?}: {headline}");
        assert!(
            h.query_by_label(&headline).is_some(),
            "{lang:?}: no {headline:?}"
        );
        assert!(
            h.query_by_label(&english).is_none(),
            "{lang:?}: the English headline is still shown"
        );
    }
}

#[test]
fn the_doctor_tab_gives_the_reason_code_of_every_hidden_or_renamed_tool_and_badges_its_evidence() {
    let dir = util::tempdir();
    for scenario in ["invisible-tool", "two-servers"] {
        let trace = record(dir.path(), scenario);
        let mut app = SightlineApp::from_trace(&trace).expect("open trace");
        let hidden: Vec<_> = app
            .store()
            .findings
            .diagnosis
            .tools
            .iter()
            .filter(|t| sightline::analysis::findings::noteworthy(t))
            .cloned()
            .collect();
        assert!(!hidden.is_empty(), "{scenario}: no tool has a finding");
        for t in &hidden {
            let event = t.seq.and_then(|s| app.store().index_of_seq(s));
            let event = event.expect("the evidence event");
            assert!(
                !app.store().findings.marks(event).is_empty(),
                "{scenario}: no badge on the evidence of {}",
                t.tool
            );
        }
        app.set_tab(Tab::Doctor);
        let h = harness(app);
        for t in &hidden {
            assert!(
                h.query_all_by_label(t.code.as_str()).count() >= 1,
                "{scenario}: the Doctor tab does not show {} for {}",
                t.code,
                t.tool
            );
        }
    }
}

#[test]
fn the_doctor_tab_lays_out_only_the_violations_in_view() {
    use sightline::trace::{Channel, Event, Lane};
    // 1,000 pings, each answered with a result that is not an object: 1,000 violations.
    let t0 = chrono::DateTime::UNIX_EPOCH;
    let mut events = Vec::new();
    for k in 0..1000u64 {
        for (i, from, to, raw) in [
            (
                2 * k,
                "host",
                "server:s",
                format!(r#"{{"jsonrpc":"2.0","id":{k},"method":"ping"}}"#),
            ),
            (
                2 * k + 1,
                "server:s",
                "host",
                format!(r#"{{"jsonrpc":"2.0","id":{k},"result":7}}"#),
            ),
        ] {
            let t = t0 + chrono::Duration::milliseconds(i as i64);
            events.push(Event::with_bytes(
                i,
                t,
                Lane::from(from),
                Lane::from(to),
                Channel::Stdio,
                raw.into_bytes(),
            ));
        }
    }
    let mut app = SightlineApp::from_events("pings", events);
    assert_eq!(app.store().findings.violations.len(), 1000);
    app.set_tab(Tab::Doctor);
    let h = harness(app);
    let heading = text(Language::En, "doctor.violations").replace("{count}", "1000");
    assert!(h.query_by_label(&heading).is_some(), "no {heading:?}");
    // The first violation (the answer #1) is in view; of the rest, only a screenful.
    let evidence =
        |seq: u64| text(Language::En, "doctor.evidence").replace("{seq}", &seq.to_string());
    assert!(
        h.query_by_label(&evidence(1)).is_some(),
        "the first violation is not shown"
    );
    assert!(
        h.query_by_label(&evidence(1999)).is_none(),
        "the last violation was laid out"
    );
    let prefix = text(Language::En, "doctor.evidence").replace("{seq}", "");
    let shown = h.query_all_by_label_contains(&prefix).count();
    assert!((1..100).contains(&shown), "{shown} links laid out");
}

/// Two sessions appended to one file, each counting its `seq`s from 0, each with an answer
/// that breaks the schema at `seq` 1: each violation's link selects its own event (the link
/// looked the `seq` up, and both selected the last event with it, the second session's).
#[test]
fn with_seqs_that_start_again_a_violations_link_selects_its_own_event() {
    use sightline::trace::{Channel, Event, Lane};
    let t0 = chrono::DateTime::UNIX_EPOCH;
    let mut events = Vec::new();
    // Session 1: a ping answered with `7` (not an object), then one answered well; session 2:
    // a ping answered with `7`.
    for session in [&["7", "{}"][..], &["7"][..]] {
        for (k, result) in session.iter().enumerate() {
            let ping = format!(r#"{{"jsonrpc":"2.0","id":{k},"method":"ping"}}"#);
            let pong = format!(r#"{{"jsonrpc":"2.0","id":{k},"result":{result}}}"#);
            for (seq, from, to, raw) in [
                (2 * k as u64, "host", "server:s", ping),
                (2 * k as u64 + 1, "server:s", "host", pong),
            ] {
                let t = t0 + chrono::Duration::milliseconds(events.len() as i64);
                let (from, to) = (Lane::from(from), Lane::from(to));
                let bytes = raw.into_bytes();
                events.push(Event::with_bytes(seq, t, from, to, Channel::Stdio, bytes));
            }
        }
    }
    let mut app = SightlineApp::from_events("appended", events);
    let violations: Vec<(usize, u64)> = app
        .store()
        .findings
        .violations
        .iter()
        .map(|v| (v.event, v.seq))
        .collect();
    assert_eq!(violations, [(1, 1), (5, 1)]);
    app.set_tab(Tab::Doctor);
    let mut h = harness(app);
    let link = text(Language::En, "doctor.evidence").replace("{seq}", "1");
    // The violations are listed last, after any doctor evidence of the same `seq`.
    for (back, event) in [(1, 1), (0, 5)] {
        h.state_mut().apply(Command::Select(0));
        h.run();
        let links: Vec<_> = h.get_all_by_label(&link).collect();
        assert!(links.len() >= 2, "{} links", links.len());
        links[links.len() - 1 - back].click();
        h.run();
        assert_eq!(
            h.state().selected(),
            Some(event),
            "the link of event {event}"
        );
    }
}
