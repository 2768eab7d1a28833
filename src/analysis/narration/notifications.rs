//! Narration of JSON-RPC notifications: the end of the handshake, a changed tool list (on
//! its own or on a listen stream), a listen stream acknowledged, progress, log messages,
//! cancellations, and any other method by its description.

use serde_json::Value;

use super::Narrator;
use super::words::{QUOTE_CHARS, list, quote, str_at};
use crate::trace::Pairing;

impl Narrator<'_> {
    pub(super) fn notification(&self, from: &str) -> Vec<String> {
        let d = self.derived;
        let method = self.method();
        let json = self.json();
        let params = json.as_ref().and_then(|v| v.get("params"));
        let server = self.server();
        let stream = d.subscription().map(|seq| seq.to_string());
        let sentence = match method {
            "notifications/initialized" => say!(self, "initialized"),
            "notifications/tools/list_changed" => match &stream {
                Some(seq) => say!(self, "list_changed_on_stream", server = server, seq = seq),
                None => say!(self, "list_changed", server = server),
            },
            "notifications/subscriptions/acknowledged" => {
                let honored = params.and_then(|p| p.get("notifications"));
                let names: Vec<&str> = honored
                    .and_then(Value::as_object)
                    .map(|o| {
                        o.iter()
                            .filter(|(_, v)| !matches!(v, Value::Bool(false) | Value::Null))
                            .map(|(k, _)| k.as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                say!(self, "listen_ack", server = server, names = list(&names))
            }
            "notifications/progress" => {
                let number = |key: &str| match params.and_then(|p| p.get(key)) {
                    Some(Value::Number(n)) => n.as_f64().map_or(n.to_string(), |f| f.to_string()),
                    _ => "?".to_string(),
                };
                let (progress, total) = (number("progress"), number("total"));
                say!(
                    self,
                    "progress",
                    server = server,
                    progress = progress,
                    total = total
                )
            }
            "notifications/message" => {
                let text = match params.and_then(|p| p.get("data")) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let level = str_at(params, "level").unwrap_or("?");
                let text = quote(&text, QUOTE_CHARS);
                say!(self, "log", server = server, level = level, text = text)
            }
            "notifications/cancelled" => {
                let rpc = &self.report.rpc.derived;
                let seq = self.event.seq;
                match rpc
                    .iter()
                    .position(|x| x.pairing == Pairing::Cancelled(seq))
                {
                    Some(i) => say!(self, "cancelled", from = from, seq = self.events[i].seq),
                    None => {
                        let id = params.and_then(|p| p.get("requestId"));
                        let id = id.map_or("?".to_string(), Value::to_string);
                        say!(self, "cancelled_unknown", from = from, id = id)
                    }
                }
            }
            _ => match &stream {
                Some(seq) => self.generic("notification_on_stream", from, method, seq),
                None => self.generic("notification", from, method, ""),
            },
        };
        vec![sentence]
    }
}
