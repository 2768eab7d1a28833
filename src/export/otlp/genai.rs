//! The GenAI half: the `invoke_agent` root, `chat {model}` per LLM exchange (`generate_content
//! {model}` for Gemini, the operation the conventions name for it), and `execute_tool {tool}`
//! per model tool call (from [`crate::analysis::CallChain`]) and per call an LLM API made itself
//! as a remote server's MCP client.

use std::collections::HashMap;

use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind};
use serde_json::{Value, json};

use super::{Ctx, Mapped, Val, error_status, ids, kv, nanos, opt, server_address};
use crate::analysis::{LlmExchange, LlmRole};
use crate::trace::{Header, PENDING_AT_END, Pairing};
use crate::wire::api::ApiShape;
use crate::wire::remote::StepKind;

/// The root: one per recording (a `run`, a proxy's file, a session), from its first event to
/// its last. Sightline's own host is the agent `sightline`; an external host has no name here.
pub(super) fn root(ctx: &Ctx<'_>, header: &Header) -> Span {
    let start = ctx.events.iter().map(|e| e.time).min();
    let end = ctx.events.iter().map(|e| e.time).max();
    let ours = header.extra.contains_key("scenario");
    let mut attributes = vec![kv("gen_ai.operation.name", "invoke_agent")];
    if ours {
        attributes.push(kv("gen_ai.agent.name", "sightline"));
    }
    attributes.push(kv("sightline.trace.title", header.title.as_str()));
    if let Some(session) = header.extra.get("session").and_then(Value::as_str) {
        attributes.push(kv("sightline.session", session));
    }
    Span {
        trace_id: ctx.trace.to_vec(),
        span_id: ctx.root.to_vec(),
        name: if ours {
            "invoke_agent sightline".into()
        } else {
            "invoke_agent".into()
        },
        kind: SpanKind::Internal as i32,
        start_time_unix_nano: start.map_or(0, nanos),
        end_time_unix_nano: end.map_or(0, nanos),
        attributes,
        ..Span::default()
    }
}

/// An `execute_tool` span and the `tools/call` request it is the parent of.
pub(super) struct ToolSpan {
    pub mapped: Mapped,
    pub tools_call: Option<usize>,
}

/// One `execute_tool` span per model tool call: from the response that asked for it to the
/// server's answer (or to the `tools/call`, or the ask itself, when the trace ends earlier).
pub(super) fn execute_tools(ctx: &Ctx<'_>) -> Vec<ToolSpan> {
    let derived = &ctx.report.rpc.derived;
    let llm = &ctx.report.llm;
    // The `tools/call`s (and answers) of each asking response: while one call of a turn is in
    // flight, a live stream keeps them all, so its calls are matched again the same way.
    let mut turns: HashMap<usize, Vec<usize>> = HashMap::new();
    for chain in &ctx.report.chains {
        let calls = turns.entry(chain.asked_in).or_default();
        calls.extend(chain.tools_call.into_iter().chain(chain.tools_result));
    }
    ctx.report
        .chains
        .iter()
        .map(|chain| {
            let asked = &ctx.events[chain.asked_in];
            let last = chain
                .tools_result
                .or(chain.tools_call)
                .unwrap_or(chain.asked_in);
            let key_time = nanos(asked.time).to_string();
            let mut attributes = vec![
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", chain.tool.as_str()),
                kv("gen_ai.tool.call.id", chain.call_id.as_str()),
                kv("gen_ai.tool.type", "extension"),
            ];
            let server = chain
                .tools_call
                .and_then(|i| ctx.events[i].to.server_name().map(str::to_string));
            opt(&mut attributes, "sightline.server.name", server);
            let error = chain
                .tools_result
                .and_then(|r| super::mcp::error_of(ctx, r))
                .map(|(kind, _)| kind);
            let status = error.as_ref().and_then(|_| error_status(""));
            opt(&mut attributes, "error.type", error);
            // In flight while more events can change it: its `tools/call` is still unanswered,
            // or none was found yet and the host has not asked the model again (the host
            // sends a turn's calls before its next LLM request). A call the server never
            // answered (it exited, the host cancelled) is complete: it ends where the file's
            // export ends it. The asking exchange and the turn's calls are kept to map it again.
            let asking = match ctx.report.llm_of(chain.asked_in) {
                Some((n, LlmRole::Response)) => Some(n),
                _ => None,
            };
            let in_flight = match chain.tools_call {
                Some(call) => {
                    chain.tools_result.is_none()
                        && matches!(&derived[call].pairing, Pairing::Unanswered(why) if *why == PENDING_AT_END)
                }
                None => asking.is_none_or(|n| n + 1 == llm.len()),
            };
            let waits = if in_flight {
                asking
                    .map(|n| llm[n].request)
                    .into_iter()
                    .chain([chain.asked_in])
                    .chain(turns.get(&chain.asked_in).into_iter().flatten().copied())
                    .collect()
            } else {
                Vec::new()
            };
            let span = Span {
                trace_id: ctx.trace.to_vec(),
                span_id: ids::span_id(
                    &ctx.trace,
                    "execute_tool",
                    &[chain.call_id.as_bytes(), key_time.as_bytes()],
                )
                .to_vec(),
                parent_span_id: ctx.root.to_vec(),
                name: format!("execute_tool {}", chain.tool),
                kind: SpanKind::Internal as i32,
                start_time_unix_nano: nanos(asked.time),
                end_time_unix_nano: nanos(ctx.events[last].time),
                attributes,
                status,
                ..Span::default()
            };
            ToolSpan {
                mapped: Mapped {
                    span,
                    waits,
                    notification: None,
                },
                tools_call: chain.tools_call,
            }
        })
        .collect()
}

