//! Narration of the host's exchanges with the model: the request (which tools, in which
//! field; results going back; tools the model cannot see, redefined or added; whose
//! `instructions` are in the system text) and the answer (tool calls, the final text, an
//! error), in the words of the API shape in use.

use super::Narrator;
use super::words::{entries_by_name, list, quote};
use crate::analysis::ToolOrigin;
use crate::wire::api::ApiShape;
use crate::wire::offered::{Delivery, Kind};
use serde_json::Value;

impl Narrator<'_> {
    pub(super) fn llm(&self) -> Vec<String> {
        let llm = &self.report.llm;
        if let Some(n) = llm.iter().position(|x| x.request == self.index) {
            return self.llm_request(n);
        }
        let Some(x) = llm.iter().find(|x| x.response == Some(self.index)) else {
            return vec![say!(self, "llm_unpaired")];
        };
        let words = ShapeWords::of(x.shape);
        let stop = x.stop_reason.as_deref().unwrap_or("?");
        let sentence = if let Some(status) = x.status.filter(|s| *s >= 400)
            && let Some((kind, message)) = self.api_error()
        {
            // The API's own words, quoted as they are; the rest in the narration's language.
            let message = quote(&message, 240);
            say!(
                self,
                "llm_api_error",
                status = status,
                kind = kind,
                message = message
            )
        } else if let Some(status) = x.status.filter(|s| *s >= 400) {
            let problem = x
                .problem
                .clone()
                .unwrap_or_else(|| quote(&self.event.text(), 160));
            say!(self, "llm_error", status = status, problem = problem)
        } else if let Some(problem) = &x.problem {
            say!(self, "llm_unreadable", problem = quote(problem, 200))
        } else if !x.tool_calls.is_empty() {
            let names: Vec<&str> = x.tool_calls.iter().map(|(_, n, _)| n.as_str()).collect();
            let mut asks = say!(
                self,
                "llm_tool_use",
                tools = list(&names),
                block = words.call_block,
                field = words.stop_field,
                stop = stop,
            );
            let own: Vec<&str> = names.iter().copied().filter(|n| x.runs_itself(n)).collect();
            if !own.is_empty() {
                asks = format!("{asks} {}", say!(self, "llm_host_runs", tools = list(&own)));
            }
            match x.shape.filter(|s| s.arguments_are_a_string()) {
                // OpenAI sends `arguments` as a JSON string: the host parses it first.
                Some(_) => {
                    let (_, _, arguments) = &x.tool_calls[0];
                    let text = arguments
                        .as_ref()
                        .map_or_else(String::new, Value::to_string);
                    let wire = serde_json::to_string(&text).unwrap_or_default();
                    let arguments = quote(&wire, 120);
                    let parse = say!(self, "llm_arguments_string", arguments = arguments);
                    format!("{asks} {parse}")
                }
                None => asks,
            }
        } else {
            say!(self, "llm_final", field = words.stop_field, stop = stop)
        };
        let mut told = vec![sentence];
        told.extend(self.remote_calls(x));
        told
    }

    /// Who the host is when the API is itself the MCP client: what its platform's client
    /// called, on which servers, that the host saw none of it, and that only tools crossed.
    fn remote_calls(&self, x: &crate::analysis::LlmExchange) -> Option<String> {
        use crate::wire::remote::StepKind;
        let calls: Vec<String> = x
            .remote
            .iter()
            .filter(|s| s.kind == StepKind::Call)
            .map(|s| {
                let server = s.server.as_deref().unwrap_or("?");
                format!("{server}/{}", s.tool.as_deref().unwrap_or("?"))
            })
            .collect();
        let calls: Vec<&str> = calls.iter().map(String::as_str).collect();
        let listed = x.remote.iter().any(|s| s.kind == StepKind::List);
        match (calls.is_empty(), listed) {
            (true, false) => None,
            (true, true) => Some(say!(self, "llm_remote_listed")),
            (false, _) => Some(say!(self, "llm_remote_calls", calls = list(&calls))),
        }
    }

    fn llm_request(&self, n: usize) -> Vec<String> {
        let x = &self.report.llm[n];
        let words = ShapeWords::of(x.shape);
        let first = if !x.tool_results.is_empty() {
            let mut names: Vec<&str> = self
                .report
                .chains
                .iter()
                .filter(|c| c.returned_in == Some(self.index))
                .map(|c| c.tool.as_str())
                .collect();
            names.dedup();
            if names.is_empty() {
                names = x.tool_results.iter().map(String::as_str).collect();
            }
            let tools = list(&names);
            say!(
                self,
                "llm_request_results",
                tools = tools,
                block = words.result_block
            )
        } else if let Some(told) = self.host_tools(n) {
            told
        } else if x.tools.is_empty() {
            say!(self, "llm_request_no_tools")
        } else {
            let names: Vec<&str> = x.tools.iter().map(String::as_str).collect();
            say!(
                self,
                "llm_request",
                count = x.tools.len(),
                tools = list(&names),
                field = words.schema_field,
            )
        };
        let servers: Vec<&str> = x.remote_servers.iter().map(|d| d.name.as_str()).collect();
        let remote = (!servers.is_empty())
            .then(|| say!(self, "llm_remote_servers", servers = list(&servers)));
        [Some(first), remote, self.llm_request_extra(n)]
            .into_iter()
            .flatten()
            .collect()
    }

    /// A real host's request told group by group: the host's own tools, the API's, the MCP
    /// tools sent whole, deferred (name only) or in a namespace. `None` for a request whose
    /// tools all come whole from `tools/list` (Sightline's own host), told by `llm_request`.
    fn host_tools(&self, n: usize) -> Option<String> {
        let x = &self.report.llm[n];
        let view = self.report.tools.get(n)?;
        let plain = |o: &&ToolOrigin| {
            matches!(o.kind, Kind::Mcp | Kind::Plain)
                && o.delivery == Delivery::Whole
                && o.namespace.is_none()
        };
        if view.sent.iter().all(|o| plain(&o)) {
            return None;
        }
        let words = ShapeWords::of(x.shape);
        let names = |keep: &dyn Fn(&ToolOrigin) -> bool| -> Vec<&str> {
            let mut names: Vec<&str> = Vec::new();
            for o in view.sent.iter().filter(|o| keep(o)) {
                let name = o.namespace.as_deref().unwrap_or(&o.api_name);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            names
        };
        let own = names(&|o| o.kind == Kind::Host);
        let api = names(&|o| o.kind == Kind::Api);
        let whole = names(&|o| plain(&o));
        let deferred = names(&|o| o.kind == Kind::Mcp && o.delivery != Delivery::Whole);
        let spaces = names(&|o| o.kind == Kind::Mcp && o.namespace.is_some());
        let mut told = vec![say!(self, "llm_request_host", count = view.sent.len())];
        if !own.is_empty() {
            told.push(say!(self, "llm_host_own", tools = list(&own)));
        }
        if !api.is_empty() {
            told.push(say!(self, "llm_api_own", tools = list(&api)));
        }
        if !whole.is_empty() {
            told.push(say!(
                self,
                "llm_mcp_whole",
                tools = list(&whole),
                field = words.schema_field
            ));
        }
        if !deferred.is_empty() {
            told.push(say!(self, "llm_deferred", tools = list(&deferred)));
        }
        if !spaces.is_empty() {
            told.push(say!(self, "llm_namespace", tools = list(&spaces)));
        }
        Some(told.join(" "))
    }

    /// What else a request shows, most telling first: tools the model cannot see, tools
    /// redefined or added since the previous request, server instructions in the system text.
    fn llm_request_extra(&self, n: usize) -> Option<String> {
        let x = &self.report.llm[n];
        let view = self.report.tools.iter().find(|v| v.request == self.index);
        if let Some(view) = view.filter(|v| !v.not_sent.is_empty()) {
            let names: Vec<&str> = view.not_sent.iter().map(|(_, n, _)| n.as_str()).collect();
            return Some(say!(self, "llm_not_sent", tools = list(&names)));
        }
        if let Some(previous) = n.checked_sub(1).map(|p| &self.report.llm[p]) {
            let before = entries_by_name(&previous.tool_entries);
            let redefined: Vec<&str> = entries_by_name(&x.tool_entries)
                .into_iter()
                .filter(|(name, entry)| before.iter().any(|(b, old)| b == name && old != entry))
                .map(|(name, _)| name)
                .collect();
            if !redefined.is_empty() {
                return Some(say!(self, "llm_redefined", tools = list(&redefined)));
            }
            let added: Vec<&str> = x
                .tools
                .iter()
                .filter(|t| !previous.tools.contains(t))
                .map(String::as_str)
                .collect();
            return (!added.is_empty()).then(|| say!(self, "llm_added", tools = list(&added)));
        }
        // The first request: whose `instructions` did the host put in the system text?
        let body = self.event.text();
        let servers: Vec<&str> = self
            .report
            .rpc
            .sessions
            .iter()
            .filter(|(_, s)| {
                s.instructions.as_deref().is_some_and(|i| {
                    let escaped = serde_json::to_string(i).unwrap_or_default();
                    !i.is_empty() && body.contains(escaped.trim_matches('"'))
                })
            })
            .filter_map(|(lane, _)| lane.server_name())
            .collect();
        (!servers.is_empty()).then(|| say!(self, "llm_instructions", server = list(&servers)))
    }
}

