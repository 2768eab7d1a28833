//! The trace in a browser, from the command line: `export --format html` writes one file with
//! the viewer and the trace's bytes, `serve` answers only with its token off the loopback and
//! streams a growing trace as Server-Sent Events. (The page itself, in Chromium, is tested by
//! tests/web/run.sh.) Both need the web bundle: tests/run.sh builds it (tools/build-web.sh).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

fn export_html(trace: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    run(
        Command::new(bin())
            .arg("export")
            .arg(trace)
            .args(["--format", "html", "--out"])
            .arg(out)
            .args(extra),
        Duration::from_secs(60),
    )
}

#[test]
fn export_html_holds_the_viewer_and_the_trace_bytes_and_names_bad_languages() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let out = dir.path().join("weather.html");
    let done = export_html(&trace, &out, &["--lang", "pt"]);
    assert!(
        done.status.success(),
        "export failed (tools/build-web.sh builds the viewer): {}",
        text(&done.stderr)
    );
    let html = std::fs::read_to_string(&out).expect("html");
    let bytes = std::fs::read(&trace).expect("trace");
    assert!(
        page_element(&html, "sightline-trace") == bytes,
        "the trace's bytes as they are"
    );
    assert!(html.contains("<html lang=\"pt\">"));
    assert!(
        html.contains("connect-src 'none'"),
        "an exported page may not connect anywhere"
    );
    assert!(
        page_element(&html, "sightline-wasm").starts_with(b"\0asm"),
        "the wasm module, embedded"
    );
    assert!(
        html.len() < 15 << 20,
        "the weather page is {} bytes, over 15 MB",
        html.len()
    );

    let bad = export_html(&trace, &out, &["--lang", "fr"]);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("unknown --lang `fr`: use en, pt or es"));
}

/// The viewer links no tokenizer: the page carries the desktop's exact counts of every
/// OpenAI-shaped request's tools, and the viewer's figures from them are the desktop's.
#[test]
fn an_exported_page_carries_the_desktops_token_counts() {
    use sightline::analysis::tokens::{Carried, Tiktoken, tool_tokens};
    let dir = tempdir();
    for provider in ["openai-chat", "openai"] {
        let trace = dir.path().join(format!("{provider}.jsonl"));
        run_scenario_to(
            "weather",
            &trace,
            &["--provider", provider, "--model", "scripted"],
        );
        let out = dir.path().join(format!("{provider}.html"));
        let done = export_html(&trace, &out, &[]);
        assert!(done.status.success(), "{}", text(&done.stderr));
        let html = std::fs::read_to_string(&out).expect("html");
        let open = r#"<script type="application/json" id="sightline-config">"#;
        let from = html.find(open).expect("the config") + open.len();
        let config = &html[from..from + html[from..].find("</script>").expect("its end")];
        let config: serde_json::Value = serde_json::from_str(config).expect("json config");
        let carried: Carried =
            serde_json::from_value(config["tokens"].clone()).expect("the page's counts");
        let events = load(&trace).events;
        let report = sightline::analysis::report(&events);
        let desktop = tool_tokens(&report, &Tiktoken);
        assert!(desktop.len() >= 2, "{provider}: {desktop:?}");
        assert!(
            desktop.iter().all(|t| t.exact && t.total > 0),
            "{desktop:?}"
        );
        assert_eq!(tool_tokens(&report, &carried), desktop, "{provider}");
    }
}

/// `sightline serve` running; killed when dropped.
pub struct Served {
    pub child: Child,
    /// Kept open: the server's stdout.
    _out: BufReader<std::process::ChildStdout>,
    pub port: u16,
    pub token: Option<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve(what: &Path, listen: &str) -> Served {
    let mut child = Command::new(bin())
        .arg("serve")
        .arg(what)
        .args(["--listen", listen])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sightline serve");
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    out.read_line(&mut line).expect("read the URL");
    // "serving PATH at http://127.0.0.1:PORT/?token=T" (or "<this machine's address>:PORT").
    let url = line
        .split(" at ")
        .nth(1)
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .trim();
    let after = url.rsplit_once(':').expect("a port").1;
    let port = after
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url:?}"));
    let token = url
        .split("token=")
        .nth(1)
        .map(|t| t.split_whitespace().next().unwrap_or("").to_string());
    Served {
        child,
        _out: out,
        port,
        token,
    }
}

/// One HTTP/1.1 GET; the status and what the body had when `enough` said so (or it ended).
pub fn get(port: u16, path: &str, host: &str, enough: impl Fn(&str) -> bool) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        if enough(&String::from_utf8_lossy(&got)) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    (status, text)
}

