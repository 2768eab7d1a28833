//! The handouts shipped in `docs/handouts/` are what `sightline export --format handout`
//! makes of each shipped scenario today, in each language: this test records every scenario
//! with the real binary, once per language (`run --lang`), exports its handouts, and fails
//! when a shipped one is stale or missing. `SIGHTLINE_UPDATE_HANDOUTS=1 cargo test --locked --test tests handouts` writes
//! them instead (docs/handouts/README.md).
//!
//! What changes from run to run is made fixed first, so that only a change of Sightline shows:
//! each event's time is one millisecond after the previous one, pids and the scripted model's
//! port (and a local server's, in a body that hands it to the API) are fixed, the server's path is `sightline`, and a server's stderr lines follow its
//! spawn (they race with its first answers).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use sightline::trace::{Channel, Event};

use crate::util;

const LANGS: [&str; 3] = ["en", "pt", "es"];

fn scenarios() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension()? == "toml").then_some(stem)
        })
        .collect();
    names.sort();
    names
}

fn is_initialized(e: &Event) -> bool {
    e.to.is_server()
        && e.raw
            .as_deref()
            .is_some_and(|r| r.contains("\"method\":\"notifications/initialized\""))
}

fn is_initialize_result(e: &Event) -> bool {
    e.from.is_server()
        && e.raw
            .as_deref()
            .is_some_and(|r| r.contains("\"protocolVersion\"") && r.contains("\"result\""))
}

/// The trace with what varies between runs fixed (see the module's comment). Two kinds of
/// event race with others: a server's stderr lines (placed after its spawn) and the host's
/// `notifications/initialized` (placed after the server's `initialize` result; with two
/// servers it races with the second one's spawn).
fn normalize(events: Vec<Event>) -> Vec<Event> {
    let (racing, rest): (Vec<Event>, Vec<Event>) = events
        .into_iter()
        .partition(|e| e.channel == Channel::Stderr || is_initialized(e));
    let mut ordered: Vec<Event> = Vec::new();
    for event in rest {
        let spawned = (event.channel == Channel::Process
            && event.process().is_some_and(|p| p.event == "spawn"))
        .then(|| event.to.clone());
        let initialized = is_initialize_result(&event).then(|| event.from.clone());
        ordered.push(event);
        if let Some(lane) = spawned {
            let lines = racing
                .iter()
                .filter(|e| e.channel == Channel::Stderr && e.from == lane);
            ordered.extend(lines.cloned());
        }
        if let Some(lane) = initialized {
            let sent = racing.iter().filter(|e| is_initialized(e) && e.to == lane);
            ordered.extend(sent.cloned());
        }
    }
    let base = ordered.first().map(|e| e.time).unwrap_or_default();
    for (i, event) in ordered.iter_mut().enumerate() {
        event.seq = i as u64;
        event.time = base + chrono::Duration::milliseconds(i as i64);
        if let Some(p) = event.process_mut() {
            p.pid = p.pid.map(|_| 4242);
            p.cwd = None;
            if let Some(program) = p.command.first_mut()
                && program.ends_with("sightline")
            {
                *program = "sightline".into();
            }
        }
        // A body naming a local server by URL (`mcp_servers` handed to the API) names its port.
        let exact = event.http().is_none_or(|h| h.redacted.is_empty());
        if let Some(raw) = event.raw.as_mut().filter(|_| exact)
            && raw.contains("http://127.0.0.1:")
        {
            *raw = fixed_ports(raw).into();
        }
        if let Some(url) = event.http_mut().and_then(|h| h.url.as_mut())
            && let Some(rest) = url.strip_prefix("http://127.0.0.1:")
            && let Some(slash) = rest.find('/')
        {
            *url = format!("http://127.0.0.1:8788{}", &rest[slash..]).into();
        }
    }
    ordered
}

/// `text` with the port of each `http://127.0.0.1:PORT` made 8788.
fn fixed_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("http://127.0.0.1:") {
        let port = at + "http://127.0.0.1:".len();
        out.push_str(&rest[..port]);
        out.push_str("8788");
        let digits = rest[port..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - port);
        rest = &rest[port + digits..];
    }
    out.push_str(rest);
    out
}

fn write_trace(path: &Path, header: &sightline::trace::Header, events: &[Event]) {
    let mut text = serde_json::to_string(header).expect("header");
    text.push('\n');
    for event in events {
        text.push_str(&serde_json::to_string(event).expect("event"));
        text.push('\n');
    }
    std::fs::write(path, text).expect("write the normalised trace");
}

