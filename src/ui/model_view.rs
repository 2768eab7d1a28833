//! What the model sees: for one LLM request, the exact `tools` parameter and the system text.
//!
//! Each entry of `tools` links back to the `tools/list` entry it came from
//! ([`crate::analysis::ToolView`]). Every tool a server listed that the request lacks is shown
//! in the warning colour with the host's reason, taken from the note the host wrote when it
//! dropped the tool. The model can only call what is here: this panel is where "invisible
//! tools" and renamed tools become visible.

use egui::{RichText, ScrollArea, Ui};
use serde_json::Value;

use super::command::Command;
use super::json_tree::{JsonColors, JsonTree};
use super::store::TraceStore;
use super::visible;
use crate::analysis::LlmExchange;
use crate::analysis::tokens::{Bpe, RequestTokens, exchange_tokens};
use crate::i18n::Words;
use crate::trace::{Channel, Lane};

mod tools;

/// UI memory of the panel.
#[derive(Debug, Default)]
pub struct ModelView {
    tree: JsonTree,
    shown: Option<usize>,
    /// The tools listed but not sent for (exchange, store generation): finding the host's
    /// reasons scans the trace, so it is done once per exchange shown.
    missing: Option<(usize, u64, Vec<NotSent>)>,
    /// The token cost of the exchange's tools for (exchange, store generation): counting
    /// tokenizes every entry, so it is done once per exchange shown.
    tokens: Option<(usize, u64, Option<RequestTokens>)>,
}

/// A listed tool the request did not carry, with the host's reason when it gave one.
#[derive(Debug, Clone, PartialEq)]
pub struct NotSent {
    pub server: String,
    pub tool: String,
    /// Index of the `tools/list` result that listed it.
    pub listed_in: usize,
    /// The host's note about it, and that note's index.
    pub reason: Option<(String, usize)>,
}

/// The LLM exchange to show for a selection: the one the selected event belongs to, else the
/// latest request before it, else the latest of the trace. With `upto` (teaching mode), only
/// requests already revealed count.
pub fn exchange_for(
    store: &TraceStore,
    selected: Option<usize>,
    upto: Option<usize>,
) -> Option<usize> {
    let llm = &store.report.llm;
    if let Some(limit) = upto {
        let i = selected.unwrap_or(limit).min(limit);
        return llm.iter().rposition(|x| x.request <= i);
    }
    if let Some(i) = selected {
        if let Some(n) = llm
            .iter()
            .position(|x| x.request == i || x.response == Some(i))
        {
            return Some(n);
        }
        if let Some(n) = llm.iter().rposition(|x| x.request <= i) {
            return Some(n);
        }
    }
    llm.len().checked_sub(1)
}

/// The tools listed but not sent with exchange `n`, with the host's reasons.
pub fn not_sent(store: &TraceStore, n: usize) -> Vec<NotSent> {
    let Some(view) = store.report.tools.get(n) else {
        return Vec::new();
    };
    let request = store.report.llm[n].request;
    view.not_sent
        .iter()
        .map(|(server, tool, listed_in)| NotSent {
            server: server.clone(),
            tool: tool.clone(),
            listed_in: *listed_in,
            reason: host_note_about(store, tool, request),
        })
        .collect()
}

/// The last note the host wrote to itself before `before` that names `` `tool` ``.
fn host_note_about(store: &TraceStore, tool: &str, before: usize) -> Option<(String, usize)> {
    let needle = format!("`{tool}`");
    store.events[..before.min(store.len())]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| {
            e.channel == Channel::Note
                && e.from == Lane::Host
                && e.to == Lane::Host
                && e.text().contains(&needle)
        })
        .map(|(i, e)| (e.text().into_owned(), i))
}

/// The system text and instructions of a request body, in any of the three API shapes:
/// `system` (Anthropic), `instructions` (OpenAI Responses), and `system`/`developer` messages.
pub fn system_texts(body: &Value) -> Vec<(String, String)> {
    fn text_of(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
    let mut out = Vec::new();
    if let Some(s) = body.get("system") {
        out.push(("system".to_string(), text_of(s)));
    }
    if let Some(s) = body.get("instructions") {
        out.push(("instructions".to_string(), text_of(s)));
    }
    for list in ["messages", "input"] {
        for m in body
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
            if role == "system" || role == "developer" {
                out.push((
                    role.to_string(),
                    m.get("content").map(text_of).unwrap_or_default(),
                ));
            }
        }
    }
    out
}

