//! The tour server in both eras: hidden tool + list_changed, the three "ask the client"
//! tools (server-to-client request on 2025-11-25, MRTR retry on 2026-07-28), progress and
//! logging, resources with subscriptions, and the prompt.

#[allow(deprecated)] // Logging is deprecated by SEP-2577; the tour still shows it.
use rmcp::model::{LoggingLevel, SetLevelRequestParams};
use rmcp::{
    ServiceError,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ErrorCode,
        GetPromptRequestParams, InputRequest, ProtocolVersion, ReadResourceRequestParams,
        RequestMetaObject, ResourceContents, ServerNotification, SubscribeRequestParams,
        SubscriptionFilter,
    },
};
use serde_json::json;

use super::{
    Client, Event, SAMPLED, TestClient, args, call, call_text, connect_legacy, connect_modern,
    first_text, next_event,
};
use crate::servers::tour::{BONUS_TOOL, Tour};

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

#[tokio::test]
async fn unlock_bonus_2025_11_25_sends_list_changed() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Tour::new(), handler).await;
    let info = client.peer_info().expect("initialize result");
    let tools_capability = info.capabilities.tools.as_ref().expect("tools capability");
    assert_eq!(tools_capability.list_changed, Some(true));
    assert!(
        !tool_names(&client)
            .await
            .iter()
            .any(|name| name == BONUS_TOOL)
    );

    call_text(&client, "unlock_bonus", json!({})).await;
    assert_eq!(next_event(&mut events).await, Event::ToolsChanged);
    assert!(
        tool_names(&client)
            .await
            .iter()
            .any(|name| name == BONUS_TOOL)
    );
    assert!(
        call_text(&client, BONUS_TOOL, json!({}))
            .await
            .starts_with("Bonus fact")
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn unlock_bonus_2026_07_28_notifies_the_listen_stream() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Tour::new(), handler).await;
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = client
        .peer()
        .listen(filter)
        .await
        .expect("subscriptions/listen");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    assert!(
        !tool_names(&client)
            .await
            .iter()
            .any(|name| name == BONUS_TOOL)
    );
    let hidden = call(&client, BONUS_TOOL, json!({})).await;
    assert!(hidden.is_err(), "bonus_fact must not be callable yet");

    let text = call_text(&client, "unlock_bonus", json!({})).await;
    assert!(text.contains("1 listen stream"), "{text}");
    let notification = tokio::time::timeout(super::PATIENCE, subscription.next())
        .await
        .expect("a notification in time")
        .expect("an open subscription")
        .expect("a notification");
    assert!(matches!(
        notification,
        ServerNotification::ToolListChangedNotification(_)
    ));
    assert!(
        tool_names(&client)
            .await
            .iter()
            .any(|name| name == BONUS_TOOL)
    );
    subscription
        .cancel()
        .await
        .expect("cancel the listen stream");
    client.cancel().await.expect("close");
}

/// The three tools that need the client, with the events each must cause.
async fn ask_the_client(client: &Client, events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) {
    let summary = call_text(client, "summarize", json!({ "text": "A long text." })).await;
    assert_eq!(summary, format!("Summary by test-model: {SAMPLED}"));
    assert_eq!(next_event(events).await, Event::Sampling);

    let confirmed = call_text(client, "confirm_action", json!({ "action": "delete it" })).await;
    assert_eq!(
        confirmed,
        "Confirmed: delete it (a demo; nothing was done)."
    );
    match next_event(events).await {
        Event::Elicitation(message) => assert!(message.contains("delete it")),
        other => panic!("expected an elicitation, got {other:?}"),
    }

    let roots = call_text(client, "list_workspace", json!({})).await;
    assert_eq!(roots, "Workspace roots:\nfile:///work/demo (demo)");
    assert_eq!(next_event(events).await, Event::Roots);
}

