//! The oddly named tools: listed exactly as named, and each one callable.

use rmcp::model::ProtocolVersion;
use serde_json::json;

use super::{TestClient, call, call_text, connect_legacy};
use crate::servers::oddnames::{
    DOTTED, FIXED_TIME, INSTRUCTIONS, LONG, OddNames, SPACED, TIME, provider_accepts,
};

#[tokio::test]
async fn oddnames_tools_2025_11_25() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(OddNames::new(), handler).await;
    let info = client.peer_info().expect("initialize result");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(server.name, "oddnames");
    assert_eq!(info.instructions.as_deref(), Some(INSTRUCTIONS));

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "weather.lookup",
            "get forecast",
            "get_current_weather_conditions_including_humidity_and_winds_for_a_city",
            "get_time",
        ]
    );
    assert_eq!(LONG.len(), 70);
    let accepted: Vec<bool> = names.iter().map(|name| provider_accepts(name)).collect();
    assert_eq!(accepted, [false, false, false, true]);
    assert!(provider_accepts(&"a".repeat(64)) && !provider_accepts(""));

    assert_eq!(call_text(&client, TIME, json!({})).await, FIXED_TIME);
    assert_eq!(FIXED_TIME, "12:00 UTC");
    let oslo = json!({ "city": "Oslo" });
    assert_eq!(
        call_text(&client, DOTTED, oslo.clone()).await,
        "Oslo: 15C, partly cloudy"
    );
    assert_eq!(
        call_text(&client, SPACED, oslo.clone()).await,
        "Oslo: tomorrow 17C sunny"
    );
    assert_eq!(
        call_text(&client, LONG, oslo).await,
        "Oslo: 15C, partly cloudy, humidity 60%, wind 10 km/h"
    );
    let missing = call(&client, DOTTED, json!({ "town": "Oslo" }))
        .await
        .expect("a result");
    assert_eq!(missing.is_error, Some(true));
    assert!(call(&client, "weather_lookup", json!({})).await.is_err());
    client.cancel().await.expect("close");
}
