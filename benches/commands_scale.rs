//! Every trace-reading command on 100,000 and 1,000,000 events, on both of the benches' mixes
//! (`traces.rs`: the weather loop and the tool-heavy tour): `summary`, `summary --json`,
//! each export (`mermaid`, `svg`, `otlp`, `html`), `doctor`, `validate`, `poison`, `diff` (the
//! trace against itself) and `check`, run as the real binary with its output to /dev/null. Each must stay linear: on 1M events at most
//! 2x its own 100k time x 10 (the ratio printed), and at most 10 s. Peak memory (the child's
//! maximum RSS) is printed beside, against the file's size.
//!
//! Run with `cargo bench --bench commands_scale` (add `-- 100000` for one size, `-- tool` or
//! `-- weather` for one mix, a command's name to run only that one).

use std::time::Duration;

#[path = "traces.rs"]
mod traces;
use traces::{Mix, run_binary as run};

/// Each command's arguments; `TRACE` stands for the trace (appended when absent).
const COMMANDS: &[(&str, &[&str])] = &[
    ("summary", &["summary"]),
    ("summary --json", &["summary", "--json"]),
    ("export mermaid", &["export", "--format", "mermaid"]),
    ("export svg", &["export", "--format", "svg"]),
    (
        "export otlp",
        &["export", "--format", "otlp", "--out", "/dev/null"],
    ),
    (
        "export html",
        &["export", "--format", "html", "--out", "/dev/null"],
    ),
    ("doctor", &["doctor"]),
    ("validate", &["validate"]),
    ("poison", &["poison"]),
    ("diff", &["diff", "TRACE", "TRACE"]),
    (
        "check",
        &[
            "check",
            "--fail-on",
            "error,invalid,unanswered,schema,drift,poison,hidden,deprecated,secret",
        ],
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (sizes, mixes) = Mix::from_args(&args);
    let only: Vec<&(&str, &[&str])> = COMMANDS
        .iter()
        .filter(|(name, _)| {
            !args.iter().any(|a| COMMANDS.iter().any(|c| c.0 == a))
                || args.iter().any(|a| a == name)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("sightline-commands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let secs = |d: Duration| d.as_secs_f64();
    for mix in mixes {
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); only.len()];
        let mut files = Vec::new();
        for &n in &sizes {
            let path = dir.join(format!("{}-{n}.jsonl", mix.name().replace(' ', "-")));
            let bytes = mix.write(&path, n);
            let (lines, baseline) = traces::read_and_split(&path);
            println!(
                "{} trace, {n} events, {:.1} MB ({lines} lines), read + split {:.0} ms",
                mix.name(),
                bytes as f64 / 1e6,
                secs(baseline) * 1e3
            );
            for (k, (name, cmd)) in only.iter().enumerate() {
                let (t, rss, code) = run(cmd, &path);
                times[k].push(t);
                println!(
                    "  {name:<16} {:>8.2} s  peak {:>7.1} MB ({:.2}x the file)  exit {code}",
                    secs(t),
                    rss as f64 / 1e6,
                    rss as f64 / bytes as f64
                );
            }
            files.push(path);
        }
        if sizes.len() == 2 {
            let scale = (sizes[1] / sizes[0]) as f64;
            println!(
                "  {}: each command at {} events against {scale}x its {} time (goal <= 2.0x and <= 10 s)",
                mix.name(),
                sizes[1],
                sizes[0]
            );
            for (k, (name, _)) in only.iter().enumerate() {
                let (small, big) = (secs(times[k][0]), secs(times[k][1]));
                let ratio = big / (small * scale);
                let verdict = if ratio <= 2.0 && big <= 10.0 {
                    "ok"
                } else {
                    "NOT MET"
                };
                println!("  {name:<16} {ratio:>6.2}x  ({big:.2} s)  {verdict}");
            }
        }
        for f in files {
            let _ = std::fs::remove_file(f);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
