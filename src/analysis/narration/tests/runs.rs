//! Recorded runs: the weather loop, a rug pull, the primitives tour on 2026-07-28.

use super::*;

#[test]
fn real_runs_are_narrated_in_three_languages() {
    for fixture in [WEATHER, RUG_PULL, TOUR_2026] {
        let (events, r) = load(fixture);
        check_run(&events, &r);
    }
}

#[test]
fn out_of_range_is_empty() {
    let (events, r) = load(WEATHER);
    let s = Strings::embedded();
    assert_eq!(narrate(&events, &r, events.len(), &s, Language::Pt), "");
}

#[test]
fn the_seed_article_loop() {
    let (e, r) = load(WEATHER);
    let text = |i| en(&e, &r, i);
    assert!(text(0).starts_with("The user types a prompt: “What's the weather in Seoul"));
    assert!(text(1).contains("child process (sightline demo-server weather)"));
    let init = find(&e, &r, Kind::Request, "initialize", 0);
    assert!(text(init).contains("2025-11-25"), "{}", text(init));
    assert!(text(init).contains("roots, sampling, elicitation"));
    assert!(text(init).contains("capability negotiation"));
    let init_result = find(&e, &r, Kind::Response, "initialize", 0);
    assert!(
        text(init_result).contains("Use get_weather for current conditions only."),
        "{}",
        text(init_result)
    );
    assert!(text(init_result).contains("capabilities (tools)"));
    let initialized = find(&e, &r, Kind::Notification, "notifications/initialized", 0);
    assert!(text(initialized).contains("handshake is over"));
    let stderr = e
        .iter()
        .position(|x| x.channel == Channel::Stderr)
        .expect("stderr");
    assert!(text(stderr).contains("never reaches the model"));
    let list = find(&e, &r, Kind::Request, "tools/list", 0);
    assert!(text(list).contains("run time"));
    let listed = find(&e, &r, Kind::Response, "tools/list", 0);
    assert!(
        text(listed).contains("1 tool: get_weather"),
        "{}",
        text(listed)
    );

    let first = r.llm[0].request;
    assert!(
        text(first).contains("inputSchema becomes input_schema"),
        "{}",
        text(first)
    );
    assert!(text(first).contains("Server instructions (weather) travel in the system text"));
    let asked = r.llm[0].response.expect("response");
    assert!(
        text(asked).contains("get_weather (tool_use)"),
        "{}",
        text(asked)
    );
    assert!(text(asked).contains("stop_reason tool_use"));
    let call = find(&e, &r, Kind::Request, "tools/call", 0);
    assert!(text(call).starts_with("The host, not the model, sends tools/call get_weather"));
    assert!(text(call).contains(r#"{"location":"Seoul"}"#));
    let result = find(&e, &r, Kind::Response, "tools/call", 0);
    assert!(
        text(result).contains("“Seoul: 15C, partly cloudy”"),
        "{}",
        text(result)
    );
    assert!(text(result).contains("(tool_result)"));
    let second = r.llm[1].request;
    assert!(text(second).contains("result of get_weather to the model (tool_result)"));
    let last = r.llm[1].response.expect("response");
    assert!(
        text(last).contains("stop_reason end_turn"),
        "{}",
        text(last)
    );
    assert!(text(last).contains("the loop ends"));
    let answer = e.len() - 2;
    assert!(text(answer).starts_with("The host shows the model's final answer"));
    assert!(text(e.len() - 1).contains("exits (code 0)"));

    let s = Strings::embedded();
    let pt = narrate(&e, &r, call, &s, Language::Pt);
    assert!(
        pt.starts_with("Quem envia tools/call get_weather ao servidor weather é o host"),
        "{pt}"
    );
    let es = narrate(&e, &r, first, &s, Language::Es);
    assert!(es.contains("inputSchema pasa a ser input_schema"), "{es}");
}

#[test]
fn dynamic_discovery_and_a_rug_pull() {
    let (e, r) = load(RUG_PULL);
    let text = |i| en(&e, &r, i);
    let changed = find(
        &e,
        &r,
        Kind::Notification,
        "notifications/tools/list_changed",
        0,
    );
    assert!(
        text(changed).contains("tool list changed"),
        "{}",
        text(changed)
    );
    let again = find(&e, &r, Kind::Request, "tools/list", 1);
    assert!(text(again).contains("dynamic discovery"), "{}", text(again));
    let pulled = find(&e, &r, Kind::Response, "tools/list", 1);
    let first = find(&e, &r, Kind::Response, "tools/list", 0);
    assert!(text(pulled).contains("rug pull"), "{}", text(pulled));
    assert!(text(pulled).contains(&format!("(event #{})", e[first].seq)));
    let redefined = r.llm.last().expect("llm").request;
    assert!(
        text(redefined).contains("The definition of get_fact changed since the previous request"),
        "{}",
        text(redefined)
    );
}

#[test]
fn revision_2026_primitives_and_multi_round_trips() {
    let (e, r) = load(TOUR_2026);
    let text = |i| en(&e, &r, i);
    let discover = find(&e, &r, Kind::Request, "server/discover", 0);
    assert!(text(discover).contains("no handshake"));
    assert!(text(discover).contains("_meta"));
    let discovered = find(&e, &r, Kind::Response, "server/discover", 0);
    assert!(
        text(discovered).contains("2026-07-28"),
        "{}",
        text(discovered)
    );
    let listen = find(&e, &r, Kind::Request, "subscriptions/listen", 0);
    assert!(text(listen).contains("opt in"), "{}", text(listen));
    let ack = find(
        &e,
        &r,
        Kind::Notification,
        "notifications/subscriptions/acknowledged",
        0,
    );
    assert!(text(ack).contains("toolsListChanged"), "{}", text(ack));
    let resources = find(&e, &r, Kind::Request, "resources/list", 0);
    assert!(text(resources).contains("application-controlled"));
    let read = find(&e, &r, Kind::Request, "resources/read", 0);
    assert!(text(read).contains("tour://readme"));
    let prompt = find(&e, &r, Kind::Request, "prompts/get", 0);
    assert!(text(prompt).contains("explain_mcp"));
    assert!(text(prompt).contains("user-controlled"));
    let progress = find(&e, &r, Kind::Notification, "notifications/progress", 0);
    assert!(text(progress).contains("1 of 3"), "{}", text(progress));

    let rounds: Vec<usize> = (0..e.len())
        .filter(|&i| r.rpc.derived[i].input_required)
        .collect();
    assert_eq!(rounds.len(), 3);
    let asked: Vec<String> = rounds.iter().map(|&i| text(i)).collect();
    assert!(asked.iter().all(|t| t.contains("input_required")));
    assert!(
        asked.iter().any(|t| t.contains("sampling/createMessage")),
        "{asked:?}"
    );
    assert!(
        asked.iter().any(|t| t.contains("elicitation/create")),
        "{asked:?}"
    );
    assert!(asked.iter().any(|t| t.contains("roots/list")), "{asked:?}");
    let retry = (0..e.len())
        .find(|&i| r.rpc.derived[i].retry_of().is_some())
        .expect("retry");
    assert!(text(retry).contains("second round"), "{}", text(retry));
    assert!(text(retry).contains("requestState"));
}

/// The first event takes the `seq` of the weather loop's `tools/call`: the call's result is
/// still said as the answer to the model's call (the lookup took the first event with it).
#[test]
fn a_tool_result_finds_its_call_when_an_earlier_event_has_its_seq() {
    let (mut events, r) = load(WEATHER);
    let call = find(&events, &r, Kind::Request, "tools/call", 0);
    let result = find(&events, &r, Kind::Response, "tools/call", 0);
    let said = en(&events, &r, result);
    events[0].seq = events[call].seq;
    let r = report(&events);
    assert_eq!(en(&events, &r, result), said);
}
