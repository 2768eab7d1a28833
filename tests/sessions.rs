//! An external host watched whole: its LLM requests through `sightline llm-proxy --session`,
//! its server through `sightline proxy --session` (put there by `sightline wrap --session`), shown live by following the session folder,
//! and read back as one trace by the analysis, the doctor and `session merge`.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline::analysis::report;
use sightline::trace::Lane;
use sightline::ui::SightlineApp;

use crate::util::*;

const PROMPT: &str = "What's the weather in Seoul right now?";
const SECRET: &str = "sk-ant-EXTERNAL-HOST-SECRET";

pub fn spawn_listening(cmd: &mut Command, port: u16) -> Child {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{cmd:?} never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// SIGTERM, then wait for the exit (the proxy flushes its trace first).
pub fn stop(child: Child) {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: signalling a child we spawned and have not yet reaped.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let _ = wait_with_deadline(child, Duration::from_secs(15));
}

#[test]
fn an_external_hosts_loop_is_one_session_live_and_on_disk() {
    require_npm_peers();
    let dir = tempdir();
    let session = dir.path().join("demo");
    let session_arg = session.display().to_string();

    let (model, llm, llm_port) = model_behind_llm_proxy(&session_arg);

    // Live attach before the host starts: the session holds the LLM proxy's file, no events.
    let mut app = SightlineApp::follow(&session, std::sync::Arc::new(|| {}));
    assert_eq!(app.store().len(), 0);

    // The host's config, wrapped into the session: the server's command becomes
    // `sightline proxy --name weather --session DIR -- ...`.
    let config = dir.path().join(".mcp.json");
    let server = serde_json::json!({"command": bin(), "args": ["demo-server", "weather"]});
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {"weather": server}}).to_string(),
    )
    .expect("write config");
    let wrapped = run(
        Command::new(bin())
            .arg("wrap")
            .arg(&config)
            .args(["--session", &session_arg]),
        Duration::from_secs(30),
    );
    assert!(wrapped.status.success(), "{}", text(&wrapped.stderr));
    let args = wrapped_args(&config, "weather");
    assert!(
        args.windows(2)
            .any(|w| w == ["--session", session_arg.as_str()]),
        "{args:?}"
    );

    let out = run(
        Command::new("node")
            .arg(peer("external-host.mjs"))
            .arg(format!("http://127.0.0.1:{llm_port}"))
            .arg(PROMPT)
            .arg("--")
            .arg(server["command"].as_str().expect("command"))
            .args(&args),
        Duration::from_secs(40),
    );
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "host failed: {stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains(r#""step":"call","tool":"get_weather""#),
        "{stdout}"
    );
    assert!(stdout.contains(r#""stop_reason":"end_turn""#), "{stdout}");
    stop(llm);
    stop(model);

    // The app following the folder picked up both files' events as they were written.
    app.poll_following_now();
    let live = app.store();
    assert!(live.len() >= 8, "{} events live", live.len());
    let labels: Vec<String> = (0..live.diagram.rows.len())
        .map(|r| live.row_label(r))
        .collect();
    for wanted in [
        "tools/list",
        "tools/call get_weather",
        "tool_use get_weather",
    ] {
        assert!(
            labels.iter().any(|l| l.contains(wanted)),
            "no `{wanted}` among {labels:?}"
        );
    }

    // On disk: one file per proxy, merged in time order, renumbered, no key anywhere.
    let files: Vec<_> = std::fs::read_dir(&session)
        .expect("session dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    for f in &files {
        let bytes = std::fs::read_to_string(f).expect("read member");
        assert!(!bytes.contains(SECRET), "{} holds the API key", f.display());
    }
    let trace = load(&session);
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    assert_eq!(trace.events.len(), live.len());
    for (i, e) in trace.events.iter().enumerate() {
        assert_eq!(e.seq, i as u64);
        assert!(e.extra().contains_key("origin"), "event {i} has no origin");
    }
    assert!(trace.events.windows(2).all(|w| w[0].time <= w[1].time));
    let lanes = |l: &Lane| trace.events.iter().filter(|e| &e.to == l).count();
    assert!(lanes(&Lane::Llm) >= 2 && lanes(&Lane::server("weather")) >= 3);

    // The host's loop, correlated across the two proxies: the model's tool_use, the host's
    // tools/call, its result, and the request that returned it to the model.
    let r = report(&trace.events);
    assert_eq!(r.llm.len(), 2, "two model turns");
    assert_eq!(r.chains.len(), 1, "{:?}", r.chains);
    let chain = &r.chains[0];
    let call = chain.tools_call.expect("the tools/call was found");
    let result = chain.tools_result.expect("answered");
    let back = chain.returned_in.expect("returned to the model");
    assert!(
        chain.asked_in < call && call < result && result < back,
        "{chain:?}"
    );
    assert!(r.tools[0].not_sent.is_empty(), "{:?}", r.tools[0]);

    // The doctor reads the folder and says what this host showed its model.
    let doctor = run(
        Command::new(bin()).args(["doctor", "--json"]).arg(&session),
        Duration::from_secs(30),
    );
    let records: Vec<Value> = text(&doctor.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("doctor JSON"))
        .collect();
    let tool = records
        .iter()
        .find(|r| r["record"] == "tool" && r["tool"] == "get_weather")
        .unwrap_or_else(|| panic!("no get_weather record: {records:?}"));
    assert_eq!(tool["code"], "visible-called", "{tool}");
    assert_eq!(doctor.status.code(), Some(0));

    // `session merge` writes it as one ordinary trace.
    let merged = dir.path().join("merged.jsonl");
    let out = run(
        Command::new(bin())
            .args(["session", "merge", &session_arg, "--trace"])
            .arg(&merged),
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let merged = load(&merged);
    assert_eq!(merged.events, trace.events);
    assert_eq!(merged.header.extra["session"], "demo");
}

/// The scripted model of the weather scenario and an `llm-proxy --session SESSION` in front of
/// it, both listening: the model, the proxy and the proxy's port.
pub fn model_behind_llm_proxy(session_arg: &str) -> (Child, Child, u16) {
    let model_port = free_port();
    let model = spawn_listening(
        Command::new(bin())
            .args(["scripted-model", "--scenario", "scenarios/weather.toml"])
            .args(["--listen", &format!("127.0.0.1:{model_port}")])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        model_port,
    );
    let llm_port = free_port();
    let llm = spawn_listening(
        Command::new(bin())
            .args(["llm-proxy", "--listen", &format!("127.0.0.1:{llm_port}")])
            .args(["--upstream", &format!("http://127.0.0.1:{model_port}")])
            .args(["--session", session_arg]),
        llm_port,
    );
    (model, llm, llm_port)
}

/// Records the weather loop of an external host (the TS SDK peer) through `llm-proxy --session`
/// and a wrapped `proxy --session` into `dir/demo`, and returns the session folder.
pub fn record_external_session(dir: &std::path::Path) -> std::path::PathBuf {
    let session = dir.join("demo");
    let session_arg = session.display().to_string();
    let (model, llm, llm_port) = model_behind_llm_proxy(&session_arg);
    let out = run(
        Command::new("node")
            .arg(peer("external-host.mjs"))
            .arg(format!("http://127.0.0.1:{llm_port}"))
            .arg(PROMPT)
            .arg("--")
            .arg(bin())
            .args([
                "proxy",
                "--name",
                "weather",
                "--session",
                &session_arg,
                "--",
            ])
            .args([bin(), "demo-server", "weather"]),
        Duration::from_secs(40),
    );
    assert!(out.status.success(), "host failed: {}", text(&out.stderr));
    stop(llm);
    stop(model);
    session
}

/// A session folder followed while its two recorders write it, a few lines at a time: after
/// every poll the app's report and diagram, grown from the appended events, are the whole
/// analysis of the events it holds.
#[test]
fn a_followed_session_grows_into_the_whole_analysis() {
    use sightline::analysis::diagram;
    use sightline::trace::{Channel, Header, TraceWriter};
    let dir = tempdir();
    let session = dir.path().join("growing");
    std::fs::create_dir_all(&session).expect("session dir");
    // The primitives tour as two recorders saw it: the host's LLM half, and the server's.
    let tour = load(std::path::Path::new(
        "tests/fixtures/narration/primitives-tour-2026-07-28.jsonl",
    ));
    let model_side =
        |e: &sightline::trace::Event| matches!(e.channel, Channel::LlmHttp | Channel::Note);
    let mut writers = [
        TraceWriter::create(&session.join("llm.jsonl"), &Header::new("llm")).expect("create"),
        TraceWriter::create(&session.join("server.jsonl"), &Header::new("server")).expect("create"),
    ];
    for w in &mut writers {
        w.flush().expect("flush");
    }
    let mut app = SightlineApp::follow(&session, std::sync::Arc::new(|| {}));
    let mut polls = 0;
    for batch in tour.events.chunks(3) {
        for e in batch {
            let w = &mut writers[usize::from(!model_side(e))];
            w.append(e).expect("append");
            w.flush().expect("flush");
        }
        app.poll_following_now();
        polls += 1;
        let store = app.store();
        let full = report(&store.events);
        assert_eq!(*store.report, full, "after poll {polls}");
        assert_eq!(
            store.diagram,
            diagram::build(&store.events, &full),
            "after poll {polls}"
        );
    }
    assert_eq!(app.store().len(), tour.events.len());
    assert!(!app.store().report.chains.is_empty());
}
