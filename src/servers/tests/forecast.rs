//! The forecast server: a `get_weather` with the weather server's name and schema but another
//! meaning.

use rmcp::model::ProtocolVersion;
use serde_json::json;

use super::{TestClient, call, call_text, connect_legacy};
use crate::servers::{
    forecast::{Forecast, INSTRUCTIONS},
    weather::Weather,
};

#[tokio::test]
async fn forecast_get_weather_2025_11_25() {
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let client = connect_legacy(Forecast::new(), handler).await;
    let info = client.peer_info().expect("initialize result");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(server.name, "forecast");
    assert_eq!(info.instructions.as_deref(), Some(INSTRUCTIONS));

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["get_forecast", "get_weather"]);

    // Same name and schema as the weather server's tool, different description.
    let (handler, _events) = TestClient::new(ProtocolVersion::V_2025_11_25);
    let weather = connect_legacy(Weather::new(), handler).await;
    let theirs = weather.list_all_tools().await.expect("tools/list");
    weather.cancel().await.expect("close");
    assert_eq!(tools[1].name, theirs[0].name);
    assert_eq!(tools[1].input_schema, theirs[0].input_schema);
    assert_eq!(
        tools[1].description.as_deref(),
        Some("Get the weather forecast for the next 3 days for a location")
    );

    let lisbon = json!({ "location": "Lisbon" });
    assert_eq!(
        call_text(&client, "get_weather", lisbon).await,
        "Lisbon: tomorrow 17C sunny, then rain"
    );
    let three = json!({ "location": "Lisbon", "days": 3 });
    assert_eq!(
        call_text(&client, "get_forecast", three).await,
        "Lisbon: tomorrow 17C sunny, then 14C rain, then 12C rain"
    );
    for days in [json!(0), json!(8), json!(-1), json!("two")] {
        let result = call(
            &client,
            "get_forecast",
            json!({ "location": "X", "days": days }),
        )
        .await
        .expect("a tool result");
        assert_eq!(result.is_error, Some(true), "days = {days}");
    }
    client.cancel().await.expect("close");
}
