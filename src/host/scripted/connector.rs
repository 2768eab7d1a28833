//! The scripted model as an API that is itself the MCP client: Anthropic's MCP connector, and
//! OpenAI Responses' `mcp` tools (an `mcp_list_tools` item per server, an `mcp_call` item per
//! call, ids `mcpl_sl_<turn>_<k>` and `mcp_sl_<turn>_<n>`; streamed as `response.created` then
//! `response.completed` with the whole response).
//!
//! A Messages request with `mcp_servers` hands the API remote MCP servers; the platform's own
//! MCP client connects to each, lists its tools, and the model may call them inside one answer:
//! the answer holds an `mcp_tool_use` block per call (`id` `mcptoolu_sl_<turn>_<n>`, `name`,
//! `server_name`, `input`) and an `mcp_tool_result` block with what the server answered, and the
//! model goes on from there as if a turn had passed. So does this one, and its client is real:
//! over Streamable HTTP, `initialize`, `notifications/initialized`, `tools/list`, then a
//! `tools/call` per call, JSON or SSE answers alike. It never asks for resources or prompts:
//! only tools cross (the connector's own limit).
//!
//! How it plays the script: from the request's step on, each `call` step whose tools all are a
//! declared server's (in its list, allowed by its `tool_configuration` or toolset) is made by
//! the client and written as those two blocks; the first other step is answered as usual, its
//! `{result}` filled from the calls just made. A later request counts each earlier answer's
//! connector steps as turns (by the `mcptoolu_sl_<turn>_` ids), so the script goes on where it
//! stopped.
//!
//! An `mcp_servers` entry that is not `{"type": "url"}` with an `http(s)://` URL (a desktop
//! host's `command` entry, a `stdio:` URL) is refused as the API refuses it, with HTTP 400 and
//! the documentation's reason: "Local STDIO servers cannot be connected directly". A server
//! that cannot be reached is refused too, naming it.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::read;
use super::script::{Script, Step};
use super::shapes;
use super::{RequestError, answer_in};
use crate::wire::api::ApiShape;
use crate::wire::remote;
use crate::wire::sse::SseParser;

/// The protocol revision the API's MCP client speaks.
const REVISION: &str = "2025-11-25";

/// The API's answer to `request`, when it hands the API remote servers: the non-streamed
/// body (or the request's refusal); `None` for any other request.
pub(super) async fn answer(
    script: &Script,
    shape: ApiShape,
    request: &Value,
) -> Option<Result<Value, RequestError>> {
    let entries: Vec<&Value> = match shape {
        ApiShape::Anthropic => request.get("mcp_servers")?.as_array()?.iter().collect(),
        ApiShape::Openai => {
            let tools = request.get("tools")?.as_array()?.iter();
            tools.filter(|t| remote::is_declaration(t)).collect()
        }
        ApiShape::OpenaiChat | ApiShape::Gemini => return None,
    };
    if entries.is_empty() {
        return None;
    }
    Some(play(script, shape, request, &entries).await)
}

