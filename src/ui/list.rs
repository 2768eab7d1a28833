//! The message list: every event as a table row beside the diagram, filterable.
//!
//! Filters (lane, method, kind, text) are applied once per change and cached as a sorted list
//! of event indices; the table lays out only the rows in view (`TableBuilder::rows`). With
//! "limit the diagram to the filter" on, the diagram shows the same subset.

use std::collections::HashMap;

use egui::{Align, ComboBox, Sense, TextEdit, Ui};
use egui_extras::{Column, TableBuilder};

use super::Tr;
use super::command::Command;
use super::store::TraceStore;
use super::visible;
use crate::analysis::diagram;
use crate::trace::{Kind, Lane};

/// Text filters over at least this many events run on two threads.
const PARALLEL_FILTER_FROM: usize = 20_000;

/// What the user filters by. Empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Events to or from this lane.
    pub lane: Option<Lane>,
    pub method: Option<String>,
    pub kind: Option<Kind>,
    /// Case-insensitive text in the raw payload or the label.
    pub text: String,
}

impl Filter {
    pub fn is_active(&self) -> bool {
        *self != Filter::default()
    }

    /// Whether event `i` passes. `needle` is the text in lower case; `labels` remembers, for
    /// the labels that repeat, whether they hold it.
    pub fn matches(&self, store: &TraceStore, i: usize, needle: &str, labels: &mut Labels) -> bool {
        let e = &store.events[i];
        let d = &store.report.rpc.derived[i];
        if self
            .lane
            .as_ref()
            .is_some_and(|l| e.from != *l && e.to != *l)
        {
            return false;
        }
        if self.kind.is_some_and(|k| d.kind != k) {
            return false;
        }
        if self
            .method
            .as_ref()
            .is_some_and(|m| d.method.as_deref() != Some(m.as_str()))
        {
            return false;
        }
        if !needle.is_empty() {
            return contains_folded(&e.text(), needle) || label_matches(store, i, needle, labels);
        }
        true
    }
}

/// Whether labels shared by many rows hold the needle: (kind, method, qualifier,
/// input_required) -> (without `isError`, with it).
pub type Labels = HashMap<(u8, usize, usize, bool), (bool, bool)>;

/// Case-insensitive `contains` (as `hay.to_lowercase().contains(needle)` with `needle` in
/// lower case), without a copy of `hay` when both are ASCII. It looks for the needle's rarest
/// byte (in either case) and compares around each place it occurs: the first byte of a word
/// like `summarize` occurs every few bytes of JSON, its `z` seldom.
fn contains_folded(hay: &str, needle: &str) -> bool {
    if !hay.is_ascii() || !needle.is_ascii() {
        return hay.to_lowercase().contains(needle);
    }
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    if needle.is_empty() {
        return true;
    }
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    let (at, &rare) = needle
        .iter()
        .enumerate()
        .min_by_key(|(_, b)| commonness(**b))
        .unwrap_or((0, &needle[0]));
    let (lower, upper) = (rare.to_ascii_lowercase(), rare.to_ascii_uppercase());
    // Only where the needle would fit around the rare byte.
    let window = &hay[at..last_start + at + 1];
    memchr::memchr2_iter(lower, upper, window)
        .any(|p| hay[p..p + needle.len()].eq_ignore_ascii_case(needle))
}

/// How often a (lower-case) byte occurs in traces' text, roughly: JSON's punctuation and the
/// common letters of English first, rare letters and symbols last.
fn commonness(b: u8) -> u8 {
    const ORDER: &[u8] = b"\" :,e{}tao_isnr-hl/dc1u0m2p.f3gwy5b47v896k[]jxqz";
    ORDER
        .iter()
        .position(|&c| c == b.to_ascii_lowercase())
        .map_or(0, |p| (ORDER.len() - p) as u8)
}

