//! The tools real hosts send, told truthfully through the CLI: traces written event by event
//! in the shapes Claude Code 2.1.328 and Codex 0.169.0 sent (shared/notes/
//! real-hosts-on-the-wire.md), read by `sightline doctor` and `sightline summary`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util;

const LIMIT: Duration = Duration::from_secs(60);

/// The seed article's weather server, as its `tools/list` lists it.
fn get_weather() -> Value {
    json!({"name": "get_weather", "description": "Get current weather information for a location",
           "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}})
}

/// A trace being written: one event a line, `seq` counting from 0.
#[derive(Default)]
struct Trace {
    lines: Vec<String>,
}

impl Trace {
    fn event(
        &mut self,
        from: &str,
        to: &str,
        channel: &str,
        raw: &Value,
        http: Option<Value>,
    ) -> u64 {
        let seq = self.lines.len() as u64;
        let mut e = json!({"seq": seq, "time": format!("2026-12-06T12:00:{:02}.000000Z", seq),
                           "from": from, "to": to, "channel": channel, "raw": raw.to_string()});
        if let Some(http) = http {
            e["http"] = http;
        }
        self.lines.push(e.to_string());
        seq
    }

    /// The MCP half every host did: initialize, initialized, tools/list (answered).
    fn handshake(&mut self) {
        let s = "server:weather";
        self.event("host", s, "stdio", &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}}), None);
        self.event(
            s,
            "host",
            "stdio",
            &json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "weather", "version": "1.0.0"}}}),
            None,
        );
        self.event(
            "host",
            s,
            "stdio",
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
        );
        self.event(
            "host",
            s,
            "stdio",
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            None,
        );
        self.event(
            s,
            "host",
            "stdio",
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [get_weather()]}}),
            None,
        );
    }

    fn request(&mut self, path: &str, body: &Value) -> u64 {
        let http = json!({"method": "POST", "url": format!("http://127.0.0.1:9/{}", path.trim_start_matches('/'))});
        self.event("host", "llm", "llm-http", body, Some(http))
    }

    fn response(&mut self, body: &Value) -> u64 {
        self.event(
            "llm",
            "host",
            "llm-http",
            body,
            Some(json!({"status": 200})),
        )
    }

    /// `tools/call get_weather` and its answer: the seq of the call.
    fn tools_call(&mut self, id: u64) -> u64 {
        let s = "server:weather";
        let call = self.event(
            "host",
            s,
            "stdio",
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"location": "Seoul"}}}),
            None,
        );
        self.event(
            s,
            "host",
            "stdio",
            &json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": "Seoul: 21°C, clear"}]}}),
            None,
        );
        call
    }

    fn write(&self, path: &Path) {
        let header = json!({"sightline_trace": 1, "created": "2026-12-06T12:00:00Z", "sightline_version": "0.1.0"});
        let mut text = header.to_string();
        for l in &self.lines {
            text.push('\n');
            text.push_str(l);
        }
        text.push('\n');
        std::fs::write(path, text).expect("write trace");
    }
}

const DEFERRED: &str = "<system-reminder>\nThe following deferred tools are now available via ToolSearch. Their schemas are NOT loaded - calling them directly will fail with InputValidationError. Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:\nmcp__weather__get_weather\n</system-reminder>";

fn cc_tools(loaded: bool) -> Vec<Value> {
    let mut tools: Vec<Value> = ["Agent", "Bash", "Edit", "Read", "Write", "Skill", "ToolSearch"]
        .iter()
        .map(|n| json!({"name": n, "description": format!("Claude Code's {n}"), "input_schema": {"type": "object"}}))
        .collect();
    tools.push(json!({"name": "DeferredToolPlaceholder", "description": "placeholder", "input_schema": {"type": "object"}, "defer_loading": true}));
    if loaded {
        tools.push(json!({"name": "mcp__weather__get_weather", "description": "Get current weather information for a location",
            "input_schema": get_weather()["inputSchema"], "defer_loading": true}));
    }
    tools
}

