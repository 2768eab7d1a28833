//! The arrows inside an exchange that no event records: a recorded host's user, and the tools
//! the host runs itself.

use super::super::*;
use crate::analysis::report;

fn load(text: &str) -> Vec<Event> {
    crate::trace::load_from_reader(text.as_bytes())
        .expect("fixture")
        .events
}

/// Claude Code, recorded through `llm-proxy`: the user's words come from its first request
/// (not its `<system-reminder>`), once, above that request; its `ToolSearch` is a note on the
/// Host lane under the answer that asked for it; the MCP tool's call is no hop (the server's
/// own recording has its `tools/call`).
#[test]
fn a_recorded_hosts_user_and_own_tools_are_drawn_inside_its_exchanges() {
    let events = load(include_str!(
        "../../../../tests/fixtures/hosts/claude-code/20261206T200222.093053Z-llm-17864.jsonl"
    ));
    let r = report(&events);
    let d = build(&events, &r);
    let lane = |kind| d.lanes.iter().position(|l| l.kind == kind).expect("lane");
    let (user, host) = (lane(LaneKind::User), lane(LaneKind::Host));
    let first = r.llm[0].request;
    assert_eq!(d.leads(first), 1);
    assert_eq!(
        d.hops(first)[0],
        Hop {
            from: user,
            to: host,
            style: Style::Request,
            status: Status::Ok,
            label: crate::i18n::Said::plain("What's the weather in Seoul right now?"),
            lead: true,
        }
    );
    let all: Vec<&Hop> = (0..d.rows.len()).flat_map(|i| d.hops(i)).collect();
    assert_eq!(all.iter().filter(|h| h.from == user).count(), 1, "{all:#?}");
    let search: Vec<&&Hop> = all
        .iter()
        .filter(|h| h.from == host && h.to == host)
        .collect();
    assert_eq!(search.len(), 1, "{all:#?}");
    assert!(
        search[0].label.english().starts_with("ToolSearch {"),
        "{search:?}"
    );
    assert!(!search[0].lead);
    let asked = r
        .llm
        .iter()
        .find(|x| x.tool_calls.iter().any(|c| c.1 == "ToolSearch"));
    let response = asked.and_then(|x| x.response).expect("the search's answer");
    assert!(
        d.hops(response)
            .iter()
            .any(|h| h.label.english().starts_with("ToolSearch"))
    );
    assert!(
        !all.iter()
            .any(|h| h.label.english().contains("get_weather {")),
        "{all:#?}"
    );
    assert_eq!(d.hop_count(), all.len());

    // A trace that grows ends with the diagram the whole trace gives.
    let cut = r.llm[1].request;
    let mut grown = build(&events[..cut], &report(&events[..cut]));
    let dirty: Vec<usize> = (0..cut).collect();
    grown.extend(&events, &r, cut, &dirty);
    assert_eq!(grown, d);
}

/// Sightline's own host records its user as events: no hop stands in for them.
#[test]
fn a_trace_with_its_own_user_events_gets_no_user_hops() {
    let events = load(include_str!(
        "../../../../tests/fixtures/narration/weather.jsonl"
    ));
    let r = report(&events);
    let d = build(&events, &r);
    let user = d.lanes.iter().position(|l| l.kind == LaneKind::User);
    let hops: Vec<&Hop> = (0..d.rows.len()).flat_map(|i| d.hops(i)).collect();
    assert!(user.is_some());
    assert!(!hops.iter().any(|h| Some(h.from) == user), "{hops:#?}");
}
