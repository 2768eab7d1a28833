//! Narration of JSON-RPC requests, both ways: the host's (`initialize`, `server/discover`,
//! listing and calling tools, resources, prompts), the server's asking back (sampling,
//! elicitation, roots), a listen stream, a request never answered or cancelled, the
//! `_meta` a stateless request carries, and any other method by its description.

use serde_json::Value;

use super::Narrator;
use super::words::{QUOTE_CHARS, keys_of, quote, str_at};
use crate::analysis::explain;
use crate::trace::{Event, Kind, Lane, Pairing};

impl Narrator<'_> {
    pub(super) fn request(&self, from: &str) -> Vec<String> {
        let d = self.derived;
        let method = self.method();
        // A listen stream stays open by design; any other request that never got an answer:
        // that is the point to make.
        if method == "subscriptions/listen" {
            let next = match d.pairing {
                Pairing::Cancelled(seq) => say!(self, "cancelled_later", seq = seq),
                Pairing::AnsweredBy(_) => return vec![say!(self, "listen")],
                _ => say!(self, "listen_open"),
            };
            return vec![say!(self, "listen"), next];
        }
        let detail = d
            .detail
            .as_deref()
            .filter(|_| method != "initialize")
            .map(|x| format!(" ({x})"))
            .unwrap_or_default();
        match &d.pairing {
            Pairing::Unanswered(reason) => {
                let reason = super::unanswered_reason(self.words(), reason);
                return vec![say!(
                    self,
                    "request_unanswered",
                    from = from,
                    method = method,
                    detail = detail,
                    reason = reason,
                )];
            }
            Pairing::Cancelled(seq) => {
                return vec![say!(
                    self,
                    "request_cancelled",
                    from = from,
                    method = method,
                    detail = detail,
                    seq = seq,
                )];
            }
            _ => {}
        }
        let json = self.json();
        let params = json.as_ref().and_then(|v| v.get("params"));
        let (server, name) = (self.server(), self.detail());
        let sentence = match method {
            "initialize" => {
                let version = str_at(params, "protocolVersion").unwrap_or("?");
                let capabilities = keys_of(params.and_then(|p| p.get("capabilities")));
                say!(
                    self,
                    "initialize",
                    version = version,
                    capabilities = capabilities
                )
            }
            "server/discover" => say!(self, "discover"),
            "tools/list" if self.listed_again() => say!(self, "tools_list_again", server = server),
            "tools/list" => say!(self, "tools_list", server = server),
            "tools/call" => {
                let arguments = params
                    .and_then(|p| p.get("arguments"))
                    .map_or_else(|| "{}".to_string(), |a| quote(&a.to_string(), QUOTE_CHARS));
                let asked = self
                    .report
                    .chains
                    .iter()
                    .any(|c| c.tools_call == Some(self.index));
                match d.retry_of() {
                    Some(first) => say!(self, "tools_call_retry", tool = name, seq = first),
                    None if asked => say!(
                        self,
                        "tools_call",
                        tool = name,
                        server = server,
                        arguments = arguments,
                    ),
                    None => say!(
                        self,
                        "tools_call_plain",
                        tool = name,
                        server = server,
                        arguments = arguments,
                    ),
                }
            }
            "resources/list" | "resources/templates/list" => {
                say!(self, "resources_list", server = server, method = method)
            }
            "resources/read" => say!(self, "resources_read", uri = name),
            "resources/subscribe" => say!(self, "resources_subscribe", server = server, uri = name),
            "prompts/list" => say!(self, "prompts_list", server = server),
            "prompts/get" => say!(self, "prompts_get", name = name),
            "sampling/createMessage" => say!(self, "sampling", server = server),
            "elicitation/create" => {
                let text = quote(str_at(params, "message").unwrap_or(""), QUOTE_CHARS);
                say!(self, "elicitation", server = server, text = text)
            }
            "roots/list" => say!(self, "roots", server = server),
            "ping" => say!(self, "ping", from = from),
            _ => self.generic("request", from, method, ""),
        };
        let meta = self.first_meta_request(params);
        let meta = meta.map(|version| say!(self, "meta", version = version));
        [Some(sentence), meta].into_iter().flatten().collect()
    }

    /// What an LLM API's own MCP client sends a server: the platform is the host here, and
    /// only tools cross.
    pub(super) fn api_client(&self, from: &str) -> Vec<String> {
        let json = self.json();
        let params = json.as_ref().and_then(|v| v.get("params"));
        let server = self.server();
        let method = self.method();
        let sentence = match method {
            "initialize" => {
                let version = str_at(params, "protocolVersion").unwrap_or("?");
                say!(
                    self,
                    "remote_initialize",
                    server = server,
                    version = version
                )
            }
            "notifications/initialized" => say!(self, "remote_initialized", server = server),
            "tools/list" => say!(self, "remote_tools_list", server = server),
            "tools/call" => {
                let arguments = params
                    .and_then(|p| p.get("arguments"))
                    .map_or_else(|| "{}".to_string(), |a| quote(&a.to_string(), QUOTE_CHARS));
                let tool = self.detail();
                let args = [
                    ("tool", tool),
                    ("server", server),
                    ("arguments", &arguments),
                ];
                self.t("remote_tools_call", &args)
            }
            _ if self.derived.kind == Kind::Notification => {
                self.generic("notification", from, method, "")
            }
            _ => self.generic("request", from, method, ""),
        };
        vec![sentence]
    }

    /// The sentence for a method without its own: the method's one-line description, or
    /// "not part of the specification". `seq` names the listen stream it arrived on, if any.
    pub(super) fn generic(&self, key: &str, from: &str, method: &str, seq: &str) -> String {
        let e = explain::explain_in(method, self.derived.revision.as_deref());
        if !e.is_known() {
            return say!(self, "unknown", from = from, method = method);
        }
        let description = self.strings.get(self.lang, e.key);
        let args = [
            ("from", from),
            ("method", method),
            ("description", description),
            ("seq", seq),
        ];
        self.t(key, &args)
    }

    /// Whether this `tools/list` follows an earlier one and a `notifications/tools/list_changed`
    /// from its server.
    fn listed_again(&self) -> bool {
        let (rpc, server) = (&self.report.rpc.derived, &self.event.to);
        let seen = |kind: Kind, method: &str, lane: fn(&Event) -> &Lane| {
            (0..self.index).any(|i| {
                rpc[i].kind == kind
                    && rpc[i].method.as_deref() == Some(method)
                    && lane(&self.events[i]) == server
            })
        };
        seen(
            Kind::Notification,
            "notifications/tools/list_changed",
            |e| &e.from,
        ) && seen(Kind::Request, "tools/list", |e| &e.to)
    }

    /// For the first stateless request to a server that never got `server/discover`: the
    /// version it names in `_meta`.
    fn first_meta_request(&self, params: Option<&Value>) -> Option<String> {
        let meta = params.and_then(|p| p.get("_meta"));
        let version = str_at(meta, "io.modelcontextprotocol/protocolVersion")?;
        let to = &self.event.to;
        let rpc = &self.report.rpc.derived;
        let earlier =
            (0..self.index).any(|i| rpc[i].kind == Kind::Request && self.events[i].to == *to);
        (!earlier && self.method() != "server/discover").then(|| version.to_string())
    }
}
