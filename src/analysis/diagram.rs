//! The sequence diagram of a trace, as plain data: lanes, one row per event, short labels,
//! request/response pairs and tool-call chains. No drawing here: the egui app, the Mermaid export
//! and the SVG export all draw the same [`Diagram`].
//!
//! The lesson the diagram must make obvious: **the model never talks to a server**. Lanes are
//! ordered User, Host, LLM API, then the servers, so the LLM and the first server stand side by
//! side and the empty gap between them is visible; [`Diagram::direct_model_server`] counts the
//! events that would cross it (always 0 in traces Sightline records).
//!
//! ```text
//!   User     Host     LLM API  |gap|  weather
//!    |------->|          |              |       What's the weather in Seoul right now?
//!    |        |-------------------------->|     initialize 2025-11-25
//!    |        |<- - - - - - - - - - - - - |     result initialize 2025-11-25
//!    |        |--------->|              |       request · tools: get_weather
//!    |        |<- - - - -|              |       tool_use get_weather
//!    |        |-------------------------->|     tools/call get_weather
//! ```
//!
//! Rows are in trace order, exactly one per event: `diagram.rows[i].event == i`.
//!
//! A row holds what drawing it needs (lanes, style, status, pair); what it *says* (its label and
//! detail, [`RowText`]) is computed when asked, from the events and their analysis: only the rows
//! in view are drawn, and a million stored labels would take more memory than the trace itself.
//! Tool-call chains are rare and kept in one sorted table ([`Diagram::chain`]).

#[cfg(test)]
pub(crate) mod fixtures;
mod grow;
mod hops;
mod labels;
pub mod layout;
mod llm;
mod remote;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::analysis::Report;
use crate::i18n::Words;
use crate::trace::{Channel, Event, Lane, Pairing, Shared};

pub use hops::Hop;
pub use labels::{
    has_message_label, message_label, process_detail, process_label, row_text,
    tool_result_is_error, visible,
};

/// A whole trace as a sequence diagram.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagram {
    /// Left to right: User, Host, LLM API (all three whenever the trace has any host-side event:
    /// a user or LLM lane, a note or an `llm-http` event), then servers in order of first
    /// appearance, then unknown lanes. A proxy trace has Host and its servers only.
    pub lanes: Vec<LaneInfo>,
    /// One row per event, in trace order (`rows[i].event == i`).
    pub rows: Vec<Row>,
    /// Events sent between the LLM lane and any server lane, in either direction, but the API's
    /// own MCP client's HTTP exchanges ([`crosses_gap`]). Always 0 in Sightline's own traces:
    /// everything between a model and a server passes through the host.
    pub direct_model_server: usize,
    /// `(row, rows of its tool-call chains)`, sorted by row; see [`Diagram::chain`].
    chains: Vec<(usize, Vec<usize>)>,
    /// `(row, what the problem is)` for the rows whose status is [`Status::Problem`], sorted.
    problems: Vec<(usize, Shared)>,
    /// `(row, the arrows inside its exchange)`, sorted, a row once; see [`Diagram::hops`].
    hops: Vec<(usize, Vec<Hop>)>,
    /// Whether the trace records its user as events (then no hop stands in for them).
    users_recorded: bool,
}

/// One participant (a vertical lifeline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneInfo {
    pub lane: Lane,
    /// What its header says: `"User"`, `"Host"`, `"LLM API"`, the server's name, or an unknown
    /// lane's name (control and invisible characters shown as `\u{..}`).
    pub title: String,
    pub kind: LaneKind,
}

/// What a lane stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneKind {
    User,
    /// The application: its LLM loop and its MCP client.
    Host,
    Llm,
    Server,
    /// A remote MCP server the LLM API connects to itself (Anthropic's MCP connector, OpenAI's
    /// `mcp` tools): its client is the API platform's, not the host's; the trace holds none of
    /// its messages, only what the API said of them.
    Remote,
    /// A lane name this version does not know.
    Other,
}