#[test]
fn serve_off_the_loopback_answers_403_without_its_token() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let served = serve(&trace, "0.0.0.0:0");
    let token = served.token.clone().expect("a token off the loopback");
    assert_eq!(token.len(), 32);
    let host = format!("127.0.0.1:{}", served.port);
    for path in ["/", "/events", "/?token=nope", &format!("/?token={token}0")] {
        let (status, body) = get(served.port, path, &host, |_| false);
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body.contains("token"), "{body}");
    }
    let (status, page) = get(served.port, &format!("/?token={token}"), &host, |_| false);
    assert_eq!(status, 200);
    assert!(page.contains(&format!("\"live\":\"events?token={token}\"")));
    assert!(page.contains("connect-src 'self'"));
}

#[test]
fn serve_streams_a_growing_trace_and_refuses_other_hosts_on_the_loopback() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let text_of = std::fs::read_to_string(&trace).expect("trace");
    let lines: Vec<&str> = text_of.lines().collect();
    let growing = dir.path().join("growing.jsonl");
    std::fs::write(&growing, format!("{}\n{}\n", lines[0], lines[1])).expect("write");
    let served = serve(&growing, "127.0.0.1:0");
    assert!(served.token.is_none(), "no token on the loopback");
    let host = format!("127.0.0.1:{}", served.port);

    // A DNS name rebound to 127.0.0.1 is not the loopback.
    let (status, _) = get(
        served.port,
        "/",
        &format!("evil.example:{}", served.port),
        |_| false,
    );
    assert_eq!(status, 403);

    // The stream: the header, the event there is, then the ones written while it is open.
    let writer = {
        let growing = growing.clone();
        let rest: Vec<String> = lines[2..].iter().map(|l| format!("{l}\n")).collect();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&growing)
                .expect("open");
            for l in rest {
                f.write_all(l.as_bytes()).expect("append");
            }
        })
    };
    let total = lines.len() - 1;
    let last_id = format!("id: {}\n", total - 1);
    let (status, body) = get(served.port, "/events", &host, |b| b.contains(&last_id));
    writer.join().expect("writer");
    assert_eq!(status, 200);
    assert!(body.contains("content-type: text/event-stream"), "{body}");
    assert!(body.contains("event: header\ndata: {"), "{body}");
    let ids = body.matches("\nid: ").count();
    assert_eq!(ids, total, "every event once: {body}");
    // Each event is one trace line, its raw text as recorded.
    let first: sightline::trace::Event = serde_json::from_str(lines[1]).expect("event");
    assert!(body.contains(&serde_json::to_string(&first).expect("json")));
}

/// A served trace with a line that is not an event: the stream carries the warning typed, not
/// as English text, so the page says it in the page's language (issue 16, Language).
#[test]
fn serve_sends_the_loaders_warnings_typed_for_the_page_to_say() {
    use sightline::analysis::trace_error::warning;
    use sightline::i18n::{Language, Words};
    use sightline::trace::{LineProblem, LoadWarning};

    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let mut text = std::fs::read_to_string(&trace).expect("trace");
    let bad = text.lines().count() + 1;
    text.push_str("not an event\n");
    std::fs::write(&trace, text).expect("write");
    let served = serve(&trace, "127.0.0.1:0");
    let host = format!("127.0.0.1:{}", served.port);
    let (status, body) = get(served.port, "/events", &host, |b| {
        b.contains("event: warning\ndata: ") && b.ends_with("\n\n")
    });
    assert_eq!(status, 200);
    let data = body
        .split("event: warning\ndata: ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("no warning in {body}"));
    assert!(!data.contains("not a valid event"), "English sent: {data}");
    let w: LoadWarning = serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}"));
    assert_eq!(w.line, bad);
    let problem = match &w.problem {
        LineProblem::InFile { problem, .. } => problem.as_ref(),
        other => other,
    };
    assert!(matches!(problem, LineProblem::NotEvent { .. }), "{w:?}");
    let en = warning(&w).say(Words::of(Language::En));
    assert!(en.starts_with(&format!("line {bad}: ")), "{en}");
    assert!(en.contains("not a valid event, skipped: "), "{en}");
    for (lang, start) in [(Language::Pt, "linha"), (Language::Es, "línea")] {
        let said = warning(&w).say(Words::of(lang));
        assert!(said.starts_with(&format!("{start} {bad}: ")), "{said}");
        let english = crate::language::english_sentences(&said);
        assert!(english.is_empty(), "{lang:?}: {english:?} in {said}");
    }
}
