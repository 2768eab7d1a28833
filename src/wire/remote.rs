//! When the LLM API is itself the MCP client: the remote servers a request hands the API, and
//! what the API's own MCP client did with them, as the request and the response tell it.
//!
//! Two APIs do it. Anthropic's MCP connector (beta header `anthropic-beta: mcp-client-...`):
//! the request's `mcp_servers` (`{type: "url", url, name, authorization_token,
//! tool_configuration: {enabled, allowed_tools}}`) and, since `mcp-client-2025-11-20`, an
//! `{"type": "mcp_toolset", "mcp_server_name", "default_config", "configs"}` entry in `tools`
//! per server; the answer holds `mcp_tool_use` blocks (`id`, `name`, `server_name`, `input`)
//! and `mcp_tool_result` blocks (`tool_use_id`, `is_error`, `content`). OpenAI Responses: a
//! `{"type": "mcp", server_label, server_url, allowed_tools, require_approval, headers}` tool;
//! the output holds `mcp_list_tools` (`server_label`, `tools`, `error`), `mcp_call` (`name`,
//! `arguments` as JSON text, `output`, `error`, `approval_request_id`) and
//! `mcp_approval_request` items; the host answers the last with an `mcp_approval_response`
//! input item (`approval_request_id`, `approve`). Streamed answers are read once reassembled
//! ([`super::reassemble`]: a `mcp_tool_use` block's input arrives as `input_json_delta`; a
//! Responses stream ends with the whole response).
//!
//! The model still never talks to a server: the platform's MCP client does, and only tools
//! cross (the connector supports tool calls only). Nothing here is dropped: a block naming a
//! server the request never declared, or a result without its call, is a [`Step`] like the
//! others, with a [`Problem`] beside it.

use serde_json::Value;

/// A remote MCP server a request asks the API to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// `name` (Anthropic) or `server_label` (OpenAI): what the calls name it by.
    pub name: String,
    pub url: Option<String>,
    /// A local server's command line, when the entry names one rather than a URL (a desktop
    /// host's `command` and `args`, pasted in): the APIs refuse it.
    pub command: Option<String>,
    /// Where the request declares it: `mcp_servers[0]`, `tools[2]`.
    pub at: String,
    /// The tools the API may use, when the request narrows them (`allowed_tools`, a toolset
    /// whose default is disabled and whose `configs` enable some).
    pub allowed: Option<Vec<String>>,
    /// OpenAI's `require_approval`: `never`, `always`, or `per tool` (an object).
    pub approval: Option<String>,
    /// Whether the request hands the API a credential for it (recorded as `[redacted]`).
    pub credential: bool,
}

/// What the API's MCP client did, one step of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// `tools/list` (OpenAI's `mcp_list_tools`).
    List,
    /// `tools/call` (Anthropic's `mcp_tool_use` and its `mcp_tool_result`; OpenAI's
    /// `mcp_call`).
    Call,
    /// The API asks the host to approve a call before it makes it (`mcp_approval_request`).
    ApprovalRequest,
    /// The host's answer to one, in its next request (`mcp_approval_response`).
    ApprovalResponse,
    /// An `mcp_tool_result` whose `mcp_tool_use` the answer does not hold: kept, said.
    Result,
}

/// One step of the API's MCP client, in the order the body holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub kind: StepKind,
    /// The block's or item's `id` (an approval response's `approval_request_id`; an orphan
    /// result's `tool_use_id`).
    pub id: String,
    pub server: Option<String>,
    pub tool: Option<String>,
    /// A list's tool names.
    pub tools: Vec<String>,
    /// A call's arguments, parsed (OpenAI sends them as JSON text).
    pub arguments: Option<Value>,
    /// A call's result as text (the text blocks joined), when it came back.
    pub output: Option<String>,
    /// The error a list or call reported (`is_error` results say their output).
    pub error: Option<String>,
    /// An approval response's answer.
    pub approved: Option<bool>,
    /// The approval request a call or an approval response answers.
    pub answers: Option<String>,
    /// Where the body holds it: `content[2]`, `output[0]`, `input[3]`.
    pub at: String,
}

impl Step {
    fn new(kind: StepKind, at: String) -> Step {
        Step {
            kind,
            id: String::new(),
            server: None,
            tool: None,
            tools: Vec::new(),
            arguments: None,
            output: None,
            error: None,
            approved: None,
            answers: None,
            at,
        }
    }
}

