//! Bodies shaped as the real hosts sent them (shared/notes/real-hosts-on-the-wire.md).

use serde_json::{Value, json};

use super::anthropic::deferred_names;
use super::naming::{self, Rule};
use super::*;

const DEFERRED_TEXT: &str = "<system-reminder>\nThe following deferred tools are now available via ToolSearch. Their schemas are NOT loaded - calling them directly will fail with InputValidationError. Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:\nmcp__weather__get_weather\n</system-reminder>";

fn cc_tool(name: &str) -> Value {
    json!({"name": name, "description": format!("Claude Code's {name}"),
           "input_schema": {"type": "object", "properties": {}}})
}

/// Claude Code 2.1.328's first request: its own tools, ToolSearch, the placeholder, the MCP
/// tool named in text only.
fn claude_code_first() -> (Value, Vec<Value>) {
    let mut tools: Vec<Value> = [
        "Agent",
        "Bash",
        "Edit",
        "Read",
        "Write",
        "Skill",
        "ToolSearch",
    ]
    .into_iter()
    .map(cc_tool)
    .collect();
    tools.push(
        json!({"name": "DeferredToolPlaceholder", "description": "placeholder",
                      "input_schema": {"type": "object"}, "defer_loading": true}),
    );
    let body = json!({
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
                    "cache_control": {"type": "ephemeral"}},
                   {"type": "text", "text": DEFERRED_TEXT}],
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "What's the weather in Seoul right now?", "cache_control": {"type": "ephemeral"}}]}],
    });
    (body, tools)
}

/// Its next request: the model searched (`ToolSearch`), the host answered with a tool
/// reference, and the tool now rides in `tools` whole, with `defer_loading`.
fn claude_code_second() -> (Value, Vec<Value>) {
    let (mut body, mut tools) = claude_code_first();
    tools.push(json!({"name": "mcp__weather__get_weather", "description": "Get current weather information for a location",
                      "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
                      "defer_loading": true}));
    let messages = body["messages"].as_array_mut().expect("messages");
    messages.push(json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "I need the weather tool.", "signature": "sig"},
        {"type": "redacted_thinking", "data": "xyz"},
        {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "select:mcp__weather__get_weather"}}]}));
    messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1",
         "content": [{"type": "tool_reference", "tool_name": "mcp__weather__get_weather"}]},
        {"type": "brand_new_block", "x": 1}]}));
    (body, tools)
}

#[test]
fn claude_code_tools_are_told_apart() {
    let (body, tools) = claude_code_first();
    let o = read(&body, &tools);
    assert_eq!(o.host, Some(Host::ClaudeCode));
    let host: Vec<&str> = o.of(Kind::Host).map(|t| t.name.as_str()).collect();
    assert_eq!(
        host,
        [
            "Agent",
            "Bash",
            "Edit",
            "Read",
            "Write",
            "Skill",
            "ToolSearch"
        ]
    );
    let placeholder = o
        .find("DeferredToolPlaceholder", None)
        .expect("placeholder");
    assert_eq!(
        (placeholder.kind, placeholder.delivery),
        (Kind::Placeholder, Delivery::Deferred)
    );
    let mcp = o
        .find("mcp__weather__get_weather", None)
        .expect("named in text");
    assert_eq!(
        (mcp.kind, mcp.delivery, mcp.entry),
        (Kind::Mcp, Delivery::NameOnly, None)
    );
    assert!(mcp.named_in_text);
    assert!(o.loaded.is_empty());
    assert_eq!(o.cache_control, 2);
    assert_eq!(o.whole(), 7);
    assert!(o.unknown.is_empty(), "{:?}", o.unknown);
}

#[test]
fn a_tool_search_loads_the_deferred_tool() {
    let (body, tools) = claude_code_second();
    let o = read(&body, &tools);
    let mcp = o.find("mcp__weather__get_weather", None).expect("sent");
    assert_eq!(
        (mcp.delivery, mcp.entry, mcp.named_in_text),
        (Delivery::Deferred, Some(8), true)
    );
    assert_eq!(o.loaded, ["mcp__weather__get_weather"]);
    assert_eq!(o.tools.len(), 9, "one tool, not two: {:?}", o.tools);
    let blocks: Vec<&str> = o.blocks.iter().map(|(k, _)| k.as_str()).collect();
    for kind in [
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "tool_reference",
    ] {
        assert!(blocks.contains(&kind), "{kind} kept: {blocks:?}");
    }
    // Said once, with where and why; nothing else misread.
    assert_eq!(o.unknown.len(), 1, "{:?}", o.unknown);
    assert_eq!(o.unknown[0].at, "messages[2].content[1]");
    assert!(o.unknown[0].why.contains("brand_new_block"));
    assert_eq!(tool_references(&body), ["mcp__weather__get_weather"]);
}