/// One `execute_tool {tool}` span per call an LLM API made itself as the MCP client of a
/// remote server (Anthropic's `mcp_tool_use`, OpenAI's `mcp_call`), under the `chat` span of
/// the exchange that holds it, with the MCP attributes of its `tools/call`: the trace has only
/// the API's word for it, so it spans the exchange. Where the trace also recorded the server,
/// the `tools/call` it caused ([`crate::analysis::RemoteChain`]) is its child, as a host's is.
pub(super) fn remote_tools(ctx: &Ctx<'_>) -> Vec<ToolSpan> {
    let mut out = Vec::new();
    let joined = ctx.report.remote_chains(ctx.events);
    for (n, x) in ctx.report.llm.iter().enumerate() {
        let Some(response) = x.response else { continue };
        let chat = chat(ctx, x);
        let called = x.remote.iter().enumerate();
        for (k, step) in called.filter(|(_, s)| s.kind == StepKind::Call) {
            let tools_call = joined
                .iter()
                .find(|c| c.exchange == n && c.step == k)
                .and_then(|c| c.tools_call);
            let tool = step.tool.as_deref().unwrap_or_default();
            let mut attributes = vec![
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", tool),
                kv("gen_ai.tool.call.id", step.id.as_str()),
                kv("gen_ai.tool.type", "extension"),
                kv("mcp.method.name", "tools/call"),
                kv("sightline.mcp.client", "llm-api"),
            ];
            opt(
                &mut attributes,
                "sightline.server.name",
                step.server.clone(),
            );
            let declared = x
                .remote_servers
                .iter()
                .find(|d| step.server.as_deref() == Some(d.name.as_str()));
            server_address(&mut attributes, declared.and_then(|d| d.url.as_deref()));
            let status = step.error.as_ref().and_then(|_| error_status(""));
            if step.error.is_some() {
                attributes.push(kv("error.type", "tool_error"));
            }
            let span_id = ids::span_id(
                &ctx.trace,
                "execute_tool",
                &[step.id.as_bytes(), &chat.span_id],
            );
            let mapped = Mapped {
                span: Span {
                    trace_id: ctx.trace.to_vec(),
                    span_id: span_id.to_vec(),
                    parent_span_id: chat.span_id.clone(),
                    name: format!("execute_tool {tool}"),
                    kind: SpanKind::Internal as i32,
                    start_time_unix_nano: chat.start_time_unix_nano,
                    end_time_unix_nano: nanos(ctx.events[response].time),
                    attributes,
                    status,
                    ..Span::default()
                },
                waits: Vec::new(),
                notification: None,
            };
            out.push(ToolSpan { mapped, tools_call });
        }
    }
    out
}

/// One `chat {model}` CLIENT span per LLM exchange: the agent loop's under the root, and those
/// the host made for a server's `sampling/createMessage` under that server request's span.
pub(super) fn chats(ctx: &Ctx<'_>) -> Vec<Mapped> {
    let turns = ctx.report.llm.iter().map(|x| (x, None));
    let sampling = ctx.report.sampling.iter().map(|x| {
        let server = x.sampling_for.as_deref().unwrap_or_default();
        let parent = super::mcp::sampling_request(ctx, server, x.request);
        (x, parent)
    });
    turns
        .chain(sampling)
        .map(|(x, parent)| {
            let mut span = chat(ctx, x);
            if let Some(parent) = parent {
                span.parent_span_id = super::mcp::span_id_of(ctx, parent).to_vec();
            }
            Mapped {
                span,
                // In flight until the model answers; a sampling exchange keeps the server
                // request it is nested in.
                waits: if x.response.is_none() {
                    std::iter::once(x.request).chain(parent).collect()
                } else {
                    Vec::new()
                },
                notification: None,
            }
        })
        .collect()
}