/// What does not add up between the servers declared and the steps taken; the step is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A step names a server the request never declared.
    Undeclared { at: String, server: String },
    /// An `mcp_tool_result` without its `mcp_tool_use`.
    ResultWithoutUse { at: String, id: String },
    /// A declared server whose URL is not `http(s)://` (a file path, a `stdio:` URL) or that
    /// names a local command: the APIs reach remote servers over HTTP only.
    NotHttp { at: String, server: String },
}

/// Whether a `tools` entry declares a remote server rather than a tool (`mcp`,
/// `mcp_toolset`): the model sees the server's tools, not this entry.
pub fn is_declaration(entry: &Value) -> bool {
    matches!(
        entry.get("type").and_then(Value::as_str),
        Some("mcp" | "mcp_toolset")
    )
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn names(list: Option<&Value>) -> Option<Vec<String>> {
    let list = list?.as_array()?;
    Some(
        list.iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
    )
}

/// The remote servers a request declares: `mcp_servers` of `body`, `mcp` and `mcp_toolset`
/// entries of `tools` (an Anthropic toolset narrows the server it names).
pub fn declared(body: &Value, tools: &[Value]) -> Vec<Server> {
    let mut out = Vec::new();
    let servers = body.get("mcp_servers").and_then(Value::as_array);
    for (i, server) in servers.into_iter().flatten().enumerate() {
        let config = server.get("tool_configuration");
        out.push(Server {
            name: s(server, "name").unwrap_or_default().to_string(),
            url: s(server, "url").map(str::to_string),
            command: command_of(server),
            at: format!("mcp_servers[{i}]"),
            allowed: names(config.and_then(|c| c.get("allowed_tools"))),
            approval: None,
            credential: server.get("authorization_token").is_some(),
        });
    }
    for (i, entry) in tools.iter().enumerate() {
        match s(entry, "type") {
            Some("mcp") => {
                let allowed = entry.get("allowed_tools");
                let allowed = names(allowed).or_else(|| names(allowed?.get("tool_names")));
                let approval = entry.get("require_approval").map(|a| match a {
                    Value::String(text) => text.clone(),
                    _ => "per tool".to_string(),
                });
                let credential = entry.get("authorization").is_some()
                    || entry
                        .get("headers")
                        .and_then(Value::as_object)
                        .is_some_and(|h| !h.is_empty());
                out.push(Server {
                    name: s(entry, "server_label").unwrap_or_default().to_string(),
                    // An OpenAI connector (`connector_id`) has no URL to show.
                    url: s(entry, "server_url").map(str::to_string),
                    command: command_of(entry),
                    at: format!("tools[{i}]"),
                    allowed,
                    approval,
                    credential,
                });
            }
            Some("mcp_toolset") => {
                let Some(name) = s(entry, "mcp_server_name") else {
                    continue;
                };
                let default_off = entry.pointer("/default_config/enabled") == Some(&false.into());
                let configs = entry.get("configs").and_then(Value::as_object);
                let enabled: Vec<String> = configs
                    .into_iter()
                    .flatten()
                    .filter(|(_, c)| c.get("enabled") == Some(&true.into()))
                    .map(|(tool, _)| tool.clone())
                    .collect();
                if let Some(server) = out.iter_mut().find(|srv| srv.name == name)
                    && default_off
                {
                    server.allowed = Some(enabled);
                }
            }
            _ => {}
        }
    }
    out
}

/// `command args...` of an entry that names a local command.
fn command_of(entry: &Value) -> Option<String> {
    let command = s(entry, "command")?;
    let args = entry
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let words = std::iter::once(command).chain(args.filter_map(Value::as_str));
    Some(words.collect::<Vec<_>>().join(" "))
}

/// The text of a result's `content`: a string, or its text blocks joined.
fn text_of(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter_map(|b| s(b, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// The error an OpenAI item reports (`error`: a string or an object with a `message`).
fn error_of(item: &Value) -> Option<String> {
    match item.get("error")? {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(s(other, "message").map_or_else(|| other.to_string(), str::to_string)),
    }
}

/// The steps of the API's MCP client in a (reassembled) response body, in order: Anthropic
/// `content` blocks (each `mcp_tool_result` joined to its `mcp_tool_use`), Responses `output`
/// items. Also reads a request's `input` (the items a host sends back, approval responses
/// among them) with [`answered`].
pub fn steps(body: &Value) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let content = body.get("content").and_then(Value::as_array);
    for (i, block) in content.into_iter().flatten().enumerate() {
        let at = format!("content[{i}]");
        match s(block, "type") {
            Some("mcp_tool_use") => {
                let mut step = Step::new(StepKind::Call, at);
                step.id = s(block, "id").unwrap_or_default().to_string();
                step.server = s(block, "server_name").map(str::to_string);
                step.tool = s(block, "name").map(str::to_string);
                step.arguments = block.get("input").cloned();
                out.push(step);
            }
            Some("mcp_tool_result") => {
                let id = s(block, "tool_use_id").unwrap_or_default();
                let output = text_of(block.get("content"));
                let error = (block.get("is_error") == Some(&true.into()))
                    .then(|| output.clone().unwrap_or_default());
                let called = out
                    .iter_mut()
                    .find(|c| c.kind == StepKind::Call && c.id == id && c.output.is_none());
                match called {
                    Some(call) => {
                        call.output = output;
                        call.error = error;
                    }
                    None => {
                        let mut step = Step::new(StepKind::Result, at);
                        step.id = id.to_string();
                        step.output = output;
                        step.error = error;
                        out.push(step);
                    }
                }
            }
            _ => {}
        }
    }
    out.extend(items(body.get("output"), "output"));
    out
}

/// The approval responses (and any earlier MCP items) a Responses request sends back in its
/// `input`.
pub fn answered(body: &Value) -> Vec<Step> {
    items(body.get("input"), "input")
}

fn items(list: Option<&Value>, field: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let list = list.and_then(Value::as_array);
    for (i, item) in list.into_iter().flatten().enumerate() {
        let at = format!("{field}[{i}]");
        let kind = match s(item, "type") {
            Some("mcp_list_tools") => StepKind::List,
            Some("mcp_call") => StepKind::Call,
            Some("mcp_approval_request") => StepKind::ApprovalRequest,
            Some("mcp_approval_response") => StepKind::ApprovalResponse,
            _ => continue,
        };
        let mut step = Step::new(kind, at);
        step.id = s(item, "id").unwrap_or_default().to_string();
        step.server = s(item, "server_label").map(str::to_string);
        step.tool = s(item, "name").map(str::to_string);
        step.arguments = match item.get("arguments") {
            Some(Value::String(text)) => serde_json::from_str(text)
                .ok()
                .or_else(|| Some(Value::String(text.clone()))),
            other => other.cloned(),
        };
        step.output = s(item, "output").map(str::to_string);
        step.error = error_of(item);
        step.answers = s(item, "approval_request_id").map(str::to_string);
        if kind == StepKind::List {
            let tools = item.get("tools").and_then(Value::as_array);
            step.tools = tools
                .into_iter()
                .flatten()
                .filter_map(|t| s(t, "name").map(str::to_string))
                .collect();
        }
        if kind == StepKind::ApprovalResponse {
            step.id = step.answers.clone().unwrap_or_default();
            step.approved = item.get("approve").and_then(Value::as_bool);
        }
        out.push(step);
    }
    out
}

/// What does not add up: steps naming a server `servers` (the request's) does not hold,
/// results without their call, servers without an HTTP URL.
pub fn problems(servers: &[Server], steps: &[Step]) -> Vec<Problem> {
    let mut out = Vec::new();
    for server in servers {
        let http = |url: &str| url.starts_with("http://") || url.starts_with("https://");
        let local = match server.url.as_deref() {
            Some(url) => !http(url),
            None => server.command.is_some(),
        };
        if local {
            out.push(Problem::NotHttp {
                at: server.at.clone(),
                server: server.name.clone(),
            });
        }
    }
    for step in steps {
        if step.kind == StepKind::Result {
            out.push(Problem::ResultWithoutUse {
                at: step.at.clone(),
                id: step.id.clone(),
            });
        }
        if let Some(server) = &step.server
            && !servers.iter().any(|d| &d.name == server)
        {
            out.push(Problem::Undeclared {
                at: step.at.clone(),
                server: server.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
