//! One finding per listed tool, then one per expected tool no server listed.
//!
//! With an LLM request, a tool is sent when the last request's `tools` names it: under its own
//! name, or under the name a host note says the host showed it as ("host shows tool `X` of
//! server `S` to the model as `Y`"). A tool the host dropped has a note saying why ("host drops
//! tool `X` of server `S`: <why>"); without one, the provider's rules are the best guess.
//! Notes count only between the tool's listing and the last request, so an older catalog's
//! decisions do not leak in.
//!
//! Without an LLM request, [`Catalog::build`] with a default host decides, for the provider
//! asked about.

use std::collections::HashMap;

use serde_json::Value;

use super::rules::hint;
use super::session::Server;
use super::{Basis, Code, Ctx, Diagnosis, DoctorOptions, ToolFinding};
use crate::analysis::{LlmExchange, ToolView};
use crate::i18n::Said;
use crate::trace::Lane;
use crate::wire::catalog::{Catalog, CatalogOptions, Fate};
use crate::wire::convert;
use crate::wire::offered::Delivery;

mod verdict;

pub(super) fn diagnose(ctx: &Ctx, servers: Vec<Server>, options: &DoctorOptions) -> Diagnosis {
    let mut judging = Judging::new(ctx, servers, options);
    while !judging.step(ctx, usize::MAX) {}
    judging.finish(ctx, options)
}

/// The verdicts on the listed tools, a few tools at a time ([`Judging::step`]), for a caller
/// that spreads the doctor over frames (a verdict may compile the tool's schema).
pub(super) struct Judging {
    basis: Basis,
    catalog: Catalog,
    lists: Vec<(String, Vec<Value>)>,
    /// Host -> host notes before the cut: index and text.
    notes: Vec<(usize, String)>,
    servers: Vec<Server>,
    tools: Vec<(ToolFinding, Option<String>)>,
    /// The next server and the next of its tools to judge, and how many of its tools judged
    /// so far are visible.
    server: usize,
    tool: usize,
    visible: usize,
}

impl Judging {
    /// What the verdicts are judged against: the basis, the catalog a host would build, the
    /// host's notes.
    pub(super) fn new(ctx: &Ctx, servers: Vec<Server>, options: &DoctorOptions) -> Judging {
        let basis = match super::judged(ctx.report).map(|n| &ctx.report.llm[n]) {
            Some(x) => Basis::LastRequest {
                seq: ctx.seq(x.request),
                shape: x.shape.unwrap_or(options.provider),
            },
            None => Basis::WouldBe {
                shape: options.provider,
            },
        };
        let lists: Vec<(String, Vec<Value>)> = servers
            .iter()
            .filter_map(|s| {
                s.listing
                    .as_ref()
                    .map(|l| (s.name.clone(), l.definitions()))
            })
            .collect();
        let catalog = Catalog::build(basis.shape(), &lists, &CatalogOptions::default());
        super::rules::prepare_schema_check();
        let notes: Vec<(usize, String)> = ctx
            .index
            .host_notes
            .iter()
            .copied()
            .take_while(|&i| i < ctx.cut.min(ctx.events.len()))
            .filter(|&i| ctx.events[i].to == Lane::Host)
            .map(|i| (i, ctx.events[i].text().into_owned()))
            .collect();
        Judging {
            basis,
            catalog,
            lists,
            notes,
            servers,
            tools: Vec::new(),
            server: 0,
            tool: 0,
            visible: 0,
        }
    }

    /// Judges the next `count` listed tools (at most); true once every one is judged.
    pub(super) fn step(&mut self, ctx: &Ctx, count: usize) -> bool {
        let judge = Judge {
            ctx,
            basis: self.basis,
            last: super::judged(ctx.report).map(|n| &ctx.report.llm[n]),
            view: super::judged(ctx.report).and_then(|n| ctx.report.tools.get(n)),
            catalog: &self.catalog,
            lists: &self.lists,
            notes: &self.notes,
            calls: &ctx.index.calls,
        };
        let mut left = count;
        while let Some(server) = self.servers.get_mut(self.server) {
            let listed = server.listing.as_ref();
            match listed.and_then(|l| l.tools.get(self.tool)) {
                Some(listed) => {
                    let (tool, result) = (&listed.tool, listed.at);
                    if left == 0 {
                        return false;
                    }
                    left -= 1;
                    let (finding, api_name) = judge.tool(&server.name, tool, result);
                    self.visible += usize::from(finding.visible);
                    self.tools.push((finding, api_name));
                    self.tool += 1;
                }
                None => {
                    if listed.is_some() {
                        server.finding.visible = self.visible;
                    }
                    self.server += 1;
                    self.tool = 0;
                    self.visible = 0;
                }
            }
        }
        true
    }

