//! `sightline doctor`: one test per reason code, each against a real process (the misbehaving
//! servers in `tests/peers/doctor/`, the built-in servers through scenarios) or, for codes only
//! an odd host produces, a trace written by hand. Each test checks the code, the `seq` it
//! points at (and that the event there is the one that proves it) and the exit status.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sightline::analysis::doctor::{self, Code, DoctorOptions};
use sightline::trace::{Analysis, Channel, Event, Header, Kind, Lane, ProcessInfo, write_trace};
use sightline::wire::api::ApiShape;

use crate::util::{self, repo};

const LIMIT: Duration = Duration::from_secs(120);

fn doctor_peer(script: &str) -> String {
    util::peers()
        .join("doctor")
        .join(script)
        .display()
        .to_string()
}

/// One `sightline doctor --json` run, with the trace it read.
struct Doctor {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    records: Vec<Value>,
    events: Vec<Event>,
    analysis: Analysis,
    _dir: tempfile::TempDir,
}

/// Runs `sightline doctor --json ARGS...`; a scenario or a probe records into a temp trace.
fn doctor(args: &[&str]) -> Doctor {
    let dir = util::tempdir();
    let recorded = dir.path().join("doctor.jsonl");
    let mut cmd = Command::new(util::bin());
    cmd.arg("doctor")
        .arg("--json")
        .arg("--trace")
        .arg(&recorded)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    let out = util::run(&mut cmd, LIMIT);
    let stdout = util::text(&out.stdout);
    let stderr = util::text(&out.stderr);
    let records = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    // A trace given as input is read in place; otherwise the one recorded.
    let read = args
        .iter()
        .take_while(|a| **a != "--")
        .find(|a| a.ends_with(".jsonl"))
        .map_or(recorded, PathBuf::from);
    let events = if read.exists() {
        util::load(&read).events
    } else {
        Vec::new()
    };
    let analysis = sightline::trace::analyze(&events);
    Doctor {
        status: out.status.code(),
        stdout,
        stderr,
        records,
        events,
        analysis,
        _dir: dir,
    }
}

/// `sightline doctor --json ARGS -- python3 tests/peers/doctor/SCRIPT`.
fn probe(script: &str, args: &[&str]) -> Doctor {
    let peer = doctor_peer(script);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "python3", &peer]);
    doctor(&all)
}

