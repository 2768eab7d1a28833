//! What `run` prints beside the answer (instructions, the tools' token cost, also in `summary`)
//! and `run --set`, one knob changed without editing the scenario.

use std::process::Command;

use sightline::trace::{Channel, Lane};

use super::sightline_run;
use crate::util::{self, repo};

/// The article's demo prints the server's instructions and the cost of the tools: `run` and
/// `summary` do too (with and without the summary).
#[test]
fn run_and_summary_show_instructions_and_the_tools_token_cost() {
    let path = repo("scenarios/weather.toml");
    for args in [&[][..], &["--no-summary"][..]] {
        let run = sightline_run(&path, args, &[]);
        assert!(run.output.status.success(), "{}", run.describe());
        for needle in [
            "-- server:weather instructions: ",
            "-- the model saw 1 tool in request #",
            "get_weather ~",
            "tool-use system prompt Anthropic adds: 286-675 tokens",
        ] {
            assert!(
                run.stdout.contains(needle),
                "{args:?}: no {needle:?} in\n{}",
                run.stdout
            );
        }
    }
    let run = sightline_run(&path, &[], &[]);
    let summary = Command::new(util::bin())
        .args(["summary", &run.trace_path.display().to_string()])
        .output()
        .expect("summary");
    let text = String::from_utf8_lossy(&summary.stdout);
    assert!(
        text.contains("-- the model saw 1 tool in request #"),
        "{text}"
    );
    assert!(text.contains("-- server:weather instructions: "), "{text}");
}

/// `run --set` changes one knob of a scenario for one run: two-servers with
/// `host.prefix=never` is the host where the first server's tool wins and the other one
/// disappears, as the scenario's explanation invites a class to try. A key the format does
/// not know is one clear line, exit 2.
#[test]
fn run_set_changes_one_knob_without_editing_the_scenario() {
    let dir = util::tempdir();
    let trace = dir.path().join("two.jsonl");
    util::run_scenario_to("two-servers", &trace, &["--set", "host.prefix=never"]);
    let loaded = util::load(&trace);
    let notes: Vec<String> = loaded
        .events
        .iter()
        .filter(|e| e.channel == Channel::Note && e.from == Lane::Host && e.to == Lane::Host)
        .map(|e| e.text().into_owned())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("is already taken by server `weather`")),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("weather__get_weather")),
        "{notes:?}"
    );

    let scenario = repo("scenarios/two-servers.toml");
    let out = Command::new(util::bin())
        .arg("run")
        .arg(&scenario)
        .args(["--set", "host.prefx=never", "--trace"])
        .arg(dir.path().join("bad.jsonl"))
        .output()
        .expect("sightline runs");
    assert_eq!(out.status.code(), Some(2));
    let err = util::text(&out.stderr);
    assert!(err.contains("prefx") && err.lines().count() == 1, "{err}");
}
