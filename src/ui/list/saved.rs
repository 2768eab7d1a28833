//! Saved filters and colouring rules: the filter box's expressions a user keeps (Wireshark's
//! filter buttons and colouring rules), kept with the app's settings
//! ([`crate::ui::settings::Settings`]).
//!
//! A saved filter is a name and the box's text; choosing it puts the text back in the box. A
//! colouring rule is the box's text and a colour: each row of the message list whose event the
//! rule's filter keeps (the display-filter language, [`crate::analysis::filter`]) gets the
//! colour of the first rule that keeps it. Rules are parsed once per change of the list, not
//! per frame; a rule that does not parse (a file edited by hand) colours nothing.

use egui::{Color32, Ui};
use serde::{Deserialize, Serialize};

use crate::analysis::filter::{Matcher, parse};
use crate::trace::{Derived, Event};

use crate::i18n::Words;

/// A filter the user named and kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedFilter {
    pub name: String,
    pub text: String,
}

/// Rows whose event `text` keeps are painted `colour` (sRGB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColourRule {
    pub text: String,
    pub colour: [u8; 3],
}

/// The colours new rules take in turn (light tints, readable under text in both themes).
const COLOURS: [[u8; 3]; 6] = [
    [0x4e, 0x9a, 0xf0],
    [0xe0, 0x8a, 0x2c],
    [0x3d, 0xb3, 0x6b],
    [0xc0, 0x4c, 0xd0],
    [0xd0, 0xb0, 0x20],
    [0x20, 0xb0, 0xb0],
];

/// The saved filters, the rules, and the rules parsed.
#[derive(Debug, Default)]
pub struct Saved {
    pub filters: Vec<SavedFilter>,
    pub rules: Vec<ColourRule>,
    /// The rules' matchers, and the rules they were made from.
    parsed: Option<(Vec<ColourRule>, Vec<Option<Matcher>>)>,
}

impl Saved {
    /// The colour of the first rule that keeps event `e`, if one does.
    pub fn colour_of(&mut self, e: &Event, d: &Derived) -> Option<Color32> {
        if self
            .parsed
            .as_ref()
            .is_none_or(|(from, _)| *from != self.rules)
        {
            let matchers = self
                .rules
                .iter()
                .map(|r| parse(&r.text).ok().map(|f| Matcher::new(&f)))
                .collect();
            self.parsed = Some((self.rules.clone(), matchers));
        }
        let (_, matchers) = self.parsed.as_ref()?;
        let at = matchers
            .iter()
            .position(|m| m.as_ref().is_some_and(|m| m.matches(e, d)))?;
        let [r, g, b] = self.rules[at].colour;
        Some(Color32::from_rgb(r, g, b))
    }

    /// Keeps `text` as a saved filter named after itself (once).
    pub fn save_filter(&mut self, text: &str) {
        if !text.trim().is_empty() && !self.filters.iter().any(|f| f.text == text) {
            self.filters.push(SavedFilter {
                name: text.to_string(),
                text: text.to_string(),
            });
        }
    }

    /// Colours the rows `text` keeps, in the next colour (once per text).
    pub fn add_rule(&mut self, text: &str) {
        if !text.trim().is_empty() && !self.rules.iter().any(|r| r.text == text) {
            let colour = COLOURS[self.rules.len() % COLOURS.len()];
            self.rules.push(ColourRule {
                text: text.to_string(),
                colour,
            });
        }
    }

    /// The saved filters and rules, each with a way to use, recolour or drop it; returns the
    /// text of a saved filter chosen.
    pub fn ui(&mut self, ui: &mut Ui, current: &str, tr: Words<'_>) -> Option<String> {
        let mut chosen = None;
        ui.horizontal_wrapped(|ui| {
            let usable = parse(current).is_ok() && !current.trim().is_empty();
            if ui
                .add_enabled(usable, egui::Button::new(tr.get("filter.save")).small())
                .clicked()
            {
                self.save_filter(current);
            }
            if ui
                .add_enabled(usable, egui::Button::new(tr.get("filter.colour")).small())
                .clicked()
            {
                self.add_rule(current);
            }
        });
        let mut drop_filter = None;
        for (i, f) in self.filters.iter().enumerate() {
            ui.horizontal(|ui| {
                if ui
                    .small_button("×")
                    .on_hover_text(tr.get("filter.forget"))
                    .clicked()
                {
                    drop_filter = Some(i);
                }
                if ui.link(&f.name).clicked() {
                    chosen = Some(f.text.clone());
                }
            });
        }
        if let Some(i) = drop_filter {
            self.filters.remove(i);
        }
        let mut drop_rule = None;
        for (i, r) in self.rules.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                if ui
                    .small_button("×")
                    .on_hover_text(tr.get("filter.forget"))
                    .clicked()
                {
                    drop_rule = Some(i);
                }
                ui.color_edit_button_srgb(&mut r.colour);
                ui.monospace(&r.text);
            });
        }
        if let Some(i) = drop_rule {
            self.rules.remove(i);
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, Lane, analyze};
    use serde_json::json;

    #[test]
    fn a_row_takes_the_colour_of_the_first_rule_that_keeps_it() {
        let line = |seq: u64, v: serde_json::Value| {
            let (from, to) = (Lane::Host, Lane::server("s"));
            let bytes = v.to_string().into_bytes();
            Event::with_bytes(seq, crate::trace::now(), from, to, Channel::Stdio, bytes)
        };
        let events = [
            line(
                0,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "get_weather"}}),
            ),
            line(
                1,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            ),
        ];
        let rpc = analyze(&events);
        let mut saved = Saved::default();
        saved.add_rule("tool:get_weather");
        saved.add_rule("server:s");
        saved.add_rule("server:s");
        saved.add_rule("latency:>fast");
        assert_eq!(saved.rules.len(), 3, "one rule per text");
        let [r, g, b] = COLOURS[0];
        let first = Color32::from_rgb(r, g, b);
        let [r, g, b] = COLOURS[1];
        let second = Color32::from_rgb(r, g, b);
        assert_eq!(saved.colour_of(&events[0], &rpc.derived[0]), Some(first));
        assert_eq!(saved.colour_of(&events[1], &rpc.derived[1]), Some(second));
        // A changed rule is parsed again; a rule that does not parse colours nothing.
        saved.rules.remove(1);
        assert_eq!(saved.colour_of(&events[1], &rpc.derived[1]), None);
        saved.save_filter("method:tools/list");
        saved.save_filter("method:tools/list");
        saved.save_filter("  ");
        assert_eq!(saved.filters.len(), 1);
    }
}
