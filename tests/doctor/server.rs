//! Server-level codes, from real misbehaving processes (`-- CMD`), and the ones only a
//! hand-written trace shows.

use super::*;

#[test]
fn a_command_that_does_not_exist_failed_to_start() {
    let d = doctor(&["--", "/nonexistent/sightline-no-such-server", "--stdio"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("sightline-no-such-server");
    d.expect(s, "server-failed-to-start", |e, _| {
        e.process().is_some_and(|p| p.event == "spawn-failed")
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
        e.process()
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
        e.set_process(Some(info));
        e
    };
    let mut request = line(
        5,
        &Lane::Host,
        &Lane::Llm,
        Channel::LlmHttp,
        r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#,
    );
    request.set_http(Some(sightline::trace::HttpInfo {
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
    response.set_http(Some(sightline::trace::HttpInfo {
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
        ..DoctorOptions::default()
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
