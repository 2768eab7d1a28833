//! The real hosts, as users run them (issue 34, item 6): Claude Code, Codex and Gemini CLI
//! from npm (pinned in `tests/hosts/package-lock.json`, installed by `tests/run.sh`), each
//! with a `HOME` of its own, run headless with one prompt. Their LLM calls go through
//! `sightline llm-proxy --session` to the scripted model playing `scenarios/weather.toml`;
//! their MCP server, the seed article's TypeScript weather server, runs behind `sightline
//! wrap --session` of the host's own config. Each test checks that the loop completed, the
//! wire shape the notes describe (shared/notes/real-hosts-on-the-wire.md), and that a fresh
//! run's shape is the recorded fixture's (`tests/fixtures/hosts/<host>/`, a session folder),
//! naming what changed when a host update changes how it talks. Set
//! `SIGHTLINE_RECORD_HOSTS=1` to record the fixtures again.

mod record;
mod shape;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sightline::trace::{Channel, Event, Lane};

use crate::util;
use record::{Host, Run, record};

const PROMPT: &str = "What's the weather in Seoul right now?";
/// What the seed article's server answers for Seoul.
const WEATHER: &str = "Seoul: 15C, partly cloudy";
/// The API key each host is given: it must never reach the session.
const KEY: &str = "sk-real-hosts-test-key-0123456789";

/// The LLM exchanges' bodies: requests and responses, in order.
pub fn llm_bodies(events: &[Event], to: Lane) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.channel == Channel::LlmHttp && e.to == to)
        .map(|e| e.text().into_owned())
        .collect()
}

/// The loop completed: the host printed the weather, and the session holds `tools/call
/// get_weather` to the server and its answer.
fn assert_loop_completed(run: &Run) {
    let stdout = util::text(&run.out.stdout);
    assert!(
        run.out.status.success() && stdout.contains(WEATHER),
        "the host did not print the weather ({:?}):\n{stdout}\n{}",
        run.out.status,
        util::text(&run.out.stderr)
    );
    let server = Lane::server("weather");
    let call = run.events.iter().find(|e| {
        e.to == server && {
            let text = e.text();
            text.contains(r#""method":"tools/call""#) && text.contains(r#""name":"get_weather""#)
        }
    });
    assert!(call.is_some(), "no tools/call get_weather in the session");
    assert!(
        run.events
            .iter()
            .any(|e| e.from == server && e.text().contains(WEATHER)),
        "no result from the weather server in the session"
    );
    assert_no_key(run);
}

/// The API key the host was given is nowhere in its session.
fn assert_no_key(run: &Run) {
    for file in std::fs::read_dir(&run.session).expect("session folder") {
        let text = std::fs::read_to_string(file.expect("entry").path()).expect("read");
        assert!(!text.contains(KEY), "the API key reached the session");
    }
}

/// The fresh run's shape is the fixture's; with `SIGHTLINE_RECORD_HOSTS=1` the fresh session
/// becomes the fixture.
fn assert_same_shape_as_fixture(host: Host, run: &Run) {
    let fixture = util::repo("tests/fixtures/hosts").join(host.name());
    if std::env::var_os("SIGHTLINE_RECORD_HOSTS").is_some() {
        let _ = std::fs::remove_dir_all(&fixture);
        std::fs::create_dir_all(&fixture).expect("create the fixture folder");
        for file in std::fs::read_dir(&run.session).expect("session folder") {
            let path = file.expect("entry").path();
            std::fs::copy(&path, fixture.join(path.file_name().expect("name"))).expect("copy");
        }
    }
    let expected = shape::of(&util::load(&fixture).events);
    let fresh = shape::of(&run.events);
    let changed = shape::differences(&expected, &fresh);
    assert!(
        changed.is_empty(),
        "{}'s wire shape is not the recorded one ({}): `-` only in the fixture, `+` only now:\n{}\n\
         (a host update? record again with SIGHTLINE_RECORD_HOSTS=1 and review the diff)",
        host.name(),
        fixture.display(),
        changed.join("\n")
    );
}

/// Sightline tells the truth about a host's session: `doctor` finds the tool visible (exit 0)
/// and says how (`verdict`), `summary` joins the model's call to the `tools/call` (`join`) and
/// flags nothing as listed but not sent.
fn assert_read_true(session: &Path, verdict: &str, join: &str) {
    let sightline = |command: &str| {
        util::run(
            Command::new(util::bin()).arg(command).arg(session),
            Duration::from_secs(30),
        )
    };
    let doctor = sightline("doctor");
    let said = util::text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "doctor:\n{said}");
    assert!(
        said.contains("✓ weather/get_weather") && said.contains(verdict),
        "doctor:\n{said}"
    );
    let summary = util::text(&sightline("summary").stdout);
    assert!(
        summary.contains(join) && !summary.contains("listed but not sent"),
        "summary:\n{summary}"
    );
}

