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

use chrono::{DateTime, Utc};

pub use super::derived::{Analysis, Derived, Kind, PENDING_AT_END, Pairing, Session};
use super::event::{Channel, Event, Lane};
use super::jsonrpc::{Message, MessageKind, ResultMembers, RpcId, classify};
use super::shared::Shared;

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
    pending: HashMap<PendingKey, Pending>,
    sessions: HashMap<Lane, Session>,
    /// (sender, receiver, method, name) -> index of the request whose result was input_required.
    input_required: HashMap<RetryKey, usize>,
    /// (sender, receiver, listen id) -> index of the subscriptions/listen request.
    listens: HashMap<PendingKey, usize>,
    /// Every text shared by the derived events (see [`Derived`]).
    texts: HashSet<Shared>,
}

/// Interprets every event of a trace.
/// Microseconds from `asked` to `answered`; `None` when the answer is recorded before the
/// question (events out of time order, which the loader warns about): never a negative latency.
pub fn latency_us(asked: DateTime<Utc>, answered: DateTime<Utc>) -> Option<i64> {
    (answered - asked).num_microseconds().filter(|us| *us >= 0)
}

pub fn analyze(events: &[Event]) -> Analysis {
    let mut state = State::default();
    let mut derived: Vec<Derived> = Vec::with_capacity(events.len());
    for (index, event) in events.iter().enumerate() {
        let d = match event.channel {
            // An HTTP exchange without a body (a 202, a GET or DELETE, an SSE priming event)
            // carries no message: it is not an invalid one.
            Channel::Http
                if event.bytes().is_some_and(|b| b.is_empty())
                    && event
                        .http
                        .as_ref()
                        .is_some_and(|h| h.status.is_some() || h.method.is_some()) =>
            {
                Derived::plain(Kind::Other)
            }
            Channel::Stdio | Channel::Http => {
                let bytes = event.bytes();
                let msg = match &bytes {
                    Some(bytes) => classify(bytes),
                    None => Message::invalid("no payload (neither `raw` nor a valid `raw_b64`)"),
                };
                state.message(index, event, msg, events, &mut derived)
            }
            Channel::Process => {
                state.process(event, &mut derived);
                Derived::plain(Kind::Process)
            }
            Channel::Stderr => Derived::plain(Kind::Stderr),
            Channel::Note => Derived::plain(Kind::Note),
            Channel::LlmHttp => Derived::plain(Kind::LlmHttp),
            Channel::Other(_) => Derived::plain(Kind::Other),
        };
        derived.push(d);
    }
    let never: Shared = Shared::from(PENDING_AT_END);
    for (_, pending) in state.pending.drain() {
        derived[pending.index].pairing = Pairing::Unanswered(never.clone());
    }
    let mut sessions: Vec<(Lane, Session)> = state.sessions.into_iter().collect();
    sessions.sort_by(|a, b| a.0.cmp(&b.0));
    Analysis { derived, sessions }
}

