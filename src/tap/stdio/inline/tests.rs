use std::io::{BufRead as _, Read as _, Write as _};
use std::time::{Duration, Instant};

use super::*;
use crate::tap::{MemorySink, Recorder, ServerCommand, StdioTap};
use crate::trace::{Channel, Event, Lane};

/// The variable that makes this test binary one of the servers below.
const SERVER: &str = "SIGHTLINE_TEST_SERVER";
/// How much the `flood` server writes before it reads (and the client writes to it).
const SIZE: usize = 3_000_000;

// The servers these tests talk to are this very test binary, started again with `SERVER` set:
// one program on every system (the tap's Windows pipes are what most needs testing, and there
// is no `sh`), and written in Rust, not a shell. The server must be the only writer to its
// stdout, so it runs from a constructor the loader calls before the test harness's `main`
// prints anything, and exits there.
#[used]
#[cfg_attr(windows, unsafe(link_section = ".CRT$XCU"))]
#[cfg_attr(
    target_vendor = "apple",
    unsafe(link_section = "__DATA,__mod_init_func")
)]
#[cfg_attr(
    not(any(windows, target_vendor = "apple")),
    unsafe(link_section = ".init_array")
)]
static BE_A_SERVER: extern "C" fn() = be_a_server;

extern "C" fn be_a_server() {
    if let Some(script) = std::env::var_os(SERVER) {
        let code = std::panic::catch_unwind(|| serve(&script.to_string_lossy())).unwrap_or(101);
        std::process::exit(code);
    }
}

/// What `sh -c` scripts would do: `echo` is `cat`, `swallow` is `cat > /dev/null`, `die`
/// answers one line and exits 3 mid-line, `count` writes 2000 lines after one, `flood` writes
/// [`SIZE`] bytes before it reads anything.
fn serve(script: &str) -> i32 {
    let (mut input, mut output) = (std::io::stdin().lock(), std::io::stdout().lock());
    let mut first = String::new();
    let ok = match script {
        "echo" => {
            let mut buf = [0u8; 1 << 16];
            loop {
                match input.read(&mut buf) {
                    Ok(0) | Err(_) => break true,
                    Ok(n) => {
                        if output
                            .write_all(&buf[..n])
                            .and_then(|()| output.flush())
                            .is_err()
                        {
                            break false;
                        }
                    }
                }
            }
        }
        "swallow" => std::io::copy(&mut input, &mut std::io::sink()).is_ok(),
        "die" => {
            let _ = input.read_line(&mut first);
            let got = format!("got {}\n", first.trim_end());
            let _ = std::io::stderr().write_all(b"oops\n");
            let _ = output.write_all(got.as_bytes());
            let _ = output
                .write_all(b"no newline")
                .and_then(|()| output.flush());
            return 3;
        }
        "count" => {
            let _ = input.read_line(&mut first);
            (0..2000).all(|i| writeln!(output, "line {i}").is_ok()) && output.flush().is_ok()
        }
        "flood" => {
            let mut big = vec![b'x'; SIZE];
            big.push(b'\n');
            output.write_all(&big).and_then(|()| output.flush()).is_ok()
                && std::io::copy(&mut input, &mut std::io::sink()).is_ok()
        }
        _ => false,
    };
    if ok { 0 } else { 1 }
}

fn start(script: &str) -> (MemorySink, StdioTap, InlineServer) {
    let sink = MemorySink::default();
    let recorder = Recorder::start(vec![Box::new(sink.clone())]);
    let me = std::env::current_exe().expect("the test binary");
    let mut cmd = ServerCommand::new("s", me.display().to_string(), Vec::new());
    cmd.env.push((SERVER.into(), script.into()));
    let (tap, server) = StdioTap::spawn_inline(&cmd, recorder, Lane::Host, None).expect("spawn");
    (sink, tap, server)
}

/// Reads until `want` bytes came or the output closed, within 10 s.
fn read_until(server: &mut InlineServer, want: usize) -> (Vec<u8>, Received) {
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while got.len() < want && Instant::now() < deadline {
        match server.read(Duration::from_millis(100), &mut got) {
            Received::Closed => return (got, Received::Closed),
            Received::Data | Received::Timeout => {}
        }
    }
    (got, Received::Data)
}

fn stdio(events: &[Event], from: &Lane) -> Vec<(u64, String)> {
    events
        .iter()
        .filter(|e| e.channel == Channel::Stdio && &e.from == from)
        .map(|e| (e.seq, e.text().into_owned()))
        .collect()
}

fn exit_seq(events: &[Event]) -> Option<u64> {
    events
        .iter()
        .find(|e| e.process().is_some_and(|p| p.event == "exit"))
        .map(|e| e.seq)
}

