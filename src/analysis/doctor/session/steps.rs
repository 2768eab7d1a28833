//! The steps of a session that can fail after the spawn, judged in order: the handshake
//! (`initialize` or `server/discover`: its revision, its `tools` capability), the last
//! `tools/list` and its pages, and a `list_changed` left unanswered afterwards.

use serde_json::Value;

use super::{Listed, Listing, Server, Session, str_at};
use crate::analysis::doctor::Code;
use crate::analysis::doctor::rules;
use crate::analysis::explain::INITIALIZE_REVISIONS;
use crate::analysis::narration::unanswered_reason;
use crate::i18n::{Said, Words};

impl Session<'_, '_> {
    /// The handshake's result index and whether it advertises tools, or the failure.
    pub(super) fn handshake(
        &self,
        h: usize,
        notes: &mut Vec<Said>,
    ) -> Result<(usize, bool), Box<Server>> {
        let ctx = self.ctx;
        let method = ctx.report.rpc.derived[h].method.clone().unwrap_or_default();
        let request = ctx.json(h).unwrap_or_default();
        let asked = if &*method == "initialize" {
            str_at(&request, "/params/protocolVersion")
        } else {
            request
                .pointer("/params/_meta")
                .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
                .and_then(Value::as_str)
        }
        .unwrap_or("?")
        .to_string();
        let Some(r) = ctx.answer(h) else {
            if let Some(exit) = self.crash_during(h) {
                return Err(Box::new(
                    self.crashed(exit, Said::plain(method.to_string())),
                ));
            }
            let detail = Said::new("doctor_server.never_answered")
                .with("method", &*method)
                .with("seq", ctx.seq(h))
                .with_said("reason", self.unanswered_reason(h));
            return Err(Box::new(self.failed(Code::HandshakeFailed, h, detail)));
        };
        let answer = ctx.json(r).unwrap_or_default();
        if let Some(error) = answer.get("error") {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            let supported = error.pointer("/data/supported").and_then(Value::as_array);
            if code == -32022 || (code == -32602 && supported.is_some()) {
                let list = supported.map_or_else(
                    || Said::new("doctor_server.no_list"),
                    |s| Said::plain(s.iter().map(rules::plain).collect::<Vec<_>>().join(", ")),
                );
                let detail = Said::new("doctor_server.version_refused")
                    .with("asked", &asked)
                    .with("method", &*method)
                    .with("code", code)
                    .with("message", format!("{message:?}"))
                    .with_said("list", list);
                return Err(Box::new(self.failed(
                    Code::ProtocolVersionRefused,
                    r,
                    detail,
                )));
            }
            let detail = Said::new("doctor_server.handshake_error")
                .with("method", &*method)
                .with("code", code)
                .with("message", format!("{message:?}"));
            return Err(Box::new(self.failed(Code::HandshakeFailed, r, detail)));
        }
        let result = answer.get("result").cloned().unwrap_or_default();
        if &*method == "initialize" {
            let got = result.get("protocolVersion");
            match got.and_then(Value::as_str) {
                Some(v) if v == asked => {}
                Some(v) if INITIALIZE_REVISIONS.contains(&v) => notes.push(
                    Said::new("doctor_detail.revision_answered")
                        .with("asked", &asked)
                        .with("answered", v),
                ),
                _ => {
                    let detail = match got {
                        Some(got) => Said::new("doctor_server.unknown_revision")
                            .with("got", rules::plain(got)),
                        None => Said::new("doctor_server.no_revision"),
                    }
                    .with("asked", &asked)
                    .with("known", INITIALIZE_REVISIONS.join(", "));
                    return Err(Box::new(self.failed(
                        Code::ProtocolVersionRefused,
                        r,
                        detail,
                    )));
                }
            }
        } else if let Some(versions) = result.get("supportedVersions").and_then(Value::as_array)
            && !versions.iter().any(|v| v.as_str() == Some(asked.as_str()))
        {
            let list: Vec<String> = versions.iter().map(rules::plain).collect();
            let detail = Said::new("doctor_server.discover_lists")
                .with("asked", &asked)
                .with("list", list.join(", "));
            return Err(Box::new(self.failed(
                Code::ProtocolVersionRefused,
                r,
                detail,
            )));
        }
        let tools = result
            .get("capabilities")
            .and_then(Value::as_object)
            .is_some_and(|c| c.contains_key("tools"));
        Ok((r, tools))
    }

    pub(super) fn unanswered_reason(&self, req: usize) -> Said {
        if let Some(n) = self.gave_up(req) {
            return Said::new("doctor_server.host_stopped_waiting")
                .with("text", format!("{:?}", self.ctx.events[n].text()))
                .with("seq", self.ctx.seq(n));
        }
        match &self.ctx.report.rpc.derived[req].pairing {
            crate::trace::Pairing::Unanswered(why) => {
                Said::each(|lang| unanswered_reason(Words::of(lang), why))
            }
            crate::trace::Pairing::Cancelled(seq) => {
                Said::new("doctor_server.host_cancelled").with("seq", seq)
            }
            _ => Said::new("doctor_server.no_response"),
        }
    }

