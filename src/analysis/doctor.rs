//! The doctor: why a tool is, or is not, visible to the model, with the event that proves it.
//!
//! "The server says connected, `tools/list` works, yet the model never gets the tool" has many
//! causes spread over three parties: the server (did it start, answer the handshake, advertise
//! tools, answer `tools/list`?), the host (did it ask, did it keep the tool, under which name,
//! did it list again after `list_changed`?) and the provider (does it accept the name, the
//! schema, that many tools, that long a description?). The doctor walks a trace in that order
//! and gives every server and every tool one stable [`Code`], the `seq` of the event that shows
//! it, a sentence of detail and a fix. The codes are documented in `docs/doctor.md`.
//!
//! How visibility is judged:
//! - **A trace with LLM requests**: against the `tools` of the *last* LLM request (what the
//!   model saw last), using the host's `note` events ("host drops tool ...", "host shows tool
//!   ... as ...") as the evidence for why a listed tool is missing or renamed.
//! - **A trace without LLM requests** (a `sightline proxy` recording of a real host's server, or
//!   `sightline doctor -- CMD`): by running [`Catalog::build`] (a default host: prefix colliding
//!   names, drop invalid tools one by one) on each server's last `tools/list` for the chosen
//!   provider, so the findings say "would be".
//!
//! In both cases a tool that is sent but that the real provider refuses (an invalid schema, too
//! long a description, too many tools) counts as not visible: the provider's limits are in
//! [`rules`].
//!
//! [`Catalog::build`]: crate::wire::catalog::Catalog::build

mod host;
mod index;
mod matrix;
mod remote;
mod render;
pub mod rules;
mod session;
mod tools;

use serde::{Serialize, Serializer};
use serde_json::Value;

pub use index::Reader;
pub use matrix::{Matrix, matrix, matrix_json, matrix_text};
pub use remote::RemoteFinding;
pub use render::{host_line, json_lines, text, text_in, verdict_in};

use super::Report;
use crate::analysis::hosts::{Profile, Recognised};
use crate::i18n::{Said, Words};
use crate::trace::{Event, Pairing};
use crate::wire::api::ApiShape;

/// Why a tool is or is not visible, or what is wrong with a server. Stable: scripts match on
/// [`Code::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// Visible, and the model called it.
    VisibleCalled,
    /// Visible, but the model chose not to call it: not a visibility problem.
    VisibleNotCalled,
    /// Deferred by the host: its name is in the model's context and its schema is loaded
    /// when the model searches for it (Claude Code's tool search, `defer_loading`).
    VisibleOnDemand,
    /// The server's command could not be started.
    ServerFailedToStart,
    /// The server exited before answering the handshake or `tools/list`.
    ServerCrashed,
    /// `initialize` / `server/discover` failed or was never answered.
    HandshakeFailed,
    /// The server refused the protocol version, or answered one the host cannot use.
    ProtocolVersionRefused,
    /// The handshake result advertises no `tools` capability.
    NoToolsCapability,
    /// The host never asked for the tools.
    ToolsListNeverSent,
    /// `tools/list` was answered with an error (or not answered, or without a tool array).
    ToolsListError,
    /// The provider's tool-name pattern rejects the name.
    NameRejected,
    /// Another server lists the same name: the host dropped or renamed one.
    DuplicateName,
    /// `inputSchema` is missing or not `"type": "object"`.
    SchemaNotObject,
    /// `inputSchema` is not a valid JSON Schema.
    SchemaInvalid,
    /// More tools, or a longer description, than the provider accepts.
    ProviderLimit,
    /// `notifications/tools/list_changed` arrived and the host did not list again.
    StaleList,
    /// The host's configuration filters the tool out.
    HostFiltered,
    /// The host dropped the whole server because of one bad tool.
    ServerDropped,
    /// A tool named with `--expect` that no server listed.
    ExpectedNotListed,
    /// Visible, under a name the host changed beyond its usual prefix (sanitized, cut,
    /// hashed): prompts must use that name.
    RenamedByHost,
    /// Visible, with its description cut by the host.
    DescriptionCut,
    /// Left out (or its server refused, or the request failed) because of the host's tool cap.
    HiddenByCap,
    /// The server answered the handshake later than the host waits.
    TooSlowToStart,
    /// The host's own schema validator refuses the tool's `inputSchema`.
    SchemaRefused,
    /// The tool is on a page of `tools/list` the host does not read (it reads only the
    /// first); on a server, a `nextCursor` the host never followed.
    PageNotRead,
}