    /// The diagnosis, once [`Self::step`] has judged every listed tool: with a finding for
    /// each expected tool no server listed.
    pub(super) fn finish(self, ctx: &Ctx, options: &DoctorOptions) -> Diagnosis {
        let Judging {
            basis,
            mut servers,
            mut tools,
            ..
        } = self;
        let (host, basis) = super::host::judge(ctx, basis, &mut servers, &mut tools, options);
        for name in &options.expect {
            let mut known = false;
            for (f, api) in &mut tools {
                let same = f.tool == *name
                    || api.as_deref() == Some(name.as_str())
                    || f.host_name.as_deref() == Some(name.as_str())
                    || f.server
                        .as_ref()
                        .is_some_and(|s| *name == format!("{s}/{}", f.tool));
                if same {
                    f.expected = true;
                    known = true;
                }
            }
            if !known {
                let finding = expected(ctx, &servers, &tools, name);
                tools.push((finding, None));
            }
        }
        Diagnosis {
            tools: tools.into_iter().map(|(f, _)| f).collect(),
            servers: servers.into_iter().map(|s| s.finding).collect(),
            basis,
            host,
            remote: super::remote::findings(ctx),
        }
    }
}

struct Judge<'a, 'c> {
    ctx: &'c Ctx<'a>,
    basis: Basis,
    last: Option<&'c LlmExchange>,
    /// Where each tool of that request came from.
    view: Option<&'c ToolView>,
    catalog: &'c Catalog,
    lists: &'c [(String, Vec<Value>)],
    /// Host -> host notes before the cut: index and text.
    notes: &'c [(usize, String)],
    /// The last tools/call of each (server, tool).
    calls: &'c HashMap<(String, String), usize>,
}

fn tool_name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

impl Judge<'_, '_> {
    fn finding(&self, server: &str, tool: &str, code: Code, at: usize, said: Said) -> ToolFinding {
        ToolFinding {
            server: Some(server.to_string()),
            tool: tool.to_string(),
            visible: code.is_visible(),
            code,
            seq: Some(self.ctx.seq(at)),
            detail: said.english(),
            said,
            hint: hint(code, server),
            expected: false,
            host_name: None,
        }
    }

    /// The finding for one listed tool, and the name the model sees it under when sent.
    fn tool(&self, server: &str, tool: &Value, result: usize) -> (ToolFinding, Option<String>) {
        let name = tool_name(tool);
        let entry = self
            .catalog
            .entries
            .iter()
            .find(|e| e.server == server && e.mcp_name == name);
        match self.last {
            Some(x) => match self.sent_as(x, server, name, result) {
                Ok(shown) => {
                    let finding = self.sent(server, tool, &shown, result);
                    (finding, Some(shown.api_name))
                }
                Err(note) => (self.not_sent(x, server, tool, entry, result, note), None),
            },
            None => match entry.map(|e| (e, &e.fate)) {
                Some((e, Fate::Sent)) => {
                    let finding = self.sent(server, tool, &Shown::whole(&e.api_name), result);
                    (finding, Some(e.api_name.clone()))
                }
                Some((e, Fate::Dropped(why))) => (self.would_drop(e, why, result), None),
                None => {
                    let detail = Said::new("doctor_detail.not_in_catalog");
                    let f = self.finding(server, name, Code::HostFiltered, result, detail);
                    (f, None)
                }
            },
        }
    }

    /// Host notes about `server`'s `tool` between its listing and the last request.
    fn note(&self, result: usize, prefix: &str) -> Option<(usize, String)> {
        self.notes
            .iter()
            .rev()
            .take_while(|(i, _)| *i > result)
            .find_map(|(i, text)| text.strip_prefix(prefix).map(|rest| (*i, rest.to_string())))
    }

    /// How the last request carries the tool, or the host's note on dropping it.
    fn sent_as(
        &self,
        x: &LlmExchange,
        server: &str,
        name: &str,
        result: usize,
    ) -> Result<Shown, Option<(usize, String)>> {
        let dropped = self.note(
            result,
            &format!("host drops tool `{name}` of server `{server}`: "),
        );
        if dropped.is_some() {
            return Err(dropped);
        }
        let shown = format!("host shows tool `{name}` of server `{server}` to the model as `");
        if let Some((_, rest)) = self.note(result, &shown)
            && let Some(api_name) = rest.strip_suffix('`')
            && x.tools.iter().any(|t| t == api_name)
        {
            return Ok(Shown::whole(api_name));
        }
        // By the host's naming rule: whole, deferred, named in text, or in a namespace.
        let origin =
            self.view.into_iter().flat_map(|v| &v.sent).find(|o| {
                o.server.as_deref() == Some(server) && o.mcp_name.as_deref() == Some(name)
            });
        if let Some(o) = origin {
            return Ok(Shown {
                api_name: o.api_name.clone(),
                namespace: o.namespace.clone(),
                delivery: o.delivery,
                loaded_in: o.loaded_in,
            });
        }
        let candidates = [
            name.to_string(),
            format!("{server}__{name}"),
            convert::sanitize_name(name),
        ];
        candidates
            .into_iter()
            .find(|c| x.tools.contains(c))
            .map(|c| Shown::whole(&c))
            .ok_or(None)
    }

