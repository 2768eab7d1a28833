//! Tests of reading `llm-http` events: shared tools, Gemini exchanges, unknown shapes.

use super::*;
use body::RECENT_TOOL_LISTS;

/// Requests read in a run (their repeated tools shared) read as each read alone does, and
/// a body's `tools` reads as a `Value` reads it: repeated (the last one), null, or in a
/// body that is not an object.
#[test]
fn repeated_tools_read_as_each_request_alone() {
    let (mut requests, mut shared) = (0, 0);
    for text in crate::analysis::fixtures::RECORDINGS {
        let events = crate::trace::load_from_reader(text.as_bytes())
            .expect("fixture")
            .events;
        let mut previous: Option<Arc<[Value]>> = None;
        for x in llm_exchanges(&events) {
            let alone = read_request(x.request, &events[x.request]);
            assert_eq!(x.tool_entries, alone.tool_entries);
            assert_eq!(x.tools, alone.tools);
            requests += usize::from(!x.tool_entries.is_empty());
            // A request that repeats the last one's tools holds the same list, not a copy.
            if let Some(p) = previous.as_ref().filter(|p| !p.is_empty())
                && **p == *x.tool_entries
            {
                assert!(Arc::ptr_eq(p, &x.tool_entries), "a copy at #{}", x.request);
                shared += 1;
            }
            previous = Some(Arc::clone(&x.tool_entries));
        }
    }
    assert!(requests >= 4, "{requests}");
    assert!(shared >= 2, "{shared}");
    let mut last = LastTools::default();
    for body in [
        r#"{"tools":[{"name":"a"}],"model":"m","tools":[{"name":"b"}]}"#,
        r#"{"model":"m","tools":[{"name":"b"}]}"#,
        r#"{"tools":null}"#,
        r#"[{"tools":[]}]"#,
        r#"{"tools":[{"name":"b"}],"x":1}"#,
    ] {
        let value = serde_json::from_str::<Value>(body).expect("json");
        let expected = value.is_object().then(|| {
            let entries = value.get("tools").and_then(Value::as_array);
            entries.cloned().unwrap_or_default()
        });
        let read =
            request_body(ApiShape::Anthropic, body, &mut last).map(|(_, entries)| entries.to_vec());
        assert_eq!(read, expected, "{body}");
    }
}

