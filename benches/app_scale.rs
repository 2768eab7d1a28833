//! The app on big traces: time to load and lay out a synthetic 100,000- and 1,000,000-event
//! trace, the memory it takes against the file size, and the frame time while scrolling (only
//! visible rows are drawn). The baseline in the same run is reading the same file into memory
//! and splitting its lines, the least any viewer must do.
//!
//! Both of the benches' mixes (`traces.rs`). Also: typing into the message list's text filter
//! (per keystroke), and following a growing 100,000-event trace (100 events appended, until
//! drawn, against opening it).
//!
//! Run with `cargo bench --bench app_scale` (add `-- 100000` to skip the 1M case, `-- tool` or
//! `-- weather` for one mix).

use std::io::Write;
use std::time::{Duration, Instant};

#[path = "traces.rs"]
mod traces;
use sightline::ui::SightlineApp;
use sightline::ui::command::Command;
use traces::{Mix, rss_bytes};

fn frame(ctx: &egui::Context, app: &mut SightlineApp) -> Duration {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 900.0),
        )),
        ..Default::default()
    };
    let start = Instant::now();
    let output = ctx.run_ui(input, |ui| app.ui(ui));
    let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
    start.elapsed()
}

/// Writes `n + extra` events of `mix`; returns the trace's text cut after `n` events and the
/// `extra` lines after them.
fn split_trace(dir: &std::path::Path, mix: Mix, n: u64, extra: u64) -> (Vec<u8>, Vec<u8>) {
    let whole = dir.join("whole.jsonl");
    mix.write(&whole, n + extra);
    let text = std::fs::read(&whole).expect("read");
    let _ = std::fs::remove_file(&whole);
    // The header line, then n events.
    let cut = text
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n as usize)
        .map_or(text.len(), |(i, _)| i + 1);
    (text[..cut].to_vec(), text[cut..].to_vec())
}

/// Following a growing trace: `n` events on screen, then 100 more appended to the file;
/// the time from reading them to the frame that shows them.
fn follow(dir: &std::path::Path, mix: Mix, n: u64) {
    const APPENDS: usize = 5;
    const BATCH: u64 = 100;
    let (head, tail) = split_trace(dir, mix, n, BATCH * APPENDS as u64);
    let path = dir.join("followed.jsonl");
    std::fs::write(&path, &head).expect("write");
    let ctx = egui::Context::default();
    let start = Instant::now();
    let mut app = SightlineApp::follow(&path, std::sync::Arc::new(|| {}));
    frame(&ctx, &mut app);
    let first = start.elapsed();
    let lines: Vec<&[u8]> = tail.split_inclusive(|&b| b == b'\n').collect();
    let mut times = Vec::new();
    for batch in lines.chunks(BATCH as usize) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open for append");
        for line in batch {
            file.write_all(line).expect("append");
        }
        drop(file);
        let start = Instant::now();
        app.poll_following_now();
        frame(&ctx, &mut app);
        times.push(start.elapsed());
        assert_eq!(app.store().len(), n as usize + times.len() * BATCH as usize);
    }
    times.sort();
    // The baseline: what an append cost before the analysis was incremental, the whole
    // analysis and layout of the same events again, then the frame.
    let events: Vec<sightline::trace::Event> = app.store().events.to_vec();
    let start = Instant::now();
    let report = sightline::analysis::report(&events);
    let diagram = sightline::analysis::diagram::build(&events, &report);
    frame(&ctx, &mut app);
    let rerun = start.elapsed();
    assert_eq!(
        diagram,
        app.store().diagram,
        "the grown diagram is the whole one"
    );
    drop((report, diagram, events));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("  follow: open {n} events and draw {:>9.1} ms", ms(first));
    println!(
        "  follow: re-analyse all {} events and draw (baseline) {:.1} ms",
        app.store().len(),
        ms(rerun)
    );
    println!(
        "  follow: +{BATCH} events until drawn  median {:.1} ms, max {:.1} ms over {APPENDS} appends ({:.3}x the baseline; target <= 20 ms)",
        ms(times[APPENDS / 2]),
        ms(times[APPENDS - 1]),
        ms(times[APPENDS / 2]) / ms(rerun)
    );
    let _ = std::fs::remove_file(&path);
}