/// The shipped scenario's title in the language of `code`.
fn title_in(code: &str, name: &str) -> String {
    let lang = sightline::i18n::Language::ALL
        .into_iter()
        .find(|l| l.code() == code)
        .expect("a language");
    sightline::i18n::Strings::embedded()
        .lookup(lang, &format!("scenario.{name}.title"))
        .map(|t| t.trim().to_string())
        .expect("a shipped scenario's title")
}

fn export(trace: &Path, lang: &str, md: bool, out: &Path) -> String {
    let mut cmd = Command::new(util::bin());
    cmd.arg("export")
        .arg(trace)
        .args(["--format", "handout", "--lang", lang, "--out"])
        .arg(out);
    if md {
        cmd.arg("--md");
    }
    let done = util::run(&mut cmd, Duration::from_secs(60));
    assert!(
        done.status.success(),
        "export --format handout failed: {}",
        util::text(&done.stderr)
    );
    std::fs::read_to_string(out).expect("the handout")
}

/// Width of one character, by the font size: a generous estimate for the sans-serif fonts the
/// SVG asks for (Chromium with DejaVu Sans draws the shipped scenarios' texts narrower).
const CHAR_EM: f64 = 0.55;

/// Each text of the handout's diagram whose estimated end runs past the end of its arrow (over
/// the next lifeline), or past the picture's right edge for a note on a lifeline: one line
/// each, naming the row.
fn texts_past_their_arrows(html: &str) -> Vec<String> {
    let start = html.find("<svg").expect("the diagram");
    let end = html.find("</svg>").expect("the diagram's end") + "</svg>".len();
    let doc = roxmltree::Document::parse(&html[start..end]).expect("the diagram is XML");
    let root = doc.root_element();
    let num = |n: roxmltree::Node, a: &str| -> f64 {
        let v = n.attribute(a).unwrap_or_else(|| panic!("no {a} on {n:?}"));
        v.parse().unwrap_or_else(|_| panic!("{a}={v:?}"))
    };
    let size = |n: roxmltree::Node| {
        n.attribute("font-size")
            .map_or(num(root, "font-size"), |_| num(n, "font-size"))
    };
    let width = num(root, "width");
    let mut over = Vec::new();
    let rows = root
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("row ")));
    for row in rows {
        let child = |tag: &str| row.children().find(|n| n.has_tag_name(tag));
        let text = child("text").expect("a row's text");
        // The label (the text's own characters) at its size, then the detail's tspan at its own.
        let mut extent = num(text, "x");
        for part in text.children() {
            if let Some(t) = part.text().filter(|_| part.is_text()) {
                extent += t.chars().count() as f64 * size(text) * CHAR_EM;
            } else if part.has_tag_name("tspan") {
                let chars = part.text().unwrap_or("").chars().count() as f64;
                extent += part.attribute("dx").map_or(0.0, |_| num(part, "dx"));
                extent += chars * size(part) * CHAR_EM;
            }
        }
        let end = match child("line") {
            Some(line) => num(line, "x1").max(num(line, "x2")),
            None => width,
        };
        if extent > end {
            let seq = row.attribute("data-seq").unwrap_or("?");
            let said: String = text.descendants().filter_map(|n| n.text()).collect();
            over.push(format!("#{seq} {said:?} ends at {extent:.0}, past {end}"));
        }
    }
    over
}

#[test]
fn the_shipped_handouts_are_current_for_every_scenario_and_language() {
    let dir = util::tempdir();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/handouts");
    let update = std::env::var_os("SIGHTLINE_UPDATE_HANDOUTS").is_some_and(|v| v == "1");
    let mut stale: Vec<String> = Vec::new();
    for name in scenarios() {
        for lang in LANGS {
            // A run is recorded again when its handouts differ: `normalize` settles the races
            // known to move events (stderr, `notifications/initialized`), and a loaded machine
            // may find another. A handout that is really stale differs every time.
            let mut differences = Vec::new();
            for attempt in 1..=3 {
                differences = handouts_of(dir.path(), &name, lang, &shipped, update);
                if differences.is_empty() {
                    break;
                }
                eprintln!(
                    "{name} {lang}, attempt {attempt}: {}",
                    differences.join("; ")
                );
            }
            stale.extend(differences);
        }
    }
    assert!(
        stale.is_empty(),
        "these handouts are stale or missing (regenerate them with \
         `SIGHTLINE_UPDATE_HANDOUTS=1 cargo test --locked --test tests handouts`):\n{}",
        stale.join("\n")
    );
}

