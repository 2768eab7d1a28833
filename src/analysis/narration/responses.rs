//! Narration of JSON-RPC results: the negotiated handshake and `instructions`, lists of
//! resources, prompts and roots, sampling and elicitation answers, an `input_required`
//! round (2026-07-28), an answer to nothing. Tool results are in `tools`.

use serde_json::Value;

use super::Narrator;
use super::words::{QUOTE_CHARS, array_at, keys_of, list, names_of, quote, str_at};
use crate::trace::Pairing;

impl Narrator<'_> {
    pub(super) fn response(&self, from: &str) -> Vec<String> {
        let d = self.derived;
        let method = self.method();
        if d.pairing == Pairing::Orphan {
            let id = d.id.as_ref().map_or("?".to_string(), |id| id.to_string());
            return vec![say!(self, "orphan", from = from, id = id)];
        }
        let json = self.json();
        let result = json.as_ref().and_then(|v| v.get("result"));
        let (server, name) = (self.server(), self.detail());
        if d.input_required {
            let requests: Vec<&str> = result
                .and_then(|r| r.get("inputRequests"))
                .and_then(Value::as_object)
                .map(|o| {
                    o.values()
                        .filter_map(|r| str_at(Some(r), "method"))
                        .collect()
                })
                .unwrap_or_default();
            let requests = if requests.is_empty() {
                "requestState".to_string()
            } else {
                list(&requests)
            };
            let what = match &d.detail {
                Some(detail) => format!("{method} {detail}"),
                None => method.to_string(),
            };
            return vec![say!(
                self,
                "input_required",
                server = server,
                method = what,
                requests = requests,
            )];
        }
        let capabilities = || keys_of(result.and_then(|r| r.get("capabilities")));
        let instructions = str_at(result, "instructions")
            .map(|text| say!(self, "instructions", text = quote(text, QUOTE_CHARS)));
        let sentence = match method {
            "initialize" => {
                let version = str_at(result, "protocolVersion").unwrap_or("?");
                let capabilities = capabilities();
                let first = say!(
                    self,
                    "initialize_result",
                    server = server,
                    version = version,
                    capabilities = capabilities,
                );
                return [Some(first), instructions].into_iter().flatten().collect();
            }
            "server/discover" => {
                let versions: Vec<&str> = array_at(result, "supportedVersions")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                let first = say!(
                    self,
                    "discover_result",
                    server = server,
                    versions = list(&versions),
                    capabilities = capabilities(),
                );
                return [Some(first), instructions].into_iter().flatten().collect();
            }
            "tools/list" => self.tools_list_result(result),
            "tools/call" => self.tools_call_result(result, name),
            "resources/list" | "resources/templates/list" => {
                let field = match method {
                    "resources/list" => "resources",
                    _ => "resourceTemplates",
                };
                let items = array_at(result, field);
                let names = names_of(items, &["uri", "uriTemplate", "name"]);
                say!(
                    self,
                    "resources_list_result",
                    server = server,
                    method = method,
                    count = items.len(),
                    names = names,
                )
            }
            "resources/read" => say!(self, "resources_read_result", server = server, uri = name),
            "prompts/list" => {
                let items = array_at(result, "prompts");
                let names = names_of(items, &["name"]);
                let count = items.len();
                say!(
                    self,
                    "prompts_list_result",
                    server = server,
                    count = count,
                    names = names
                )
            }
            "prompts/get" => {
                let count = array_at(result, "messages").len();
                say!(self, "prompts_get_result", name = name, count = count)
            }
            "sampling/createMessage" => say!(self, "sampling_result", server = server),
            "elicitation/create" => {
                let action = str_at(result, "action").unwrap_or("?");
                say!(self, "elicitation_result", server = server, action = action)
            }
            "roots/list" => {
                let items = array_at(result, "roots");
                let names = names_of(items, &["uri", "name"]);
                say!(self, "roots_result", count = items.len(), names = names)
            }
            "subscriptions/listen" => say!(self, "listen_end", server = server),
            _ => say!(self, "response", from = from, method = method),
        };
        vec![sentence]
    }
}