/// Typing into the message list's text filter, one keystroke at a time. The baseline in the
/// same run: the first keystroke read row by row, before the background thread has made the
/// rows' byte sets (`ui::store::search::ByteSets`); then the whole word once they are made.
fn filter(app: &SightlineApp, word: &str, opened: Instant) {
    let store = app.store();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut plain = sightline::ui::list::MessageList::default();
    plain.filter.text = word[..1].to_string();
    let start = Instant::now();
    let ready_before = store.byte_sets.get().is_some();
    let _ = plain.matches(store);
    let unindexed = start.elapsed();
    let deadline = Instant::now() + Duration::from_secs(120);
    while store.byte_sets.get().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let ready = opened.elapsed();
    let mut list = sightline::ui::list::MessageList::default();
    let mut times = Vec::new();
    let mut hits = 0;
    for end in 1..=word.len() {
        list.filter.text = word[..end].to_string();
        let start = Instant::now();
        hits = list.matches(store).map_or(0, <[usize]>::len);
        times.push(start.elapsed());
    }
    // Deleting the last character again (its result is kept from typing it).
    list.filter.text = word[..word.len() - 1].to_string();
    let start = Instant::now();
    let _ = list.matches(store);
    let back = start.elapsed();
    let worst = times.iter().max().copied().unwrap_or_default();
    println!(
        "  text filter, first keystroke read row by row (baseline{}) {:.1} ms; byte sets ready {:.1} s after open",
        if ready_before {
            ", sets were ready"
        } else {
            ""
        },
        ms(unindexed),
        ready.as_secs_f64()
    );
    println!(
        "  text filter \"{word}\": first keystroke {:.1} ms, worst {:.1} ms ({:.2}x the baseline), backspace {:.1} ms, {hits} hits (target <= 100 ms)",
        ms(times[0]),
        ms(worst),
        ms(worst) / ms(unindexed),
        ms(back)
    );
    let each: Vec<String> = times.iter().map(|t| format!("{:.1}", ms(*t))).collect();
    println!("  text filter, each keystroke (ms): {}", each.join(" "));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (sizes, mixes) = Mix::from_args(&args);
    let dir = std::env::temp_dir().join(format!("sightline-app-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for mix in mixes {
        for &n in &sizes {
            let path = dir.join(format!("synthetic-{n}.jsonl"));
            let bytes = mix.write(&path, n);

            let (lines, baseline) = traces::read_and_split(&path);

            let before = rss_bytes();
            let start = Instant::now();
            let mut app = SightlineApp::from_trace(&path).expect("open");
            let open = start.elapsed();
            let memory = rss_bytes().saturating_sub(before);

            let ctx = egui::Context::default();
            let first = frame(&ctx, &mut app);
            let mut frames = Vec::new();
            for step in 0..60u64 {
                let target = ((step * 7919) % n) as usize;
                app.apply(Command::Select(target));
                frames.push(frame(&ctx, &mut app));
            }
            frames.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            println!(
                "{} trace, {n} events, {:.1} MB file ({lines} lines)",
                mix.name(),
                bytes as f64 / 1e6
            );
            println!("  read + split lines (baseline)  {:>9.1} ms", ms(baseline));
            println!(
                "  open: load + analyse + layout  {:>9.1} ms  ({:.1}x the baseline; target <= 4x)",
                ms(open),
                ms(open) / ms(baseline)
            );
            println!(
                "  memory after open              {:>9.1} MB  ({:.2}x the file; target <= 1.7x)",
                memory as f64 / 1e6,
                memory as f64 / bytes as f64
            );
            println!("  first frame                    {:>9.2} ms", ms(first));
            println!(
                "  frame while jumping around     p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms (target < 8 ms)",
                ms(frames[30]),
                ms(frames[54]),
                ms(frames[59])
            );
            let word = match mix {
                Mix::Weather => "get_weather",
                Mix::ToolHeavy => "summarize",
            };
            filter(&app, word, start);
            // What the background threads add (the findings, the filter's byte sets) counts
            // too: the memory once they are done.
            let deadline = Instant::now() + Duration::from_secs(300);
            while !app.store().findings.is_ready() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let settled = rss_bytes().saturating_sub(before);
            println!(
                "  memory once findings and byte sets are made {:>5.1} MB  ({:.2}x the file; target <= 1.7x)",
                settled as f64 / 1e6,
                settled as f64 / bytes as f64
            );
            let _ = std::io::stdout().flush();
            drop(app);
            let _ = std::fs::remove_file(&path);
            if n <= 100_000 {
                follow(&dir, mix, n);
            }
            let _ = std::io::stdout().flush();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
