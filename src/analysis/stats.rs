//! Statistics of a trace: counts, errors and latency percentiles per method, tool, server or
//! model; per LLM request the tokens its tools cost and how long its answer took; the busiest
//! second. `sightline stats` prints them (`export::stats`), and the numbers are the same
//! whichever rendering reads them.
//!
//! One pass over the events, then one sort per group's latencies: linear in the trace but for
//! the sorts (a million requests sort in well under a second). A `tools/call` whose result says
//! `isError` counts as an error; its result is parsed only when its text holds `"isError"`, so
//! the pass reads no other payload. Percentiles are nearest-rank over the answered requests of
//! a group (an unanswered request has no latency; it is counted apart).

pub mod io;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;

use super::LlmExchange;
use super::tokens::{Bpe, exchange_tokens};
use crate::trace::{Analysis, Event, FIRST_BYTE, Kind, Lane};

/// What the rows of a table are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    Method,
    Tool,
    Server,
    Model,
}

impl By {
    pub const ALL: [By; 4] = [By::Method, By::Tool, By::Server, By::Model];

    pub fn as_str(self) -> &'static str {
        match self {
            By::Method => "method",
            By::Tool => "tool",
            By::Server => "server",
            By::Model => "model",
        }
    }
}

/// Latency percentiles of a group's answered requests, in microseconds (nearest rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Latency {
    /// How many answered requests the percentiles are over.
    pub count: usize,
    pub p50_us: i64,
    pub p95_us: i64,
    pub p99_us: i64,
    pub max_us: i64,
}

impl Latency {
    /// The columns a table shows of `latency`: p50, p95, p99 and max, each `None` where no
    /// request was answered.
    pub fn columns(latency: Option<Latency>) -> [Option<i64>; 4] {
        let l = latency;
        [
            l.map(|l| l.p50_us),
            l.map(|l| l.p95_us),
            l.map(|l| l.p99_us),
            l.map(|l| l.max_us),
        ]
    }

    /// The percentiles of `samples` (sorted in place); `None` for none.
    pub fn of(samples: &mut [i64]) -> Option<Latency> {
        samples.sort_unstable();
        let n = samples.len();
        let rank = |p: usize| samples[(n * p).div_ceil(100).clamp(1, n) - 1];
        (n > 0).then(|| Latency {
            count: n,
            p50_us: rank(50),
            p95_us: rank(95),
            p99_us: rank(99),
            max_us: samples[n - 1],
        })
    }
}

/// One row of a table: a method, a tool, a server or a model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub key: String,
    pub requests: u64,
    pub notifications: u64,
    /// Requests answered with a JSON-RPC error, or a tool result that says `isError`; for a
    /// model, an HTTP status of 400 or more, or a response that could not be read.
    pub errors: u64,
    /// Requests with no answer (unanswered or cancelled).
    pub unanswered: u64,
    pub latency: Option<Latency>,
}

impl Row {
    /// Errors over requests (0 when there are none).
    pub fn error_rate(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.errors as f64 / self.requests as f64
        }
    }
}

/// One LLM request: what its tools cost and how long its answer took.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmRequest {
    /// The request event's `seq`.
    pub seq: u64,
    pub model: Option<String>,
    pub status: Option<u16>,
    /// Tools the request offered.
    pub tools: usize,
    /// Their tokens (the entries as sent; the provider's overhead not included).
    pub tool_tokens: Option<usize>,
    /// `true` when counted by the provider's own tokenizer, `false` for an estimate.
    pub tool_tokens_exact: bool,
    /// What the provider's `usage` reported, when it did.
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Request to the response's first byte (its headers), when the recorder noted it.
    pub first_byte_us: Option<i64>,
    /// Request to the response's last byte (the response event's time).
    pub last_byte_us: Option<i64>,
}

/// The rows of one grouping, by key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub by: By,
    pub rows: Vec<Row>,
}

/// The second with the most events.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Busiest {
    /// Its start.
    pub second: DateTime<Utc>,
    pub events: u64,
}

/// Everything `sightline stats` says about a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub events: u64,
    /// JSON-RPC requests, notifications, errors (as [`Row`] counts them), unanswered.
    pub requests: u64,
    pub notifications: u64,
    pub errors: u64,
    pub unanswered: u64,
    /// From the first event to the last, in microseconds.
    pub duration_us: Option<i64>,
    /// One table per grouping asked for, in the order asked.
    pub tables: Vec<Table>,
    pub llm: Vec<LlmRequest>,
    pub busiest: Option<Busiest>,
}

