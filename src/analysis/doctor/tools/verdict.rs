//! The verdict on one listed tool: sent to the model (under which name, with which problems),
//! or not, and why (dropped by the host, refused by the provider's rules, over a limit), with
//! the hint that goes with it.

use serde_json::Value;

use super::{Judge, Shown, tool_name};
use crate::analysis::LlmExchange;
use crate::analysis::doctor::rules::{
    self, max_tools, name_rule, provider_name, tool_hint, tool_problem,
};
use crate::analysis::doctor::{Code, ToolFinding};
use crate::analysis::narration::drop_reason;
use crate::i18n::{Said, Words};
use crate::wire::catalog::{Entry, Fate};
use crate::wire::convert::{self, ToolRejected};
use crate::wire::offered::Delivery;

impl Judge<'_, '_> {
    pub(super) fn sent(
        &self,
        server: &str,
        tool: &Value,
        shown: &Shown,
        result: usize,
    ) -> ToolFinding {
        let name = tool_name(tool);
        let api_name = shown.api_name.as_str();
        let shape = self.basis.shape();
        let would = self.basis.would_be();
        if let Some((code, problem)) = tool_problem(shape, tool) {
            let key = if would {
                "doctor_detail.problem_would"
            } else {
                "doctor_detail.problem_sent"
            };
            let detail = Said::new(key)
                .with("provider", provider_name(shape))
                .with_said("problem", problem);
            let mut f = self.finding(server, name, code, result, detail);
            if code == Code::ProviderLimit {
                f.hint = Said::new("doctor_hint.shorten");
            }
            return f;
        }
        let count = self
            .last
            .map_or_else(|| self.catalog.api_tools().len(), |x| x.tools.len());
        if let Some(max) = max_tools(shape).filter(|&max| count > max) {
            let key = if would {
                "doctor_detail.too_many_would"
            } else {
                "doctor_detail.too_many_sent"
            };
            let detail = Said::new(key)
                .with("count", count)
                .with("provider", provider_name(shape))
                .with("max", max);
            let at = self.request_or(result);
            let mut f = self.finding(server, name, Code::ProviderLimit, at, detail);
            f.hint = Said::new("doctor_hint.offer_at_most").with("max", max);
            return f;
        }
        let call = self.call_of(server, name);
        let called = call.map_or_else(
            || Said::new("doctor_detail.not_called"),
            |c| Said::new("doctor_detail.called").with("seq", self.ctx.seq(c)),
        );
        if api_name != name {
            let shown = self
                .note(
                    result,
                    &format!("host shows tool `{name}` of server `{server}` to the model as `"),
                )
                .map_or(result, |(i, _)| i);
            let others: Vec<&str> = self
                .lists
                .iter()
                .filter(|(s, tools)| s != server && tools.iter().any(|t| tool_name(t) == name))
                .map(|(s, _)| s.as_str())
                .collect();
            if !others.is_empty() {
                let mut f = self.finding(
                    server,
                    name,
                    Code::DuplicateName,
                    shown,
                    Said::new("doctor_detail.duplicate")
                        .with("count", others.len())
                        .with("others", others.join("`, `"))
                        .with("name", name)
                        .with("api", api_name)
                        .with_said("called", called),
                );
                f.visible = true;
                f.hint = Said::new("doctor_hint.visible_renamed")
                    .with("a", api_name)
                    .with("b", name);
                return f;
            }
            if !convert::valid_name_for(shape, name) {
                let mut f = self.finding(
                    server,
                    name,
                    Code::NameRejected,
                    shown,
                    Said::new("doctor_detail.renamed")
                        .with("name", name)
                        .with("api", api_name)
                        .with_said("rule", name_rule(shape))
                        .with_said("called", called),
                );
                f.visible = true;
                f.hint = Said::new("doctor_hint.rename_keep").with("a", api_name);
                return f;
            }
        }
        let as_name = match (&shown.namespace, api_name == name) {
            (Some(ns), _) => Said::new("doctor_detail.in_namespace").with("namespace", ns),
            (None, true) => Said::empty(),
            (None, false) => Said::new("doctor_detail.as_name").with("name", api_name),
        };
        if shown.delivery != Delivery::Whole
            && let Some(x) = self.last
        {
            return self.on_demand(server, name, x, shown, as_name, call);
        }
        let seen = |sent: &'static str, would: &'static str| match self.last {
            Some(x) => Said::new(sent).with("request", self.ctx.seq(x.request)),
            None => Said::new(would).with("provider", provider_name(shape)),
        };
        match call {
            Some(c) => self.finding(
                server,
                name,
                Code::VisibleCalled,
                c,
                seen("doctor_detail.called_sent", "doctor_detail.called_would")
                    .with_said("as", as_name)
                    .with("seq", self.ctx.seq(c)),
            ),
            None => {
                let at = self.request_or(result);
                self.finding(
                    server,
                    name,
                    Code::VisibleNotCalled,
                    at,
                    seen(
                        "doctor_detail.not_called_sent",
                        "doctor_detail.not_called_would",
                    )
                    .with_said("as", as_name),
                )
            }
        }
    }