impl Code {
    pub const ALL: [Code; 25] = [
        Code::VisibleCalled,
        Code::VisibleNotCalled,
        Code::VisibleOnDemand,
        Code::ServerFailedToStart,
        Code::ServerCrashed,
        Code::HandshakeFailed,
        Code::ProtocolVersionRefused,
        Code::NoToolsCapability,
        Code::ToolsListNeverSent,
        Code::ToolsListError,
        Code::NameRejected,
        Code::DuplicateName,
        Code::SchemaNotObject,
        Code::SchemaInvalid,
        Code::ProviderLimit,
        Code::StaleList,
        Code::HostFiltered,
        Code::ServerDropped,
        Code::ExpectedNotListed,
        Code::RenamedByHost,
        Code::DescriptionCut,
        Code::HiddenByCap,
        Code::TooSlowToStart,
        Code::SchemaRefused,
        Code::PageNotRead,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::VisibleCalled => "visible-called",
            Code::VisibleNotCalled => "visible-not-called",
            Code::VisibleOnDemand => "visible-on-demand",
            Code::ServerFailedToStart => "server-failed-to-start",
            Code::ServerCrashed => "server-crashed",
            Code::HandshakeFailed => "handshake-failed",
            Code::ProtocolVersionRefused => "protocol-version-refused",
            Code::NoToolsCapability => "no-tools-capability",
            Code::ToolsListNeverSent => "tools-list-never-sent",
            Code::ToolsListError => "tools-list-error",
            Code::NameRejected => "name-rejected",
            Code::DuplicateName => "duplicate-name",
            Code::SchemaNotObject => "schema-not-object",
            Code::SchemaInvalid => "schema-invalid",
            Code::ProviderLimit => "provider-limit",
            Code::StaleList => "stale-list",
            Code::HostFiltered => "host-filtered",
            Code::ServerDropped => "server-dropped",
            Code::ExpectedNotListed => "expected-not-listed",
            Code::RenamedByHost => "renamed-by-host",
            Code::DescriptionCut => "description-cut",
            Code::HiddenByCap => "hidden-by-cap",
            Code::TooSlowToStart => "too-slow-to-start",
            Code::SchemaRefused => "schema-refused",
            Code::PageNotRead => "page-not-read",
        }
    }

    /// The code named `s`, if any.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Codes that mean the model sees the tool (or would).
    pub fn is_visible(self) -> bool {
        matches!(
            self,
            Code::VisibleCalled
                | Code::VisibleNotCalled
                | Code::VisibleOnDemand
                | Code::RenamedByHost
                | Code::DescriptionCut
        )
    }

    /// Codes that mean a server delivered no usable tool list.
    pub fn is_server_failure(self) -> bool {
        matches!(
            self,
            Code::ServerFailedToStart
                | Code::ServerCrashed
                | Code::HandshakeFailed
                | Code::ProtocolVersionRefused
                | Code::NoToolsCapability
                | Code::ToolsListNeverSent
                | Code::ToolsListError
                | Code::TooSlowToStart
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What the doctor is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct DoctorOptions {
    /// The provider to judge against when the trace has no LLM request (with one, the
    /// request's own shape is used).
    pub provider: ApiShape,
    /// Tools the user expects the model to see: an MCP name, `server/tool`, or the name the
    /// model sees (`server__tool`).
    pub expect: Vec<String>,
    /// Which host's profile ([`crate::analysis::hosts`]) explains or predicts the verdicts.
    pub host: HostChoice,
}

/// Which host profile the doctor judges by.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum HostChoice {
    /// The host the trace shows ([`crate::analysis::hosts::recognise`]), if a profile knows it.
    #[default]
    Recognise,
    /// This profile (`--host ID`), whatever the trace shows.
    Named(&'static Profile),
    /// No profile: a default host's rules only.
    None,
}

impl Default for DoctorOptions {
    fn default() -> Self {
        DoctorOptions {
            provider: ApiShape::Anthropic,
            expect: Vec::new(),
            host: HostChoice::Recognise,
        }
    }
}

/// The host profile a diagnosis used, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostUsed {
    pub id: String,
    pub name: String,
    /// `None` when named with `--host`; else what recognised it.
    #[serde(skip)]
    pub recognised: Option<Recognised>,
}

/// The verdict on one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFinding {
    /// The server that listed it (`None` for an expected tool no server can be tied to).
    pub server: Option<String>,
    /// The tool's MCP name (or the expected name as given).
    pub tool: String,
    /// Whether the model sees it (or would).
    pub visible: bool,
    pub code: Code,
    /// The `seq` of the event that proves it.
    pub seq: Option<u64>,
    /// [`ToolFinding::said`] in English.
    pub detail: String,
    /// The detail as a sentence each language can say ([`ToolFinding::detail_in`]).
    #[serde(skip)]
    pub said: Said,
    /// What to do about it, in each language (English in the JSON); empty when nothing needs
    /// doing.
    #[serde(serialize_with = "Said::serialize_english")]
    pub hint: Said,
    /// Whether the tool was named with `--expect` ([`DoctorOptions::expect`]).
    pub expected: bool,
    /// The name the host shows the model, by its profile's naming rule, when a profile is in
    /// force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_name: Option<String>,
}