/// Per key: counts and latencies.
#[derive(Default)]
struct Acc {
    requests: u64,
    notifications: u64,
    errors: u64,
    unanswered: u64,
    latencies: Vec<i64>,
}

impl Acc {
    fn row(mut self, key: String) -> Row {
        Row {
            key,
            requests: self.requests,
            notifications: self.notifications,
            errors: self.errors,
            unanswered: self.unanswered,
            latency: Latency::of(&mut self.latencies),
        }
    }
}

/// The statistics of the events `keep` keeps (all of them for `|_| true`), with one table per
/// grouping in `by`. `llm` is the trace's exchanges with the model (the loop's and sampling's);
/// `bpe` counts OpenAI's tool tokens.
pub fn stats(
    events: &[Event],
    rpc: &Analysis,
    llm: &[&LlmExchange],
    by: &[By],
    bpe: &dyn Bpe,
    keep: &dyn Fn(usize) -> bool,
) -> Stats {
    // Hashed while counting (a lookup per message), sorted by name once at the end.
    let mut groups: [FxHashMap<&str, Acc>; 3] = Default::default();
    let (mut requests, mut notifications, mut errors, mut unanswered) = (0, 0, 0, 0);
    let mut seconds: FxHashMap<i64, u64> = FxHashMap::default();
    // Events come in time order, nearly always: a second's events are counted as a run and
    // added to `seconds` when the next second starts.
    let mut run: Option<(i64, u64)> = None;
    let (mut first, mut last) = (None::<DateTime<Utc>>, None::<DateTime<Utc>>);
    let mut count = 0u64;
    for (i, (e, d)) in events.iter().zip(&rpc.derived).enumerate() {
        if !keep(i) {
            continue;
        }
        count += 1;
        let second = e.time.timestamp();
        match &mut run {
            Some((s, n)) if *s == second => *n += 1,
            _ => {
                if let Some((s, n)) = run.replace((second, 1)) {
                    *seconds.entry(s).or_default() += n;
                }
            }
        }
        first = Some(first.map_or(e.time, |t| t.min(e.time)));
        last = Some(last.map_or(e.time, |t| t.max(e.time)));
        let is_request = d.kind == Kind::Request;
        if !is_request && d.kind != Kind::Notification {
            continue;
        }
        let method = d.method.as_deref().unwrap_or("?");
        let failed = is_request && answer_failed(events, rpc, i, method);
        let missing = is_request && d.latency_us().is_none() && rpc.paired(events, i).is_none();
        if is_request {
            requests += 1;
            errors += u64::from(failed);
            unanswered += u64::from(missing);
        } else {
            notifications += 1;
        }
        let server = server_of(e);
        let tool = (method == "tools/call")
            .then_some(d.detail.as_deref())
            .flatten();
        let keys = [Some(method), tool, server];
        for (group, key) in groups.iter_mut().zip(keys) {
            let Some(key) = key else { continue };
            let acc = group.entry(key).or_default();
            if is_request {
                acc.requests += 1;
                acc.errors += u64::from(failed);
                acc.unanswered += u64::from(missing);
                acc.latencies.extend(d.latency_us());
            } else {
                acc.notifications += 1;
            }
        }
    }
    // A loop sends the same tools every turn (one shared list): counted once per list and model.
    type List<'a> = (usize, Option<&'a str>);
    let mut counted: FxHashMap<List, Option<(usize, bool)>> = FxHashMap::default();
    let llm_rows: Vec<LlmRequest> = llm
        .iter()
        .filter(|x| keep(x.request))
        .map(|x| {
            let list = (x.tool_entries.as_ptr() as usize, x.model.as_deref());
            let tokens = *counted
                .entry(list)
                .or_insert_with(|| exchange_tokens(x, bpe).map(|t| (t.total, t.exact)));
            llm_request(events, x, tokens)
        })
        .collect();
    if let Some((s, n)) = run {
        *seconds.entry(s).or_default() += n;
    }
    let sorted = |group: FxHashMap<&str, Acc>| -> BTreeMap<String, Acc> {
        group
            .into_iter()
            .map(|(k, acc)| (k.to_string(), acc))
            .collect()
    };
    let [methods, tools, servers] = groups.map(sorted);
    let mut parts = [Some(methods), Some(tools), Some(servers)];
    let tables = by
        .iter()
        .map(|&b| {
            let rows = match b {
                By::Method => take_rows(&mut parts[0]),
                By::Tool => take_rows(&mut parts[1]),
                By::Server => take_rows(&mut parts[2]),
                By::Model => model_rows(llm, &llm_rows, keep),
            };
            Table { by: b, rows }
        })
        .collect();
    let busiest = seconds
        .into_iter()
        .max_by_key(|&(second, n)| (n, std::cmp::Reverse(second)))
        .and_then(|(second, events)| {
            Some(Busiest {
                second: DateTime::from_timestamp(second, 0)?,
                events,
            })
        });
    Stats {
        events: count,
        requests,
        notifications,
        errors,
        unanswered,
        duration_us: first
            .zip(last)
            .and_then(|(a, b)| crate::trace::latency_us(a, b)),
        tables,
        llm: llm_rows,
        busiest,
    }
}

