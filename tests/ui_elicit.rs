//! Elicitation goes to the user: in a live run, a server's `elicitation/create` shows as a
//! dialog (its message, its `requestedSchema` as a form), and what the person answers is what
//! the server gets, drawn host -> user -> host. The run is the app's [`LiveRun`] of the
//! primitives tour against the real `sightline demo-server tour`; the dialog is the app's,
//! driven with kittest.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable;
use sightline::host::agent::RunOptions;
use sightline::host::scenario::Scenario;
use sightline::host::user::UserLane;
use sightline::ui::elicit::ElicitDialog;
use sightline::ui::live::{LiveRun, RunStatus};
use sightline::ui::{Language, Strings, Tr};

use crate::util;

fn text(key: &str) -> String {
    Strings::embedded().get(Language::En, key).to_string()
}

/// The shipped primitives tour, its built-in server run by the `sightline` binary.
fn tour() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/primitives-tour.toml");
    let mut scenario = Scenario::load(&path).expect("the tour scenario");
    for s in &mut scenario.servers {
        if let Some(builtin) = s.builtin.take() {
            s.command = Some(util::bin().to_string());
            s.args = vec!["demo-server".into(), builtin];
        }
    }
    scenario
}

#[test]
fn a_live_runs_elicitation_is_a_dialog_whose_answer_the_server_gets() {
    let dir = util::tempdir();
    let trace = dir.path().join("tour.jsonl");
    let (user, questions) = UserLane::channel(Duration::from_secs(60));
    let options = RunOptions {
        user: Some(user),
        ..RunOptions::default()
    };
    let mut run = LiveRun::start(
        tour(),
        "primitives-tour",
        options,
        trace.clone(),
        Arc::new(|| {}),
    )
    .expect("the run starts");
    let mut dialog = ElicitDialog::default();
    dialog.listen(questions);
    let strings = Strings::embedded();
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(900.0, 700.0))
        .with_accessibility_check(false)
        .build_ui_state(
            move |ui, d: &mut ElicitDialog| {
                d.poll();
                let tr = Tr {
                    strings: &strings,
                    lang: Language::En,
                };
                d.window_ui(ui.ctx(), tr);
            },
            dialog,
        );
    let start = Instant::now();
    while h.state().question().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60) && run.is_running(),
            "no elicitation dialog: {:?}",
            run.status()
        );
        std::thread::sleep(Duration::from_millis(50));
        h.run();
    }
    h.run();
    let (server, message) = h.state().question().expect("a question");
    assert_eq!(server, "tour");
    let message = message.to_string();
    assert!(message.contains("Allow it?"), "{message}");
    assert!(h.query_by_label(&message).is_some(), "the message is shown");
    // The schema's one property, a required boolean, is a checkbox labelled by its title.
    assert!(h.query_by_label("Confirm *").is_some(), "the form's field");
    h.get_by_role(egui::accesskit::Role::CheckBox).click();
    h.run();
    h.get_by_label(&text("elicit.accept")).click();
    h.run();
    assert!(h.state().question().is_none(), "the dialog closes");

    let status = run.wait();
    assert!(matches!(status, RunStatus::Done(_)), "{status:?}");
    let notes: Vec<String> = util::load(&trace)
        .events
        .iter()
        .map(|e| e.text().into_owned())
        .collect();
    assert!(
        notes
            .iter()
            .any(|t| t == "the user answers: accept {\"confirm\":true}"),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|t| t.contains("Confirmed: ")),
        "the server got the answer: {notes:#?}"
    );
}

#[test]
fn an_unanswered_question_is_a_cancel() {
    let dir = util::tempdir();
    let trace = dir.path().join("tour.jsonl");
    let (user, questions) = UserLane::channel(Duration::from_millis(300));
    let options = RunOptions {
        user: Some(user),
        ..RunOptions::default()
    };
    let mut run = LiveRun::start(
        tour(),
        "primitives-tour",
        options,
        trace.clone(),
        Arc::new(|| {}),
    )
    .expect("the run starts");
    // Nobody answers: the dialog's question is dropped once the host stops waiting.
    let mut dialog = ElicitDialog::default();
    dialog.listen(questions);
    let start = Instant::now();
    while dialog.question().is_none() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
        dialog.poll();
    }
    assert!(dialog.question().is_some(), "the question arrived");
    assert!(matches!(run.wait(), RunStatus::Done(_)));
    dialog.poll();
    assert!(dialog.question().is_none(), "the abandoned question closes");
    let notes: Vec<String> = util::load(&trace)
        .events
        .iter()
        .map(|e| e.text().into_owned())
        .collect();
    assert!(
        notes.iter().any(|t| t == "the user answers: cancel"),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|t| t.contains("Cancelled: ")),
        "{notes:#?}"
    );
}
