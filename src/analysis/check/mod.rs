//! `sightline check TRACE [rules]`: a saved trace as a CI gate.
//!
//! A team wants a build to fail when the model stops seeing a tool, a forbidden tool gets
//! called, a call gets slow or a definition drifts. Each rule is evaluated on one trace and
//! becomes one or more [`Test`]s: one per explicit rule (`--expect-tool`, `--forbid-tool`,
//! `--expect-visible`, `--max-latency`, `--max-tool-tokens`) and one per finding class and
//! server for `--fail-on` ([`Class`]). A test passes when it has no [`Finding`]; every finding
//! names the event (`seq`) that shows it and carries a stable rule id: the doctor's codes
//! (`docs/doctor.md`) for visibility, poisoning's codes for poisoning, and the check codes of
//! [`Class::rule_id`] and the explicit rules (also in `docs/doctor.md`).
//!
//! Everything is read from analyses that exist already: the doctor, conformance, pins, poison
//! and tokens. Renderings (text, JUnit, SARIF) are in the export module's `check`.

mod classes;
mod secrets;

use serde::Serialize;
use serde_json::Value;

use super::Report;
use super::doctor::{self, DoctorOptions};
use super::pins::PinStore;
use crate::i18n::{Language, Words};
use crate::trace::{Event, Kind};
use crate::wire::remote::StepKind;
use crate::wire::text::ms_exact;

pub use secrets::find_secret;

/// A class of findings `--fail-on` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// JSON-RPC error responses and tool results with `isError`.
    Error,
    /// Payloads that are not JSON-RPC.
    Invalid,
    /// Requests that never got an answer.
    Unanswered,
    /// Messages that violate the MCP JSON Schema of their revision.
    Schema,
    /// Rug pulls: within the trace, or against the pin file.
    Drift,
    /// Poisoning warnings and dangers in tool definitions and instructions.
    Poison,
    /// Listed tools the model did not (or would not) see.
    Hidden,
    /// Sampling, roots and logging on 2026-07-28, where they are deprecated.
    Deprecated,
    /// Credential-looking values in a recorded message.
    Secret,
}

impl Class {
    pub const ALL: [Class; 9] = [
        Class::Error,
        Class::Invalid,
        Class::Unanswered,
        Class::Schema,
        Class::Drift,
        Class::Poison,
        Class::Hidden,
        Class::Deprecated,
        Class::Secret,
    ];
    /// `--fail-on`'s default.
    pub const DEFAULT: [Class; 5] = [
        Class::Error,
        Class::Invalid,
        Class::Unanswered,
        Class::Schema,
        Class::Poison,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Class::Error => "error",
            Class::Invalid => "invalid",
            Class::Unanswered => "unanswered",
            Class::Schema => "schema",
            Class::Drift => "drift",
            Class::Poison => "poison",
            Class::Hidden => "hidden",
            Class::Deprecated => "deprecated",
            Class::Secret => "secret",
        }
    }

    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The rule id of this class's findings, where one class has one (poison and hidden
    /// findings use the poisoning and doctor codes).
    pub fn rule_id(self) -> &'static str {
        match self {
            Class::Error => "error-response",
            Class::Invalid => "invalid-message",
            Class::Unanswered => "unanswered-request",
            Class::Schema => "schema-violation",
            Class::Drift => "rug-pull",
            Class::Poison => "poison",
            Class::Hidden => "hidden-tool",
            Class::Deprecated => "deprecated-feature",
            Class::Secret => "secret-in-trace",
        }
    }
}

/// Rule ids of the explicit rules.
pub const EXPECTED_TOOL_NOT_CALLED: &str = "expected-tool-not-called";
pub const FORBIDDEN_TOOL_CALLED: &str = "forbidden-tool-called";
pub const LATENCY_EXCEEDED: &str = "latency-exceeded";
pub const TOOL_TOKENS_EXCEEDED: &str = "tool-tokens-exceeded";

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub expect_tool: Vec<String>,
    pub forbid_tool: Vec<String>,
    pub expect_visible: Vec<String>,
    /// The host whose view `expect_visible` is judged by (`--host`): its profile, or the one
    /// the trace shows.
    pub host: doctor::HostChoice,
    pub max_latency_us: Option<i64>,
    pub max_tool_tokens: Option<usize>,
    pub fail_on: Vec<Class>,
    /// The language of the findings' messages (`check_text.*`); rule ids stay as they are.
    pub lang: Language,
}

/// One failed expectation.
impl CheckOptions {
    /// Whether a rule reads the model's half of the trace (the doctor's visibility, the tools
    /// parameter's tokens): without one, [`Report::mcp_only`] is all [`check`] needs.
    pub fn reads_model(&self) -> bool {
        !self.expect_visible.is_empty()
            || self.max_tool_tokens.is_some()
            || self.fail_on.contains(&Class::Hidden)
    }

