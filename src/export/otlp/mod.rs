//! A trace as OpenTelemetry spans, by the GenAI and MCP semantic conventions (docs/otel.md).
//!
//! Sightline sees the model's turn and the server's call on one clock, so it can emit the
//! nesting the conventions describe: one `invoke_agent` root per recording, `chat {model}` per
//! LLM exchange, `execute_tool {tool}` per model tool call, and under it the MCP `tools/call`
//! CLIENT span that carried the call; every other MCP request is a span of its own and
//! notifications are span events. The mapping is pure code over a loaded trace and its
//! [`crate::analysis::Report`] (`mcp` and `genai` build the spans); [`send`] carries them to a
//! backend over OTLP/HTTP and [`live`] streams them while a proxy records.
//!
//! The wire types are the `opentelemetry-proto` crate's (prost messages, with its serde
//! mapping for OTLP/JSON); ids are derived from the trace ([`ids`]), so exports repeat.

mod genai;
pub mod ids;
mod mcp;
// Sending spans is network I/O: the desktop build only.
#[cfg(feature = "native")]
pub mod live;
#[cfg(feature = "native")]
pub mod send;
pub mod stream;

use chrono::{DateTime, Utc};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue, any_value,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status, status};

pub use ids::{SpanId, TraceId, parse_traceparent};

use crate::analysis::Report;
use crate::trace::{Event, Header};

/// The semantic conventions followed: `open-telemetry/semantic-conventions-genai` as of the
/// commit named in docs/otel.md (every `gen_ai.*` and `mcp.*` name is at Development stability).
pub const SEMCONV: &str = "semantic-conventions-genai@5c50d346";

/// Spans per `ExportTraceServiceRequest` (one HTTP request, one line of an OTLP/JSON file).
pub const BATCH: usize = 512;

/// What the mapping may include.
#[derive(Debug, Clone)]
pub struct Options {
    /// `service.name` of the resource (`OTEL_SERVICE_NAME`, default `sightline`).
    pub service_name: String,
    /// Message content, tool arguments and results (`--otlp-content`; the conventions make
    /// these opt-in).
    pub content: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            service_name: "sightline".into(),
            content: false,
        }
    }
}

/// What every span builder reads.
pub(crate) struct Ctx<'a> {
    pub events: &'a [Event],
    pub report: &'a Report,
    pub trace: TraceId,
    pub root: SpanId,
    pub options: &'a Options,
    /// When the recording ends (its last event): requests still pending end there.
    pub end: u64,
}

impl Ctx<'_> {
    /// The event with `seq` that event `at` names as read before it
    /// ([`crate::trace::Analysis::earlier`]).
    pub fn earlier(&self, seq: u64, at: usize) -> Option<usize> {
        self.report.rpc.earlier(self.events, seq, at)
    }

    /// The event with `seq` that settled event `at` after it
    /// ([`crate::trace::Analysis::later`]).
    pub fn later(&self, seq: u64, at: usize) -> Option<usize> {
        self.report.rpc.later(self.events, seq, at)
    }
}

/// A span as the mapping made it, with what a live stream ([`stream`]) needs to know.
pub(crate) struct Mapped {
    pub span: Span,
    /// The events a span still in flight (its answer not yet recorded) is made from, so a live
    /// stream keeps them until it is complete; empty once complete.
    pub waits: Vec<usize>,
    /// For a notification's zero-length span (no request was open for it), its event.
    pub notification: Option<usize>,
}

impl<'a> Ctx<'a> {
    fn new(
        header: &Header,
        events: &'a [Event],
        report: &'a Report,
        options: &'a Options,
        end: Option<u64>,
    ) -> Self {
        let trace = ids::trace_id(header);
        Ctx {
            events,
            report,
            trace,
            root: ids::span_id(&trace, "invoke_agent", &[]),
            options,
            end: end.unwrap_or_else(|| events.iter().map(|e| nanos(e.time)).max().unwrap_or(0)),
        }
    }
}

/// The root and every other span of `events`, in no particular order: the one mapping, used
/// whole by [`spans`] and window by window by a live [`stream`] (which says when the recording
/// ends, `end`, as its window may not hold the last event).
pub(crate) fn map(
    header: &Header,
    events: &[Event],
    report: &Report,
    options: &Options,
    end: Option<u64>,
) -> (Span, Vec<Mapped>) {
    let ctx = Ctx::new(header, events, report, options, end);
    let mut tools = genai::execute_tools(&ctx);
    tools.extend(genai::remote_tools(&ctx));
    let mut out = mcp::spans(&ctx, &tools);
    out.extend(tools.into_iter().map(|t| t.mapped));
    out.extend(genai::chats(&ctx));
    (genai::root(&ctx, header), out)
}