/// The verdict on one server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerFinding {
    pub server: String,
    /// `None` when nothing is wrong with the server itself; else a server-level code
    /// ([`Code::is_server_failure`], or [`Code::StaleList`]).
    pub code: Option<Code>,
    /// The event that proves the code, or the `tools/list` result the tools came from.
    pub seq: Option<u64>,
    /// [`ServerFinding::said`] in English.
    pub detail: String,
    /// The detail as a sentence each language can say ([`ServerFinding::detail_in`]).
    #[serde(skip)]
    pub said: Said,
    /// What to do about it (English in the JSON); empty when nothing is wrong.
    #[serde(serialize_with = "Said::serialize_english")]
    pub hint: Said,
    /// The protocol revision of the session, when known.
    pub revision: Option<String>,
    /// How many tools its last `tools/list` named.
    pub listed: usize,
    /// How many of those the model sees (or would).
    pub visible: usize,
    /// The last lines the server wrote to stderr before it exited (at most 5), for crashes.
    pub stderr_tail: Vec<String>,
}

impl ToolFinding {
    /// The detail in the language of `w`.
    pub fn detail_in(&self, w: Words) -> String {
        self.said.say(w)
    }

    /// The hint in the language of `w`.
    pub fn hint_in(&self, w: Words) -> String {
        self.hint.say(w)
    }
}

impl ServerFinding {
    /// The detail in the language of `w`.
    pub fn detail_in(&self, w: Words) -> String {
        self.said.say(w)
    }

    /// The hint in the language of `w` (empty when there is none).
    pub fn hint_in(&self, w: Words) -> String {
        self.hint.say(w)
    }

    /// Whether the server delivered no usable tool list.
    pub fn failed(&self) -> bool {
        self.code.is_some_and(Code::is_server_failure)
    }
}