/// One event, drawn.
///
/// There is one per event, so it is kept small (20 bytes): the indices are `u32`s, read
/// through methods that give `usize`s. A trace of more than `u32::MAX` events or lanes
/// would not fit in memory as events anyway.
#[derive(Clone, PartialEq, Eq)]
pub struct Row {
    event: u32,
    from: u32,
    to: u32,
    /// [`NO_PAIR`] for none.
    pair: u32,
    pub style: Style,
    pub status: Status,
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row")
            .field("event", &self.event())
            .field("from", &self.from())
            .field("to", &self.to())
            .field("style", &self.style)
            .field("status", &self.status)
            .field("pair", &self.pair())
            .finish()
    }
}

/// [`Row::pair`]'s `None`.
const NO_PAIR: u32 = u32::MAX;

/// An index as a row stores it.
fn narrow(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(NO_PAIR - 1)
}

/// What a row says, computed on demand by [`Diagram::text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowText {
    /// Short, one line, no control characters: `initialize 2025-11-25`,
    /// `result tools/call get_weather`, `notifications/tools/list_changed`,
    /// `request · tools: get_weather`, `tool_use get_weather`, `end_turn "It is 15C."`,
    /// `stderr: weather MCP server running on stdio`, `exited code 0`.
    pub label: String,
    /// Secondary text, comma separated: latency (`14 ms`), `id 2`, `retry of #12`, `stream #5`,
    /// why a request went unanswered, the model's text, the HTTP status. Together the label and
    /// the detail always say what a non-`Ok` status means, except [`Status::Problem`], which
    /// has its own text.
    pub detail: Option<String>,
    /// For [`Status::Problem`]: what the problem is (see [`Diagram::problem`]).
    pub problem: Option<String>,
}

impl Row {
    pub fn new(event: usize, from: usize, to: usize, style: Style, status: Status) -> Row {
        Row {
            event: narrow(event),
            from: narrow(from),
            to: narrow(to),
            pair: NO_PAIR,
            style,
            status,
        }
    }

    /// Index into the trace's events (its `seq` and time are the event's; see [`offset_us`]).
    pub fn event(&self) -> usize {
        self.event as usize
    }

    /// Lane index the arrow starts from. `from == to` for a note on one lifeline: stderr
    /// lines, process spawns and exits (on the server's lifeline), notes the host writes to
    /// itself.
    pub fn from(&self) -> usize {
        self.from as usize
    }

    /// Lane index the arrow goes to.
    pub fn to(&self) -> usize {
        self.to as usize
    }

    /// Row of the paired request or response: JSON-RPC pairs (by direction and id) and LLM
    /// request/response pairs.
    pub fn pair(&self) -> Option<usize> {
        (self.pair != NO_PAIR).then_some(self.pair as usize)
    }

    pub fn set_pair(&mut self, pair: Option<usize>) {
        self.pair = pair.map_or(NO_PAIR, narrow);
    }

    /// True when the row is drawn as an arrow between two lifelines, false for a note on one.
    pub fn is_arrow(&self) -> bool {
        self.from != self.to
    }
}

/// How a row is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// A JSON-RPC request (solid arrow), in its true direction: server-to-client requests
    /// (`sampling/createMessage`, `roots/list`) go from the server to the host. Also an MCP HTTP
    /// request without a message (`GET /mcp (open SSE stream)`, `DELETE /mcp (end session)`).
    Request,
    /// A JSON-RPC result (dashed arrow back). Also an MCP HTTP response without a message
    /// (`202 Accepted`, an SSE priming event).
    Response,
    /// A JSON-RPC notification (open arrowhead).
    Notification,
    /// A JSON-RPC error response, or an MCP HTTP response with a `4xx` or `5xx` status.
    Error,
    /// A payload on a JSON-RPC channel that is not valid JSON-RPC.
    Invalid,
    /// Text written by Sightline: the user's prompt (User -> Host), the answer (Host -> User), a
    /// host annotation (on the Host lifeline); also events of unknown channels.
    Note,
    /// A server process spawned, failed to start, or exited (on the server's lifeline).
    Process,
    /// A line the server wrote to stderr (on the server's lifeline).
    Stderr,
    /// An HTTP request to the LLM API.
    LlmRequest,
    /// The LLM API's response.
    LlmResponse,
}

impl Style {
    /// A lowercase name, for CSS classes and tests: `request`, `llm-response`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Request => "request",
            Style::Response => "response",
            Style::Notification => "notification",
            Style::Error => "error",
            Style::Invalid => "invalid",
            Style::Note => "note",
            Style::Process => "process",
            Style::Stderr => "stderr",
            Style::LlmRequest => "llm-request",
            Style::LlmResponse => "llm-response",
        }
    }
}