    /// The [`Report`] these rules need of `events`: the whole one, or the JSON-RPC half alone.
    /// The rules on calls read the model's half too when an LLM API was itself the MCP client
    /// (its `mcp_tool_use` / `mcp_call` are calls no `tools/call` of the trace shows).
    pub fn report(&self, events: &[Event]) -> Report {
        let on_calls = !self.expect_tool.is_empty() || !self.forbid_tool.is_empty();
        let remote = on_calls
            && events.iter().any(|e| {
                e.channel == crate::trace::Channel::LlmHttp
                    && e.from == crate::trace::Lane::Llm
                    && (e.text().contains("\"mcp_tool_use\"") || e.text().contains("\"mcp_call\""))
            });
        if self.reads_model() || remote {
            super::report(events)
        } else {
            Report::mcp_only(events)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable rule id (see the module documentation).
    pub rule_id: String,
    pub server: Option<String>,
    /// The event that shows it.
    pub seq: Option<u64>,
    pub message: String,
}

/// One rule on one server (or on the whole trace).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Test {
    /// `forbid-tool get_weather`, `fail-on error`.
    pub name: String,
    /// The server's name, or `trace` for a rule about the whole trace.
    pub group: String,
    pub findings: Vec<Finding>,
}

impl Test {
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Every test of a check.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckReport {
    pub tests: Vec<Test>,
}

impl CheckReport {
    pub fn failed(&self) -> usize {
        self.tests.iter().filter(|t| !t.passed()).count()
    }

    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.tests.iter().flat_map(|t| &t.findings)
    }
}

/// A `tools/call` request of the trace: tool name, server, `seq`, latency.
pub(crate) struct ToolCall {
    pub tool: String,
    pub server: String,
    pub seq: u64,
    pub latency_us: Option<i64>,
}

/// The server name an event belongs to: the `serverInfo.name` of its lane's session, else the
/// lane name.
pub(crate) fn server_of(report: &Report, event: &Event) -> Option<String> {
    let lane = [&event.from, &event.to]
        .into_iter()
        .find(|l| l.is_server())?;
    let named = report
        .rpc
        .sessions
        .iter()
        .find(|(l, _)| l == lane)
        .and_then(|(_, s)| s.server_name.clone());
    Some(named.unwrap_or_else(|| lane.server_name().unwrap_or_default().to_string()))
}

pub(crate) fn tool_calls(events: &[Event], report: &Report) -> Vec<ToolCall> {
    let mut out = Vec::new();
    for (e, d) in events.iter().zip(&report.rpc.derived) {
        if d.kind != Kind::Request || d.method.as_deref() != Some("tools/call") {
            continue;
        }
        if !e.to.is_server() {
            continue;
        }
        let tool = serde_json::from_str::<Value>(&e.text())
            .ok()
            .and_then(|v| v.pointer("/params/name")?.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push(ToolCall {
            tool,
            server: server_of(report, e).unwrap_or_default(),
            seq: e.seq,
            latency_us: d.latency_us(),
        });
    }
    // The calls an LLM API made itself as the MCP client of a remote server, at the response
    // that holds them.
    for x in &report.llm {
        let Some(e) = x.response.and_then(|r| events.get(r)) else {
            continue;
        };
        let called = x.remote.iter().filter(|s| s.kind == StepKind::Call);
        for step in called {
            out.push(ToolCall {
                tool: step.tool.clone().unwrap_or_default(),
                server: step.server.clone().unwrap_or_default(),
                seq: e.seq,
                latency_us: None,
            });
        }
    }
    out.sort_by_key(|c| c.seq);
    out
}

/// Whether `name` (`tool` or `server/tool`) names `call`.
fn names(name: &str, server: &str, tool: &str) -> bool {
    name == tool || name.split_once('/') == Some((server, tool))
}

/// Runs every rule of `options` on a trace. `pins` is the pin file for `drift`, if any.
pub fn check(
    events: &[Event],
    report: &Report,
    options: &CheckOptions,
    pins: Option<&PinStore>,
) -> CheckReport {
    let w = Words::of(options.lang);
    let mut tests = Vec::new();
    // The tools/call requests, read only for the rules that look at them.
    let calls = if options.expect_tool.is_empty()
        && options.forbid_tool.is_empty()
        && options.max_latency_us.is_none()
    {
        Vec::new()
    } else {
        tool_calls(events, report)
    };
    for name in &options.expect_tool {
        let called = calls.iter().any(|c| names(name, &c.server, &c.tool));
        let findings = if called {
            Vec::new()
        } else {
            let mut seen: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
            seen.dedup();
            let seen_list = if seen.is_empty() {
                String::new()
            } else {
                format!(": {}", seen.join(", "))
            };
            vec![Finding {
                rule_id: EXPECTED_TOOL_NOT_CALLED.into(),
                server: None,
                seq: None,
                message: w.fmt(
                    "check_text.never_called",
                    &[
                        ("name", name),
                        ("count", &calls.len().to_string()),
                        ("seen", &seen_list),
                    ],
                ),
            }]
        };
        tests.push(test(format!("expect-tool {name}"), "trace", findings));
    }
    for name in &options.forbid_tool {
        let findings = calls
            .iter()
            .filter(|c| names(name, &c.server, &c.tool))
            .map(|c| Finding {
                rule_id: FORBIDDEN_TOOL_CALLED.into(),
                server: Some(c.server.clone()),
                seq: Some(c.seq),
                message: w.fmt(
                    "check_text.forbidden",
                    &[
                        ("tool", &c.tool),
                        ("seq", &c.seq.to_string()),
                        ("server", &c.server),
                    ],
                ),
            })
            .collect();
        tests.push(test(format!("forbid-tool {name}"), "trace", findings));
    }
    if !options.expect_visible.is_empty() {
        let diagnosis = doctor::diagnose(
            events,
            report,
            &DoctorOptions {
                expect: options.expect_visible.clone(),
                provider: match options.host {
                    doctor::HostChoice::Named(p) => p.api,
                    _ => DoctorOptions::default().provider,
                },
                host: options.host.clone(),
            },
        );
        for name in &options.expect_visible {
            let finding = diagnosis.tools.iter().find(|t| {
                t.expected
                    && (names(name, t.server.as_deref().unwrap_or(""), &t.tool)
                        || t.tool == *name
                        || t.host_name.as_deref() == Some(name.as_str())
                        || t.server
                            .as_ref()
                            .is_some_and(|s| *name == format!("{s}__{}", t.tool)))
            });
            let findings = match finding {
                Some(t) if t.visible => Vec::new(),
                Some(t) => vec![Finding {
                    rule_id: t.code.as_str().into(),
                    server: t.server.clone(),
                    seq: t.seq,
                    message: w.fmt(
                        "check_text.not_visible",
                        &[("name", name), ("detail", &t.detail_in(w))],
                    ),
                }],
                None => vec![Finding {
                    rule_id: doctor::Code::ExpectedNotListed.as_str().into(),
                    server: None,
                    seq: None,
                    message: w.fmt("check_text.not_listed", &[("name", name)]),
                }],
            };
            tests.push(test(format!("expect-visible {name}"), "trace", findings));
        }
    }
    if let Some(limit) = options.max_latency_us {
        let mut slow: Vec<&ToolCall> = calls
            .iter()
            .filter(|c| c.latency_us.is_some_and(|l| l > limit))
            .collect();
        slow.sort_by_key(|c| std::cmp::Reverse(c.latency_us));
        let findings = slow
            .iter()
            .map(|c| Finding {
                rule_id: LATENCY_EXCEEDED.into(),
                server: Some(c.server.clone()),
                seq: Some(c.seq),
                message: w.fmt(
                    "check_text.slow",
                    &[
                        ("tool", &c.tool),
                        ("seq", &c.seq.to_string()),
                        ("took", &ms_exact(c.latency_us.unwrap_or_default())),
                        ("limit", &ms_exact(limit)),
                    ],
                ),
            })
            .collect();
        tests.push(test(
            format!("max-latency {}", ms_exact(limit)),
            "trace",
            findings,
        ));
    }
    if let Some(limit) = options.max_tool_tokens {
        let findings = super::tokens::tool_tokens(report, super::tokens::own())
            .into_iter()
            .filter(|r| r.total > limit)
            .map(|r| Finding {
                rule_id: TOOL_TOKENS_EXCEEDED.into(),
                server: None,
                seq: events.get(r.request).map(|e| e.seq),
                message: w.fmt(
                    "check_text.tokens",
                    &[
                        (
                            "seq",
                            &events
                                .get(r.request)
                                .map(|e| e.seq)
                                .unwrap_or_default()
                                .to_string(),
                        ),
                        ("tokens", &r.total.to_string()),
                        ("tokenizer", r.tokenizer),
                        ("limit", &limit.to_string()),
                    ],
                ),
            })
            .collect();
        tests.push(test(format!("max-tool-tokens {limit}"), "trace", findings));
    }
    let mut groups: Vec<String> = report
        .rpc
        .sessions
        .iter()
        .filter_map(|(lane, s)| s.server_name.clone().or(lane.server_name().map(Into::into)))
        .collect();
    groups.sort();
    groups.dedup();
    let found = classes::find_all(&options.fail_on, events, report, pins, w);
    for (class, found) in options.fail_on.iter().zip(found) {
        let mut names = groups.clone();
        for f in &found {
            let g = f.server.clone().unwrap_or_else(|| "trace".into());
            if !names.contains(&g) {
                names.push(g);
            }
        }
        if names.is_empty() {
            names.push("trace".into());
        }
        for group in names {
            let mine = found
                .iter()
                .filter(|f| f.server.as_deref().unwrap_or("trace") == group)
                .cloned()
                .collect();
            tests.push(test(format!("fail-on {}", class.as_str()), &group, mine));
        }
    }
    CheckReport { tests }
}

fn test(name: String, group: &str, findings: Vec<Finding>) -> Test {
    Test {
        name,
        group: group.to_string(),
        findings,
    }
}
