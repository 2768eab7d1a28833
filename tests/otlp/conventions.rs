//! Reading spans back (from an OTLP/JSON file, by attribute) and the checks every export must
//! pass against the trace's own analysis: one trace id, unique ids, the conventions' span kinds
//! and attributes, the model and tool spans where the loop put them.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as V;
use opentelemetry_proto::tonic::trace::v1::Span;
use sightline::analysis::report;
use sightline::trace::{Kind, Lane};

use crate::util::load;

pub(super) const SPAN_INTERNAL: i32 = 1;
pub(super) const SPAN_SERVER: i32 = 2;
pub(super) const SPAN_CLIENT: i32 = 3;

/// The spans of an OTLP/JSON file, one `ExportTraceServiceRequest` per line.
pub fn spans_of_file(path: &Path) -> Vec<Span> {
    let text = std::fs::read_to_string(path).expect("read OTLP/JSON");
    text.lines()
        .flat_map(|line| {
            let r: ExportTraceServiceRequest = serde_json::from_str(line).expect("OTLP/JSON");
            flatten(r)
        })
        .collect()
}

pub fn flatten(r: ExportTraceServiceRequest) -> Vec<Span> {
    r.resource_spans
        .into_iter()
        .flat_map(|rs| rs.scope_spans)
        .flat_map(|ss| ss.spans)
        .collect()
}

pub fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a V> {
    s.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref()?.value.as_ref())
}

pub fn attr_str<'a>(s: &'a Span, key: &str) -> Option<&'a str> {
    match attr(s, key) {
        Some(V::StringValue(v)) => Some(v),
        _ => None,
    }
}