/// Claude Code's session: the tool deferred, searched for with ToolSearch, loaded by a tool
/// reference, called. Returns the trace and the seqs of (the loading request, the tools/call,
/// the last request).
fn claude_code(dir: &Path) -> (std::path::PathBuf, u64, u64, u64) {
    let mut t = Trace::default();
    t.handshake();
    let system = json!([{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.", "cache_control": {"type": "ephemeral"}},
                        {"type": "text", "text": DEFERRED}]);
    let mut messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "What's the weather in Seoul right now?"}]}),
    ];
    let body = |tools: Vec<Value>, messages: &[Value]| {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": false,
        "system": system, "tools": tools, "messages": messages})
    };
    t.request("/v1/messages", &body(cc_tools(false), &messages));
    let search = json!([{"type": "thinking", "thinking": "Load the weather tool.", "signature": "s"},
        {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "select:mcp__weather__get_weather"}}]);
    t.response(&json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": search, "stop_reason": "tool_use"}));
    messages.push(json!({"role": "assistant", "content": search}));
    messages.push(
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
        "content": [{"type": "tool_reference", "tool_name": "mcp__weather__get_weather"}]}]}),
    );
    let loading = t.request("/v1/messages", &body(cc_tools(true), &messages));
    let call = json!([{"type": "tool_use", "id": "toolu_2", "name": "mcp__weather__get_weather", "input": {"location": "Seoul"}}]);
    t.response(&json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "m", "content": call, "stop_reason": "tool_use"}));
    let tools_call = t.tools_call(2);
    messages.push(json!({"role": "assistant", "content": call}));
    messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "Seoul: 21°C, clear"}]}));
    let last = t.request("/v1/messages", &body(cc_tools(true), &messages));
    t.response(&json!({"id": "msg_3", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": "It is 21°C and clear in Seoul."}], "stop_reason": "end_turn"}));
    // A side call with no tools (Claude Code titles its sessions) judges nothing.
    t.request("/v1/messages", &json!({"model": "claude-haiku-4-5", "max_tokens": 512,
        "messages": [{"role": "user", "content": "Write a title for: What's the weather in Seoul right now?"}]}));
    t.response(
        &json!({"id": "msg_4", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": "Seoul weather"}], "stop_reason": "end_turn"}),
    );
    let path = dir.join("claude-code.jsonl");
    t.write(&path);
    (path, loading, tools_call, last)
}

/// Codex's session: the MCP tool inside the `mcp__weather` namespace, called in it.
fn codex(dir: &Path) -> (std::path::PathBuf, u64, u64) {
    let mut t = Trace::default();
    t.handshake();
    let tools = json!([
        {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
        {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}},
        {"type": "web_search"},
        {"type": "namespace", "name": "mcp__weather", "description": "weather server",
         "tools": [{"type": "function", "name": "get_weather", "strict": false, "parameters": get_weather()["inputSchema"]}]}]);
    let user = json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "What's the weather in Seoul right now?"}]});
    t.request(
        "/v1/responses",
        &json!({"model": "gpt-5", "tools": tools, "input": [user]}),
    );
    let call = json!({"type": "function_call", "namespace": "mcp__weather", "name": "get_weather", "call_id": "call_1", "arguments": "{\"location\":\"Seoul\"}"});
    t.response(&json!({"id": "resp_1", "status": "completed", "output": [call]}));
    let tools_call = t.tools_call(2);
    let back = json!({"type": "function_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "Seoul: 21°C, clear"}]});
    let last = t.request(
        "/v1/responses",
        &json!({"model": "gpt-5", "tools": tools, "input": [user, call, back]}),
    );
    t.response(&json!({"id": "resp_2", "status": "completed", "output": [{"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "21°C and clear."}]}]}));
    let path = dir.join("codex.jsonl");
    t.write(&path);
    (path, tools_call, last)
}

/// Gemini CLI's session: `mcp_weather_get_weather` declared with `parametersJsonSchema` and
/// the property the host adds, called by a `functionCall` part without an id.
fn gemini_cli(dir: &Path) -> (std::path::PathBuf, u64, u64) {
    let mut t = Trace::default();
    t.handshake();
    let mut schema = get_weather()["inputSchema"].clone();
    schema["properties"]["wait_for_previous"] = json!({"type": "boolean"});
    let tools = json!([{"functionDeclarations": [
        {"name": "run_shell_command", "description": "Runs a shell command", "parametersJsonSchema": {"type": "object"}},
        {"name": "mcp_weather_get_weather", "description": "Get current weather information for a location",
         "parametersJsonSchema": schema}]}]);
    let user =
        json!({"role": "user", "parts": [{"text": "What's the weather in Seoul right now?"}]});
    let path = "/v1beta/models/gemini-2.5-flash:generateContent";
    t.request(path, &json!({"contents": [user], "tools": tools}));
    let call = json!({"role": "model", "parts": [{"functionCall": {"name": "mcp_weather_get_weather", "args": {"location": "Seoul"}}}]});
    t.response(&json!({"candidates": [{"content": call, "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash"}));
    let tools_call = t.tools_call(2);
    let back = json!({"role": "user", "parts": [{"functionResponse": {"name": "mcp_weather_get_weather",
        "response": {"output": "Seoul: 21°C, clear"}}}]});
    let last = t.request(
        path,
        &json!({"contents": [user, call, back], "tools": tools}),
    );
    t.response(&json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "21°C and clear."}]},
        "finishReason": "STOP"}]}));
    let path = dir.join("gemini-cli.jsonl");
    t.write(&path);
    (path, tools_call, last)
}

fn sightline(args: &[&str]) -> (Option<i32>, String) {
    let out = util::run(Command::new(util::bin()).args(args).env("LANG", "C"), LIMIT);
    let stdout = util::text(&out.stdout);
    (out.status.code(), stdout + &util::text(&out.stderr))
}

/// `sightline doctor TRACE`, which must exit 0: its output and the line on get_weather.
fn verdict(trace: &str) -> (String, String) {
    let (status, out) = sightline(&["doctor", trace]);
    assert_eq!(status, Some(0), "{out}");
    let line = out.lines().find(|l| l.contains("weather/get_weather"));
    let line = line
        .unwrap_or_else(|| panic!("no verdict: {out}"))
        .to_string();
    (out, line)
}

#[test]
fn claude_codes_deferred_tool_is_visible_on_demand() {
    let dir = util::tempdir();
    let (trace, loading, tools_call, last) = claude_code(dir.path());
    let trace = trace.display().to_string();
    let (out, line) = verdict(&trace);
    assert!(
        line.contains(&format!("visible-on-demand  #{loading}")),
        "{line}"
    );
    assert!(line.contains("as `mcp__weather__get_weather`"), "{line}");
    assert!(
        line.contains(&format!("last LLM request (#{last})")),
        "{line}"
    );
    assert!(
        line.contains(&format!("a tool search loaded its schema (#{loading})")),
        "{line}"
    );
    assert!(
        line.contains(&format!("tools/call #{tools_call}")),
        "{line}"
    );
    assert!(!out.contains("host-filtered"), "{out}");

    let (status, out) = sightline(&["summary", &trace]);
    assert_eq!(status, Some(0), "{out}");
    assert!(!out.contains("listed but not sent"), "{out}");
    assert!(
        out.contains("deferred: mcp__weather__get_weather (name only, schema not loaded yet)"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "mcp__weather__get_weather (schema loaded by a search, #{loading})"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "ToolSearch [toolu_1] -> run by the host itself (no MCP server); result in #{loading}"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("-> tools/call #{tools_call}")),
        "{out}"
    );
}

/// The diagram says the ToolSearch call is the host's own step, not an unsent call.
#[test]
fn the_diagram_says_the_host_ran_toolsearch() {
    let dir = util::tempdir();
    let (trace, ..) = claude_code(dir.path());
    let trace = trace.display().to_string();
    let (status, out) = sightline(&["export", &trace, "--format", "mermaid"]);
    assert_eq!(status, Some(0), "{out}");
    let row = out.lines().find(|l| l.contains("tool_use ToolSearch"));
    let row = row.unwrap_or_else(|| panic!("no ToolSearch row: {out}"));
    assert!(
        row.contains("toolu_1: ToolSearch run by the host itself, no MCP server"),
        "{row}"
    );
    assert!(!row.contains("error returned"), "{row}");
}

#[test]
fn codexs_namespaced_tool_is_visible_under_its_namespace() {
    let dir = util::tempdir();
    let (trace, tools_call, last) = codex(dir.path());
    let trace = trace.display().to_string();
    let (_, line) = verdict(&trace);
    assert!(
        line.contains(&format!("visible-called  #{tools_call}")),
        "{line}"
    );
    assert!(line.contains("inside namespace `mcp__weather`"), "{line}");
    assert!(line.contains(&format!("(#{last})")), "{line}");

    let (status, out) = sightline(&["summary", &trace]);
    assert_eq!(status, Some(0), "{out}");
    assert!(!out.contains("listed but not sent"), "{out}");
    assert!(out.contains("mcp__weather.get_weather"), "{out}");
    assert!(
        out.contains(&format!("get_weather [call_1] -> tools/call #{tools_call}")),
        "{out}"
    );
}

#[test]
fn gemini_clis_renamed_tool_is_visible_under_its_new_name() {
    let dir = util::tempdir();
    let (trace, tools_call, last) = gemini_cli(dir.path());
    let trace = trace.display().to_string();
    let (_, line) = verdict(&trace);
    assert!(
        line.contains(&format!("visible-called  #{tools_call}")),
        "{line}"
    );
    assert!(line.contains("as `mcp_weather_get_weather`"), "{line}");
    assert!(line.contains(&format!("(#{last})")), "{line}");

    let (status, out) = sightline(&["summary", &trace]);
    assert_eq!(status, Some(0), "{out}");
    assert!(!out.contains("listed but not sent"), "{out}");
    assert!(
        out.contains("`get_weather` shown as `mcp_weather_get_weather`"),
        "{out}"
    );
    assert!(
        out.contains(&format!("-> tools/call #{tools_call}")),
        "{out}"
    );
}

/// Codex with a model it knows can search (the recorded fixture): the MCP namespace named in
/// a developer text only, its tool visible on demand, exit 0.
#[test]
fn codexs_deferred_namespace_is_visible_on_demand() {
    let trace = util::repo("tests/fixtures/hosts/codex-tool-search");
    let (_, line) = verdict(&trace.display().to_string());
    assert!(line.contains("visible-on-demand"), "{line}");
    assert!(line.contains("inside namespace `mcp__weather`"), "{line}");
}

/// A recorded host's user and its own tool runs are drawn though no event records them: the
/// user's words from the host's first request, once, just above it; Claude Code's ToolSearch
/// as a note on the Host lane, with what it searched for.
#[test]
fn a_recorded_hosts_diagram_shows_its_user_and_its_own_steps() {
    for host in ["claude-code", "codex", "gemini-cli"] {
        let session = util::repo("tests/fixtures/hosts").join(host);
        let session = session.display().to_string();
        let (status, out) = sightline(&["export", &session, "--format", "mermaid"]);
        assert_eq!(status, Some(0), "{host}: {out}");
        let asked = "U->>H: What's the weather in Seoul right now?";
        assert_eq!(out.matches("U->>H:").count(), 1, "{host}: {out}");
        let (Some(ask), Some(request)) = (out.find(asked), out.find("H->>L:")) else {
            panic!("{host}: no user's words or no request: {out}");
        };
        assert!(
            ask < request,
            "{host}: the words come after the request: {out}"
        );
        let searched = out.lines().find(|l| l.contains("Note over H: ToolSearch"));
        match host {
            "claude-code" => {
                let line = searched.unwrap_or_else(|| panic!("no ToolSearch note: {out}"));
                assert!(line.contains("get_weather"), "{line}");
            }
            _ => assert_eq!(searched, None, "{host}: {out}"),
        }
    }
}
