//! The desktop app, driven headless with `egui_kittest`: the real `sightline run` records a
//! trace, the app opens it, and the tests find and click what a person (or a screen reader)
//! would: arrows by their accessible label `#<seq> <label>`, buttons by their text.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sightline::trace::import::Format as ImportFormat;
use sightline::ui::model_view;
use sightline::ui::{Command, DesktopCommand, Language, SightlineApp, Strings, Tab};

use crate::util::{self, harness};

/// Runs a shipped scenario with the real binary and returns its trace.
pub(crate) fn record(dir: &Path, scenario: &str) -> PathBuf {
    let trace = dir.join(format!("{scenario}.jsonl"));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = util::run(
        Process::new(util::bin())
            .arg("run")
            .arg(manifest.join("scenarios").join(format!("{scenario}.toml")))
            .arg("--trace")
            .arg(&trace)
            .arg("--no-summary"),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "sightline run {scenario} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    trace
}

/// The accessible label of the diagram arrow of the first row whose label is `label`.
fn arrow(app: &SightlineApp, label: &str) -> (usize, String) {
    let store = app.store();
    let row = store
        .diagram
        .rows
        .iter()
        .find(|r| store.row_label(r.event()) == label)
        .unwrap_or_else(|| panic!("no row labelled {label:?}"));
    (
        row.event(),
        format!("#{} {label}", store.events[row.event()].seq),
    )
}

pub(crate) fn text(lang: Language, key: &str) -> String {
    Strings::embedded().get(lang, key).to_string()
}

#[test]
fn the_app_opens_a_trace_and_labels_every_visible_arrow() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let app = SightlineApp::from_trace(&trace).expect("open trace");
    let loaded = util::load(&trace);
    assert_eq!(app.store().len(), loaded.events.len());
    let h = harness(app);
    // The weather trace fits in the window: every row is on screen and exposed.
    let store = h.state().store();
    for (i, row) in store.diagram.rows.iter().enumerate() {
        let seq = store.events[row.event()].seq;
        let label = format!("#{seq} {}", store.row_label(i));
        assert!(
            h.query_by_label(&label).is_some(),
            "the diagram does not expose {label:?}"
        );
    }
    let (_, tools_call) = arrow(h.state(), "tools/call get_weather");
    assert!(h.query_by_label(&tools_call).is_some());
    assert_eq!(h.state().store().diagram.direct_model_server, 0);
}

#[test]
fn clicking_an_arrow_selects_it_and_the_inspector_shows_its_method_and_raw_text() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut h = harness(SightlineApp::from_trace(&trace).expect("open trace"));
    let (event, label) = arrow(h.state(), "tools/call get_weather");
    h.get_by_label(&label).click();
    h.run();
    assert_eq!(h.state().selected(), Some(event));
    // The method, in the inspector's facts.
    assert!(h.query_by_label("tools/call").is_some(), "method not shown");
    // The raw line, exactly as it crossed.
    let raw = h.state().store().events[event].raw.clone().expect("raw");
    assert!(raw.contains("\"method\":\"tools/call\""));
    assert!(
        h.query_by_label(&raw).is_some(),
        "the inspector does not show the raw text {raw:?}"
    );
    // Enter jumps to the response, Up goes back one row.
    h.key_press(egui::Key::Enter);
    h.run();
    let answer = h.state().selected().expect("selection");
    assert!(answer > event);
    assert_eq!(
        h.state().store().report.rpc.derived[answer]
            .method
            .as_deref(),
        Some("tools/call")
    );
    h.key_press(egui::Key::ArrowUp);
    h.run();
    assert_eq!(h.state().selected(), Some(answer - 1));
}

#[test]
fn teaching_mode_reveals_the_next_event_with_its_narration() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    app.apply(Command::SetTeaching(true));
    let mut h = harness(app);
    assert_eq!(h.state().replay().cursor, 0);
    let rows = h.state().store().diagram.rows.clone();
    let texts: Vec<String> = (0..rows.len())
        .map(|i| {
            let store = h.state().store();
            format!(
                "#{} {}",
                store.events[rows[i].event()].seq,
                store.row_label(i)
            )
        })
        .collect();
    let label = |i: usize| texts[i].clone();
    assert!(h.query_by_label(&label(0)).is_some());
    assert!(
        h.query_by_label(&label(1)).is_none(),
        "row 1 shown before its step"
    );
    let first = h.state_mut().narration();
    assert!(!first.is_empty());

    h.get_by_label(&text(Language::En, "replay.next")).click();
    h.run();
    assert_eq!(h.state().replay().cursor, 1);
    assert_eq!(h.state().selected(), Some(1));
    assert!(h.query_by_label(&label(1)).is_some(), "row 1 not revealed");
    assert!(h.query_by_label(&label(2)).is_none());
    let second = h.state_mut().narration();
    assert_ne!(first, second);
    assert!(
        h.query_by_label(&second).is_some(),
        "the narration {second:?} is not shown"
    );
}