/// Whether something is wrong with a row, and what.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Status {
    Ok,
    /// A JSON-RPC error response, an LLM API error status, a server that failed to start.
    Error,
    /// Not valid JSON-RPC.
    Invalid,
    /// A request (JSON-RPC or LLM) that never got a response.
    Unanswered,
    /// A request its sender cancelled before a response.
    Cancelled,
    /// A response that answers no pending request.
    Orphan,
    /// Anything else worth a warning: an LLM response that could not be read, a model tool call
    /// never sent to a server, tools listed by a server but not shown to the model, a server
    /// that exited with a failure code or by a signal. What the problem is:
    /// [`Diagram::problem`].
    Problem,
}

impl Status {
    pub fn is_ok(&self) -> bool {
        *self == Status::Ok
    }

    /// A lowercase name, for CSS classes and tests: `ok`, `unanswered`, `problem`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Invalid => "invalid",
            Status::Unanswered => "unanswered",
            Status::Cancelled => "cancelled",
            Status::Orphan => "orphan",
            Status::Problem => "problem",
        }
    }
}

impl Diagram {
    /// The row drawing an event (today always `Some(event)` for an index in range).
    pub fn row_of_event(&self, event: usize) -> Option<usize> {
        // Row `event` first (one read, not a search through a million rows), then the search.
        if self.rows.get(event).is_some_and(|r| r.event() == event) {
            return Some(event);
        }
        self.rows.binary_search_by_key(&event, Row::event).ok()
    }

    /// The index of a lane, if the diagram has it.
    pub fn lane_index(&self, lane: &Lane) -> Option<usize> {
        self.lanes.iter().position(|l| &l.lane == lane)
    }

    /// The lesson, in the lines the SVG draws in the gap between the model and the servers.
    /// One sentence for every picture (the app, Mermaid, the SVG, a handout), so that a class
    /// reads the same words on each; it says the host was bypassed when messages crossed.
    pub fn lesson_lines(&self, words: Words) -> Vec<String> {
        let key = match self.direct_model_server {
            0 => "diagram.lesson_none",
            _ => "diagram.lesson_some",
        };
        let text = words.fmt(key, &[("count", &self.direct_model_server.to_string())]);
        // Each `|` follows a space, which stays with the line before it: the lines joined are
        // the sentence.
        text.split('|').map(str::to_string).collect()
    }

    /// The lesson as one line ([`Diagram::lesson_lines`] joined).
    pub fn lesson(&self, words: Words) -> String {
        self.lesson_lines(words).concat()
    }

    /// The LLM API lane, if the diagram has one.
    pub fn llm_lane(&self) -> Option<usize> {
        self.lanes.iter().position(|l| l.kind == LaneKind::Llm)
    }

    /// The label and detail of row `row` in `lang`, from the events and the report the diagram
    /// was built from. Rows out of range say nothing.
    pub fn text(
        &self,
        events: &[Event],
        report: &Report,
        row: usize,
        lang: crate::i18n::Language,
    ) -> RowText {
        match self.rows.get(row).filter(|r| r.event() < events.len()) {
            Some(r) => {
                let text = labels::Context { events, report }.describe_in(r.event(), lang);
                // The problem found when laying out, said in `lang` when the row says it.
                let problem = self
                    .problem(row)
                    .map(|found| text.problem.unwrap_or_else(|| found.to_string()));
                RowText {
                    label: text.label,
                    detail: text.detail,
                    problem,
                }
            }
            None => RowText {
                label: String::new(),
                detail: None,
                problem: None,
            },
        }
    }

    /// What every row says, in row order, in English (for tests; the app asks for the rows in
    /// view only, in its language).
    pub fn texts(&self, events: &[Event], report: &Report) -> Vec<RowText> {
        (0..self.rows.len())
            .map(|i| self.text(events, report, i, crate::i18n::Language::En))
            .collect()
    }

    /// The label of row `row` in English (see [`Diagram::text`]).
    pub fn label(&self, events: &[Event], report: &Report, row: usize) -> String {
        self.text(events, report, row, crate::i18n::Language::En)
            .label
    }

