//! The host's half of the analysis, on real runs: every model tool call is followed through
//! `tools/call` and back to the model, and every tool the model did not get is named.

use std::process::Command;
use std::time::Duration;

use sightline::analysis::report;

use crate::util::*;

fn run_scenario(name: &str, extra: &[&str]) -> sightline::trace::LoadedTrace {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    run_scenario_to(name, &trace, extra);
    load(&trace)
}

#[test]
fn every_model_call_is_followed_through_the_host_in_each_shape() {
    for shape in ["scripted", "openai", "openai-chat"] {
        let trace = run_scenario("two-servers", &["--provider", shape]);
        let r = report(&trace.events);
        assert_eq!(r.llm.len(), 2, "{shape}: two model turns");
        assert_eq!(r.chains.len(), 2, "{shape}");
        for chain in &r.chains {
            let call = chain
                .tools_call
                .unwrap_or_else(|| panic!("{shape}: {chain:?} has no tools/call"));
            let result = chain.tools_result.expect("answered");
            let back = chain.returned_in.expect("returned to the model");
            assert!(
                chain.asked_in < call && call < result && result < back,
                "{shape}: order {chain:?}"
            );
            let server = trace.events[call]
                .to
                .server_name()
                .expect("to a server")
                .to_string();
            assert!(
                chain.tool.starts_with(&format!("{server}__")),
                "{shape}: {} went to {server}",
                chain.tool
            );
        }
        let view = &r.tools[0];
        assert!(view.not_sent.is_empty(), "{shape}: {view:?}");
        let renamed: Vec<_> = view
            .sent
            .iter()
            .filter(|o| o.mcp_name.as_deref() != Some(&o.api_name))
            .collect();
        assert_eq!(
            renamed.len(),
            2,
            "{shape}: both get_weather tools are prefixed: {view:?}"
        );
    }
}

#[test]
fn tools_the_model_never_got_are_named() {
    let trace = run_scenario("invisible-tool", &[]);
    let r = report(&trace.events);
    let view = &r.tools[0];
    assert_eq!(
        view.sent
            .iter()
            .map(|o| o.api_name.as_str())
            .collect::<Vec<_>>(),
        ["get_time"]
    );
    let missing: Vec<&str> = view.not_sent.iter().map(|(_, t, _)| t.as_str()).collect();
    assert!(
        missing.contains(&"weather.lookup") && missing.contains(&"get forecast"),
        "{missing:?}"
    );
    assert!(r.chains.is_empty(), "the model called nothing");
    let out = run(
        Command::new(bin())
            .arg("summary")
            .arg("--json")
            .arg(write_back(&trace)),
        Duration::from_secs(30),
    );
    let json = text(&out.stdout);
    assert!(json.contains(r#""tools":["get_time"]"#), "{json}");
}

/// Writes a loaded trace to a temp file (kept alive by leaking the dir for the test's duration).
fn write_back(trace: &sightline::trace::LoadedTrace) -> std::path::PathBuf {
    let dir = tempdir().keep();
    let path = dir.join("copy.jsonl");
    sightline::trace::write_trace(&path, &trace.header, &trace.events).expect("write");
    path
}