/// Every span of a trace: the root first, then in the order their requests were recorded.
pub fn spans(header: &Header, events: &[Event], report: &Report, options: &Options) -> Vec<Span> {
    let (root, mapped) = map(header, events, report, options, None);
    let mut out = Vec::with_capacity(mapped.len() + 1);
    out.push(root);
    out.extend(mapped.into_iter().map(|m| m.span));
    out[1..].sort_by_key(|s| s.start_time_unix_nano);
    out
}

/// The spans as OTLP requests of at most [`BATCH`] spans, under one resource and scope.
pub fn requests(spans: Vec<Span>, options: &Options) -> Vec<ExportTraceServiceRequest> {
    let resource = Resource {
        attributes: vec![
            kv("service.name", options.service_name.as_str()),
            kv("service.version", env!("CARGO_PKG_VERSION")),
            kv("telemetry.sdk.name", "sightline"),
            kv("telemetry.sdk.language", "rust"),
            kv("telemetry.sdk.version", env!("CARGO_PKG_VERSION")),
        ],
        ..Resource::default()
    };
    let scope = InstrumentationScope {
        name: "sightline".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..InstrumentationScope::default()
    };
    let mut spans = spans.into_iter().peekable();
    let mut out = Vec::new();
    while spans.peek().is_some() {
        let batch: Vec<Span> = spans.by_ref().take(BATCH).collect();
        out.push(ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(resource.clone()),
                scope_spans: vec![ScopeSpans {
                    scope: Some(scope.clone()),
                    spans: batch,
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        });
    }
    out
}

/// The OTLP/JSON encoding of a request (the JSON mapping the Collector's file exporter writes:
/// camelCase, hex ids, 64-bit integers as strings, enums as numbers).
pub fn to_json(request: &ExportTraceServiceRequest) -> String {
    // The generated types serialize only to valid JSON (strings, numbers, arrays).
    serde_json::to_string(request).unwrap_or_default()
}

/// The OTLP/protobuf encoding of a request.
pub fn to_protobuf(request: &ExportTraceServiceRequest) -> Vec<u8> {
    prost::Message::encode_to_vec(request)
}

// ---- helpers shared by the span builders ----

pub(crate) fn nanos(t: DateTime<Utc>) -> u64 {
    t.timestamp_nanos_opt()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

/// An attribute value.
pub(crate) enum Val {
    Str(String),
    Int(i64),
    Double(f64),
    Bool(bool),
    Strs(Vec<String>),
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Str(s.to_string())
    }
}
impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Str(s)
    }
}
impl From<i64> for Val {
    fn from(i: i64) -> Val {
        Val::Int(i)
    }
}
impl From<u64> for Val {
    fn from(i: u64) -> Val {
        Val::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}
impl From<f64> for Val {
    fn from(f: f64) -> Val {
        Val::Double(f)
    }
}
impl From<bool> for Val {
    fn from(b: bool) -> Val {
        Val::Bool(b)
    }
}

fn any(v: Val) -> AnyValue {
    use any_value::Value as V;
    let value = match v {
        Val::Str(s) => V::StringValue(s),
        Val::Int(i) => V::IntValue(i),
        Val::Double(f) => V::DoubleValue(f),
        Val::Bool(b) => V::BoolValue(b),
        Val::Strs(items) => V::ArrayValue(ArrayValue {
            values: items
                .into_iter()
                .map(|s| AnyValue {
                    value: Some(V::StringValue(s)),
                })
                .collect(),
        }),
    };
    AnyValue { value: Some(value) }
}

pub(crate) fn kv(key: &str, v: impl Into<Val>) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(any(v.into())),
        ..KeyValue::default()
    }
}

/// Adds `key` when `v` is present.
pub(crate) fn opt<V: Into<Val>>(attrs: &mut Vec<KeyValue>, key: &str, v: Option<V>) {
    if let Some(v) = v {
        attrs.push(kv(key, v));
    }
}

pub(crate) fn error_status(message: &str) -> Option<Status> {
    Some(Status {
        message: message.to_string(),
        code: status::StatusCode::Error as i32,
    })
}

/// `server.address` and `server.port` of a URL.
pub(crate) fn server_address(attrs: &mut Vec<KeyValue>, url: Option<&str>) {
    let Some(url) = url.and_then(|u| url::Url::parse(u).ok()) else {
        return;
    };
    if let Some(host) = url.host_str() {
        attrs.push(kv("server.address", host));
        if let Some(port) = url.port_or_known_default() {
            attrs.push(kv("server.port", i64::from(port)));
        }
    }
}

#[cfg(test)]
mod tests;
