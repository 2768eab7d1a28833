//! The summary's words for an LLM API that is itself the MCP client (Anthropic's MCP
//! connector, OpenAI's `mcp` tools): the remote servers a request hands the API, and each list,
//! call and approval its MCP client made, said as the platform's, never the host's or the
//! model's. Apart from [`super::llm`] because the host's tools and these never mix: no
//! `tools/call` of the host's MCP client answers one of these calls.

use super::preview;
use crate::analysis::{LlmExchange, RemoteChain};
use crate::i18n::Words;
use crate::wire::remote::{Problem, Server, StepKind};

/// `; the API itself is the MCP client of weather (https://...; allowed: get_weather; ...)`,
/// the approvals the request answers, and a declared server the API cannot reach; empty for a
/// request that declares none.
pub(super) fn request_part(x: &LlmExchange, words: Words) -> String {
    let mut s = String::new();
    if !x.remote_servers.is_empty() {
        let servers: Vec<String> = x.remote_servers.iter().map(|d| server(d, words)).collect();
        let servers = servers.join(", ");
        s.push_str(&words.fmt("summary.remote_servers", &[("servers", &servers)]));
    }
    for step in x
        .remote
        .iter()
        .filter(|s| s.kind == StepKind::ApprovalResponse)
    {
        let key = match step.approved {
            Some(true) => "summary.remote_approves",
            _ => "summary.remote_refuses",
        };
        s.push_str(&words.fmt(key, &[("id", &step.id)]));
    }
    for p in &x.remote_problems {
        if let Problem::NotHttp { at, server } = p {
            let args = [("at", at.as_str()), ("server", server.as_str())];
            s.push_str("  ");
            s.push_str(&words.fmt("summary.remote_not_http", &args));
        }
    }
    s
}

fn server(d: &Server, words: Words) -> String {
    let mut parts = Vec::new();
    if let Some(url) = &d.url {
        parts.push(crate::wire::redact_url::redact_url(url).0);
    }
    if let Some(command) = &d.command {
        let words: Vec<String> = command.split(' ').map(str::to_string).collect();
        parts.push(crate::wire::redact_url::redact_argv(&words).join(" "));
    }
    if let Some(allowed) = &d.allowed {
        let tools = allowed.join(", ");
        parts.push(words.fmt("summary.remote_allowed", &[("tools", &tools)]));
    }
    if let Some(approval) = &d.approval {
        parts.push(words.fmt("summary.remote_approval", &[("when", approval)]));
    }
    if d.credential {
        parts.push(words.get("summary.remote_credential").to_string());
    }
    let name = match d.name.is_empty() {
        true => "?",
        false => d.name.as_str(),
    };
    match parts.is_empty() {
        true => name.to_string(),
        false => format!("{name} ({})", parts.join("; ")),
    }
}

/// One line per step of the API's MCP client in the response (with the `tools/list` and
/// `tools/call` the server recorded of it, `joins`: [`RemoteChain`]), then what does not add up.
pub(super) fn response_lines(
    x: &LlmExchange,
    joins: &[RemoteChain],
    seq_of: &dyn Fn(usize) -> String,
    words: Words,
) -> Vec<String> {
    let mut out = Vec::new();
    let answer = |step: &crate::wire::remote::Step| match (&step.error, &step.output) {
        (Some(error), _) => words.fmt("summary.remote_error", &[("text", &preview(error, words))]),
        (None, Some(output)) => format!("\"{}\"", preview(output, words)),
        (None, None) => words.get("summary.remote_no_result").to_string(),
    };
    for (k, step) in x
        .remote
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind != StepKind::ApprovalResponse)
    {
        let server = step.server.as_deref().unwrap_or("?");
        let tool = step.tool.as_deref().unwrap_or("?");
        let arguments = step
            .arguments
            .as_ref()
            .map_or_else(String::new, |a| preview(&a.to_string(), words));
        let args = [
            ("server", server),
            ("tool", tool),
            ("arguments", arguments.as_str()),
            ("id", step.id.as_str()),
        ];
        let line = match step.kind {
            StepKind::List => {
                let tools = match &step.error {
                    Some(error) => words.fmt("summary.remote_error", &[("text", error)]),
                    None => step.tools.join(", "),
                };
                let count = step.tools.len().to_string();
                let mut line = words.fmt(
                    "summary.remote_list",
                    &[("server", server), ("count", &count), ("tools", &tools)],
                );
                line.push_str(&joined(joins.iter().find(|j| j.step == k), seq_of, words));
                line
            }
            StepKind::Call => {
                let mut line = words.fmt("summary.remote_call", &args);
                line.push_str(" -> ");
                line.push_str(&answer(step));
                line.push_str(&joined(joins.iter().find(|j| j.step == k), seq_of, words));
                line
            }
            StepKind::ApprovalRequest => words.fmt("summary.remote_approval_request", &args),
            StepKind::Result => format!("{} -> {}", step.at, answer(step)),
            StepKind::ApprovalResponse => continue,
        };
        out.push(line);
    }
    for p in &x.remote_problems {
        let line = match p {
            Problem::Undeclared { at, server } => words.fmt(
                "summary.remote_undeclared",
                &[("at", at.as_str()), ("server", server.as_str())],
            ),
            Problem::ResultWithoutUse { at, id } => words.fmt(
                "summary.remote_orphan",
                &[("at", at.as_str()), ("id", id.as_str())],
            ),
            Problem::NotHttp { .. } => continue,
        };
        out.push(line);
    }
    out
}

/// ` · the server recorded tools/list #4, tools/call #6 -> result #7`, or that the server's
/// recording holds nothing of it; empty where the trace did not record the server.
fn joined(join: Option<&RemoteChain>, seq_of: &dyn Fn(usize) -> String, words: Words) -> String {
    let Some(join) = join.filter(|j| j.recorded) else {
        return String::new();
    };
    if !join.joined() {
        return format!("  {}", words.get("summary.remote_not_received"));
    }
    let mut parts = Vec::new();
    let mut push = |key: &str, at: Option<usize>| {
        if let Some(at) = at {
            parts.push(words.fmt(key, &[("seq", &seq_of(at))]));
        }
    };
    push("summary.remote_recorded_list", join.tools_list);
    push("summary.remote_recorded_call", join.tools_call);
    push(
        "summary.remote_recorded_result",
        join.tools_result
            .or(join.list_result.filter(|_| join.tools_call.is_none())),
    );
    let parts = parts.join(" ");
    format!(
        " {}",
        words.fmt("summary.remote_recorded", &[("parts", &parts)])
    )
}