#[test]
fn each_line_is_recorded_before_the_other_side_has_it_and_echoes_come_after() {
    let (sink, tap, mut server) = start("echo");
    let wait = Duration::from_secs(5);
    // A line written in two pieces is one line, recorded when it is complete.
    server.write_all(b"{\"id\":1,", wait).expect("write");
    server.write_all(b"\"m\":\"a\"}\n", wait).expect("write");
    let (echo, _) = read_until(&mut server, 17);
    assert_eq!(echo, b"{\"id\":1,\"m\":\"a\"}\n");
    server.write_all(b"two\nthree\n", wait).expect("write");
    let (echo, _) = read_until(&mut server, 10);
    assert_eq!(echo, b"two\nthree\n");
    drop(server);
    assert_eq!(
        tap.wait_timeout(Duration::from_secs(10)).map(|e| e.code),
        Some(Some(0))
    );
    let events = sink.snapshot();
    let sent = stdio(&events, &Lane::Host);
    let echoed = stdio(&events, &Lane::server("s"));
    let texts = |v: &[(u64, String)]| v.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&sent), ["{\"id\":1,\"m\":\"a\"}", "two", "three"]);
    assert_eq!(texts(&echoed), texts(&sent));
    for ((s, _), (e, _)) in sent.iter().zip(&echoed) {
        assert!(e > s, "echo #{e} before the line it echoes (#{s})");
    }
    // The exit comes after everything the server wrote; seqs are gap-free.
    assert!(exit_seq(&events) > echoed.last().map(|(s, _)| *s));
    assert!(events.windows(2).all(|w| w[1].seq == w[0].seq + 1));
}

#[test]
fn a_server_that_never_answers_costs_the_wait_not_a_hang() {
    let (_sink, tap, mut server) = start("swallow");
    server
        .write_all(b"hello\n", Duration::from_secs(5))
        .expect("write");
    let start = Instant::now();
    let mut got = Vec::new();
    assert_eq!(
        server.read(Duration::from_millis(200), &mut got),
        Received::Timeout
    );
    let took = start.elapsed();
    assert!(got.is_empty());
    assert!(took >= Duration::from_millis(190), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    drop(server);
    assert!(tap.wait_timeout(Duration::from_secs(10)).is_some());
}

#[test]
fn a_dying_server_closes_the_output_its_last_line_and_exit_code_recorded() {
    let (sink, tap, mut server) = start("die");
    server
        .write_all(b"ping\n", Duration::from_secs(5))
        .expect("write");
    let (out, end) = read_until(&mut server, usize::MAX);
    assert_eq!(out, b"got ping\nno newline");
    assert_eq!(end, Received::Closed);
    let exit = tap.wait_timeout(Duration::from_secs(10)).expect("exited");
    assert_eq!(exit.code, Some(3));
    let events = sink.snapshot();
    let lines = stdio(&events, &Lane::server("s"));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1].1, "no newline");
    let stderr: Vec<String> = events
        .iter()
        .filter(|e| e.channel == Channel::Stderr)
        .map(|e| e.text().into_owned())
        .collect();
    assert_eq!(stderr, ["oops"]);
    assert!(exit_seq(&events) > Some(lines[1].0));
    // Written after the client closed its side: refused, and not recorded as sent.
    server.close();
    assert!(server.write_all(b"late\n", Duration::from_secs(1)).is_err());
    drop(server);
    assert!(
        !stdio(&sink.snapshot(), &Lane::Host)
            .iter()
            .any(|(_, t)| t == "late")
    );
}

#[test]
fn closing_reads_the_rest_of_the_output_into_the_trace_before_the_exit() {
    let (sink, tap, mut server) = start("count");
    server
        .write_all(b"go\n", Duration::from_secs(5))
        .expect("write");
    server.close();
    assert_eq!(
        tap.wait_timeout(Duration::from_secs(10)).map(|e| e.code),
        Some(Some(0))
    );
    let events = sink.snapshot();
    let lines = stdio(&events, &Lane::server("s"));
    assert_eq!(lines.len(), 2000);
    assert_eq!(lines[1999].1, "line 1999");
    assert!(exit_seq(&events) > Some(lines[1999].0));
}

#[test]
fn a_write_into_a_full_stdin_reads_the_servers_output_meanwhile() {
    // The server writes 3 MB before it reads anything; the client writes 3 MB before it reads
    // anything. Both pipes fill up: without reading while writing, neither would move.
    let (sink, tap, mut server) = start("flood");
    let mut big = vec![b'y'; SIZE];
    big.push(b'\n');
    server
        .write_all(&big, Duration::from_secs(20))
        .expect("written whole");
    let (out, _) = read_until(&mut server, SIZE + 1);
    assert_eq!(out.len(), SIZE + 1);
    assert!(out[..SIZE].iter().all(|&b| b == b'x'));
    server.close();
    assert!(tap.wait_timeout(Duration::from_secs(10)).is_some());
    let events = sink.snapshot();
    assert_eq!(stdio(&events, &Lane::Host).len(), 1);
    assert_eq!(stdio(&events, &Lane::server("s")).len(), 1);
}
