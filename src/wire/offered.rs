//! What a request offers the model: every tool a real host sends, and in which form.
//!
//! A `tools` parameter is not a list of MCP tools. Real hosts send their own tools beside the
//! servers' (Claude Code's `Bash`, `Read`, `ToolSearch`; Codex's `exec_command`,
//! `apply_patch`), the API's own server tools (`web_search_20250305`,
//! `tool_search_tool_regex_20251119`, Responses' `{"type": "web_search"}`), placeholders
//! (`DeferredToolPlaceholder`), tools whose schema the API loads only on demand
//! (`"defer_loading": true`), namespaces holding several tools (`{"type": "namespace", "name":
//! "mcp__weather", "tools": [...]}`), and tools named only in prompt text (Claude Code lists its
//! deferred MCP tools in a text block, "The following deferred tools are now available via
//! ToolSearch"). Reading only `tools[].name` calls a deferred tool invisible, a namespace one
//! tool and a host's built-ins unknown MCP tools. This module reads all of it, by the form of
//! each entry rather than by the API shape, so a shape it does not know yet still reads.
//!
//! - [`read`]: a request body and its `tools` entries into an [`Offered`].
//! - [`calls`]: the model's calls in a response body (with their namespace, and the API's own
//!   `server_tool_use`), and the tools a tool search loaded ([`tool_references`]).
//! - [`changes`]: what a host changed between a server's definition and the model's.
//! - [`naming`]: the hosts' rules for the name the model sees, to join a call to the server's
//!   tool by rule rather than by timing.

use serde_json::Value;

mod anthropic;
mod calls;
mod changes;
pub mod naming;

pub use calls::{Call, CallKind, calls, tool_references};
pub use changes::{Change, changes, definition};

/// The text by which Claude Code introduces the tools it deferred behind `ToolSearch`.
pub const DEFERRED_MARKER: &str = "The following deferred tools are now available via ToolSearch";

/// Where a tool comes from, as far as the request itself tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A tool the host runs itself (Claude Code's `Bash`, Codex's `exec_command`, Gemini CLI's
    /// `run_shell_command`): no MCP server ever sees its calls.
    Host,
    /// A tool the API runs on its side (Anthropic `web_search_*`, `tool_search_tool_*`;
    /// Responses `web_search`, `file_search`): typed by the API, not defined by anyone.
    Api,
    /// An MCP tool, by the host's naming (`mcp__server__tool`, `mcp_server_tool`, or inside an
    /// `mcp__server` namespace).
    Mcp,
    /// A stand-in the host sends where deferred tools will go (`DeferredToolPlaceholder`).
    Placeholder,
    /// A plain function tool of a host this reading does not recognise: an MCP tool under
    /// its own name or a host's tool, which only the servers' `tools/list` can tell apart.
    Plain,
}

/// How much of a tool the model has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Name, description and schema, in context.
    Whole,
    /// Sent with `"defer_loading": true`: the API keeps the schema out of context until a tool
    /// search returns a reference to it.
    Deferred,
    /// Named only in prompt text: the model knows the name; the host sends the schema once
    /// the model searches for it.
    NameOnly,
}

/// One tool the model is offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// The name the model calls it by (inside its namespace when it has one).
    pub name: String,
    /// The namespace it sits in (Responses `{"type": "namespace"}`), if any.
    pub namespace: Option<String>,
    pub kind: Kind,
    pub delivery: Delivery,
    /// Its entry in the `tools` parameter (the namespace's entry for a member); `None` for a
    /// tool named only in text.
    pub entry: Option<usize>,
    /// Whether prompt text names it as deferred (also true when the schema is sent as well).
    pub named_in_text: bool,
}

/// A `tools` entry or a conversation block this reading does not know: kept, and said once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// `tools[3]`, `messages[2].content[1]`.
    pub at: String,
    /// Why it is not read: its type, or what it lacks.
    pub why: String,
}

/// Which host sent a request, told by the tools only it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Host {
    ClaudeCode,
    Codex,
    GeminiCli,
}

impl Host {
    pub fn as_str(self) -> &'static str {
        match self {
            Host::ClaudeCode => "Claude Code",
            Host::Codex => "Codex",
            Host::GeminiCli => "Gemini CLI",
        }
    }
}

