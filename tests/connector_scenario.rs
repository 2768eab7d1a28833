//! The shipped `mcp-connector` scenario (issue 36): offline, the scripted model plays an LLM API
//! that is itself the MCP client of the built-in `tour` server, over Streamable HTTP through the
//! tap's HTTP proxy. The trace holds the server's own lane with what it really received, none
//! of it from the host; the stdio server the host also hands the API is refused with the
//! documentation's reason; and the API's view of the call is joined to the server's.

use std::process::Command;
use std::time::Duration;

use sightline::trace::{Channel, Event, Lane};

use crate::util;

/// The JSON-RPC method of an MCP event, when it is a request or a notification.
fn method(e: &Event) -> Option<String> {
    let message: serde_json::Value = serde_json::from_str(&e.text()).ok()?;
    message.get("method")?.as_str().map(str::to_string)
}

fn sightline(args: &[&str]) -> String {
    let out = util::run(
        Command::new(util::bin()).args(args),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "sightline {args:?}: {out:?}");
    util::text(&out.stdout)
}

fn run_and_check(extra: &[&str]) {
    let openai = extra.contains(&"openai");
    let dir = util::tempdir();
    let trace = dir.path().join("connector.jsonl");
    util::run_scenario_to("mcp-connector", &trace, extra);
    let loaded = util::load(&trace);
    let events = &loaded.events;
    let tour = Lane::server("tour");

    // The server's side, recorded as its own lane: every message between the LLM API's client
    // and the server, over HTTP; none between the host (or anyone else) and any server.
    let on_tour: Vec<&Event> = events
        .iter()
        .filter(|e| e.from == tour || e.to == tour)
        .collect();
    assert!(
        on_tour.len() >= 6,
        "{} events on the tour lane",
        on_tour.len()
    );
    for e in &on_tour {
        assert_eq!(e.channel, Channel::Http, "{e:?}");
        assert!(e.from == Lane::Llm || e.to == Lane::Llm, "{e:?}");
    }
    let host_server = events
        .iter()
        .filter(|e| {
            (e.from == Lane::Host && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Host)
        })
        .count();
    assert_eq!(host_server, 0, "the host never talks to a server here");
    assert!(
        events.iter().all(|e| e.to != Lane::server("weather")),
        "the stdio server is never started"
    );
    let sent: Vec<String> = on_tour
        .iter()
        .filter(|e| e.from == Lane::Llm)
        .filter_map(|e| method(e))
        .collect();
    assert_eq!(
        sent,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ],
        "only tools cross: no resources, no prompts"
    );

    // The refusal of the stdio server, with the documentation's reason, then the answer.
    let report = sightline::analysis::report(events);
    assert_eq!(report.llm.len(), 2, "{:?}", report.llm);
    let (refused, answered) = (&report.llm[0], &report.llm[1]);
    assert_eq!(refused.status, Some(400));
    let refusal = events[refused.response.expect("an answer")].text();
    assert!(
        refusal.contains("Local STDIO servers cannot be connected directly"),
        "{refusal}"
    );
    let declared = |x: &sightline::analysis::LlmExchange| {
        let names = x.remote_servers.iter().map(|s| s.name.clone());
        names.collect::<Vec<_>>()
    };
    assert_eq!(declared(refused), ["tour", "weather"]);
    assert_eq!(declared(answered), ["tour"]);
    let request = events[answered.request].text();
    let beta = util::header(&events[answered.request], "anthropic-beta");
    if openai {
        assert!(request.contains(r#""type":"mcp""#), "{request}");
        // Responses says what the client listed, then the call.
        assert_eq!(answered.remote.len(), 2, "{:?}", answered.remote);
        assert_eq!(answered.remote[0].tools.len(), 7, "{:?}", answered.remote);
    } else {
        assert!(request.contains(r#""mcp_servers""#), "{request}");
        assert_eq!(beta, Some("mcp-client-2025-11-20"));
        assert_eq!(answered.remote.len(), 1, "{:?}", answered.remote);
    }
    let call = answered.remote.last().expect("a call");
    assert_eq!(call.tool.as_deref(), Some("echo"));
    assert_eq!(call.server.as_deref(), Some("tour"));
    assert_eq!(call.output.as_deref(), Some("tour #42"));
    assert!(
        answered
            .text
            .contains("called by the API's own MCP client, echoed: tour #42"),
        "{}",
        answered.text
    );
    assert!(answered.tool_calls.is_empty(), "no tool call for the host");

    // Both halves joined: the API's call is the server's tools/call, after its tools/list.
    let chains = report.remote_chains(events);
    assert_eq!(chains.len(), answered.remote.len());
    assert!(chains.iter().all(|c| c.joined()), "{chains:?}");
    let chain = chains.last().expect("the call's");
    let call_at = chain.tools_call.expect("joined to the recorded tools/call");
    assert_eq!(method(&events[call_at]).as_deref(), Some("tools/call"));
    let list_at = chain.tools_list.expect("and to the tools/list before it");
    assert_eq!(method(&events[list_at]).as_deref(), Some("tools/list"));
    assert!(chain.tools_result.is_some() && chain.list_result.is_some());
    let diagram = sightline::analysis::diagram::build(events, &report);
    let response = answered.response.expect("an answer");
    assert!(
        diagram.chain(response).contains(&call_at),
        "{:?}",
        diagram.chain(response)
    );
    assert_eq!(diagram.direct_model_server, 0);

    // What the summary, the doctor and the SVG say of it.
    let path = trace.to_str().expect("a UTF-8 path");
    let summary = sightline(&["summary", path]);
    assert!(
        summary.contains("the API's MCP client -> server tour: tools/call echo"),
        "{summary}"
    );
    let call_seq = events[call_at].seq;
    assert!(
        summary.contains(&format!("tools/call #{call_seq}")),
        "{summary}"
    );
    assert!(!summary.contains("never received"), "{summary}");
    assert!(summary.contains("Local STDIO servers"), "{summary}");
    let doctor = sightline(&["doctor", path]);
    assert!(!doctor.contains("no MCP server in this trace"), "{doctor}");
    assert!(
        doctor.contains("echo: called 1× by the API's MCP client"),
        "{doctor}"
    );
    let out = util::export(&trace, "svg", &[]);
    let svg = util::text(&out.stdout);
    // The server the trace recorded and the one only declared (and refused).
    assert!(
        svg.contains(", 2 servers</title>"),
        "{}",
        &svg[..svg.len().min(600)]
    );
}

#[test]
fn the_api_is_the_servers_mcp_client_offline() {
    run_and_check(&[]);
}

#[test]
fn the_api_is_the_servers_mcp_client_streamed_too() {
    run_and_check(&["--stream"]);
}

/// OpenAI Responses' `mcp` tools: `mcp_list_tools` and `mcp_call` items, joined the same way.
#[test]
fn the_responses_api_is_the_servers_mcp_client_too() {
    run_and_check(&["--provider", "openai"]);
    run_and_check(&["--provider", "openai", "--stream"]);
}
