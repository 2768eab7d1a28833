//! `sightline summary` read by a class: the lane letters explained on the first line, HTTP
//! statuses named as such, each tool call of a response on a line of its own, plurals in
//! words, and the names a scenario is about never cut. Each check runs a shipped scenario with
//! the real binary and reads the real summary.

use std::process::Command;
use std::time::Duration;

use crate::util::{self, run_scenario_to, tempdir};

/// The summary of a fresh run of `scenario`, in `lang`.
fn summary_of(scenario: &str, lang: &str) -> String {
    let dir = tempdir();
    let trace = dir.path().join(format!("{scenario}.jsonl"));
    run_scenario_to(scenario, &trace, &[]);
    let out = util::run(
        Command::new(util::bin())
            .arg("summary")
            .arg(&trace)
            .args(["--lang", lang]),
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    util::text(&out.stdout)
}

#[test]
fn the_first_line_says_what_each_lane_letter_stands_for() {
    let en = summary_of("weather", "en");
    let first = en.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "-- lanes: U user, H host (its LLM loop), C the host's MCP client, S server weather, L LLM API",
        "{en}"
    );
    let pt = summary_of("two-servers", "pt");
    let first = pt.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("-- participantes: U usuário, H host")
            && first.contains("S:weather servidor weather")
            && first.contains("S:forecast servidor forecast"),
        "{pt}"
    );
}

#[test]
fn statuses_are_http_and_each_tool_call_has_its_own_line() {
    let en = summary_of("tool-error-and-image", "en");
    let lines: Vec<&str> = en.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("L->H  HTTP 200 tool_use (") && l.ends_with("with 2 tool calls:"))
        .unwrap_or_else(|| panic!("no response line with two calls:\n{en}"));
    let chart = lines[at + 1].trim_start();
    let divide = lines[at + 2].trim_start();
    assert!(
        chart.starts_with("chart [toolu_") && chart.contains("-> tools/call #"),
        "{en}"
    );
    assert!(
        divide.starts_with("divide [toolu_") && divide.contains("-> tool_result in #"),
        "{en}"
    );
    assert!(en.contains("L->H  HTTP 200 end_turn \""), "{en}");
    // One of a thing is singular, in every language.
    assert!(
        en.contains(", 1 notification, ") && en.contains(", 1 stderr line\n"),
        "{en}"
    );
    assert!(!en.contains("(s)"), "{en}");
    let es = summary_of("weather", "es");
    assert!(
        es.contains("1 notificación,") && es.contains("solicitud anthropic: 1 herramienta ["),
        "{es}"
    );
}

#[test]
fn tool_names_and_the_hosts_reasons_are_never_cut() {
    // list-changed: the second request offers eight tools; all eight are named.
    let en = summary_of("list-changed", "en");
    let eight = en
        .lines()
        .find(|l| l.contains("request: 8 tools ["))
        .unwrap_or_else(|| panic!("{en}"));
    assert!(eight.contains(", unlock_bonus]"), "{eight}");
    assert!(!eight.contains('…'), "{eight}");
    // invisible-tool: the host's note says why `weather.lookup` is dropped, in full.
    let en = summary_of("invisible-tool", "en");
    let dropped = en
        .lines()
        .find(|l| l.contains("drops tool `weather.lookup`"))
        .unwrap_or_else(|| panic!("{en}"));
    assert!(
        dropped.ends_with("character '.' at position 7 is not allowed"),
        "{dropped}"
    );
    let not_sent = en
        .lines()
        .find(|l| l.contains("!! listed but not sent: "))
        .unwrap_or_else(|| panic!("{en}"));
    assert!(not_sent.ends_with("oddnames/weather.lookup"), "{not_sent}");
}
