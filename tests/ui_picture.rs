//! The sequence diagram reads at a glance (issue 38): every shipped scenario, recorded by the
//! real `sightline run` and drawn headless by the app in a 1400x900 window at 100% zoom, in
//! English, Portuguese and Spanish, shows every arrow label, note and lane title whole (none
//! cut with `…`) and no two of them overlap. A diagram wider than the view scrolls sideways.

use std::path::Path;

use egui_kittest::kittest::Queryable;
use sightline::ui::{Command, Language, SightlineApp};

use crate::ui_app::record;
use crate::util::{self, harness};

/// Every scenario under `scenarios/`.
fn scenarios() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| {
            let path = e.expect("entry").path();
            (path.extension()? == "toml").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    names
}

/// What is wrong with the labels drawn in the last frame, if anything: a label cut, one
/// left of the view, or two that overlap. An activation bar and its latency count as labels,
/// with two exceptions: two bars may touch (one request's ending where the next one's
/// begins), and a note over the bar's own lifeline covers it, as UML's `note over` does (a
/// server's stderr while it answers).
fn faults(app: &SightlineApp, what: &str) -> Vec<String> {
    let (drawn, clip) = app.drawn_labels();
    let diagram = &app.store().diagram;
    let row = |d: &sightline::ui::diagram::DrawnLabel| {
        let row = &diagram.rows[diagram.row_of_event(d.event?)?];
        Some(match d.bar {
            true => (row.to(), true),
            false => (row.from(), row.is_arrow()),
        })
    };
    // A note, and a bar on the same lane.
    let covers = |a: &sightline::ui::diagram::DrawnLabel,
                  b: &sightline::ui::diagram::DrawnLabel| {
        match (row(a), row(b)) {
            (Some((la, false)), Some((lb, true))) => !a.bar && b.bar && la == lb,
            _ => false,
        }
    };
    let mut faults = Vec::new();
    for (k, d) in drawn.iter().enumerate() {
        let name = match (d.event, d.bar) {
            (Some(e), true) => format!("{what}: activation bar of event {e} {:?}", d.text),
            (Some(e), false) => format!("{what}: row of event {e} {:?}", d.text),
            (None, _) => format!("{what}: lane title {:?}", d.text),
        };
        if d.elided {
            faults.push(format!("{name} is cut"));
        }
        if d.rect.left() < clip.left() - 0.5 {
            faults.push(format!("{name} runs left of the view ({:?})", d.rect));
        }
        let others = drawn[k + 1..].iter().filter(|o| !(o.bar && d.bar));
        for other in others.filter(|o| !covers(d, o) && !covers(o, d)) {
            if d.rect.shrink(0.5).intersects(other.rect.shrink(0.5)) {
                let bar = if other.bar { "activation bar " } else { "" };
                faults.push(format!("{name} overlaps {bar}{:?}", other.text));
            }
        }
    }
    faults
}

#[test]
fn every_scenario_shows_every_label_whole_in_three_languages() {
    let dir = util::tempdir();
    let mut faults_seen = Vec::new();
    for scenario in scenarios() {
        let trace = record(dir.path(), &scenario);
        for lang in [Language::En, Language::Pt, Language::Es] {
            let mut app = SightlineApp::from_trace(&trace).expect("open trace");
            app.apply(Command::SetLanguage(lang));
            let rows = app.store().diagram.rows.len();
            let mut h = harness(app);
            let what = format!("{scenario} {lang:?}");
            let mut seen = vec![false; rows];
            // Page through the trace: select a row, let the view bring it in, check the frame.
            let mut at = 0;
            loop {
                h.state_mut().apply(Command::Select(at));
                // The scroll to the row, and a frame more when its labels widened a gap.
                h.run_steps(12);
                faults_seen.extend(faults(h.state(), &what));
                for d in h.state().drawn_labels().0 {
                    if let Some(e) = d.event {
                        seen[e] = true;
                    }
                }
                match seen.iter().position(|s| !s) {
                    Some(next) if next > at => at = next,
                    Some(next) => panic!("{what}: row {next} never came into view"),
                    None => break,
                }
            }
            assert!(
                h.state().drawn_labels().0.iter().any(|d| d.event.is_none()),
                "{what}: no lane title drawn"
            );
        }
    }
    assert!(
        faults_seen.is_empty(),
        "{} faults:\n{}",
        faults_seen.len(),
        faults_seen.join("\n")
    );
}

