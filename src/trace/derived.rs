//! What one event means once interpreted ([`Derived`]), and what a whole trace means
//! ([`Analysis`]): the output of [`super::analyze`], kept apart from the correlation that
//! computes it.

use super::event::Lane;
use super::jsonrpc::{Problem, RpcId};
use super::shared::Shared;

/// What an event is, once interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Request,
    Notification,
    Response,
    Error,
    /// A payload on a JSON-RPC channel that is not a valid JSON-RPC message.
    Invalid,
    Stderr,
    Process,
    Note,
    LlmHttp,
    /// A channel this version does not know.
    Other,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "response",
            Kind::Error => "error",
            Kind::Invalid => "invalid",
            Kind::Stderr => "stderr",
            Kind::Process => "process",
            Kind::Note => "note",
            Kind::LlmHttp => "llm-http",
            Kind::Other => "other",
        }
    }
}

/// How a request or response relates to its partner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairing {
    /// Not a request or a response.
    None,
    /// A request, answered by the event with this `seq`.
    AnsweredBy(u64),
    /// A response, answering the request with this `seq`.
    Answers(u64),
    /// A request that never got a response, and why.
    Unanswered(Shared),
    /// A request the sender cancelled (`notifications/cancelled`, event `seq`) before a reply.
    Cancelled(u64),
    /// A response whose id matches no pending request sent the other way.
    Orphan,
}

/// Why a request has no answer when the events end before it: the request may still be in
/// flight (a live stream maps it only once its answer arrives).
pub const PENDING_AT_END: &str = "no response before the trace ended";

/// [`Derived::latency_us`]'s `None`: no two times of a trace are that far apart.
const NO_LATENCY: i64 = i64::MIN;

/// The interpretation of one event.
///
/// There is one per event, so it is kept small: texts that repeat (methods, revisions, tool
/// names, problems, reasons) are [`Shared`]s, one per distinct text in a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub kind: Kind,
    /// For a result with `resultType: "input_required"`: true.
    pub input_required: bool,
    /// The method; for a response, the method of the request it answers.
    pub method: Option<Shared>,
    pub id: Option<RpcId>,
    pub pairing: Pairing,
    /// Request-to-response time, on both the request and the response ([`Self::latency_us`]):
    /// [`NO_LATENCY`] for none, which keeps it 8 bytes, not the 16 of an `Option<i64>`.
    latency_us: i64,
    /// The MCP revision in force for this message, when known.
    pub revision: Option<Shared>,
    /// A short qualifier for display: the tool name, the uri, the requested version.
    pub detail: Option<Shared>,
    /// What few events have: see [`Derived::problem`], [`Derived::error`],
    /// [`Derived::retry_of`] and [`Derived::subscription`].
    rare: Option<Box<Rare>>,
}

/// The parts of a [`Derived`] that most events lack, boxed together.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Rare {
    pub(super) problem: Option<Problem>,
    pub(super) error: Option<(i64, String)>,
    pub(super) retry_of: Option<u64>,
    pub(super) subscription: Option<u64>,
}

impl Derived {
    pub(super) fn plain(kind: Kind) -> Self {
        Derived {
            kind,
            method: None,
            id: None,
            pairing: Pairing::None,
            latency_us: NO_LATENCY,
            revision: None,
            detail: None,
            input_required: false,
            rare: None,
        }
    }

    /// Request-to-response time in microseconds, on both the request and the response.
    pub fn latency_us(&self) -> Option<i64> {
        (self.latency_us != NO_LATENCY).then_some(self.latency_us)
    }

    pub(super) fn set_latency_us(&mut self, latency: Option<i64>) {
        self.latency_us = latency.map_or(NO_LATENCY, |us| us.max(NO_LATENCY + 1));
    }

    /// What is wrong with an invalid payload.
    pub fn problem(&self) -> Option<&Problem> {
        self.rare.as_ref()?.problem.as_ref()
    }

    /// For error responses: the JSON-RPC error code and message.
    pub fn error(&self) -> Option<(i64, &str)> {
        let (code, message) = self.rare.as_ref()?.error.as_ref()?;
        Some((*code, message))
    }

    /// For a multi-round-trip retry: the `seq` of the request of the previous round.
    pub fn retry_of(&self) -> Option<u64> {
        self.rare.as_ref()?.retry_of
    }

    /// For listen-stream messages: the `seq` of the `subscriptions/listen` request.
    pub fn subscription(&self) -> Option<u64> {
        self.rare.as_ref()?.subscription
    }

    /// The rare parts, boxed on first use.
    pub(super) fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    pub fn is_unanswered(&self) -> bool {
        matches!(self.pairing, Pairing::Unanswered(_))
    }
}

/// What is known about the MCP session with one server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// The revision negotiated or named per request; the latest seen wins.
    pub revision: Option<String>,
    /// `true` for 2026-07-28 style (no handshake, `_meta` per request).
    pub stateless: bool,
    /// `serverInfo.name` from `initialize` or `server/discover`.
    pub server_name: Option<String>,
    pub instructions: Option<String>,
}

/// The derived view of a whole trace: one [`Derived`] per event, index for index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    pub derived: Vec<Derived>,
    /// Per server lane: what its session looked like by the end of the trace.
    pub sessions: Vec<(Lane, Session)>,
    /// Where the event with a given `seq` is ([`Analysis::earlier`], [`Analysis::later`]).
    pub(super) seqs: super::seqs::Seqs,
}
