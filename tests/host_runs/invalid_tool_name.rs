//! A tool name the provider would reject: the host drops it (or its whole server), says why
//! in a note, and the model says it has no such tool.

use sightline::trace::Lane;
use sightline::wire::api::ApiShape;
use sightline::wire::convert;

use super::bodies::description_of;
use super::{assert_no_model_server_traffic, sightline_run};
use crate::util::{self, repo};

#[test]
fn invisible_tool_is_dropped_and_the_model_says_so() {
    let path = repo("scenarios/invisible-tool.toml");
    let run = sightline_run(&path, &["--no-summary"], &[]);
    assert!(run.output.status.success(), "{}", run.describe());
    let says = "I don't have a tool called `weather.lookup`";
    let answer_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("== answer"))
        .unwrap_or_else(|| panic!("no answer on stdout:\n{}", run.stdout));
    assert!(answer_line.contains(says), "{answer_line}");
    assert!(
        run.notes(&Lane::Host, &Lane::User)
            .iter()
            .any(|(_, t)| t.contains(says)),
        "the host -> user note lacks the answer"
    );

    // The server did list it: tools/list succeeded.
    let listed = run
        .results_of("tools/list")
        .first()
        .map(|(_, m)| m["result"]["tools"].clone())
        .expect("a tools/list result");
    assert!(
        description_of(&listed, "weather.lookup").is_some(),
        "{listed}"
    );

    let requests = run.llm_requests();
    let (request_at, request) = requests.first().expect("an LLM request");
    let names = convert::tool_names_in_request(ApiShape::Anthropic, request);
    assert!(!names.iter().any(|n| n == "weather.lookup"), "{names:?}");
    assert!(names.iter().any(|n| n == "get_time"), "{names:?}");

    let drop_note = run
        .notes(&Lane::Host, &Lane::Host)
        .into_iter()
        .find(|(_, t)| t.contains("`weather.lookup`"))
        .unwrap_or_else(|| panic!("no host -> host note names `weather.lookup`"));
    assert!(
        drop_note.1.contains(convert::API_NAME_PATTERN),
        "the note does not give the reason (the pattern): {}",
        drop_note.1
    );
    assert!(
        drop_note.0 < *request_at,
        "the drop note (#{}) comes after the LLM request (#{request_at})",
        drop_note.0
    );
    assert_no_model_server_traffic(&run, "invisible-tool");

    // The same scenario with a host that drops the whole server: no tools at all.
    let mut table: toml::Table = std::fs::read_to_string(&path)
        .expect("read scenario")
        .parse()
        .expect("scenario is TOML");
    table
        .entry("host")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .expect("[host] is a table")
        .insert("on_invalid_tool".into(), "drop-server".into());
    let dir = util::tempdir();
    let variant = dir.path().join("invisible-tool-drop-server.toml");
    std::fs::write(&variant, toml::to_string(&table).expect("serialize")).expect("write");
    let run = sightline_run(&variant, &["--no-summary"], &[]);
    assert!(
        run.output.status.success(),
        "drop-server: {}",
        run.describe()
    );
    let requests = run.llm_requests();
    let (request_at, request) = requests.first().expect("an LLM request");
    assert!(
        request
            .get("tools")
            .is_none_or(|t| t.as_array().is_some_and(Vec::is_empty)),
        "drop-server: the request still has tools: {}",
        request["tools"]
    );
    let notes = run.notes(&Lane::Host, &Lane::Host);
    assert!(
        notes
            .iter()
            .any(|(i, t)| i < request_at && t.contains("`get_time`")),
        "drop-server: no note before the request says get_time is dropped: {notes:?}"
    );
    assert!(
        run.stdout.contains(says),
        "drop-server: the model should still say it has no such tool:\n{}",
        run.stdout
    );
}