#[tokio::test]
async fn asks_the_client_with_requests_on_2025_11_25() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Tour::new(), handler).await;
    ask_the_client(&client, &mut events).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn asks_the_client_with_mrtr_on_2026_07_28() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Tour::new(), handler).await;

    // One round by hand: the first answer is input_required, not a server request.
    let first = client
        .call_tool_once(
            CallToolRequestParams::new("summarize")
                .with_arguments(args(json!({ "text": "A long text." }))),
        )
        .await
        .expect("tools/call");
    let CallToolResponse::InputRequired(round) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let requests = round.input_requests.expect("inputRequests");
    assert!(matches!(
        requests.get("summary"),
        Some(InputRequest::CreateMessage(_))
    ));
    assert_eq!(
        round.request_state.as_deref(),
        Some("tour/awaiting/summary")
    );
    assert!(
        events.try_recv().is_err(),
        "no server-to-client request on 2026-07-28"
    );

    // rmcp's call_tool fulfils each round through the handler and retries.
    ask_the_client(&client, &mut events).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn missing_client_capability() {
    let none = ClientCapabilities::default();
    let (handler, _events) = TestClient::with_capabilities(ProtocolVersion::V_2026_07_28, none);
    let client = connect_modern(Tour::new(), handler).await;
    match call(&client, "list_workspace", json!({})).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    client.cancel().await.expect("close");

    let none = ClientCapabilities::default();
    let (handler, _events) = TestClient::with_capabilities(ProtocolVersion::V_2025_11_25, none);
    let client = connect_legacy(Tour::new(), handler).await;
    let result = call(&client, "summarize", json!({ "text": "x" }))
        .await
        .expect("a result");
    assert_eq!(result.is_error, Some(true));
    assert!(first_text(&result).contains("`sampling` capability"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn slow_count_reports_progress_and_logs_on_2025_11_25() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Tour::new(), handler).await;
    let text = call_text(&client, "slow_count", json!({ "steps": 2 })).await;
    assert_eq!(text, "Counted to 2.");
    let mut seen = Vec::new();
    for _ in 0..4 {
        seen.push(next_event(&mut events).await);
    }
    assert_eq!(
        seen,
        [
            Event::Progress(1.0),
            Event::Log(json!("slow_count reached 1")),
            Event::Progress(2.0),
            Event::Log(json!("slow_count reached 2")),
        ]
    );
    #[allow(deprecated)] // logging/setLevel is deprecated by SEP-2577; the tour still shows it.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .expect("logging/setLevel");
    call_text(&client, "slow_count", json!({ "steps": 1 })).await;
    assert_eq!(next_event(&mut events).await, Event::Progress(1.0));
    assert!(
        events.try_recv().is_err(),
        "info logs are below the warning level"
    );

    let too_many = call(&client, "slow_count", json!({ "steps": 99 }))
        .await
        .expect("a result");
    assert_eq!(too_many.is_error, Some(true));
    let negative = call(&client, "slow_count", json!({ "steps": -1 }))
        .await
        .expect("a result");
    assert_eq!(negative.is_error, Some(true));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn slow_count_logs_only_with_a_log_level_on_2026_07_28() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Tour::new(), handler).await;
    call_text(&client, "slow_count", json!({ "steps": 1 })).await;
    assert_eq!(next_event(&mut events).await, Event::Progress(1.0));

    let mut meta = RequestMetaObject::new();
    #[allow(deprecated)] // Logging is deprecated by SEP-2577; the tour still shows it.
    meta.set_log_level(LoggingLevel::Debug);
    let mut params =
        CallToolRequestParams::new("slow_count").with_arguments(args(json!({ "steps": 1 })));
    params.meta = Some(meta);
    client.call_tool(params).await.expect("tools/call");
    let mut seen = vec![next_event(&mut events).await, next_event(&mut events).await];
    seen.sort_by_key(|event| matches!(event, Event::Log(_)));
    assert_eq!(
        seen,
        [
            Event::Progress(1.0),
            Event::Log(json!("slow_count reached 1"))
        ]
    );
    assert!(
        events.try_recv().is_err(),
        "the first call must not have logged"
    );
    client.cancel().await.expect("close");
}

