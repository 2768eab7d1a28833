//! The `--fail-on` classes: each turns an existing analysis into check findings.
//!
//! One function per class, each naming the event that shows the finding. Nothing here
//! re-derives what another module knows: errors and pairing come from `trace::analyze`,
//! schema violations from `conformance`, drift from `pins`, poisoning from `poison`,
//! visibility from the doctor.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::{Class, Finding, server_of};
use crate::analysis::conformance::Shape;
use crate::analysis::definitions::Definitions;
use crate::analysis::pins::{self, PinStore};
use crate::analysis::{Report, conformance, doctor, poison};
use crate::i18n::Words;
use crate::trace::{Channel, Event, Kind, Pairing};

/// The methods 2026-07-28 deprecates (SEP-2577): sampling, roots, logging.
const DEPRECATED: [&str; 4] = [
    "sampling/createMessage",
    "roots/list",
    "logging/setLevel",
    "notifications/message",
];
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// A word of each deprecated method, of `inputRequests` and of [`META_LOG_LEVEL`]: a message
/// that spells none of them (nor escapes a letter) uses nothing deprecated.
const DEPRECATED_WORDS: [&[u8]; 6] = [
    b"sampling",
    b"roots",
    b"logging",
    b"message",
    b"inputRequests",
    b"logLevel",
];

/// What deprecated feature a 2026-07-28 message uses, in words (none when it is not JSON).
fn deprecated_uses(text: &str, w: Words) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let mut used: Vec<String> = Vec::new();
    if let Some(m) = v.get("method").and_then(Value::as_str)
        && DEPRECATED.contains(&m)
    {
        used.push(m.to_string());
    }
    if let Some(requests) = v
        .pointer("/result/inputRequests")
        .and_then(Value::as_object)
    {
        for r in requests.values() {
            if let Some(m) = r.get("method").and_then(Value::as_str)
                && DEPRECATED.contains(&m)
            {
                used.push(w.fmt("check_text.input_request", &[("method", m)]));
            }
        }
    }
    if v.pointer("/params/_meta")
        .and_then(|m| m.get(META_LOG_LEVEL))
        .is_some()
    {
        used.push(format!("_meta {META_LOG_LEVEL}"));
    }
    used
}

/// Whether JSON `text` may spell one of `words` in a member name or string: it holds one, or
/// a `\u` escape (which can spell any letter). A `\/` leaves the words around a `/` whole.
/// A message that cannot is not parsed at all.
fn may_spell(text: &str, words: &[&[u8]]) -> bool {
    let bytes = text.as_bytes();
    words
        .iter()
        .chain([&b"\\u"[..]].iter())
        .any(|w| memchr::memmem::find(bytes, w).is_some())
}

/// How much of a check's time a class takes, roughly (the tool-heavy bench trace): what
/// [`find_all`] balances its two halves by. `drift` and `poison` share the definitions, so
/// they are weighed, and run, together.
fn weight(class: Class) -> u32 {
    match class {
        Class::Schema => 6,
        Class::Hidden => 3,
        Class::Drift | Class::Poison => 2,
        Class::Error | Class::Deprecated | Class::Secret => 1,
        Class::Invalid | Class::Unanswered => 0,
    }
}

/// The findings of each class of `classes`, in their order: the classes split in two halves of
/// about the same [`weight`], run on two threads where there are (the analyses they read are
/// shared and not changed, so the findings are those of one class after the other).
pub fn find_all(
    classes: &[Class],
    events: &[Event],
    report: &Report,
    pins: Option<&PinStore>,
    w: Words,
) -> Vec<Vec<Finding>> {
    // The tool definitions, read once for `drift` and `poison` both.
    let definitions = OnceLock::new();
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(classes[i])));
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let (mut first_weight, mut second_weight) = (0, 0);
    let shares = |c: Class| matches!(c, Class::Drift | Class::Poison);
    for i in order {
        let class = classes[i];
        let with_first = if shares(class) && first.iter().any(|&j: &usize| shares(classes[j])) {
            true
        } else if shares(class) && second.iter().any(|&j: &usize| shares(classes[j])) {
            false
        } else {
            first_weight <= second_weight
        };
        if with_first {
            first.push(i);
            first_weight += weight(class);
        } else {
            second.push(i);
            second_weight += weight(class);
        }
    }
    let run = |part: &[usize]| -> Vec<(usize, Vec<Finding>)> {
        part.iter()
            .map(|&i| (i, find(classes[i], events, report, pins, &definitions, w)))
            .collect()
    };
    let (a, b) = if second.is_empty() {
        (run(&first), Vec::new())
    } else {
        crate::trace::halves::join(|| run(&first), || run(&second))
    };
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); classes.len()];
    for (i, found) in a.into_iter().chain(b) {
        out[i] = found;
    }
    out
}