#[test]
fn switching_the_language_changes_the_narration_to_portuguese_and_spanish() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    let (event, _) = arrow(&app, "tools/call get_weather");
    app.apply(Command::SetTeaching(true));
    app.apply(Command::Select(event));
    let mut h = harness(app);
    let english = h.state_mut().narration();
    assert!(h.query_by_label(&english).is_some());

    let mut seen = vec![english.clone()];
    for (lang, code) in [(Language::Pt, "PT"), (Language::Es, "ES")] {
        h.get_by_label(code).click();
        h.run();
        assert_eq!(h.state().language(), lang);
        let narration = h.state_mut().narration();
        let store = h.state().store();
        let expected = sightline::analysis::narration::narrate(
            &store.events,
            &store.report,
            event,
            &Strings::embedded(),
            lang,
        );
        assert_eq!(narration, expected);
        assert!(
            !seen.contains(&narration),
            "{lang:?} narration not translated"
        );
        assert!(h.query_by_label(&narration).is_some());
        // The rest of the UI follows.
        assert!(h.query_by_label(&text(lang, "menu.file")).is_some());
        seen.push(narration);
    }
}

#[test]
fn a_tool_dropped_by_the_host_is_marked_in_what_the_model_sees() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "invisible-tool");
    let mut h = harness(SightlineApp::from_trace(&trace).expect("open trace"));
    let request = h.state().store().report.llm[0].request;
    h.state_mut().apply(Command::Select(request));
    h.get_by_label(&text(Language::En, "panel.what_model_sees"))
        .click();
    h.run();
    assert_eq!(h.state().tab(), Tab::ModelView);
    let missing = model_view::not_sent(h.state().store(), 0);
    let dropped = missing
        .iter()
        .find(|m| m.tool == "weather.lookup")
        .expect("weather.lookup listed but not sent");
    assert!(
        dropped
            .reason
            .as_ref()
            .is_some_and(|(r, _)| r.contains("does not match the provider pattern")),
        "no host reason for the dropped tool: {dropped:?}"
    );
    let marked = h.query_all_by_label_contains("weather.lookup").count();
    assert!(
        marked >= 2,
        "weather.lookup and its reason are not both shown ({marked})"
    );
    // What the tools cost: each tool's tokens and the tool-use system prompt's 286-675.
    assert!(
        h.query_by_label_contains("The tools cost about").is_some(),
        "no token figure for the tools"
    );
    assert!(
        h.query_by_label_contains("286-675 tokens").is_some(),
        "no tool-use system prompt figure"
    );
    // The tool's own figure, and its group's ("MCP tools sent whole: 1 (~40 tokens)").
    assert!(
        h.query_all_by_label_contains("~40 tokens").count() >= 2,
        "no per-tool figure beside its group's"
    );
}