/// Records scenario `name` in `lang` and makes its two handouts; writes them over the shipped
/// ones when `update`, else says where each differs from the one shipped.
fn handouts_of(dir: &Path, name: &str, lang: &str, shipped: &Path, update: bool) -> Vec<String> {
    // Recorded in the class's language: the user and the model speak it too.
    let recorded = dir.join(format!("{name}.{lang}.jsonl"));
    util::run_scenario_to(name, &recorded, &["--lang", lang]);
    let loaded = util::load(&recorded);
    let events = normalize(loaded.events);
    let trace = dir.join(format!("{name}.{lang}.fixed.jsonl"));
    write_trace(&trace, &loaded.header, &events);
    let mut differences = Vec::new();
    for md in [false, true] {
        let file = format!("{name}.{lang}.{}", if md { "md" } else { "html" });
        let made = export(&trace, lang, md, &dir.join(&file));
        if !md {
            let over = texts_past_their_arrows(&made);
            assert!(over.is_empty(), "{file}: {}", over.join("\n"));
        }
        // A handout is the narrated steps of its trace, in its language.
        assert!(made.contains("#0 "), "{file} has no steps");
        if md {
            let title = title_in(lang, name);
            assert!(made.contains(&title), "{file} is not titled {title}");
        }
        let path = shipped.join(&file);
        if update {
            std::fs::create_dir_all(shipped).expect("docs/handouts");
            std::fs::write(&path, &made).expect("write the handout");
        } else {
            let shipped = std::fs::read_to_string(&path).unwrap_or_default();
            if let Some(first) = first_difference(&shipped, &made) {
                differences.push(format!("{}: {first}", path.display()));
            }
        }
    }
    differences
}

/// Where `made` first differs from `shipped`, both lines cut short, so that a run that cannot
/// be seen again (a CI machine's) still says what moved.
fn first_difference(shipped: &str, made: &str) -> Option<String> {
    if shipped == made {
        return None;
    }
    let cut =
        |line: Option<&str>| -> String { line.unwrap_or("(none)").chars().take(160).collect() };
    let (mut old, mut new) = (shipped.lines(), made.lines());
    let mut number = 1;
    loop {
        let (a, b) = (old.next(), new.next());
        if a != b {
            return Some(format!(
                "line {number}: shipped `{}`, made `{}`",
                cut(a),
                cut(b)
            ));
        }
        if a.is_none() {
            return Some("they differ only in line endings".into());
        }
        number += 1;
    }
}

#[test]
fn a_handout_prints_the_diagram_then_each_step_narrated_with_its_raw_message() {
    let dir = util::tempdir();
    let trace = dir.path().join("weather.jsonl");
    util::run_scenario_to("weather", &trace, &[]);
    let loaded = util::load(&trace);
    let html = export(&trace, "es", false, &dir.path().join("w.html"));
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("<html lang=\"es\">"));
    assert!(html.contains("@media print"));
    let svg_at = html.find("<svg").expect("the diagram");
    let steps_at = html.find("id=\"seq-0\"").expect("the steps");
    assert!(svg_at < steps_at, "the diagram comes first");
    // Every event is a step, and its raw text is there, escaped, not re-serialised.
    for event in &loaded.events {
        assert!(html.contains(&format!("id=\"seq-{}\"", event.seq)));
        if let Some(raw) = &event.raw {
            let escaped = raw
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;");
            assert!(html.contains(&escaped), "raw of #{} missing", event.seq);
        }
    }
    // The narration is in Spanish: the teaching mode's sentence for the tools/list answer.
    let strings = sightline::i18n::Strings::embedded();
    let report = sightline::analysis::report(&loaded.events);
    let i = (0..loaded.events.len())
        .find(|&i| report.rpc.derived[i].method.as_deref() == Some("tools/list"))
        .expect("tools/list");
    let narration = sightline::analysis::narration::narrate(
        &loaded.events,
        &report,
        i,
        &strings,
        sightline::i18n::Language::Es,
    );
    let escaped = narration.replace('&', "&amp;").replace('"', "&quot;");
    assert!(html.contains(&escaped), "no {narration:?}");
    // Markdown: the diagram as Mermaid, then the steps.
    let md = export(&trace, "pt", true, &dir.path().join("w.md"));
    assert!(md.contains("```mermaid\nsequenceDiagram"));
    assert!(md.contains("### #0 "));
    // An unknown language is refused with the codes that exist.
    let out = util::run(
        Command::new(util::bin())
            .arg("export")
            .arg(&trace)
            .args(["--format", "handout", "--lang", "fr"]),
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(util::text(&out.stderr).contains("en, pt or es"));
}