async fn play(
    script: &Script,
    shape: ApiShape,
    request: &Value,
    entries: &[&Value],
) -> Result<Value, RequestError> {
    refuse_local(shape, entries)?;
    let mut conversation = read::read(shape, request)?;
    conversation.turn += connector_turns(request);
    let tools = request.get("tools").and_then(Value::as_array);
    let declared = remote::declared(request, tools.map_or(&[][..], Vec::as_slice));
    let http = crate::tap::client::http()
        .no_proxy()
        .build()
        .map_err(|e| RequestError::Invalid(format!("the MCP client cannot start: {e}")))?;
    let mut clients = Vec::with_capacity(declared.len());
    let mut listings = Vec::new();
    for server in &declared {
        let url = server.url.as_deref().unwrap_or_default();
        let unreachable = |why: String| {
            RequestError::Invalid(format!(
                "{}: cannot connect to MCP server `{}`: {why}",
                server.at, server.name
            ))
        };
        let mut client = Client::connect(http.clone(), url)
            .await
            .map_err(unreachable)?;
        let listed = client.request("tools/list", json!({})).await;
        let listed = listed.map_err(unreachable)?;
        let listed = listed.get("tools").and_then(Value::as_array);
        let allowed = |t: &&Value| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            server
                .allowed
                .as_ref()
                .is_none_or(|a| a.iter().any(|x| x == name))
        };
        let listed: Vec<&Value> = listed.into_iter().flatten().filter(allowed).collect();
        let names = listed
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str));
        let tools: Vec<String> = names.map(str::to_string).collect();
        // Responses says what the client listed, as an output item of its own.
        if shape == ApiShape::Openai {
            let listed: Vec<Value> = listed
                .iter()
                .map(|t| {
                    json!({
                        "name": t.get("name"),
                        "description": t.get("description"),
                        "input_schema": t.get("inputSchema"),
                        "annotations": t.get("annotations"),
                    })
                })
                .collect();
            let id = format!("mcpl_sl_{}_{}", conversation.turn, clients.len());
            listings.push(json!({"id": id, "type": "mcp_list_tools",
                "server_label": server.name, "tools": listed, "error": null}));
        }
        clients.push((server.name.clone(), tools, client));
    }
    let mut blocks = listings;
    while let Some(Step::Call { say, calls, .. }) = script.steps.get(conversation.turn) {
        let owner = |tool: &str| {
            let has =
                |(_, tools, _): &(String, Vec<String>, Client)| tools.iter().any(|t| t == tool);
            clients.iter().position(has)
        };
        let owners: Option<Vec<usize>> = calls.iter().map(|c| owner(&c.tool)).collect();
        let Some(owners) = owners else { break };
        let turn = conversation.turn;
        if let Some(say) = say.as_ref().filter(|s| !s.is_empty())
            && shape == ApiShape::Anthropic
        {
            blocks.push(json!({"type": "text", "text": say}));
        }
        let mut results = Vec::with_capacity(calls.len());
        for (n, (call, k)) in calls.iter().zip(owners).enumerate() {
            let (server, _, client) = &mut clients[k];
            let id = match shape {
                ApiShape::Anthropic => format!("mcptoolu_sl_{turn}_{n}"),
                _ => format!("mcp_sl_{turn}_{n}"),
            };
            if shape == ApiShape::Anthropic {
                blocks.push(json!({
                    "type": "mcp_tool_use",
                    "id": id,
                    "name": call.tool,
                    "server_name": server,
                    "input": call.arguments,
                }));
            }
            let params = json!({"name": call.tool, "arguments": call.arguments});
            let (content, is_error) = match client.request("tools/call", params).await {
                Ok(result) => {
                    let error = result.get("isError") == Some(&Value::Bool(true));
                    (text_blocks(&result), error)
                }
                Err(why) => (vec![json!({"type": "text", "text": why})], true),
            };
            let text = joined(&content);
            results.push(text.clone());
            blocks.push(match shape {
                ApiShape::Anthropic => json!({
                    "type": "mcp_tool_result",
                    "tool_use_id": id,
                    "is_error": is_error,
                    "content": content,
                }),
                _ => json!({
                    "id": id,
                    "type": "mcp_call",
                    "server_label": server,
                    "name": call.tool,
                    "arguments": Value::Object(call.arguments.clone()).to_string(),
                    "output": (!is_error).then(|| text.clone()),
                    "error": is_error.then_some(text),
                    "approval_request_id": null,
                    "status": "completed",
                }),
            });
        }
        conversation.turn += 1;
        conversation.results = results;
    }
    let rest = answer_in(script, conversation, None)?;
    let mut body = shapes::body(shape, &rest);
    let field = match shape {
        ApiShape::Anthropic => "content",
        _ => "output",
    };
    if let Some(content) = body.get_mut(field).and_then(Value::as_array_mut) {
        blocks.append(content);
        *content = blocks;
    }
    Ok(body)
}

