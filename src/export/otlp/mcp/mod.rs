//! The MCP half: one span per request/response pair, by the MCP semantic conventions.
//!
//! - A request from the client side (our host, or the host a proxy stands in front of) is a
//!   CLIENT span; a request the server sends (sampling, roots, elicitation) is a SERVER span,
//!   nested under the client request it arrived during.
//! - `tools/call` sits under the `execute_tool` span of the model call it carried.
//! - A `traceparent` in the request's `params._meta` (SEP-414) is the span's parent: the
//!   caller's trace gets the span, with a link back to our root.
//! - A notification is an event on the request it belongs to (progress token, cancelled id,
//!   listen stream) or on the innermost request open on that connection; with none open it is a
//!   zero-length span.
//! - A 2026-07-28 `input_required` retry is a span of its own, linked to the leg before it.

use std::collections::HashMap;

use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::{Span, span};
use serde_json::Value;

mod notify;

use super::genai::ToolSpan;
use super::{Ctx, Mapped, SpanId, error_status, ids, kv, nanos, opt, server_address};
use crate::trace::{Channel, Event, Kind, Lane, PENDING_AT_END, Pairing, RpcId};

/// One request's span while the spans are built.
struct Open {
    request: usize,
    /// Index of the answer (or of the event that ended it); `usize::MAX` when still open.
    until: usize,
    server: Lane,
    from_client: bool,
    span: usize,
}

fn json(e: &Event) -> Option<Value> {
    serde_json::from_str(&e.text()).ok()
}

fn server_of(e: &Event) -> Option<(Lane, bool)> {
    if e.to.is_server() {
        Some((e.to.clone(), true))
    } else if e.from.is_server() {
        Some((e.from.clone(), false))
    } else {
        None
    }
}

/// The id of the span of the request at `i` (from what a session merge keeps).
pub(super) fn span_id_of(ctx: &Ctx<'_>, i: usize) -> SpanId {
    let e = &ctx.events[i];
    let id = ctx.report.rpc.derived[i]
        .id
        .as_ref()
        .map(rpc_id)
        .unwrap_or_default();
    let (from, to, time) = (
        e.from.to_string(),
        e.to.to_string(),
        nanos(e.time).to_string(),
    );
    ids::span_id(
        &ctx.trace,
        "mcp",
        &[
            from.as_bytes(),
            to.as_bytes(),
            time.as_bytes(),
            id.as_bytes(),
        ],
    )
}

/// `jsonrpc.request.id`: the id in its string form (a string id without quotes).
fn rpc_id(id: &RpcId) -> String {
    match id {
        RpcId::String(s) => s.to_string(),
        other => other.to_string(),
    }
}

/// `error.type` and the status description of the response at `r`: the JSON-RPC error code and
/// message, or `tool_error` for a `CallToolResult` with `isError: true`.
pub(super) fn error_of(ctx: &Ctx<'_>, r: usize) -> Option<(String, String)> {
    let d = &ctx.report.rpc.derived[r];
    if let Some((code, message)) = d.error() {
        return Some((code.to_string(), message.to_string()));
    }
    let e = &ctx.events[r];
    if d.kind == Kind::Response && e.text().contains("\"isError\"") {
        let is_error = json(e)
            .and_then(|v| v.pointer("/result/isError").and_then(Value::as_bool))
            .unwrap_or(false);
        if is_error {
            return Some(("tool_error".into(), String::new()));
        }
    }
    None
}

fn session_id(events: [Option<&Event>; 2]) -> Option<String> {
    events.into_iter().flatten().find_map(|e| {
        e.http()?.headers.iter().find_map(|(k, v)| {
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.to_string())
        })
    })
}

/// What every MCP span and zero-length notification span carries about its connection.
fn connection(attrs: &mut Vec<KeyValue>, ctx: &Ctx<'_>, i: usize, answer: Option<usize>) {
    let e = &ctx.events[i];
    let d = &ctx.report.rpc.derived[i];
    if let Some(method) = &d.method {
        attrs.push(kv("mcp.method.name", &**method));
    }
    opt(attrs, "mcp.protocol.version", d.revision.as_deref());
    if e.channel == Channel::Http {
        attrs.push(kv("network.transport", "tcp"));
        attrs.push(kv("network.protocol.name", "http"));
        opt(
            attrs,
            "mcp.session.id",
            session_id([Some(e), answer.map(|r| &ctx.events[r])]),
        );
        if e.to.is_server() {
            server_address(attrs, e.http().and_then(|h| h.url.as_deref()));
        }
    } else {
        attrs.push(kv("network.transport", "pipe"));
    }
    if let Some(server) = e.to.server_name().or(e.from.server_name()) {
        attrs.push(kv("sightline.server.name", server));
    }
}