/// A host that alternates between a few tool lists (Claude Code: one more tool once a search
/// loaded it, its first list again at the next prompt) holds each list once, however many
/// requests carry it; a list read by another API shape is read again, for that shape.
#[test]
fn alternating_tool_lists_are_each_held_once() {
    let lists: Vec<String> = (0..RECENT_TOOL_LISTS)
        .map(|n| format!(r#"{{"model":"m","tools":[{{"name":"t{n}"}}]}}"#))
        .collect();
    let mut last = LastTools::default();
    let mut read = |shape, body: &str| {
        request_body(shape, body, &mut last)
            .map(|(_, entries)| entries)
            .expect("a body")
    };
    let first: Vec<Arc<[Value]>> = lists.iter().map(|b| read(ApiShape::Anthropic, b)).collect();
    for _ in 0..3 {
        for (body, held) in lists.iter().zip(&first).rev() {
            assert!(
                Arc::ptr_eq(held, &read(ApiShape::Anthropic, body)),
                "{body}"
            );
        }
    }
    let other = read(ApiShape::OpenaiChat, &lists[0]);
    assert!(!Arc::ptr_eq(&first[0], &other));
    // Past the few kept, the least recently used list is read again.
    let newer = r#"{"tools":[{"name":"new"}]}"#;
    read(ApiShape::Anthropic, newer);
    let again = read(ApiShape::Anthropic, &lists[lists.len() - 1]);
    assert!(!Arc::ptr_eq(&first[lists.len() - 1], &again));
}

fn llm_event(seq: u64, from: Lane, to: Lane, url: Option<&str>, body: &str) -> Event {
    let mut e = Event::with_bytes(
        seq,
        crate::trace::now(),
        from,
        to,
        Channel::LlmHttp,
        body.as_bytes().to_vec(),
    );
    e.set_http(Some(crate::trace::HttpInfo {
        method: url.map(|_| "POST".into()),
        url: url.map(Into::into),
        status: url.is_none().then_some(200),
        ..crate::trace::HttpInfo::default()
    }));
    e
}

/// A Gemini CLI exchange: the model in the URL, declarations inside their tool object,
/// `generationConfig`, a streamed answer with a call, `usageMetadata`; the next request
/// returns the result under the id the call is known by, whatever id the host sent.
#[test]
fn gemini_exchanges_are_read() {
    let url = "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let first = serde_json::json!({
        "contents": [{"role": "user", "parts": [{"text": "Weather in Seoul?"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [{"functionDeclarations": [
            {"name": "mcp_weather_get_weather", "description": "d",
             "parametersJsonSchema": {"type": "object", "properties": {
                "location": {"type": "string"}, "wait_for_previous": {"type": "boolean"}}}},
            {"name": "read_file", "parameters": {"type": "OBJECT"}}]},
            {"googleSearch": {}}],
        "generationConfig": {"temperature": 0.5, "topP": 0.9, "maxOutputTokens": 900}
    });
    let answer = concat!(
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"mcp_weather_get_weather\",\"args\": {\"location\": \"Seoul\"}}}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],",
        "\"usageMetadata\": {\"promptTokenCount\": 90,\"candidatesTokenCount\": 10,\"cachedContentTokenCount\": 40,\"thoughtsTokenCount\": 30},",
        "\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"resp-1\"}\r\n\r\n"
    );
    let mut second = first.clone();
    second["contents"]
        .as_array_mut()
        .expect("contents")
        .extend([
            serde_json::json!({"role": "model", "parts": [{"functionCall":
            {"name": "mcp_weather_get_weather", "args": {"location": "Seoul"}}}]}),
            serde_json::json!({"role": "user", "parts": [{"functionResponse":
            {"id": "mcp_weather_get_weather-1765000000000-ab12", "name": "mcp_weather_get_weather",
             "response": {"output": "15C"}}}]}),
        ]);
    let events = vec![
        llm_event(0, Lane::Host, Lane::Llm, Some(url), &first.to_string()),
        llm_event(1, Lane::Llm, Lane::Host, None, answer),
        llm_event(2, Lane::Host, Lane::Llm, Some(url), &second.to_string()),
    ];
    let x = llm_exchanges(&events);
    assert_eq!(x.len(), 2);
    let first = &x[0];
    assert_eq!(first.shape, Some(ApiShape::Gemini));
    assert_eq!(first.tools, ["mcp_weather_get_weather", "read_file"]);
    assert_eq!(first.tool_entries.len(), 3, "the built-in tool is kept");
    assert_eq!(
        first.tool_entries[2],
        serde_json::json!({"googleSearch": {}})
    );
    assert_eq!(first.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(
        (first.max_tokens, first.temperature, first.top_p),
        (Some(900), Some(0.5), Some(0.9))
    );
    assert!(first.streamed);
    assert_eq!(first.problem, None);
    assert_eq!(first.stop_reason.as_deref(), Some("STOP"));
    let call_id = "mcp_weather_get_weather#1".to_string();
    assert_eq!(
        first.tool_calls,
        [(
            call_id.clone(),
            "mcp_weather_get_weather".to_string(),
            Some(serde_json::json!({"location": "Seoul"}))
        )]
    );
    assert_eq!(
        (
            first.response_model.as_deref(),
            first.response_id.as_deref()
        ),
        (Some("gemini-2.5-flash"), Some("resp-1"))
    );
    assert_eq!(
        first.usage,
        Usage {
            input: Some(90),
            output: Some(40),
            cache_read: Some(40),
            cache_creation: None,
            reasoning: Some(30),
        }
    );
    assert_eq!(x[1].tool_results, [call_id]);
}

/// A request to a path no shape names has no shape and no tools read from it; its body
/// stays as recorded.
#[test]
fn an_unknown_shape_is_not_read_as_no_tools() {
    let body = r#"{"tools":[{"name":"a"}],"prompt":"hi"}"#;
    let events = vec![llm_event(
        0,
        Lane::Host,
        Lane::Llm,
        Some("http://127.0.0.1:9/v1/complete"),
        body,
    )];
    let x = &llm_exchanges(&events)[0];
    assert_eq!(x.shape, None);
    assert!(x.tools.is_empty() && x.tool_entries.is_empty());
    assert_eq!(events[0].text(), body);
}

/// A trace with megabytes of LLM bodies is read in two runs (on two threads where there are):
/// the exchanges are those one run reads, each request paired with its own response.
#[test]
fn a_big_trace_reads_in_two_runs_as_in_one() {
    let mut events = Vec::new();
    for text in crate::analysis::fixtures::RECORDINGS {
        events.extend(
            crate::trace::load_from_reader(text.as_bytes())
                .expect("fixture")
                .events,
        );
    }
    let bytes = |events: &[Event]| -> usize {
        let llm = events.iter().filter(|e| e.channel == Channel::LlmHttp);
        llm.map(|e| e.raw.as_ref().map_or(0, |r| r.len())).sum()
    };
    let one = bytes(&events);
    assert!(one > 0);
    let copies = PARALLEL_READ_FROM / one + 2;
    let events: Vec<Event> = std::iter::repeat_n(events, copies).flatten().collect();
    assert!(bytes(&events) >= PARALLEL_READ_FROM);
    let pairs = pair(&events);
    let in_one = read_pairs(&events, &pairs, Reading::Whole);
    let read = llm_exchanges(&events);
    assert_eq!(read.len(), pairs.len());
    assert!(read.iter().any(|x| x.response.is_some()));
    assert!(read == in_one, "two runs read other exchanges than one");
}