    /// For rows in a tool-call chain (the LLM response asking for the call, the `tools/call`,
    /// its result, the LLM request returning the result): the rows of the whole chain, sorted.
    /// A row in several chains (a response asking for two tools) gets the union. Empty otherwise.
    pub fn chain(&self, row: usize) -> &[usize] {
        match self.chains.binary_search_by_key(&row, |c| c.0) {
            Ok(k) => &self.chains[k].1,
            Err(_) => &[],
        }
    }

    /// What is wrong with row `row`, when its status is [`Status::Problem`].
    pub fn problem(&self, row: usize) -> Option<&str> {
        let k = self.problems.binary_search_by_key(&row, |p| p.0).ok()?;
        Some(&self.problems[k].1)
    }

    /// The rows that are part of a tool-call chain, in order.
    pub fn chained_rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.chains.iter().map(|c| c.0)
    }

    /// The server lanes, left to right.
    pub fn server_lanes(&self) -> Vec<usize> {
        (0..self.lanes.len())
            .filter(|&i| self.lanes[i].kind == LaneKind::Server)
            .collect()
    }
}

/// Microseconds from the first event to event `event` (negative if the wall clock was stepped
/// back; 0 out of range).
pub fn offset_us(events: &[Event], event: usize) -> i64 {
    match (events.first(), events.get(event)) {
        (Some(first), Some(e)) => (e.time - first.time).num_microseconds().unwrap_or(0),
        _ => 0,
    }
}

/// Traces with at least this many events have their rows built on two threads.
const PARALLEL_ROWS_FROM: usize = 20_000;

/// Builds the diagram of a trace from its events and their analysis.
pub fn build(events: &[Event], report: &Report) -> Diagram {
    let mut lanes = lanes(events);
    let remote_lanes = remote::lanes(report, &lanes);
    lanes.extend(remote_lanes);
    let lane_index: HashMap<&Lane, usize> = lanes
        .iter()
        .enumerate()
        .map(|(i, l)| (&l.lane, i))
        .collect();
    let ctx = labels::Context { events, report };

    let row = |i: usize| layout_row(&ctx, &lane_index, i);
    // Rows are independent of each other: a big trace is laid out on two threads.
    let mut problems = Vec::new();
    let mut rows: Vec<Row> = Vec::with_capacity(events.len());
    type Problems = Vec<(usize, Shared)>;
    let keep = |range: std::ops::Range<usize>, rows: &mut Vec<Row>, problems: &mut Problems| {
        for i in range {
            let (r, problem) = row(i);
            rows.push(r);
            problems.extend(problem);
        }
    };
    if events.len() >= PARALLEL_ROWS_FROM {
        let half = events.len() / 2;
        let ((), (rest, more)) = crate::trace::halves::join(
            || keep(0..half, &mut rows, &mut problems),
            || {
                let mut rest = Vec::with_capacity(events.len() - half);
                let mut problems = Vec::new();
                for i in half..events.len() {
                    let (r, problem) = row(i);
                    rest.push(r);
                    problems.extend(problem);
                }
                (rest, problems)
            },
        );
        rows.extend(rest);
        problems.extend(more);
    } else {
        keep(0..events.len(), &mut rows, &mut problems);
    }

    // JSON-RPC pairs.
    for (i, d) in report.rpc.derived.iter().enumerate().take(rows.len()) {
        if let Pairing::AnsweredBy(_) | Pairing::Answers(_) = d.pairing {
            rows[i].set_pair(report.rpc.paired(events, i));
        }
    }
    // LLM pairs.
    for x in &report.llm {
        if let Some(r) = x.response.filter(|&r| r < rows.len()) {
            rows[x.request].set_pair(Some(r));
            rows[r].set_pair(Some(x.request));
        }
    }
    // Tool-call chains.
    let mut chains: HashMap<usize, Vec<usize>> = HashMap::new();
    for c in &report.chains {
        let members: Vec<usize> = c.members().filter(|&m| m < rows.len()).collect();
        for &m in &members {
            chains.entry(m).or_default().extend(&members);
        }
    }
    // An LLM API's own calls, with what the server recorded of them, hang on its answer.
    for c in report.remote_chains(events) {
        let answer = report.llm[c.exchange].response;
        let members: Vec<usize> = answer.into_iter().chain(c.members()).collect();
        let members: Vec<usize> = members.into_iter().filter(|&m| m < rows.len()).collect();
        if members.len() > 1 {
            for &m in &members {
                chains.entry(m).or_default().extend(&members);
            }
        }
    }
    let mut chains: Vec<(usize, Vec<usize>)> = chains.into_iter().collect();
    chains.sort_unstable_by_key(|c| c.0);
    for (_, chain) in &mut chains {
        chain.sort_unstable();
        chain.dedup();
        chain.shrink_to_fit();
    }

    let direct_model_server = events.iter().filter(|e| crosses_gap(e)).count();
    let users_recorded = hops::users_recorded(events);
    let hops = hops::merge(
        remote::hops(report, &lanes),
        hops::hops(report, &lanes, users_recorded),
    );
    Diagram {
        lanes,
        rows,
        direct_model_server,
        chains,
        problems,
        hops,
        users_recorded,
    }
}

