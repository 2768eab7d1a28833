//! The scripted model over real HTTP on 127.0.0.1: plain and streamed answers of each shape.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::{Value, json};

use super::test_support::{
    CallSummary, Summary, first_request, follow_up, ok, parse_arguments, summary, weather,
};
use super::*;

async fn start() -> ScriptedModel {
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    match ScriptedModel::start(weather(), addr).await {
        Ok(model) => model,
        Err(error) => panic!("cannot start the scripted model: {error}"),
    }
}

/// POSTs `body` (raw bytes) and returns status, content type, request id header and body text.
async fn post(
    model: &ScriptedModel,
    path: &str,
    body: Vec<u8>,
) -> (u16, String, Option<String>, String) {
    let client = crate::tap::client::http().build().expect("client");
    let url = format!("{}{path}", model.base_url());
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await;
    let response = match response {
        Ok(response) => response,
        Err(error) => panic!("POST {url}: {error}"),
    };
    let status = response.status().as_u16();
    let header = |name: &str| {
        let value = response.headers().get(name)?;
        value.to_str().ok().map(str::to_string)
    };
    let content_type = header("content-type").unwrap_or_default();
    let request_id = header("request-id")
        .or_else(|| header("x-request-id"))
        .or_else(|| header("x-goog-request-id"));
    let text = match response.text().await {
        Ok(text) => text,
        Err(error) => panic!("reading {url}: {error}"),
    };
    (status, content_type, request_id, text)
}

fn parse(text: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => panic!("not JSON ({error}): {text}"),
    }
}

async fn post_json(model: &ScriptedModel, shape: ApiShape, request: &Value) -> Value {
    let (status, content_type, request_id, text) = post(
        model,
        &shape.endpoint_path("gemini-test", false),
        request.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(content_type, "application/json");
    assert!(request_id.is_some_and(|id| id.starts_with("req_sl_")));
    parse(&text)
}

/// The events of a server-sent event stream: (event name, data).
fn sse_events(body: &str) -> Vec<(Option<String>, String)> {
    let mut events = Vec::new();
    for block in body.split("\n\n").filter(|block| !block.trim().is_empty()) {
        let mut name = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(value) = line.strip_prefix("event: ") {
                name = Some(value.to_string());
            } else if let Some(value) = line.strip_prefix("data: ") {
                data.push_str(value);
            } else {
                panic!("unexpected SSE line {line:?}");
            }
        }
        events.push((name, data));
    }
    events
}

#[derive(Default)]
struct Partial {
    id: String,
    item_id: Option<String>,
    name: String,
    arguments: String,
    fragments: usize,
}

impl Partial {
    fn finish(self) -> CallSummary {
        assert!(
            self.fragments >= 2,
            "arguments of {} came in {} fragment(s)",
            self.name,
            self.fragments
        );
        CallSummary {
            id: self.id,
            item_id: self.item_id,
            name: self.name,
            arguments: parse_arguments(&self.arguments),
        }
    }
}

/// Gemini's SSE stream: every event a `data:` line ending in CRLF CRLF, each a whole record;
/// text pieces appended, calls whole, the last record's `finishReason`.
fn gemini_stream(body: &str) -> Summary {
    let mut text: Option<String> = None;
    let mut calls = Vec::new();
    let mut stop = String::new();
    let records: Vec<&str> = body.split("\r\n\r\n").filter(|r| !r.is_empty()).collect();
    assert!(records.len() >= 2, "{body}");
    for record in records {
        let Some(data) = record.strip_prefix("data: ") else {
            panic!("not a data line: {record:?}");
        };
        let record = parse(data);
        let candidate = &record["candidates"][0];
        for part in candidate["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(piece) = part["text"].as_str() {
                text.get_or_insert_with(String::new).push_str(piece);
            } else {
                let call = &part["functionCall"];
                let name = call["name"].as_str().unwrap_or_default().to_string();
                calls.push(CallSummary {
                    id: format!("{name}#{}", calls.len() + 1),
                    item_id: None,
                    name,
                    arguments: call["args"].clone(),
                });
            }
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            assert!(stop.is_empty(), "two finish reasons");
            stop = reason.into();
        }
    }
    Summary { text, calls, stop }
}

