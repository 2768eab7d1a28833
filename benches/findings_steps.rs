//! The findings computed a step at a time, as the browser does them (`analysis::findings::Staged`,
//! 8 ms a step, the most a frame gives them): the longest single step of each stage, which is what a
//! frame of the web viewer spends on them at most, on three 100,000-event traces: the
//! weather loop (the trace `tests/web/measure.sh` scrolls), the same with a result that breaks
//! the schema in every loop (8,333 violations to file), and the tool-heavy mix.
//!
//!   cargo bench --bench findings_steps [N]      (N events, default 100000)
//!
//! A native step is a few times shorter than the same step in the browser's wasm; the budget
//! a step should keep to here is 8 ms in release, 20 ms in debug. Each trace runs in a
//! process of its own (schemas parsed and validators compiled on the way, as in a fresh
//! page), and a step is measured in the CPU time of its thread as well as in wall time (on a
//! loaded machine the wall time of a step includes the time other processes had the core).
//! Each trace's findings are also computed whole afterwards, for reference.

#[path = "traces.rs"]
mod traces;

use std::time::{Duration, Instant};

use sightline::analysis::findings::{Findings, Staged};
use sightline::trace::{Channel, Event};
use traces::Mix;

/// The frame's budget for the findings (`ui::store::STEP_BUDGET`).
const BUDGET: Duration = Duration::from_millis(8);

/// The weather loop whose tool result's `content` is a string, not an array of blocks.
fn invalid(mut events: Vec<Event>) -> Vec<Event> {
    const BLOCKS: &str = r#""content":[{"type":"text","text":"#;
    for e in &mut events {
        let Some(raw) = e.raw.as_deref().filter(|_| e.channel == Channel::Stdio) else {
            continue;
        };
        let (Some(start), Some(end)) = (raw.find(BLOCKS), raw.find(r#"}],"isError""#)) else {
            continue;
        };
        let text = &raw[start + BLOCKS.len()..end];
        let fixed = format!(r#"{}"content":{text}{}"#, &raw[..start], &raw[end + 2..]);
        e.raw = Some(fixed.into_boxed_str());
    }
    events
}

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given, which lives on this stack.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

const TRACES: [&str; 3] = [
    "weather loop",
    "weather loop, invalid results",
    "tool-heavy",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let Some(which) = args.iter().find_map(|a| a.strip_prefix("trace=")) else {
        // Each trace in a fresh process.
        let me = std::env::current_exe().expect("the bench's own path");
        for i in 0..TRACES.len() {
            let status = std::process::Command::new(&me)
                .arg(n.to_string())
                .arg(format!("trace={i}"))
                .status()
                .expect("run the bench");
            assert!(status.success());
        }
        return;
    };
    let i: usize = which.parse().expect("trace=N");
    let events = match i {
        0 => Mix::Weather.events(n),
        1 => invalid(Mix::Weather.events(n)),
        _ => Mix::ToolHeavy.events(n),
    };
    let name = TRACES[i.min(TRACES.len() - 1)];
    let report = sightline::analysis::report(&events);
    // The app has parsed the texts the findings are said with before it computes them (the
    // findings use its parse): not a step of theirs.
    let _ = sightline::i18n::shared();
    let mut staged = Staged::default();
    let start = Instant::now();
    let mut cpu_longest: Vec<(&'static str, f64)> =
        staged.longest().map(|(s, _)| (s, 0.0)).collect();
    let found = loop {
        let before: Vec<usize> = staged.steps().map(|(_, n)| n).collect();
        let cpu = thread_cpu();
        let found = staged.step(&events, &report, BUDGET);
        let ms = (thread_cpu() - cpu).as_secs_f64() * 1e3;
        for ((_, after), ((_, longest), before)) in
            staged.steps().zip(cpu_longest.iter_mut().zip(before))
        {
            if after != before {
                *longest = longest.max(ms);
            }
        }
        if let Some(found) = found {
            break found;
        }
    };
    let staged_ms = start.elapsed().as_secs_f64() * 1e3;
    let steps: usize = staged.steps().map(|(_, n)| n).sum();
    let start = Instant::now();
    let whole = Findings::compute(&events, &report);
    let whole_ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(found.violations.len(), whole.violations.len());
    println!(
        "{name}, {n} events ({} violations): staged {staged_ms:.0} ms in {steps} steps of {} ms; whole {whole_ms:.0} ms",
        whole.violations.len(),
        BUDGET.as_millis()
    );
    let counts: Vec<(&str, usize)> = staged.steps().collect();
    let (mut wall, mut cpu) = (0.0f64, 0.0f64);
    for (((stage, ms), (_, count)), (_, cpu_ms)) in staged.longest().zip(counts).zip(&cpu_longest) {
        wall = wall.max(ms);
        cpu = cpu.max(*cpu_ms);
        println!(
            "  {stage:<16} longest step {ms:>7.1} ms wall, {cpu_ms:>7.1} ms CPU  ({count} steps)"
        );
    }
    println!("  longest step of all: {wall:.1} ms wall, {cpu:.1} ms CPU");
}
