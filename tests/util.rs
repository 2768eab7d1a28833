//! Shared helpers: where things are, running commands with a deadline, reading traces.

#![allow(dead_code)]

use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use sightline::trace::{Analysis, Channel, Event, Lane, LoadedTrace};

/// The `sightline` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sightline")
}

pub fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

pub fn peer(file: &str) -> String {
    peers().join(file).display().to_string()
}

/// The npm peers must be installed; say how when they are not.
pub fn require_npm_peers() {
    let sdk = peers().join("node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        sdk.exists(),
        "the npm test peers are not installed: run `tests/run.sh` (or `npm ci --prefix tests/peers`)"
    );
}

pub fn everything_server() -> Vec<String> {
    vec![
        "node".into(),
        peer("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "stdio".into(),
    ]
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Runs `cmd` to completion, killing it after `limit` so a hung peer fails the test instead of
/// hanging the suite.
pub fn run(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    wait_with_deadline(child, limit)
}

/// Like [`run`], writing `input` to the command's stdin and then closing it.
pub fn run_with_input(cmd: &mut Command, input: &[u8], limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    });
    let out = wait_with_deadline(child, limit);
    let _ = writer.join();
    out
}

pub fn wait_with_deadline(mut child: Child, limit: Duration) -> Output {
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "command did not finish within {limit:?}: {:?}",
                String::from_utf8_lossy(&err.join().unwrap_or_default())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn load(path: &Path) -> LoadedTrace {
    sightline::trace::load(path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
}

pub fn analyze(trace: &LoadedTrace) -> Analysis {
    sightline::trace::analyze(&trace.events)
}

/// Every stdio line recorded from `from` to `to`, each followed by `\n`: what crossed, rebuilt.
pub fn stdio_bytes(events: &[Event], from: &Lane, to: &Lane) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events
        .iter()
        .filter(|e| e.channel == Channel::Stdio && &e.from == from && &e.to == to)
    {
        out.extend_from_slice(&e.bytes().expect("payload"));
        out.push(b'\n');
    }
    out
}

/// Asserts two byte strings are equal, showing where they first differ.
pub fn assert_same_bytes(what: &str, left: &[u8], right: &[u8]) {
    if left == right {
        return;
    }
    let at = left
        .iter()
        .zip(right)
        .position(|(a, b)| a != b)
        .unwrap_or(left.len().min(right.len()));
    let show = |b: &[u8]| text(&b[at.saturating_sub(40)..(at + 80).min(b.len())]);
    panic!(
        "{what}: {} vs {} bytes, first difference at byte {at}:\n  left:  {:?}\n  right: {:?}",
        left.len(),
        right.len(),
        show(left),
        show(right)
    );
}

/// `sightline run SCENARIO --no-summary --trace TRACE [EXTRA...]` with no API key in the
/// environment (the scripted model answers); `scenario` is a shipped name (`weather`) or a path.
/// Fails the test, showing the run's output, unless the run succeeds.
pub fn run_scenario_to(scenario: &str, trace: &Path, extra: &[&str]) {
    let path = if scenario.ends_with(".toml") {
        PathBuf::from(scenario)
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{scenario}.toml"))
    };
    let out = run(
        Command::new(bin())
            .arg("run")
            .arg(&path)
            .args(["--no-summary", "--trace"])
            .arg(trace)
            .args(extra)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY"),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "`sightline run {scenario} {}` failed:\n{}\n{}",
        extra.join(" "),
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// `sightline export TRACE --format FORMAT [EXTRA...]`, within a minute.
pub fn export(trace: &Path, format: &str, extra: &[&str]) -> Output {
    run(
        Command::new(bin())
            .arg("export")
            .arg(trace)
            .args(["--format", format])
            .args(extra),
        Duration::from_secs(60),
    )
}

/// A path inside the repository (`scenarios`, `tests/fixtures/...`).
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A JSON file, read and parsed; the panic names the file.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The `args` a wrapped host config (`mcpServers.NAME`) now gives server `name`.
pub fn wrapped_args(config: &Path, name: &str) -> Vec<String> {
    read_json(config)["mcpServers"][name]["args"]
        .as_array()
        .expect("the server's args")
        .iter()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect()
}

/// A TCP port on 127.0.0.1 that was free a moment ago (for a child process to listen on).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr").port()
}

/// The value of the recorded HTTP header `name` (any case) of an `http` event.
pub fn header<'a>(event: &'a Event, name: &str) -> Option<&'a str> {
    let http = event.http()?;
    http.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The app in a headless `egui_kittest` harness the size of a laptop screen, after one frame.
pub fn harness(
    app: sightline::ui::SightlineApp,
) -> egui_kittest::Harness<'static, sightline::ui::SightlineApp> {
    harness_sized(app, egui::vec2(1400.0, 900.0))
}

/// [`harness`] in a window of `size`.
pub fn harness_sized(
    app: sightline::ui::SightlineApp,
    size: egui::Vec2,
) -> egui_kittest::Harness<'static, sightline::ui::SightlineApp> {
    let mut h = egui_kittest::Harness::builder()
        .with_size(size)
        .with_accessibility_check(false)
        .build_ui_state(|ui, app: &mut sightline::ui::SightlineApp| app.ui(ui), app);
    h.run();
    h
}

/// The text of an exported page's element `id` (base64 of gzip), decoded and inflated.
pub fn page_element(html: &str, id: &str) -> Vec<u8> {
    let open = format!(r#"<script type="text/plain" id="{id}">"#);
    let from = html.find(&open).expect("the element") + open.len();
    let len = html[from..].find('<').expect("its end");
    let packed = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        &html[from..from + len],
    )
    .expect("base64");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(packed.as_slice())
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

/// A child process killed when dropped.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` (which listens on `port`) and waits until it accepts connections.
pub fn listening(cmd: &mut Command, port: u16) -> Running {
    let mut child = Running(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}")),
    );
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("{cmd:?} exited early: {status}");
        }
        assert!(Instant::now() < deadline, "nothing accepts on {addr}");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}