/// Reassembles a stream the way a host must, into the gist of the non-streamed answer.
fn reassemble(shape: ApiShape, body: &str) -> Summary {
    if shape == ApiShape::Gemini {
        return gemini_stream(body);
    }
    let events = sse_events(body);
    let mut text: Option<String> = None;
    let mut calls: BTreeMap<u64, Partial> = BTreeMap::new();
    let mut stop = String::new();
    let append = |text: &mut Option<String>, piece: &Value| {
        text.get_or_insert_with(String::new)
            .push_str(piece.as_str().unwrap_or_default());
    };
    let fragment = |partial: &mut Partial, piece: &Value| {
        let piece = piece.as_str().unwrap_or_default();
        partial.arguments.push_str(piece);
        partial.fragments += usize::from(!piece.is_empty());
    };
    match shape {
        ApiShape::Anthropic => {
            let names: Vec<&str> = events
                .iter()
                .filter_map(|(name, _)| name.as_deref())
                .collect();
            assert_eq!(names.first(), Some(&"message_start"));
            assert_eq!(names.last(), Some(&"message_stop"));
            for (name, data) in &events {
                let event = parse(data);
                assert_eq!(event["type"].as_str(), name.as_deref());
                let index = event["index"].as_u64().unwrap_or_default();
                match name.as_deref() {
                    Some("content_block_start") if event["content_block"]["type"] == "text" => {
                        text = Some(String::new());
                    }
                    Some("content_block_start") => {
                        let block = &event["content_block"];
                        let partial = Partial {
                            id: block["id"].as_str().unwrap_or_default().into(),
                            name: block["name"].as_str().unwrap_or_default().into(),
                            ..Partial::default()
                        };
                        calls.insert(index, partial);
                    }
                    Some("content_block_delta") => match event["delta"]["type"].as_str() {
                        Some("text_delta") => append(&mut text, &event["delta"]["text"]),
                        Some("input_json_delta") => match calls.get_mut(&index) {
                            Some(partial) => fragment(partial, &event["delta"]["partial_json"]),
                            None => panic!("a delta for no tool_use block: {data}"),
                        },
                        other => panic!("unexpected delta {other:?}"),
                    },
                    Some("message_delta") => {
                        stop = event["delta"]["stop_reason"]
                            .as_str()
                            .unwrap_or_default()
                            .into()
                    }
                    _ => {}
                }
            }
        }
        ApiShape::Openai => {
            let mut completed = None;
            for (number, (name, data)) in events.iter().enumerate() {
                let event = parse(data);
                assert_eq!(event["type"].as_str(), name.as_deref());
                assert_eq!(event["sequence_number"].as_u64(), Some(number as u64));
                let index = event["output_index"].as_u64().unwrap_or_default();
                match name.as_deref() {
                    Some("response.output_item.added")
                        if event["item"]["type"] == "function_call" =>
                    {
                        let item = &event["item"];
                        let partial = Partial {
                            id: item["call_id"].as_str().unwrap_or_default().into(),
                            item_id: item["id"].as_str().map(str::to_string),
                            name: item["name"].as_str().unwrap_or_default().into(),
                            ..Partial::default()
                        };
                        calls.insert(index, partial);
                    }
                    Some("response.output_text.delta") => append(&mut text, &event["delta"]),
                    Some("response.function_call_arguments.delta") => match calls.get_mut(&index) {
                        Some(partial) => fragment(partial, &event["delta"]),
                        None => panic!("a delta for no function_call item: {data}"),
                    },
                    Some("response.completed") => {
                        stop = event["response"]["status"]
                            .as_str()
                            .unwrap_or_default()
                            .into();
                        completed = Some(event["response"].clone());
                    }
                    _ => {}
                }
            }
            assert_eq!(
                events.first().and_then(|e| e.0.as_deref()),
                Some("response.created")
            );
            // The final event carries the whole response, agreeing with the deltas.
            let Some(completed) = completed else {
                panic!("no response.completed")
            };
            let whole = summary(ApiShape::Openai, &completed);
            assert_eq!(whole.text, text);
            assert_eq!(whole.calls.len(), calls.len());
        }
        ApiShape::Gemini => unreachable!("read by gemini_stream"),
        ApiShape::OpenaiChat => {
            assert_eq!(events.last().map(|e| e.1.as_str()), Some("[DONE]"));
            for (name, data) in &events[..events.len() - 1] {
                assert!(name.is_none());
                let chunk = parse(data);
                assert_eq!(chunk["object"], "chat.completion.chunk");
                let choice = &chunk["choices"][0];
                let delta = &choice["delta"];
                if delta["content"].is_string() {
                    append(&mut text, &delta["content"]);
                }
                for call in delta["tool_calls"].as_array().into_iter().flatten() {
                    let partial = calls
                        .entry(call["index"].as_u64().unwrap_or_default())
                        .or_default();
                    if let Some(id) = call["id"].as_str() {
                        partial.id = id.into();
                        partial.name = call["function"]["name"].as_str().unwrap_or_default().into();
                    }
                    fragment(partial, &call["function"]["arguments"]);
                }
                if let Some(reason) = choice["finish_reason"].as_str() {
                    stop = reason.into();
                }
            }
        }
    }
    Summary {
        text,
        calls: calls.into_values().map(Partial::finish).collect(),
        stop,
    }
}

