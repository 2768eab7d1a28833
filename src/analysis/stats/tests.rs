use super::*;
use crate::analysis::fixtures;
use crate::analysis::tokens;

fn all(events: &[Event], by: &[By]) -> Stats {
    let report = crate::analysis::report(events);
    let llm: Vec<&LlmExchange> = report.llm.iter().chain(&report.sampling).collect();
    stats(events, &report.rpc, &llm, by, tokens::own(), &|_| true)
}

#[test]
fn percentiles_are_nearest_rank() {
    let mut samples: Vec<i64> = (1..=100).rev().collect();
    let l = Latency::of(&mut samples).expect("some");
    assert_eq!(
        (l.count, l.p50_us, l.p95_us, l.p99_us, l.max_us),
        (100, 50, 95, 99, 100)
    );
    let l = Latency::of(&mut [7]).expect("one");
    assert_eq!((l.p50_us, l.p99_us, l.max_us), (7, 7, 7));
    assert_eq!(Latency::of(&mut []), None);
}

#[test]
fn a_tool_result_that_says_is_error_is_an_error_of_its_tool_method_and_server() {
    let events = fixtures::repeated_messages();
    let s = all(&events, &By::ALL);
    assert_eq!(
        (s.events, s.requests, s.errors, s.unanswered),
        (14, 7, 1, 0)
    );
    let table = |b: By| &s.tables.iter().find(|t| t.by == b).expect("table").rows;
    let call = table(By::Method)
        .iter()
        .find(|r| r.key == "tools/call")
        .expect("tools/call");
    assert_eq!((call.requests, call.errors), (3, 1));
    let latency = call.latency.expect("answered");
    // Each answer a millisecond after its request (on a clock read once per event).
    assert_eq!(latency.count, 3);
    assert!((1000..1500).contains(&latency.p50_us), "{latency:?}");
    assert!(latency.p50_us <= latency.p95_us && latency.p99_us <= latency.max_us);
    let tools = table(By::Tool);
    assert_eq!(tools.len(), 1);
    assert_eq!(
        (tools[0].key.as_str(), tools[0].requests),
        ("get_weather", 3)
    );
    assert!((tools[0].error_rate() - 1.0 / 3.0).abs() < 1e-9);
    let servers = table(By::Server);
    assert_eq!(
        (servers[0].key.as_str(), servers[0].requests),
        ("s", 7),
        "{servers:?}"
    );
    assert!(s.busiest.as_ref().is_some_and(|b| b.events > 0));
}

#[test]
fn a_recorded_loop_has_its_llm_requests_timed_and_its_tools_counted() {
    let events = fixtures::load(fixtures::RECORDINGS[2]);
    let s = all(&events, &[By::Model]);
    assert!(!s.llm.is_empty());
    for r in &s.llm {
        assert!(r.last_byte_us.is_some_and(|us| us >= 0), "{r:?}");
        assert!(
            r.tools == 0 || r.tool_tokens.is_some_and(|n| n > 0),
            "{r:?}"
        );
    }
    let models = &s.tables[0].rows;
    assert_eq!(
        models.iter().map(|r| r.requests).sum::<u64>(),
        s.llm.len() as u64
    );
    // Kept events only: none kept, nothing counted.
    let report = crate::analysis::report(&events);
    let llm: Vec<&LlmExchange> = report.llm.iter().collect();
    let none = stats(&events, &report.rpc, &llm, &By::ALL, tokens::own(), &|_| {
        false
    });
    assert_eq!((none.events, none.requests, none.llm.len()), (0, 0, 0));
    assert!(none.busiest.is_none() && none.duration_us.is_none());
}

/// `sightline stats` reads each request's model and tools only (`llm_counts`): its numbers are
/// those of the exchanges read whole, for Sightline's own host and for the real hosts' LLM
/// halves (Claude Code's deferred tools, Codex's namespaces, Gemini's declarations).
#[test]
fn statistics_of_the_exchanges_read_for_counts_are_those_read_whole() {
    let hosts = [
        include_str!(
            "../../../tests/fixtures/hosts/claude-code/20261206T200222.093053Z-llm-17864.jsonl"
        ),
        include_str!("../../../tests/fixtures/hosts/codex/20261206T200222.101155Z-llm-17863.jsonl"),
        include_str!(
            "../../../tests/fixtures/hosts/codex-tool-search/20261206T202715.424228Z-llm-24537.jsonl"
        ),
        include_str!(
            "../../../tests/fixtures/hosts/gemini-cli/20261206T201644.670251Z-llm-6680.jsonl"
        ),
    ];
    let mut requests = 0;
    for text in fixtures::RECORDINGS.iter().chain(&hosts) {
        let events = crate::trace::load_from_reader(text.as_bytes())
            .expect("fixture")
            .events;
        let rpc = crate::trace::analyze(&events);
        let of = |exchanges: &[LlmExchange]| {
            let llm: Vec<&LlmExchange> = exchanges.iter().collect();
            stats(&events, &rpc, &llm, &By::ALL, tokens::own(), &|_| true)
        };
        let (whole, counts) = (
            crate::analysis::llm_exchanges(&events),
            crate::analysis::llm_counts(&events),
        );
        assert_eq!(of(&counts), of(&whole));
        for (c, w) in counts.iter().zip(&whole) {
            assert_eq!(
                (&c.model, &c.tools, &c.tool_entries),
                (&w.model, &w.tools, &w.tool_entries)
            );
        }
        requests += whole.iter().filter(|x| !x.tool_entries.is_empty()).count();
    }
    assert!(requests >= 8, "{requests}");
}

/// The busiest second counts every event of that second, also when the trace comes back to
/// it after a later one (events out of time order), and ties go to the earlier second.
#[test]
fn the_busiest_second_counts_a_second_met_again() {
    let mut events = fixtures::repeated_messages();
    let t0 = events[0].time;
    let at = |s: i64| t0 + chrono::Duration::seconds(s);
    let seconds = [0, 0, 1, 1, 1, 0, 0, 2, 2, 2, 2, 5, 5, 5];
    assert_eq!(events.len(), seconds.len());
    for (e, s) in events.iter_mut().zip(seconds) {
        e.time = at(s);
    }
    let busiest = all(&events, &[By::Method]).busiest.expect("busiest");
    assert_eq!(busiest.events, 4);
    assert_eq!(
        busiest.second.timestamp(),
        at(0).timestamp(),
        "0 and 2 tie: 0"
    );
}