#[test]
fn deferred_names_are_read_one_a_line() {
    assert_eq!(deferred_names(DEFERRED_TEXT), ["mcp__weather__get_weather"]);
    let two = "x The following deferred tools are now available via ToolSearch. Load them:\n\nmcp__a__b\nmcp__c__d\nThat is all.\nmcp__not__this";
    assert_eq!(deferred_names(two), ["mcp__a__b", "mcp__c__d"]);
    assert!(deferred_names("no marker\nmcp__a__b").is_empty());
}

#[test]
fn codex_namespaces_hold_their_members() {
    let tools = vec![
        json!({"type": "function", "name": "exec_command", "parameters": {"type": "object"}}),
        json!({"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}),
        json!({"type": "namespace", "name": "multi_agent_v1", "tools": [
            {"type": "function", "name": "spawn_agent", "parameters": {"type": "object"}}]}),
        json!({"type": "web_search", "external_web_access": false}),
        json!({"type": "namespace", "name": "mcp__weather", "description": "Use get_weather for current conditions only.",
               "tools": [{"type": "function", "name": "get_weather", "strict": false,
                          "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}]}),
    ];
    let body = json!({"model": "gpt-5", "input": [{"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "What's the weather in Seoul right now?"}]}]});
    let o = read(&body, &tools);
    assert_eq!(o.host, Some(Host::Codex));
    let weather = o.find("get_weather", Some("mcp__weather")).expect("member");
    assert_eq!((weather.kind, weather.entry), (Kind::Mcp, Some(4)));
    assert_eq!(
        o.find("spawn_agent", None).map(|t| t.kind),
        Some(Kind::Host)
    );
    assert_eq!(o.find("web_search", None).map(|t| t.kind), Some(Kind::Api));
    assert_eq!(
        o.find("apply_patch", None).map(|t| t.kind),
        Some(Kind::Host)
    );
    assert_eq!(
        o.namespaces,
        [
            (
                "multi_agent_v1".to_string(),
                vec!["spawn_agent".to_string()]
            ),
            ("mcp__weather".to_string(), vec!["get_weather".to_string()]),
        ]
    );
    let response = json!({"output": [
        {"type": "reasoning", "summary": []},
        {"type": "function_call", "namespace": "mcp__weather", "name": "get_weather",
         "call_id": "call_1", "arguments": "{\"location\":\"Seoul\"}"}]});
    assert_eq!(
        calls(&response),
        [Call {
            id: "call_1".into(),
            name: "get_weather".into(),
            namespace: Some("mcp__weather".into()),
            kind: CallKind::Client
        }]
    );
}

#[test]
fn gemini_declarations_and_calls() {
    let tools = vec![json!({"functionDeclarations": [
        {"name": "run_shell_command", "parametersJsonSchema": {"type": "object"}},
        {"name": "mcp_weather_get_weather", "parametersJsonSchema": {"type": "object",
            "properties": {"location": {"type": "string"}, "wait_for_previous": {"type": "boolean"}}}}]})];
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "What's the weather in Seoul right now?"}]}],
                      "systemInstruction": {"parts": [{"text": "You are an interactive CLI agent"}]}});
    let o = read(&body, &tools);
    assert_eq!(o.host, Some(Host::GeminiCli));
    assert_eq!(
        o.find("mcp_weather_get_weather", None).map(|t| t.kind),
        Some(Kind::Mcp)
    );
    assert_eq!(
        o.find("run_shell_command", None).map(|t| t.kind),
        Some(Kind::Host)
    );
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "mcp_weather_get_weather", "args": {"location": "Seoul"}}}]},
        "finishReason": "STOP"}]});
    let c = calls(&response);
    assert_eq!(
        (c[0].name.as_str(), c[0].id.as_str()),
        ("mcp_weather_get_weather", "")
    );
}