#[tokio::test]
async fn each_shape_answers_plain_json_over_http() {
    let model = start().await;
    assert!(model.base_url().starts_with("http://127.0.0.1:"));
    assert_ne!(model.local_addr().port(), 0);
    let script = weather();
    for shape in ApiShape::ALL {
        let first = first_request(shape, &["get_weather"]);
        let body = post_json(&model, shape, &first).await;
        let gist = summary(shape, &body);
        assert_eq!(gist.calls.len(), 1, "{shape:?}: {body}");
        assert_eq!(
            gist.calls[0].arguments,
            json!({"location": "Seoul", "units": "metric"})
        );
        // The server answers what the pure function answers.
        assert_eq!(gist, summary(shape, &ok(&script, shape, &first)));
        let second = follow_up(shape, &first, &body, &["-3°C"]);
        let gist = summary(shape, &post_json(&model, shape, &second).await);
        assert_eq!(
            gist.text.as_deref(),
            Some("It is -3°C right now."),
            "{shape:?}"
        );
    }
    model.shutdown().await;
}

#[tokio::test]
async fn each_shape_streams_events_that_reassemble_into_the_answer() {
    let model = start().await;
    let script = weather();
    for shape in ApiShape::ALL {
        let first = first_request(shape, &["get_weather"]);
        let mut second = follow_up(shape, &first, &ok(&script, shape, &first), &["21°C"]);
        let mut missing = first_request(shape, &[]);
        let mut first_streamed = first.clone();
        for request in [&mut first_streamed, &mut second, &mut missing] {
            let expected = summary(shape, &ok(&script, shape, request));
            request["stream"] = json!(true);
            request["stream_options"] = json!({"include_usage": true});
            let bytes = request.to_string().into_bytes();
            let path = shape.endpoint_path("gemini-test", true);
            let (status, content_type, _, body) = post(&model, &path, bytes).await;
            assert_eq!(status, 200, "{body}");
            assert!(
                content_type.starts_with("text/event-stream"),
                "{content_type}"
            );
            assert_eq!(reassemble(shape, &body), expected, "{shape:?}: {body}");
        }
    }
    model.shutdown().await;
}

#[tokio::test]
async fn malformed_requests_get_400_in_the_provider_error_shape() {
    let model = start().await;
    for shape in ApiShape::ALL {
        for body in [&b"{not json"[..], br#"{"model": "m"}"#] {
            let path = shape.endpoint_path("gemini-test", false);
            let (status, content_type, _, text) = post(&model, &path, body.to_vec()).await;
            assert_eq!(status, 400, "{shape:?}");
            assert_eq!(content_type, "application/json");
            let error = parse(&text);
            if shape == ApiShape::Gemini {
                assert_eq!(error["error"]["status"], "INVALID_ARGUMENT", "{text}");
                assert_eq!(error["error"]["code"], 400, "{text}");
            } else {
                assert_eq!(error["error"]["type"], "invalid_request_error", "{text}");
            }
            assert!(
                error["error"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty())
            );
            let top = if shape == ApiShape::Anthropic {
                json!("error")
            } else {
                Value::Null
            };
            assert_eq!(error["type"], top);
        }
    }
    let (status, _, _, text) = post(&model, "/v1/completions", b"{}".to_vec()).await;
    assert_eq!(status, 404, "{text}");
    let addr = model.local_addr();
    model.shutdown().await;
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "still listening after shutdown"
    );
}

#[tokio::test]
async fn a_request_marked_as_sampling_gets_the_sampling_reply_not_a_script_turn() {
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    let model = match ScriptedModel::start_with_sampling(weather(), "A short summary.".into(), addr)
        .await
    {
        Ok(model) => model,
        Err(error) => panic!("cannot start the scripted model: {error}"),
    };
    let client = crate::tap::client::http().build().expect("client");
    for shape in ApiShape::ALL {
        let url = format!(
            "{}{}",
            model.base_url(),
            shape.endpoint_path("gemini-test", false)
        );
        let body = first_request(shape, &["get_weather"]);
        let send = |marked: bool| {
            let mut request = client.post(&url).json(&body);
            if marked {
                request = request.header(SAMPLING_HEADER, "tour");
            }
            request.send()
        };
        let marked: Value = match send(true).await {
            Ok(r) => r.json().await.expect("json"),
            Err(e) => panic!("POST {url}: {e}"),
        };
        let plain: Value = match send(false).await {
            Ok(r) => r.json().await.expect("json"),
            Err(e) => panic!("POST {url}: {e}"),
        };
        let marked_text = marked.to_string();
        assert!(
            marked_text.contains("A short summary."),
            "{shape:?}: {marked}"
        );
        let calls = |text: &str| {
            ["\"tool_use\"", "\"arguments\"", "\"functionCall\""]
                .iter()
                .any(|word| text.contains(word))
        };
        let call = calls(&marked_text);
        assert!(!call, "{shape:?} sampling made a call: {marked}");
        assert!(
            marked_text.contains("sl_sampling_0"),
            "{shape:?} ids: {marked}"
        );
        // Without the mark, the same body is turn 0 of the script: the weather call.
        let plain_text = plain.to_string();
        let call = calls(&plain_text);
        assert!(call, "{shape:?} turn 0 made no call: {plain}");
    }
    model.shutdown().await;
}