impl ModelView {
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        bpe: &dyn Bpe,
        selected: Option<usize>,
        upto: Option<usize>,
        tr: Words<'_>,
    ) -> Option<Command> {
        let Some(n) = exchange_for(store, selected, upto) else {
            ui.weak(tr.get("model_view.no_llm_request"));
            return None;
        };
        if self.shown != Some(n) {
            self.tree.reset();
            self.shown = Some(n);
        }
        let mut command = None;
        ScrollArea::vertical()
            .id_salt("model-view")
            .auto_shrink(false)
            .show(ui, |ui| {
                command = self.contents_ui(ui, store, bpe, n, tr);
            });
        command
    }

    fn contents_ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        bpe: &dyn Bpe,
        n: usize,
        tr: Words<'_>,
    ) -> Option<Command> {
        let mut command = None;
        let x: &LlmExchange = &store.report.llm[n];
        let colors = JsonColors::for_ui(ui);
        let seq = |i: usize| store.events[i].seq;
        ui.horizontal_wrapped(|ui| {
            ui.heading(tr.get("panel.what_model_sees"));
            let request = tr.fmt("inspector.event", &[("seq", &seq(x.request).to_string())]);
            if ui.link(request).clicked() {
                command = Some(Command::Select(x.request));
            }
        });
        ui.label(tr.fmt(
            "model_view.tools_count",
            &[("count", &x.tools.len().to_string())],
        ));
        if self
            .tokens
            .as_ref()
            .is_none_or(|(m, g, _)| (*m, *g) != (n, store.generation))
        {
            self.tokens = Some((n, store.generation, exchange_tokens(x, bpe)));
        }
        let tokens = self.tokens.as_ref().and_then(|t| t.2.clone());
        if let Some(t) = tokens.as_ref().filter(|t| !t.tools.is_empty()) {
            tokens_ui(ui, t, tr);
        }

        ui.separator();
        ui.label(RichText::new(tr.get("panel.tools_sent")).strong());
        if x.tool_entries.is_empty() && x.offered.tools.is_empty() {
            ui.weak(tr.get("model_view.none_sent"));
        }
        if let Some(view) = store.report.tools.get(n) {
            let shown = tools::Shown {
                store,
                x,
                view,
                tokens: tokens.as_ref(),
                n,
            };
            if let Some(c) = shown.ui(&mut self.tree, ui, tr) {
                command = Some(c);
            }
        }

        if self
            .missing
            .as_ref()
            .is_none_or(|(m, g, _)| (*m, *g) != (n, store.generation))
        {
            self.missing = Some((n, store.generation, not_sent(store, n)));
        }
        let missing = self
            .missing
            .as_ref()
            .map(|m| m.2.clone())
            .unwrap_or_default();
        if !missing.is_empty() {
            ui.separator();
            ui.label(
                RichText::new(tr.get("panel.listed_not_sent"))
                    .strong()
                    .color(colors.warn),
            );
            ui.label(tr.get("model_view.not_sent_hint"));
            for m in &missing {
                egui::Frame::group(ui.style())
                    .stroke(egui::Stroke::new(1.5, colors.warn))
                    .show(ui, |ui| {
                        ui.label(
                            RichText::new(format!("! {}", visible::escape(&m.tool)))
                                .monospace()
                                .strong()
                                .color(colors.warn),
                        );
                        let listed = tr.fmt(
                            "model_view.listed_in",
                            &[
                                ("server", &m.server),
                                ("seq", &seq(m.listed_in).to_string()),
                            ],
                        );
                        ui.horizontal_wrapped(|ui| {
                            if ui.link(listed).clicked() {
                                command = Some(Command::Select(m.listed_in));
                            }
                            finding_badges(ui, store, &m.server, &m.tool, tr);
                        });
                        if let Some((reason, at)) = &m.reason
                            && ui.link(visible::escape(reason)).clicked()
                        {
                            command = Some(Command::Select(*at));
                        }
                    });
            }
        }

        ui.separator();
        ui.label(RichText::new(tr.get("panel.instructions_system")).strong());
        let body = serde_json::from_str::<Value>(&store.events[x.request].text()).ok();
        let texts = body.as_ref().map(system_texts).unwrap_or_default();
        if texts.is_empty() {
            ui.weak(tr.get("model_view.no_system_text"));
        }
        let text_color = ui.visuals().text_color();
        for (field, text) in texts {
            ui.label(RichText::new(field).monospace().weak());
            let job = visible::job(
                &text,
                egui::FontId::proportional(13.0),
                text_color,
                colors.warn,
                true,
            );
            ui.add(egui::Label::new(job).wrap().selectable(true));
        }
        command
    }
}

