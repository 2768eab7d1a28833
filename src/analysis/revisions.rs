//! What changes between two revisions of the protocol, found in two traces of one scenario.
//!
//! The seed article's question "which differences survive 2026-07-28?" has four answers a
//! class can see in two diagrams side by side: the handshake (`initialize` and
//! `notifications/initialized`, or no handshake and `server/discover`), the server's own
//! requests (a `sampling/createMessage` sent to the client, or an `input_required` result and
//! a retry), change notifications (`notifications/*/list_changed` sent whenever, or only on a
//! `subscriptions/listen` stream) and the session (tied to the connection, ending with the
//! transport, or none at all: every request carries its revision in `_meta`).
//!
//! [`contrast`] finds the events that show each one in each trace. Like [`super::explain`] it
//! holds no text for people, only i18n keys (`compare.*` in `assets/i18n/`).

use crate::trace::{Event, Kind, Lane};

use super::Report;

/// One of the four differences between 2025-11-25 and 2026-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    Handshake,
    ServerRequests,
    ListChanged,
    Session,
}

impl Topic {
    pub const ALL: [Topic; 4] = [
        Topic::Handshake,
        Topic::ServerRequests,
        Topic::ListChanged,
        Topic::Session,
    ];

    /// The i18n key of the topic's name.
    pub fn title_key(self) -> &'static str {
        match self {
            Topic::Handshake => "compare.topic_handshake",
            Topic::ServerRequests => "compare.topic_server_requests",
            Topic::ListChanged => "compare.topic_list_changed",
            Topic::Session => "compare.topic_session",
        }
    }
}

/// How one trace shows a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The i18n key of the sentence that says it (placeholder `{count}`: `events.len()`).
    pub key: &'static str,
    /// The events that show it, by index.
    pub events: Vec<usize>,
}

/// A topic as each of the two traces shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contrast {
    pub topic: Topic,
    pub sides: [Side; 2],
}

impl Contrast {
    /// Whether the two traces show the topic differently (the same form on both sides is
    /// not a difference).
    pub fn differs(&self) -> bool {
        self.sides[0].key != self.sides[1].key
    }
}

/// The four topics in two traces, each with the events that show it on each side. A topic
/// neither trace shows (no server requests in either, say) is left out.
pub fn contrast(a: (&[Event], &Report), b: (&[Event], &Report)) -> Vec<Contrast> {
    Topic::ALL
        .into_iter()
        .filter_map(|topic| {
            let sides = [side(topic, a.0, a.1), side(topic, b.0, b.1)];
            let absent = |s: &Side| s.key.ends_with("_absent");
            (!(absent(&sides[0]) && absent(&sides[1]))).then_some(Contrast { topic, sides })
        })
        .collect()
}

fn method_is(report: &Report, i: usize, test: impl Fn(&str) -> bool) -> bool {
    report.rpc.derived[i].method.as_deref().is_some_and(test)
}

fn rpc_events(events: &[Event], report: &Report) -> impl Iterator<Item = usize> {
    (0..events.len()).filter(|&i| {
        matches!(
            report.rpc.derived[i].kind,
            Kind::Request | Kind::Notification | Kind::Response | Kind::Error
        )
    })
}

fn stateless(report: &Report) -> bool {
    !report.rpc.sessions.is_empty() && report.rpc.sessions.iter().all(|(_, s)| s.stateless)
}

fn side(topic: Topic, events: &[Event], report: &Report) -> Side {
    let pick = |test: &dyn Fn(usize) -> bool| -> Vec<usize> {
        rpc_events(events, report).filter(|&i| test(i)).collect()
    };
    let make = |key: &'static str, events: Vec<usize>| Side { key, events };
    match topic {
        Topic::Handshake => {
            let init = pick(&|i| {
                method_is(report, i, |m| {
                    m == "initialize" || m == "notifications/initialized"
                })
            });
            let discover = pick(&|i| method_is(report, i, |m| m == "server/discover"));
            if !init.is_empty() {
                make("compare.handshake_initialize", init)
            } else if !discover.is_empty() {
                make("compare.handshake_discover", discover)
            } else if stateless(report) {
                make("compare.handshake_none", Vec::new())
            } else {
                make("compare.handshake_absent", Vec::new())
            }
        }
        Topic::ServerRequests => {
            let asked = pick(&|i| {
                let d = &report.rpc.derived[i];
                let from_server = events[i].from.is_server() && events[i].to == Lane::Host;
                let to_server = events[i].to.is_server() && events[i].from == Lane::Host;
                (d.kind == Kind::Request && from_server)
                    || (matches!(d.kind, Kind::Response | Kind::Error)
                        && to_server
                        && method_is(report, i, is_client_feature))
            });
            let input_required = pick(&|i| {
                let d = &report.rpc.derived[i];
                d.input_required || d.retry_of().is_some()
            });
            if !input_required.is_empty() {
                make("compare.requests_input_required", input_required)
            } else if !asked.is_empty() {
                make("compare.requests_server", asked)
            } else {
                make("compare.requests_absent", Vec::new())
            }
        }
        Topic::ListChanged => {
            let listen = pick(&|i| {
                method_is(report, i, |m| m == "subscriptions/listen")
                    || report.rpc.derived[i].subscription().is_some()
            });
            let changed = pick(&|i| method_is(report, i, |m| m.ends_with("/list_changed")));
            if !listen.is_empty() {
                make("compare.changed_listen", listen)
            } else if !changed.is_empty() {
                make("compare.changed_notification", changed)
            } else {
                make("compare.changed_absent", Vec::new())
            }
        }
        Topic::Session => {
            if stateless(report) {
                make("compare.session_none", Vec::new())
            } else if report.rpc.sessions.is_empty() {
                make("compare.session_absent", Vec::new())
            } else {
                // Where the session starts and where the transport that holds it ends.
                let mut shown = pick(&|i| {
                    method_is(report, i, |m| m == "initialize")
                        && report.rpc.derived[i].kind == Kind::Request
                });
                shown.extend((0..events.len()).filter(|&i| {
                    events[i].process().is_some_and(|p| p.event == "exit")
                        || events[i]
                            .http()
                            .is_some_and(|h| h.method.as_deref() == Some("DELETE"))
                }));
                shown.sort_unstable();
                make("compare.session_transport", shown)
            }
        }
    }
}

/// The methods a server asks the client for (the client-side primitives).
fn is_client_feature(method: &str) -> bool {
    method.starts_with("sampling/") || method.starts_with("elicitation/") || method == "roots/list"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_on_both_sides_is_left_out() {
        let report = crate::analysis::report(&[]);
        assert!(contrast((&[], &report), (&[], &report)).is_empty());
    }
}