/// The refusal of a local server: an entry that is not a URL the API can reach over HTTP.
fn refuse_local(shape: ApiShape, entries: &[&Value]) -> Result<(), RequestError> {
    let (field, key, kind) = match shape {
        ApiShape::Anthropic => ("mcp_servers", "url", "url"),
        _ => ("tools", "server_url", "mcp"),
    };
    for (i, entry) in entries.iter().enumerate() {
        let url = entry.get(key).and_then(Value::as_str).unwrap_or_default();
        let http = url.starts_with("http://") || url.starts_with("https://");
        let typed = entry.get("type").and_then(Value::as_str) == Some(kind);
        if !typed || !http || entry.get("command").is_some() {
            let name = ["name", "server_label"]
                .iter()
                .find_map(|k| entry.get(*k).and_then(Value::as_str))
                .unwrap_or("?");
            return Err(RequestError::Invalid(format!(
                "{field}[{i}] ({name}): Local STDIO servers cannot be connected directly. \
                 The API reaches remote MCP servers by URL ({key}: http:// or https://), over \
                 Streamable HTTP or SSE."
            )));
        }
    }
    Ok(())
}

/// The connector steps earlier answers played, each a turn of the script though the host
/// sees one assistant message per answer: the distinct `<turn>`s of the `mcptoolu_sl_<turn>_<n>`
/// ids in the assistant messages (the message itself is the answer's last step).
fn connector_turns(request: &Value) -> usize {
    let messages = request.get("messages").and_then(Value::as_array);
    let assistant = messages
        .into_iter()
        .flatten()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
    let blocks = assistant.filter_map(|m| m.get("content").and_then(Value::as_array));
    let ids = blocks
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("mcp_tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str));
    let turns: BTreeSet<&str> = ids
        .filter_map(|id| id.strip_prefix("mcptoolu_sl_")?.rsplit_once('_'))
        .map(|(turn, _)| turn)
        .collect();
    turns.len()
}

/// A `CallToolResult`'s content as the text blocks an `mcp_tool_result` holds (other blocks
/// described in a word).
fn text_blocks(result: &Value) -> Vec<Value> {
    let content = result.get("content").and_then(Value::as_array);
    content
        .into_iter()
        .flatten()
        .map(|block| match block.get("text").and_then(Value::as_str) {
            Some(text) => json!({"type": "text", "text": text}),
            None => {
                let kind = block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("content");
                json!({"type": "text", "text": format!("[{kind}]")})
            }
        })
        .collect()
}

fn joined(blocks: &[Value]) -> String {
    let texts = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str));
    texts.collect::<Vec<_>>().join("\n")
}

/// The API's MCP client of one server: JSON-RPC over Streamable HTTP, in a session.
struct Client {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
    next_id: u64,
}

impl Client {
    /// `initialize`, then `notifications/initialized`.
    async fn connect(http: reqwest::Client, url: &str) -> Result<Client, String> {
        let mut client = Client {
            http,
            url: url.to_string(),
            session: None,
            next_id: 0,
        };
        let params = json!({
            "protocolVersion": REVISION,
            "capabilities": {},
            "clientInfo": {"name": "sightline-scripted-api", "version": env!("CARGO_PKG_VERSION")},
        });
        client.request("initialize", params).await?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        client.post(&initialized, None).await?;
        Ok(client)
    }

