//! Two traces side by side: two synchronised sequence diagrams and what differs between them.
//!
//! Made for the seed article's second half (the same scenario under 2025-11-25 and
//! 2026-07-28, `sightline open A B` or View > Compare), and for any two recordings: the view
//! takes two [`TraceStore`]s and knows nothing of where they came from. The two are lined up
//! step by step ([`crate::analysis::align`]); selecting an arrow on one side (click, or the
//! arrow keys) selects and scrolls to the same step on the other, or to the nearest step
//! before it when that side has no such arrow. Above the diagrams, the differences: the four
//! of [`crate::analysis::revisions`] (handshake, requests from the server, change
//! notifications, session), each with how each side shows it and a button that selects the
//! events that show it, then any [`CompareView::notes`] the caller adds (a trace diff's
//! findings, say).

use egui::{RichText, Ui};

use super::diagram::{DiagramView, RowSet};
use super::store::TraceStore;
use crate::analysis::align::{self, Step};
use crate::analysis::revisions::{self, Contrast};
use crate::i18n::Words;

/// One side of the comparison.
pub struct CompareSide {
    pub store: TraceStore,
    pub view: DiagramView,
    pub selected: Option<usize>,
    /// The step of each event, for finding its counterpart.
    step_of: Vec<usize>,
}

impl CompareSide {
    /// The protocol revision the side's servers spoke (the first session's).
    pub fn revision(&self) -> Option<&str> {
        self.store
            .report
            .rpc
            .sessions
            .iter()
            .find_map(|(_, s)| s.revision.as_deref())
    }
}

/// A difference the caller names (a trace diff's finding): a sentence, and the events of each
/// side it is about.
#[derive(Debug, Clone)]
pub struct Note {
    /// Said in the reader's language when drawn.
    pub text: crate::i18n::Said,
    pub events: [Vec<usize>; 2],
}

/// What the compare view asks the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareCommand {
    Close,
}

/// The compare view's data and UI state.
pub struct CompareView {
    pub sides: [CompareSide; 2],
    /// The aligned steps: an event of each side, or of one side only.
    pub steps: Vec<Step>,
    /// The revision differences found in the two traces.
    pub contrasts: Vec<Contrast>,
    /// More differences, named by whoever opened the view.
    pub notes: Vec<Note>,
    /// Definitions that differ between the two (File > Compare with...), drawn side by side.
    pub definitions: Vec<crate::analysis::findings::RugPull>,
}

impl CompareView {
    pub fn new(left: TraceStore, right: TraceStore) -> CompareView {
        let steps = align::align(
            (&left.events, &left.report.rpc),
            (&right.events, &right.report.rpc),
        );
        let contrasts =
            revisions::contrast((&left.events, &left.report), (&right.events, &right.report));
        let side = |store: TraceStore, k: usize| CompareSide {
            step_of: align::step_of(&steps, k, store.len()),
            store,
            view: DiagramView::default(),
            selected: None,
        };
        let mut view = CompareView {
            sides: [side(left, 0), side(right, 1)],
            steps,
            contrasts,
            notes: Vec::new(),
            definitions: Vec::new(),
        };
        // From the first step, side by side (an unselected diagram sticks to its end).
        view.select(0, 0);
        view
    }

    /// Selects event `event` of side `k` and its counterpart on the other side.
    pub fn select(&mut self, k: usize, event: usize) {
        if event >= self.sides[k].store.len() {
            return;
        }
        self.sides[k].selected = Some(event);
        self.sides[k].view.reveal(event);
        let other = 1 - k;
        if let Some(counterpart) = self.counterpart(k, event) {
            self.sides[other].selected = Some(counterpart);
            self.sides[other].view.reveal(counterpart);
        }
    }

    /// The event of the other side at the same step as `event` of side `k`, or at the
    /// nearest step before it where the other side has one.
    pub fn counterpart(&self, k: usize, event: usize) -> Option<usize> {
        let step = *self.sides[k].step_of.get(event)?;
        self.steps[..=step]
            .iter()
            .rev()
            .find_map(|s| if k == 0 { s.1 } else { s.0 })
    }

    /// Selects the first event that shows each side of a difference.
    fn show(&mut self, events: &[Vec<usize>; 2]) {
        for (k, events) in events.iter().enumerate() {
            if let Some(&e) = events.first() {
                self.sides[k].selected = Some(e);
                self.sides[k].view.reveal(e);
            }
        }
    }

    /// The title of side `k`: its revision and its trace's title.
    pub fn side_title(&self, k: usize, tr: Words<'_>) -> String {
        let side = &self.sides[k];
        let revision = side.revision().map_or_else(
            || tr.get("compare.revision_unknown").to_string(),
            str::to_string,
        );
        format!("{revision} · {}", side.store.title)
    }

    /// The differences, then the two diagrams.
    pub fn ui(&mut self, ui: &mut Ui, tr: Words<'_>) -> Option<CompareCommand> {
        let mut command = None;
        ui.horizontal(|ui| {
            ui.heading(tr.get("compare.differences"));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button(tr.get("compare.close")).clicked() {
                    command = Some(CompareCommand::Close);
                }
            });
        });
        self.differences_ui(ui, tr);
        super::doctor_panel::definitions_ui(ui, &self.definitions, tr);
        ui.separator();
        let mut picked: Option<(usize, usize)> = None;
        ui.columns(2, |columns| {
            for (k, ui) in columns.iter_mut().enumerate() {
                let title = self.side_title(k, tr);
                ui.push_id(("compare-side", k), |ui| {
                    ui.label(RichText::new(title).strong());
                    let side = &mut self.sides[k];
                    let rows = RowSet::All(side.store.diagram.rows.len());
                    let out = side.view.ui(ui, &side.store, rows, side.selected, tr);
                    if let Some(super::Command::Select(e)) = out
                        && picked.is_none()
                    {
                        picked = Some((k, e));
                    }
                });
            }
        });
        if let Some((k, e)) = picked {
            self.select(k, e);
        }
        command
    }

    fn differences_ui(&mut self, ui: &mut Ui, tr: Words<'_>) {
        let mut show: Option<[Vec<usize>; 2]> = None;
        egui::Grid::new("compare-differences")
            .num_columns(3)
            .striped(true)
            .show(ui, |ui| {
                ui.label("");
                for k in 0..2 {
                    ui.label(RichText::new(self.side_title(k, tr)).strong());
                }
                ui.end_row();
                for c in &self.contrasts {
                    let title = tr.get(c.topic.title_key());
                    let title = if c.differs() {
                        RichText::new(title).strong()
                    } else {
                        RichText::new(format!("{title} ({})", tr.get("compare.same")))
                    };
                    // The topic's name selects the events that show it on both sides.
                    if ui.button(title).clicked() {
                        show = Some([c.sides[0].events.clone(), c.sides[1].events.clone()]);
                    }
                    for side in &c.sides {
                        let text = tr.fmt(side.key, &[("count", &side.events.len().to_string())]);
                        ui.add(egui::Label::new(text).wrap());
                    }
                    ui.end_row();
                }
                for note in &self.notes {
                    if ui.button(note.text.say(tr)).clicked() {
                        show = Some(note.events.clone());
                    }
                    ui.end_row();
                }
            });
        if let Some(events) = show {
            self.show(&events);
        }
    }
}