    /// A tool the host deferred: its name in the model's context, its schema loaded when the
    /// model searches for it. The proving event is the request that shows the search loaded
    /// it, else the request that names it.
    fn on_demand(
        &self,
        server: &str,
        name: &str,
        x: &LlmExchange,
        shown: &Shown,
        as_name: Said,
        call: Option<usize>,
    ) -> ToolFinding {
        let how = match shown.delivery {
            Delivery::NameOnly => "doctor_detail.deferred_name_only",
            _ => "doctor_detail.deferred_schema",
        };
        let loaded = shown.loaded_in.map_or_else(
            || Said::new("doctor_detail.not_loaded"),
            |l| Said::new("doctor_detail.loaded").with("seq", self.ctx.seq(l)),
        );
        let called = call.map_or_else(
            || Said::new("doctor_detail.not_called"),
            |c| Said::new("doctor_detail.called").with("seq", self.ctx.seq(c)),
        );
        let detail = Said::new("doctor_detail.on_demand")
            .with("request", self.ctx.seq(x.request))
            .with_said("as", as_name)
            .with_said("how", Said::new(how))
            .with_said("loaded", loaded)
            .with_said("called", called);
        let at = shown.loaded_in.unwrap_or(x.request);
        self.finding(server, name, Code::VisibleOnDemand, at, detail)
    }

    /// A listed tool the last request lacks.
    pub(super) fn not_sent(
        &self,
        x: &LlmExchange,
        server: &str,
        tool: &Value,
        entry: Option<&Entry>,
        result: usize,
        note: Option<(usize, String)>,
    ) -> ToolFinding {
        let name = tool_name(tool);
        let request = self.ctx.seq(x.request);
        if let Some((at, why)) = note {
            let code = rules::classify_drop(&why);
            let key = if code == Code::NameRejected {
                "doctor_detail.dropped_name"
            } else {
                "doctor_detail.dropped"
            };
            let detail = Said::new(key)
                .with("request", request)
                .with_said("why", reason(&why))
                .with_said("rule", name_rule(self.basis.shape()));
            let mut f = self.finding(server, name, code, at, detail);
            f.hint = tool_hint(code, server, name, &why);
            return f;
        }
        if let Some(Entry {
            fate: Fate::Dropped(why),
            ..
        }) = entry
        {
            let code = self.structural(entry.expect("matched"), why);
            let detail = Said::new("doctor_detail.no_note")
                .with("request", request)
                .with("provider", provider_name(self.basis.shape()))
                .with_said("why", reason(why));
            let mut f = self.finding(server, name, code, result, detail);
            f.hint = tool_hint(code, server, name, why);
            return f;
        }
        if let Some((code, why)) = tool_problem(self.basis.shape(), tool) {
            let detail = Said::new("doctor_detail.probably")
                .with("request", request)
                .with_said("why", why);
            return self.finding(server, name, code, result, detail);
        }
        let detail = Said::new("doctor_detail.filtered")
            .with("listed", self.ctx.seq(result))
            .with("request", request);
        self.finding(server, name, Code::HostFiltered, x.request, detail)
    }

    /// Without an LLM request: a tool the default host would drop.
    pub(super) fn would_drop(&self, e: &Entry, why: &str, result: usize) -> ToolFinding {
        let code = self.structural(e, why);
        let key = if code == Code::NameRejected {
            "doctor_detail.would_drop_name"
        } else {
            "doctor_detail.would_drop"
        };
        let detail = Said::new(key)
            .with("provider", provider_name(self.basis.shape()))
            .with_said("why", reason(why))
            .with_said("rule", name_rule(self.basis.shape()));
        let mut f = self.finding(&e.server, &e.mcp_name, code, result, detail);
        f.hint = tool_hint(code, &e.server, &e.mcp_name, why);
        f
    }

    /// The code for a catalog entry's drop, from the conversion's own verdict when it has one.
    pub(super) fn structural(&self, e: &Entry, why: &str) -> Code {
        match convert::tool_to_api(self.basis.shape(), &e.tool, &e.api_name) {
            Err(ToolRejected::InvalidName { .. }) => Code::NameRejected,
            Err(_) => Code::SchemaNotObject,
            Ok(_) => rules::classify_drop(why),
        }
    }
}

/// A host's reason for dropping a tool, as the trace recorded it, said in each language.
fn reason(why: &str) -> Said {
    Said::each(|lang| drop_reason(Words::of(lang), why))
}
