//! The weather loop, in order, for each provider shape; and how the OpenAI shapes carry a
//! tool's image and error.

use serde_json::Value;
use sightline::host::scenario::Scenario;
use sightline::trace::{Channel, Lane};
use sightline::wire::api::ApiShape;
use sightline::wire::convert;

use super::bodies::{answer_text, is_sse, llm_body, model_calls, stop_reason};
use super::{
    Run, assert_no_model_server_traffic, host_to_server, is_llm_request, is_llm_response,
    next_after, server_to_host, sightline_run, stdio_json,
};
use crate::util::repo;

#[test]
fn weather_loop_in_order_for_each_provider_shape() {
    let scenario_path = repo("scenarios/weather.toml");
    let scenario = Scenario::load(&scenario_path).expect("scenarios/weather.toml loads");
    let cases = [
        ("scripted", ApiShape::Anthropic, false),
        ("openai", ApiShape::Openai, false),
        ("openai-chat", ApiShape::OpenaiChat, false),
        ("gemini", ApiShape::Gemini, false),
        ("scripted", ApiShape::Anthropic, true),
        ("gemini", ApiShape::Gemini, true),
    ];
    for (provider, shape, stream) in cases {
        let mut args = vec!["--provider", provider, "--no-summary"];
        if stream {
            args.push("--stream");
        }
        let what = format!(
            "weather --provider {provider}{}",
            if stream { " --stream" } else { "" }
        );
        let run = sightline_run(&scenario_path, &args, &[]);
        assert!(run.output.status.success(), "{what}: {}", run.describe());
        check_weather_loop(&run, shape, stream, scenario.prompt.as_str(), &what);
    }
}

