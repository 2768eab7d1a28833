//! The one fact each shipped scenario exists to show, checked on its run; a failed check is an
//! `Err` naming what is wrong, so one run reports every problem.

use serde_json::Value;
use sightline::trace::{Lane, Pairing};
use sightline::wire::api::ApiShape;
use sightline::wire::convert;

use super::bodies::{answer_text, description_of, llm_body, model_calls};
use super::{Run, host_to_server, is_llm_request, is_llm_response, stdio_json};

/// `_meta` key naming the revision of a 2026-07-28 request.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The one fact each shipped scenario exists to show.
pub(super) fn scenario_fact(name: &str, revision: &str, run: &Run) -> Result<(), String> {
    match name {
        "weather" | "revision-2026-07-28" => lifecycle_fact(revision, run),
        "list-changed" => list_changed_fact(revision, run),
        "multi-round-trip" => multi_round_trip_fact(revision, run),
        "rug-pull" => rug_pull_fact(run),
        "two-servers" => two_servers_fact(run),
        "deferred-tools" => deferred_tools_fact(run),
        "primitives-tour" => primitives_tour_fact(revision, run),
        "tool-error-and-image" => tool_error_and_image_fact(run),
        "tool-poisoning" => tool_poisoning_fact(run),
        // Covered in depth by `invisible_tool_is_dropped_and_the_model_says_so`.
        "invisible-tool" => Ok(()),
        _ => Ok(()),
    }
}

/// 2025-11-25 starts with `initialize`; 2026-07-28 with `server/discover` and every request
/// names its revision in `_meta`.
fn lifecycle_fact(revision: &str, run: &Run) -> Result<(), String> {
    let initialize = run.requests("initialize", false);
    let discover = run.requests("server/discover", false);
    match revision {
        "2025-11-25" => {
            ensure!(
                initialize.len() == 1,
                "{} initialize requests",
                initialize.len()
            );
            ensure!(discover.is_empty(), "server/discover sent on 2025-11-25");
            let (at, request) = &initialize[0];
            ensure!(
                request["params"]["protocolVersion"] == "2025-11-25",
                "initialize asks for {}",
                request["params"]["protocolVersion"]
            );
            let result = run
                .answer_of(*at)
                .and_then(|i| stdio_json(&run.events()[i]))
                .ok_or("initialize has no result")?;
            ensure!(
                result["result"]["protocolVersion"] == "2025-11-25",
                "initialize negotiated {}",
                result["result"]["protocolVersion"]
            );
        }
        _ => {
            ensure!(
                discover.len() == 1,
                "{} server/discover requests",
                discover.len()
            );
            ensure!(initialize.is_empty(), "initialize sent on {revision}");
            let requests: Vec<Value> = run
                .events()
                .iter()
                .filter(|e| host_to_server(e))
                .filter_map(stdio_json)
                .filter(|m| m.get("method").is_some() && m.get("id").is_some())
                .collect();
            ensure!(requests.len() >= 3, "only {} host requests", requests.len());
            for m in &requests {
                ensure!(
                    m["params"]["_meta"][META_PROTOCOL_VERSION] == revision,
                    "{} does not name {revision} in _meta: {m}",
                    m["method"]
                );
            }
        }
    }
    let sessions: Vec<_> = run.analysis.sessions.iter().collect();
    ensure!(
        sessions
            .iter()
            .all(|(_, s)| s.revision.as_deref() == Some(revision)),
        "analyze reports sessions {sessions:?}, not {revision}"
    );
    Ok(())
}

fn list_changed_fact(revision: &str, run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    ensure!(requests.len() >= 2, "{} LLM requests", requests.len());
    let first = convert::tool_names_in_request(ApiShape::Anthropic, &requests[0].1);
    let second = convert::tool_names_in_request(ApiShape::Anthropic, &requests[1].1);
    ensure!(
        second.len() == first.len() + 1,
        "tools {first:?} then {second:?}: not one more"
    );
    let added: Vec<&String> = second.iter().filter(|n| !first.contains(n)).collect();
    ensure!(
        added == ["bonus_fact"],
        "added tools {added:?}, not [bonus_fact]"
    );
    let changed = run.server_notifications("notifications/tools/list_changed");
    ensure!(!changed.is_empty(), "no notifications/tools/list_changed");
    let (at, _) = &changed[0];
    ensure!(
        *at < requests[1].0,
        "list_changed (#{at}) after the second LLM request"
    );
    if revision == "2026-07-28" {
        let listen = run.analysis.derived[*at]
            .subscription()
            .ok_or("list_changed is not on a subscriptions/listen stream")?;
        let listen_at = run.index_of(listen).ok_or("no such listen request")?;
        let message = stdio_json(&run.events()[listen_at]).unwrap_or_default();
        ensure!(
            message["method"] == "subscriptions/listen",
            "the stream #{listen} is {}",
            message["method"]
        );
    }
    Ok(())
}