/// Everything one request offers the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offered {
    pub tools: Vec<Tool>,
    /// Namespaces, with the names of their members, in order.
    pub namespaces: Vec<(String, Vec<String>)>,
    pub host: Option<Host>,
    /// Tools a tool search loaded, as the conversation shows them (`tool_reference` blocks,
    /// the tools of Codex's `tool_search_output`, a namespace's member as `namespace.tool`),
    /// in order of first mention.
    pub loaded: Vec<String>,
    /// Content block types of the conversation, with how many of each (`thinking`,
    /// `redacted_thinking`, `tool_reference`...), and how many blocks carry `cache_control`.
    pub blocks: Vec<(String, usize)>,
    pub cache_control: usize,
    pub unknown: Vec<Unknown>,
}

impl Offered {
    /// The tool the model calls `name` (inside `namespace`), if offered.
    pub fn find(&self, name: &str, namespace: Option<&str>) -> Option<&Tool> {
        self.tools.iter().find(|t| {
            t.name == name && (namespace.is_none() || t.namespace.as_deref() == namespace)
        })
    }

    /// The tools of one kind.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(move |t| t.kind == kind)
    }

    /// How many tools the model has whole (their schemas in context).
    pub fn whole(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| t.delivery == Delivery::Whole && t.kind != Kind::Placeholder)
            .count()
    }
}

/// Tools Claude Code runs itself (2.1.x).
const CLAUDE_CODE: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillBash",
    "KillShell",
    "LS",
    "ListMcpResourcesTool",
    "MultiEdit",
    "NotebookEdit",
    "Read",
    "ReadMcpResourceTool",
    "Skill",
    "SlashCommand",
    "Task",
    "TaskOutput",
    "TaskStop",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Tools Codex runs itself (0.16x).
const CODEX: &[&str] = &[
    "apply_patch",
    "exec_command",
    "list_mcp_resource_templates",
    "list_mcp_resources",
    "local_shell",
    "read_mcp_resource",
    "request_user_input",
    "shell",
    "update_plan",
    "view_image",
    "web_search",
    "write_stdin",
];

/// Tools Gemini CLI runs itself (0.6x).
const GEMINI_CLI: &[&str] = &[
    "activate_skill",
    "ask_user",
    "codebase_investigator",
    "glob",
    "google_web_search",
    "grep_search",
    "list_directory",
    "read_file",
    "read_many_files",
    "replace",
    "run_shell_command",
    "save_memory",
    "search_file_content",
    "web_fetch",
    "write_file",
    "write_todos",
];

/// The host a tool name belongs to, when it is one of a known host's own.
pub fn host_of(name: &str) -> Option<Host> {
    if CLAUDE_CODE.contains(&name) || name == "DeferredToolPlaceholder" {
        Some(Host::ClaudeCode)
    } else if CODEX.contains(&name) {
        Some(Host::Codex)
    } else if GEMINI_CLI.contains(&name) {
        Some(Host::GeminiCli)
    } else {
        None
    }
}

/// The host that sent these tools, by the tools that only it sends together: a server could
/// list a `read_file` or a `Bash` of its own, so one name is not enough; and `ToolSearch` alone
/// is any deferring host's search tool (Sightline's own, `defer_tools`), not Claude Code's mark.
fn detect_host(tools: &[Tool]) -> Option<Host> {
    let has = |name: &str| {
        tools
            .iter()
            .any(|t| t.name == name && t.kind != Kind::Api && t.namespace.is_none())
    };
    if has("DeferredToolPlaceholder") || (has("Bash") && has("Edit")) {
        Some(Host::ClaudeCode)
    } else if has("exec_command") || has("apply_patch") {
        Some(Host::Codex)
    } else if has("run_shell_command") {
        Some(Host::GeminiCli)
    } else {
        None
    }
}

/// Whether a name has the form hosts give MCP tools: `mcp__server__tool` (Claude Code, Codex)
/// or `mcp_server_tool` (Gemini CLI).
pub fn mcp_named(name: &str) -> bool {
    name.strip_prefix("mcp__")
        .is_some_and(|rest| rest.contains("__"))
        || name
            .strip_prefix("mcp_")
            .is_some_and(|rest| !rest.starts_with('_') && rest.contains('_'))
}

/// Whether a namespace holds a server's tools (`mcp__weather`), not the host's own.
pub fn mcp_namespace(ns: &str) -> bool {
    ns.starts_with("mcp__") || ns.starts_with("mcp_")
}