/// The `gen_ai.provider.name` of an API shape: the provider whose wire format it is (a Chat
/// Completions request to Ollama or vLLM is still `openai` on the wire; the Gemini API is
/// `gcp.gemini`, the conventions' name for Google's Generative Language API).
fn provider(shape: Option<ApiShape>) -> &'static str {
    match shape {
        Some(ApiShape::Anthropic) => "anthropic",
        Some(ApiShape::Openai | ApiShape::OpenaiChat) => "openai",
        Some(ApiShape::Gemini) => "gcp.gemini",
        None => "unknown",
    }
}

/// The `gen_ai.operation.name` of an exchange: `generate_content` for Gemini ("such as Gemini
/// Generate Content" in the conventions), `chat` for the others.
fn operation(shape: Option<ApiShape>) -> &'static str {
    match shape {
        Some(ApiShape::Gemini) => "generate_content",
        _ => "chat",
    }
}

fn chat(ctx: &Ctx<'_>, x: &LlmExchange) -> Span {
    let request = &ctx.events[x.request];
    let response = x.response.map(|r| &ctx.events[r]);
    let op = operation(x.shape);
    let mut attributes = vec![
        kv("gen_ai.operation.name", op),
        kv("gen_ai.provider.name", provider(x.shape)),
    ];
    opt(&mut attributes, "gen_ai.request.model", x.model.clone());
    opt(&mut attributes, "gen_ai.request.max_tokens", x.max_tokens);
    opt(&mut attributes, "gen_ai.request.temperature", x.temperature);
    opt(&mut attributes, "gen_ai.request.top_p", x.top_p);
    opt(
        &mut attributes,
        "gen_ai.response.model",
        x.response_model.clone(),
    );
    opt(&mut attributes, "gen_ai.response.id", x.response_id.clone());
    if let Some(reason) = &x.stop_reason {
        attributes.push(kv(
            "gen_ai.response.finish_reasons",
            Val::Strs(vec![reason.clone()]),
        ));
    }
    let u = x.usage;
    opt(&mut attributes, "gen_ai.usage.input_tokens", u.input);
    opt(&mut attributes, "gen_ai.usage.output_tokens", u.output);
    opt(
        &mut attributes,
        "gen_ai.usage.cache_read.input_tokens",
        u.cache_read,
    );
    opt(
        &mut attributes,
        "gen_ai.usage.cache_creation.input_tokens",
        u.cache_creation,
    );
    opt(
        &mut attributes,
        "gen_ai.usage.reasoning.output_tokens",
        u.reasoning,
    );
    server_address(&mut attributes, x.url.as_deref());
    opt(
        &mut attributes,
        "http.response.status_code",
        x.status.map(i64::from),
    );
    if x.streamed {
        attributes.push(kv("gen_ai.request.stream", true));
    }
    let mut status = None;
    if let Some(code) = x.status.filter(|s| *s >= 400) {
        attributes.push(kv("error.type", code.to_string()));
        status = error_status(&format!("HTTP {code}"));
    } else if response.is_none() {
        attributes.push(kv("error.type", "unanswered"));
        status = error_status("no response was recorded");
    }
    if ctx.options.content {
        content(&mut attributes, x, request.text().as_ref());
    }
    let name = match &x.model {
        Some(model) => format!("{op} {model}"),
        None => op.into(),
    };
    let key_time = nanos(request.time).to_string();
    Span {
        trace_id: ctx.trace.to_vec(),
        span_id: ids::span_id(
            &ctx.trace,
            "chat",
            &[
                key_time.as_bytes(),
                x.url.as_deref().unwrap_or("").as_bytes(),
            ],
        )
        .to_vec(),
        parent_span_id: ctx.root.to_vec(),
        name,
        kind: SpanKind::Client as i32,
        start_time_unix_nano: nanos(request.time),
        end_time_unix_nano: nanos(response.unwrap_or(request).time),
        attributes,
        status,
        ..Span::default()
    }
}

