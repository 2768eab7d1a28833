//! Which host a trace shows: from what the host itself sends, never from timing.
//!
//! In order: `initialize`'s `params.clientInfo.name` (or `server/discover`'s
//! `_meta["io.modelcontextprotocol/clientInfo"]`), then an LLM request's `user-agent`, then the
//! tools only that host sends ([`crate::wire::offered::Host`]). The first that names a profile
//! wins, with the event that shows it.

use serde_json::Value;

use super::{Profile, profiles};
use crate::analysis::Report;
use crate::trace::{Event, Kind};
use crate::wire::offered::Host;

/// How a host was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// `clientInfo.name` in the handshake.
    ClientInfo,
    /// The LLM request's `user-agent`.
    UserAgent,
    /// The host's own tools in the LLM request.
    Tools,
}

/// A host recognised in a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognised {
    pub profile: &'static Profile,
    pub by: By,
    /// The event that shows it.
    pub seq: u64,
    /// What it said: the `clientInfo.name`, the `user-agent`, the host's tool set.
    pub evidence: String,
    /// The host's version, when its `clientInfo` says it (rules that changed in a version,
    /// such as Claude Code's pagination, need it).
    pub version: Option<String>,
}

fn by_client_name(name: &str) -> Option<&'static Profile> {
    profiles()
        .iter()
        .find(|p| p.client_names.iter().any(|c| c == name))
}

fn by_user_agent(agent: &str) -> Option<&'static Profile> {
    profiles()
        .iter()
        .find(|p| p.user_agents.iter().any(|u| agent.starts_with(u.as_str())))
}

fn by_tools(host: Host) -> Option<&'static Profile> {
    let id = match host {
        Host::ClaudeCode => "claude-code",
        Host::Codex => "codex",
        Host::GeminiCli => "gemini-cli",
    };
    super::find(id)
}

/// The `clientInfo` of a handshake request.
fn client_info(message: &Value) -> Option<&Value> {
    let params = message.get("params")?;
    params.get("clientInfo").or_else(|| {
        params
            .get("_meta")?
            .get("io.modelcontextprotocol/clientInfo")
    })
}

/// The host the trace shows, if a profile knows it.
pub fn recognise(events: &[Event], report: &Report) -> Option<Recognised> {
    for (i, d) in report.rpc.derived.iter().enumerate() {
        let handshake = matches!(d.method.as_deref(), Some("initialize" | "server/discover"));
        if d.kind != Kind::Request || !handshake || !events[i].to.is_server() {
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(&events[i].text()) else {
            continue;
        };
        let info = client_info(&message);
        if let Some(name) = info.and_then(|c| c.get("name")).and_then(Value::as_str)
            && let Some(profile) = by_client_name(name)
        {
            let version = info.and_then(|c| c.get("version")).and_then(Value::as_str);
            return Some(Recognised {
                profile,
                by: By::ClientInfo,
                seq: events[i].seq,
                evidence: name.to_string(),
                version: version.map(str::to_string),
            });
        }
    }
    for x in &report.llm {
        let e = &events[x.request];
        let agent = e.http().and_then(|h| {
            h.headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
                .map(|(_, v)| v.to_string())
        });
        if let Some(agent) = agent
            && let Some(profile) = by_user_agent(&agent)
        {
            return Some(Recognised {
                profile,
                by: By::UserAgent,
                seq: e.seq,
                evidence: agent,
                version: None,
            });
        }
        if let Some(host) = x.offered.host
            && let Some(profile) = by_tools(host)
        {
            return Some(Recognised {
                profile,
                by: By::Tools,
                seq: e.seq,
                evidence: host.as_str().to_string(),
                version: None,
            });
        }
    }
    // Sightline's own host and the doctor's probe name themselves `sightline`: no profile.
    None
}
