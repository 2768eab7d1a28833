//! The verdicts a host profile ([`crate::analysis::hosts`]) gives: what a given real host
//! would do to each listed tool, or why the recorded request lacks one.
//!
//! Without an LLM request (a `sightline proxy` recording of a real host's server, a probe), or
//! with `--host` naming another host than the one recorded, the profile predicts: every listed
//! tool gets the profile's verdict, said as "would be", except where the provider's own rules
//! already refuse it (an invalid schema, too long a description). With the host's own LLM
//! request recorded, the request is the truth; the profile only explains a tool the request
//! lacks that the host left no note about (`host-filtered` otherwise). Each verdict cites the
//! rule's source, date and confidence.

mod checks;
mod session;

use std::collections::HashMap;

use serde_json::Value;

use super::session::Server;
use super::{Basis, Code, Ctx, DoctorOptions, HostChoice, HostUsed, ToolFinding};
use checks::{Cap, one, withheld};
use session::{paged, stale, too_slow, unfollowed};

use crate::analysis::hosts::{self, Fact, Past, Profile, Recognised};
use crate::i18n::Said;
use crate::wire::offered::naming::{Named, Pass};

/// One verdict of the profile.
struct Verdict {
    code: Code,
    /// The event that proves it.
    at: usize,
    said: Said,
    hint: Said,
}

/// Where the rule comes from, appended to a detail: host, source, date, confidence.
fn cite<T>(p: &Profile, f: &Fact<T>) -> Said {
    Said::new("doctor_host.cite")
        .with("host", &p.name)
        .with("source", &f.source)
        .with("date", &f.date)
        .with_said("confidence", Said::new(f.confidence.key()))
}

/// Applies the profile in force (named, or recognised in the trace) to the verdicts; returns
/// it, and the basis when the profile predicts over a request recorded from another host.
pub(super) fn judge(
    ctx: &Ctx,
    basis: Basis,
    servers: &mut [Server],
    tools: &mut [(ToolFinding, Option<String>)],
    options: &DoctorOptions,
) -> (Option<HostUsed>, Basis) {
    let recognised = hosts::recognise(ctx.events, ctx.report);
    let (profile, recognised) = match &options.host {
        HostChoice::None => return (None, basis),
        HostChoice::Named(p) => (*p, None),
        HostChoice::Recognise => match recognised {
            Some(r) => (r.profile, Some(r)),
            None => return (None, basis),
        },
    };
    let own_request = !basis.would_be()
        && match &options.host {
            HostChoice::Named(p) => {
                hosts::recognise(ctx.events, ctx.report).is_some_and(|r| r.profile.id == p.id)
            }
            _ => true,
        };
    let basis = if own_request {
        basis
    } else {
        Basis::WouldBe { shape: profile.api }
    };
    // The recorded host, when it is this profile's: its version decides version-bound rules.
    let seen = hosts::recognise(ctx.events, ctx.report).filter(|r| r.profile.id == profile.id);
    let named: Vec<Named> = servers
        .iter()
        .map(|s| Named {
            server: &s.name,
            announced: s.announced.as_deref(),
        })
        .collect();
    let pass = profile.pass(&named);
    let (verdicts, server_codes) = predict(ctx, profile, &pass, seen.as_ref(), servers);
    for (f, _) in tools.iter_mut() {
        let Some(server) = f.server.clone() else {
            continue;
        };
        f.host_name = Some(pass.model_name(&server, &f.tool));
        let Some(v) = verdicts.get(&(server, f.tool.clone())) else {
            continue;
        };
        if own_request {
            if f.code == Code::HostFiltered && !v.code.is_visible() {
                let request = ctx.seq(ctx.cut.min(ctx.events.len().saturating_sub(1)));
                let said = Said::new("doctor_host.lacks")
                    .with("request", request)
                    .with_said("why", v.said.clone());
                set(ctx, f, v.code, v.at, said, v.hint.clone());
            } else if f.visible {
                explain_recorded(profile, f);
            }
            continue;
        }
        // What the provider itself refuses stands, unless the host coerces schemas to fit.
        let coerces = profile.schema.iter().any(|r| r.rule.past == Past::Coerced);
        // A host whose own cap sends fewer tools than the provider's limit never reaches it.
        let capped_lower = profile.tool_cap.as_ref().is_some_and(|c| {
            c.rule.past != Past::RequestFails
                && super::rules::max_tools(profile.api).is_some_and(|max| c.rule.max <= max)
        });
        let count_limit = f.said.keys().contains(&"doctor_detail.too_many_would");
        let provider_refuses = matches!(f.code, Code::SchemaInvalid)
            || (f.code == Code::ProviderLimit && !(count_limit && capped_lower))
            || (f.code == Code::SchemaNotObject && !coerces);
        if provider_refuses && v.code.is_visible() {
            continue;
        }
        let called = ctx
            .index
            .calls
            .get(&(f.server.clone().unwrap_or_default(), f.tool.clone()))
            .copied();
        match called {
            Some(c) if v.code == Code::VisibleNotCalled => {
                let said = Said::new("doctor_host.called")
                    .with("host", &profile.name)
                    .with("api", f.host_name.clone().unwrap_or_default())
                    .with("seq", ctx.seq(c));
                set(ctx, f, Code::VisibleCalled, c, said, Said::empty());
            }
            _ => set(ctx, f, v.code, v.at, v.said.clone(), v.hint.clone()),
        }
    }
    for (k, code, at, said, hint) in server_codes {
        let finding = &mut servers[k].finding;
        if finding.failed() {
            continue;
        }
        finding.code = Some(code);
        finding.seq = Some(ctx.seq(at));
        finding.detail = said.english();
        finding.said = said;
        finding.hint = hint;
    }
    for s in servers.iter_mut() {
        let name = s.name.clone();
        s.finding.visible = tools
            .iter()
            .filter(|(f, _)| f.server.as_deref() == Some(&name) && f.visible)
            .count();
    }
    let used = HostUsed {
        id: profile.id.clone(),
        name: profile.name.clone(),
        recognised,
    };
    (Some(used), basis)
}

