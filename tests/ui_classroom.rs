//! The classroom views of the app, driven headless with `egui_kittest` on traces the real
//! `sightline run` records: presentation mode (a global scale, the projector theme, panels
//! hidden, keys that step, the narration large) and the two revisions compared side by side.

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use sightline::ui::{Command, Language, SightlineApp, Strings};

use crate::util::{self, harness};

fn record(dir: &Path, scenario: &str, protocol: &str) -> PathBuf {
    let trace = dir.join(format!("{scenario}-{protocol}.jsonl"));
    util::run_scenario_to(scenario, &trace, &["--protocol", protocol]);
    trace
}

fn text(key: &str) -> String {
    Strings::embedded().get(Language::En, key).to_string()
}

/// The accessible label of the diagram arrow of event `event` of `store`.
fn arrow_label(store: &sightline::ui::store::TraceStore, event: usize) -> String {
    let row = store.diagram.row_of_event(event).expect("a row");
    let marks = store.findings.marks(event);
    sightline::ui::badges::row_label(store.events[event].seq, &store.row_label(row), marks)
}

#[test]
fn presentation_mode_scales_everything_hides_the_panels_and_steps_with_the_keys() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather", "2025-11-25");
    let app = SightlineApp::from_trace(&trace).expect("open trace");
    let mut h = harness(app);
    let zoom_before = h.ctx.zoom_factor();
    assert!(h.query_by_label(&text("panel.messages")).is_some());

    h.key_press(egui::Key::F5);
    h.run();
    assert!(h.state().presenting());
    // The whole interface grows, not only the diagram, and the theme is the projector's.
    let scale = h.state().presentation_scale();
    assert!(scale > 1.2, "scale {scale}");
    // At most the scale chosen: less where the whole diagram would not fit the screen.
    let zoom = h.ctx.zoom_factor();
    assert!(zoom > 1.2 && zoom <= scale, "zoom {zoom}, scale {scale}");
    assert_eq!(h.ctx.theme(), egui::Theme::Light);
    assert!(sightline::ui::theme::is_projector(
        &h.ctx.global_style().visuals
    ));
    // The panels are gone; the diagram stays, up to the current step, narrated.
    assert!(h.query_by_label(&text("panel.messages")).is_none());
    assert!(h.query_by_label(&text("panel.inspector")).is_none());
    assert!(h.query_by_label(&text("menu.file")).is_none());
    assert_eq!(h.state().replay().cursor, 0);
    let first = h.state_mut().narration();
    assert!(
        h.query_by_label(&first).is_some(),
        "narration {first:?} not shown"
    );
    let label1 = arrow_label(h.state().store(), 1);
    assert!(h.query_by_label(&label1).is_none(), "step 1 shown early");

    // Space and the right arrow step on; the left arrow steps back.
    h.key_press(egui::Key::Space);
    h.run();
    assert_eq!(h.state().replay().cursor, 1);
    assert!(h.query_by_label(&label1).is_some(), "step 1 not revealed");
    h.key_press(egui::Key::ArrowRight);
    h.run();
    assert_eq!(h.state().replay().cursor, 2);
    let third = h.state_mut().narration();
    assert_ne!(first, third);
    assert!(h.query_by_label(&third).is_some());
    h.key_press(egui::Key::ArrowLeft);
    h.run();
    assert_eq!(h.state().replay().cursor, 1);
    assert!(h.query_by_label("Step 2 of 16").is_some());

    // + and - size everything for the room; the choice is kept in the settings.
    h.key_press(egui::Key::Plus);
    h.run();
    let larger = h.state().presentation_scale();
    assert!(larger > scale, "{larger} after + from {scale}");
    assert_eq!(h.ctx.zoom_factor(), larger);
    assert_eq!(h.state().settings().present_scale, larger);
    h.key_press(egui::Key::Minus);
    h.run();
    assert_eq!(h.state().presentation_scale(), scale);
    assert_eq!(h.state().replay().cursor, 1, "sizing does not step");

    // Esc leaves: scale, theme and panels come back, teaching mode as it was (off).
    h.key_press(egui::Key::Escape);
    h.run();
    h.run();
    assert!(!h.state().presenting());
    assert_eq!(h.ctx.zoom_factor(), zoom_before);
    assert!(!h.state().replay().active);
    assert!(h.query_by_label(&text("panel.messages")).is_some());
    assert!(!sightline::ui::theme::is_projector(
        &h.ctx.global_style().visuals
    ));
}

#[test]
fn presentation_mode_is_in_the_view_menu() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather", "2025-11-25");
    let mut h = harness(SightlineApp::from_trace(&trace).expect("open trace"));
    h.get_by_label(&text("menu.view")).click();
    h.run();
    h.get_by_label_contains(&text("present.menu")).click();
    // Presenting fits its scale to the screen over a few frames (the diagram's width is
    // measured as it is drawn), so this waits for frames rather than for a still one.
    h.run_steps(8);
    assert!(h.state().presenting());
    assert!(h.state().replay().active);
}

