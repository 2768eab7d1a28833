//! The app on big traces: time to load and lay out a synthetic 100,000- and 1,000,000-event
//! trace, the memory it takes against the file size, and the frame time while scrolling (only
//! visible rows are drawn). The baseline in the same run is reading the same file into memory
//! and splitting its lines, the least any viewer must do.
//!
//! Run with `cargo bench --bench app_scale` (add `-- 100000` to skip the 1M case).

use std::io::Write;
use std::time::{Duration, Instant};

use sightline::trace::{Channel, Event, Header, Lane, TraceWriter, now};
use sightline::ui::SightlineApp;
use sightline::ui::command::Command;

/// One weather loop as the host records it: 12 events.
fn loop_events(k: u64) -> Vec<(Lane, Lane, Channel, String)> {
    let s = || Lane::server("weather");
    let id = 1 + 2 * k;
    vec![
        (Lane::User, Lane::Host, Channel::Note, format!("What's the weather in city {k}?")),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"get_weather","description":"Get current weather information for a location","inputSchema":{{"type":"object","properties":{{"location":{{"type":"string"}}}},"required":["location"]}}}}]}}}}"#)),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"location":"city {k}"}}}}}}"#, id + 1)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"city {k}: 15C, partly cloudy"}}],"isError":false}}}}"#, id + 1)),
        (s(), Lane::Host, Channel::Stdio, r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"served"}}"#.to_string()),
        (s(), Lane::Host, Channel::Stderr, format!("served city {k}")),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{k},"progress":1}}}}"#)),
        (Lane::Host, s(), Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":"p{k}","method":"ping"}}"#)),
        (s(), Lane::Host, Channel::Stdio, format!(r#"{{"jsonrpc":"2.0","id":"p{k}","result":{{}}}}"#)),
        (s(), Lane::Host, Channel::Stdio, "debug output that is not JSON".to_string()),
        (Lane::Host, Lane::User, Channel::Note, format!("city {k}: 15C, partly cloudy")),
    ]
}

fn write_trace(path: &std::path::Path, n: u64) -> u64 {
    let mut writer = TraceWriter::create(path, &Header::new("synthetic")).expect("create");
    let t0 = now();
    let mut seq = 0;
    let mut k = 0;
    while seq < n {
        for (from, to, channel, raw) in loop_events(k) {
            if seq == n {
                break;
            }
            let time = t0 + chrono::Duration::microseconds(seq as i64 * 50);
            let event = Event::with_bytes(seq, time, from, to, channel, raw.into_bytes());
            writer.append(&event).expect("append");
            seq += 1;
        }
        k += 1;
    }
    writer.flush().expect("flush");
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

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

fn main() {
    let sizes: Vec<u64> = match std::env::args().skip(1).find_map(|a| a.parse().ok()) {
        Some(n) => vec![n],
        None => vec![100_000, 1_000_000],
    };
    let dir = std::env::temp_dir().join(format!("sightline-app-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for n in sizes {
        let path = dir.join(format!("synthetic-{n}.jsonl"));
        let bytes = write_trace(&path, n);

        let start = Instant::now();
        let text = std::fs::read(&path).expect("read");
        let lines = text.split(|&b| b == b'\n').count();
        let baseline = start.elapsed();
        drop(text);

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
            "{n} events, {:.1} MB file ({lines} lines)",
            bytes as f64 / 1e6
        );
        println!("  read + split lines (baseline)  {:>9.1} ms", ms(baseline));
        println!(
            "  open: load + analyse + layout  {:>9.1} ms  ({:.1}x the baseline; target < 3000 ms at 1M)",
            ms(open),
            ms(open) / ms(baseline)
        );
        println!(
            "  memory after open              {:>9.1} MB  ({:.2}x the file; target < 2x)",
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
        let _ = std::io::stdout().flush();
        drop(app);
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
