//! The tools of one request, group by group ([`crate::analysis::sees`]): the host's own, the
//! API's, MCP tools whole, deferred (name only) and in namespaces, each group with its token
//! cost; each MCP tool tied to its `tools/list` entry, with what the host changed in it.

use egui::{RichText, Ui};

use super::super::command::Command;
use super::super::json_tree::{JsonColors, JsonTree};
use super::super::store::TraceStore;
use super::super::visible;
use super::finding_badges;
use crate::analysis::hosts::Profile;
use crate::analysis::sees::{Group, grouped};
use crate::analysis::tokens::RequestTokens;
use crate::analysis::{LlmExchange, ToolOrigin, ToolView};
use crate::i18n::Words;
use crate::wire::offered::{Change, Delivery, changes, definition};

/// One request's tools, as shown.
pub(super) struct Shown<'a> {
    pub(super) store: &'a TraceStore,
    pub(super) x: &'a LlmExchange,
    pub(super) view: &'a ToolView,
    pub(super) tokens: Option<&'a RequestTokens>,
    /// The exchange's index.
    pub(super) n: usize,
}

impl Shown<'_> {
    pub(super) fn ui(&self, tree: &mut JsonTree, ui: &mut Ui, tr: Words<'_>) -> Option<Command> {
        let mut command = None;
        let colors = JsonColors::for_ui(ui);
        for g in grouped(self.view, self.tokens) {
            let (key, hint, name) = match &g.group {
                Group::Host => ("model_view.group_host", "model_view.hint_host", None),
                Group::Api => ("model_view.group_api", "model_view.hint_api", None),
                Group::Whole => ("model_view.group_whole", "model_view.hint_whole", None),
                Group::Deferred => (
                    "model_view.group_deferred",
                    "model_view.hint_deferred",
                    None,
                ),
                Group::Namespace(ns) => (
                    "model_view.group_namespace",
                    "model_view.hint_namespace",
                    Some(ns.clone()),
                ),
                Group::Unknown => ("model_view.group_unknown", "model_view.hint_unknown", None),
            };
            let (count, tokens) = (g.tools.len().to_string(), g.tokens.to_string());
            let name = name.unwrap_or_default();
            let args = [("count", &*count), ("tokens", &*tokens), ("name", &*name)];
            ui.add_space(4.0);
            let heading = RichText::new(tr.fmt(key, &args)).strong();
            match g.group {
                Group::Unknown => ui.label(heading.color(colors.warn)),
                _ => ui.label(heading),
            };
            ui.weak(tr.get(hint));
            let mut entries_shown: Vec<usize> = Vec::new();
            for &k in &g.tools {
                let o = &self.view.sent[k];
                if let Some(c) = self.row(ui, o, tr, &colors) {
                    command = Some(c);
                }
                self.changes_ui(ui, o, tr);
                if let Some(e) = o.entry.filter(|e| !entries_shown.contains(e))
                    && let Some(entry) = self.x.tool_entries.get(e)
                {
                    entries_shown.push(e);
                    egui::CollapsingHeader::new(tr.get("panel.pretty_json"))
                        .id_salt(("tool-entry", self.n, e))
                        .show(ui, |ui| {
                            let more = |c: usize| {
                                tr.fmt("diagram.more_below", &[("count", &c.to_string())])
                            };
                            tree.ui(ui, &format!("tool{}-{e}", self.n), entry, &more);
                        });
                }
            }
        }
        command
    }

    /// The profile of the host the doctor found in force (recognised or named), if any.
    fn host(&self) -> Option<&'static Profile> {
        let host = self.store.findings.diagnosis.host.as_ref()?;
        crate::analysis::hosts::find(&host.id)
    }

    fn row(
        &self,
        ui: &mut Ui,
        o: &ToolOrigin,
        tr: Words<'_>,
        colors: &JsonColors,
    ) -> Option<Command> {
        let mut command = None;
        let seq = |i: usize| self.store.events[i].seq.to_string();
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(visible::escape(&o.api_name))
                    .monospace()
                    .strong(),
            );
            if let Some(e) = o.entry
                && o.namespace.is_none()
                && let Some((_, count)) = self.tokens.and_then(|t| t.tools.get(e))
            {
                ui.weak(tr.fmt("model_view.tool_tokens", &[("count", &count.to_string())]));
            }
            if let (Some(server), Some(mcp)) = (&o.server, &o.mcp_name) {
                finding_badges(ui, self.store, server, mcp, tr);
            }
            if let (Some(listed), Some(server)) = (o.listed_in, &o.server) {
                let text = tr.fmt(
                    "model_view.listed_in",
                    &[("server", server), ("seq", &seq(listed))],
                );
                if ui.link(text).clicked() {
                    command = Some(Command::Select(listed));
                }
            }
            // The name is the host's, by its rule: say whose rule, with its source.
            if let (Some(mcp), Some(host)) = (&o.mcp_name, self.host())
                && *mcp != o.api_name
            {
                let rule = &host.naming;
                let args = [("host", &*host.name), ("rule", &*rule.note)];
                ui.weak(tr.fmt("model_view.named_by", &args))
                    .on_hover_text(format!("{} ({})", rule.source, rule.date));
            }
            match (o.delivery, o.loaded_in) {
                (Delivery::Whole, _) => {}
                (_, Some(l)) => {
                    let text = tr.fmt("model_view.loaded_at", &[("seq", &seq(l))]);
                    if ui.link(text).clicked() {
                        command = Some(Command::Select(l));
                    }
                }
                (Delivery::NameOnly, None) => {
                    ui.colored_label(colors.number, tr.get("model_view.name_only"));
                }
                (Delivery::Deferred, None) => {
                    ui.colored_label(colors.number, tr.get("model_view.not_loaded"));
                }
            }
            if o.listed_in.is_none()
                && o.server.is_none()
                && o.kind == crate::wire::offered::Kind::Plain
            {
                ui.colored_label(colors.warn, tr.get("model_view.origin_unknown"));
            }
        });
        command
    }

    /// What the host changed between the server's definition and the model's, one line each.
    fn changes_ui(&self, ui: &mut Ui, o: &ToolOrigin, tr: Words<'_>) {
        let (Some(listed), Some(mcp)) = (o.listed_in, &o.mcp_name) else {
            return;
        };
        let listing = serde_json::from_str::<serde_json::Value>(&self.store.events[listed].text());
        let Some(tool) = listing.ok().and_then(|v| {
            let tools = v.pointer("/result/tools")?.as_array()?.clone();
            tools
                .into_iter()
                .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(mcp))
        }) else {
            return;
        };
        let sent = o
            .entry
            .and_then(|e| self.x.tool_entries.get(e))
            .and_then(|entry| definition(entry, &o.api_name));
        let found = changes(&tool, sent, &o.api_name);
        if found.is_empty() {
            return;
        }
        let title = tr.fmt("model_view.changed", &[("count", &found.len().to_string())]);
        egui::CollapsingHeader::new(title)
            .id_salt(("tool-changes", self.n, &o.api_name))
            .show(ui, |ui| {
                for c in &found {
                    ui.label(RichText::new(said(c, tr)).monospace());
                }
            });
    }
}

/// One change, in the reader's language.
fn said(c: &Change, tr: Words<'_>) -> String {
    let n = |v: &usize| v.to_string();
    match c {
        Change::Renamed { from, to } => {
            tr.fmt("model_view.change_renamed", &[("from", from), ("to", to)])
        }
        Change::DescriptionCut { from, to } => tr.fmt(
            "model_view.change_cut",
            &[("from", &n(from)), ("to", &n(to))],
        ),
        Change::DescriptionChanged { from, to } => tr.fmt(
            "model_view.change_description",
            &[("from", &n(from)), ("to", &n(to))],
        ),
        Change::DescriptionDropped => tr.get("model_view.change_dropped").to_string(),
        Change::Added(path) => tr.fmt("model_view.change_added", &[("path", path)]),
        Change::Removed(path) => tr.fmt("model_view.change_removed", &[("path", path)]),
        Change::Changed(path) => tr.fmt("model_view.change_changed", &[("path", path)]),
    }
}
