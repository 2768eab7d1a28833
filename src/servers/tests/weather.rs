//! The weather server must look exactly like the seed article's server, in both eras and on
//! the wire.

use rmcp::{ServiceExt, model::ProtocolVersion};
use serde_json::{Value, json};

use super::{
    TestClient, call, call_text, connect_legacy, connect_modern, first_text, spawn_tapped_server,
};
use crate::servers::weather::{INSTRUCTIONS, Weather};

fn article_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "location": { "type": "string" } },
        "required": ["location"],
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

async fn check_tools(client: &super::Client) {
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1);
    let tool = &tools[0];
    assert_eq!(tool.name, "get_weather");
    assert_eq!(
        tool.description.as_deref(),
        Some("Get current weather information for a location")
    );
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        article_schema()
    );
    let text = call_text(client, "get_weather", json!({ "location": "Seoul" })).await;
    assert_eq!(text, "Seoul: 15C, partly cloudy");
}

#[tokio::test]
async fn weather_initialize_2025_11_25() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Weather::new(), handler).await;
    let info = client.peer_info().expect("initialize result");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert_eq!(info.instructions.as_deref(), Some(INSTRUCTIONS));
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("weather", "1.0.0")
    );
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.resources.is_none() && info.capabilities.prompts.is_none());
    check_tools(&client).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn weather_discover_2026_07_28() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Weather::new(), handler).await;
    let info = client.peer_info().expect("discover result");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(info.instructions.as_deref(), Some(INSTRUCTIONS));
    let server = info.server_info.as_ref().expect("serverInfo in _meta");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("weather", "1.0.0")
    );
    check_tools(&client).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn weather_rejects_a_call_without_location() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Weather::new(), handler).await;
    let result = call(&client, "get_weather", json!({ "city": "Seoul" }))
        .await
        .expect("a tool result, not a protocol error");
    assert_eq!(result.is_error, Some(true));
    assert!(first_text(&result).contains("location"));
    client.cancel().await.expect("close");
}

/// The exact lines of a 2025-11-25 session, client lines as rmcp 3.11 writes them.
#[tokio::test]
async fn weather_wire_lines_2025_11_25() {
    let (client_end, log) = spawn_tapped_server(Weather::new());
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = handler.serve(client_end).await.expect("initialize");
    client.list_all_tools().await.expect("tools/list");
    let text = call_text(&client, "get_weather", json!({ "location": "Seoul" })).await;
    assert_eq!(text, "Seoul: 15C, partly cloudy");
    client.cancel().await.expect("close");

    let lines = log.lock().expect("wire log").clone();
    for line in &lines {
        eprintln!("{line}");
    }
    let expected_server_lines = [
        r#"S->C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"weather","version":"1.0.0"},"instructions":"Use get_weather for current conditions only."}}"#,
        r#"S->C {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_weather","description":"Get current weather information for a location","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"$schema":"http://json-schema.org/draft-07/schema#"}}]}}"#,
        r#"S->C {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Seoul: 15C, partly cloudy"}],"isError":false}}"#,
    ];
    let server_lines: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .filter(|line| line.starts_with("S->C"))
        .collect();
    assert_eq!(server_lines, expected_server_lines);
    let methods: Vec<Option<String>> = lines
        .iter()
        .filter_map(|line| line.strip_prefix("C->S "))
        .map(|json| serde_json::from_str::<Value>(json).expect("client line is JSON"))
        .map(|message| message["method"].as_str().map(str::to_owned))
        .collect();
    let expected = [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ];
    assert_eq!(methods, expected.map(|m| Some(m.to_owned())));
    assert!(lines[0].contains(r#""protocolVersion":"2025-11-25""#));
}