#[test]
fn the_apis_own_tools_and_server_calls() {
    let tools = vec![
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}),
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 3}),
        json!({"name": "get_weather", "input_schema": {"type": "object"}, "defer_loading": true}),
        json!(42),
    ];
    let o = read(&json!({"messages": []}), &tools);
    assert_eq!(o.host, None);
    assert_eq!(o.of(Kind::Api).count(), 2);
    let plain = o.find("get_weather", None).expect("plain");
    assert_eq!(
        (plain.kind, plain.delivery),
        (Kind::Plain, Delivery::Deferred)
    );
    assert_eq!(o.unknown.len(), 1);
    let response = json!({"content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {"query": "weather"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}]});
    let c = calls(&response);
    assert_eq!(
        c.iter().map(|c| c.kind).collect::<Vec<_>>(),
        [CallKind::Server, CallKind::Client]
    );
    assert_eq!(tool_references(&response), ["get_weather"]);
}

#[test]
fn each_hosts_naming_rule_joins() {
    assert_eq!(
        naming::rule("mcp__weather__get_weather", None, "weather", "get_weather"),
        Some(Rule::McpPrefix)
    );
    assert_eq!(
        naming::rule("mcp_weather_get_weather", None, "weather", "get_weather"),
        Some(Rule::GeminiPrefix)
    );
    assert_eq!(
        naming::rule(
            "get_weather",
            Some("mcp__weather"),
            "weather",
            "get_weather"
        ),
        Some(Rule::Namespace)
    );
    assert_eq!(
        naming::rule("get_weather", Some("mcp__other"), "weather", "get_weather"),
        None
    );
    assert_eq!(
        naming::rule("weather__get_weather", None, "weather", "get_weather"),
        Some(Rule::ServerPrefix)
    );
    assert_eq!(
        naming::rule("get_weather", None, "weather", "get_weather"),
        Some(Rule::Same)
    );
    assert_eq!(
        naming::rule("weather_lookup", None, "w", "weather.lookup"),
        Some(Rule::Sanitized)
    );
    assert_eq!(
        naming::rule("mcp__weather__get_forecast", None, "weather", "get_weather"),
        None
    );
    assert_eq!(
        naming::rule("mcp__w_x__t", None, "w.x", "t"),
        Some(Rule::McpPrefix)
    );
    // Codex: over 64, the first 24 characters and the SHA-1 of the raw name.
    let long = "get_the_current_weather_conditions_for_any_city_in_the_world";
    let name = naming::codex_name("weather", long);
    assert_eq!(name.len(), 64);
    assert!(name.starts_with("mcp__weather__get_the_cu"));
    assert_eq!(
        naming::rule(&name, None, "weather", long),
        Some(Rule::Hashed)
    );
    // Gemini CLI: over 63, the first 30, `...`, the last 30.
    let name = naming::gemini_name("weather", long);
    assert_eq!(name.len(), 63);
    assert_eq!(&name[..30], "mcp_weather_get_the_current_we");
    assert_eq!(
        naming::rule(&name, None, "weather", long),
        Some(Rule::Truncated)
    );
    assert_eq!(naming::gemini_name("9s", "t x"), "mcp_9s_t_x");
}

#[test]
fn sha1_matches_the_standard_vectors() {
    let hex = |d: [u8; 20]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(
        hex(naming::sha1(b"abc")),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(
        hex(naming::sha1(b"")),
        "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    );
    let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_eq!(
        hex(naming::sha1(long)),
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    );
}

/// Codex 0.169.0 with a model it knows can search: no namespace entry, the namespaces named in a
/// developer text, and its own client-run `tool_search`.
#[test]
fn codex_deferred_namespaces_are_named_in_text() {
    let tools = vec![
        json!({"type": "function", "name": "exec_command", "parameters": {"type": "object"}}),
        json!({"type": "tool_search", "execution": "client", "parameters": {"type": "object"}}),
    ];
    let text = "<tools>\nDeferred tool namespaces:\n- mcp__weather: Use get_weather for current conditions only.\n- multi_agent_v1: Tools for spawning and managing sub-agents.\n</tools>";
    let body = json!({"input": [{"type": "message", "role": "developer",
        "content": [{"type": "input_text", "text": text}]}]});
    let o = read(&body, &tools);
    assert_eq!(
        o.find("tool_search", None).map(|t| t.kind),
        Some(Kind::Host)
    );
    let weather = o
        .find("mcp__weather", Some("mcp__weather"))
        .expect("deferred namespace");
    assert_eq!(
        (weather.kind, weather.delivery),
        (Kind::Mcp, Delivery::NameOnly)
    );
    let agents = o
        .find("multi_agent_v1", Some("multi_agent_v1"))
        .expect("host's namespace");
    assert_eq!(agents.kind, Kind::Host);
    assert_eq!(o.namespaces.len(), 2);
}

/// The model searched through Codex's `tool_search`: its call is the host's to run, and the
/// `tool_search_output` Codex answers with loads the namespace's tools.
#[test]
fn codex_tool_search_output_loads_the_namespace() {
    let body = json!({"input": [
        {"type": "tool_search_call", "call_id": "ts_1", "execution": "client",
         "status": "completed", "arguments": {"query": "weather"}},
        {"type": "tool_search_output", "call_id": "ts_1", "execution": "client",
         "status": "completed", "tools": [
            {"type": "namespace", "name": "mcp__weather", "description": "Use get_weather...",
             "tools": [{"type": "function", "name": "get_weather",
                        "parameters": {"type": "object"}}]},
            {"type": "function", "name": "spawn_agent", "parameters": {"type": "object"}}]}]});
    let o = read(&body, &[]);
    assert_eq!(o.loaded, ["mcp__weather.get_weather", "spawn_agent"]);
    assert!(o.unknown.is_empty(), "{:?}", o.unknown);
    let response = json!({"output": [{"type": "tool_search_call", "call_id": "ts_1",
        "execution": "client", "arguments": {"query": "weather"}}]});
    let c = calls(&response);
    assert_eq!(
        (c[0].id.as_str(), c[0].name.as_str(), c[0].kind),
        ("ts_1", "tool_search", CallKind::Client)
    );
}