/// What visibility was judged against.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "basis")]
pub enum Basis {
    /// The `tools` of the last LLM request, event `seq`.
    LastRequest { seq: u64, shape: ApiShape },
    /// What a host would send to `shape` (no LLM request in the trace).
    WouldBe { shape: ApiShape },
}

impl Basis {
    pub fn shape(self) -> ApiShape {
        match self {
            Basis::LastRequest { shape, .. } | Basis::WouldBe { shape } => shape,
        }
    }

    pub fn would_be(self) -> bool {
        matches!(self, Basis::WouldBe { .. })
    }
}

/// Everything the doctor found.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// Every listed tool, server by server in order of appearance, then expected tools no
    /// server listed.
    pub tools: Vec<ToolFinding>,
    pub servers: Vec<ServerFinding>,
    pub basis: Basis,
    /// The host profile that explained or predicted the verdicts, if any.
    pub host: Option<HostUsed>,
    /// The remote servers an LLM API connected to itself, as its answers tell it.
    pub remote: Vec<RemoteFinding>,
}

impl Diagnosis {
    /// True when every listed and expected tool is visible, every server listed its tools, and
    /// the host read every page of them.
    pub fn all_visible(&self) -> bool {
        self.tools.iter().all(|t| t.visible)
            && !self
                .servers
                .iter()
                .any(|s| s.failed() || s.code == Some(Code::PageNotRead))
    }

    /// The exit status of `sightline doctor`: 0 when [`all_visible`](Self::all_visible), else 1.
    pub fn exit_status(&self) -> u8 {
        u8::from(!self.all_visible())
    }

    /// The finding for `tool` (an MCP name), on any server.
    pub fn tool(&self, tool: &str) -> Option<&ToolFinding> {
        self.tools.iter().find(|t| t.tool == tool)
    }

    pub fn server(&self, server: &str) -> Option<&ServerFinding> {
        self.servers.iter().find(|s| s.server == server)
    }
}

/// Diagnoses a trace: one finding per server and per tool (see the module documentation).
pub fn diagnose(events: &[Event], report: &Report, options: &DoctorOptions) -> Diagnosis {
    let mut reader = Reader::default();
    reader.step(events, report, usize::MAX);
    reader.finish(events, report, options)
}

/// The exchange visibility is judged against: the last LLM request that offers the model any
/// tool, else the last one. A real host's side calls (a title, a quota check, a router) carry
/// no tools and say nothing of what the agent's model sees.
pub(crate) fn judged(report: &Report) -> Option<usize> {
    let offers = |x: &super::LlmExchange| !x.offered.tools.is_empty() || !x.tools.is_empty();
    report
        .llm
        .iter()
        .rposition(offers)
        .or_else(|| report.llm.len().checked_sub(1))
}

/// The trace and its analysis, with the lookups every part of the doctor needs.
pub(crate) struct Ctx<'a> {
    pub events: &'a [Event],
    pub report: &'a Report,
    /// What the pass over the trace gathered.
    pub index: &'a Reader,
    /// Index of the last LLM request, or the trace's length: what happened after it cannot
    /// have changed what the model saw.
    pub cut: usize,
}

impl<'a> Ctx<'a> {
    fn new(events: &'a [Event], report: &'a Report, index: &'a Reader) -> Self {
        let cut = judged(report).map_or(events.len(), |n| report.llm[n].request);
        Ctx {
            events,
            report,
            index,
            cut,
        }
    }

    pub fn seq(&self, i: usize) -> u64 {
        self.events[i].seq
    }

    /// The index of the response to the request at `i`.
    pub fn answer(&self, i: usize) -> Option<usize> {
        match self.report.rpc.derived.get(i)?.pairing {
            Pairing::AnsweredBy(seq) => self.report.rpc.later(self.events, seq, i),
            _ => None,
        }
    }

    /// The payload of event `i` as JSON.
    pub fn json(&self, i: usize) -> Option<Value> {
        serde_json::from_str(&self.events[i].text()).ok()
    }
}