/// The copy of `text` in `texts`, added if it is not there yet.
fn share(texts: &mut HashSet<Shared>, text: &str) -> Shared {
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

    fn opt_text(&mut self, text: Option<&str>) -> Option<Shared> {
        text.map(|t| self.text(t))
    }

    fn process(&mut self, event: &Event, derived: &mut [Derived]) {
        let Some(info) = &event.process else { return };
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
            .and_then(|s| s.revision.clone());
        let session_revision = self.opt_text(session_revision.as_deref());
        let mut d = Derived::plain(match msg.kind {
            MessageKind::Request => Kind::Request,
            MessageKind::Notification => Kind::Notification,
            MessageKind::Response => Kind::Response,
            MessageKind::Error => Kind::Error,
            MessageKind::Invalid => Kind::Invalid,
        });
        d.method = self.opt_text(msg.method.as_deref());
        d.id = msg.id.clone();
        if let Some(problem) = msg.problem.as_deref() {
            d.rare().problem = Some(self.text(problem));
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

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        index: usize,
        event: &Event,
        msg: &Message<'_>,
        server: Option<&Lane>,
        events: &[Event],
        derived: &mut [Derived],
        d: &mut Derived,
    ) {
        let method = d.method.clone().unwrap_or_else(|| self.text(""));
        let params = &msg.params;
        let name = params.name.as_deref().or(params.uri.as_deref());
        let name = self.opt_text(name);
        d.detail = match &*method {
            "initialize" => self.opt_text(params.protocol_version.as_deref()),
            _ => name.clone(),
        };
        if let Some(session) = server.map(|l| self.sessions.entry(l.clone()).or_default()) {
            if let Some(v) = params.meta.protocol_version.as_deref() {
                session.revision = Some(v.to_string());
                session.stateless = true;
            } else if &*method == "initialize" {
                session.stateless = false;
                if session.revision.is_none() {
                    session.revision = d.detail.as_deref().map(str::to_string);
                }
            }
            let revision = session.revision.clone();
            d.revision = self.opt_text(revision.as_deref());
        }
        if params.retry {
            let key = (
                event.from.clone(),
                event.to.clone(),
                method.clone(),
                name.clone(),
            );
            if let Some(&i) = self.input_required.get(&key) {
                d.rare().retry_of = Some(events[i].seq);
            }
        }
        if let Some(id) = msg.id.clone() {
            if &*method == "subscriptions/listen" {
                d.rare().subscription = Some(event.seq);
                self.listens
                    .insert((event.from.clone(), event.to.clone(), id.clone()), index);
            }
            let pending = Pending {
                index,
                method,
                name,
            };
            let reused = self
                .pending
                .insert((event.from.clone(), event.to.clone(), id), pending);
            if let Some(earlier) = reused {
                // JSON-RPC ids must be unique among pending requests; the answer will pair with
                // the newer one, so the earlier request can no longer be answered.
                derived[earlier.index].pairing = Pairing::Unanswered(
                    format!(
                        "its id was reused by event #{} before any response",
                        event.seq
                    )
                    .into(),
                );
            }
        }
    }

    fn response(
        &mut self,
        event: &Event,
        msg: &Message<'_>,
        server: Option<&Lane>,
        events: &[Event],
        derived: &mut [Derived],
        d: &mut Derived,
    ) {
        if let Some(err) = &msg.error {
            let code = err.code.unwrap_or(0);
            let message = err.message.as_deref().unwrap_or("").to_string();
            d.rare().error = Some((code, message));
        }
        let Some(id) = msg.id.clone() else {
            d.pairing = Pairing::Orphan;
            return;
        };
        let key = (event.to.clone(), event.from.clone(), id);
        let Some(pending) = self.pending.remove(&key) else {
            d.pairing = Pairing::Orphan;
            return;
        };
        let request = &events[pending.index];
        let latency = latency_us(request.time, event.time);
        d.method = Some(pending.method.clone());
        d.detail = pending.name.clone();
        d.pairing = Pairing::Answers(request.seq);
        d.latency_us = latency;
        d.revision = derived[pending.index].revision.clone();
        if let Some(sub) = derived[pending.index].subscription() {
            d.rare().subscription = Some(sub);
        }
        derived[pending.index].pairing = Pairing::AnsweredBy(event.seq);
        derived[pending.index].latency_us = latency;
        if &*pending.method == "subscriptions/listen" {
            self.listens.remove(&key);
        }

        let result = msg.result.as_ref();
        let result_str = |f: for<'r> fn(&'r ResultMembers<'_>) -> Option<&'r str>| {
            result.and_then(f).map(str::to_string)
        };
        if result.and_then(|r| r.result_type.as_deref()) == Some("input_required") {
            d.input_required = true;
            let k = (
                request.from.clone(),
                request.to.clone(),
                pending.method.clone(),
                pending.name.clone(),
            );
            self.input_required.insert(k, pending.index);
        }
        let Some(session) = server.map(|l| self.sessions.entry(l.clone()).or_default()) else {
            return;
        };
        match &*pending.method {
            "initialize" => {
                if let Some(v) = result.and_then(|r| r.protocol_version.as_deref()) {
                    session.revision = Some(v.to_string());
                    let v = share(&mut self.texts, v);
                    d.revision = Some(v.clone());
                    d.detail = Some(v);
                }
                session.server_name = result_str(|r| r.server_name.as_deref());
                session.instructions = result_str(|r| r.instructions.as_deref());
            }
            "server/discover" => {
                session.stateless = true;
                session.server_name = result_str(|r| r.meta.server_name.as_deref());
                session.instructions = result_str(|r| r.instructions.as_deref());
            }
            _ => {}
        }
    }

    fn notification(
        &mut self,
        event: &Event,
        msg: &Message<'_>,
        events: &[Event],
        derived: &mut [Derived],
        d: &mut Derived,
    ) {
        let params = &msg.params;
        if let Some(sub) = &params.meta.subscription_id {
            // The stream's notifications travel the other way from its listen request.
            let listen = self
                .listens
                .iter()
                .find(|((from, to, id), _)| {
                    *from == event.to && *to == event.from && id.matches(sub)
                })
                .map(|(_, &i)| events[i].seq);
            if let Some(seq) = listen {
                d.rare().subscription = Some(seq);
            }
        }
        if msg.method.as_deref() == Some("notifications/cancelled") {
            let Some(request_id) = params.request_id.as_ref().and_then(RpcId::from_value) else {
                return;
            };
            // The cancelled request travelled the same way as the notification.
            let key = (event.from.clone(), event.to.clone(), request_id);
            if self.pending.contains_key(&key) {
                if let Some(p) = self.pending.remove(&key) {
                    derived[p.index].pairing = Pairing::Cancelled(event.seq);
                    d.detail = Some(format!("request #{}", events[p.index].seq).into());
                }
                self.listens.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};

    /// Builds events from (from, to, raw) with 1 ms between them; `!exit` makes a process exit.
    fn trace(lines: &[(&str, &str, &str)]) -> Vec<Event> {
        let t0 = Utc
            .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
            .single()
            .expect("time");
        lines
            .iter()
            .enumerate()
            .map(|(i, (from, to, raw))| {
                let time = t0 + Duration::milliseconds(i as i64);
                if *raw == "!exit" {
                    let mut e = Event::with_bytes(
                        i as u64,
                        time,
                        (*from).into(),
                        (*to).into(),
                        Channel::Process,
                        vec![],
                    );
                    e.raw = None;
                    e.process = Some(Box::new(crate::trace::ProcessInfo {
                        event: "exit".into(),
                        signal: Some(9),
                        ..Default::default()
                    }));
                    return e;
                }
                Event::with_bytes(
                    i as u64,
                    time,
                    (*from).into(),
                    (*to).into(),
                    Channel::Stdio,
                    raw.as_bytes().to_vec(),
                )
            })
            .collect()
    }

    const H: &str = "host";
    const S: &str = "server:s";

    #[test]
    fn colliding_ids_pair_by_direction() {
        let events = trace(&[
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            ),
            (S, H, r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
            (H, S, r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#),
            (
                S,
                H,
                r#"{"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"x"}},"jsonrpc":"2.0","id":0}"#,
            ),
        ]);
        let a = analyze(&events);
        assert_eq!(a.derived[0].pairing, Pairing::AnsweredBy(3));
        assert_eq!(a.derived[1].pairing, Pairing::AnsweredBy(2));
        assert_eq!(a.derived[2].pairing, Pairing::Answers(1));
        assert_eq!(a.derived[2].method.as_deref(), Some("roots/list"));
        assert_eq!(a.derived[3].pairing, Pairing::Answers(0));
        assert_eq!(a.derived[3].latency_us, Some(3000));
        assert_eq!(a.derived[3].revision.as_deref(), Some("2025-11-25"));
        assert_eq!(a.sessions[0].1.server_name.as_deref(), Some("x"));
    }

    #[test]
    fn string_and_number_ids_do_not_pair() {
        let events = trace(&[
            (H, S, r#"{"jsonrpc":"2.0","id":"1","method":"a"}"#),
            (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        ]);
        let a = analyze(&events);
        assert!(a.derived[0].is_unanswered());
        assert_eq!(a.derived[1].pairing, Pairing::Orphan);
    }

    #[test]
    fn server_death_leaves_request_unanswered() {
        let events = trace(&[
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":-5,"method":"tools/call","params":{"name":"die"}}"#,
            ),
            (S, H, "!exit"),
            (S, H, r#"{"jsonrpc":"2.0","id":-5,"result":{}}"#),
        ]);
        let a = analyze(&events);
        assert_eq!(
            a.derived[0].pairing,
            Pairing::Unanswered("the server exited first (event #1)".into())
        );
        assert_eq!(a.derived[0].detail.as_deref(), Some("die"));
        assert_eq!(a.derived[2].pairing, Pairing::Orphan);
    }

    #[test]
    fn stateless_revision_mrtr_and_subscriptions() {
        let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let events = trace(&[
            (
                H,
                S,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{{m}}}}}"#
                ),
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tour"}}}}"#,
            ),
            (
                H,
                S,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"confirm",{m}}}}}"#
                ),
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"abc","inputRequests":{}}}"#,
            ),
            (
                H,
                S,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"confirm","requestState":"abc",{m}}}}}"#
                ),
            ),
            (
                H,
                S,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{{{m}}}}}"#
                ),
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
            ),
        ]);
        let a = analyze(&events);
        assert_eq!(a.derived[0].revision.as_deref(), Some("2026-07-28"));
        assert!(a.sessions[0].1.stateless);
        assert_eq!(a.sessions[0].1.server_name.as_deref(), Some("tour"));
        assert!(a.derived[3].input_required);
        assert_eq!(a.derived[4].retry_of(), Some(2));
        assert_eq!(a.derived[6].subscription(), Some(5));
        assert_eq!(a.derived[7].subscription(), Some(5));
        assert_eq!(a.derived[5].pairing, Pairing::Cancelled(8));
        assert!(a.derived[4].is_unanswered());
    }

    #[test]
    fn a_reused_pending_id_leaves_the_earlier_request_unanswered() {
        let events = trace(&[
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
            ),
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}"#,
            ),
            (S, H, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        ]);
        let a = analyze(&events);
        let why = "its id was reused by event #1 before any response";
        assert_eq!(a.derived[0].pairing, Pairing::Unanswered(why.into()));
        assert_eq!(a.derived[1].pairing, Pairing::AnsweredBy(2));
    }

    #[test]
    fn invalid_lines_are_kept_with_a_reason() {
        let events = trace(&[
            (S, H, "debug: listing tools"),
            (S, H, r#"{"hello":"world"}"#),
        ]);
        let a = analyze(&events);
        assert_eq!(a.derived[0].kind, Kind::Invalid);
        assert!(
            a.derived[0]
                .problem()
                .is_some_and(|p| p.starts_with("not JSON"))
        );
        assert_eq!(a.derived[1].kind, Kind::Invalid);
    }
}