fn text_of(contents: &[ResourceContents]) -> &str {
    match contents.first() {
        Some(ResourceContents::TextResourceContents { text, .. }) => text,
        other => panic!("expected text contents, got {other:?}"),
    }
}

#[tokio::test]
async fn resources_and_subscriptions_on_2025_11_25() {
    let (handler, mut events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Tour::new(), handler).await;
    let uris: Vec<String> = (client.list_all_resources().await.expect("resources/list"))
        .into_iter()
        .map(|resource| resource.uri.clone())
        .collect();
    assert_eq!(uris, ["tour://readme", "tour://clock"]);
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("templates/list");
    assert_eq!(templates[0].uri_template, "tour://notes/{name}");
    let readme = client
        .read_resource(ReadResourceRequestParams::new("tour://readme"))
        .await
        .expect("resources/read");
    assert!(text_of(&readme.contents).starts_with("# The Sightline MCP tour"));
    let note = client
        .read_resource(ReadResourceRequestParams::new("tour://notes/day-1"))
        .await
        .expect("resources/read");
    assert!(text_of(&note.contents).contains("day-1"));
    let missing = client
        .read_resource(ReadResourceRequestParams::new("tour://nope"))
        .await;
    assert!(
        matches!(missing, Err(ServiceError::McpError(e)) if e.code == ErrorCode::RESOURCE_NOT_FOUND)
    );

    #[allow(deprecated)] // resources/subscribe is legacy-only, and this is the legacy test.
    client
        .subscribe(SubscribeRequestParams::new("tour://clock"))
        .await
        .expect("resources/subscribe");
    assert_eq!(
        next_event(&mut events).await,
        Event::ResourceUpdated("tour://clock".into())
    );
    let touched = call_text(&client, "touch_resource", json!({ "uri": "tour://clock" })).await;
    assert!(touched.contains("notified 1"), "{touched}");
    assert_eq!(
        next_event(&mut events).await,
        Event::ResourceUpdated("tour://clock".into())
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn resource_updates_on_the_listen_stream_on_2026_07_28() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Tour::new(), handler).await;
    let filter = SubscriptionFilter::builder()
        .resource_subscription("tour://readme")
        .build();
    let mut subscription = client
        .peer()
        .listen(filter)
        .await
        .expect("subscriptions/listen");
    let touched = call_text(&client, "touch_resource", json!({ "uri": "tour://readme" })).await;
    assert!(touched.contains("notified 1"), "{touched}");
    let notification = tokio::time::timeout(super::PATIENCE, subscription.next())
        .await
        .expect("a notification in time")
        .expect("an open subscription")
        .expect("a notification");
    match notification {
        ServerNotification::ResourceUpdatedNotification(update) => {
            assert_eq!(update.params.uri, "tour://readme");
        }
        other => panic!("expected resources/updated, got {other:?}"),
    }
    let missing = client
        .read_resource(ReadResourceRequestParams::new("tour://nope"))
        .await;
    assert!(
        matches!(missing, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS)
    );
    subscription
        .cancel()
        .await
        .expect("cancel the listen stream");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn explain_mcp_prompt() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2026_07_28);
    let client = connect_modern(Tour::new(), handler).await;
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    assert_eq!(prompts[0].name, "explain_mcp");
    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("explain_mcp")
                .with_arguments(args(json!({ "topic": "sampling" }))),
        )
        .await
        .expect("prompts/get");
    let text = &prompt.messages[0].content.as_text().expect("text").text;
    assert!(text.contains("\"sampling\""), "{text}");
    let missing = client
        .get_prompt(GetPromptRequestParams::new("explain_mcp"))
        .await;
    assert!(
        matches!(missing, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS)
    );
    client.cancel().await.expect("close");
}