/// The words each LLM API shape uses for the same things.
pub(super) struct ShapeWords {
    /// Where `inputSchema` goes in a `tools` entry.
    pub(super) schema_field: &'static str,
    /// How the model asks for a call.
    pub(super) call_block: &'static str,
    /// How the host returns a result.
    pub(super) result_block: &'static str,
    /// The field that says why the model stopped.
    pub(super) stop_field: &'static str,
}

impl ShapeWords {
    pub(super) fn of(shape: Option<ApiShape>) -> Self {
        let (schema_field, call_block, result_block) = match shape {
            Some(ApiShape::Openai) => ("parameters", "function_call", "function_call_output"),
            Some(ApiShape::OpenaiChat) => ("function.parameters", "tool_calls", "role: \"tool\""),
            Some(ApiShape::Gemini) => ("parametersJsonSchema", "functionCall", "functionResponse"),
            Some(ApiShape::Anthropic) | None => ("input_schema", "tool_use", "tool_result"),
        };
        let stop_field = shape.unwrap_or(ApiShape::Anthropic).stop_field();
        ShapeWords {
            schema_field,
            call_block,
            result_block,
            stop_field,
        }
    }
}

impl Narrator<'_> {
    /// The `error` an error response carries (`{"error": {"type", "message"}}`, Gemini's
    /// `status` for the type): its kind and message.
    fn api_error(&self) -> Option<(String, String)> {
        let body = self.json()?;
        let error = body.get("error")?;
        let message = error.get("message")?.as_str()?.to_string();
        let kind = ["type", "status", "code"]
            .iter()
            .find_map(|k| error.get(*k).filter(|v| !v.is_null()))
            .map_or_else(
                || "?".to_string(),
                |k| k.as_str().map_or_else(|| k.to_string(), str::to_string),
            );
        Some((kind, message))
    }
}
