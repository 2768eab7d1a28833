//! Elicitation goes to the user: in a live run, a server's `elicitation/create` shows as a
//! dialog (its message, its `requestedSchema` as a form), and what the person answers is what
//! the server gets, drawn host -> user -> host. On 2025-11-25 the question is a server
//! request and the answer its response; on 2026-07-28 it rides on an `input_required` result
//! and the answer on the retried `tools/call` (`inputResponses`). The run is the app's
//! [`LiveRun`] of the primitives tour against the real `sightline demo-server tour`, under
//! each revision; the dialog is the app's, driven with kittest.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable;
use sightline::host::agent::RunOptions;
use sightline::host::scenario::{Protocol, Scenario};
use sightline::host::user::UserLane;
use sightline::i18n::Words;
use sightline::ui::elicit::ElicitDialog;
use sightline::ui::live::{LiveRun, RunStatus};
use sightline::ui::{Language, Strings};

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

const REVISIONS: [(Protocol, &str); 2] = [
    (Protocol::V2025_11_25, "2025-11-25"),
    (Protocol::V2026_07_28, "2026-07-28"),
];

/// The tour started live under `protocol`, with a user lane whose questions wait `timeout`
/// for an answer: the run, the lane's questions, and where the trace goes.
fn live_tour(
    dir: &Path,
    protocol: Protocol,
    timeout: Duration,
) -> (
    LiveRun,
    std::sync::mpsc::Receiver<sightline::host::user::Question>,
    std::path::PathBuf,
) {
    let trace = dir.join("tour.jsonl");
    let (user, questions) = UserLane::channel(timeout);
    let options = RunOptions {
        user: Some(user),
        protocol: Some(protocol),
        ..RunOptions::default()
    };
    let run = LiveRun::start(
        tour(),
        "primitives-tour",
        options,
        trace.clone(),
        Arc::new(|| {}),
    )
    .expect("the run starts");
    (run, questions, trace)
}

/// The raw text of every event of a trace.
fn texts(trace: &Path) -> Vec<String> {
    util::load(trace)
        .events
        .iter()
        .map(|e| e.text().into_owned())
        .collect()
}

/// On 2026-07-28, the question came in an `input_required` result and the retried
/// `tools/call` carries the user's answer as `inputResponses`; on 2025-11-25 neither.
fn assert_the_answer_rides_on_the_retry(texts: &[String], revision: &str, answer: &str) {
    let required = texts.iter().any(|t| {
        t.contains("\"resultType\":\"input_required\"") && t.contains("elicitation/create")
    });
    let retried = texts.iter().any(|t| {
        t.contains("\"method\":\"tools/call\"")
            && t.contains("\"inputResponses\"")
            && t.contains(answer)
    });
    if revision == "2026-07-28" {
        assert!(
            required,
            "{revision}: no input_required elicitation: {texts:#?}"
        );
        assert!(retried, "{revision}: the retry lacks {answer}: {texts:#?}");
    } else {
        assert!(
            !required && !retried,
            "{revision}: an input_required round on the old revision"
        );
        assert!(
            texts
                .iter()
                .any(|t| t.contains("\"method\":\"elicitation/create\"")),
            "{revision}: no elicitation/create request"
        );
    }
}

#[test]
fn a_live_runs_elicitation_is_a_dialog_whose_answer_the_server_gets() {
    for (protocol, revision) in REVISIONS {
        let dir = util::tempdir();
        let (mut run, questions, trace) = live_tour(dir.path(), protocol, Duration::from_secs(60));
        let mut dialog = ElicitDialog::default();
        dialog.listen(questions);
        let strings = Strings::embedded();
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(900.0, 700.0))
            .with_accessibility_check(false)
            .build_ui_state(
                move |ui, d: &mut ElicitDialog| {
                    d.poll();
                    let tr = Words {
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
                "{revision}: no elicitation dialog: {:?}",
                run.status()
            );
            std::thread::sleep(Duration::from_millis(50));
            h.run();
        }
        h.run();
        let (server, message) = h.state().question().expect("a question");
        assert_eq!(server, "tour");
        let message = message.to_string();
        assert!(message.contains("Allow it?"), "{revision}: {message}");
        assert!(h.query_by_label(&message).is_some(), "the message is shown");
        // The schema's one property, a required boolean, is a checkbox labelled by its title.
        assert!(h.query_by_label("Confirm *").is_some(), "the form's field");
        h.get_by_role(egui::accesskit::Role::CheckBox).click();
        h.run();
        h.get_by_label(&text("elicit.accept")).click();
        h.run();
        assert!(h.state().question().is_none(), "the dialog closes");

        let status = run.wait();
        assert!(
            matches!(status, RunStatus::Done(_)),
            "{revision}: {status:?}"
        );
        let texts = texts(&trace);
        assert!(
            texts
                .iter()
                .any(|t| t == "the user answers: accept {\"confirm\":true}"),
            "{revision}: {texts:#?}"
        );
        assert!(
            texts.iter().any(|t| t.contains("Confirmed: ")),
            "{revision}: the server got the answer: {texts:#?}"
        );
        let answer = "\"confirm\":{\"action\":\"accept\",\"content\":{\"confirm\":true}}";
        assert_the_answer_rides_on_the_retry(&texts, revision, answer);
    }
}

#[test]
fn an_unanswered_question_is_a_cancel() {
    for (protocol, revision) in REVISIONS {
        let dir = util::tempdir();
        let (mut run, questions, trace) =
            live_tour(dir.path(), protocol, Duration::from_millis(300));
        // Nobody answers: the dialog's question is dropped once the host stops waiting.
        let mut dialog = ElicitDialog::default();
        dialog.listen(questions);
        let start = Instant::now();
        while dialog.question().is_none() && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(20));
            dialog.poll();
        }
        assert!(
            dialog.question().is_some(),
            "{revision}: the question arrived"
        );
        assert!(matches!(run.wait(), RunStatus::Done(_)), "{revision}");
        dialog.poll();
        assert!(dialog.question().is_none(), "the abandoned question closes");
        let texts = texts(&trace);
        assert!(
            texts.iter().any(|t| t == "the user answers: cancel"),
            "{revision}: {texts:#?}"
        );
        assert!(
            texts.iter().any(|t| t.contains("Cancelled: ")),
            "{revision}: {texts:#?}"
        );
        assert_the_answer_rides_on_the_retry(
            &texts,
            revision,
            "\"confirm\":{\"action\":\"cancel\"",
        );
    }
}