/// `docs/screenshot.png`, the README's first picture: the weather scenario in a 1600x900
/// window (the diagram whole beside both panels), its tools/call selected, drawn by the app
/// through wgpu. Run by `tools/screenshot.sh`, which says where.
#[test]
#[ignore = "writes a picture: run by tools/screenshot.sh"]
fn screenshot() {
    let out = std::env::var("SIGHTLINE_SCREENSHOT").expect("SIGHTLINE_SCREENSHOT=path.png");
    let scenario = std::env::var("SIGHTLINE_SCENARIO").unwrap_or_else(|_| "weather".into());
    let dir = util::tempdir();
    // A recorded trace or session folder instead of a scenario run now (`SIGHTLINE_TRACE`).
    let trace = match std::env::var_os("SIGHTLINE_TRACE") {
        Some(path) => std::path::PathBuf::from(path),
        None => record(dir.path(), &scenario),
    };
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    if let Ok(lang) = std::env::var("SIGHTLINE_LANG") {
        let lang = match lang.as_str() {
            "pt" => Language::Pt,
            "es" => Language::Es,
            _ => Language::En,
        };
        app.apply(Command::SetLanguage(lang));
    }
    // The tools/call the lesson turns on, selected: the inspector shows its bytes.
    let call = app
        .store()
        .events
        .iter()
        .position(|e| e.text().contains(r#""method":"tools/call""#));
    if let Some(call) = call {
        app.apply(Command::Select(call));
    }
    // Wide enough for the diagram and both panels side by side (`SIGHTLINE_SIZE=WxH`).
    let size = std::env::var("SIGHTLINE_SIZE").unwrap_or_else(|_| "1600x900".into());
    let (w, h) = size.split_once('x').expect("SIGHTLINE_SIZE=WxH");
    let size = egui::vec2(w.parse().expect("width"), h.parse().expect("height"));
    let mut h = util::harness_sized(app, size);
    h.run_steps(12);
    let image = h.render().expect("render through wgpu");
    image.save(&out).expect("write the picture");
    assert!(
        faults(h.state(), &scenario).is_empty(),
        "{:?}",
        faults(h.state(), &scenario)
    );
}

/// A projector's screen (1280x720, 1280x800) in View > Present: the scale shrinks until the
/// whole diagram of every shipped scenario fits, never below the app's own size, so at the
/// last step every lane title is on screen, no label is cut and none overlaps another.
#[test]
fn presenting_on_a_small_projector_fits_the_whole_diagram() {
    let dir = util::tempdir();
    let mut faults_seen = Vec::new();
    for scenario in scenarios() {
        let trace = record(dir.path(), &scenario);
        for size in [egui::vec2(1280.0, 720.0), egui::vec2(1280.0, 800.0)] {
            let mut app = SightlineApp::from_trace(&trace).expect("open trace");
            app.apply(Command::SetPresenting(true));
            let mut h = util::harness_sized(app, size);
            h.key_press(egui::Key::End);
            h.run_steps(12);
            let what = format!("{scenario} {}x{}", size.x, size.y);
            let zoom = h.ctx.zoom_factor();
            assert!(zoom >= 1.0, "{what}: zoom {zoom}");
            faults_seen.extend(faults(h.state(), &what));
            let (drawn, clip) = h.state().drawn_labels();
            let right = h.ctx.content_rect().right();
            for d in drawn.iter().filter(|d| d.event.is_none()) {
                if d.rect.right() > right + 0.5 || d.rect.right() > clip.right() + 0.5 {
                    faults_seen.push(format!(
                        "{what}: lane {:?} off screen (zoom {zoom})",
                        d.text
                    ));
                }
            }
        }
    }
    assert!(
        faults_seen.is_empty(),
        "{} faults:\n{}",
        faults_seen.len(),
        faults_seen.join("\n")
    );
}

/// Every label the app draws for `trace`, paging through its rows: `(event, text)`, once each.
fn every_label(trace: &Path) -> Vec<(Option<usize>, String)> {
    let app = SightlineApp::from_trace(trace).expect("open trace");
    let rows = app.store().diagram.rows.len();
    // Wide enough that no lane is scrolled out of view (a header is drawn only in view).
    let mut h = util::harness_sized(app, egui::vec2(2400.0, 900.0));
    let mut seen = vec![false; rows];
    let mut out: Vec<(Option<usize>, String)> = Vec::new();
    let mut at = 0;
    loop {
        h.state_mut().apply(Command::Select(at));
        h.run_steps(12);
        for d in h.state().drawn_labels().0 {
            if let Some(e) = d.event {
                seen[e] = true;
            }
            if !out.iter().any(|(e, t)| *e == d.event && *t == d.text) {
                out.push((d.event, d.text.clone()));
            }
        }
        match seen.iter().position(|s| !s) {
            Some(next) if next > at => at = next,
            Some(next) => panic!("row {next} never came into view"),
            None => return out,
        }
    }
}

/// Mermaid's text back to plain text: its `#NN;` character codes decoded.
fn unmermaid(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let code = rest[at + 1..].split_once(';').and_then(|(n, after)| {
            let c = char::from_u32(n.parse().ok()?)?;
            Some((c, after))
        });
        match code {
            Some((c, after)) => {
                out.push(c);
                rest = after;
            }
            None => {
                out.push('#');
                rest = &rest[at + 1..];
            }
        }
    }
    out + rest
}

/// Side by side with Mermaid (`export --format mermaid`, the text mermaid-cli renders): for
/// every shipped scenario, each message and note Mermaid draws has its label drawn by the app
/// (Mermaid's line is the label and then its detail), and the app draws no fewer labels than
/// Mermaid has lines; each participant is a lane title of the app's. (This reads the text
/// Mermaid renders; tests/mermaid/check.mjs, run by tests/web/run.sh, renders it with
/// mermaid-cli and checks that `export --format svg` draws every text of Mermaid's whole.)
#[test]
fn the_app_shows_everything_mermaid_shows() {
    let dir = util::tempdir();
    let mut missing = Vec::new();
    for scenario in scenarios() {
        let trace = record(dir.path(), &scenario);
        let out = util::export(&trace, "mermaid", &[]);
        assert!(out.status.success(), "{scenario}: {out:?}");
        let mermaid = util::text(&out.stdout);
        let drawn = every_label(&trace);
        let (titles, labels): (Vec<_>, Vec<_>) = drawn.iter().partition(|(e, _)| e.is_none());
        let mut messages = 0;
        for line in mermaid.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("participant ") {
                let name = unmermaid(rest.split_once(" as ").map_or(rest, |p| p.1));
                // A remote server's "(remote: …)" is the app's lane tooltip, not its title.
                let name = name.trim_matches('"');
                let name = name.split(" (").next().unwrap_or(name);
                if !titles.iter().any(|(_, t)| t.contains(name)) {
                    missing.push(format!("{scenario}: participant {name:?}"));
                }
                continue;
            }
            let text = match line.split_once(": ") {
                Some((head, text)) if head.starts_with("Note over ") && !head.contains(',') => text,
                Some((head, text))
                    if head.contains(">>") || head.contains("-x") || head.contains("-)") =>
                {
                    text
                }
                _ => continue,
            };
            messages += 1;
            let text = unmermaid(text);
            let shown = labels.iter().any(|(_, label)| {
                let label = label.trim_end_matches('…');
                !label.is_empty() && text.starts_with(label)
            });
            if !shown {
                missing.push(format!("{scenario}: {text:?}"));
            }
        }
        assert!(messages > 0, "{scenario}: no messages in {mermaid}");
        assert!(
            labels.len() >= messages,
            "{scenario}: the app drew {} labels, Mermaid {messages} lines",
            labels.len()
        );
    }
    assert!(
        missing.is_empty(),
        "not drawn by the app:\n{}",
        missing.join("\n")
    );
}