/// Opt-in content: the request's messages, system instructions and tool definitions, and the
/// response as one assistant message, in the conventions' message schema (`role`, `parts`).
fn content(
    attrs: &mut Vec<opentelemetry_proto::tonic::common::v1::KeyValue>,
    x: &LlmExchange,
    request: &str,
) {
    let Ok(body) = serde_json::from_str::<Value>(request) else {
        return;
    };
    let messages = body
        .get("messages")
        .or_else(|| body.get("input"))
        .or_else(|| body.get("contents"))
        .and_then(Value::as_array)
        .map(|m| m.iter().map(message).collect::<Vec<_>>());
    if let Some(messages) = messages {
        attrs.push(kv(
            "gen_ai.input.messages",
            Value::from(messages).to_string(),
        ));
    }
    let system = match body
        .get("system")
        .or_else(|| body.get("instructions"))
        .or_else(|| body.pointer("/systemInstruction/parts"))
    {
        Some(Value::String(s)) => Some(json!([{"type": "text", "content": s}])),
        Some(Value::Array(blocks)) => Some(Value::from(
            blocks.iter().filter_map(part).collect::<Vec<_>>(),
        )),
        _ => None,
    };
    opt(
        attrs,
        "gen_ai.system_instructions",
        system.map(|s| s.to_string()),
    );
    if !x.tool_entries.is_empty() {
        let defs: Vec<Value> = x
            .tool_entries
            .iter()
            .map(|t| {
                let f = t.get("function").unwrap_or(t);
                json!({
                    "type": "function",
                    "name": f.get("name"),
                    "description": f.get("description"),
                    "parameters": f.get("parameters")
                        .or_else(|| f.get("input_schema"))
                        .or_else(|| f.get("parametersJsonSchema")),
                })
            })
            .collect();
        attrs.push(kv("gen_ai.tool.definitions", Value::from(defs).to_string()));
    }
    if x.response.is_some() {
        let mut parts = Vec::new();
        if !x.text.is_empty() {
            parts.push(json!({"type": "text", "content": x.text}));
        }
        for (id, name, args) in &x.tool_calls {
            parts.push(json!({"type": "tool_call", "id": id, "name": name, "arguments": args}));
        }
        let out = json!([{"role": "assistant", "parts": parts, "finish_reason": x.stop_reason}]);
        attrs.push(kv("gen_ai.output.messages", out.to_string()));
    }
}

/// One provider message as `{role, parts}`: text, tool calls and tool results of the four
/// shapes (Anthropic blocks, Responses items, Chat messages, Gemini contents; Gemini's `model`
/// role is the conventions' `assistant`).
fn message(m: &Value) -> Value {
    let role = m.get("role").and_then(Value::as_str);
    if let Some(parts) = m.get("parts").and_then(Value::as_array) {
        let role = match role {
            Some("model") => "assistant",
            Some(other) => other,
            None => "user",
        };
        let parts: Vec<Value> = parts.iter().filter_map(part).collect();
        return json!({"role": role, "parts": parts});
    }
    let parts: Vec<Value> = match m.get("content") {
        _ if role == Some("tool") => vec![json!({"type": "tool_call_response",
            "id": m.get("tool_call_id"), "response": m.get("content")})],
        Some(Value::String(s)) => vec![json!({"type": "text", "content": s})],
        Some(Value::Array(blocks)) => blocks.iter().filter_map(part).collect(),
        _ => part(m).into_iter().collect(),
    };
    let mut parts = parts;
    if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
        parts.extend(calls.iter().map(|c| {
            json!({"type": "tool_call", "id": c.get("id"), "name": c.pointer("/function/name"),
                   "arguments": c.pointer("/function/arguments")})
        }));
    }
    let role = match (role, m.get("type").and_then(Value::as_str)) {
        (Some(r), _) => r,
        (None, Some("function_call")) => "assistant",
        (None, Some("function_call_output")) => "tool",
        _ => "user",
    };
    json!({"role": role, "parts": parts})
}

fn part(b: &Value) -> Option<Value> {
    // Gemini parts are typed by their one field, not by `type`.
    if let Some(call) = b.get("functionCall") {
        return Some(json!({"type": "tool_call", "id": call.get("id"),
            "name": call.get("name"), "arguments": call.get("args")}));
    }
    if let Some(response) = b.get("functionResponse") {
        return Some(
            json!({"type": "tool_call_response", "id": response.get("id"),
            "response": response.get("response")}),
        );
    }
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("text");
    Some(match kind {
        "text" | "input_text" | "output_text" => {
            json!({"type": "text", "content": b.get("text")?})
        }
        "tool_use" | "function_call" => json!({"type": "tool_call",
            "id": b.get("id").or_else(|| b.get("call_id")), "name": b.get("name"),
            "arguments": b.get("input").or_else(|| b.get("arguments"))}),
        "tool_result" | "function_call_output" => json!({"type": "tool_call_response",
            "id": b.get("tool_use_id").or_else(|| b.get("call_id")),
            "response": b.get("content").or_else(|| b.get("output"))}),
        other => json!({"type": other}),
    })
}
