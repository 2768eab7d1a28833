//! The inspector: everything about the selected event.
//!
//! From the top: what it is (label, lanes, kind), a short explanation from the specification
//! ([`crate::analysis::explain`]: primitive, who controls it, the section it comes from), its
//! timing and revision, its request or response and its tool-call chain (click to jump), the
//! raw text exactly as it crossed, and the same body as a collapsible JSON tree. Every string
//! from the trace is shown through [`super::visible`].

use egui::{Color32, FontId, RichText, ScrollArea, Ui};
use serde_json::Value;

use super::command::Command;
use super::json_tree::{JsonColors, JsonTree};
use super::store::TraceStore;
use super::visible;
use crate::analysis::diagram::Status;
use crate::analysis::explain::{self, LLM_REQUEST, LLM_RESPONSE, LLM_TOOL_RESULT, LLM_TOOL_USE};
use crate::i18n::Words;
use crate::trace::{Channel, Kind, Pairing, format_time};

/// Raw payloads longer than this are cut until the user asks for all of it.
const RAW_PREVIEW_BYTES: usize = 16 * 1024;

/// UI memory of the inspector.
#[derive(Debug, Default)]
pub struct Inspector {
    tree: JsonTree,
    /// The parsed body of the event shown: (event index, store generation, body).
    parsed: Option<(usize, u64, Option<Value>)>,
    show_all_raw: bool,
}