#[test]
fn the_opentelemetry_file_export_lands_next_to_the_trace_when_there_is_no_dialog() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return; // a desktop session would open a real save dialog
    }
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    app.apply(DesktopCommand::ExportOtlpFile.into());
    // Mapped and written on its own thread: wait for a whole JSON document.
    let out = trace.with_extension("otlp.json");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let doc: serde_json::Value = loop {
        if let Ok(text) = std::fs::read_to_string(&out)
            && let Ok(doc) = serde_json::from_str(&text)
        {
            break doc;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no OpenTelemetry file at {}; the notice says: {:?}",
            out.display(),
            app.notice()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let spans = doc["resourceSpans"].as_array().map_or(0, Vec::len);
    assert!(spans > 0, "no resourceSpans in {}", out.display());
}

#[test]
fn exports_from_the_app_land_next_to_the_trace_when_there_is_no_dialog() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return; // a desktop session would open a real save dialog
    }
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    app.apply(DesktopCommand::Export(sightline::ui::ExportFormat::Mermaid).into());
    app.apply(DesktopCommand::Export(sightline::ui::ExportFormat::Svg).into());
    app.apply(DesktopCommand::Export(sightline::ui::ExportFormat::Html).into());
    let mermaid = std::fs::read_to_string(trace.with_extension("mmd")).expect("mermaid written");
    assert!(mermaid.starts_with("sequenceDiagram"));
    let svg = std::fs::read_to_string(trace.with_extension("svg")).expect("svg written");
    roxmltree::Document::parse(&svg).expect("the SVG parses as XML");
    // File > Export > HTML: the viewer with this trace's bytes, in the app's language.
    let html = std::fs::read_to_string(trace.with_extension("html")).unwrap_or_else(|e| {
        panic!(
            "no HTML export ({e}); the notice says: {:?} (tools/build-web.sh builds the viewer)",
            app.notice()
        )
    });
    let bytes = std::fs::read(&trace).expect("trace");
    assert!(util::page_element(&html, "sightline-trace") == bytes);
    assert!(html.contains("<html lang=\"en\">"));
}

#[test]
fn the_message_list_filters_and_cross_selects_with_the_diagram() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut h = harness(SightlineApp::from_trace(&trace).expect("open trace"));
    let (event, arrow_label) = arrow(h.state(), "result tools/call get_weather");
    // Selecting in the list selects in the diagram (and the inspector follows).
    h.get_by_label("result tools/call get_weather").click();
    h.run();
    assert_eq!(h.state().selected(), Some(event));
    // The arrow, and the inspector's tool-call chain, name it.
    assert!(h.query_all_by_label(&arrow_label).count() >= 2);

    // Limiting the diagram to a text filter hides every other arrow.
    h.state_mut().list_mut().filter.text = "get_weather".into();
    h.state_mut().list_mut().limit_diagram = true;
    h.run();
    let (_, initialize) = arrow(h.state(), "initialize 2025-11-25");
    assert!(
        h.query_by_label(&initialize).is_none(),
        "filtered-out arrow still drawn"
    );
    let (_, tools_call) = arrow(h.state(), "tools/call get_weather");
    assert!(h.query_all_by_label(&tools_call).count() >= 1);
}

#[test]
fn file_import_turns_a_claude_desktop_log_into_a_trace_and_draws_its_messages() {
    let dir = util::tempdir();
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/mcp-server-weather.log");
    let out = dir.path().join("imported.jsonl");
    let mut app = SightlineApp::from_events("", Vec::new());
    app.apply(
        DesktopCommand::Import {
            format: ImportFormat::ClaudeDesktop,
            file: log,
            trace: Some(out.clone()),
        }
        .into(),
    );
    // The same trace `sightline import claude-desktop` writes, opened.
    assert_eq!(app.store().source.path(), Some(out.as_path()));
    assert_eq!(app.store().len(), util::load(&out).events.len());
    // The corrupt line of the log is named in the status bar.
    let notice = app.notice().expect("a notice").clone();
    assert!(!notice.is_error);
    assert!(notice.text.contains("line 9"), "{}", notice.text);
    let mut h = harness(app);
    let (_, tools_call) = arrow(h.state(), "tools/call get_weather");
    assert!(h.query_by_label(&tools_call).is_some(), "no {tools_call:?}");
    assert!(h.query_by_label(&notice.text).is_some(), "notice not shown");
    // File > Import offers the three formats.
    h.get_by_label(&text(Language::En, "menu.file")).click();
    h.run();
    h.get_by_label(&text(Language::En, "menu.import")).hover();
    h.run();
    for key in [
        "menu.import_claude_desktop",
        "menu.import_inspector",
        "menu.import_har",
    ] {
        let label = text(Language::En, key);
        assert!(
            h.query_by_label(&label).is_some(),
            "no {label:?} in File > Import"
        );
    }

    // A file that is not there is an error notice, and the trace shown stays.
    let mut app = h.into_state();
    app.apply(
        DesktopCommand::Import {
            format: ImportFormat::Inspector,
            file: dir.path().join("missing.json"),
            trace: Some(dir.path().join("never.jsonl")),
        }
        .into(),
    );
    assert!(app.notice().is_some_and(|n| n.is_error));
    assert_eq!(app.store().source.path(), Some(out.as_path()));
}
