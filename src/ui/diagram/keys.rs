//! The diagram's keyboard: the arrow keys, Page Up/Down, Home and End move the selection,
//! Enter jumps to the selected row's request or response; and the scroll that brings a row
//! chosen elsewhere into view.

use egui::{Key, Modifiers, Ui};

use super::super::diagram_paint as paint;
use super::super::rowset::Lines;
use super::{DiagramView, RowSet, TraceStore};

impl DiagramView {
    /// Moves the selection with the keyboard, unless a text field has the keys.
    pub(super) fn keyboard(
        &mut self,
        ui: &Ui,
        store: &TraceStore,
        rows: RowSet<'_>,
        selected_row: Option<usize>,
    ) -> Option<usize> {
        if rows.is_empty() || ui.ctx().text_edit_focused() {
            return None;
        }
        let n = rows.len();
        let page = ((self.last_view_h / (paint::ROW_H * self.zoom)) as usize)
            .saturating_sub(1)
            .max(1);
        let current = selected_row.and_then(|r| rows.position(r));
        let mut target: Option<usize> = None;
        ui.input_mut(|i| {
            let none = Modifiers::NONE;
            if i.consume_key(none, Key::ArrowDown) {
                target = Some(current.map_or(0, |p| (p + 1).min(n - 1)));
            }
            if i.consume_key(none, Key::ArrowUp) {
                target = Some(current.map_or(n - 1, |p| p.saturating_sub(1)));
            }
            if i.consume_key(none, Key::PageDown) {
                target = Some(current.map_or(0, |p| (p + page).min(n - 1)));
            }
            if i.consume_key(none, Key::PageUp) {
                target = Some(current.map_or(0, |p| p.saturating_sub(page)));
            }
            if i.consume_key(none, Key::Home) {
                target = Some(0);
            }
            if i.consume_key(none, Key::End) {
                target = Some(n - 1);
            }
            if i.consume_key(none, Key::Enter)
                && let Some(pair) = selected_row.and_then(|r| store.diagram.rows[r].pair())
            {
                target = rows.position(pair);
            }
        });
        let event = store.diagram.rows[rows.get(target?)].event();
        self.reveal = Some(event);
        Some(event)
    }

    /// The scroll offset that brings a pending reveal into view, if it is not in view already.
    pub(super) fn reveal_offset(
        &mut self,
        store: &TraceStore,
        rows: RowSet<'_>,
        lines: &Lines,
        row_h: f32,
    ) -> Option<f32> {
        let event = self.reveal.take()?;
        let row = store.diagram.row_of_event(event)?;
        let pos = rows.position(row)?;
        let y = (lines.top(pos) + store.diagram.leads(row)) as f32 * row_h;
        let top = self.last_offset_y;
        let bottom = top + self.last_view_h - row_h * 2.0;
        (y < top || y > bottom).then(|| (y - self.last_view_h / 2.0).max(0.0))
    }
}
