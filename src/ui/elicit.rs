//! The dialog of a live run's elicitation: a server's `elicitation/create` reaches the person
//! at the app (through [`crate::host::user::UserLane`]), who sees the request's message and
//! its `requestedSchema` as a form and accepts (the form's values as `content`), declines or
//! cancels. Questions come one at a time; one the host stopped waiting for (its timeout, a
//! cancel) closes by itself.

use std::sync::mpsc::Receiver;

use serde_json::{Map, Value};

use crate::host::scenario::ElicitationAnswer;
use crate::host::user::Question;
use crate::i18n::Words;

/// What one property of the requested schema asks for.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    Text(String),
    Number(String, bool),
    Boolean(bool),
    Choice(Vec<String>, usize),
}

/// One field of the form.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    /// The property's `title`, else its name.
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    input: Input,
}

/// The form's fields for a flat object schema, in the schema's order.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, p)| {
            let kind = p.get("type").and_then(Value::as_str).unwrap_or("string");
            let choices: Option<Vec<String>> = p.get("enum").and_then(Value::as_array).map(|e| {
                e.iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect()
            });
            let input = match (kind, choices) {
                (_, Some(choices)) if !choices.is_empty() => Input::Choice(choices, 0),
                ("boolean", _) => {
                    Input::Boolean(p.get("default").and_then(Value::as_bool).unwrap_or(false))
                }
                ("number" | "integer", _) => Input::Number(
                    p.get("default").map(Value::to_string).unwrap_or_default(),
                    kind == "integer",
                ),
                _ => Input::Text(
                    p.get("default")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                ),
            };
            Field {
                name: name.clone(),
                label: p
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or(name)
                    .to_string(),
                description: p
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                required: required.contains(&name.as_str()),
                input,
            }
        })
        .collect()
}

/// The form's values as the `content` of an accepted answer (empty optional fields left out).
pub fn content(fields: &[Field]) -> Value {
    let mut out = Map::new();
    for f in fields {
        let value = match &f.input {
            Input::Text(t) if t.is_empty() && !f.required => continue,
            Input::Text(t) => Value::String(t.clone()),
            Input::Number(t, integer) => match (integer, t.trim()) {
                (_, "") => continue,
                (true, t) => t.parse::<i64>().map_or(Value::Null, Value::from),
                (false, t) => t.parse::<f64>().map_or(Value::Null, Value::from),
            },
            Input::Boolean(b) => Value::Bool(*b),
            Input::Choice(choices, i) => {
                Value::String(choices.get(*i).cloned().unwrap_or_default())
            }
        };
        out.insert(f.name.clone(), value);
    }
    Value::Object(out)
}

/// The live run's questions and the one shown.
#[derive(Default)]
pub struct ElicitDialog {
    questions: Option<Receiver<Question>>,
    shown: Option<(Question, Vec<Field>)>,
}

impl ElicitDialog {
    /// Reads the questions of a new live run (the last run's stop).
    pub fn listen(&mut self, questions: Receiver<Question>) {
        self.questions = Some(questions);
        self.shown = None;
    }

    /// The question shown, if any: its server and message.
    pub fn question(&self) -> Option<(&str, &str)> {
        self.shown
            .as_ref()
            .map(|(q, _)| (q.server.as_str(), q.message.as_str()))
    }

    /// Takes the next question when none is shown; drops one nobody waits for any more.
    pub fn poll(&mut self) {
        if self.shown.as_ref().is_some_and(|(q, _)| q.is_abandoned()) {
            self.shown = None;
        }
        if self.shown.is_none()
            && let Some(q) = self.questions.as_ref().and_then(|r| r.try_recv().ok())
        {
            let form = fields(&q.schema);
            self.shown = Some((q, form));
        }
    }

    /// Answers the question shown: `accept` sends the form's values.
    pub fn answer(&mut self, action: &str) {
        if let Some((q, form)) = self.shown.take() {
            let content = (action == "accept").then(|| content(&form));
            q.answer(ElicitationAnswer {
                action: action.to_string(),
                content,
            });
        }
    }

    /// The dialog, while a question is shown.
    pub fn window_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) {
        let Some((question, form)) = self.shown.as_mut() else {
            return;
        };
        let mut action = None;
        egui::Window::new(tr.get("elicit.title"))
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                let from = tr.fmt("elicit.from", &[("server", &question.server)]);
                ui.label(egui::RichText::new(from).strong());
                ui.label(&question.message);
                ui.separator();
                egui::Grid::new("elicit-form")
                    .num_columns(2)
                    .show(ui, |ui| {
                        for f in form.iter_mut() {
                            let mut label = f.label.clone();
                            if f.required {
                                label.push_str(" *");
                            }
                            let response = ui.label(label);
                            let salt = format!("elicit-{}", f.name);
                            match &mut f.input {
                                Input::Text(t) | Input::Number(t, _) => {
                                    ui.add(egui::TextEdit::singleline(t).id_salt(&salt))
                                        .labelled_by(response.id);
                                }
                                Input::Boolean(b) => {
                                    ui.checkbox(b, "").labelled_by(response.id);
                                }
                                Input::Choice(choices, i) => {
                                    egui::ComboBox::from_id_salt(&salt)
                                        .selected_text(choices.get(*i).cloned().unwrap_or_default())
                                        .show_ui(ui, |ui| {
                                            for (k, c) in choices.iter().enumerate() {
                                                ui.selectable_value(i, k, c);
                                            }
                                        });
                                }
                            }
                            ui.end_row();
                            if let Some(d) = &f.description {
                                ui.label("");
                                ui.weak(d);
                                ui.end_row();
                            }
                        }
                    });
                ui.separator();
                ui.horizontal(|ui| {
                    for (key, act) in [
                        ("elicit.accept", "accept"),
                        ("elicit.decline", "decline"),
                        ("elicit.cancel", "cancel"),
                    ] {
                        if ui.button(tr.get(key)).clicked() {
                            action = Some(act);
                        }
                    }
                });
            });
        if let Some(act) = action {
            self.answer(act);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_schema_becomes_a_form_and_its_values_the_content() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": "Confirm", "default": true},
                "count": {"type": "integer"},
                "color": {"type": "string", "enum": ["red", "green"]},
                "note": {"type": "string"}
            },
            "required": ["confirm"]
        });
        let form = fields(&schema);
        assert_eq!(form.len(), 4);
        assert_eq!(form[0].label, "Confirm");
        assert!(form[0].required);
        assert_eq!(
            content(&form),
            serde_json::json!({"confirm": true, "color": "red"})
        );
    }
}
