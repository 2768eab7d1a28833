//! Everything a trace means, computed from what it holds: kinds, pairs, latency, revisions.
//!
//! Correlation rules, each from a real peer's behaviour:
//! - A response answers the pending request with the same id *sent the other way*. Hosts and
//!   servers number their own requests independently (both often start at 0), so a server's
//!   `roots/list` with id 0 and the host's `initialize` with id 0 are different requests.
//! - A request is unanswered when its server exits, or the trace ends, before a reply.
//! - The revision of a session is the one `initialize` negotiated (2025-11-25 and earlier), or
//!   the one each request names in `_meta["io.modelcontextprotocol/protocolVersion"]`
//!   (2026-07-28, where `server/discover` replaces the handshake).
//! - A 2026-07-28 multi-round-trip retry (a request carrying `requestState` or
//!   `inputResponses`) is linked to the earlier request whose result was `input_required`.
//! - Notifications on a `subscriptions/listen` stream are grouped under the listen request
//!   whose id they carry in `_meta["io.modelcontextprotocol/subscriptionId"]`.

use std::collections::{HashMap, HashSet};

use foldhash::fast::RandomState;

use chrono::{DateTime, Utc};

pub use super::derived::{Analysis, Derived, Kind, PENDING_AT_END, Pairing, Session};
use super::event::{Channel, Event, Lane};
use super::jsonrpc::{Invalidity, Message, MessageKind, Problem, RpcId, classify, classify_text};
use super::shared::Shared;

mod exchange;

/// `_meta` key naming the revision of a 2026-07-28 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key tying a notification to its `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Key of a pending request: sender, receiver, id.
type PendingKey = (Lane, Lane, RpcId);

/// Key of an `input_required` result: sender, receiver, method, name of the request.
type RetryKey = (Lane, Lane, Shared, Option<Shared>);

struct Pending {
    index: usize,
    method: Shared,
    name: Option<Shared>,
}

#[derive(Default)]
struct State {
    pending: HashMap<PendingKey, Pending, RandomState>,
    sessions: HashMap<Lane, Session, RandomState>,
    /// (sender, receiver, method, name) -> index of the request whose result was input_required.
    input_required: HashMap<RetryKey, usize, RandomState>,
    /// (sender, receiver, listen id) -> index of the subscriptions/listen request.
    listens: HashMap<PendingKey, usize, RandomState>,
    /// Every text shared by the derived events (see [`Derived`]).
    texts: HashSet<Shared, RandomState>,
    /// Indices of events whose interpretation changed after it was made (see
    /// [`Analyzer::extend`]).
    touched: Vec<usize>,
    /// [`PENDING_AT_END`], shared (every request reads so until it is settled).
    pending_at_end: Option<Shared>,
}

/// Microseconds from `asked` to `answered`; `None` when the answer is recorded before the
/// question (events out of time order, which the loader warns about): never a negative latency.
pub fn latency_us(asked: DateTime<Utc>, answered: DateTime<Utc>) -> Option<i64> {
    (answered - asked).num_microseconds().filter(|us| *us >= 0)
}

/// Interprets every event of a trace.
pub fn analyze(events: &[Event]) -> Analysis {
    let mut analysis = Analysis::default();
    Analyzer::default().extend(events, &mut analysis);
    analysis
}

/// The correlation of a trace that grows: [`Analyzer::extend`] interprets the events appended
/// since the last call and updates what they change of the earlier ones (a request's pairing
/// once its answer, its cancellation or its server's exit arrives). After every call the
/// analysis is what [`analyze`] says of the events so far: a request still waiting reads as
/// unanswered ([`PENDING_AT_END`]) until something settles it.
#[derive(Default)]
pub struct Analyzer {
    state: State,
}