impl Inspector {
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        selected: Option<usize>,
        tr: Words<'_>,
    ) -> Option<Command> {
        let Some(i) = selected.filter(|&i| i < store.len()) else {
            ui.weak(tr.get("inspector.select_event"));
            return None;
        };
        if self.parsed.as_ref().map(|p| (p.0, p.1)) != Some((i, store.generation)) {
            let body = serde_json::from_str::<Value>(&store.events[i].text()).ok();
            if self.parsed.as_ref().is_none_or(|p| p.0 != i) {
                self.tree.reset();
                self.show_all_raw = false;
            }
            self.parsed = Some((i, store.generation, body));
        }
        let mut command = None;
        ScrollArea::vertical()
            .id_salt("inspector")
            .auto_shrink(false)
            .show(ui, |ui| {
                command = self.contents_ui(ui, store, i, tr);
            });
        command
    }

    fn contents_ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        i: usize,
        tr: Words<'_>,
    ) -> Option<Command> {
        let mut command = None;
        let event = &store.events[i];
        let d = &store.report.rpc.derived[i];
        let row = store
            .diagram
            .row_of_event(i)
            .map(|r| &store.diagram.rows[r]);
        let colors = JsonColors::for_ui(ui);

        let row_index = store.diagram.row_of_event(i);
        let title = row_index.map_or_else(|| d.kind.as_str().to_string(), |r| store.row_label(r));
        let lane_title = |lane: &crate::trace::Lane| {
            store.diagram.lane_index(lane).map_or_else(
                || visible::escape(&lane.to_string()).into_owned(),
                |l| super::lanes::lane_title(tr, &store.diagram.lanes[l]),
            )
        };
        ui.heading(format!("#{}  {}", event.seq, title));
        ui.label(tr.fmt(
            "inspector.from_to",
            &[
                ("from", &lane_title(&event.from)),
                ("to", &lane_title(&event.to)),
            ],
        ));
        egui::Grid::new("inspector-facts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                ui.label(tr.get("inspector.kind"));
                ui.label(tr.get(&format!("kind.{}", d.kind.as_str().replace('-', "_"))));
                ui.end_row();
                ui.label(tr.get("inspector.channel"));
                ui.monospace(event.channel.as_str());
                ui.end_row();
                if let Some(method) = &d.method {
                    ui.label(tr.get("inspector.method"));
                    ui.monospace(visible::escape(method));
                    ui.end_row();
                }
                if let Some(id) = &d.id {
                    ui.label(tr.get("inspector.id"));
                    ui.monospace(visible::escape(&id.to_string()));
                    ui.end_row();
                }
                ui.label(tr.get("inspector.time"));
                ui.monospace(format!(
                    "{}  (+{:.3} s)",
                    format_time(event.time),
                    store.offset_us(i) as f64 / 1e6
                ));
                ui.end_row();
                if let Some(us) = d.latency_us() {
                    ui.label(tr.get("inspector.latency"));
                    let ms = format!("{:.1}", us as f64 / 1000.0);
                    ui.monospace(tr.fmt("inspector.latency_value", &[("ms", &ms)]));
                    ui.end_row();
                }
                if let Some(rev) = &d.revision {
                    ui.label(tr.get("panel.revision"));
                    ui.monospace(tr.fmt("inspector.revision_value", &[("revision", rev.as_ref())]));
                    ui.end_row();
                }
            });
        let problems = [
            row.and_then(|r| match &r.status {
                Status::Ok => None,
                Status::Problem => row_index
                    .and_then(|r| store.diagram.problem(r))
                    .map(str::to_string),
                s => Some(s.as_str().to_string()),
            }),
            d.problem()
                .map(|p| crate::analysis::trace_error::invalid(p).say(tr)),
        ];
        for problem in problems.into_iter().flatten() {
            let text = tr.fmt(
                "inspector.problem",
                &[("problem", &visible::escape(&problem))],
            );
            ui.colored_label(colors.warn, text);
        }
        if let Some((code, message)) = d.error() {
            let text = tr.fmt(
                "inspector.error_value",
                &[
                    ("code", &code.to_string()),
                    ("message", &visible::escape(message)),
                ],
            );
            ui.colored_label(colors.warn, text);
        }
        if let Pairing::Unanswered(reason) = &d.pairing {
            ui.colored_label(
                colors.warn,
                tr.fmt("inspector.unanswered", &[("reason", reason.as_ref())]),
            );
        }

        self.explanation_ui(ui, store, i, tr);

        // The pair and the chain: click to jump.
        if let Some(r) = row {
            if let Some(pair) = r.pair() {
                let p = &store.diagram.rows[pair];
                let key = if pair > store.diagram.row_of_event(i).unwrap_or(0) {
                    "inspector.answered_by"
                } else {
                    "inspector.answers"
                };
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(tr.get("panel.paired_message")).strong());
                    let label = store.row_label(pair);
                    let text = format!(
                        "{}: {label}",
                        tr.fmt(key, &[("seq", &store.events[p.event()].seq.to_string())])
                    );
                    if ui.link(text).clicked() {
                        command = Some(Command::Select(p.event()));
                    }
                });
            }
            let chain = row_index.map_or(&[][..], |r| store.diagram.chain(r));
            if !chain.is_empty() {
                ui.label(RichText::new(tr.get("panel.tool_call_chain")).strong());
                ui.horizontal_wrapped(|ui| {
                    for (k, &c) in chain.iter().enumerate() {
                        if k > 0 {
                            ui.label("→");
                        }
                        let label = store.row_label(c);
                        let c = &store.diagram.rows[c];
                        let text = format!("#{} {label}", store.events[c.event()].seq);
                        let this = c.event() == i;
                        if ui.selectable_label(this, text).clicked() && !this {
                            command = Some(Command::Select(c.event()));
                        }
                    }
                });
            }
        }

        if let Some(http) = event.http() {
            egui::CollapsingHeader::new("HTTP")
                .id_salt(("http", i))
                .show(ui, |ui| {
                    if let (Some(m), Some(u)) = (&http.method, &http.url) {
                        ui.monospace(format!("{m} {}", visible::escape(u)));
                    }
                    if let Some(s) = http.status {
                        ui.monospace(format!("status {s}"));
                    }
                    for (name, value) in &http.headers {
                        ui.monospace(format!(
                            "{}: {}",
                            visible::escape(name),
                            visible::escape(value)
                        ));
                    }
                });
        }
        if let Some(p) = event.process() {
            ui.monospace(visible::escape(
                &serde_json::to_string(p).unwrap_or_default(),
            ));
        }

        ui.separator();
        self.raw_ui(ui, store, i, tr, colors);
        if let Some((_, _, Some(body))) = &self.parsed {
            ui.separator();
            egui::CollapsingHeader::new(RichText::new(tr.get("panel.pretty_json")).strong())
                .id_salt("inspector-json")
                .default_open(true)
                .show(ui, |ui| {
                    let more =
                        |n: usize| tr.fmt("diagram.more_below", &[("count", &n.to_string())]);
                    self.tree.ui(ui, &format!("ev{i}"), body, &more);
                });
        }
        command
    }

    fn raw_ui(
        &mut self,
        ui: &mut Ui,
        store: &TraceStore,
        i: usize,
        tr: Words<'_>,
        colors: JsonColors,
    ) {
        let event = &store.events[i];
        let text = event.text();
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr.get("panel.raw")).strong());
            ui.weak(tr.fmt("inspector.bytes", &[("count", &text.len().to_string())]));
            let hidden = visible::hidden_count(&text);
            if hidden > 0 {
                ui.colored_label(
                    colors.warn,
                    tr.fmt(
                        "narration.poison_invisible",
                        &[("count", &hidden.to_string())],
                    ),
                );
            }
            if event.raw.is_none() && event.raw_b64().is_some() {
                ui.colored_label(colors.warn, tr.get("inspector.not_utf8"));
            }
        });
        if text.is_empty() {
            ui.weak(tr.get("inspector.no_payload"));
            return;
        }
        let cut = if self.show_all_raw || text.len() <= RAW_PREVIEW_BYTES {
            text.len()
        } else {
            (0..=RAW_PREVIEW_BYTES)
                .rev()
                .find(|&k| text.is_char_boundary(k))
                .unwrap_or(0)
        };
        let text_color = ui.visuals().text_color();
        let job = visible::job(
            &text[..cut],
            FontId::monospace(12.0),
            text_color,
            colors.warn,
            event.channel == Channel::LlmHttp,
        );
        ScrollArea::vertical()
            .id_salt(("raw", i))
            .max_height(260.0)
            .show(ui, |ui| {
                ui.add(egui::Label::new(job).wrap().selectable(true));
            });
        let rest = (text.len() - cut).to_string();
        if cut < text.len()
            && ui
                .button(tr.fmt("inspector.show_all_raw", &[("count", &rest)]))
                .clicked()
        {
            self.show_all_raw = true;
        }
    }

    fn explanation_ui(&self, ui: &mut Ui, store: &TraceStore, i: usize, tr: Words<'_>) {
        let d = &store.report.rpc.derived[i];
        let method = match d.kind {
            Kind::Request | Kind::Response | Kind::Error | Kind::Notification => {
                d.method.as_deref().map(str::to_string)
            }
            Kind::LlmHttp => llm_method(store, i).map(str::to_string),
            _ => None,
        };
        let Some(method) = method else { return };
        let e = explain::explain_in(&method, d.revision.as_deref());
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.label(RichText::new(tr.get("panel.explanation")).strong());
            ui.label(tr.get(e.key));
            ui.horizontal_wrapped(|ui| {
                // Only the article's six are primitives; the rest is named for what it is.
                ui.label(RichText::new(tr.get(e.primitive.class().key())).weak());
                ui.label(RichText::new(tr.get(e.primitive.key())).strong());
                if let Some(c) = e.controlled_by {
                    ui.label(RichText::new(tr.get("inspector.controlled_by")).weak());
                    ui.label(RichText::new(tr.get(c.key())).strong());
                }
            });
            if d.kind == Kind::LlmHttp {
                llm_shape_ui(ui, store, i, tr);
            }
            ui.horizontal_wrapped(|ui| {
                let section = tr.fmt("inspector.specification", &[("section", e.spec_section)]);
                ui.hyperlink_to(section, &e.spec_url);
                if let Some(dep) = e.deprecated_in {
                    ui.colored_label(
                        Color32::from_rgb(0xd0, 0x80, 0x00),
                        tr.fmt("inspector.deprecated", &[("revision", dep)]),
                    );
                }
            });
        });
    }
}