#[test]
fn the_recorded_sessions_are_read_true() {
    let fixtures = util::repo("tests/fixtures/hosts");
    assert_read_true(
        &fixtures.join("claude-code"),
        "visible-on-demand",
        "tools/call get_weather  [id 2]  (model call toolu_sl_1_0 from #12)",
    );
    assert_read_true(
        &fixtures.join("codex"),
        "inside namespace `mcp__weather`",
        "tools/call get_weather  [id 2]  (model call call_sl_0_0 from #8)",
    );
    assert_read_true(
        &fixtures.join("gemini-cli"),
        "as `mcp_weather_get_weather`, and the model called it",
        "tools/call get_weather  [id 2]  (model call mcp_weather_get_weather#1 from #8)",
    );
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.200}"))
}

/// The JSON objects of a server-sent event stream's `data:` lines.
fn stream_data(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

#[test]
fn claude_code_loads_the_deferred_tool_with_tool_search_then_calls_it() {
    let dir = util::tempdir();
    let run = record(Host::ClaudeCode, dir.path());
    assert_loop_completed(&run);
    let requests = llm_bodies(&run.events, Lane::Llm);
    let responses = llm_bodies(&run.events, Lane::Host);
    assert_eq!(requests.len(), 3, "search, call, answer");

    // First request: the MCP tool is named only in a system text; `tools` holds ToolSearch
    // and the placeholder.
    let first = json(&requests[0]);
    let tools = first["tools"].as_array().expect("tools");
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name);
    assert!(tool("ToolSearch").is_some());
    assert_eq!(
        tool("DeferredToolPlaceholder").map(|t| &t["defer_loading"]),
        Some(&json!(true))
    );
    assert!(tool("mcp__weather__get_weather").is_none());
    assert!(
        requests[0].contains("The following deferred tools are now available via ToolSearch")
            && requests[0].contains("\\nmcp__weather__get_weather"),
        "the deferred name in a system text"
    );
    let calls = |response: &str| -> Vec<Value> {
        stream_data(response)
            .into_iter()
            .filter(|d| d["content_block"]["type"] == "tool_use")
            .map(|d| d["content_block"]["name"].clone())
            .collect()
    };
    assert_eq!(calls(&responses[0]), [json!("ToolSearch")]);

    // Second request: the search's result is a tool_reference; the tool is now sent whole,
    // with defer_loading.
    let second = json(&requests[1]);
    let messages = second["messages"].as_array().expect("messages");
    let reference = messages
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "tool_result")
        .flat_map(|b| b["content"].as_array().into_iter().flatten())
        .find(|b| b["type"] == "tool_reference");
    assert_eq!(
        reference.map(|r| &r["tool_name"]),
        Some(&json!("mcp__weather__get_weather"))
    );
    let loaded = second["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "mcp__weather__get_weather")
        .expect("the loaded tool in `tools`");
    assert_eq!(loaded["defer_loading"], json!(true));
    assert!(loaded["input_schema"]["properties"]["location"].is_object());
    assert_eq!(calls(&responses[1]), [json!("mcp__weather__get_weather")]);
    assert_same_shape_as_fixture(Host::ClaudeCode, &run);
    assert_read_true(
        &run.session,
        "visible-on-demand",
        "(model call toolu_sl_1_0 from",
    );
}