/// Whether `e` went between the model and a server, across the gap the lesson is about. An
/// HTTP exchange between the LLM API and a server does not: that is the API platform's own MCP
/// client (Anthropic's MCP connector, OpenAI's `mcp` tools, recorded behind `sightline proxy
/// --http`), not the model, which has no transport of its own.
pub(crate) fn crosses_gap(e: &Event) -> bool {
    let between =
        (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm);
    between && e.channel != Channel::Http
}

/// The row of event `i`, and what its problem is when its status is [`Status::Problem`].
fn layout_row(
    ctx: &labels::Context<'_>,
    lane_index: &HashMap<&Lane, usize>,
    i: usize,
) -> (Row, Option<(usize, Shared)>) {
    let e = &ctx.events[i];
    let (from, to) = row_lanes(e);
    // Most rows' status needs no text; the others are described in full.
    let (style, status, problem) = match ctx.style_status(i) {
        Some((style, status)) => (style, status, None),
        None => {
            let text = ctx.describe(i);
            (text.style, text.status, text.problem)
        }
    };
    let problem = match status {
        Status::Problem => problem.map(|p| (i, Shared::from(p))),
        _ => None,
    };
    let row = Row::new(i, lane_index[from], lane_index[to], style, status);
    (row, problem)
}

/// The lanes a row is drawn between: stderr lines and process events sit on the server's
/// lifeline; everything else goes from its sender to its receiver.
fn row_lanes(e: &Event) -> (&Lane, &Lane) {
    match e.channel {
        Channel::Stderr | Channel::Process => {
            let lane = [&e.from, &e.to]
                .into_iter()
                .find(|l| l.is_server())
                .unwrap_or(&e.from);
            (lane, lane)
        }
        _ => (&e.from, &e.to),
    }
}

/// Whether an event belongs to the host's own side (a person, a model, Sightline's notes).
fn host_side(e: &Event) -> bool {
    matches!(e.channel, Channel::Note | Channel::LlmHttp)
        || [&e.from, &e.to]
            .into_iter()
            .any(|l| matches!(l, Lane::User | Lane::Llm))
}

fn lanes(events: &[Event]) -> Vec<LaneInfo> {
    let mut order: Vec<Lane> = Vec::new();
    if events.iter().any(host_side) {
        order.extend([Lane::User, Lane::Host, Lane::Llm]);
    } else {
        order.push(Lane::Host);
    }
    let seen = events.iter().flat_map(|e| [&e.from, &e.to]);
    for lane in seen.clone().filter(|l| l.is_server()) {
        if !order.contains(lane) {
            order.push(lane.clone());
        }
    }
    for lane in seen {
        if !order.contains(lane) {
            order.push(lane.clone());
        }
    }
    order
        .into_iter()
        .map(|lane| {
            let (title, kind) = match &lane {
                Lane::User => ("User".to_string(), LaneKind::User),
                Lane::Host => ("Host".to_string(), LaneKind::Host),
                Lane::Llm => ("LLM API".to_string(), LaneKind::Llm),
                Lane::Server(name) => (visible(name, 40), LaneKind::Server),
                Lane::Other(name) => (visible(name, 40), LaneKind::Other),
            };
            LaneInfo { lane, title, kind }
        })
        .collect()
}
