//! The message list: every event as a table row beside the diagram, filterable.
//!
//! Filters (lane, method, kind, text) are applied once per change and cached as a sorted list
//! of event indices; the table lays out only the rows in view (`TableBuilder::rows`). With
//! "limit the diagram to the filter" on, the diagram shows the same subset.

pub mod saved;

use egui::{Align, ComboBox, Sense, TextEdit, Ui};
use egui_extras::{Column, TableBuilder};

use super::command::Command;
use super::store::TraceStore;
use super::store::search::{Filter, Found, NOT_READ, Needle, Query, Typed, scan};
use super::visible;
use crate::i18n::Words;
use crate::trace::{Kind, Lane};

/// Text filters over at least this many events run on two threads.
const PARALLEL_FILTER_FROM: usize = 20_000;

/// A filter's result.
#[derive(Debug)]
struct Cached {
    filter: Filter,
    /// The store's generation, event count and buffer (another trace's results are stale).
    generation: u64,
    which: (usize, usize),
    /// The matching event indices, and where each one's payload holds the text (none when no
    /// payload was read: all [`NOT_READ`]).
    hits: Vec<usize>,
    found: Vec<Found>,
}

/// UI memory of the list.
#[derive(Debug, Default)]
pub struct MessageList {
    pub filter: Filter,
    /// Show only the filtered rows in the diagram too.
    pub limit_diagram: bool,
    /// Saved filters and colouring rules (kept with the settings).
    pub saved: saved::Saved,
    /// Filtered event indices for (filter, store generation, event count): the latest last,
    /// and the filters typed before it while they fit (see [`MessageList::matches`]).
    cache: Vec<Cached>,
    /// Scroll the table to this event on the next frame.
    reveal: Option<usize>,
}

impl MessageList {
    pub fn reveal(&mut self, event: usize) {
        self.reveal = Some(event);
    }

    /// The events passing the filter (sorted), or `None` when no filter is on.
    pub fn matches(&mut self, store: &TraceStore) -> Option<&[usize]> {
        if !self.filter.is_active() {
            self.cache.clear();
            return None;
        }
        // Results of another trace, or of fewer events, are stale.
        let which = (store.len(), store.events.as_ptr() as usize);
        self.cache
            .retain(|c| c.generation == store.generation && c.which == which);
        if let Some(at) = self.cache.iter().position(|c| c.filter == self.filter) {
            // A filter typed before (a backspace): its result again.
            let hit = self.cache.remove(at);
            self.cache.push(hit);
        } else {
            let query = Query::of(&self.filter.text);
            let typed = query.typed.is_some();
            self.filter.typed = Typed(query.typed);
            let needle = Needle::new(&query.free);
            let filter = &self.filter;
            // Typing one more character narrows the filter: only what matched a filter the
            // new one contains can match; the narrowest of them is looked at. Where it was
            // found in a payload, the new text is not before (less how far into it the old
            // one begins).
            let previous: Option<&Cached> = self
                .cache
                .iter()
                .filter(|c| {
                    // A typed query narrows by its terms, not by its text.
                    !typed
                        && c.filter.typed.0.is_none()
                        && Filter {
                            text: self.filter.text.clone(),
                            ..c.filter.clone()
                        } == self.filter
                        && needle.as_str().contains(&c.filter.text.to_lowercase())
                })
                .min_by_key(|c| c.hits.len());
            let resume = previous.and_then(|c| needle.resumes(&c.filter.text));
            // The candidates: every event, or the previous result's. A big trace's are looked
            // at on two threads, in chunks each takes in turn.
            let count = previous.map_or(store.len(), |c| c.hits.len());
            let plan = scan::Plan::new(store, &needle);
            let at = |k: usize| match previous {
                Some(before) => {
                    let found = before.found.get(k).copied().unwrap_or(NOT_READ);
                    let start = match resume {
                        Some(back) if found != NOT_READ => (found as usize).saturating_sub(back),
                        _ => 0,
                    };
                    (before.hits[k], start)
                }
                None => (k, 0),
            };
            let (hits, found) = if count >= PARALLEL_FILTER_FROM && !needle.is_empty() {
                scan::matching_in_chunks(store, filter, &needle, plan, count, at)
            } else {
                scan::matching(store, filter, &needle, plan, 0..count, at)
            };
            self.cache.push(Cached {
                filter: self.filter.clone(),
                generation: store.generation,
                which,
                hits,
                found,
            });
            // Keep what fits in twice the events' count of indices, the newest at least.
            let budget = 2 * store.len().max(1024);
            while self.cache.len() > 1
                && self.cache.iter().map(|c| c.hits.len()).sum::<usize>() > budget
            {
                self.cache.remove(0);
            }
        }
        self.cache.last().map(|c| c.hits.as_slice())
    }