/// Every finding of `class` in a trace.
pub fn find(
    class: Class,
    events: &[Event],
    report: &Report,
    pins: Option<&PinStore>,
    definitions: &OnceLock<Definitions>,
    w: Words,
) -> Vec<Finding> {
    let definitions = || {
        definitions.get_or_init(|| crate::analysis::definitions::definitions(events, &report.rpc))
    };
    let finding = |event: &Event, message: String| Finding {
        rule_id: class.rule_id().into(),
        server: server_of(report, event),
        seq: Some(event.seq),
        message,
    };
    let derived = &report.rpc.derived;
    let mut out = Vec::new();
    match class {
        Class::Error => {
            for (e, d) in events.iter().zip(derived) {
                let method = d.method.as_deref().unwrap_or("?");
                if let Some((code, message)) = d.error() {
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.error",
                            &[
                                ("method", method),
                                ("seq", &e.seq.to_string()),
                                ("code", &code.to_string()),
                                ("message", message),
                            ],
                        ),
                    ));
                } else if d.kind == Kind::Response
                    && method == "tools/call"
                    && may_spell(&e.text(), &[b"isError"])
                    && e.text().contains("true")
                    && serde_json::from_str::<Value>(&e.text())
                        .ok()
                        .and_then(|v| v.pointer("/result/isError")?.as_bool())
                        == Some(true)
                {
                    let detail = d
                        .detail
                        .as_deref()
                        .map(|t| format!(" {t}"))
                        .unwrap_or_default();
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.is_error",
                            &[("detail", &detail), ("seq", &e.seq.to_string())],
                        ),
                    ));
                }
            }
        }
        Class::Invalid => {
            for (e, d) in events.iter().zip(derived) {
                if d.kind == Kind::Invalid {
                    let problem = crate::analysis::trace_error::why_invalid(d.problem()).say(w);
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.invalid",
                            &[("seq", &e.seq.to_string()), ("problem", &problem)],
                        ),
                    ));
                }
            }
        }
        Class::Unanswered => {
            for (e, d) in events.iter().zip(derived) {
                if let Pairing::Unanswered(why) = &d.pairing {
                    let method = d.method.as_deref().unwrap_or("?");
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.unanswered",
                            &[
                                ("method", method),
                                ("seq", &e.seq.to_string()),
                                ("why", why.as_ref()),
                            ],
                        ),
                    ));
                }
            }
        }
        Class::Schema => {
            for v in conformance::validate(events, &report.rpc) {
                let Some(e) = events.get(v.event) else {
                    continue;
                };
                let at = if v.pointer.is_empty() {
                    w.get("check_text.whole_message")
                } else {
                    &v.pointer
                };
                out.push(finding(
                    e,
                    w.fmt(
                        "check_text.schema",
                        &[
                            ("seq", &v.seq.to_string()),
                            ("revision", &v.revision),
                            ("definition", &v.definition),
                            ("at", at),
                            ("message", &v.message.say(w)),
                        ],
                    ),
                ));
            }
        }
        Class::Drift => {
            for f in pins::check_trace(&definitions().lists, pins)
                .into_iter()
                .filter(pins::Finding::is_rug_pull)
            {
                let server = serde_json::to_value(&f)
                    .ok()
                    .and_then(|v| v.get("server")?.as_str().map(str::to_string));
                let rule_id = match f {
                    pins::Finding::PinChanged { .. } => "pin-changed",
                    _ => "rug-pull",
                };
                out.push(Finding {
                    rule_id: rule_id.into(),
                    server,
                    seq: Some(f.seq()),
                    message: f.headline_in(w),
                });
            }
        }
        Class::Poison => {
            for f in poison::scan_definitions(definitions()) {
                if f.severity < poison::Severity::Warning {
                    continue;
                }
                let place = match &f.tool {
                    Some(t) => format!("{}/{t} {}", f.server, f.field),
                    None => format!("{} {}", f.server, f.field),
                };
                let severity = w.fmt(
                    &format!("poison_text.severity_{}", f.severity.as_str()),
                    &[],
                );
                out.push(Finding {
                    rule_id: f.kind.code().into(),
                    server: Some(f.server.clone()),
                    seq: Some(f.seq),
                    message: w.fmt(
                        "check_text.poison",
                        &[
                            ("severity", &severity),
                            ("place", &place),
                            ("seq", &f.seq.to_string()),
                            ("explanation", &f.explanation_in(w)),
                            ("excerpt", f.excerpt_in(w)),
                        ],
                    ),
                });
            }
        }
        Class::Hidden => {
            let diagnosis = doctor::diagnose(events, report, &doctor::DoctorOptions::default());
            for t in diagnosis.tools.iter().filter(|t| !t.visible) {
                out.push(Finding {
                    rule_id: t.code.as_str().into(),
                    server: t.server.clone(),
                    seq: t.seq,
                    message: w.fmt(
                        "check_text.hidden_tool",
                        &[("tool", &t.tool), ("detail", &t.detail_in(w))],
                    ),
                });
            }
            for s in diagnosis.servers.iter().filter(|s| s.failed()) {
                out.push(Finding {
                    rule_id: s
                        .code
                        .map(doctor::Code::as_str)
                        .unwrap_or("hidden-tool")
                        .into(),
                    server: Some(s.server.clone()),
                    seq: s.seq,
                    message: w.fmt(
                        "check_text.no_tool_list",
                        &[("server", &s.server), ("detail", &s.detail_in(w))],
                    ),
                });
            }
        }
        Class::Deprecated => {
            let mut seen: HashMap<u64, Vec<(Shape, Vec<String>)>> = HashMap::new();
            for (e, d) in events.iter().zip(derived) {
                if d.revision.as_deref() != Some("2026-07-28")
                    || !e.channel.carries_jsonrpc()
                    || !may_spell(&e.text(), &DEPRECATED_WORDS)
                {
                    continue;
                }
                // A message met before (byte for byte, but for its id) uses what it used.
                let shape = Shape::of(e);
                let known = shape.as_ref().and_then(|s| {
                    let same = seen.get(&s.hash())?.iter().find(|(o, _)| o.same(s));
                    same.map(|(_, used)| used.clone())
                });
                let used = match known {
                    Some(used) => used,
                    None => {
                        let used = deprecated_uses(&e.text(), w);
                        if let Some(s) = shape {
                            seen.entry(s.hash()).or_default().push((s, used.clone()));
                        }
                        used
                    }
                };
                for u in used {
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.deprecated",
                            &[("seq", &e.seq.to_string()), ("what", &u)],
                        ),
                    ));
                }
            }
        }
        Class::Secret => {
            for e in events {
                let recorded = e.channel.carries_jsonrpc()
                    || matches!(e.channel, Channel::LlmHttp | Channel::Stderr);
                if recorded && let Some(what) = super::find_secret(&e.text()) {
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.secret",
                            &[("seq", &e.seq.to_string()), ("what", w.get(what))],
                        ),
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Language;
    use crate::trace::{Lane, load_from_reader};

    /// The classes run in two halves find, class by class, what running them one after the
    /// other finds.
    #[test]
    fn the_two_halves_find_what_one_class_after_another_finds() {
        let w = Words::of(Language::En);
        let classes: Vec<Class> = Class::ALL.into_iter().rev().collect();
        let mut found = 0;
        for text in crate::analysis::fixtures::RECORDINGS {
            let events = load_from_reader(text.as_bytes()).expect("fixture").events;
            let report = crate::analysis::report(&events);
            let definitions = OnceLock::new();
            let each: Vec<Vec<Finding>> = classes
                .iter()
                .map(|c| find(*c, &events, &report, None, &definitions, w))
                .collect();
            found += each.iter().filter(|f| !f.is_empty()).count();
            assert_eq!(find_all(&classes, &events, &report, None, w), each);
        }
        assert!(found >= 3, "{found}");
    }

    /// A deprecated feature is found in each message that uses it, also in a message that
    /// repeats an earlier one but for its id.
    #[test]
    fn each_repeated_deprecated_use_is_found() {
        let log = |id: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"logging/setLevel","params":{{"level":"info","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"info"}}}}}}"#
            )
        };
        let events: Vec<Event> = ["1", "2", "\"x\"", "2"]
            .into_iter()
            .enumerate()
            .map(|(n, id)| {
                Event::with_bytes(
                    n as u64,
                    crate::trace::now(),
                    Lane::Host,
                    Lane::server("s"),
                    Channel::Stdio,
                    log(id).into_bytes(),
                )
            })
            .collect();
        let report = Report::mcp_only(&events);
        let w = Words::of(Language::En);
        let found = find(
            Class::Deprecated,
            &events,
            &report,
            None,
            &OnceLock::new(),
            w,
        );
        let seqs: Vec<Option<u64>> = found.iter().map(|f| f.seq).collect();
        assert_eq!(seqs, [0, 0, 1, 1, 2, 2, 3, 3].map(Some), "{found:#?}");
        assert!(found[7].message.contains("#3"), "{found:#?}");
    }

    /// A message is read for a word only when it may spell it: escapes included.
    #[test]
    fn words_spelled_with_escapes_are_still_read() {
        assert!(may_spell(r#"{"isError":true}"#, &[b"isError"]));
        assert!(may_spell(r#"{"is\u0045rror":true}"#, &[b"isError"]));
        assert!(!may_spell(r#"{"content":[],"isErr":true}"#, &[b"isError"]));
        assert!(may_spell(r#"{"method":"roots\/list"}"#, &DEPRECATED_WORDS));
        assert!(!may_spell(r#"{"method":"tools/list"}"#, &DEPRECATED_WORDS));
        let event = |raw: &str| {
            Event::with_bytes(
                1,
                crate::trace::now(),
                Lane::server("s"),
                Lane::Host,
                Channel::Stdio,
                raw.as_bytes().to_vec(),
            )
        };
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
        let mut request = event(call);
        (request.from, request.to, request.seq) = (Lane::Host, Lane::server("s"), 0);
        for answer in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"is\u0045rror":true}}"#,
        ] {
            let events = vec![request.clone(), event(answer)];
            let report = Report::mcp_only(&events);
            let found = find(
                Class::Error,
                &events,
                &report,
                None,
                &OnceLock::new(),
                Words::of(Language::En),
            );
            assert_eq!(found.len(), 1, "{answer}");
        }
    }
}