fn check_weather_loop(run: &Run, shape: ApiShape, stream: bool, prompt: &str, what: &str) {
    let events = run.events();
    let server = Lane::server("weather");

    // user -> host: the prompt.
    let prompt_at = events
        .iter()
        .position(|e| {
            e.channel == Channel::Note
                && e.from == Lane::User
                && e.to == Lane::Host
                && e.text() == prompt
        })
        .unwrap_or_else(|| panic!("{what}: no user -> host note with the prompt"));

    // The tools/list the server answered: what the model must see.
    let (list_at, list_request) = run
        .requests("tools/list", false)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{what}: the host never sent tools/list"));
    let list_result_at = run
        .answer_of(list_at)
        .unwrap_or_else(|| panic!("{what}: tools/list (#{list_at}) has no paired response"));
    let list_result = stdio_json(&events[list_result_at]).expect("tools/list result is JSON");
    assert_eq!(events[list_result_at].from, server, "{what}");
    assert_eq!(list_result["id"], list_request["id"], "{what}: paired ids");
    let listed = list_result["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: tools/list result has no tools: {list_result}"));
    let expected_tools: Vec<Value> = listed
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("tool name");
            convert::tool_to_api(shape, tool, name).expect("weather tools are valid")
        })
        .collect();

    // host -> llm: the first request, with exactly the converted tools.
    let request_at = next_after(run, prompt_at, is_llm_request)
        .unwrap_or_else(|| panic!("{what}: no LLM request after the prompt"));
    assert!(
        list_result_at < request_at,
        "{what}: the LLM request (#{request_at}) precedes the tools/list result (#{list_result_at})"
    );
    let request = llm_body(&events[request_at]);
    // Gemini's functions are the declarations of one tool object.
    let sent_tools = match shape {
        ApiShape::Gemini => &request["tools"][0]["functionDeclarations"],
        _ => &request["tools"],
    };
    assert_eq!(
        sent_tools,
        &Value::Array(expected_tools),
        "{what}: the request's tools are not tool_to_api of the listed tools"
    );

    // llm -> host: the tool call.
    let reply_at = next_after(run, request_at, is_llm_response)
        .unwrap_or_else(|| panic!("{what}: no LLM response after #{request_at}"));
    let reply_text = events[reply_at].text();
    if stream {
        assert!(
            is_sse(&reply_text),
            "{what}: the streamed response is not SSE: {:.120}",
            reply_text
        );
    } else {
        assert!(
            serde_json::from_str::<Value>(&reply_text).is_ok(),
            "{what}: the response is not a JSON body: {:.120}",
            reply_text
        );
    }
    let reply = llm_body(&events[reply_at]);
    let calls = model_calls(shape, &reply);
    assert_eq!(calls.len(), 1, "{what}: expected one tool call in {reply}");
    let call = &calls[0];
    assert_eq!(call.name, "get_weather", "{what}");
    assert!(!call.id.is_empty(), "{what}: the tool call has no id");
    assert!(call.arguments.is_object(), "{what}: arguments {call:?}");

    // host -> server: tools/call with the model's arguments.
    let call_at = next_after(run, reply_at, |e| {
        host_to_server(e)
            && stdio_json(e).is_some_and(|m| m["method"] == "tools/call" && m.get("id").is_some())
    })
    .unwrap_or_else(|| panic!("{what}: no tools/call after the model's answer #{reply_at}"));
    assert_eq!(events[call_at].to, server, "{what}");
    let call_message = stdio_json(&events[call_at]).expect("tools/call is JSON");
    assert_eq!(call_message["params"]["name"], "get_weather", "{what}");
    assert_eq!(
        call_message["params"]["arguments"], call.arguments,
        "{what}: tools/call arguments differ from the model's"
    );

    // server -> host: its result.
    let result_at = next_after(run, call_at, |e| {
        server_to_host(e)
            && stdio_json(e)
                .is_some_and(|m| m["id"] == call_message["id"] && m.get("result").is_some())
    })
    .unwrap_or_else(|| panic!("{what}: no result for tools/call #{call_at}"));
    assert_eq!(events[result_at].from, server, "{what}");

    // host -> llm: the tool result under the same call id.
    let second_at = next_after(run, result_at, is_llm_request)
        .unwrap_or_else(|| panic!("{what}: no LLM request after the tool result #{result_at}"));
    let second = llm_body(&events[second_at]);
    assert_eq!(
        convert::tool_result_ids_in_request(shape, &second),
        vec![call.id.clone()],
        "{what}: the second request does not return the result for call {}",
        call.id
    );

    // llm -> host: the final answer.
    let final_at = next_after(run, second_at, is_llm_response)
        .unwrap_or_else(|| panic!("{what}: no final LLM response"));
    if stream {
        assert!(
            is_sse(&events[final_at].text()),
            "{what}: final response not SSE"
        );
    }
    let final_body = llm_body(&events[final_at]);
    let expected_stop = match shape {
        ApiShape::Anthropic => "end_turn",
        ApiShape::Openai => "completed",
        ApiShape::OpenaiChat => "stop",
        ApiShape::Gemini => "STOP",
    };
    assert_eq!(stop_reason(shape, &final_body), expected_stop, "{what}");
    assert!(
        model_calls(shape, &final_body).is_empty(),
        "{what}: the final answer still calls tools"
    );
    let answer = answer_text(shape, &final_body);
    assert!(answer.contains("Seoul"), "{what}: answer {answer:?}");

    // The narration names the stop field of this shape, and for OpenAI that `arguments`
    // is a JSON string the host parses.
    let report = sightline::analysis::report(events);
    let strings = sightline::i18n::Strings::embedded();
    let say = |i| {
        sightline::analysis::narration::narrate(
            events,
            &report,
            i,
            &strings,
            sightline::i18n::Language::En,
        )
    };
    // What the SDK adds: `$schema` in the listed schema, in the model's tools entry, named.
    let dialect = "http://json-schema.org/draft-07/schema#";
    assert_eq!(
        list_result["result"]["tools"][0]["inputSchema"]["$schema"], dialect,
        "{what}"
    );
    let listed = say(list_result_at);
    assert!(
        listed.contains(&format!("carries $schema ({dialect})")),
        "{what}: {listed}"
    );
    let field = shape.stop_field();
    let asks = say(reply_at);
    assert!(
        asks.contains(&format!("stops with {field} ")),
        "{what}: {asks}"
    );
    assert_eq!(
        asks.contains("arguments arrive as a JSON string"),
        shape.arguments_are_a_string(),
        "{what}: {asks}"
    );
    let ends = say(final_at);
    assert!(
        ends.contains(&format!("stops with {field} {expected_stop}")),
        "{what}: {ends}"
    );

    // host -> user: the answer.
    let note_at = next_after(run, final_at, |e| {
        e.channel == Channel::Note && e.from == Lane::Host && e.to == Lane::User
    })
    .unwrap_or_else(|| panic!("{what}: no host -> user note after the final answer"));
    assert_eq!(events[note_at].text(), answer, "{what}");
    assert!(
        run.stdout.contains(&format!("): {answer}")),
        "{what}: stdout does not show the answer:\n{}",
        run.stdout
    );

    assert_eq!(run.llm_requests().len(), 2, "{what}: two model turns");
    assert_no_model_server_traffic(run, what);
}

/// The scenario's explanation says how each shape carries an image and an error; keep it true:
/// Responses gets an `input_image`, Chat a description, and neither OpenAI shape an error flag
/// (the error is text starting with `Error`).
#[test]
fn tool_error_and_image_convert_as_the_explanation_says_for_openai_shapes() {
    let path = repo("scenarios/tool-error-and-image.toml");
    for (provider, image_as) in [("openai", "input_image"), ("openai-chat", "[image: ")] {
        let run = sightline_run(&path, &["--provider", provider], &[]);
        assert!(run.output.status.success(), "{}", run.describe());
        let requests = run.llm_requests();
        let (_, second) = requests.get(1).expect("a second LLM request");
        let outputs: Vec<String> = match provider {
            "openai" => second["input"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|item| item["type"] == "function_call_output")
                .map(|item| item["output"].to_string())
                .collect(),
            _ => second["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].to_string())
                .collect(),
        };
        assert_eq!(outputs.len(), 2, "{provider}: {second}");
        assert!(
            outputs.iter().any(|o| o.contains(image_as)),
            "{provider}: the image is not carried as {image_as}: {outputs:?}"
        );
        assert!(
            outputs.iter().any(|o| o.starts_with("\"Error")),
            "{provider}: the error is not text starting with Error: {outputs:?}"
        );
        assert!(
            !second.to_string().contains("is_error"),
            "{provider}: {second}"
        );
    }
    let text = std::fs::read_to_string(&path).expect("scenario");
    assert!(
        text.contains("input_image") && text.contains("no error flag"),
        "{text}"
    );
}
