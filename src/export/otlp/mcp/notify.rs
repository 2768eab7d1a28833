//! Notifications on the MCP spans: each becomes an event on the request it belongs to (its
//! progress token, the id it cancels, the listen stream it arrived on) or on the innermost
//! request open on that connection; with none open, a zero-length span of its own. Apart from
//! the request/response pairing in `mcp`, because finding "the request it belongs to" is its
//! own search over what is open when.

use std::collections::HashMap;

use opentelemetry_proto::tonic::trace::v1::{Span, span};
use serde_json::Value;

use super::super::{Ctx, Mapped, kv, nanos, opt};
use super::{Open, connection, innermost, json, server_of, span_id_of};
use crate::trace::{Kind, Lane};

/// Adds each JSON-RPC notification of the trace to `out`: as an event of the span it belongs
/// to, or as a zero-length span when no request is open on its connection.
pub(super) fn notifications(
    ctx: &Ctx<'_>,
    open: &[Open],
    by_request: &HashMap<usize, usize>,
    out: &mut Vec<Mapped>,
) {
    let derived = &ctx.report.rpc.derived;
    // The requests of each progress token, by server lane, in order (a token may be used
    // again once its request is answered).
    let mut tokens: HashMap<(Lane, String), Vec<&Open>> = HashMap::new();
    for o in open {
        let e = &ctx.events[o.request];
        if e.text().contains("progressToken")
            && let Some(token) =
                json(e).and_then(|v| v.pointer("/params/_meta/progressToken").cloned())
        {
            tokens
                .entry((o.server.clone(), token.to_string()))
                .or_default()
                .push(o);
        }
    }
    // A request is open for a notification until its answer; a cancellation ends it.
    let open_at = |o: &Open, i: usize| o.request < i && i <= o.until;
    let before = |i: usize| &open[..open.partition_point(|o| o.request < i)];
    for (i, e) in ctx.events.iter().enumerate() {
        let d = &derived[i];
        if d.kind != Kind::Notification || !e.channel.carries_jsonrpc() {
            continue;
        }
        let Some((server, from_client)) = server_of(e) else {
            continue;
        };
        let method = d.method.as_deref().unwrap_or_default();
        let t = nanos(e.time);
        let message = json(e);
        let params = message.as_ref().and_then(|m| m.get("params"));
        // A notification that names its request (a progress token, a cancelled id, a listen
        // stream) belongs to that request while it is open; once it is answered, the
        // notification is a span of its own, never an event of some other request.
        let (names, related) = match method {
            "notifications/progress" => {
                let token = params.and_then(|p| p.get("progressToken"));
                let o = token
                    .and_then(|tok| tokens.get(&(server.clone(), tok.to_string())))
                    .and_then(|os| os.iter().rev().find(|o| o.request < i));
                (token.is_some(), o.copied())
            }
            "notifications/cancelled" => {
                let id = params.and_then(|p| p.get("requestId"));
                let o = id.and_then(|id| {
                    before(i).iter().rev().find(|o| {
                        o.server == server
                            && o.from_client == from_client
                            && derived[o.request]
                                .id
                                .as_ref()
                                .is_some_and(|r| r.matches(id))
                    })
                });
                (id.is_some(), o)
            }
            _ => match d.subscription().and_then(|seq| ctx.earlier(seq, i)) {
                Some(r) => (true, by_request.get(&r).map(|&k| &open[k])),
                None => (false, None),
            },
        };
        let target = match related.filter(|o| open_at(o, i)) {
            Some(o) => Some(o.span),
            None if names => None,
            None => innermost(open, &server, true, i)
                .or_else(|| innermost(open, &server, false, i))
                .map(|o| o.span),
        };
        let mut attributes = vec![kv("mcp.method.name", method)];
        if method == "notifications/resources/updated" {
            let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
            opt(&mut attributes, "mcp.resource.uri", uri);
        }
        match target {
            Some(s) => {
                out[s].span.events.push(span::Event {
                    time_unix_nano: t,
                    name: method.to_string(),
                    attributes,
                    ..span::Event::default()
                });
                // A span in flight is mapped again with its events.
                if !out[s].waits.is_empty() {
                    out[s].waits.push(i);
                }
            }
            None => {
                attributes.clear();
                connection(&mut attributes, ctx, i, None);
                if method == "notifications/resources/updated" {
                    let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
                    opt(&mut attributes, "mcp.resource.uri", uri);
                }
                let span = Span {
                    trace_id: ctx.trace.to_vec(),
                    span_id: span_id_of(ctx, i).to_vec(),
                    parent_span_id: ctx.root.to_vec(),
                    name: method.to_string(),
                    kind: if from_client {
                        span::SpanKind::Client as i32
                    } else {
                        span::SpanKind::Server as i32
                    },
                    start_time_unix_nano: t,
                    end_time_unix_nano: t,
                    attributes,
                    ..Span::default()
                };
                out.push(Mapped {
                    span,
                    waits: Vec::new(),
                    notification: Some(i),
                });
            }
        }
    }
}
