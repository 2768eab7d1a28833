//! The narration of recorded runs and of hand-built traces: every event narrated in the
//! three languages, and the article's lessons said where they happen.

use chrono::{Duration, TimeZone, Utc};

use super::words::{LIST_NAMES, backticked, is_invisible, keys_of, list, quote};
use super::*;
use crate::analysis::explain::{self, Controller, Primitive};
use crate::analysis::report;
use crate::i18n::placeholders;
use crate::trace::{HttpInfo, ProcessInfo, load_from_reader};

const WEATHER: &str = include_str!("../../../../tests/fixtures/narration/weather.jsonl");
const RUG_PULL: &str = include_str!("../../../../tests/fixtures/narration/rug-pull.jsonl");
const TOUR_2026: &str =
    include_str!("../../../../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl");

fn load(text: &str) -> (Vec<Event>, Report) {
    let trace = load_from_reader(text.as_bytes()).expect("fixture loads");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    let r = report(&trace.events);
    (trace.events, r)
}

/// The narration of every event, per language.
fn all(events: &[Event], r: &Report) -> Vec<[String; 3]> {
    let s = Strings::embedded();
    (0..events.len())
        .map(|i| Language::ALL.map(|lang| narrate(events, r, i, &s, lang)))
        .collect()
}

fn en(events: &[Event], r: &Report, i: usize) -> String {
    narrate(events, r, i, &Strings::embedded(), Language::En)
}

fn find(events: &[Event], r: &Report, kind: Kind, method: &str, nth: usize) -> usize {
    (0..events.len())
        .filter(|&i| {
            r.rpc.derived[i].kind == kind && r.rpc.derived[i].method.as_deref() == Some(method)
        })
        .nth(nth)
        .unwrap_or_else(|| panic!("no {kind:?} {method} #{nth}"))
}

/// What every narration must satisfy, in every language.
fn check_run(events: &[Event], r: &Report) {
    for (i, texts) in all(events, r).iter().enumerate() {
        let d = &r.rpc.derived[i];
        for (lang, text) in Language::ALL.iter().zip(texts) {
            let at = format!("event {i} ({}): {text}", lang.code());
            assert!(!text.trim().is_empty(), "{at}");
            assert!(!text.contains("narration."), "raw key in {at}");
            assert!(!text.contains("explain."), "raw key in {at}");
            assert!(
                placeholders(text).is_empty(),
                "unfilled placeholder in {at}"
            );
            // The method (or, for a response, what it was about) is named.
            if let Some(method) = &d.method {
                let about = d.detail.as_deref().is_some_and(|x| text.contains(x));
                assert!(
                    text.contains(&**method) || about,
                    "{method} not named in {at}"
                );
            }
            if let Some(tool) = d
                .detail
                .as_deref()
                .filter(|_| d.method.as_deref() == Some("tools/call") && d.kind != Kind::Error)
            {
                assert!(text.contains(tool), "{tool} not named in {at}");
            }
            if let Some(x) = r.llm.iter().find(|x| x.response == Some(i)) {
                for (_, name, _) in &x.tool_calls {
                    assert!(text.contains(name.as_str()), "{name} not named in {at}");
                }
            }
            if let Some(x) = r.llm.iter().find(|x| x.request == i)
                && x.tool_results.is_empty()
            {
                for name in x.tools.iter().take(LIST_NAMES) {
                    assert!(text.contains(name.as_str()), "{name} not named in {at}");
                }
            }
        }
        let [a, b, c] = texts;
        assert!(
            a != b && b != c && a != c,
            "event {i}: same text in two languages"
        );
    }
}

// ---- hand-built traces for what the recorded runs do not show ----

fn ev(i: usize, from: &str, to: &str, channel: Channel, raw: &str) -> Event {
    let t0 = Utc
        .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
        .single()
        .expect("time");
    Event::with_bytes(
        i as u64,
        t0 + Duration::milliseconds(i as i64),
        from.into(),
        to.into(),
        channel,
        raw.as_bytes().to_vec(),
    )
}

/// Stdio events from (from, to, raw).
fn stdio(lines: &[(&str, &str, &str)]) -> Vec<Event> {
    lines
        .iter()
        .enumerate()
        .map(|(i, (from, to, raw))| ev(i, from, to, Channel::Stdio, raw))
        .collect()
}

const H: &str = "host";
const S: &str = "server:s";

/// Every method, primitive and controller the narration may name has a text in each language.
#[test]
fn every_explanation_and_name_has_a_text() {
    let s = Strings::embedded();
    let keys = explain::all_keys()
        .chain(Primitive::ALL.iter().map(|p| p.key()))
        .chain(Controller::ALL.iter().map(|c| c.key()));
    for key in keys {
        for lang in Language::ALL {
            assert!(s.has(lang, key), "{key} missing in {}", lang.code());
        }
    }
    for method in explain::known_methods() {
        assert!(
            s.has(Language::En, explain::explain(method).key),
            "{method}"
        );
    }
}

mod events;
mod host;
mod runs;