    pub(super) fn no_tools(&self, result: usize, then: Said) -> Server {
        let detail = Said::new("doctor_server.no_tools")
            .with("seq", self.ctx.seq(result))
            .with_said("then", then);
        self.failed(Code::NoToolsCapability, result, detail)
    }

    /// What went wrong with the last `tools/list` (`None` when it succeeded).
    pub(super) fn list_outcome(&self, last: usize, no_tools: Option<usize>) -> Option<Server> {
        let ctx = self.ctx;
        let Some(r) = ctx.answer(last) else {
            if let Some(exit) = self.crash_during(last) {
                let list = Said::plain(format!("tools/list (#{})", ctx.seq(last)));
                return Some(self.crashed(exit, list));
            }
            let detail = Said::new("doctor_server.never_answered")
                .with("method", "tools/list")
                .with("seq", ctx.seq(last))
                .with_said("reason", self.unanswered_reason(last));
            return Some(self.failed(Code::ToolsListError, last, detail));
        };
        let answer = ctx.json(r).unwrap_or_default();
        if let Some(error) = answer.get("error") {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            let what = Said::new("doctor_server.list_error")
                .with("code", code)
                .with("message", format!("{message:?}"))
                .with("seq", ctx.seq(r));
            if let Some(result) = no_tools {
                return Some(self.no_tools(result, what));
            }
            return Some(self.failed(Code::ToolsListError, r, what));
        }
        if answer
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .is_none()
        {
            let detail = Said::new("doctor_server.no_tools_array").with("seq", ctx.seq(r));
            return Some(self.failed(Code::ToolsListError, r, detail));
        }
        None
    }

    /// The tools of the last listing: a `tools/list` without a cursor starts one, each page
    /// with a cursor adds to it; a listing none of whose pages was answered does not count.
    /// Each tool keeps its page and the result that listed it. Read from the end: a trace
    /// that lists its tools again and again has only its last listing's messages read.
    pub(super) fn listing(&self, lists: &[usize]) -> Option<Listing> {
        let ctx = self.ctx;
        let mut end = lists.len();
        while end > 0 {
            // This listing starts at the last request before `end` without a cursor (the
            // pages before the first such request make one of their own).
            let mut start = end - 1;
            while start > 0 {
                let request = ctx.json(lists[start]).unwrap_or_default();
                if request.pointer("/params/cursor").is_none() {
                    break;
                }
                start -= 1;
            }
            let mut listing: Option<Listing> = None;
            for &t in &lists[start..end] {
                let page = ctx.answer(t).and_then(|r| {
                    let result = ctx.json(r)?.get("result")?.clone();
                    let tools = result.get("tools")?.as_array()?.clone();
                    let more = result.get("nextCursor").is_some_and(|c| !c.is_null());
                    Some((tools, r, more))
                });
                if let Some((tools, r, more)) = page {
                    let entry = listing.get_or_insert_with(|| Listing {
                        result: r,
                        ..Listing::default()
                    });
                    let page = entry.pages.len();
                    entry.pages.push(r);
                    entry
                        .tools
                        .extend(tools.into_iter().map(|tool| Listed { tool, page, at: r }));
                    entry.result = r;
                    entry.more = more;
                }
            }
            if listing.is_some() {
                return listing;
            }
            end = start;
        }
        None
    }

    /// A `list_changed` after the listing's result and before the cut, with no new listing.
    pub(super) fn stale(&self, result: usize) -> Option<(usize, Said)> {
        let ctx = self.ctx;
        let limit = self.end.min(ctx.cut);
        let at = self
            .ix
            .list_changed
            .iter()
            .copied()
            .find(|&i| i > result && i < limit)?;
        let ignored = self
            .host_notes(at + 1..limit)
            .find(|&i| ctx.events[i].text().contains("list_changed"));
        let before = if ctx.cut < ctx.events.len() {
            Said::new("doctor_detail.stale_before").with("seq", ctx.seq(ctx.cut))
        } else {
            Said::new("doctor_detail.stale_end")
        };
        let stale = Said::new("doctor_detail.stale")
            .with("seq", ctx.seq(at))
            .with_said("before", before);
        let detail = match ignored {
            Some(n) => {
                let says = Said::new("doctor_detail.host_says")
                    .with("text", format!("{:?}", ctx.events[n].text()))
                    .with("seq", ctx.seq(n));
                Said::new("").with_said("a", stale).with_said("b", says)
            }
            None => stale,
        };
        Some((at, detail))
    }
}
