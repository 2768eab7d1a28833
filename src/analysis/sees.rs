//! What the model sees, grouped the way a real host builds it: the host's own tools, the
//! API's, MCP tools sent whole, MCP tools deferred (the name only, the schema on demand),
//! namespaces, and tools no `tools/list` explains; each group with its token cost.
//!
//! One list of `tools` entries read as equals painted Claude Code's `Bash` red as a tool "not
//! found in any earlier tools/list" and hid the deferred MCP tool altogether; the groups say
//! whose each tool is, and what it costs the context.

use super::ToolView;
use super::tokens::{RequestTokens, anthropic_estimate};
use crate::wire::offered::{Delivery, Kind};

/// A group of tools a request offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// The host's own tools (and its placeholders): no server lists them.
    Host,
    /// The API's own tools, run by the provider.
    Api,
    /// MCP tools sent whole: name, description, schema.
    Whole,
    /// MCP tools the host deferred: the name in context, the schema loaded on a search.
    Deferred,
    /// A namespace of tools (Responses), by its name.
    Namespace(String),
    /// Tools no earlier `tools/list` holds, from a host this reading does not recognise.
    Unknown,
}

/// One group: its tools (indices into [`ToolView::sent`]) and what they cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouped {
    pub group: Group,
    pub tools: Vec<usize>,
    /// Tokens of the group's `tools` entries (a namespace's entry counted once); a tool named
    /// only in text costs its name.
    pub tokens: usize,
}

/// The group of one tool.
fn group_of(kind: Kind, delivery: Delivery, namespace: Option<&str>, known: bool) -> Group {
    match (kind, namespace) {
        (Kind::Host | Kind::Placeholder, _) => Group::Host,
        (Kind::Api, _) => Group::Api,
        (_, Some(ns)) => Group::Namespace(ns.to_string()),
        (Kind::Mcp, None) if delivery != Delivery::Whole => Group::Deferred,
        (Kind::Mcp, None) => Group::Whole,
        (Kind::Plain, None) if known => Group::Whole,
        (Kind::Plain, None) => Group::Unknown,
    }
}

/// The groups of a request's tools, in a fixed order (host, API, whole, deferred, namespaces,
/// unknown), with their token costs when `tokens` counted the request.
pub fn grouped(view: &ToolView, tokens: Option<&RequestTokens>) -> Vec<Grouped> {
    let mut out: Vec<Grouped> = Vec::new();
    let mut counted: Vec<usize> = Vec::new();
    for (k, o) in view.sent.iter().enumerate() {
        let group = group_of(
            o.kind,
            o.delivery,
            o.namespace.as_deref(),
            o.listed_in.is_some(),
        );
        let cost = match o.entry {
            Some(e) if counted.contains(&e) => 0,
            Some(e) => {
                counted.push(e);
                tokens.and_then(|t| t.tools.get(e)).map_or(0, |(_, n)| *n)
            }
            None => anthropic_estimate(&o.api_name),
        };
        match out.iter_mut().find(|g| g.group == group) {
            Some(g) => {
                g.tools.push(k);
                g.tokens += cost;
            }
            None => out.push(Grouped {
                group,
                tools: vec![k],
                tokens: cost,
            }),
        }
    }
    let rank = |g: &Group| match g {
        Group::Host => 0,
        Group::Api => 1,
        Group::Whole => 2,
        Group::Deferred => 3,
        Group::Namespace(_) => 4,
        Group::Unknown => 5,
    };
    out.sort_by_key(|g| rank(&g.group));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ToolOrigin;

    fn origin(name: &str, kind: Kind, delivery: Delivery, entry: Option<usize>) -> ToolOrigin {
        ToolOrigin {
            api_name: name.into(),
            server: None,
            mcp_name: None,
            listed_in: None,
            entry,
            namespace: None,
            kind,
            delivery,
            rule: None,
            loaded_in: None,
        }
    }

    /// Claude Code's first request and a Codex namespace: each tool in its group, a
    /// namespace's entry counted once, a name-only tool costing its name.
    #[test]
    fn real_hosts_tools_fall_in_their_groups() {
        let member = |name: &str| {
            let mut o = origin(name, Kind::Mcp, Delivery::Whole, Some(3));
            o.namespace = Some("mcp__weather".into());
            o
        };
        let (a, b) = (member("get_weather"), member("get_forecast"));
        let view = ToolView {
            request: 0,
            sent: vec![
                origin("Bash", Kind::Host, Delivery::Whole, Some(0)),
                origin(
                    "DeferredToolPlaceholder",
                    Kind::Placeholder,
                    Delivery::Deferred,
                    Some(1),
                ),
                origin("web_search", Kind::Api, Delivery::Whole, Some(2)),
                a,
                b,
                origin(
                    "mcp__weather__get_weather",
                    Kind::Mcp,
                    Delivery::NameOnly,
                    None,
                ),
                origin("mystery", Kind::Plain, Delivery::Whole, Some(4)),
            ],
            not_sent: Vec::new(),
        };
        let tokens = RequestTokens {
            request: 0,
            shape: crate::wire::api::ApiShape::Anthropic,
            model: None,
            tools: (0..5).map(|k| (format!("t{k}"), 10 * (k + 1))).collect(),
            total: 150,
            overhead: (0, 0),
            exact: false,
            tokenizer: "chars/3.5",
        };
        let g = grouped(&view, Some(&tokens));
        let summary: Vec<(Group, Vec<usize>, usize)> = g
            .into_iter()
            .map(|g| (g.group, g.tools, g.tokens))
            .collect();
        let name_cost = anthropic_estimate("mcp__weather__get_weather");
        assert_eq!(
            summary,
            [
                (Group::Host, vec![0, 1], 30),
                (Group::Api, vec![2], 30),
                (Group::Deferred, vec![5], name_cost),
                (Group::Namespace("mcp__weather".into()), vec![3, 4], 40),
                (Group::Unknown, vec![6], 50),
            ]
        );
    }
}