impl Doctor {
    fn describe(&self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    fn record(&self, kind: &str, key: &str, name: &str) -> &Value {
        self.records
            .iter()
            .find(|r| r["record"] == kind && r[key] == name)
            .unwrap_or_else(|| panic!("no {kind} record for {name}:\n{}", self.describe()))
    }

    fn tool(&self, name: &str) -> &Value {
        self.record("tool", "tool", name)
    }

    fn server(&self, name: &str) -> &Value {
        self.record("server", "server", name)
    }

    fn index(&self, seq: &Value) -> usize {
        let seq = seq
            .as_u64()
            .unwrap_or_else(|| panic!("no seq ({seq}):\n{}", self.describe()));
        self.events
            .iter()
            .position(|e| e.seq == seq)
            .unwrap_or_else(|| panic!("no event #{seq} in the trace"))
    }

    /// Asserts `record` has `code` and points at an event satisfying `proves`.
    fn expect(&self, record: &Value, code: &str, proves: impl Fn(&Event, usize) -> bool) {
        assert_eq!(record["code"], code, "{record}\n{}", self.describe());
        let i = self.index(&record["seq"]);
        assert!(
            proves(&self.events[i], i),
            "#{} does not prove {code}: {:?}\n{}",
            self.events[i].seq,
            self.events[i],
            self.describe()
        );
    }

    fn kind(&self, i: usize) -> Kind {
        self.analysis.derived[i].kind
    }

    fn method(&self, i: usize) -> Option<&str> {
        self.analysis.derived[i].method.as_deref()
    }

    fn is_note(&self, i: usize, text: &str) -> bool {
        let e = &self.events[i];
        e.channel == Channel::Note && e.from == Lane::Host && e.text().contains(text)
    }

    fn is_llm_request(&self, i: usize) -> bool {
        let e = &self.events[i];
        e.channel == Channel::LlmHttp && e.from == Lane::Host && e.to == Lane::Llm
    }
}

/// A shipped scenario with `[host]` (or another table) changed, written to a temp file.
fn variant(dir: &Path, scenario: &str, table: &str, key: &str, value: toml::Value) -> PathBuf {
    let path = repo(scenario);
    let mut doc: toml::Table = std::fs::read_to_string(&path)
        .expect("read scenario")
        .parse()
        .expect("scenario is TOML");
    doc.entry(table)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .expect("a table")
        .insert(key.into(), value);
    let out = dir.join(path.file_name().expect("file name"));
    std::fs::write(&out, toml::to_string(&doc).expect("serialize")).expect("write variant");
    out
}

// ---------------------------------------------------------------------------------------------
// Server-level codes, from real misbehaving processes (`-- CMD`)
// ---------------------------------------------------------------------------------------------

#[test]
fn a_command_that_does_not_exist_failed_to_start() {
    let d = doctor(&["--", "/nonexistent/sightline-no-such-server", "--stdio"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("sightline-no-such-server");
    d.expect(s, "server-failed-to-start", |e, _| {
        e.process
            .as_ref()
            .is_some_and(|p| p.event == "spawn-failed")
    });
    let detail = s["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("/nonexistent/sightline-no-such-server --stdio"),
        "names the command: {detail}"
    );
    assert!(d.stderr.contains("recording to"), "trace path on stderr");
}

#[test]
fn a_server_that_exits_before_answering_tools_list_crashed_with_its_stderr_tail() {
    let d = probe("crash_on_list.py", &["--expect", "get_weather"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("crash_on_list");
    d.expect(s, "server-crashed", |e, _| {
        e.process
            .as_ref()
            .is_some_and(|p| p.event == "exit" && p.code == Some(3))
    });
    assert_eq!(
        s["stderr_tail"],
        json!([
            "loading plugin 2",
            "loading plugin 3",
            "loading plugin 4",
            "loading plugin 5",
            "fatal: plugin 6 is missing"
        ]),
        "the last five stderr lines"
    );
    let detail = s["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("fatal: plugin 6 is missing"), "{detail}");
    assert!(!detail.contains("loading plugin 1"), "{detail}");
    // The expected tool carries the server's reason.
    let t = d.tool("get_weather");
    assert_eq!(
        (t["code"].clone(), t["seq"].clone()),
        (s["code"].clone(), s["seq"].clone())
    );
    assert_eq!(t["visible"], false);
    assert_eq!(t["expected"], true);
}

#[test]
fn an_initialize_error_is_a_failed_handshake() {
    let d = probe("init_error.py", &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("init_error");
    d.expect(s, "handshake-failed", |_, i| {
        d.kind(i) == Kind::Error && d.method(i) == Some("initialize")
    });
    assert!(
        s["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("database unavailable")
    );
}

#[test]
fn an_unanswered_initialize_is_a_failed_handshake_not_a_crash() {
    let d = probe("init_hang.py", &["--timeout-secs", "1"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    d.expect(d.server("init_hang"), "handshake-failed", |_, i| {
        d.kind(i) == Kind::Request && d.method(i) == Some("initialize")
    });
    assert!(
        (0..d.events.len()).any(|i| d.is_note(i, "gives up")),
        "the probe says it gave up"
    );
}

#[test]
fn a_refused_protocol_version_is_reported_with_what_the_server_supports() {
    let d = probe("version_refused.py", &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("version_refused");
    d.expect(s, "protocol-version-refused", |_, i| {
        d.kind(i) == Kind::Error && d.analysis.derived[i].error().map(|e| e.0) == Some(-32022)
    });
    assert!(
        s["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("2099-01-01")
    );

    // A result naming a revision the host cannot use is a refusal too.
    let peer = doctor_peer("version_refused.py");
    let d = doctor(&["--", "python3", &peer, "--answer"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    d.expect(
        d.server("version_refused"),
        "protocol-version-refused",
        |_, i| d.kind(i) == Kind::Response && d.method(i) == Some("initialize"),
    );
}

#[test]
fn a_server_without_the_tools_capability_is_not_asked_for_tools() {
    let d = probe("no_tools_capability.py", &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    d.expect(
        d.server("no_tools_capability"),
        "no-tools-capability",
        |_, i| d.kind(i) == Kind::Response && d.method(i) == Some("initialize"),
    );
    assert!(
        !(0..d.events.len()).any(|i| d.method(i) == Some("tools/list")),
        "a strict host does not send tools/list"
    );
}

#[test]
fn a_tools_list_error_points_at_the_error() {
    let d = probe("tools_list_error.py", &["--expect", "get_weather"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("tools_list_error");
    d.expect(s, "tools-list-error", |_, i| {
        d.kind(i) == Kind::Error && d.method(i) == Some("tools/list")
    });
    assert_eq!(d.tool("get_weather")["code"], "tools-list-error");
}

#[test]
fn tools_list_never_sent_from_a_hand_written_trace() {
    let dir = util::tempdir();
    let path = dir.path().join("never-sent.jsonl");
    let server = Lane::server("weather");
    let t = sightline::trace::now();
    let line = |seq: u64, from: &Lane, to: &Lane, channel: Channel, raw: &str| {
        Event::with_bytes(
            seq,
            t,
            from.clone(),
            to.clone(),
            channel,
            raw.as_bytes().to_vec(),
        )
    };
    let process = |seq: u64, from: &Lane, to: &Lane, info: ProcessInfo| {
        let mut e = line(seq, from, to, Channel::Process, "");
        e.raw = None;
        e.process = Some(Box::new(info));
        e
    };
    let mut request = line(
        5,
        &Lane::Host,
        &Lane::Llm,
        Channel::LlmHttp,
        r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#,
    );
    request.http = Some(Box::new(sightline::trace::HttpInfo {
        method: Some("POST".into()),
        url: Some("https://api.anthropic.com/v1/messages".into()),
        ..Default::default()
    }));
    let mut response = line(
        6,
        &Lane::Llm,
        &Lane::Host,
        Channel::LlmHttp,
        r#"{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"I have no tools."}],"stop_reason":"end_turn"}"#,
    );
    response.http = Some(Box::new(sightline::trace::HttpInfo {
        status: Some(200),
        ..Default::default()
    }));
    let events = vec![
        line(
            0,
            &Lane::User,
            &Lane::Host,
            Channel::Note,
            "What's the weather?",
        ),
        process(
            1,
            &Lane::Host,
            &server,
            ProcessInfo {
                event: "spawn".into(),
                command: vec!["weather".into()],
                pid: Some(42),
                ..Default::default()
            },
        ),
        line(
            2,
            &Lane::Host,
            &server,
            Channel::Stdio,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"odd-host","version":"1"}}}"#,
        ),
        line(
            3,
            &server,
            &Lane::Host,
            Channel::Stdio,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"weather","version":"1"}}}"#,
        ),
        line(
            4,
            &Lane::Host,
            &server,
            Channel::Stdio,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        request,
        response,
        process(
            7,
            &server,
            &Lane::Host,
            ProcessInfo {
                event: "exit".into(),
                pid: Some(42),
                code: Some(0),
                ..Default::default()
            },
        ),
    ];
    write_trace(&path, &Header::new("an odd host"), &events).expect("write trace");

    let trace = path.display().to_string();
    let d = doctor(&[&trace, "--expect", "get_weather"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    d.expect(d.server("weather"), "tools-list-never-sent", |_, i| {
        d.kind(i) == Kind::Response && d.method(i) == Some("initialize")
    });
    let t = d.tool("get_weather");
    assert_eq!(
        (t["code"].as_str(), t["seq"].as_u64()),
        (Some("tools-list-never-sent"), Some(3))
    );

    // The library gives the same answer.
    let report = sightline::analysis::report(&events);
    let options = DoctorOptions {
        provider: ApiShape::Openai,
        expect: vec!["get_weather".into()],
    };
    let diagnosis = doctor::diagnose(&events, &report, &options);
    let server = diagnosis.server("weather").expect("server finding");
    assert_eq!(
        (server.code, server.seq),
        (Some(Code::ToolsListNeverSent), Some(3))
    );
    assert_eq!(diagnosis.exit_status(), 1);
    // With an LLM request, its own shape wins over `provider`.
    assert_eq!(diagnosis.basis.shape(), ApiShape::Anthropic);
}

// ---------------------------------------------------------------------------------------------
// Tool-level codes
// ---------------------------------------------------------------------------------------------

#[test]
fn invisible_tool_names_are_rejected_with_the_hosts_note_as_evidence() {
    let d = doctor(&["scenarios/invisible-tool.toml"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("weather.lookup");
    d.expect(t, "name-rejected", |_, i| {
        d.is_note(i, "host drops tool `weather.lookup`")
    });
    assert_eq!(t["visible"], false);
    let detail = t["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Anthropic and OpenAI"),
        "says which provider allows what: {detail}"
    );
    d.expect(d.tool("get forecast"), "name-rejected", |_, i| {
        d.is_note(i, "host drops tool `get forecast`")
    });
    let t = d.tool("get_time");
    d.expect(t, "visible-not-called", |_, i| d.is_llm_request(i));
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("not a visibility problem")
    );
    assert_eq!(d.server("oddnames")["visible"], 1);
}

#[test]
fn a_visible_tool_the_model_called_points_at_its_tools_call() {
    let d = doctor(&["scenarios/weather.toml", "--expect", "get_weather"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    let t = d.tool("get_weather");
    d.expect(t, "visible-called", |_, i| {
        d.kind(i) == Kind::Request && d.method(i) == Some("tools/call")
    });
    assert_eq!(t["visible"], true);
    assert_eq!(t["expected"], true);
}

#[test]
fn two_servers_one_name_is_a_duplicate_renamed_or_dropped() {
    // Shipped: the host prefixes both; both visible, renamed.
    let d = doctor(&["scenarios/two-servers.toml"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    for server in ["weather", "forecast"] {
        let t = d
            .records
            .iter()
            .find(|r| r["tool"] == "get_weather" && r["server"] == server)
            .unwrap_or_else(|| panic!("no get_weather of {server}:\n{}", d.describe()));
        d.expect(t, "duplicate-name", |_, i| {
            d.is_note(
                i,
                &format!("host shows tool `get_weather` of server `{server}`"),
            )
        });
        assert_eq!(t["visible"], true);
        assert!(
            t["detail"]
                .as_str()
                .unwrap_or_default()
                .contains(&format!("{server}__get_weather"))
        );
    }

    // prefix = "never": the second server's tool is dropped.
    let dir = util::tempdir();
    let never = variant(
        dir.path(),
        "scenarios/two-servers.toml",
        "host",
        "prefix",
        "never".into(),
    );
    let d = doctor(&[never.to_str().expect("utf-8 path")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let dropped = d
        .records
        .iter()
        .find(|r| r["tool"] == "get_weather" && r["server"] == "forecast")
        .expect("forecast/get_weather");
    d.expect(dropped, "duplicate-name", |_, i| {
        d.is_note(i, "host drops tool `get_weather` of server `forecast`")
    });
    assert_eq!(dropped["visible"], false);
    let kept = d
        .records
        .iter()
        .find(|r| r["tool"] == "get_weather" && r["server"] == "weather")
        .expect("weather/get_weather");
    assert_eq!(kept["visible"], true, "{kept}");
}

#[test]
fn schemas_that_are_not_objects_or_not_json_schema() {
    let d = probe("schemas.py", &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let listing =
        |_: &Event, i: usize| d.kind(i) == Kind::Response && d.method(i) == Some("tools/list");
    d.expect(d.tool("string_schema"), "schema-not-object", listing);
    d.expect(d.tool("no_schema"), "schema-not-object", listing);
    let t = d.tool("bad_type");
    d.expect(t, "schema-invalid", listing);
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("/properties/a/type"),
        "points into the schema: {t}"
    );
    d.expect(d.tool("get_weather"), "visible-not-called", listing);
    // Anthropic documents no description limit.
    assert_eq!(d.tool("long_description")["code"], "visible-not-called");
}

#[test]
fn openai_limits_tool_count_and_description_length() {
    let d = probe("many_tools.py", &["--provider", "openai"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let tools: Vec<&Value> = d.records.iter().filter(|r| r["record"] == "tool").collect();
    assert_eq!(tools.len(), 130);
    for t in &tools {
        d.expect(t, "provider-limit", |_, i| {
            d.kind(i) == Kind::Response && d.method(i) == Some("tools/list")
        });
    }
    assert!(
        tools[0]["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("128")
    );
    let d = probe("many_tools.py", &["--provider", "anthropic"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());

    let d = probe("schemas.py", &["--provider", "openai-chat"]);
    let t = d.tool("long_description");
    d.expect(t, "provider-limit", |_, i| {
        d.method(i) == Some("tools/list")
    });
    assert!(t["detail"].as_str().unwrap_or_default().contains("1024"));
}

#[test]
fn list_changed_without_a_new_list_is_stale() {
    let dir = util::tempdir();
    let stale = variant(
        dir.path(),
        "scenarios/list-changed.toml",
        "host",
        "refetch_on_list_changed",
        false.into(),
    );
    let d = doctor(&[stale.to_str().expect("utf-8"), "--expect", "bonus_fact"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let is_list_changed = |_: &Event, i: usize| {
        d.kind(i) == Kind::Notification && d.method(i) == Some("notifications/tools/list_changed")
    };
    let s = d.server("tour");
    d.expect(s, "stale-list", is_list_changed);
    let t = d.tool("bonus_fact");
    d.expect(t, "stale-list", is_list_changed);
    assert_eq!(t["visible"], false);
    assert_eq!(d.tool("unlock_bonus")["code"], "visible-called");

    // The shipped scenario lists again: nothing is stale, and bonus_fact is visible.
    let d = doctor(&["scenarios/list-changed.toml", "--expect", "bonus_fact"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.tool("bonus_fact")["code"], "visible-called");
    assert_eq!(d.server("tour")["code"], Value::Null);
}

#[test]
fn a_denied_tool_is_filtered_by_the_host() {
    let dir = util::tempdir();
    let deny = variant(
        dir.path(),
        "scenarios/weather.toml",
        "host",
        "deny",
        toml::Value::Array(vec!["get_weather".into()]),
    );
    let d = doctor(&[deny.to_str().expect("utf-8")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("get_weather");
    d.expect(t, "host-filtered", |_, i| d.is_note(i, "`deny`"));
    assert_eq!(t["visible"], false);
}

#[test]
fn an_all_or_nothing_host_drops_the_whole_server() {
    let dir = util::tempdir();
    let all_or_nothing = variant(
        dir.path(),
        "scenarios/invisible-tool.toml",
        "host",
        "on_invalid_tool",
        "drop-server".into(),
    );
    let d = doctor(&[all_or_nothing.to_str().expect("utf-8")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("get_time");
    d.expect(t, "server-dropped", |_, i| {
        d.is_note(i, "host drops tool `get_time`") && d.is_note(i, "all or nothing")
    });
    assert!(
        t["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("weather.lookup")
    );
    assert_eq!(d.tool("weather.lookup")["code"], "name-rejected");
    assert_eq!(d.server("oddnames")["visible"], 0);
}

#[test]
fn an_expected_tool_nobody_listed() {
    let d = doctor(&[
        "--expect",
        "nope",
        "--",
        util::bin(),
        "demo-server",
        "weather",
    ]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("nope");
    d.expect(t, "expected-not-listed", |_, i| {
        d.kind(i) == Kind::Response && d.method(i) == Some("tools/list")
    });
    assert_eq!(t["server"], Value::Null);
    let t = d.tool("get_weather");
    d.expect(t, "visible-not-called", |_, i| {
        d.method(i) == Some("tools/list")
    });
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("would be sent")
    );

    // Without the expectation, everything would be visible.
    let d = doctor(&["--", util::bin(), "demo-server", "weather"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
}

// ---------------------------------------------------------------------------------------------
// Inputs, output and exit status
// ---------------------------------------------------------------------------------------------

#[test]
fn pages_of_tools_list_are_one_listing_on_either_lifecycle() {
    for protocol in ["2025-11-25", "auto"] {
        let d = probe("paged.py", &["--protocol", protocol]);
        assert_eq!(d.status, Some(0), "{protocol}: {}", d.describe());
        assert_eq!(d.server("paged")["listed"], 2, "{protocol}");
        assert_eq!(d.tool("get_time")["code"], "visible-not-called");
    }
    let d = doctor(&[
        "--protocol",
        "2026-07-28",
        "--",
        util::bin(),
        "demo-server",
        "weather",
    ]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.server("weather")["revision"], "2026-07-28");
}

#[test]
fn human_output_groups_by_server_and_ends_with_a_verdict() {
    let out = util::run(
        Command::new(util::bin())
            .args(["doctor", "scenarios/invisible-tool.toml"])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = util::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("judged against the last LLM request #"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("server oddnames (2025-11-25): listed 4 tool(s)"),
        "{text}"
    );
    let bad = lines
        .iter()
        .find(|l| l.contains("oddnames/weather.lookup"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        bad.starts_with("  ✗ oddnames/weather.lookup  name-rejected  #"),
        "{bad}"
    );
    assert!(
        bad.contains("→ rename it on the server, e.g. `weather_lookup`"),
        "{bad}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  ✓ oddnames/get_time  visible-not-called  #"))
    );
    assert_eq!(
        lines.last().copied(),
        Some("verdict: 3 of 4 tools not visible to the model: name-rejected ×3")
    );
    assert!(
        util::text(&out.stderr).contains("recording to"),
        "the temp trace is named"
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let run = |args: &[&str]| util::run(Command::new(util::bin()).arg("doctor").args(args), LIMIT);
    assert_eq!(run(&[]).status.code(), Some(2), "no input");
    let missing = run(&["/nonexistent/trace.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(util::text(&missing.stderr).contains("/nonexistent/trace.jsonl"));
    assert_eq!(run(&["/nonexistent/scenario.toml"]).status.code(), Some(2));
    assert_eq!(
        run(&["--provider", "gemini", "x.jsonl"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["x.jsonl", "--", "cmd"]).status.code(),
        Some(2),
        "a trace and a command"
    );
}
