//! The host's side of deferred tools (`[host] defer_tools = true`): which tools a request
//! carries whole, what the system text names, and the answer to the model's search.
//!
//! The article's host sends every tool's definition on every request; Claude Code sends their
//! names and a search tool it runs itself ([`crate::wire::convert::defer`] has the wire shapes).
//! A class sees both with the same server: the search is answered by the host, never by a
//! server, and the tool's definition reaches the model only after the model asked for it.

use serde_json::Value;

use super::agent::{Progress, line};
use crate::i18n::Language;
use crate::wire::api::ApiShape;
use crate::wire::catalog::{Catalog, Fate};
use crate::wire::convert::{ModelToolCall, defer};

/// The tools loaded so far, by the name the model sees.
#[derive(Debug, Default)]
pub(super) struct Deferral {
    loaded: Vec<String>,
}

impl Deferral {
    /// The deferral of a run whose scenario asks for it (`defer_tools`): only on the Anthropic
    /// shape, which has `tool_reference`; elsewhere the host says it sends every tool whole.
    pub fn for_run(
        asked: bool,
        shape: ApiShape,
        lang: Language,
        progress: Progress<'_>,
    ) -> Option<Deferral> {
        if asked && shape != ApiShape::Anthropic {
            progress(&line(
                lang,
                "defer_unsupported",
                &[("shape", shape.as_str())],
            ));
        }
        (asked && shape == ApiShape::Anthropic).then(Deferral::default)
    }

    /// The `tools` parameter: the search tool, then each loaded tool whole.
    pub fn tools(&self, catalog: &Catalog) -> Vec<Value> {
        let mut tools = vec![defer::search_tool()];
        tools.extend(
            catalog
                .entries
                .iter()
                .filter(|e| self.loaded.contains(&e.api_name))
                .filter_map(|e| e.api_tool.as_ref())
                .map(defer::loaded_tool),
        );
        tools
    }

    /// The system text: the scenario's, then the names of every tool the host offers.
    pub fn system(&self, base: Option<&str>, catalog: &Catalog) -> Option<String> {
        let names = sent(catalog);
        if names.is_empty() {
            return base.map(str::to_string);
        }
        let listed = defer::deferred_text(names);
        Some(match base {
            Some(base) => format!("{base}\n\n{listed}"),
            None => listed,
        })
    }

    /// Whether the model's call is the host's own search tool.
    pub fn is_search(call: &ModelToolCall) -> bool {
        call.name == defer::SEARCH_TOOL
    }

    /// Runs the model's search, saying so on the run's progress: the tool result for the model.
    pub fn answer(
        &mut self,
        catalog: &Catalog,
        call: &ModelToolCall,
        lang: Language,
        progress: Progress<'_>,
    ) -> Value {
        let args = [("name", call.name.as_str()), ("id", call.id.as_str())];
        progress(&line(lang, "tool_call", &args));
        let (result, loaded) = self.search(catalog, call);
        let names = loaded.join(", ");
        let args = [("tool", call.name.as_str()), ("names", names.as_str())];
        progress(&line(lang, "tool_search", &args));
        result
    }

    /// Loads the named tools the host offers. Returns the tool result for the model and the
    /// names loaded by this search.
    fn search(&mut self, catalog: &Catalog, call: &ModelToolCall) -> (Value, Vec<String>) {
        let known = sent(catalog);
        let asked = call
            .arguments
            .as_ref()
            .map(defer::selected)
            .unwrap_or_default();
        let found: Vec<String> = asked
            .into_iter()
            .filter(|n| known.contains(&n.as_str()))
            .collect();
        for name in &found {
            if !self.loaded.contains(name) {
                self.loaded.push(name.clone());
            }
        }
        (defer::search_result(&call.id, &found, &known), found)
    }
}

/// The names of the tools the host offers the model.
fn sent(catalog: &Catalog) -> Vec<&str> {
    catalog
        .entries
        .iter()
        .filter(|e| e.fate == Fate::Sent)
        .map(|e| e.api_name.as_str())
        .collect()
}