fn multi_round_trip_fact(revision: &str, run: &Run) -> Result<(), String> {
    if revision != "2026-07-28" {
        return Ok(());
    }
    let (result_at, _) = run
        .results_of("tools/call")
        .into_iter()
        .find(|(_, m)| m["result"]["resultType"] == "input_required")
        .ok_or("no tools/call result with resultType input_required")?;
    ensure!(
        run.analysis.derived[result_at].input_required,
        "analyze does not mark #{result_at} input_required"
    );
    let Pairing::Answers(first_call) = run.analysis.derived[result_at].pairing else {
        return Err(format!("#{result_at} answers no request"));
    };
    let retry = run
        .requests("tools/call", false)
        .into_iter()
        .find(|(i, _)| *i > result_at && run.analysis.derived[*i].retry_of() == Some(first_call))
        .ok_or(format!("no later tools/call with retry_of #{first_call}"))?;
    let params = &retry.1["params"];
    ensure!(
        params.get("inputResponses").is_some() || params.get("requestState").is_some(),
        "the retry carries neither inputResponses nor requestState: {params}"
    );
    Ok(())
}

fn rug_pull_fact(run: &Run) -> Result<(), String> {
    let lists: Vec<String> = run
        .results_of("tools/list")
        .iter()
        .filter_map(|(_, m)| description_of(&m["result"]["tools"], "get_fact"))
        .collect();
    ensure!(
        lists.len() >= 2,
        "{} tools/list results with get_fact",
        lists.len()
    );
    ensure!(
        lists[0] != lists[1],
        "get_fact's description did not change: {:?}",
        lists[0]
    );
    let requests = run.llm_requests();
    ensure!(requests.len() >= 2, "{} LLM requests", requests.len());
    for (n, (_, body)) in requests.iter().take(2).enumerate() {
        let sent = description_of(&body["tools"], "get_fact");
        ensure!(
            sent.as_ref() == Some(&lists[n]),
            "LLM request {n} sends get_fact as {sent:?}, the server listed {:?}",
            lists[n]
        );
    }
    Ok(())
}

fn two_servers_fact(run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    let (_, first) = requests.first().ok_or("no LLM request")?;
    let names = convert::tool_names_in_request(ApiShape::Anthropic, first);
    let notes = run.notes(&Lane::Host, &Lane::Host);
    for server in ["weather", "forecast"] {
        let api_name = format!("{server}__get_weather");
        ensure!(names.contains(&api_name), "tools {names:?} lack {api_name}");
        ensure!(
            notes.iter().any(|(_, text)| text.contains("`get_weather`")
                && text.contains(&format!("server `{server}`"))
                && text.contains(&format!("`{api_name}`"))),
            "no host note maps {server}'s get_weather to {api_name}: {notes:?}"
        );
        let called = run.requests("tools/call", false).into_iter().any(|(i, m)| {
            run.events()[i].to == Lane::server(server) && m["params"]["name"] == "get_weather"
        });
        ensure!(called, "server {server} never got tools/call get_weather");
    }
    Ok(())
}