/// A verdict read from the host's own request, with the profile's rule that explains what
/// the request shows: the name the host gave the tool, or its deferral.
fn explain_recorded(profile: &Profile, f: &mut ToolFinding) {
    let renamed = f.host_name.as_deref().filter(|api| *api != f.tool);
    // The rule is a sentence of its own after the verdict's.
    let stop = match f.said.english().trim_end().ends_with('.') {
        true => "",
        false => ".",
    };
    let said = match (f.code, renamed, &profile.deferral) {
        (Code::VisibleOnDemand, _, Some(rule)) => Said::new("doctor_host.recorded_deferred")
            .with_said("said", f.said.clone())
            .with("stop", stop)
            .with("host", &profile.name)
            .with_said("cite", cite(profile, rule)),
        (_, Some(api), _) => Said::new("doctor_host.recorded_named")
            .with_said("said", f.said.clone())
            .with("stop", stop)
            .with("api", api)
            .with("host", &profile.name)
            .with("rule", &profile.naming.note)
            .with_said("cite", cite(profile, &profile.naming)),
        _ => return,
    };
    f.detail = said.english();
    f.said = said;
}

fn set(ctx: &Ctx, f: &mut ToolFinding, code: Code, at: usize, said: Said, hint: Said) {
    f.code = code;
    f.visible = code.is_visible();
    f.seq = Some(ctx.seq(at));
    f.detail = said.english();
    f.said = said;
    f.hint = hint;
}

type ServerCode = (usize, Code, usize, Said, Said);

fn name_of(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The profile's verdict on every listed tool, by (server, tool), and server-level codes.
/// `seen`: the recorded host, when it is this profile's.
fn predict(
    ctx: &Ctx,
    p: &Profile,
    pass: &Pass,
    seen: Option<&Recognised>,
    servers: &[Server],
) -> (HashMap<(String, String), Verdict>, Vec<ServerCode>) {
    let mut out = HashMap::new();
    let mut server_codes = Vec::new();
    let total: usize = servers
        .iter()
        .filter_map(|s| s.listing.as_ref().map(|l| l.tools.len()))
        .sum();
    let mut index = 0;
    for (k, s) in servers.iter().enumerate() {
        let Some(listing) = &s.listing else {
            continue;
        };
        let tools = &listing.definitions();
        let result = &listing.result;
        let before = index;
        index += tools.len();
        let put = |out: &mut HashMap<_, _>, tool: &Value, v: Verdict| {
            out.insert((s.name.clone(), name_of(tool).to_string()), v);
        };
        if let Some((code, at, said, hint)) = too_slow(ctx, p, &s.name) {
            for tool in tools {
                put(
                    &mut out,
                    tool,
                    Verdict {
                        code,
                        at,
                        said: said.clone(),
                        hint: hint.clone(),
                    },
                );
            }
            server_codes.push((k, code, at, said, hint));
            continue;
        }
        if let Some((bad, code, said, hint)) = withheld(p, &s.name, tools) {
            for tool in tools {
                let v = if name_of(tool) == bad {
                    Verdict {
                        code,
                        at: *result,
                        said: said.clone(),
                        hint: hint.clone(),
                    }
                } else {
                    let said = Said::new("doctor_host.withheld")
                        .with("host", &p.name)
                        .with("server", &s.name)
                        .with("bad", bad);
                    let hint = Said::new("doctor_hint.fix_tool")
                        .with("a", bad)
                        .with("b", &s.name);
                    Verdict {
                        code: Code::ServerDropped,
                        at: *result,
                        said,
                        hint,
                    }
                };
                put(&mut out, tool, v);
            }
            continue;
        }
        let stale = stale(ctx, p, &s.name, tools);
        if let Some((code, at, said, hint)) = unfollowed(ctx, p, seen, listing) {
            server_codes.push((k, code, at, said, hint));
        }
        for (j, (tool, listed)) in tools.iter().zip(&listing.tools).enumerate() {
            if let Some((at, said)) = stale
                .iter()
                .find(|(n, _)| n == name_of(tool))
                .map(|(_, v)| v.clone())
            {
                let hint = super::rules::hint(Code::StaleList, &s.name);
                put(
                    &mut out,
                    tool,
                    Verdict {
                        code: Code::StaleList,
                        at,
                        said,
                        hint,
                    },
                );
                continue;
            }
            let cap = Cap {
                index: before + j,
                before,
                count: tools.len(),
                total,
            };
            let v = one(p, pass, &s.name, tool, listed.at, cap);
            let v = paged(ctx, p, seen, listed, v);
            // A host that refuses the whole server past its cap (Windsurf) drops the server:
            // said once, on the server, as well as on each tool.
            let refused = v.said.keys().contains(&"doctor_host.cap_refuse");
            if refused && !server_codes.iter().any(|c| c.0 == k) {
                let code = (k, Code::ServerDropped, v.at, v.said.clone(), v.hint.clone());
                server_codes.push(code);
            }
            put(&mut out, tool, v);
        }
    }
    (out, server_codes)
}