impl Analyzer {
    /// Interprets `events[analysis.derived.len()..]` into `analysis` (which holds the
    /// interpretation of the events before them, made by this analyzer). Returns the indices
    /// of the earlier events whose [`Derived`] changed, in no particular order.
    pub fn extend(&mut self, events: &[Event], analysis: &mut Analysis) -> Vec<usize> {
        let state = &mut self.state;
        analysis.seqs.extend(events);
        let derived = &mut analysis.derived;
        let from = derived.len();
        derived.reserve(events.len().saturating_sub(from));
        for (index, event) in events.iter().enumerate().skip(from) {
            let d = match event.channel {
                // An HTTP exchange without a body (a 202, a GET or DELETE, an SSE priming event)
                // carries no message: it is not an invalid one.
                Channel::Http
                    if event.bytes().is_some_and(|b| b.is_empty())
                        && event
                            .http()
                            .is_some_and(|h| h.status.is_some() || h.method.is_some()) =>
                {
                    Derived::plain(Kind::Other)
                }
                Channel::Stdio | Channel::Http => {
                    let bytes = event.raw.is_none().then(|| event.bytes()).flatten();
                    let msg = match (&event.raw, &bytes) {
                        (Some(text), _) => classify_text(text),
                        (None, Some(bytes)) => classify(bytes),
                        (None, None) => Message::invalid(Problem::new(Invalidity::NoPayload)),
                    };
                    state.message(index, event, msg, events, derived)
                }
                Channel::Process => {
                    state.process(event, derived);
                    Derived::plain(Kind::Process)
                }
                Channel::Stderr => Derived::plain(Kind::Stderr),
                Channel::Note => Derived::plain(Kind::Note),
                Channel::LlmHttp => Derived::plain(Kind::LlmHttp),
                Channel::Other(_) => Derived::plain(Kind::Other),
            };
            derived.push(d);
        }
        let mut sessions: Vec<(Lane, Session)> = state
            .sessions
            .iter()
            .map(|(l, s)| (l.clone(), s.clone()))
            .collect();
        sessions.sort_by(|a, b| a.0.cmp(&b.0));
        analysis.sessions = sessions;
        let mut touched = std::mem::take(&mut state.touched);
        touched.retain(|&i| i < from);
        touched
    }
}

/// The copy of `text` in `texts`, added if it is not there yet.
fn share(texts: &mut HashSet<Shared, RandomState>, text: &str) -> Shared {
    if let Some(known) = texts.get(text) {
        return known.clone();
    }
    let new: Shared = Shared::from(text);
    texts.insert(new.clone());
    new
}

/// The server lane of a host-server exchange.
fn server_lane(event: &Event) -> Option<&Lane> {
    [&event.from, &event.to].into_iter().find(|l| l.is_server())
}

impl State {
    /// The shared copy of `text`.
    fn text(&mut self, text: &str) -> Shared {
        share(&mut self.texts, text)
    }

    /// [`PENDING_AT_END`], shared.
    fn pending_at_end(&mut self) -> Shared {
        let texts = &mut self.texts;
        self.pending_at_end
            .get_or_insert_with(|| share(texts, PENDING_AT_END))
            .clone()
    }

    fn opt_text(&mut self, text: Option<&str>) -> Option<Shared> {
        text.map(|t| self.text(t))
    }

    fn process(&mut self, event: &Event, derived: &mut [Derived]) {
        let Some(info) = event.process() else { return };
        let Some(lane) = server_lane(event).cloned() else {
            return;
        };
        if info.event == "spawn" {
            // A new process is a new session: forget the old one's handshake.
            self.sessions.insert(lane.clone(), Session::default());
        }
        if info.event == "exit" || info.event == "spawn" {
            let reason: Shared =
                Shared::from(format!("the server exited first (event #{})", event.seq));
            let gone: Vec<PendingKey> = self
                .pending
                .keys()
                .filter(|(from, to, _)| *from == lane || *to == lane)
                .cloned()
                .collect();
            for key in gone {
                if let Some(p) = self.pending.remove(&key) {
                    derived[p.index].pairing = Pairing::Unanswered(reason.clone());
                    self.touched.push(p.index);
                }
            }
        }
    }

    fn message(
        &mut self,
        index: usize,
        event: &Event,
        msg: Message<'_>,
        events: &[Event],
        derived: &mut [Derived],
    ) -> Derived {
        let server = server_lane(event).cloned();
        let session_revision = server
            .as_ref()
            .and_then(|l| self.sessions.get(l))
            .and_then(|s| s.revision.as_deref())
            .map(|r| share(&mut self.texts, r));
        let mut d = Derived::plain(match msg.kind {
            MessageKind::Request => Kind::Request,
            MessageKind::Notification => Kind::Notification,
            MessageKind::Response => Kind::Response,
            MessageKind::Error => Kind::Error,
            MessageKind::Invalid => Kind::Invalid,
        });
        d.method = self.opt_text(msg.method.as_deref());
        d.id = msg.id.clone();
        if let Some(problem) = &msg.problem {
            // The detail is one of the trace's texts, shared like the others.
            let detail = problem.detail.as_deref().map(|t| self.text(t));
            d.rare().problem = Some(Problem {
                why: problem.why,
                detail,
            });
        }
        d.revision = session_revision;

        match msg.kind {
            MessageKind::Request => {
                self.request(index, event, &msg, server.as_ref(), events, derived, &mut d)
            }
            MessageKind::Response | MessageKind::Error => {
                self.response(event, &msg, server.as_ref(), events, derived, &mut d)
            }
            MessageKind::Notification => self.notification(event, &msg, events, derived, &mut d),
            MessageKind::Invalid => {}
        }
        d
    }
}

#[cfg(test)]
mod tests;
