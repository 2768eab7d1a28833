//! The app's Statistics tab, driven headless like `ui_app`: the numbers `sightline stats`
//! prints, in the same words, and the IO graph, whose bars select their events.

use std::process::Command as Process;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sightline::analysis::stats::io::io_graph;
use sightline::trace::Lane;
use sightline::ui::{Language, SightlineApp, Tab};

use crate::ui_app::{record, text};
use crate::util::{self, harness};

#[test]
fn the_statistics_tab_says_what_sightline_stats_says() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let cli = util::run(
        Process::new(util::bin())
            .arg("stats")
            .arg(&trace)
            .args(["--lang", "en"]),
        Duration::from_secs(60),
    );
    assert!(cli.status.success(), "{}", util::text(&cli.stderr));
    let printed = util::text(&cli.stdout);
    let overview = printed.lines().next().expect("the overview line");
    let busiest = printed.lines().nth(1).expect("the busiest second");

    let app = SightlineApp::from_trace(&trace).expect("open trace");
    let mut h = harness(app);
    h.get_by_label(&text(Language::En, "panel.stats")).click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Stats);
    assert!(h.query_by_label(overview).is_some(), "no {overview:?}");
    assert!(h.query_by_label(busiest).is_some(), "no {busiest:?}");
    for key in [
        "stats.by_method",
        "stats.by_tool",
        "stats.by_server",
        "stats.by_model",
    ] {
        assert!(
            h.query_by_label(&text(Language::En, key)).is_some(),
            "no {key}"
        );
    }
    assert!(h.query_by_label("get_weather").is_some());
    assert!(h.query_by_label("tools/call").is_some());
}

#[test]
fn a_bar_of_the_io_graph_lists_and_selects_its_events() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let mut app = SightlineApp::from_trace(&trace).expect("open trace");
    app.set_tab(Tab::Stats);
    let store = app.store();
    let events = &store.events[..];
    let graph = io_graph(events, &store.report.rpc, 60, &|_| true).expect("a graph");
    let lane = Lane::server("weather");
    let l = graph
        .lanes
        .iter()
        .position(|x| *x == lane)
        .expect("the weather lane");
    let (n, bin) = graph.bins[l]
        .iter()
        .enumerate()
        .max_by_key(|(_, b)| b.events)
        .expect("a bar");
    let (first, last) = (events[bin.first].seq, events[bin.last].seq);
    let expected: Vec<usize> = (0..events.len())
        .filter(|&i| {
            let e = &events[i];
            (first..=last).contains(&e.seq) && (e.from == lane || e.to == lane)
        })
        .collect();
    assert_eq!(expected.len(), bin.events as usize);
    let bins = graph.bins[l].len() as f32;
    let events_seq: Vec<u64> = events.iter().map(|e| e.seq).collect();

    let mut h = harness(app);
    let rect = h.get_by_label(&format!("IO graph of {lane}")).rect();
    let at = egui::pos2(
        rect.left() + (n as f32 + 0.5) * rect.width() / bins,
        rect.center().y,
    );
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    assert_eq!(h.state().selected(), Some(bin.first));
    let filter = h.state_mut().list_mut().filter.text.clone();
    let seq = match first == last {
        true => format!("seq:{first}"),
        false => format!("seq:{first}..{last}"),
    };
    assert_eq!(filter, format!("{seq} and lane:\"{lane}\""));
    // The filter keeps exactly the bar's events (`summary --filter` reads the same language).
    let listed = util::run(
        Process::new(util::bin())
            .arg("summary")
            .arg(&trace)
            .args(["--json", "--filter", &filter]),
        Duration::from_secs(60),
    );
    assert!(listed.status.success(), "{}", util::text(&listed.stderr));
    let seqs: Vec<u64> = util::text(&listed.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["seq"].as_u64())
        .collect();
    let wanted: Vec<u64> = expected.iter().map(|&i| events_seq[i]).collect();
    assert_eq!(seqs, wanted);
}
