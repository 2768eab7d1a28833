//! The `--fail-on` classes: each turns an existing analysis into check findings.
//!
//! One function per class, each naming the event that shows the finding. Nothing here
//! re-derives what another module knows: errors and pairing come from `trace::analyze`,
//! schema violations from `conformance`, drift from `pins`, poisoning from `poison`,
//! visibility from the doctor.

use std::cell::OnceCell;

use serde_json::Value;

use super::{Class, Finding, server_of};
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

/// Every finding of `class` in a trace.
pub fn find(
    class: Class,
    events: &[Event],
    report: &Report,
    pins: Option<&PinStore>,
    definitions: &OnceCell<Definitions>,
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
                    let problem = d.problem().unwrap_or("not JSON-RPC");
                    out.push(finding(
                        e,
                        w.fmt(
                            "check_text.invalid",
                            &[("seq", &e.seq.to_string()), ("problem", problem)],
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
            for (e, d) in events.iter().zip(derived) {
                if d.revision.as_deref() != Some("2026-07-28") || !e.channel.carries_jsonrpc() {
                    continue;
                }
                let Ok(v) = serde_json::from_str::<Value>(&e.text()) else {
                    continue;
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