/// A laptop's or projector's screen (1280x720, 1280x800) outside Present, both panels shown,
/// for every shipped scenario in the three languages. A diagram wider than its view scrolls
/// sideways rather than cutting labels, and then the header's right edge names how many lanes
/// lie beyond it: one click on that marker brings the last lane whole into view. No label is
/// cut or overlaps another or an activation bar.
#[test]
fn a_small_screen_shows_every_lane_or_says_where_it_is() {
    let dir = util::tempdir();
    let mut faults_seen = Vec::new();
    let (mut whole, mut scrolled) = (0, 0);
    for scenario in scenarios() {
        let trace = record(dir.path(), &scenario);
        for lang in [Language::En, Language::Pt, Language::Es] {
            for size in [egui::vec2(1280.0, 720.0), egui::vec2(1280.0, 800.0)] {
                let mut app = SightlineApp::from_trace(&trace).expect("open trace");
                app.apply(Command::SetLanguage(lang));
                let mut h = util::harness_sized(app, size);
                h.run_steps(12);
                let what = format!("{scenario} {lang:?} {}x{}", size.x, size.y);
                faults_seen.extend(faults(h.state(), &what));
                let lanes = h.state().store().diagram.lanes.len();
                let in_view = |h: &egui_kittest::Harness<'_, SightlineApp>| {
                    let (drawn, clip) = h.state().drawn_labels();
                    drawn
                        .iter()
                        .filter(|d| d.event.is_none() && d.rect.right() <= clip.right() + 0.5)
                        .count()
                };
                let marker = format!("▶ {}", lanes - in_view(&h));
                if in_view(&h) == lanes {
                    whole += 1;
                    continue;
                }
                scrolled += 1;
                match h.query_by_label(&marker) {
                    None => faults_seen.push(format!(
                        "{what}: {} of {lanes} lanes in view and no {marker:?} at the edge",
                        in_view(&h)
                    )),
                    Some(button) => {
                        button.click();
                        h.run_steps(6);
                        // Scrolled right, the first lanes' labels run left of the view.
                        let scrolled = faults(h.state(), &format!("{what} scrolled"));
                        faults_seen
                            .extend(scrolled.into_iter().filter(|f| !f.contains("runs left")));
                        let (drawn, clip) = h.state().drawn_labels();
                        let beyond = drawn
                            .iter()
                            .filter(|d| d.event.is_none() && d.rect.right() > clip.right() + 0.5)
                            .count();
                        let marked =
                            (1..=lanes).any(|k| h.query_by_label(&format!("▶ {k}")).is_some());
                        if beyond > 0 || marked {
                            faults_seen.push(format!(
                                "{what}: after {marker}, {beyond} titles still beyond the edge, marker left: {marked}"
                            ));
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "at 1280 px: {whole} diagrams whole beside both panels, {scrolled} scrolled by their marker"
    );
    assert!(
        faults_seen.is_empty(),
        "{} faults:\n{}",
        faults_seen.len(),
        faults_seen.join("\n")
    );
}
