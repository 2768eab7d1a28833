//! Narration of tool results, the heart of the article's loop: a `tools/list` result (a
//! definition changed since the previous list, a rug pull; a description aimed at the model,
//! tool poisoning; tools that appeared, dynamic discovery; or just the list) and a
//! `tools/call` result, which goes back to the model in the block its API shape uses.

use serde_json::Value;

use super::Narrator;
use super::llm::ShapeWords;
use super::words::{QUOTE_CHARS, array_at, is_invisible, list, quote, str_at};
use crate::analysis::CallChain;
use crate::trace::{Kind, Pairing};

impl Narrator<'_> {
    /// A `tools/list` result, most telling first: a definition that changed since the server's
    /// previous list (rug pull), a description with text aimed at the model (tool poisoning),
    /// tools that appeared (dynamic discovery), or just the list.
    pub(super) fn tools_list_result(&self, result: Option<&Value>) -> String {
        let server = self.server();
        let tools = array_at(result, "tools");
        let previous = self.previous_tools_list();
        if let Some((earlier, old)) = &previous {
            let changed = tools.iter().find_map(|tool| {
                let name = str_at(Some(tool), "name")?;
                let before = old.iter().find(|t| str_at(Some(t), "name") == Some(name))?;
                let same = ["description", "inputSchema"]
                    .iter()
                    .all(|k| before.get(k) == tool.get(k));
                (!same).then_some(name)
            });
            if let Some(tool) = changed {
                let seq = self.events[*earlier].seq;
                return say!(self, "rug_pull", tool = tool, seq = seq);
            }
        }
        for tool in tools {
            let description = str_at(Some(tool), "description").unwrap_or_default();
            let invisible = description.chars().filter(|c| is_invisible(*c)).count();
            let mut what = Vec::new();
            if description.to_ascii_lowercase().contains("<important>") {
                what.push(say!(self, "poison_important"));
            }
            if invisible > 0 {
                what.push(say!(self, "poison_invisible", count = invisible));
            }
            if !what.is_empty() {
                let name = str_at(Some(tool), "name").unwrap_or("?");
                return say!(self, "poisoned", tool = name, what = what.join(", "));
            }
        }
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| str_at(Some(t), "name"))
            .collect();
        if let Some((_, old)) = &previous {
            let added: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| !old.iter().any(|t| str_at(Some(t), "name") == Some(n)))
                .collect();
            if !added.is_empty() {
                return say!(
                    self,
                    "tools_list_added",
                    server = server,
                    tools = list(&added)
                );
            }
        }
        let count = tools.len();
        if self.is_api_client() {
            let tools = list(&names);
            return say!(
                self,
                "remote_tools_list_result",
                server = server,
                count = count,
                tools = tools
            );
        }
        let listed = say!(
            self,
            "tools_list_result",
            server = server,
            count = count,
            tools = list(&names)
        );
        // What the SDK adds: a `$schema` the author never wrote, passed on to the model.
        let dialect = tools.iter().find_map(|t| {
            let schema = t.get("inputSchema")?.get("$schema")?.as_str()?;
            Some((str_at(Some(t), "name").unwrap_or("?"), schema))
        });
        match dialect {
            Some((tool, uri)) => {
                let uri = quote(uri, 80);
                let sdk = say!(self, "tools_list_schema", tool = tool, uri = uri);
                format!("{listed} {sdk}")
            }
            None => listed,
        }
    }

    /// The index and tools of the previous `tools/list` result from the same server.
    fn previous_tools_list(&self) -> Option<(usize, Vec<Value>)> {
        let rpc = &self.report.rpc.derived;
        let i = (0..self.index).rev().find(|&i| {
            rpc[i].kind == Kind::Response
                && rpc[i].method.as_deref() == Some("tools/list")
                && self.events[i].from == self.event.from
        })?;
        let value: Value = serde_json::from_str(&self.events[i].text()).ok()?;
        Some((i, array_at(value.get("result"), "tools").to_vec()))
    }

    pub(super) fn tools_call_result(&self, result: Option<&Value>, tool: &str) -> String {
        let server = self.server();
        if result
            .and_then(|r| r.get("isError"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            return say!(self, "tool_error", tool = tool);
        }
        let content = array_at(result, "content");
        let text = content
            .iter()
            .find_map(|c| str_at(Some(c), "text"))
            .map(str::to_string)
            .or_else(|| {
                let kind = content.first().and_then(|c| str_at(Some(c), "type"));
                kind.map(|t| format!("[{t}]"))
            })
            .unwrap_or_default();
        let text = quote(&text, QUOTE_CHARS);
        let Some(chain) = self.chain_of_call(self.index) else {
            return say!(
                self,
                "tools_call_result_plain",
                server = server,
                tool = tool,
                text = text
            );
        };
        let asked = self
            .report
            .llm
            .iter()
            .find(|x| x.response == Some(chain.asked_in));
        let block = ShapeWords::of(asked.and_then(|x| x.shape)).result_block;
        say!(
            self,
            "tools_call_result",
            server = server,
            tool = tool,
            text = text,
            block = block,
        )
    }

    /// The call chain a `tools/call` result belongs to; for the answer to a multi-round-trip
    /// retry, the chain of the first round's request.
    fn chain_of_call(&self, result: usize) -> Option<&CallChain> {
        let rpc = &self.report.rpc.derived;
        let Pairing::Answers(seq) = rpc[result].pairing else {
            return None;
        };
        let earlier = |seq, at| self.report.rpc.earlier(self.events, seq, at);
        let mut request = earlier(seq, result)?;
        for _ in 0..self.events.len() {
            let chains = &self.report.chains;
            if let Some(chain) = chains.iter().find(|c| c.tools_call == Some(request)) {
                return Some(chain);
            }
            request = earlier(rpc[request].retry_of()?, request)?;
        }
        None
    }
}
