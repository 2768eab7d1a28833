//! The doctor on the remote servers an LLM API connects to itself (Anthropic's MCP connector,
//! OpenAI's `mcp` tools): the host talks to none of them, so no `tools/list` of the trace shows
//! their tools; what the API said does. For each server: the tools its MCP client listed (when
//! the API shows the list), the ones the request allowed (`allowed_tools`), the ones it called,
//! and whether the API can reach it at all (an `http(s)://` URL). Where the trace also
//! recorded the server (behind `proxy --http --api-client`), the list is the one the server
//! really sent the API's client ([`crate::analysis::RemoteChain`]).

use std::fmt::Write as _;

use serde::Serialize;

use super::Ctx;
use crate::i18n::Words;
use crate::wire::remote::{Problem, StepKind};

/// One remote server, as the LLM exchanges of the trace tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteFinding {
    pub server: String,
    pub url: Option<String>,
    /// The last request that declares it.
    pub seq: Option<u64>,
    /// The tools the API's MCP client listed, when an answer shows the list.
    pub listed: Option<Vec<String>>,
    /// The tools the request allows (`allowed_tools`); `None` for all.
    pub allowed: Option<Vec<String>>,
    /// Each tool called, with how many times, in order of first call.
    pub called: Vec<(String, usize)>,
    /// Whether its URL is not `http(s)://`: the API cannot reach it.
    pub unreachable: bool,
}

/// The remote servers of the trace, in order of first mention.
pub(super) fn findings(ctx: &Ctx) -> Vec<RemoteFinding> {
    let mut out: Vec<RemoteFinding> = Vec::new();
    for x in &ctx.report.llm {
        for d in &x.remote_servers {
            let at = match out.iter().position(|f| f.server == d.name) {
                Some(at) => at,
                None => {
                    out.push(RemoteFinding {
                        server: d.name.clone(),
                        url: None,
                        seq: None,
                        listed: None,
                        allowed: None,
                        called: Vec::new(),
                        unreachable: false,
                    });
                    out.len() - 1
                }
            };
            let f = &mut out[at];
            let command = d.command.as_ref().map(|c| {
                let words: Vec<String> = c.split(' ').map(str::to_string).collect();
                crate::wire::redact_url::redact_argv(&words).join(" ")
            });
            f.url = d
                .url
                .as_ref()
                .map(|u| crate::wire::redact_url::redact_url(u).0)
                .or(command);
            f.seq = ctx.events.get(x.request).map(|e| e.seq);
            f.allowed = d.allowed.clone();
            f.unreachable = x
                .remote_problems
                .iter()
                .any(|p| matches!(p, Problem::NotHttp { server, .. } if *server == d.name));
        }
        for step in &x.remote {
            let Some(f) = out
                .iter_mut()
                .find(|f| step.server.as_deref() == Some(f.server.as_str()))
            else {
                continue;
            };
            match step.kind {
                StepKind::List => f.listed = Some(step.tools.clone()),
                StepKind::Call => {
                    let tool = step.tool.clone().unwrap_or_default();
                    match f.called.iter_mut().find(|(t, _)| *t == tool) {
                        Some((_, n)) => *n += 1,
                        None => f.called.push((tool, 1)),
                    }
                }
                _ => {}
            }
        }
    }
    // What the server's own recording lists, where the trace holds it: each list the API's
    // client got (the latest wins), when the answer itself shows none.
    for chain in ctx.report.remote_chains(ctx.events) {
        let x = &ctx.report.llm[chain.exchange];
        let server = x.remote[chain.step].server.as_deref();
        let (Some(f), Some(result)) = (
            out.iter_mut().find(|f| server == Some(f.server.as_str())),
            chain.list_result,
        ) else {
            continue;
        };
        let listed: Option<serde_json::Value> =
            serde_json::from_str(&ctx.events[result].text()).ok();
        let tools = listed
            .as_ref()
            .and_then(|v| v.pointer("/result/tools")?.as_array().cloned());
        let names = tools
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name")?.as_str().map(str::to_string));
        f.listed = Some(names.collect());
    }
    out
}

/// The doctor's lines for the remote servers, in the language of `w`.
pub(super) fn text(out: &mut String, remote: &[RemoteFinding], w: Words) {
    for f in remote {
        let url = f.url.as_deref().unwrap_or("?");
        let seq = f.seq.map_or("?".into(), |s| s.to_string());
        let _ = writeln!(
            out,
            "{}",
            w.fmt(
                "doctor_text.remote_server",
                &[("server", &f.server), ("url", url), ("seq", &seq)]
            )
        );
        if f.unreachable {
            let _ = writeln!(out, "  {}", w.get("doctor_text.remote_unreachable"));
        }
        // Every tool any part names: listed, allowed or called.
        let mut tools: Vec<&str> = Vec::new();
        let named = f.listed.iter().flatten().chain(f.allowed.iter().flatten());
        for t in named.chain(f.called.iter().map(|(t, _)| t)) {
            if !tools.contains(&t.as_str()) {
                tools.push(t);
            }
        }
        if tools.is_empty() {
            let _ = writeln!(out, "  {}", w.get("doctor_text.remote_no_tools"));
        }
        for tool in tools {
            let listed = f.listed.as_ref().map(|l| l.iter().any(|t| t == tool));
            let allowed = f
                .allowed
                .as_ref()
                .is_none_or(|a| a.iter().any(|t| t == tool));
            let called = f.called.iter().find(|(t, _)| t == tool).map_or(0, |c| c.1);
            let key = match (listed, allowed, called) {
                (_, _, n) if n > 0 && !allowed => "doctor_text.remote_called_not_allowed",
                (_, _, n) if n > 0 => "doctor_text.remote_called",
                (_, false, _) => "doctor_text.remote_not_allowed",
                (Some(false), true, _) => "doctor_text.remote_not_listed",
                _ => "doctor_text.remote_not_called",
            };
            let count = called.to_string();
            let _ = writeln!(out, "  {tool}: {}", w.fmt(key, &[("count", &count)]));
        }
    }
}
