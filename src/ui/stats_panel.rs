//! The Statistics tab: the numbers `sightline stats` prints, from the same computation
//! ([`crate::analysis::stats::stats`], once per trace generation, not per frame), in the same
//! words (`stats.*`), and the IO graph ([`crate::analysis::stats::io`]): one row of bars per
//! lane, events per interval, the errors among them in the error colour. Clicking a bar
//! selects its first event and sets the message list's filter to its events (`seq:A..B
//! lane:L`, the display-filter language), so the list shows exactly them.

use std::sync::Arc;

use egui::{Grid, RichText, Role, ScrollArea, Sense, Ui, WidgetInfo, pos2, vec2};

use super::command::Command;
use super::store::TraceStore;
use super::theme::Palette;
use crate::analysis::filter::{Filter, Range, Term};
use crate::analysis::stats::io::{IoGraph, io_graph};
use crate::analysis::stats::{By, Latency, Row, Stats, stats};
use crate::analysis::tokens::Bpe;
use crate::export::stats::{percent, shown};
use crate::i18n::Words;
use crate::wire::text::ms_tenths;

/// At most this many intervals in the IO graph.
const BINS: usize = 60;
/// The height of one lane's row of bars.
const LANE_H: f32 = 36.0;

/// The tab's state: the numbers of the trace as last computed.
#[derive(Default)]
pub struct StatsPanel {
    /// `(generation, events)` of the store they were computed for, and what was computed.
    computed: Option<((u64, usize), Arc<Computed>)>,
}

struct Computed {
    stats: Stats,
    graph: Option<IoGraph>,
}

impl StatsPanel {
    /// The numbers for `store`, computed when it changed since the last time.
    fn computed(&mut self, store: &TraceStore, bpe: &dyn Bpe) -> Arc<Computed> {
        let key = (store.generation, store.len());
        if let Some((k, c)) = &self.computed
            && *k == key
        {
            return c.clone();
        }
        let report = &store.report;
        let llm: Vec<_> = report.llm.iter().chain(&report.sampling).collect();
        let events = &store.events[..];
        let all = |_: usize| true;
        let computed = Arc::new(Computed {
            stats: stats(events, &report.rpc, &llm, &By::ALL, bpe, &all),
            graph: io_graph(events, &report.rpc, BINS, &all),
        });
        self.computed = Some((key, computed.clone()));
        computed
    }

    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        bpe: &dyn Bpe,
        tr: Words<'_>,
    ) -> Option<Command> {
        ui.heading(tr.get("panel.stats"));
        if store.is_empty() {
            ui.weak(tr.get("app.no_trace"));
            return None;
        }
        let computed = self.computed(store, bpe);
        let mut command = None;
        ScrollArea::vertical()
            .id_salt("stats-panel")
            .auto_shrink(false)
            .show(ui, |ui| {
                overview(ui, &computed.stats, tr);
                if let Some(graph) = &computed.graph {
                    ui.add_space(6.0);
                    ui.label(RichText::new(tr.get("stats_view.io_graph")).strong());
                    command = graph_ui(ui, store, graph, tr);
                }
                for table in &computed.stats.tables {
                    ui.add_space(6.0);
                    table_ui(ui, table.by, &table.rows, tr);
                }
            });
        command
    }
}

fn overview(ui: &mut Ui, s: &Stats, tr: Words<'_>) {
    let duration = s
        .duration_us
        .map_or_else(|| "-".to_string(), |us| format!("{:.3} s", us as f64 / 1e6));
    ui.label(tr.fmt(
        "stats.overview",
        &[
            ("events", &s.events.to_string()),
            ("duration", &duration),
            ("requests", &s.requests.to_string()),
            ("errors", &s.errors.to_string()),
            ("rate", &percent(s.errors, s.requests)),
            ("unanswered", &s.unanswered.to_string()),
            ("notifications", &s.notifications.to_string()),
        ],
    ));
    if let Some(b) = &s.busiest {
        let second = b.second.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let events = b.events.to_string();
        ui.label(tr.fmt("stats.busiest", &[("second", &second), ("events", &events)]));
    }
}