    /// Draws the filters and the table. `upto` hides events after it (teaching mode).
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        selected: Option<usize>,
        upto: Option<usize>,
        tr: Words<'_>,
    ) -> Option<Command> {
        self.filters_ui(ui, store, tr);
        // Out of `self` while the rows borrow the filter's result.
        let mut saved = std::mem::take(&mut self.saved);
        let reveal = self.reveal.take();
        let visible_n = upto.map_or(store.len(), |u| (u + 1).min(store.len()));
        let subset: Option<&[usize]> = self
            .matches(store)
            .map(|hits| &hits[..hits.partition_point(|&i| i < visible_n)]);
        let count = subset.map_or(visible_n, <[usize]>::len);
        let event_at = |pos: usize| subset.map_or(pos, |s| s[pos]);
        let summary = match subset {
            Some(_) => tr.fmt("filter.matches", &[("count", &count.to_string())]),
            None => tr.fmt("app.events", &[("count", &count.to_string())]),
        };
        ui.weak(summary);

        let mut command = None;
        // Cells are plain text: a click anywhere on a row selects the event.
        ui.style_mut().interaction.selectable_labels = false;
        let widths = column_widths(ui, store);
        let column = |w: f32| Column::initial(w).at_least(16.0).resizable(true).clip(true);
        let mut table = TableBuilder::new(ui)
            .id_salt("message-list")
            .striped(true)
            .sense(Sense::click())
            .cell_layout(egui::Layout::left_to_right(Align::Center))
            .column(column(widths[0]))
            .column(column(widths[1]))
            .column(column(widths[2]))
            .column(Column::remainder().clip(true))
            .min_scrolled_height(0.0);
        if let Some(event) = reveal {
            let pos = match subset {
                Some(s) => s.binary_search(&event).ok(),
                None => (event < count).then_some(event),
            };
            if let Some(pos) = pos {
                table = table.scroll_to_row(pos, Some(Align::Center));
            }
        }
        table
            .header(18.0, |mut h| {
                let headers = [
                    "#".to_string(),
                    tr.get("inspector.time").to_string(),
                    "⇄".to_string(),
                    tr.get("panel.events").to_string(),
                ];
                for text in headers {
                    h.col(|ui| {
                        ui.strong(text);
                    });
                }
            })
            .body(|body| {
                body.rows(20.0, count, |mut row| {
                    let i = event_at(row.index());
                    let e = &store.events[i];
                    let r = store.diagram.rows.get(i);
                    row.set_selected(selected == Some(i));
                    let tint = saved.colour_of(e, &store.report.rpc.derived[i]);
                    let tint = |ui: &mut Ui| {
                        if let Some(c) = tint {
                            ui.painter()
                                .rect_filled(ui.max_rect(), 0.0, c.gamma_multiply(0.35));
                        }
                    };
                    row.col(|ui| {
                        tint(ui);
                        ui.monospace(e.seq.to_string());
                    });
                    row.col(|ui| {
                        tint(ui);
                        ui.monospace(super::diagram_paint::time_text(store.offset_us(i)));
                    });
                    row.col(|ui| {
                        tint(ui);
                        let text = lanes_text(e);
                        ui.monospace(&text).on_hover_text(text);
                    });
                    row.col(|ui| {
                        tint(ui);
                        let label = store.diagram.row_of_event(i).map_or_else(
                            || store.report.rpc.derived[i].kind.as_str().to_string(),
                            |r| store.row_label(r),
                        );
                        match r.filter(|r| !r.status.is_ok()) {
                            Some(_) => ui.colored_label(ui.visuals().warn_fg_color, &label),
                            None => ui.label(&label),
                        }
                        .on_hover_text(label);
                    });
                    if row.response().clicked() {
                        command = Some(Command::Select(i));
                    }
                });
            });
        self.saved = saved;
        command
    }

    fn filters_ui(&mut self, ui: &mut Ui, store: &TraceStore, tr: Words<'_>) {
        let all = tr.get("filter.all").to_string();
        ui.horizontal_wrapped(|ui| {
            ComboBox::from_id_salt("filter-lane")
                .selected_text(
                    self.filter
                        .lane
                        .as_ref()
                        .map_or(all.clone(), |l| lane_title(store, l, tr)),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.lane, None, &all);
                    for lane in &store.diagram.lanes {
                        let title = super::lanes::lane_title(tr, lane);
                        ui.selectable_value(&mut self.filter.lane, Some(lane.lane.clone()), title);
                    }
                })
                .response
                .on_hover_text(tr.get("filter.lane"));
            ComboBox::from_id_salt("filter-kind")
                .selected_text(
                    self.filter
                        .kind
                        .map_or(all.clone(), |k| k.as_str().to_string()),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.kind, None, &all);
                    for k in kinds_in(store) {
                        ui.selectable_value(&mut self.filter.kind, Some(k), k.as_str());
                    }
                })
                .response
                .on_hover_text(tr.get("inspector.kind"));
            ComboBox::from_id_salt("filter-method")
                .selected_text(self.filter.method.clone().unwrap_or(all.clone()))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.method, None, &all);
                    for m in methods_in(store) {
                        let text = visible::escape(&m).into_owned();
                        ui.selectable_value(&mut self.filter.method, Some(m), text);
                    }
                })
                .response
                .on_hover_text(tr.get("inspector.method"));
        });
        ui.horizontal(|ui| {
            ui.add(
                TextEdit::singleline(&mut self.filter.text)
                    .hint_text(tr.get("filter.search_hint"))
                    .desired_width(150.0),
            );
            if self.filter.is_active() && ui.small_button(tr.get("filter.clear")).clicked() {
                self.filter = Filter::default();
            }
        });
        if let Some(error) = Query::of(&self.filter.text).error {
            ui.colored_label(ui.visuals().warn_fg_color, error.said().say(tr));
        }
        egui::CollapsingHeader::new(tr.get("filter.saved"))
            .id_salt("saved-filters")
            .show(ui, |ui| {
                if let Some(text) = self.saved.ui(ui, &self.filter.text, tr) {
                    self.filter = Filter::of_text(text);
                }
            });
        ui.checkbox(&mut self.limit_diagram, tr.get("filter.limit_diagram"));
    }
}

