//! `sightline run` against servers that never answer: the timeout names the server, the request
//! and the time; Ctrl-C and SIGTERM stop the servers' process groups and record their exits;
//! a failed run never replaces a good trace (issue 11, items 3 and 11).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sightline::trace::{Channel, Lane};

use crate::util;

/// A scenario whose one server (`mute`) starts a child in its process group, writes both
/// pids to `pids`, and never answers anything.
fn mute_scenario(dir: &Path) -> (PathBuf, PathBuf) {
    let pids = dir.join("pids");
    let script = format!(
        "echo $$ > {p}.tmp; sleep 1000 & echo $! >> {p}.tmp; mv {p}.tmp {p}; wait",
        p = pids.display()
    );
    let scenario = dir.join("mute.toml");
    let toml = format!(
        "title = \"A server that never answers\"\nprompt = \"hello\"\n\n[[servers]]\nname = \
         \"mute\"\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\n\n[[script]]\nreply = \"never\"\n"
    );
    std::fs::write(&scenario, toml).unwrap();
    (scenario, pids)
}

fn run_command(scenario: &Path, trace: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(util::bin());
    cmd.arg("run")
        .arg(scenario)
        .arg("--trace")
        .arg(trace)
        .args(["--no-summary"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    cmd
}

/// The two pids the mute server wrote, once it has written them.
fn server_pids(pids: &Path, child: &mut Child) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(pids) {
            return text.lines().map(|l| l.trim().parse().unwrap()).collect();
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "run ended before the server started"
        );
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is a live process (a zombie counts as gone).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn assert_gone(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| alive(*p)) {
        assert!(
            Instant::now() < deadline,
            "still running after sightline run ended: {:?}",
            pids.iter().filter(|p| alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill_all(pids: &[i32]) {
    for pid in pids {
        // SAFETY: a clean-up signal to processes this test started (through run).
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
}

fn has_exit_of_mute(trace: &Path) -> bool {
    util::load(trace).events.iter().any(|e| {
        e.channel == Channel::Process
            && e.from == Lane::server("mute")
            && e.process().is_some_and(|p| p.event == "exit")
    })
}

#[test]
fn run_timeout_names_the_server_the_request_and_the_time_and_leaves_nothing_running() {
    let dir = util::tempdir();
    let (scenario, pids) = mute_scenario(dir.path());
    let trace = dir.path().join("t.jsonl");
    let started = Instant::now();
    let child = run_command(&scenario, &trace, &["--timeout", "1s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = util::wait_with_deadline(child, Duration::from_secs(30));
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let stderr = util::text(&out.stderr);
    let leftover: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    kill_all(&pids);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("server `mute` did not answer `initialize` within 1s"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(pids.len(), 2, "the server wrote its pids");
    assert!(
        leftover.is_empty(),
        "left running: {leftover:?} (the server's process group)"
    );
    assert!(has_exit_of_mute(&trace), "the server's exit is recorded");
}

#[test]
fn sigterm_and_ctrl_c_to_run_stop_the_servers_and_record_their_exit() {
    // The line saying why the run stopped is in the language asked.
    let said = [
        (
            libc::SIGTERM,
            143,
            "en",
            "sightline: run stopped by SIGTERM; its servers were stopped",
        ),
        (
            libc::SIGINT,
            130,
            "pt",
            "sightline: execução interrompida por SIGINT; os servidores dela foram encerrados",
        ),
    ];
    for (signal, status, lang, line) in said {
        let dir = util::tempdir();
        let (scenario, pids_file) = mute_scenario(dir.path());
        let trace = dir.path().join("t.jsonl");
        let mut child = run_command(&scenario, &trace, &["--timeout", "60s", "--lang", lang])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pids = server_pids(&pids_file, &mut child);
        // SAFETY: signalling the child this test spawned.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = util::wait_with_deadline(child, Duration::from_secs(20));
        let leftover: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        kill_all(&pids);
        let stderr = util::text(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(stderr.contains(line), "{stderr}");
        assert!(
            leftover.is_empty(),
            "signal {signal}: left running {leftover:?}"
        );
        assert_gone(&pids);
        assert!(has_exit_of_mute(&trace), "signal {signal}: exit recorded");
        let loaded = util::load(&trace);
        assert!(
            loaded
                .events
                .iter()
                .any(|e| e.channel == Channel::Note && e.text().contains("stopped by SIG")),
            "the trace says why the run stopped"
        );
    }
}

#[test]
fn a_failed_run_never_replaces_a_good_trace() {
    let dir = util::tempdir();
    let trace = dir.path().join("weather.jsonl");
    let weather = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/weather.toml");
    let good = util::run(
        &mut run_command(&weather, &trace, &[]),
        Duration::from_secs(60),
    );
    assert!(good.status.success(), "{}", util::text(&good.stderr));
    let good_bytes = std::fs::read(&trace).unwrap();

    let (scenario, pids) = mute_scenario(dir.path());
    let failed = util::run(
        &mut run_command(&scenario, &trace, &["--timeout", "1s"]),
        Duration::from_secs(30),
    );
    kill_all(
        &std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect::<Vec<_>>(),
    );
    let stderr = util::text(&failed.stderr);
    assert!(!failed.status.success());
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        good_bytes,
        "the good trace is untouched"
    );
    let kept = dir.path().join("weather.failed.jsonl");
    assert!(stderr.contains("weather.failed.jsonl"), "{stderr}");
    assert!(
        has_exit_of_mute(&kept),
        "the failed run's trace is kept beside it"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("sightline-tmp"))
        .collect();
    assert!(names.is_empty(), "no temporary file left: {names:?}");
}