/// The host sends names, then the definition the model searched for; the search never reaches
/// the server.
fn deferred_tools_fact(run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    ensure!(
        requests.len() == 3,
        "{} LLM requests, not 3",
        requests.len()
    );
    let tools = |body: &Value| convert::tool_names_in_request(ApiShape::Anthropic, body);
    let (_, first) = &requests[0];
    ensure!(
        tools(first) == ["ToolSearch"],
        "the first request offers {:?}, not only ToolSearch",
        tools(first)
    );
    let system = first["system"].as_str().unwrap_or_default();
    ensure!(
        system.contains("deferred tools are now available via ToolSearch")
            && system.lines().any(|l| l == "get_weather"),
        "the system text does not name get_weather as deferred: {system:?}"
    );
    let (_, second) = &requests[1];
    let reference = second["messages"].to_string();
    ensure!(
        reference.contains(r#"{"tool_name":"get_weather","type":"tool_reference"}"#)
            || reference.contains(r#"{"type":"tool_reference","tool_name":"get_weather"}"#),
        "the second request returns no tool_reference to get_weather"
    );
    ensure!(
        tools(second) == ["ToolSearch", "get_weather"],
        "after the search the request offers {:?}",
        tools(second)
    );
    let loaded = second["tools"][1]["defer_loading"].as_bool();
    ensure!(
        loaded == Some(true),
        "get_weather is sent without defer_loading"
    );
    let calls: Vec<Value> = run
        .requests("tools/call", false)
        .into_iter()
        .map(|(_, m)| m["params"]["name"].clone())
        .collect();
    ensure!(
        calls == [Value::from("get_weather")],
        "the server got tools/call {calls:?}, not one get_weather (the search is the host's)"
    );
    Ok(())
}

fn primitives_tour_fact(revision: &str, run: &Run) -> Result<(), String> {
    for method in ["resources/read", "prompts/get"] {
        let requests = run.requests(method, false);
        ensure!(!requests.is_empty(), "the host never sent {method}");
        ensure!(
            requests.iter().all(|(i, _)| run.answer_of(*i).is_some()),
            "{method} not answered"
        );
    }
    if revision == "2025-11-25" {
        for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
            let requests = run.requests(method, true);
            ensure!(!requests.is_empty(), "the server never sent {method}");
            for (i, _) in &requests {
                let answer = run
                    .answer_of(*i)
                    .ok_or(format!("{method} (#{i}) not answered"))?;
                let e = &run.events()[answer];
                let m = stdio_json(e).unwrap_or_default();
                ensure!(
                    e.from == Lane::Host && m.get("result").is_some(),
                    "{method} (#{i}) answered by #{answer} {} -> {}: {m}",
                    e.from,
                    e.to
                );
            }
        }
        ensure!(
            !run.server_notifications("notifications/progress")
                .is_empty(),
            "no notifications/progress"
        );
    } else {
        ensure!(
            run.analysis.derived.iter().any(|d| d.input_required),
            "no input_required result on {revision}"
        );
        ensure!(
            run.analysis.derived.iter().any(|d| d.retry_of().is_some()),
            "no retry on {revision}"
        );
    }
    sampling_goes_through_the_model(revision, run)?;
    elicitation_goes_to_the_user(revision, run)?;
    ensure!(
        run.events().iter().any(|e| e.from == Lane::Host
            && e.to == Lane::Host
            && e.text().contains("roots/list")
            && e.text().contains("its own configuration")),
        "no host note saying roots come from the host's configuration"
    );
    Ok(())
}

/// Where the server's question is on the wire: the `sampling/createMessage` (or
/// `elicitation/create`) request on 2025-11-25, the `input_required` result that carries it on
/// 2026-07-28; and where the host's answer goes back (its result, or the retry).
fn question_and_answer(
    revision: &str,
    run: &Run,
    method: &str,
    tool: &str,
) -> Result<(usize, usize), String> {
    if revision == "2025-11-25" {
        let (asked, _) = run
            .requests(method, true)
            .into_iter()
            .next()
            .ok_or(format!("the server never sent {method}"))?;
        let answered = run
            .answer_of(asked)
            .ok_or(format!("{method} not answered"))?;
        return Ok((asked, answered));
    }
    let calls: Vec<usize> = run
        .requests("tools/call", false)
        .into_iter()
        .filter(|(_, m)| m["params"]["name"] == tool)
        .map(|(i, _)| i)
        .collect();
    let first = *calls.first().ok_or(format!("no tools/call {tool}"))?;
    let asked = run
        .answer_of(first)
        .filter(|a| run.analysis.derived[*a].input_required)
        .ok_or(format!("tools/call {tool} got no input_required result"))?;
    let retry = *calls
        .get(1)
        .ok_or(format!("tools/call {tool} was not retried"))?;
    Ok((asked, retry))
}

/// The article's lesson: sampling asks the *client's model*. Between the server's question and
/// the host's answer there is an LLM request (marked as sampling for this server) and its
/// response, and the model's text is what the server got back.
fn sampling_goes_through_the_model(revision: &str, run: &Run) -> Result<(), String> {
    let (asked, answered) =
        question_and_answer(revision, run, "sampling/createMessage", "summarize")?;
    let between = asked + 1..answered;
    let request = between
        .clone()
        .find(|&i| is_llm_request(&run.events()[i]))
        .ok_or(format!(
            "no LLM request between the sampling question #{asked} and its answer #{answered}"
        ))?;
    let marked = run.events()[request].http().is_some_and(|h| {
        h.headers
            .iter()
            .any(|(k, v)| k == "x-sightline-sampling-for" && v == "tour")
    });
    ensure!(
        marked,
        "the sampling LLM request #{request} is not marked as sampling for tour"
    );
    let body = llm_body(&run.events()[request]);
    ensure!(
        body.get("tools").is_none(),
        "a sampling request offers tools: {body}"
    );
    let response = between
        .clone()
        .find(|&i| i > request && is_llm_response(&run.events()[i]))
        .ok_or(format!(
            "no LLM response before the sampling answer #{answered}"
        ))?;
    let said = answer_text(ApiShape::Anthropic, &llm_body(&run.events()[response]));
    ensure!(
        !said.is_empty(),
        "the model said nothing to the sampling request"
    );
    let summarize_result = run
        .requests("tools/call", false)
        .into_iter()
        .filter(|(_, m)| m["params"]["name"] == "summarize")
        .filter_map(|(i, _)| run.answer_of(i))
        .filter_map(|a| stdio_json(&run.events()[a]))
        .map(|m| m.to_string())
        .collect::<String>();
    ensure!(
        summarize_result.contains(&said),
        "the model's sampling answer {said:?} is not what the server got back: {summarize_result}"
    );
    Ok(())
}

/// Elicitation asks the *user*: the host shows the question on the user lane and brings back
/// the user's answer, between the server's question and the host's answer.
fn elicitation_goes_to_the_user(revision: &str, run: &Run) -> Result<(), String> {
    let (asked, answered) =
        question_and_answer(revision, run, "elicitation/create", "confirm_action")?;
    let events = &run.events()[asked + 1..answered];
    ensure!(
        events.iter().any(|e| e.from == Lane::Host
            && e.to == Lane::User
            && e.text().contains("asks the user")),
        "no host -> user question between #{asked} and #{answered}"
    );
    ensure!(
        events.iter().any(|e| e.from == Lane::User
            && e.to == Lane::Host
            && e.text().contains("the user answers")),
        "no user -> host answer between #{asked} and #{answered}"
    );
    ensure!(
        !events.iter().any(is_llm_request),
        "elicitation went to the model instead of the user"
    );
    Ok(())
}

fn tool_error_and_image_fact(run: &Run) -> Result<(), String> {
    let responses = run.llm_responses();
    let (_, first) = responses.first().ok_or("no LLM response")?;
    let calls = model_calls(ApiShape::Anthropic, first);
    let id_of = |name: &str| {
        calls
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.id.clone())
            .ok_or(format!("the model did not call {name}: {calls:?}"))
    };
    let (chart, divide) = (id_of("chart")?, id_of("divide")?);
    let requests = run.llm_requests();
    let (_, second) = requests.get(1).ok_or("no second LLM request")?;
    let results: Vec<&Value> = second["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    let result_for = |id: &str| {
        results
            .iter()
            .find(|b| b["tool_use_id"] == id)
            .copied()
            .ok_or(format!("no tool_result for {id}: {results:?}"))
    };
    let divide_result = result_for(&divide)?;
    ensure!(
        divide_result["is_error"] == true,
        "divide's tool_result is not is_error: {divide_result}"
    );
    let chart_result = result_for(&chart)?;
    ensure!(
        chart_result["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "image")),
        "chart's tool_result has no image block: {chart_result}"
    );
    ensure!(
        chart_result.get("is_error").is_none_or(|v| v == false),
        "chart's tool_result is an error: {chart_result}"
    );
    Ok(())
}

fn tool_poisoning_fact(run: &Run) -> Result<(), String> {
    let requests = run.llm_requests();
    let (_, first) = requests.first().ok_or("no LLM request")?;
    let description = description_of(&first["tools"], "add").ok_or("no `add` tool sent")?;
    ensure!(
        description.contains("<IMPORTANT>"),
        "add's description lacks <IMPORTANT>: {description:?}"
    );
    let (_, call) = run
        .requests("tools/call", false)
        .into_iter()
        .find(|(_, m)| m["params"]["name"] == "add")
        .ok_or("no tools/call add")?;
    ensure!(
        call["params"]["arguments"].get("sidenote").is_some(),
        "tools/call add has no sidenote: {call}"
    );
    Ok(())
}