/// Whether the label of event `i`'s row holds the needle. The labels of requests, results and
/// notifications repeat (method and qualifier), so each distinct one is looked at once.
fn label_matches(store: &TraceStore, i: usize, needle: &str, labels: &mut Labels) -> bool {
    let e = &store.events[i];
    let d = &store.report.rpc.derived[i];
    let ptr = |t: &Option<crate::trace::Shared>| t.as_deref().map_or(0, |s| s.as_ptr() as usize);
    if !diagram::has_message_label(e, d) {
        return store
            .diagram
            .row_of_event(i)
            .is_some_and(|r| contains_folded(&store.row_label(r), needle));
    }
    let key = (
        d.kind as u8,
        ptr(&d.method),
        ptr(&d.detail),
        d.input_required,
    );
    let (plain, flagged) = *labels.entry(key).or_insert_with(|| {
        (
            contains_folded(&diagram::message_label(d, false), needle),
            contains_folded(&diagram::message_label(d, true), needle),
        )
    });
    if plain == flagged || !diagram::tool_result_is_error(e) {
        plain
    } else {
        flagged
    }
}

/// UI memory of the list.
#[derive(Debug, Default)]
pub struct MessageList {
    pub filter: Filter,
    /// Show only the filtered rows in the diagram too.
    pub limit_diagram: bool,
    /// Filtered event indices, for (filter, store generation); `None` when no filter is on.
    cache: Option<(Filter, u64, usize, Vec<usize>)>,
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
            self.cache = None;
            return None;
        }
        let fresh = self.cache.as_ref().is_some_and(|(f, g, n, _)| {
            *f == self.filter && *g == store.generation && *n == store.len()
        });
        if !fresh {
            let needle = self.filter.text.to_lowercase();
            let filter = &self.filter;
            // Typing one more character narrows the filter: only what matched before can match.
            let narrower = self.cache.as_ref().filter(|(f, g, n, _)| {
                *g == store.generation
                    && *n == store.len()
                    && Filter {
                        text: self.filter.text.clone(),
                        ..f.clone()
                    } == self.filter
                    && needle.contains(&f.text.to_lowercase())
            });
            let previous: Option<&[usize]> = narrower.map(|c| c.3.as_slice());
            let hits = |range: std::ops::Range<usize>| -> Vec<usize> {
                let mut labels = Labels::new();
                match previous {
                    Some(before) => {
                        let from = before.partition_point(|&i| i < range.start);
                        let to = before.partition_point(|&i| i < range.end);
                        before[from..to]
                            .iter()
                            .copied()
                            .filter(|&i| filter.matches(store, i, &needle, &mut labels))
                            .collect()
                    }
                    None => range
                        .filter(|&i| filter.matches(store, i, &needle, &mut labels))
                        .collect(),
                }
            };
            // Labels are computed on demand, so a text filter over a big trace reads every
            // row's label: on two threads.
            let n = store.len();
            let hits = if n >= PARALLEL_FILTER_FROM && !needle.is_empty() {
                let (mut first, rest) =
                    crate::trace::halves::join(|| hits(0..n / 2), || hits(n / 2..n));
                first.extend(rest);
                first
            } else {
                hits(0..n)
            };
            self.cache = Some((self.filter.clone(), store.generation, store.len(), hits));
        }
        self.cache.as_ref().map(|c| c.3.as_slice())
    }

    /// Draws the filters and the table. `upto` hides events after it (teaching mode).
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        selected: Option<usize>,
        upto: Option<usize>,
        tr: Tr<'_>,
    ) -> Option<Command> {
        self.filters_ui(ui, store, tr);
        let reveal = self.reveal.take();
        let visible_n = upto.map_or(store.len(), |u| (u + 1).min(store.len()));
        let subset: Option<&[usize]> = self
            .matches(store)
            .map(|hits| &hits[..hits.partition_point(|&i| i < visible_n)]);
        let count = subset.map_or(visible_n, <[usize]>::len);
        let event_at = |pos: usize| subset.map_or(pos, |s| s[pos]);
        let summary = match subset {
            Some(_) => tr.f("filter.matches", &[("count", count.to_string())]),
            None => tr.f("app.events", &[("count", count.to_string())]),
        };
        ui.weak(summary);

        let mut command = None;
        // Cells are plain text: a click anywhere on a row selects the event.
        ui.style_mut().interaction.selectable_labels = false;
        let mut table = TableBuilder::new(ui)
            .id_salt("message-list")
            .striped(true)
            .sense(Sense::click())
            .cell_layout(egui::Layout::left_to_right(Align::Center))
            .column(Column::exact(44.0))
            .column(Column::exact(74.0))
            .column(Column::exact(68.0))
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
        let arrow = |l: &Lane| match l {
            Lane::User => "U".to_string(),
            Lane::Host => "H".to_string(),
            Lane::Llm => "L".to_string(),
            Lane::Server(s) => visible::escape(s).chars().take(6).collect(),
            Lane::Other(s) => visible::escape(s).chars().take(6).collect(),
        };
        table
            .header(18.0, |mut h| {
                let headers = [
                    "#".to_string(),
                    tr.t("inspector.time"),
                    "⇄".to_string(),
                    tr.t("panel.events"),
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
                    row.col(|ui| {
                        ui.monospace(e.seq.to_string());
                    });
                    row.col(|ui| {
                        ui.monospace(super::diagram_paint::time_text(store.offset_us(i)));
                    });
                    row.col(|ui| {
                        let text = if e.from == e.to {
                            arrow(&e.from)
                        } else {
                            format!("{}→{}", arrow(&e.from), arrow(&e.to))
                        };
                        ui.monospace(text);
                    });
                    row.col(|ui| {
                        let label = store.diagram.row_of_event(i).map_or_else(
                            || store.report.rpc.derived[i].kind.as_str().to_string(),
                            |r| store.row_label(r),
                        );
                        match r.filter(|r| !r.status.is_ok()) {
                            Some(_) => ui.colored_label(ui.visuals().warn_fg_color, label),
                            None => ui.label(label),
                        };
                    });
                    if row.response().clicked() {
                        command = Some(Command::Select(i));
                    }
                });
            });
        command
    }

    fn filters_ui(&mut self, ui: &mut Ui, store: &TraceStore, tr: Tr<'_>) {
        let all = tr.t("filter.all");
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
                        let title = super::lane_title(tr, lane);
                        ui.selectable_value(&mut self.filter.lane, Some(lane.lane.clone()), title);
                    }
                })
                .response
                .on_hover_text(tr.t("filter.lane"));
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
                .on_hover_text(tr.t("inspector.kind"));
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
                .on_hover_text(tr.t("inspector.method"));
        });
        ui.horizontal(|ui| {
            ui.add(
                TextEdit::singleline(&mut self.filter.text)
                    .hint_text(tr.t("filter.search_hint"))
                    .desired_width(150.0),
            );
            if self.filter.is_active() && ui.small_button(tr.t("filter.clear")).clicked() {
                self.filter = Filter::default();
            }
        });
        ui.checkbox(&mut self.limit_diagram, tr.t("filter.limit_diagram"));
    }
}

