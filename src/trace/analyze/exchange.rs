//! The exchanges of a session, message by message: a request waits for its answer (or its
//! retry, its cancellation, its stream's notifications), a response closes it, and a
//! handshake's result sets the session's revision and server name. Called from
//! [`super::analyze`]'s loop; the state lives in [`State`].

use super::{Pending, State, latency_us, share};
use crate::trace::derived::{Derived, Pairing};
use crate::trace::event::{Event, Lane};
use crate::trace::jsonrpc::{Message, ResultMembers, RpcId};

impl State {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn request(
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
            d.revision = session
                .revision
                .as_deref()
                .map(|r| share(&mut self.texts, r));
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
            // Unanswered until something settles it (an answer, a cancellation, an exit).
            d.pairing = Pairing::Unanswered(self.pending_at_end());
            if let Some(earlier) = reused {
                self.touched.push(earlier.index);
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

    pub(super) fn response(
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
        let Some(((_, _, asked), pending)) = self.pending.remove_entry(&key) else {
            d.pairing = Pairing::Orphan;
            return;
        };
        // The same id as the request's: one copy of a string id for both.
        d.id = Some(asked);
        let request = &events[pending.index];
        let latency = latency_us(request.time, event.time);
        d.method = Some(pending.method.clone());
        d.detail = pending.name.clone();
        d.pairing = Pairing::Answers(request.seq);
        d.set_latency_us(latency);
        d.revision = derived[pending.index].revision.clone();
        if let Some(sub) = derived[pending.index].subscription() {
            d.rare().subscription = Some(sub);
        }
        derived[pending.index].pairing = Pairing::AnsweredBy(event.seq);
        derived[pending.index].set_latency_us(latency);
        self.touched.push(pending.index);
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

    pub(super) fn notification(
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
            if let Some(p) = self.pending.remove(&key) {
                derived[p.index].pairing = Pairing::Cancelled(event.seq);
                self.touched.push(p.index);
                d.detail = Some(format!("request #{}", events[p.index].seq).into());
                self.listens.remove(&key);
            }
        }
    }
}
