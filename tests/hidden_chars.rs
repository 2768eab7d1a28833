//! One table of invisible characters (`analysis::chars::INVISIBLE`), and every place that
//! shows or counts hidden text agrees with it, character by character: the diagram's labels,
//! the app's inspector (`ui::visible`), the teaching mode's narration and the poisoning
//! excerpts.

use serde_json::json;
use sightline::analysis::chars::{INVISIBLE, is_invisible};
use sightline::analysis::{diagram, narration, poison, report};
use sightline::i18n::{Language, Strings};
use sightline::trace::load_from_reader;
use sightline::ui::visible;

/// Every character of the table.
fn table() -> Vec<char> {
    INVISIBLE
        .iter()
        .flat_map(|&(first, last, _)| first..=last)
        .collect()
}

/// Characters next to the table's ranges, and ordinary text, that every place shows as it is.
fn shown() -> Vec<char> {
    let mut out: Vec<char> = INVISIBLE
        .iter()
        .flat_map(|&(first, last, _)| [first as u32 - 1, last as u32 + 1])
        .filter_map(char::from_u32)
        .filter(|&c| !is_invisible(c) && !c.is_control())
        .collect();
    out.extend(['a', 'é', '世', '🌦', ' ']);
    out
}

#[test]
fn every_place_hides_exactly_the_table() {
    let table = table();
    for c in ['\u{00AD}', '\u{180E}', '\u{200B}', '\u{FEFF}', '\u{E0041}'] {
        assert!(table.contains(&c), "U+{:04X} is not in the table", c as u32);
    }
    for c in table.iter().chain(&shown()).copied() {
        let hidden = is_invisible(c);
        let at = format!("U+{:04X} (in the table: {hidden})", c as u32);
        let text = format!("a{c}b");
        assert_eq!(
            diagram::visible(&text, 10) != text,
            hidden,
            "diagram label, {at}"
        );
        assert_eq!(visible::is_hidden(c), hidden, "app's is_hidden, {at}");
        assert_eq!(visible::escape(&text) != text, hidden, "app's escape, {at}");
        assert_eq!(
            visible::hidden_count(&text),
            hidden as usize,
            "app's count, {at}"
        );
        assert_eq!(
            poison::escape(&text) != text,
            hidden,
            "poisoning excerpt, {at}"
        );
    }
}

/// The narration counts every character of the table in a tool's description, and quotes a
/// server's stderr without them but with every character next to them.
#[test]
fn the_narration_counts_and_drops_exactly_the_table() {
    let table: String = table().into_iter().collect();
    let shown: String = shown().into_iter().filter(|c| !c.is_whitespace()).collect();
    let lines = [
        ("host", "server:s", "stdio", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string()),
        (
            "server:s",
            "host",
            "stdio",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "add", "description": format!("Adds.{table}")}]}})
                .to_string(),
        ),
        ("server:s", "host", "stderr", format!("x{table}{shown}y")),
    ];
    let mut text = String::from(
        r#"{"sightline_trace":1,"created":"2026-11-29T12:00:00Z","sightline_version":"0.1.0"}"#,
    );
    for (seq, (from, to, channel, raw)) in lines.iter().enumerate() {
        let event = json!({
            "seq": seq,
            "time": format!("2026-11-29T12:00:00.00{seq}Z"),
            "from": from,
            "to": to,
            "channel": channel,
            "raw": raw,
        });
        text.push('\n');
        text.push_str(&event.to_string());
    }
    let trace = load_from_reader(text.as_bytes()).expect("the trace loads");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    let r = report(&trace.events);
    let strings = Strings::embedded();
    let said = |i| narration::narrate(&trace.events, &r, i, &strings, Language::En);
    let count = format!("{} invisible characters", table.chars().count());
    assert!(said(1).contains(&count), "{count} not in: {}", said(1));
    assert!(said(2).contains(&format!("x{shown}y")), "{}", said(2));
}