/// Reads what a request offers: `body` without its `tools` (or with them: they are not read
/// from it), and the `tools` entries as sent.
pub fn read(body: &Value, tools: &[Value]) -> Offered {
    let mut out = Offered::default();
    for (i, entry) in tools.iter().enumerate() {
        read_entry(&mut out, i, entry);
    }
    anthropic::read_conversation(&mut out, body);
    out.host = out.host.or_else(|| detect_host(&out.tools));
    if out.host.is_some() {
        for t in &mut out.tools {
            if t.kind == Kind::Plain {
                t.kind = Kind::Host;
            }
        }
    }
    out
}

fn push(
    out: &mut Offered,
    name: &str,
    namespace: Option<&str>,
    kind: Kind,
    entry: usize,
    deferred: bool,
) {
    let delivery = if deferred {
        Delivery::Deferred
    } else {
        Delivery::Whole
    };
    out.tools.push(Tool {
        name: name.to_string(),
        namespace: namespace.map(str::to_string),
        kind,
        delivery,
        entry: Some(entry),
        named_in_text: false,
    });
}

/// The kind of a function tool by its name alone.
fn kind_by_name(name: &str) -> Kind {
    if name == "DeferredToolPlaceholder" {
        Kind::Placeholder
    } else if mcp_named(name) {
        Kind::Mcp
    } else if host_of(name).is_some() {
        Kind::Host
    } else {
        Kind::Plain
    }
}

fn read_entry(out: &mut Offered, i: usize, entry: &Value) {
    let s = |k: &str| entry.get(k).and_then(Value::as_str);
    let deferred = entry.get("defer_loading").and_then(Value::as_bool) == Some(true);
    let unknown = |out: &mut Offered, why: String| {
        out.unknown.push(Unknown {
            at: format!("tools[{i}]"),
            why,
        })
    };
    if !entry.is_object() {
        return unknown(out, "not a JSON object".into());
    }
    // A remote MCP server the API connects to itself (`mcp`, `mcp_toolset`): not a tool, read
    // by `wire::remote`.
    if super::remote::is_declaration(entry) {
        return;
    }
    // Gemini: `{functionDeclarations: [...]}` (and `googleSearch`, `codeExecution`...).
    if let Some(list) = entry
        .get("functionDeclarations")
        .or_else(|| entry.get("function_declarations"))
        .and_then(Value::as_array)
    {
        for f in list {
            if let Some(name) = f.get("name").and_then(Value::as_str) {
                push(out, name, None, kind_by_name(name), i, false);
            }
        }
        return;
    }
    match (s("type"), s("name")) {
        (Some("namespace"), Some(ns)) => {
            let members = entry.get("tools").and_then(Value::as_array);
            let mut names = Vec::new();
            let kind = match mcp_namespace(ns) {
                true => Kind::Mcp,
                false => Kind::Host,
            };
            for m in members.into_iter().flatten() {
                if let Some(name) = m.get("name").and_then(Value::as_str) {
                    let deferred = m.get("defer_loading").and_then(Value::as_bool) == Some(true);
                    push(out, name, Some(ns), kind, i, deferred);
                    names.push(name.to_string());
                }
            }
            if kind == Kind::Host && out.host.is_none() {
                out.host = Some(Host::Codex);
            }
            out.namespaces.push((ns.to_string(), names));
        }
        // Chat Completions: `{type: "function", function: {name}}`.
        (Some("function"), None) => match entry.pointer("/function/name").and_then(Value::as_str) {
            Some(name) => push(out, name, None, kind_by_name(name), i, deferred),
            None => unknown(out, "a function tool without a name".into()),
        },
        (Some("function" | "custom"), Some(name)) | (None, Some(name)) => {
            push(out, name, None, kind_by_name(name), i, deferred)
        }
        // A tool the API declares but the host runs (Codex's `tool_search`, `"execution":
        // "client"`).
        (Some(kind), name) if s("execution") == Some("client") => {
            push(out, name.unwrap_or(kind), None, Kind::Host, i, deferred)
        }
        // The API's own tools: Anthropic `web_search_20250305` (named), Responses
        // `web_search`, `file_search`, `mcp` (typed only).
        (Some(kind), name) => {
            let name = name.unwrap_or(kind);
            push(out, name, None, Kind::Api, i, deferred);
        }
        (None, None) => unknown(out, "neither a `name` nor a `type`".into()),
    }
}

#[cfg(test)]
mod tests;