fn table_ui(ui: &mut Ui, by: By, rows: &[Row], tr: Words<'_>) {
    let title = tr.get(match by {
        By::Method => "stats.by_method",
        By::Tool => "stats.by_tool",
        By::Server => "stats.by_server",
        By::Model => "stats.by_model",
    });
    ui.label(RichText::new(title).strong());
    if rows.is_empty() {
        ui.weak(tr.get("stats.none"));
        return;
    }
    Grid::new(("stats-table", by.as_str()))
        .striped(true)
        .num_columns(10)
        .show(ui, |ui| {
            ui.label("");
            for key in [
                "stats.requests",
                "stats.notifications",
                "stats.errors",
                "stats.rate",
                "stats.unanswered",
            ] {
                ui.label(RichText::new(tr.get(key)).weak());
            }
            for head in ["p50", "p95", "p99", "max"] {
                ui.label(RichText::new(head).weak());
            }
            ui.end_row();
            for r in rows {
                ui.label(shown(&r.key));
                ui.label(r.requests.to_string());
                ui.label(r.notifications.to_string());
                ui.label(r.errors.to_string());
                ui.label(percent(r.errors, r.requests));
                ui.label(r.unanswered.to_string());
                for us in Latency::columns(r.latency) {
                    ui.label(us.map_or_else(|| "-".to_string(), ms_tenths));
                }
                ui.end_row();
            }
        });
}

/// The message-list filter that shows the events of one bar.
pub fn bar_filter(store: &TraceStore, graph: &IoGraph, lane: usize, bin: usize) -> Option<String> {
    let b = graph.bins.get(lane)?.get(bin)?;
    if b.events == 0 {
        return None;
    }
    let seq = |i: usize| store.events.get(i).map(|e| e.seq as i64);
    let filter = Filter::And(vec![
        Filter::Term(Term::Seq(Range {
            min: seq(b.first),
            max: seq(b.last),
        })),
        Filter::Term(Term::Lane(graph.lanes[lane].to_string())),
    ]);
    Some(filter.to_string())
}

/// One row of bars per lane; a click on a bar shows its events.
fn graph_ui(ui: &mut Ui, store: &TraceStore, graph: &IoGraph, tr: Words<'_>) -> Option<Command> {
    let palette = Palette::for_visuals(ui.visuals());
    let peak = graph.peak().max(1) as f32;
    let interval = ms_tenths(graph.interval_us);
    ui.weak(tr.fmt("stats_view.interval", &[("interval", &interval)]));
    let mut command = None;
    for (l, lane) in graph.lanes.iter().enumerate() {
        let name = lane.to_string();
        ui.label(RichText::new(&name).small());
        let width = ui.available_width().max(60.0);
        let (rect, response) = ui.allocate_exact_size(vec2(width, LANE_H), Sense::click());
        let label = tr.fmt("stats_view.lane", &[("lane", &name)]);
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, palette.background);
        let bins = &graph.bins[l];
        let w = rect.width() / bins.len().max(1) as f32;
        for (n, b) in bins.iter().enumerate().filter(|(_, b)| b.events > 0) {
            let x = rect.left() + n as f32 * w;
            let h = rect.height() * b.events as f32 / peak;
            let bar = egui::Rect::from_min_max(
                pos2(x + 0.5, rect.bottom() - h),
                pos2(x + w - 0.5, rect.bottom()),
            );
            painter.rect_filled(bar, 0.0, palette.request);
            if b.errors > 0 {
                let e = rect.height() * b.errors as f32 / peak;
                let mark = egui::Rect::from_min_max(
                    pos2(bar.left(), rect.bottom() - e.max(3.0)),
                    bar.right_bottom(),
                );
                painter.rect_filled(mark, 0.0, palette.error);
            }
        }
        let at = |pos: egui::Pos2| ((pos.x - rect.left()) / w).floor().max(0.0) as usize;
        let response = match response
            .hover_pos()
            .map(at)
            .and_then(|n| bins.get(n).map(|b| (n, b)))
        {
            Some((n, b)) if b.events > 0 => {
                let from = ms_tenths(n as i64 * graph.interval_us);
                response.on_hover_text(tr.fmt(
                    "stats_view.bar",
                    &[
                        ("events", &b.events.to_string()),
                        ("errors", &b.errors.to_string()),
                        ("lane", &name),
                        ("at", &from),
                    ],
                ))
            }
            _ => response,
        };
        if response.clicked()
            && let Some(n) = response.interact_pointer_pos().map(at)
            && let Some(filter) = bar_filter(store, graph, l, n)
        {
            command = Some(Command::ShowEvents {
                filter,
                select: graph.bins[l][n].first,
            });
        }
    }
    command
}