#[test]
fn codex_calls_the_mcp_tool_inside_its_namespace() {
    let dir = util::tempdir();
    let run = record(Host::Codex, dir.path());
    assert_loop_completed(&run);
    let requests = llm_bodies(&run.events, Lane::Llm);
    let responses = llm_bodies(&run.events, Lane::Host);
    assert_eq!(requests.len(), 2, "call, answer");
    let first = json(&requests[0]);
    let namespace = first["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["type"] == "namespace" && t["name"] == "mcp__weather")
        .expect("the server's tools as a namespace");
    assert_eq!(namespace["tools"][0]["name"], "get_weather");
    assert_eq!(
        namespace["description"], "Use get_weather for current conditions only.",
        "the server's instructions"
    );
    let call = stream_data(&responses[0])
        .into_iter()
        .find(|d| d["type"] == "response.output_item.done" && d["item"]["type"] == "function_call")
        .expect("a function_call");
    assert_eq!(
        (&call["item"]["namespace"], &call["item"]["name"]),
        (&json!("mcp__weather"), &json!("get_weather"))
    );
    let second = json(&requests[1]);
    let output = second["input"]
        .as_array()
        .expect("input")
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("the tool's result");
    assert_eq!(output["call_id"], call["item"]["call_id"]);
    assert!(output["output"].to_string().contains(WEATHER));
    assert_same_shape_as_fixture(Host::Codex, &run);
    assert_read_true(
        &run.session,
        "inside namespace `mcp__weather`",
        "(model call call_sl_0_0 from",
    );
}

#[test]
fn a_changed_wire_shape_is_named_by_what_changed() {
    // The recorded Claude Code session, as if an update renamed ToolSearch and stopped
    // deferring: the comparison names both changes, request by request.
    let fixture = util::repo("tests/fixtures/hosts/claude-code");
    let dir = util::tempdir();
    for file in std::fs::read_dir(&fixture).expect("the Claude Code fixture") {
        let path = file.expect("entry").path();
        let text = std::fs::read_to_string(&path)
            .expect("read")
            .replace(r#"\"name\":\"ToolSearch\""#, r#"\"name\":\"ToolFinder\""#)
            .replace(r#"\"defer_loading\":true"#, r#"\"eager\":true"#);
        std::fs::write(dir.path().join(path.file_name().expect("name")), text).expect("write");
    }
    let expected = shape::of(&util::load(&fixture).events);
    let changed = shape::differences(&expected, &shape::of(&util::load(dir.path()).events));
    let said = changed.join("\n");
    for wanted in [
        "- request 1 tool - ToolSearch [",
        "+ request 1 tool - ToolFinder [",
        "- request 1 tool - DeferredToolPlaceholder [defer_loading,description,input_schema,name]",
        "+ request 1 tool - DeferredToolPlaceholder [description,eager,input_schema,name]",
        "+ request 3 tool - mcp__weather__get_weather [description,eager,input_schema,name]",
    ] {
        assert!(said.contains(wanted), "{wanted:?} not in:\n{said}");
    }
    assert!(
        !said.contains("path") && !said.contains("events"),
        "only what changed is named:\n{said}"
    );
}

#[test]
fn gemini_cli_declares_the_tool_with_its_own_name_and_an_added_property() {
    let dir = util::tempdir();
    let run = record(Host::GeminiCli, dir.path());
    assert_loop_completed(&run);
    let paths: Vec<String> = run
        .events
        .iter()
        .filter(|e| e.channel == Channel::LlmHttp && e.to == Lane::Llm)
        .filter_map(|e| e.http().and_then(|h| h.url.as_deref().map(str::to_string)))
        .collect();
    assert_eq!(paths.len(), 2, "call, answer: {paths:?}");
    assert!(
        paths
            .iter()
            .all(|p| p.ends_with("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")),
        "{paths:?}"
    );
    let requests = llm_bodies(&run.events, Lane::Llm);
    let responses = llm_bodies(&run.events, Lane::Host);
    let first = json(&requests[0]);
    let declaration = first["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
        .find(|d| d["name"] == "mcp_weather_get_weather")
        .expect("the server's tool, named mcp_<server>_<tool>");
    assert!(declaration.get("parameters").is_none());
    let properties = &declaration["parametersJsonSchema"]["properties"];
    assert_eq!(properties["location"]["type"], "string");
    assert_eq!(
        properties["wait_for_previous"]["type"], "boolean",
        "the property Gemini CLI adds to every schema"
    );
    let call = stream_data(&responses[0])
        .into_iter()
        .flat_map(|d| {
            d["candidates"][0]["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|p| p.get("functionCall").is_some())
        .expect("a functionCall part");
    assert_eq!(call["functionCall"]["name"], "mcp_weather_get_weather");
    let second = json(&requests[1]);
    let response = second["contents"]
        .as_array()
        .expect("contents")
        .iter()
        .flat_map(|c| c["parts"].as_array().into_iter().flatten())
        .find(|p| p.get("functionResponse").is_some())
        .expect("the tool's result as a functionResponse");
    assert_eq!(
        response["functionResponse"]["name"],
        "mcp_weather_get_weather"
    );
    assert!(response.to_string().contains(WEATHER));
    assert_same_shape_as_fixture(Host::GeminiCli, &run);
    assert_read_true(
        &run.session,
        "as `mcp_weather_get_weather`",
        "(model call mcp_weather_get_weather#1 from",
    );
}

/// Codex deferred the weather namespace (the recorded request is #7): `doctor` says the tool
/// is visible on demand inside it, by that request, and exits 0; `summary` flags nothing.
fn assert_deferred_namespace_read_true(session: &Path, request: &str) {
    let sightline = |command: &str| {
        util::run(
            Command::new(util::bin()).arg(command).arg(session),
            Duration::from_secs(30),
        )
    };
    let doctor = sightline("doctor");
    let said = util::text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "doctor:\n{said}");
    for wanted in [
        "✓ weather/get_weather  visible-on-demand",
        "inside namespace `mcp__weather`",
        // A fresh run's request is `#` and some seq; the fixture's is `#7`.
        &format!("the last LLM request ({request}"),
        ") names it in the model's context",
        "no search has loaded its schema yet",
    ] {
        assert!(said.contains(wanted), "{wanted:?} not in doctor:\n{said}");
    }
    assert!(!said.contains("host-filtered"), "doctor:\n{said}");
    let summary = util::text(&sightline("summary").stdout);
    assert!(
        !summary.contains("listed but not sent"),
        "summary:\n{summary}"
    );
}

#[test]
fn codex_defers_mcp_namespaces_behind_tool_search_for_a_model_it_knows() {
    assert_deferred_namespace_read_true(
        &util::repo("tests/fixtures/hosts/codex-tool-search"),
        "#7",
    );
    // With gpt-5.5 Codex does not send the namespace: it names it in a developer text and
    // offers its own `tool_search`, run by the host. The scripted model does not search
    // through Codex's tool yet, so it says it has no such tool; the session is kept as
    // ground truth for the analysis (a deferred namespace, not a host-filtered tool).
    let dir = util::tempdir();
    let run = record(Host::CodexToolSearch, dir.path());
    let stdout = util::text(&run.out.stdout);
    assert!(
        run.out.status.success() && stdout.contains("I don't have a tool called `get_weather`"),
        "{stdout}\n{}",
        util::text(&run.out.stderr)
    );
    assert_no_key(&run);
    let requests = llm_bodies(&run.events, Lane::Llm);
    let first = json(&requests[0]);
    let tools = first["tools"].as_array().expect("tools");
    assert!(
        !tools.iter().any(|t| t["name"] == "mcp__weather"),
        "no namespace sent"
    );
    let search = tools
        .iter()
        .find(|t| t["type"] == "tool_search")
        .expect("Codex's tool_search");
    assert_eq!(search["execution"], "client", "run by the host");
    assert!(search["parameters"]["properties"]["query"].is_object());
    assert!(
        requests[0].contains(
            "Deferred tool namespaces:\\n- mcp__weather: Use get_weather for current conditions only."
        ),
        "the namespace named, with the server's instructions, in a developer text"
    );
    assert_same_shape_as_fixture(Host::CodexToolSearch, &run);
    assert_deferred_namespace_read_true(&run.session, "#");
}