    /// One request; its `result`, or the error it got (an error answer's message).
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = self.post(&message, Some(id)).await?;
        let answer = answer.ok_or_else(|| format!("no answer to {method}"))?;
        if let Some(error) = answer.get("error") {
            let text = error.get("message").and_then(Value::as_str);
            return Err(text.map_or_else(|| error.to_string(), str::to_string));
        }
        Ok(answer.get("result").cloned().unwrap_or(Value::Null))
    }

    /// POSTs `message`; the answer with id `id` (JSON or one of the SSE stream's events).
    async fn post(&mut self, message: &Value, id: Option<u64>) -> Result<Option<Value>, String> {
        let mut sending = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if let Some(session) = &self.session {
            sending = sending
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", REVISION);
        }
        let response = sending
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        let status = response.status();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_string);
        }
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let bytes = response
            .bytes()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if !status.is_success() {
            return Err(format!("HTTP {}", status.as_u16()));
        }
        let Some(id) = id else {
            return Ok(None);
        };
        let messages: Vec<Value> = match sse {
            true => SseParser::parse(&bytes)
                .iter()
                .filter_map(|event| serde_json::from_str(&event.data).ok())
                .collect(),
            false => serde_json::from_slice(&bytes).into_iter().collect(),
        };
        Ok(messages
            .into_iter()
            .find(|m| m.get("id") == Some(&json!(id))))
    }
}

/// A non-streamed Messages body as the event stream a `"stream": true` request gets: the
/// `message_start`, each block (text as `text_delta`, an `mcp_tool_use`'s input as one
/// `input_json_delta`, an `mcp_tool_result` whole in its start), the `message_delta` with the
/// stop reason and usage, `message_stop`.
pub(super) fn events(shape: ApiShape, body: &Value) -> Vec<String> {
    if shape == ApiShape::Openai {
        return responses_events(body);
    }
    let named = |event: &str, data: Value| format!("event: {event}\ndata: {data}\n\n");
    let mut start = body.clone();
    let blocks = start
        .get_mut("content")
        .map(Value::take)
        .and_then(|c| match c {
            Value::Array(blocks) => Some(blocks),
            _ => None,
        })
        .unwrap_or_default();
    let stop = start.get("stop_reason").cloned().unwrap_or(Value::Null);
    let usage = start.get("usage").cloned().unwrap_or(Value::Null);
    if let Some(fields) = start.as_object_mut() {
        fields.insert("content".into(), json!([]));
        fields.insert("stop_reason".into(), Value::Null);
    }
    let mut out = vec![named(
        "message_start",
        json!({"type": "message_start", "message": start}),
    )];
    for (index, block) in blocks.into_iter().enumerate() {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (opening, delta) = match kind {
            "text" => (
                json!({"type": "text", "text": ""}),
                Some(json!({"type": "text_delta", "text": block.get("text")})),
            ),
            "mcp_tool_use" => {
                let mut opening = block.clone();
                let input = opening.get_mut("input").map(Value::take);
                if let Some(fields) = opening.as_object_mut() {
                    fields.insert("input".into(), Value::Object(Map::new()));
                }
                let partial = input.map_or_else(String::new, |i| i.to_string());
                let delta = json!({"type": "input_json_delta", "partial_json": partial});
                (opening, Some(delta))
            }
            _ => (block, None),
        };
        out.push(named(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": opening}),
        ));
        if let Some(delta) = delta {
            out.push(named(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        out.push(named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    out.push(named(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": usage}),
    ));
    out.push(named("message_stop", json!({"type": "message_stop"})));
    out
}

/// A Responses body as a stream: `response.created` (in progress, no output yet), then
/// `response.completed` with the whole response, which is what a host reassembles.
fn responses_events(body: &Value) -> Vec<String> {
    let mut starting = body.clone();
    if let Some(fields) = starting.as_object_mut() {
        fields.insert("status".into(), "in_progress".into());
        fields.insert("output".into(), json!([]));
    }
    let event = |kind: &str, n: usize, response: &Value| {
        let data = json!({"type": kind, "sequence_number": n, "response": response});
        format!("event: {kind}\ndata: {data}\n\n")
    };
    vec![
        event("response.created", 0, &starting),
        event("response.completed", 1, body),
    ]
}
