//! One tool against a profile's rules: its schema, its name and the host's tool cap; and the
//! all-or-nothing rules that withhold a whole server for one tool.

use serde_json::Value;

use super::{Verdict, cite, name_of};
use crate::analysis::doctor::Code;
use crate::analysis::doctor::rules::{name_rule, provider_name, suggest_name, tool_hint};
use crate::analysis::hosts::{self, Applies, DeferDefault, Fact, Past, Profile, Refuses};
use crate::i18n::Said;
use crate::wire::convert;
use crate::wire::offered::naming::Pass;

/// Where a tool stands against a host's tool cap: its place among every server's tools.
#[derive(Clone, Copy)]
pub(super) struct Cap {
    pub(super) index: usize,
    /// Tools of the servers before this one.
    pub(super) before: usize,
    /// This server's tools.
    pub(super) count: usize,
    pub(super) total: usize,
}

/// The verdict on one tool of a server the host keeps, named by the host's `pass` over every
/// server.
pub(super) fn one(
    p: &Profile,
    pass: &Pass,
    server: &str,
    tool: &Value,
    at: usize,
    cap: Cap,
) -> Verdict {
    let name = name_of(tool);
    let api = pass.model_name(server, name);
    let verdict = |code, said: Said, hint: Said| Verdict {
        code,
        at,
        said,
        hint,
    };
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    for rule in p.schema.iter().filter(|r| r.rule.past == Past::DropTool) {
        if let Some(problem) = schema_refused(rule.rule.refuses, schema) {
            let said = Said::new("doctor_host.schema_dropped")
                .with("host", &p.name)
                .with_said("problem", problem)
                .with_said("cite", cite(p, rule));
            return verdict(
                Code::SchemaRefused,
                said,
                Said::new("doctor_hint.schema_refused"),
            );
        }
    }
    if let Some(limit) = &p.name_limit {
        let (len, over) = match limit.rule.applies_to {
            Applies::ServerAndTool => {
                let len = server.chars().count() + name.chars().count();
                (len, len > limit.rule.max)
            }
            Applies::ModelName => {
                let len = api.chars().count();
                (len, len > limit.rule.max && limit.rule.past != Past::Cut)
            }
        };
        if over {
            let key = match limit.rule.applies_to {
                Applies::ServerAndTool => "doctor_host.name_budget",
                Applies::ModelName => "doctor_host.name_too_long",
            };
            let said = Said::new(key)
                .with("host", &p.name)
                .with("api", &api)
                .with("len", len)
                .with("max", limit.rule.max)
                .with_said("cite", cite(p, limit));
            let hint = Said::new("doctor_host.hint_shorten").with("max", limit.rule.max);
            return verdict(Code::NameRejected, said, hint);
        }
    }
    if !convert::valid_name_for(p.api, &api) {
        let said = Said::new("doctor_host.name_provider")
            .with("host", &p.name)
            .with("api", &api)
            .with("provider", provider_name(p.api))
            .with_said("rule", name_rule(p.api))
            .with_said("cite", cite(p, &p.naming));
        let hint = Said::new("doctor_hint.rename_to").with("a", suggest_name(name));
        return verdict(Code::NameRejected, said, hint);
    }
    if let Some(c) = &p.tool_cap
        && let Some(v) = capped(p, c, server, cap, at)
    {
        return v;
    }
    if let Some((prefix, first)) = pass.numbered(server) {
        let said = Said::new("doctor_host.numbered")
            .with("host", &p.name)
            .with("api", &api)
            .with("name", name)
            .with("server", server)
            .with("prefix", prefix)
            .with("first", first)
            .with_said("cite", cite(p, &p.naming));
        let hint = Said::new("doctor_hint.renamed_by_host").with("a", &api);
        return verdict(Code::RenamedByHost, said, hint);
    }
    if api != pass.prefixed(server, name) {
        let said = Said::new("doctor_host.renamed")
            .with("host", &p.name)
            .with("api", &api)
            .with("name", name)
            .with("scheme", p.naming.rule.scheme.as_str())
            .with_said("cite", cite(p, &p.naming));
        let hint = Said::new("doctor_hint.renamed_by_host").with("a", &api);
        return verdict(Code::RenamedByHost, said, hint);
    }
    let bytes = tool
        .get("description")
        .and_then(Value::as_str)
        .map_or(0, str::len);
    if let Some(cut) = p
        .description_cut
        .as_ref()
        .filter(|c| bytes > c.rule.max_bytes)
    {
        let said = Said::new("doctor_host.description_cut")
            .with("host", &p.name)
            .with("bytes", bytes)
            .with("max", cut.rule.max_bytes)
            .with_said("cite", cite(p, cut));
        return verdict(
            Code::DescriptionCut,
            said,
            Said::new("doctor_hint.description_cut"),
        );
    }
    if let Some(d) = p
        .deferral
        .as_ref()
        .filter(|d| d.rule.default == DeferDefault::All)
    {
        let said = Said::new("doctor_host.deferred")
            .with("host", &p.name)
            .with("api", &api)
            .with_said("cite", cite(p, d));
        let hint = match d.rule.always_load {
            true => Said::new("doctor_host.hint_always_load"),
            false => Said::empty(),
        };
        return verdict(Code::VisibleOnDemand, said, hint);
    }
    let said = Said::new("doctor_host.sent")
        .with("host", &p.name)
        .with("api", &api)
        .with_said("cite", cite(p, &p.naming));
    verdict(Code::VisibleNotCalled, said, Said::empty())
}