/// What the tools cost the model, as the article counts it: their definitions in tokens, and
/// the tool-use system prompt the provider adds whenever tools are sent (286-675 tokens for
/// Anthropic's current models).
fn tokens_ui(ui: &mut Ui, t: &RequestTokens, tr: Words<'_>) {
    let kind = if t.exact {
        t.tokenizer.to_string()
    } else {
        tr.get("summary.estimate").to_string()
    };
    let total = t.total.to_string();
    ui.label(tr.fmt(
        "model_view.tokens_tools",
        &[("total", &total), ("kind", &kind)],
    ));
    let (low, high) = t.overhead;
    if high > 0 {
        let who = match t.shape {
            crate::wire::api::ApiShape::Anthropic => tr.get("summary.overhead_anthropic"),
            _ => tr.get("summary.overhead_openai"),
        };
        let (low, high) = (low.to_string(), high.to_string());
        let args = [("who", who), ("low", &*low), ("high", &*high)];
        ui.label(RichText::new(tr.fmt("model_view.tokens_overhead", &args)).strong());
    }
}

/// Badges for the doctor's code and the poisoning findings of `tool` of `server`, each with
/// a tooltip; the doctor's badge reads `doctor: <code>`.
pub(super) fn finding_badges(
    ui: &mut Ui,
    store: &TraceStore,
    server: &str,
    tool: &str,
    tr: Words<'_>,
) {
    let palette = super::theme::Palette::for_visuals(ui.visuals());
    let findings = &store.findings;
    if let Some(t) = findings.doctor_of(server, tool) {
        let color = if !crate::analysis::findings::noteworthy(t) {
            palette.response
        } else {
            palette.problem
        };
        let mut hover = visible::escape(&t.detail_in(tr)).into_owned();
        if !t.hint.is_empty() {
            hover.push('\n');
            hover.push_str(&tr.fmt("doctor.hint", &[("hint", &t.hint_in(tr))]));
        }
        let text = format!("{}: {}", tr.get("badge.doctor"), t.code);
        super::badges::badge_ui(ui, &text, color, &hover);
    }
    let poison: Vec<_> = findings.poison_of(server, tool).collect();
    if !poison.is_empty() {
        let hover = poison
            .iter()
            .map(|p| {
                format!(
                    "{} ({}): {}",
                    p.kind.code(),
                    p.severity.as_str(),
                    p.excerpt_in(tr)
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let text = format!("! {} {}", tr.get("badge.poison"), poison.len());
        super::badges::badge_ui(ui, &text, palette.error, &hover);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn system_text_in_every_shape() {
        let anthropic = json!({"system": [{"type": "text", "text": "be brief"}], "messages": []});
        assert_eq!(
            system_texts(&anthropic),
            [("system".into(), "be brief".into())]
        );
        let responses =
            json!({"instructions": "use tools", "input": [{"role": "developer", "content": "x"}]});
        assert_eq!(
            system_texts(&responses),
            [
                ("instructions".into(), "use tools".into()),
                ("developer".into(), "x".into())
            ]
        );
        let chat = json!({"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]});
        assert_eq!(system_texts(&chat), [("system".into(), "sys".into())]);
    }
}