/// View > Settings… sets the whole interface's scale: egui's zoom factor, kept with the
/// settings, put back after presentation mode (which has its own), and taken up again by the
/// next run of the app.
#[test]
fn the_settings_window_sets_the_global_scale() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather", "2025-11-25");
    let mut h = harness(SightlineApp::from_trace(&trace).expect("open trace"));
    assert_eq!(h.ctx.zoom_factor(), 1.0);
    h.get_by_label(&text("menu.view")).click();
    h.run();
    h.get_by_label(&text("menu.settings")).click();
    h.run();
    assert!(h.query_by_label(&text("settings.ui_scale")).is_some());
    h.get_by_label("150%").click();
    h.run();
    h.run();
    assert_eq!(h.state().ui_scale(), 1.5);
    assert_eq!(h.ctx.zoom_factor(), 1.5);
    assert_eq!(h.state().settings().ui_scale, 1.5);

    // Presenting uses its own scale, and leaving puts the chosen one back.
    h.key_press(egui::Key::F5);
    h.run();
    let present = h.state().presentation_scale();
    assert_ne!(present, 1.5);
    let zoom = h.ctx.zoom_factor();
    assert!(zoom > 1.0 && zoom <= present && zoom != 1.5, "zoom {zoom}");
    h.key_press(egui::Key::F5);
    h.run();
    h.run();
    assert_eq!(h.ctx.zoom_factor(), 1.5);

    // The next run starts at the remembered scale.
    let saved = h.state().settings();
    let again = SightlineApp::from_trace(&trace)
        .expect("open trace")
        .with_settings(saved);
    let h = harness(again);
    assert_eq!(h.ctx.zoom_factor(), 1.5);
}

#[test]
fn the_compare_view_shows_both_revisions_synchronised_and_names_the_differences() {
    let dir = util::tempdir();
    let old = record(dir.path(), "primitives-tour", "2025-11-25");
    let new = record(dir.path(), "primitives-tour", "2026-07-28");
    let app = SightlineApp::compare_traces(&old, &new).expect("open both");
    let mut h = harness(app);
    let view = h.state().compare().expect("the compare view");
    // Both diagrams are drawn, each titled with its revision.
    for (k, revision) in ["2025-11-25", "2026-07-28"].into_iter().enumerate() {
        assert_eq!(view.sides[k].revision(), Some(revision));
        let title = view.side_title(
            k,
            sightline::i18n::Words {
                strings: &Strings::embedded(),
                lang: Language::En,
            },
        );
        assert!(
            !h.query_all_by_label(&title).collect::<Vec<_>>().is_empty(),
            "no title {title:?}"
        );
    }
    // The differences are named: handshake, the server's requests, the session.
    for key in [
        "compare.topic_handshake",
        "compare.topic_server_requests",
        "compare.topic_session",
        "compare.handshake_initialize",
        "compare.handshake_discover",
        "compare.session_transport",
        "compare.session_none",
    ] {
        let t = text(key);
        assert!(
            h.query_all_by_label_contains(t.split('{').next().unwrap_or(&t))
                .next()
                .is_some(),
            "{key} ({t:?}) not shown"
        );
    }
    let view = h.state().compare().expect("compare");
    let requests = view
        .contrasts
        .iter()
        .find(|c| c.topic == sightline::analysis::revisions::Topic::ServerRequests)
        .expect("server requests differ");
    assert_eq!(requests.sides[0].key, "compare.requests_server");
    assert_eq!(requests.sides[1].key, "compare.requests_input_required");

    // Clicking an arrow on the left selects the same step on the right: `initialize` and
    // `server/discover` are the same step, and so are the calls that follow.
    let left = &view.sides[0].store;
    let first = |method: &str| {
        (0..left.len())
            .find(|&i| {
                left.report.rpc.derived[i].method.as_deref() == Some(method)
                    && left.events[i].to.is_server()
            })
            .unwrap_or_else(|| panic!("no {method} on the left"))
    };
    let pairs = [
        (first("initialize"), "initialize", "server/discover"),
        (first("tools/list"), "tools/list", "tools/list"),
    ];
    for (event, method, counterpart) in pairs {
        let label = arrow_label(&h.state().compare().expect("compare").sides[0].store, event);
        h.get_by_label(&label).click();
        h.run();
        let view = h.state().compare().expect("compare");
        assert_eq!(view.sides[0].selected, Some(event));
        let right = view.sides[1].selected.expect("the right side follows");
        assert_eq!(
            view.sides[1].store.report.rpc.derived[right]
                .method
                .as_deref(),
            Some(counterpart),
            "{method} on the left"
        );
    }
    // The handshake topic selects `initialize` on the left and `server/discover` on the right.
    h.get_by_label(&text("compare.topic_handshake")).click();
    h.run();
    let view = h.state().compare().expect("compare");
    let method = |k: usize| {
        let side = &view.sides[k];
        side.store.report.rpc.derived[side.selected.expect("selected")]
            .method
            .as_deref()
            .map(str::to_string)
    };
    assert_eq!(method(0).as_deref(), Some("initialize"));
    assert_eq!(method(1).as_deref(), Some("server/discover"));

    // Closing the comparison leaves the first trace in the ordinary view.
    h.get_by_label(&text("compare.close")).click();
    h.run();
    assert!(h.state().compare().is_none());
    assert!(h.query_by_label(&text("panel.messages")).is_some());
}

#[test]
fn list_changed_is_contrasted_with_subscriptions_listen() {
    let dir = util::tempdir();
    let old = record(dir.path(), "list-changed", "2025-11-25");
    let new = record(dir.path(), "list-changed", "2026-07-28");
    let app = SightlineApp::compare_traces(&old, &new).expect("open both");
    let view = app.compare().expect("compare");
    let changed = view
        .contrasts
        .iter()
        .find(|c| c.topic == sightline::analysis::revisions::Topic::ListChanged)
        .expect("change notifications");
    assert_eq!(changed.sides[0].key, "compare.changed_notification");
    assert_eq!(changed.sides[1].key, "compare.changed_listen");
    let right = &view.sides[1].store;
    assert!(changed.sides[1].events.iter().any(|&e| {
        right.report.rpc.derived[e].method.as_deref() == Some("subscriptions/listen")
    }));
    // A command closes it too.
    let mut app = app;
    app.apply(Command::CloseCompare);
    assert!(app.compare().is_none());
}