fn take_rows(part: &mut Option<BTreeMap<String, Acc>>) -> Vec<Row> {
    part.take()
        .unwrap_or_default()
        .into_iter()
        .map(|(key, acc)| acc.row(key))
        .collect()
}

/// The model table: LLM requests by the model they name (`?` for none).
fn model_rows(llm: &[&LlmExchange], rows: &[LlmRequest], keep: &dyn Fn(usize) -> bool) -> Vec<Row> {
    let mut by_model: BTreeMap<String, Acc> = BTreeMap::new();
    for (x, r) in llm.iter().filter(|x| keep(x.request)).zip(rows) {
        let acc = by_model
            .entry(x.model.clone().unwrap_or_else(|| "?".into()))
            .or_default();
        acc.requests += 1;
        let failed = x.problem.is_some() || x.status.is_some_and(|s| s >= 400);
        acc.errors += u64::from(failed);
        acc.unanswered += u64::from(x.response.is_none());
        acc.latencies.extend(r.last_byte_us);
    }
    by_model
        .into_iter()
        .map(|(key, acc)| acc.row(key))
        .collect()
}

/// The server an MCP message went to or came from.
fn server_of(e: &Event) -> Option<&str> {
    match (&e.from, &e.to) {
        (Lane::Server(name), _) | (_, Lane::Server(name)) => Some(name),
        _ => None,
    }
}

/// Whether request `i`'s answer is a JSON-RPC error or, for `tools/call`, a result that says
/// `isError: true`.
fn answer_failed(events: &[Event], rpc: &Analysis, i: usize, method: &str) -> bool {
    let Some(a) = rpc.paired(events, i) else {
        return false;
    };
    match rpc.derived.get(a).map(|d| d.kind) {
        Some(Kind::Error) => true,
        Some(Kind::Response) if method == "tools/call" => {
            let text = events[a].text();
            memchr::memmem::find(text.as_bytes(), b"\"isError\"").is_some()
                && serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| v.pointer("/result/isError").and_then(Value::as_bool))
                    .unwrap_or(false)
        }
        _ => false,
    }
}

fn llm_request(events: &[Event], x: &LlmExchange, tokens: Option<(usize, bool)>) -> LlmRequest {
    let asked = &events[x.request];
    let answer = x.response.and_then(|r| events.get(r));
    let first_byte = answer
        .and_then(|a| {
            a.http()?
                .extra
                .get(FIRST_BYTE)?
                .as_str()?
                .parse::<DateTime<Utc>>()
                .ok()
        })
        .and_then(|t| crate::trace::latency_us(asked.time, t));
    LlmRequest {
        seq: asked.seq,
        model: x.model.clone(),
        status: x.status,
        tools: x.tool_entries.len(),
        tool_tokens: tokens.map(|(total, _)| total),
        tool_tokens_exact: tokens.is_some_and(|(_, exact)| exact),
        input_tokens: x.usage.input,
        output_tokens: x.usage.output,
        first_byte_us: first_byte,
        last_byte_us: answer.and_then(|a| crate::trace::latency_us(asked.time, a.time)),
    }
}

#[cfg(test)]
mod tests;
