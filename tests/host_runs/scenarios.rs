//! Every scenario, under each revision it declares: the checks every run passes, then the
//! one fact the scenario exists to show (in `facts`).

use std::path::{Path, PathBuf};

use sightline::host::scenario::Scenario;
use sightline::trace::Kind;

use super::facts::scenario_fact;
use super::{Run, sightline_run};
use crate::util::repo;

#[test]
fn every_scenario_runs_green_under_its_revisions() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 10,
        "expected the shipped scenarios, found {paths:?}"
    );

    let mut failures = Vec::new();
    let mut runs = 0;
    let mut failed_runs = 0;
    for path in &paths {
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let scenario = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scenario.revisions.is_empty(), "{name}: no revisions");
        for revision in &scenario.revisions {
            let revision = revision.as_str();
            let run = sightline_run(path, &["--protocol", revision], &[]);
            runs += 1;
            // Both kinds of check, so one problem does not hide another.
            let mut problems: Vec<String> = generic_checks(&run).err().into_iter().collect();
            if run.output.status.success() {
                problems.extend(scenario_fact(&name, revision, &run).err());
            }
            if !problems.is_empty() {
                let kept = keep_trace(&run, &format!("{name}-{revision}"));
                failed_runs += 1;
                for problem in problems {
                    failures.push(format!("{name} --protocol {revision}: {problem} [{kept}]"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failed_runs} of {runs} scenario runs failed:\n- {}",
        failures.join("\n- ")
    );
}

/// Copies a failed run's trace where it outlives the test; returns where, for the message.
fn keep_trace(run: &Run, stem: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("host_runs");
    let kept = dir.join(format!("{stem}.jsonl"));
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::copy(&run.trace_path, &kept)) {
        Ok(_) => format!("trace kept in {}", kept.display()),
        Err(e) => format!("trace not kept: {e}"),
    }
}

/// Exit 0, a clean trace, every request answered, an answer on stdout.
fn generic_checks(run: &Run) -> Result<(), String> {
    ensure!(run.output.status.success(), "{}", run.describe());
    ensure!(
        run.stdout.contains("== answer"),
        "no `== answer` on stdout:\n{}",
        run.stdout
    );
    ensure!(
        run.trace.warnings.is_empty(),
        "the trace loads with warnings: {:?}",
        run.trace.warnings
    );
    let invalid: Vec<String> = run
        .analysis
        .derived
        .iter()
        .zip(run.events())
        .filter(|(d, _)| d.kind == Kind::Invalid)
        .map(|(d, e)| format!("#{} ({:?})", e.seq, d.problem()))
        .collect();
    ensure!(invalid.is_empty(), "invalid events: {invalid:?}");
    let unanswered: Vec<String> = run
        .analysis
        .derived
        .iter()
        .zip(run.events())
        .filter(|(d, _)| d.is_unanswered())
        .map(|(d, e)| {
            format!(
                "#{} {} -> {} {} ({:?})",
                e.seq,
                e.from,
                e.to,
                d.method.as_deref().unwrap_or("?"),
                d.pairing
            )
        })
        .collect();
    ensure!(unanswered.is_empty(), "unanswered requests: {unanswered:?}");
    Ok(())
}
