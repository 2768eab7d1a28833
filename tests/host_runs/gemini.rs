//! `sightline run --provider gemini`: the weather scenario in the fourth shape, read back by
//! the analysis as a class would see it: `functionDeclarations` in every request, the model's
//! id-less `functionCall` joined to the `tools/call` it caused and to the request that returned
//! its `functionResponse`, and the summary saying so.

use sightline::wire::api::ApiShape;

use super::sightline_run;
use crate::util::repo;

#[test]
fn the_weather_run_in_the_gemini_shape_joins_call_and_tools_call() {
    for stream in [false, true] {
        let mut args = vec!["--provider", "gemini"];
        if stream {
            args.push("--stream");
        }
        let run = sightline_run(&repo("scenarios/weather.toml"), &args, &[]);
        assert!(run.output.status.success(), "{}", run.describe());
        let events = run.events();
        let requests = run.llm_requests();
        assert_eq!(requests.len(), 2, "two model turns");
        for (at, body) in &requests {
            let url = events[*at]
                .http()
                .and_then(|h| h.url.as_deref())
                .unwrap_or_default();
            let method = if stream {
                ":streamGenerateContent?alt=sse"
            } else {
                ":generateContent"
            };
            assert!(
                url.ends_with(&format!("/v1beta/models/scripted{method}")),
                "{url}"
            );
            let declarations = &body["tools"][0]["functionDeclarations"];
            assert_eq!(declarations[0]["name"], "get_weather", "{body}");
            assert_eq!(declarations[0]["parametersJsonSchema"]["type"], "object");
            assert!(
                body.get("model").is_none() && body.get("stream").is_none(),
                "{body}"
            );
        }
        let (_, second) = &requests[1];
        let response = &second["contents"][2]["parts"][0]["functionResponse"];
        assert_eq!(response["name"], "get_weather", "{second}");
        assert_eq!(response["id"], "get_weather#1");
        assert!(
            response["response"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("Seoul")),
            "{response}"
        );

        let report = sightline::analysis::report(events);
        assert!(report.llm.iter().all(|x| x.shape == Some(ApiShape::Gemini)));
        assert!(report.llm.iter().all(|x| x.streamed == stream));
        assert_eq!(report.chains.len(), 1, "{:?}", report.chains);
        let chain = &report.chains[0];
        assert_eq!(
            (chain.call_id.as_str(), chain.tool.as_str()),
            ("get_weather#1", "get_weather")
        );
        let call = chain.tools_call.expect("joined to its tools/call");
        let message: serde_json::Value = serde_json::from_str(&events[call].text()).expect("JSON");
        assert_eq!(message["method"], "tools/call");
        assert_eq!(
            message["params"]["arguments"],
            serde_json::json!({"location": "Seoul"})
        );
        assert!(chain.tools_result.is_some(), "the server's answer");
        assert_eq!(
            chain.returned_in,
            Some(report.llm[1].request),
            "returned in turn 2"
        );

        assert!(
            run.stdout.contains("gemini request: 1 tool [get_weather]"),
            "{}",
            run.stdout
        );
        assert!(!run.stdout.contains("? request"), "{}", run.stdout);
    }
}

/// The recorded Gemini CLI 0.61.0 session: the model's call came without an id, and Gemini CLI
/// wrote an id of its own (`mcp_weather_get_weather_<time>_0`) on the call in its history and
/// on the `functionResponse`; the call still joins the request that returned its result.
#[test]
fn gemini_clis_own_ids_do_not_break_the_join() {
    let session = repo("tests/fixtures/hosts/gemini-cli");
    let loaded = sightline::trace::load(&session).expect("the fixture session loads");
    let report = sightline::analysis::report(&loaded.events);
    assert_eq!(report.llm.len(), 2, "two model turns");
    assert_eq!(report.chains.len(), 1, "{:?}", report.chains);
    let chain = &report.chains[0];
    assert_eq!(chain.call_id, "mcp_weather_get_weather#1");
    assert!(
        chain.tools_call.is_some(),
        "joined to tools/call get_weather"
    );
    assert_eq!(chain.returned_in, Some(report.llm[1].request));
    assert_eq!(report.llm[1].tool_results, ["mcp_weather_get_weather#1"]);
}
