//! `sightline serve` at its edges (issue 37): a stop signal with pages open, many clients, a
//! trace that is replaced under it, a FIFO, a resume id out of range. Real `serve` processes
//! and raw HTTP/1.1 clients on 127.0.0.1.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::util::*;
use crate::web_page::serve;

fn weather_trace(dir: &Path) -> PathBuf {
    let trace = dir.join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    trace
}

/// An `/events` stream opened with `extra` request headers, read until `enough` says so.
fn open_events(port: u16, extra: &str, enough: impl Fn(&str) -> bool) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\n"
    )
    .expect("request");
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && !enough(&String::from_utf8_lossy(&got)) {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    (stream, String::from_utf8_lossy(&got).into_owned())
}

/// Sends `signal` (`-TERM`, `-INT`) to `pid`.
fn signal(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(ok.success());
}

#[test]
fn serve_ends_open_streams_and_exits_on_a_stop_signal() {
    let dir = tempdir();
    let trace = weather_trace(dir.path());
    for sig in ["-TERM", "-INT"] {
        let mut served = serve(&trace, "127.0.0.1:0");
        let (mut a, got) = open_events(served.port, "", |t| t.contains("event: header"));
        assert!(got.contains("event: header"), "{got}");
        let (_b, _) = open_events(served.port, "", |t| t.contains("event: header"));
        let started = Instant::now();
        signal(served.child.id(), sig);
        let status = loop {
            if let Some(status) = served.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(8),
                "{sig}: serve still running {:?} after the signal with two streams open",
                started.elapsed()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "{sig}: {status:?}");
        // The open stream was ended, not left hanging.
        let mut rest = Vec::new();
        let _ = a.read_to_end(&mut rest);
    }
}

#[test]
fn serve_resumes_after_the_last_id_without_wrapping_and_titles_by_file_name() {
    let dir = tempdir();
    let trace = weather_trace(dir.path());
    let served = serve(&trace, "127.0.0.1:0");
    // An id past every event: nothing old is sent again, from the first event or otherwise.
    let (_s, got) = open_events(
        served.port,
        "Last-Event-ID: 18446744073709551615\r\n",
        |t| t.contains("event: header"),
    );
    assert!(got.contains("event: header"), "{got}");
    std::thread::sleep(Duration::from_millis(500));
    let (_s, again) = open_events(
        served.port,
        "Last-Event-ID: 18446744073709551615\r\n",
        |t| t.contains("event: header") && t.contains("\n\n"),
    );
    assert!(!again.contains("\nid: "), "events sent again: {again}");
    // The page names the file, not where it sits on the server.
    let (status, page) = crate::web_page::get(
        served.port,
        "/",
        &format!("127.0.0.1:{}", served.port),
        |_| false,
    );
    assert_eq!(status, 200);
    let title = page
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_else(|| panic!("no title in the page"));
    assert!(title.contains("weather.jsonl"), "{title}");
    let folder = dir.path().to_string_lossy().into_owned();
    assert!(!title.contains(&folder), "{title}");
}

/// `mkfifo PATH`.
fn fifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(ok.success());
}

/// A FIFO given as the trace is refused at once, with exit 2 and the path: opening it would
/// wait for a writer forever (`serve` then answered nothing and ignored SIGTERM; `summary`,
/// `check`, `diff` hung). A FIFO among a session's files is skipped with a warning.
#[test]
fn a_fifo_is_refused_as_a_trace_and_skipped_in_a_session() {
    let dir = tempdir();
    let trace = weather_trace(dir.path());
    let pipe = dir.path().join("pipe.jsonl");
    fifo(&pipe);
    let (t, p) = (trace.to_str().unwrap(), pipe.to_str().unwrap());
    for args in [
        vec!["summary", p],
        vec!["check", p],
        vec!["diff", t, p],
        vec!["serve", p, "--listen", "127.0.0.1:0"],
    ] {
        let o = run(
            std::process::Command::new(bin()).args(&args),
            Duration::from_secs(10),
        );
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(p), "{args:?}: names the path: {stderr}");
        assert!(
            stderr.contains("FIFO"),
            "{args:?}: says what it is: {stderr}"
        );
    }
    let session = dir.path().join("s");
    std::fs::create_dir(&session).unwrap();
    std::fs::copy(&trace, session.join("weather-1.jsonl")).unwrap();
    fifo(&session.join("stuck-2.jsonl"));
    let merged = dir.path().join("merged.jsonl");
    let o = run(
        std::process::Command::new(bin())
            .args(["session", "merge", session.to_str().unwrap(), "--trace"])
            .arg(&merged),
        Duration::from_secs(10),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(load(&merged).events.len(), load(&trace).events.len());
}