/// The host's tool cap against this tool's place.
fn capped(
    p: &Profile,
    c: &Fact<hosts::ToolCap>,
    server: &str,
    cap: Cap,
    at: usize,
) -> Option<Verdict> {
    let max = c.rule.max;
    let base = |key| {
        Said::new(key)
            .with("host", &p.name)
            .with("server", server)
            .with("index", cap.index + 1)
            .with("total", cap.total)
            .with("count", cap.count)
            .with("max", max)
            .with_said("cite", cite(p, c))
    };
    let hidden = |key| Verdict {
        code: Code::HiddenByCap,
        at,
        said: base(key),
        hint: Said::new("doctor_hint.hidden_by_cap").with("max", max),
    };
    match c.rule.past {
        Past::DropRest if cap.index >= max => Some(hidden("doctor_host.cap_drop")),
        Past::RefuseServer if cap.before + cap.count > max => {
            Some(hidden("doctor_host.cap_refuse"))
        }
        Past::RequestFails if cap.total > max => Some(hidden("doctor_host.cap_fails")),
        Past::Group if cap.total > max => Some(Verdict {
            code: Code::VisibleOnDemand,
            at,
            said: base("doctor_host.cap_group"),
            hint: Said::new("doctor_hint.hidden_by_cap").with("max", max),
        }),
        _ => None,
    }
}

/// Why a host's validator refuses `schema` under `refuses`, if it does.
fn schema_refused(refuses: Refuses, schema: &Value) -> Option<Said> {
    match refuses {
        Refuses::None => None,
        Refuses::NonObject => (schema.get("type").and_then(Value::as_str) != Some("object"))
            .then(|| Said::new("doctor_host.not_object")),
        Refuses::InvalidDraft07 => {
            if let Err(e) = jsonschema::draft7::new(schema) {
                return Some(crate::analysis::conformance::words::said_at(&e));
            }
            array_without_items(schema, "")
                .map(|at| Said::new("doctor_host.array_items").with("at", at))
        }
    }
}

/// The first `"type": "array"` without `items`, as a JSON pointer (VS Code's validator
/// refuses it).
fn array_without_items(v: &Value, at: &str) -> Option<String> {
    match v {
        Value::Object(map) => {
            let array = match map.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
                _ => false,
            };
            if array && !map.contains_key("items") && !map.contains_key("prefixItems") {
                return Some(if at.is_empty() {
                    "/".into()
                } else {
                    at.to_string()
                });
            }
            map.iter()
                .find_map(|(k, child)| array_without_items(child, &format!("{at}/{k}")))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, child)| array_without_items(child, &format!("{at}/{i}"))),
        _ => None,
    }
}

/// An all-or-nothing rule one tool breaks: that tool, its code, detail and hint.
pub(super) fn withheld<'t>(
    p: &Profile,
    server: &str,
    tools: &'t [Value],
) -> Option<(&'t str, Code, Said, Said)> {
    if let Some(chars) = p
        .name_chars
        .as_ref()
        .filter(|c| c.rule.past == Past::WithholdServer)
    {
        for tool in tools {
            let name = name_of(tool);
            let bad = chars.rule.first_bad(name);
            let long = name.chars().count() > chars.rule.max;
            if bad.is_some() || long || name.is_empty() {
                let (pos, c) = bad.unwrap_or((chars.rule.max, ' '));
                let said = Said::new("doctor_host.name_chars")
                    .with("host", &p.name)
                    .with("server", server)
                    .with("name", name)
                    .with("char", format!("{c:?}"))
                    .with("pos", pos)
                    .with("allowed", &chars.rule.allowed)
                    .with("max", chars.rule.max)
                    .with_said("cite", cite(p, chars));
                let hint = tool_hint(Code::NameRejected, server, name, "");
                return Some((name, Code::NameRejected, said, hint));
            }
        }
    }
    for rule in p
        .schema
        .iter()
        .filter(|r| r.rule.past == Past::WithholdServer)
    {
        for tool in tools {
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            if let Some(problem) = schema_refused(rule.rule.refuses, schema) {
                let said = Said::new("doctor_host.schema_withheld")
                    .with("host", &p.name)
                    .with("server", server)
                    .with("name", name_of(tool))
                    .with_said("problem", problem)
                    .with_said("cite", cite(p, rule));
                return Some((
                    name_of(tool),
                    Code::SchemaRefused,
                    said,
                    Said::new("doctor_hint.schema_refused"),
                ));
            }
        }
    }
    None
}
