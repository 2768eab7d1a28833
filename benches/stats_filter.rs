//! `sightline stats` on a million events, against loading the same trace in the same run: the
//! statistics must stay linear (issue 41: 1M events in under 3 s, load included).
//!
//!   cargo bench --bench stats_filter [N] [weather|tool]   (N events, default 1000000)
//!
//! With `SIGHTLINE_BENCH_DIR` set, each mix's trace is written there as `<mix>.jsonl` and kept,
//! for a profiler to run the binary on afterwards.
//!
//! Printed per mix (`traces.rs`): the file read and split into lines (the floor), the trace
//! loaded (`trace::load`, the baseline every command pays), the analysis `stats` needs
//! (`trace::analyze` and the LLM exchanges) and the statistics themselves, each with its
//! ratio to the load; then the whole command's time. Then the display filter
//! (`analysis::filter`) as a keystroke in the app's filter box does it: the text parsed and
//! every event matched, for typed filters and for free text, against the 100 ms a keystroke may
//! take; then the same as the commands' `--filter` asks it (`Matcher::keeps`, which reads
//! payloads in two halves).

#[path = "traces.rs"]
mod traces;

use std::time::{Duration, Instant};

use sightline::analysis::filter::{Matcher, parse};
use sightline::analysis::stats::{By, stats};
use traces::Mix;

/// A keystroke's filters: typed fields alone, then free text that reads every payload.
const FILTERS: [&str; 5] = [
    "method:tools/call",
    "tool:get_* and latency:>1ms",
    "(server:weather or lane:llm) not kind:notification",
    "status:unanswered or kind:error",
    "seoul",
];

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (sizes, mixes) = Mix::from_args(&args);
    let n = if args.iter().any(|a| a.parse::<u64>().is_ok()) {
        sizes[0]
    } else {
        1_000_000
    };
    let temp = tempfile::tempdir().expect("tempdir");
    let dir = std::env::var_os("SIGHTLINE_BENCH_DIR").map_or(temp.path().to_path_buf(), Into::into);
    for mix in mixes {
        let path = dir.join(format!("{}.jsonl", mix.name().replace(' ', "-")));
        let bytes = mix.write(&path, n);
        let (_, split) = traces::read_and_split(&path);
        let start = Instant::now();
        let loaded = sightline::trace::load(&path).expect("load");
        let load = start.elapsed();
        let events = &loaded.events;
        let start = Instant::now();
        let (rpc, llm) = sightline::trace::halves::join(
            || sightline::trace::analyze(events),
            || sightline::analysis::llm_counts(events),
        );
        let analysis = start.elapsed();
        // Each half alone, to see which one the joined time waits for.
        let start = Instant::now();
        drop(sightline::trace::analyze(events));
        let rpc_alone = start.elapsed();
        let start = Instant::now();
        drop(sightline::analysis::llm_exchanges(events));
        let llm_alone = start.elapsed();
        let start = Instant::now();
        drop(sightline::analysis::llm_counts(events));
        let counts_alone = start.elapsed();
        let llm: Vec<_> = llm.iter().collect();
        let start = Instant::now();
        let s = stats(
            events,
            &rpc,
            &llm,
            &By::ALL,
            sightline::analysis::tokens::own(),
            &|_| true,
        );
        let computed = start.elapsed();
        let ratio = |d: Duration| d.as_secs_f64() / load.as_secs_f64();
        println!(
            "{} x{n} ({} MB): {} requests, {} LLM requests",
            mix.name(),
            bytes / 1_000_000,
            s.requests,
            s.llm.len()
        );
        println!(
            "  read+split   {:>9}  x{:.2} of load",
            secs(split),
            ratio(split)
        );
        println!("  load         {:>9}  (baseline)", secs(load));
        println!(
            "  analysis     {:>9}  x{:.2} of load",
            secs(analysis),
            ratio(analysis)
        );
        println!(
            "    alone: JSON-RPC {} (x{:.2}), LLM exchanges {} (x{:.2}), as stats reads them {} (x{:.2})",
            secs(rpc_alone),
            ratio(rpc_alone),
            secs(llm_alone),
            ratio(llm_alone),
            secs(counts_alone),
            ratio(counts_alone)
        );
        println!(
            "  stats        {:>9}  x{:.2} of load",
            secs(computed),
            ratio(computed)
        );
        let whole = load + analysis + computed;
        println!(
            "  stats command {:>8}  x{:.2} of load  {}",
            secs(whole),
            ratio(whole),
            if whole < Duration::from_secs(3) {
                "ok (< 3 s)"
            } else {
                "OVER 3 s"
            }
        );
        // The real binary, start to exit (`SIGHTLINE_BIN`: another build, for a before/after).
        let (took, rss, code) = traces::run_binary(&["stats"], &path);
        println!(
            "  sightline stats {:>6}  x{:.2} of load, peak {:.0} MB, exit {code}  {}",
            secs(took),
            ratio(took),
            rss as f64 / 1e6,
            if took < Duration::from_secs(3) {
                "ok (< 3 s)"
            } else {
                "OVER 3 s"
            }
        );
        for text in FILTERS {
            let start = Instant::now();
            let m = Matcher::new(&parse(text).expect("filter"));
            let kept = events
                .iter()
                .zip(&rpc.derived)
                .filter(|(e, d)| m.matches(e, d))
                .count();
            let took = start.elapsed();
            let verdict = if took < Duration::from_millis(100) {
                "ok (< 100 ms)"
            } else {
                "OVER 100 ms"
            };
            println!(
                "  filter {text:<52} {:>9}  x{:.2} of load, {kept} kept  {verdict}",
                secs(took),
                ratio(took),
            );
            // As the commands' `--filter` asks it: `Matcher::keeps`, payloads read in halves.
            let start = Instant::now();
            let m = Matcher::new(&parse(text).expect("filter"));
            let keeps = m.keeps(events, &rpc.derived);
            let took = start.elapsed();
            assert_eq!(keeps.iter().filter(|k| **k).count(), kept);
            println!(
                "    as --filter keeps it {:>34}  x{:.2} of load  {}",
                secs(took),
                ratio(took),
                if took < Duration::from_millis(100) {
                    "ok (< 100 ms)"
                } else {
                    "OVER 100 ms"
                }
            );
        }
    }
}