/// The descriptors `pid` has open.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("/proc")
        .count()
}

/// Streams that have read their header, kept open.
fn streams(port: u16, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| open_events(port, "", |t| t.contains("event: header")).0)
        .collect()
}

/// One reader per served trace: a client costs its socket, not a descriptor per session
/// member, and past the cap a client gets a clear 503 (issue 37, item 3).
#[test]
fn serve_shares_one_reader_and_answers_503_past_its_client_cap() {
    let dir = tempdir();
    let session = dir.path().join("s");
    std::fs::create_dir(&session).unwrap();
    let trace = weather_trace(dir.path());
    for i in 0..4 {
        std::fs::copy(&trace, session.join(format!("weather-{i}.jsonl"))).unwrap();
    }
    let served = serve(&session, "127.0.0.1:0");
    let pid = served.child.id();
    let first = streams(served.port, 1);
    std::thread::sleep(Duration::from_millis(300));
    let with_one = open_fds(pid);
    let more = streams(served.port, 40);
    std::thread::sleep(Duration::from_millis(300));
    let with_many = open_fds(pid);
    assert!(
        with_many <= with_one + 40 + 4,
        "{with_one} descriptors with one page, {with_many} with 41: more than a socket per page"
    );
    // Up to the cap, then 503 naming why.
    let rest = streams(served.port, 256 - 41);
    let (_s, refused) = open_events(served.port, "", |t| t.contains("\r\n\r\n"));
    assert!(
        refused.starts_with("HTTP/1.1 503"),
        "{}",
        &refused[..refused.len().min(300)]
    );
    drop((first, more, rest));
    // Slots are freed when pages leave.
    std::thread::sleep(Duration::from_millis(300));
    let (_s, again) = open_events(served.port, "", |t| t.contains("event: header"));
    assert!(again.starts_with("HTTP/1.1 200"), "{again}");
}

/// A served file that becomes a new recording (replaced, or truncated and written again)
/// restarts the stream: open streams get `event: restart` and end, and a new stream carries
/// only the new recording (issue 37, item 4).
#[test]
fn serve_restarts_the_stream_when_the_file_is_a_new_recording() {
    let dir = tempdir();
    let first = weather_trace(dir.path());
    let other = dir.path().join("other.jsonl");
    run_scenario_to("invisible-tool", &other, &[]);
    let served_path = dir.path().join("served.jsonl");
    std::fs::copy(&first, &served_path).unwrap();
    let served = serve(&served_path, "127.0.0.1:0");
    let events_of = |path: &Path| load(path).events.len();
    let count_ids =
        |text: &str| text.matches("\nid: ").count() + usize::from(text.starts_with("id: "));
    for (how, replace) in [
        ("renamed over", true),
        ("truncated and written again", false),
    ] {
        let (mut open, got) = open_events(served.port, "", |t| t.contains("event: header"));
        assert!(got.contains("event: header"), "{how}: {got}");
        let next = if replace { &other } else { &first };
        if replace {
            let tmp = dir.path().join("tmp.jsonl");
            std::fs::copy(next, &tmp).unwrap();
            std::fs::rename(&tmp, &served_path).unwrap();
        } else {
            std::fs::write(&served_path, std::fs::read(next).unwrap()).unwrap();
        }
        // The open stream is told, then ends.
        let mut rest = Vec::new();
        open.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let _ = open.read_to_end(&mut rest);
        let rest = String::from_utf8_lossy(&rest);
        assert!(rest.contains("event: restart"), "{how}: {rest}");
        // A new stream carries the new recording alone.
        let want = events_of(next);
        let (_s, fresh) = open_events(served.port, "", |t| count_ids(t) >= want);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(count_ids(&fresh), want, "{how}: {fresh}");
    }
}
