//! Both APIs' hosted-MCP shapes, JSON and streamed, from the fixtures the integration tests
//! send through `llm-proxy` (`tests/fixtures/connector/`).

use serde_json::{Value, json};

use super::*;
use crate::wire::api::ApiShape;
use crate::wire::reassemble::read_body;

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../../tests/fixtures/connector/", $name))
    };
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("fixture JSON")
}

/// A request body's servers, its `tools` read as the analysis reads them.
fn declared_in(text: &str) -> Vec<Server> {
    let body = json(text);
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    declared(&body, &tools)
}

#[test]
fn anthropic_connector_servers_and_toolsets_are_read() {
    let servers = declared_in(fixture!("anthropic_request.json"));
    assert_eq!(
        servers,
        [Server {
            name: "weather".into(),
            url: Some("https://weather.example/mcp".into()),
            at: "mcp_servers[0]".into(),
            allowed: Some(vec!["get_weather".into()]),
            approval: None,
            credential: true,
            command: None,
        }]
    );
    let body = json(fixture!("anthropic_request.json"));
    assert!(is_declaration(&body["tools"][0]));
    // The older beta's `tool_configuration.allowed_tools`.
    let old = json!({"mcp_servers": [{"type": "url", "url": "https://a.example/sse", "name": "a",
        "tool_configuration": {"enabled": true, "allowed_tools": ["x", "y"]}}]});
    assert_eq!(
        declared(&old, &[])[0].allowed,
        Some(vec!["x".into(), "y".into()])
    );
}

#[test]
fn anthropic_calls_join_their_results_json_and_streamed_alike() {
    let whole = steps(&json(fixture!("anthropic_response.json")));
    let (streamed, body) = read_body(ApiShape::Anthropic, fixture!("anthropic_stream.sse"));
    assert!(streamed);
    let from_stream = steps(&body.expect("reassembled"));
    assert_eq!(whole, from_stream);
    assert_eq!(whole.len(), 1, "{whole:?}");
    let call = &whole[0];
    assert_eq!(call.kind, StepKind::Call);
    assert_eq!(
        (
            call.id.as_str(),
            call.server.as_deref(),
            call.tool.as_deref()
        ),
        ("mcptoolu_01", Some("weather"), Some("get_weather"))
    );
    assert_eq!(call.arguments, Some(json!({"location": "Seoul"})));
    assert_eq!(call.output.as_deref(), Some("Sunny, 24°C"));
    assert_eq!(
        (call.error.as_deref(), call.at.as_str()),
        (None, "content[1]")
    );
    let servers = declared_in(fixture!("anthropic_request.json"));
    assert!(problems(&servers, &whole).is_empty());
}

#[test]
fn openai_mcp_tools_lists_and_calls_json_and_streamed_alike() {
    let servers = declared_in(fixture!("openai_request.json"));
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].name, "weather");
    assert_eq!(servers[0].at, "tools[0]");
    assert_eq!(servers[0].allowed, Some(vec!["get_weather".into()]));
    assert_eq!(servers[0].approval.as_deref(), Some("never"));
    assert!(servers[0].credential);

    let whole = steps(&json(fixture!("openai_response.json")));
    let (streamed, body) = read_body(ApiShape::Openai, fixture!("openai_stream.sse"));
    assert!(streamed);
    assert_eq!(whole, steps(&body.expect("reassembled")));
    let kinds: Vec<StepKind> = whole.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [StepKind::List, StepKind::Call]);
    assert_eq!(whole[0].tools, ["get_weather"]);
    assert_eq!(whole[1].arguments, Some(json!({"location": "Seoul"})));
    assert_eq!(whole[1].output.as_deref(), Some("Sunny, 24°C"));
    assert!(problems(&servers, &whole).is_empty());
}

#[test]
fn the_approval_round_trip_is_three_steps() {
    let servers = declared_in(fixture!("openai_approval_request.json"));
    assert_eq!(servers[0].approval.as_deref(), Some("always"));
    let asked = steps(&json(fixture!("openai_approval_response.json")));
    assert_eq!(asked[1].kind, StepKind::ApprovalRequest);
    assert_eq!(asked[1].id, "mcpr_01");
    assert_eq!(asked[1].arguments, Some(json!({"location": "Seoul"})));
    let answer = answered(&json(fixture!("openai_approved_request.json")));
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0].kind, StepKind::ApprovalResponse);
    assert_eq!(
        (answer[0].id.as_str(), answer[0].approved),
        ("mcpr_01", Some(true))
    );
    let called = steps(&json(fixture!("openai_approved_response.json")));
    assert_eq!(called[0].kind, StepKind::Call);
    assert_eq!(called[0].answers.as_deref(), Some("mcpr_01"));
}

#[test]
fn bad_blocks_are_kept_and_said() {
    let servers = declared_in(fixture!("anthropic_request.json"));
    let bad = steps(&json(fixture!("anthropic_bad_response.json")));
    let kinds: Vec<StepKind> = bad.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [StepKind::Call, StepKind::Result],
        "both kept: {bad:?}"
    );
    assert_eq!(bad[1].error.as_deref(), Some("unknown tool"));
    assert_eq!(
        problems(&servers, &bad),
        [
            Problem::Undeclared {
                at: "content[0]".into(),
                server: "nowhere".into()
            },
            Problem::ResultWithoutUse {
                at: "content[1]".into(),
                id: "mcptoolu_99".into()
            },
        ]
    );
    // A response naming a server when the request declared none: still said.
    assert_eq!(problems(&[], &bad[..1]).len(), 1);
    // A stdio command where a URL belongs: the connector reaches servers over HTTP only.
    let stdio =
        json!({"mcp_servers": [{"type": "url", "url": "npx -y @acme/server", "name": "local"}]});
    assert_eq!(
        problems(&declared(&stdio, &[]), &[]),
        [Problem::NotHttp {
            at: "mcp_servers[0]".into(),
            server: "local".into()
        }]
    );
}