    /// The tools/call the host sent for this tool, the last one if several.
    fn call_of(&self, server: &str, name: &str) -> Option<usize> {
        self.calls
            .get(&(server.to_string(), name.to_string()))
            .copied()
    }

    /// Where the verdict on a tool that is (or would be) sent points: the last request, or
    /// the listing when there is none.
    fn request_or(&self, result: usize) -> usize {
        self.last.map_or(result, |x| x.request)
    }
}

/// How a request carries a tool: under which name, in which namespace, whole or deferred.
pub(super) struct Shown {
    pub(super) api_name: String,
    pub(super) namespace: Option<String>,
    pub(super) delivery: Delivery,
    /// The request whose conversation shows a search loaded it (deferred tools).
    pub(super) loaded_in: Option<usize>,
}

impl Shown {
    fn whole(api_name: &str) -> Shown {
        Shown {
            api_name: api_name.to_string(),
            namespace: None,
            delivery: Delivery::Whole,
            loaded_in: None,
        }
    }
}

/// The finding for an expected tool no server listed.
fn expected(
    ctx: &Ctx,
    servers: &[Server],
    tools: &[(ToolFinding, Option<String>)],
    name: &str,
) -> ToolFinding {
    if let Some(s) = servers.iter().find(|s| s.stale.is_some()) {
        let (at, stale) = s.stale.clone().unwrap_or_default();
        let said = Said::new("doctor_detail.expected_stale")
            .with("name", name)
            .with("server", &s.name)
            .with_said("detail", stale);
        return ToolFinding {
            server: Some(s.name.clone()),
            tool: name.to_string(),
            visible: false,
            code: Code::StaleList,
            seq: Some(ctx.seq(at)),
            detail: said.english(),
            said,
            hint: hint(Code::StaleList, &s.name),
            expected: true,
            host_name: None,
        };
    }
    if let Some(s) = servers.iter().find(|s| s.finding.failed()) {
        let code = s.finding.code.unwrap_or(Code::ExpectedNotListed);
        let said = Said::new("doctor_detail.expected_failed")
            .with("name", name)
            .with("server", &s.name)
            .with("code", code)
            .with_said("detail", s.finding.said.clone());
        return ToolFinding {
            server: Some(s.name.clone()),
            tool: name.to_string(),
            visible: false,
            code,
            seq: s.finding.seq,
            detail: said.english(),
            said,
            hint: s.finding.hint.clone(),
            expected: true,
            host_name: None,
        };
    }
    let latest = servers
        .iter()
        .filter_map(|s| s.listing.as_ref().map(|l| l.result))
        .max();
    let lower = name.to_lowercase();
    let mean = tools
        .iter()
        .find(|(f, _)| {
            let t = f.tool.to_lowercase();
            !t.is_empty() && (t == lower || t.contains(&lower) || lower.contains(&t))
        })
        .map_or_else(Said::empty, |(f, _)| {
            Said::new("doctor_detail.did_you_mean").with("tool", &f.tool)
        });
    let said = if servers.is_empty() {
        Said::new("doctor_detail.expected_no_server").with("name", name)
    } else {
        let names: Vec<&str> = tools.iter().map(|(f, _)| f.tool.as_str()).collect();
        let shown: Vec<&str> = names.iter().take(12).copied().collect();
        let more = names.len().saturating_sub(shown.len());
        let more = if more > 0 {
            Said::new("doctor_detail.more").with("count", more)
        } else {
            Said::empty()
        };
        Said::new("doctor_detail.expected_listed")
            .with("name", name)
            .with("list", shown.join(", "))
            .with_said("more", more)
            .with_said("mean", mean)
    };
    ToolFinding {
        server: None,
        tool: name.to_string(),
        visible: false,
        code: Code::ExpectedNotListed,
        seq: latest.map(|r| ctx.seq(r)),
        detail: said.english(),
        said,
        hint: hint(Code::ExpectedNotListed, ""),
        expected: true,
        host_name: None,
    }
}