pub(super) fn spans(ctx: &Ctx<'_>, tools: &[ToolSpan]) -> Vec<Mapped> {
    let derived = &ctx.report.rpc.derived;
    let parent_tool: HashMap<usize, Vec<u8>> = tools
        .iter()
        .filter_map(|t| Some((t.tools_call?, t.mapped.span.span_id.clone())))
        .collect();
    let mut out: Vec<Mapped> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut by_request: HashMap<usize, usize> = HashMap::new();
    let last = ctx.end;

    for (i, e) in ctx.events.iter().enumerate() {
        let d = &derived[i];
        if d.kind != Kind::Request || !e.channel.carries_jsonrpc() {
            continue;
        }
        let Some((server, from_client)) = server_of(e) else {
            continue;
        };
        let message = json(e);
        let params = message.as_ref().and_then(|m| m.get("params"));
        let method = d.method.as_deref().unwrap_or_default();
        let until = match &d.pairing {
            Pairing::AnsweredBy(seq) | Pairing::Cancelled(seq) => {
                ctx.later(*seq, i).unwrap_or(usize::MAX)
            }
            Pairing::Unanswered(why) => closed_by(ctx, why, i).unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        let (answer, end, unanswered) = match &d.pairing {
            Pairing::AnsweredBy(seq) => match ctx.later(*seq, i) {
                Some(r) => (Some(r), nanos(ctx.events[r].time), None),
                None => (
                    None,
                    last,
                    Some(("unanswered", "no response was recorded".into())),
                ),
            },
            Pairing::Cancelled(seq) => (
                None,
                ctx.later(*seq, i)
                    .map_or(last, |c| nanos(ctx.events[c].time)),
                Some(("cancelled", "cancelled by the sender".to_string())),
            ),
            Pairing::Unanswered(why) => (
                None,
                closed_by(ctx, why, i).map_or(last, |c| nanos(ctx.events[c].time)),
                Some(("unanswered", why.to_string())),
            ),
            _ => (
                None,
                last,
                Some(("unanswered", "no response was recorded".into())),
            ),
        };
        let start = nanos(e.time);

        let mut attributes = Vec::new();
        connection(&mut attributes, ctx, i, answer);
        if let Some(id) = &d.id {
            attributes.push(kv("jsonrpc.request.id", rpc_id(id)));
        }
        let name_param = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let target = match method {
            "tools/call" => {
                attributes.push(kv("gen_ai.operation.name", "execute_tool"));
                opt(&mut attributes, "gen_ai.tool.name", name_param.clone());
                name_param
            }
            "prompts/get" => {
                opt(&mut attributes, "gen_ai.prompt.name", name_param.clone());
                name_param
            }
            _ => None,
        };
        if matches!(
            method,
            "resources/read" | "resources/subscribe" | "resources/unsubscribe"
        ) {
            let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
            opt(&mut attributes, "mcp.resource.uri", uri);
        }
        let mut status = None;
        if let Some(r) = answer {
            if let Some((kind, message)) = error_of(ctx, r) {
                if kind != "tool_error" {
                    attributes.push(kv("rpc.response.status_code", kind.clone()));
                }
                attributes.push(kv("error.type", kind));
                status = error_status(&message);
            }
            if derived[r].input_required {
                attributes.push(kv("sightline.mcp.input_required", true));
            }
        } else if let Some((kind, why)) = unanswered {
            attributes.push(kv("error.type", kind));
            status = error_status(&why);
        }
        if ctx.options.content {
            content(
                &mut attributes,
                method,
                params,
                answer.map(|r| &ctx.events[r]),
            );
        }

        // The parent: a caller's traceparent, the execute_tool span, the client request a
        // server request arrived during, or the root.
        let meta = params.and_then(|p| p.get("_meta"));
        let caller = meta
            .and_then(|m| m.get("traceparent"))
            .and_then(Value::as_str)
            .and_then(ids::parse_traceparent);
        // Besides the request, what a live stream must keep to map this span again the same
        // way while it is in flight: the request it nests in, the leg it retries.
        let mut context = Vec::new();
        let mut trace_id = ctx.trace.to_vec();
        let mut trace_state = String::new();
        let mut links = Vec::new();
        let parent = if let Some(caller) = caller {
            trace_id = caller.trace_id.to_vec();
            trace_state = meta
                .and_then(|m| m.get("tracestate"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            links.push(span::Link {
                trace_id: ctx.trace.to_vec(),
                span_id: ctx.root.to_vec(),
                attributes: vec![kv("sightline.link", "recording")],
                ..span::Link::default()
            });
            caller.span_id.to_vec()
        } else if let Some(tool) = parent_tool.get(&i) {
            tool.clone()
        } else if !from_client && let Some(o) = innermost(&open, &server, true, i) {
            context.push(o.request);
            out[o.span].span.span_id.clone()
        } else {
            ctx.root.to_vec()
        };
        if let Some(prev) = d.retry_of().and_then(|seq| ctx.earlier(seq, i)) {
            context.push(prev);
            links.push(span::Link {
                trace_id: ctx.trace.to_vec(),
                span_id: span_id_of(ctx, prev).to_vec(),
                attributes: vec![kv("sightline.link", "input_required retry of")],
                ..span::Link::default()
            });
        }
        let name = match target {
            Some(t) => format!("{method} {t}"),
            None => method.to_string(),
        };
        by_request.insert(i, open.len());
        open.push(Open {
            request: i,
            until,
            server,
            from_client,
            span: out.len(),
        });
        // Still in flight when the events end: a live stream waits for the answer.
        let pending = matches!(&d.pairing, Pairing::Unanswered(why) if *why == PENDING_AT_END);
        let waits = if pending {
            std::iter::once(i).chain(context).collect()
        } else {
            Vec::new()
        };
        let span = Span {
            trace_id,
            span_id: span_id_of(ctx, i).to_vec(),
            trace_state,
            parent_span_id: parent,
            name,
            kind: if from_client {
                span::SpanKind::Client as i32
            } else {
                span::SpanKind::Server as i32
            },
            start_time_unix_nano: start,
            end_time_unix_nano: end.max(start),
            attributes,
            links,
            status,
            ..Span::default()
        };
        out.push(Mapped {
            span,
            waits,
            notification: None,
        });
    }

    notify::notifications(ctx, &open, &by_request, &mut out);
    out
}

/// The event that closed a request that can no longer be answered: the analysis names it in
/// the reason (`the server exited first (event #12)`, `its id was reused by event #12 ...`).
/// `None` for one still pending when the events end: it ends with the trace. (Should that
/// wording change, live spans would end elsewhere than the file's: the tool-heavy test in
/// tests/otlp_live.rs compares them.)
fn closed_by(ctx: &Ctx<'_>, why: &str, request: usize) -> Option<usize> {
    if why == PENDING_AT_END {
        return None;
    }
    let (_, rest) = why.split_once("event #")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    ctx.later(digits.parse().ok()?, request)
}

/// The server request an LLM request at `i` was made for: the latest `sampling/createMessage`
/// from server `name` recorded before it and not answered by then, else (a 2026-07-28 server
/// asks through an `input_required` result) the latest client request to it still open or
/// answered with `input_required`.
pub(super) fn sampling_request(ctx: &Ctx<'_>, name: &str, i: usize) -> Option<usize> {
    let derived = &ctx.report.rpc.derived;
    let open_at = |j: usize| match &derived[j].pairing {
        Pairing::AnsweredBy(seq) | Pairing::Cancelled(seq) => ctx
            .later(*seq, j)
            .is_none_or(|r| r > i || derived[r].input_required),
        _ => true,
    };
    let candidates = || {
        (0..i).rev().take(100_000).filter(|&j| {
            derived[j].kind == Kind::Request && ctx.events[j].channel.carries_jsonrpc()
        })
    };
    let sampling = candidates().find(|&j| {
        derived[j].method.as_deref() == Some("sampling/createMessage")
            && ctx.events[j].from.server_name() == Some(name)
            && open_at(j)
    });
    sampling.or_else(|| {
        candidates().find(|&j| ctx.events[j].to.server_name() == Some(name) && open_at(j))
    })
}

/// The latest request on `server` (sent by the client when `from_client`) recorded before the
/// event at `i` and not yet answered by then.
fn innermost<'o>(open: &'o [Open], server: &Lane, from_client: bool, i: usize) -> Option<&'o Open> {
    let before = open.partition_point(|o| o.request < i);
    open[..before]
        .iter()
        .rev()
        .take(256)
        .find(|o| o.from_client == from_client && &o.server == server && i < o.until)
}

/// Opt-in content: a tool call's arguments and result, a prompt's variables.
fn content(
    attrs: &mut Vec<KeyValue>,
    method: &str,
    params: Option<&Value>,
    answer: Option<&Event>,
) {
    match method {
        "tools/call" => {
            let args = params
                .and_then(|p| p.get("arguments"))
                .map(Value::to_string);
            opt(attrs, "gen_ai.tool.call.arguments", args);
            let result = answer
                .and_then(json)
                .and_then(|v| v.get("result").map(Value::to_string));
            opt(attrs, "gen_ai.tool.call.result", result);
        }
        "prompts/get" => {
            if let Some(args) = params
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object)
            {
                for (k, v) in args {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    attrs.push(kv(&format!("gen_ai.prompt.variable.{k}"), v));
                }
            }
        }
        _ => {}
    }
}
