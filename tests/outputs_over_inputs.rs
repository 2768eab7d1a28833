//! An output that is one of the command's inputs (also through a link), or lies inside an
//! input folder, is refused with exit 2 and the input left as it was (issue 37, item 8):
//! `replay T --trace T` replaced the recording with its replay, `import har x.har --trace
//! x.har` overwrote the HAR, `session merge S --trace S/merged.jsonl` made the merge a member.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::util::*;

fn sightline(args: &[&str]) -> std::process::Output {
    run(Command::new(bin()).args(args), Duration::from_secs(60))
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// `args` exits 2, says which output and which input, and leaves `kept` as it was.
fn refused(args: &[&str], kept: &Path) {
    let before = std::fs::read(kept).expect("the input");
    let o = sightline(args);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains("which this command reads"),
        "{args:?}: {stderr}"
    );
    assert_eq!(
        std::fs::read(kept).expect("the input"),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn an_output_over_an_input_is_refused_and_the_input_untouched() {
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    run_scenario_to("weather", &trace, &[]);
    let t = p(&trace);
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&trace, &link).expect("link");
    refused(
        &[
            "replay",
            t,
            "--trace",
            t,
            "--",
            bin(),
            "demo-server",
            "weather",
        ],
        &trace,
    );
    refused(
        &[
            "replay",
            t,
            "--trace",
            p(&link),
            "--",
            bin(),
            "demo-server",
            "weather",
        ],
        &trace,
    );
    refused(&["export", t, "--format", "mermaid", "--out", t], &trace);
    refused(&["check", t, "--out", p(&link)], &trace);
    let har = dir.path().join("x.har");
    std::fs::write(&har, r#"{"log":{"version":"1.2","entries":[]}}"#).expect("har");
    refused(&["import", "har", p(&har), "--trace", p(&har)], &har);
}

#[test]
fn a_merge_into_its_own_session_folder_is_refused() {
    let dir = tempdir();
    let session = dir.path().join("s1");
    std::fs::create_dir(&session).expect("session");
    let member = session.join("weather-1.jsonl");
    run_scenario_to("weather", &member, &[]);
    let s = p(&session);
    refused(&["session", "merge", s, "--trace", p(&member)], &member);
    let merged = session.join("merged.jsonl");
    refused(&["session", "merge", s, "--trace", p(&merged)], &member);
    assert!(!merged.exists(), "nothing written into the session");
    // A session that is not there is an error that creates nothing.
    let missing = dir.path().join("nosuch");
    let o = sightline(&[
        "session",
        "merge",
        p(&missing),
        "--trace",
        p(&dir.path().join("n.jsonl")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(!missing.exists(), "the missing session was created");
    assert!(!dir.path().join("n.jsonl").exists());
    // Outside the folder it works.
    let o = sightline(&[
        "session",
        "merge",
        s,
        "--trace",
        p(&dir.path().join("m.jsonl")),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}