fn lane_title(store: &TraceStore, lane: &Lane, tr: Tr<'_>) -> String {
    store.diagram.lane_index(lane).map_or_else(
        || visible::escape(&lane.to_string()).into_owned(),
        |i| super::lane_title(tr, &store.diagram.lanes[i]),
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
mod tests {
    use super::*;
    use crate::trace::{Channel, Event, now};
    use crate::ui::store::Source;

    #[test]
    fn folded_contains_is_lowercase_contains() {
        let hays = [
            "",
            "z",
            "Summarize",
            "xsummarizx",
            "{\"name\":\"SUMMARIZE\"}",
            "sum marize",
            "summari",
            "aaZ",
            "zaa",
            "Ünïcode summarize",
            "q_Q",
            "[]",
        ];
        let needles = [
            "",
            "z",
            "summarize",
            "s",
            "ze",
            "\"name\"",
            "q_q",
            "]",
            "ünï",
            "aaz",
        ];
        for hay in hays {
            for needle in needles {
                assert_eq!(
                    contains_folded(hay, needle),
                    hay.to_lowercase().contains(needle),
                    "{hay:?} {needle:?}"
                );
            }
        }
    }

    #[test]
    fn a_text_filter_over_a_big_trace_finds_labels_and_payloads_in_order() {
        let t0 = now();
        let events: Vec<Event> = (0..PARALLEL_FILTER_FROM as u64 + 10)
            .map(|seq| {
                let raw = if seq % 1000 == 0 {
                    format!(r#"{{"jsonrpc":"2.0","id":{seq},"method":"tools/call","params":{{"name":"needle"}}}}"#)
                } else {
                    format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"n":{seq}}}}}"#)
                };
                Event::with_bytes(
                    seq,
                    t0,
                    Lane::Host,
                    Lane::server("s"),
                    Channel::Stdio,
                    raw.into_bytes(),
                )
            })
            .collect();
        let store = TraceStore::new("t".into(), Source::Memory, events);
        let mut list = MessageList::default();
        // "call needle" is in the labels (`tools/call needle`), not in the payloads.
        list.filter.text = "CALL NEEDLE".into();
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        let expected: Vec<usize> = (0..store.len()).step_by(1000).collect();
        assert_eq!(hits, Some(expected));
    }

    /// Typing, narrowing and the shared labels find what a plain scan of every payload and
    /// every label finds, `isError` results and HTTP statuses included.
    #[test]
    fn typed_filters_match_a_plain_scan() {
        let tour = include_str!("../../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl");
        let mut events = crate::trace::load_from_reader(tour.as_bytes())
            .expect("fixture")
            .events;
        let t0 = events[0].time;
        let s = Lane::server("tour");
        let mut add = |from: Lane, to: Lane, channel: Channel, raw: &str, status: Option<u16>| {
            let seq = events.len() as u64;
            let mut e = Event::with_bytes(seq, t0, from, to, channel, raw.as_bytes().to_vec());
            if let Some(code) = status {
                e.http = Some(Box::new(crate::trace::HttpInfo {
                    status: Some(code),
                    ..Default::default()
                }));
            }
            events.push(e);
        };
        for (id, error) in [(900, "true"), (901, "false")] {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo"}}}}"#
            );
            add(Lane::Host, s.clone(), Channel::Stdio, &call, None);
            let result = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"isError":{error}}}}}"#
            );
            add(s.clone(), Lane::Host, Channel::Stdio, &result, None);
        }
        add(
            Lane::Host,
            s.clone(),
            Channel::Http,
            r#"{"jsonrpc":"2.0","id":902,"method":"ping"}"#,
            None,
        );
        add(
            s.clone(),
            Lane::Host,
            Channel::Http,
            r#"{"jsonrpc":"2.0","id":902,"result":{}}"#,
            Some(404),
        );
        let store = TraceStore::new("t".into(), Source::Memory, events);
        let plain = |needle: &str| -> Vec<usize> {
            (0..store.len())
                .filter(|&i| {
                    store.events[i].text().to_lowercase().contains(needle)
                        || store.row_label(i).to_lowercase().contains(needle)
                })
                .collect()
        };
        for word in [
            "result tools/call echo iserror",
            "404 not",
            "SAMPLING",
            "input_required",
            "ü",
        ] {
            let mut list = MessageList::default();
            for end in (1..=word.len()).filter(|&n| word.is_char_boundary(n)) {
                list.filter.text = word[..end].to_string();
                let hits = list.matches(&store).map(<[usize]>::to_vec);
                assert_eq!(
                    hits,
                    Some(plain(&word[..end].to_lowercase())),
                    "{:?}",
                    &word[..end]
                );
            }
        }
        let mut list = MessageList::default();
        list.filter.text = "iserror".into();
        let hits = list
            .matches(&store)
            .map(<[usize]>::to_vec)
            .unwrap_or_default();
        assert!(
            hits.iter()
                .any(|&i| store.row_label(i).ends_with("isError")),
            "{hits:?}"
        );
    }
}