/// The checks every export must pass, against the trace's own analysis.
pub(super) fn check(trace: &Path, spans: &[Span], content: bool) {
    let loaded = load(trace);
    let r = report(&loaded.events);
    let trace_ids: HashSet<&[u8]> = spans.iter().map(|s| s.trace_id.as_slice()).collect();
    assert_eq!(trace_ids.len(), 1, "one recording, one trace id");
    let ids: HashMap<&[u8], &Span> = spans.iter().map(|s| (s.span_id.as_slice(), s)).collect();
    assert_eq!(ids.len(), spans.len(), "span ids are unique");
    let roots: Vec<&Span> = spans
        .iter()
        .filter(|s| s.parent_span_id.is_empty())
        .collect();
    assert_eq!(
        roots.len(),
        1,
        "one root: {:?}",
        roots.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    assert!(
        roots[0].name.starts_with("invoke_agent"),
        "{}",
        roots[0].name
    );
    assert_eq!(roots[0].kind, SPAN_INTERNAL);
    for s in spans {
        assert!(s.end_time_unix_nano >= s.start_time_unix_nano, "{}", s.name);
        if !s.parent_span_id.is_empty() {
            assert!(
                ids.contains_key(s.parent_span_id.as_slice()),
                "{}: parent missing",
                s.name
            );
        }
        if !content {
            for key in [
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.tool.call.arguments",
                "gen_ai.tool.call.result",
            ] {
                assert!(
                    attr(s, key).is_none(),
                    "{}: {key} without --otlp-content",
                    s.name
                );
            }
        }
    }

    // One MCP span per request, named `{method} {target}`, CLIENT from the client's side.
    let mcp: Vec<&Span> = spans
        .iter()
        .filter(|s| attr(s, "mcp.method.name").is_some())
        .collect();
    let requests: Vec<usize> = (0..loaded.events.len())
        .filter(|&i| {
            let e = &loaded.events[i];
            r.rpc.derived[i].kind == Kind::Request
                && e.channel.carries_jsonrpc()
                && (e.to.is_server() || e.from.is_server())
        })
        .collect();
    let request_spans: Vec<&&Span> = mcp
        .iter()
        .filter(|s| attr(s, "jsonrpc.request.id").is_some())
        .collect();
    assert_eq!(
        request_spans.len(),
        requests.len(),
        "one span per MCP request"
    );
    for (s, &i) in request_spans.iter().zip(&requests) {
        let e = &loaded.events[i];
        let method = r.rpc.derived[i].method.as_deref().expect("method");
        assert_eq!(attr_str(s, "mcp.method.name"), Some(method));
        let target = attr_str(s, "gen_ai.tool.name").or(attr_str(s, "gen_ai.prompt.name"));
        match target {
            Some(t) => assert_eq!(s.name, format!("{method} {t}")),
            None => assert_eq!(s.name, method),
        }
        // A request to a server comes from its client: the host, or an LLM API's own.
        let expected_kind = if e.from == Lane::Host || e.from == Lane::Llm {
            SPAN_CLIENT
        } else {
            SPAN_SERVER
        };
        assert_eq!(s.kind, expected_kind, "{}", s.name);
        assert!(attr_str(s, "network.transport").is_some());
        assert_eq!(
            attr_str(s, "mcp.protocol.version"),
            r.rpc.derived[i].revision.as_deref(),
            "{}",
            s.name
        );
        if method == "tools/call" {
            assert_eq!(attr_str(s, "gen_ai.operation.name"), Some("execute_tool"));
        }
        if let Some(V::StringValue(kind)) = attr(s, "error.type") {
            assert_eq!(
                s.status.as_ref().map(|st| st.code),
                Some(2),
                "{}: {kind}",
                s.name
            );
        }
    }

    // One chat span per LLM exchange (`generate_content` for Gemini): the loop's under the
    // root, those the host made for a server's sampling request under that request's span.
    let all_chats: Vec<&Span> = spans
        .iter()
        .filter(|s| {
            matches!(
                attr_str(s, "gen_ai.operation.name"),
                Some("chat" | "generate_content")
            )
        })
        .collect();
    let (chats, sampling): (Vec<&Span>, Vec<&Span>) = all_chats
        .iter()
        .partition(|s| s.parent_span_id == roots[0].span_id);
    assert_eq!(
        sampling.len(),
        r.sampling.len(),
        "one chat per sampling exchange"
    );
    for s in &sampling {
        let parent = ids[s.parent_span_id.as_slice()];
        // The server's request, or on 2026-07-28 the leg its `input_required` answered.
        let asked = (parent.kind, parent.name.as_str()) == (SPAN_SERVER, "sampling/createMessage")
            || (parent.kind == SPAN_CLIENT
                && attr(parent, "sightline.mcp.input_required") == Some(&V::BoolValue(true)));
        assert!(asked, "{} under {}", s.name, parent.name);
        assert!(parent.start_time_unix_nano <= s.start_time_unix_nano);
    }
    assert_eq!(chats.len(), r.llm.len());
    for (s, x) in chats.iter().zip(&r.llm) {
        assert_eq!(s.kind, SPAN_CLIENT);
        let model = x.model.as_deref().expect("model");
        let op = attr_str(s, "gen_ai.operation.name").expect("operation");
        assert_eq!(s.name, format!("{op} {model}"));
        match attr_str(s, "gen_ai.provider.name") {
            Some("anthropic" | "openai") => assert_eq!(op, "chat"),
            Some("gcp.gemini") => assert_eq!(op, "generate_content"),
            other => panic!("{}: provider {other:?}", s.name),
        }
        assert_eq!(attr_str(s, "gen_ai.request.model"), Some(model));
        // A request the API refused (the stdio server of `mcp-connector`) has no usage.
        if x.status.is_some_and(|status| status >= 400) {
            assert!(attr(s, "error.type").is_some(), "{s:?}");
            assert_eq!(s.parent_span_id, roots[0].span_id);
            continue;
        }
        assert!(
            matches!(attr(s, "gen_ai.usage.input_tokens"), Some(V::IntValue(n)) if *n > 0),
            "{s:?}"
        );
        assert!(matches!(attr(s, "gen_ai.usage.output_tokens"), Some(V::IntValue(n)) if *n > 0));
        assert!(attr_str(s, "gen_ai.response.id").is_some());
        assert!(
            matches!(attr(s, "gen_ai.response.finish_reasons"), Some(V::ArrayValue(a)) if a.values.len() == 1)
        );
        assert_eq!(s.parent_span_id, roots[0].span_id);
    }

    // One execute_tool span per model call, parent of the tools/call that carried it.
    // An LLM API's own calls (`sightline.mcp.client`) have theirs under their chat span, and
    // the server's recorded `tools/call`, where the trace holds it, under that.
    let (remote, tools): (Vec<&Span>, Vec<&Span>) = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool "))
        .partition(|s| attr(s, "sightline.mcp.client").is_some());
    let joined = r.remote_chains(&loaded.events);
    let remote_calls = joined.iter().filter(|c| {
        let step = &r.llm[c.exchange].remote[c.step];
        step.kind == sightline::wire::remote::StepKind::Call
    });
    assert_eq!(remote.len(), remote_calls.clone().count());
    for (s, chain) in remote.iter().zip(remote_calls) {
        if let Some(call) = chain.tools_call {
            let pos = requests.iter().position(|&i| i == call).expect("a request");
            assert_eq!(
                request_spans[pos].parent_span_id, s.span_id,
                "tools/call under it"
            );
        }
    }
    assert_eq!(tools.len(), r.chains.len());
    for (s, chain) in tools.iter().zip(&r.chains) {
        assert_eq!(s.kind, SPAN_INTERNAL);
        assert_eq!(
            attr_str(s, "gen_ai.tool.call.id"),
            Some(chain.call_id.as_str())
        );
        assert_eq!(s.name, format!("execute_tool {}", chain.tool));
        if let Some(call) = chain.tools_call {
            let pos = requests.iter().position(|&i| i == call).expect("a request");
            let mcp_span = request_spans[pos];
            assert_eq!(
                mcp_span.parent_span_id, s.span_id,
                "tools/call under execute_tool"
            );
        }
    }
}