/// What an LLM response says in the words of its API shape: the field that says why the
/// model stopped, and for OpenAI's calls that `arguments` is a JSON string the host parses.
fn llm_shape_ui(ui: &mut Ui, store: &TraceStore, i: usize, tr: Words<'_>) {
    let Some(x) = store.report.llm.iter().find(|x| x.response == Some(i)) else {
        return;
    };
    let Some(shape) = x.shape else { return };
    if let Some(stop) = &x.stop_reason {
        let args = [("field", shape.stop_field()), ("value", stop.as_str())];
        ui.label(RichText::new(tr.fmt("inspector.stop_field", &args)).monospace());
    }
    if !x.tool_calls.is_empty() && shape.arguments_are_a_string() {
        ui.label(tr.get("inspector.arguments_string"));
    }
}

/// The explain pseudo-method of an LLM API event.
fn llm_method(store: &TraceStore, i: usize) -> Option<&'static str> {
    let x = store
        .report
        .llm
        .iter()
        .find(|x| x.request == i || x.response == Some(i))?;
    Some(if x.request == i {
        if x.tool_results.is_empty() {
            LLM_REQUEST
        } else {
            LLM_TOOL_RESULT
        }
    } else if x.tool_calls.is_empty() {
        LLM_RESPONSE
    } else {
        LLM_TOOL_USE
    })
}