fn lane_title(store: &TraceStore, lane: &Lane, tr: Words<'_>) -> String {
    store.diagram.lane_index(lane).map_or_else(
        || visible::escape(&lane.to_string()).into_owned(),
        |i| super::lanes::lane_title(tr, &store.diagram.lanes[i]),
    )
}

fn kinds_in(store: &TraceStore) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for d in &store.report.rpc.derived {
        if !kinds.contains(&d.kind) {
            kinds.push(d.kind);
        }
    }
    kinds
}

fn methods_in(store: &TraceStore) -> Vec<String> {
    let methods: std::collections::BTreeSet<&str> = store
        .report
        .rpc
        .derived
        .iter()
        .filter_map(|d| d.method.as_deref())
        .collect();
    methods.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests;

/// A lane as the list's lanes column names it: `U`, `H`, `L`, or the server's name whole.
fn lane_text(l: &Lane) -> String {
    match l {
        Lane::User => "U".to_string(),
        Lane::Host => "H".to_string(),
        Lane::Llm => "L".to_string(),
        Lane::Server(s) | Lane::Other(s) => visible::escape(s).into_owned(),
    }
}

/// The lanes column of an event: `H→weather`, or the one lane of a note.
fn lanes_text(e: &crate::trace::Event) -> String {
    match e.from == e.to {
        true => lane_text(&e.from),
        false => format!("{}→{}", lane_text(&e.from), lane_text(&e.to)),
    }
}

/// How wide the seq, time and lanes columns start: as wide as their widest content (the last
/// seq, the last event's time, the longest lane name beside `H→`), so nothing is cut until
/// the user narrows a column; a lane name past 16 characters is left to the hover.
fn column_widths(ui: &Ui, store: &TraceStore) -> [f32; 3] {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let width = |text: &str| {
        let galley =
            ui.painter()
                .layout_no_wrap(text.to_string(), font.clone(), egui::Color32::WHITE);
        galley.size().x + 2.0 * ui.spacing().item_spacing.x
    };
    let last = store.len().saturating_sub(1);
    let seq = store.events.last().map_or(0, |e| e.seq).to_string();
    let time = super::diagram_paint::time_text(store.offset_us(last));
    let lane = store
        .diagram
        .lanes
        .iter()
        .map(|l| lane_text(&l.lane).chars().take(16).collect::<String>())
        .max_by_key(|t| t.chars().count())
        .unwrap_or_default();
    [
        width(&seq).max(width("#")),
        width(&time).max(width("+0.0 ms")),
        width(&format!("H→{lane}")),
    ]
}
