//! Answering a live client from a [`Recording`]: which recorded request a message is, and the
//! lines that answer it.
//!
//! The recorded bytes go out as they were, with two changes a client needs to take them as
//! its own: the answer's `id` is the caller's, spelled as the caller spelled it, and a
//! `notifications/progress` the recorded server sent for the request carries the caller's
//! `progressToken` in place of the recorded one. Both are spliced into the recorded text (the
//! byte range of that one value), never re-serialized, so key order, spacing and number
//! spelling stay the recording's.
//!
//! A request asked again gets the first recorded answer each time, or with `in_order` the
//! recorded answers in turn (the last one again once they run out), for a server whose answer
//! changes (a rug pull, a `tools/list` after `list_changed`). A client notification plays
//! what followed its recorded counterpart once, in turn. A request the recording does not
//! have gets a JSON-RPC error that names the nearest recorded one (same method and the fewest
//! differences, else the most similar method name); an unrecorded `ping` gets the empty
//! result every server owes it.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Recording, Sent, comparable, key};
use crate::analysis::compare::{Ignore, compare, short};

/// Requests matched by method alone: the handshake (its params name the client) and `ping`.
const BY_METHOD: [&str; 3] = ["initialize", "server/discover", "ping"];

/// JSON-RPC's "method not found" and "invalid params", and its parse error.
const NO_METHOD: i64 = -32601;
const NO_PARAMS: i64 = -32602;
const NOT_JSON: i64 = -32700;

/// The notification whose token is the caller's, as its JSON text.
const PROGRESS: &str = "\"notifications/progress\"";

/// One line to send to the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Out {
    pub text: String,
    /// It goes on the standalone `GET` stream (Streamable HTTP), not with the answer.
    pub listen: bool,
}

/// What to do with one message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Send(Lines),
    /// Nothing to send: a notification or an answer the recording has nothing after.
    Nothing,
}

/// Lines to send, in order, for one client message.
#[derive(Debug, Clone, PartialEq)]
pub struct Lines {
    pub out: Vec<Out>,
    /// The request (or notification) these lines answer, numbered from 0 in the order asked:
    /// the client's answer to a server request resumes the turn that asked it.
    pub turn: u64,
    /// These lines continue `turn` after the client answered the server's request.
    pub resumed: bool,
    /// The recording streamed them (Server-Sent Events over Streamable HTTP).
    pub streamed: bool,
    /// The turn's answer has been sent (a request the recording left unanswered, a
    /// `subscriptions/listen`, only gets what came meanwhile).
    pub answered: bool,
    /// The turn waits for the client's answer to a request of the server's before going on.
    pub more: bool,
    /// The request's method, when the recording has no such request and `out` is the error
    /// saying so.
    pub unrecorded: Option<String>,
}

/// A turn waiting for the client's answer to a server request.
#[derive(Debug, Clone)]
struct Waiting {
    turn: u64,
    trigger: usize,
    /// Where in the trigger's [`Sent`] list to go on.
    from: usize,
    answered: bool,
    /// The caller's id and `progressToken` swap, for what is left.
    id: Option<String>,
    progress: Option<(String, String)>,
}

/// A recording being served: the recording, its index and how often each request was asked.
#[derive(Debug, Clone)]
pub struct Mock {
    recording: Recording,
    /// `(method, key)` -> the requests and notifications with them, in recorded order.
    index: HashMap<(String, String), Vec<usize>>,
    /// How many times each `(method, key)` was asked.
    asked: HashMap<(String, String), usize>,
    in_order: bool,
    turns: u64,
    /// The server request's id (as JSON text) -> the turn waiting for its answer.
    waiting: HashMap<String, Waiting>,
}

impl Mock {
    pub fn new(recording: Recording, in_order: bool) -> Mock {
        let mut index: HashMap<(String, String), Vec<usize>> = HashMap::new();
        for (i, t) in recording.triggers.iter().enumerate() {
            index
                .entry(lookup(t.request, &t.method, &t.key))
                .or_default()
                .push(i);
        }
        Mock {
            recording,
            index,
            asked: HashMap::new(),
            in_order,
            turns: 0,
            waiting: HashMap::new(),
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// The reply to one message (one line on stdio, one `POST` body over HTTP).
    pub fn reply(&mut self, text: &str) -> Reply {
        let turn = self.turns;
        let msg: Value = match serde_json::from_str(text) {
            Ok(Value::Object(msg)) => Value::Object(msg),
            Ok(_) => {
                let message = "sightline mock: not a JSON-RPC message (batches are not served)";
                return error_reply(turn, "null", -32600, message.into(), None);
            }
            Err(e) => {
                let message = format!("sightline mock: not JSON: {e}");
                return error_reply(turn, "null", NOT_JSON, message, None);
            }
        };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // The client's answer to a request of the server's: the turn that asked goes on.
            let waiting = msg
                .get("id")
                .and_then(|id| self.waiting.remove(&id.to_string()));
            return match waiting {
                Some(w) => self.play(w, true),
                None => Reply::Nothing,
            };
        };
        self.turns += 1;
        let request = msg.get("id").is_some();
        let params = comparable(msg.get("params"));
        let wanted = lookup(request, method, &key(&params));
        let Some(found) = self.index.get(&wanted) else {
            return match request {
                true => self.unrecorded(turn, text, method, &params),
                false => Reply::Nothing,
            };
        };
        let asked = self.asked.entry(wanted).or_insert(0);
        // A notification plays once per recorded one; a request past its last recorded
        // answer gets the last one again.
        let pick = match found.get(*asked) {
            _ if request && !self.in_order => found.first(),
            Some(i) => Some(i),
            None if request => found.last(),
            None => None,
        };
        *asked += 1;
        let Some(&trigger) = pick else {
            return Reply::Nothing;
        };
        let id = span(text, &["id"]).map(|(s, e)| text[s..e].to_string());
        let progress = progress_swap(&self.recording.triggers[trigger], text);
        let start = Waiting {
            turn,
            trigger,
            from: 0,
            answered: false,
            id,
            progress,
        };
        self.play(start, false)
    }

    /// The recorded lines of a trigger from `w.from` to its end or to the next point where
    /// the recorded server waited for the client's answer; the answer under the caller's id.
    fn play(&mut self, mut w: Waiting, resumed: bool) -> Reply {
        let trigger = &self.recording.triggers[w.trigger];
        let mut out = Vec::new();
        let mut more = false;
        while let Some(sent) = trigger.sent.get(w.from) {
            w.from += 1;
            match sent {
                Sent::Answer(raw) => {
                    w.answered = true;
                    let text = w.id.as_deref().and_then(|id| splice(raw, &["id"], id));
                    out.push(Out {
                        text: text.unwrap_or_else(|| raw.clone()),
                        listen: false,
                    });
                }
                Sent::Message { raw, listen } => {
                    let swapped = w.progress.as_ref().and_then(|(old, new)| {
                        let (s, e) = span(raw, &["params", "progressToken"])?;
                        let method = span(raw, &["method"]).map(|(a, b)| &raw[a..b]);
                        (method == Some(PROGRESS) && &raw[s..e] == old)
                            .then(|| format!("{}{new}{}", &raw[..s], &raw[e..]))
                    });
                    out.push(Out {
                        text: swapped.unwrap_or_else(|| raw.clone()),
                        listen: *listen,
                    });
                }
                // Nothing after it: no need to wait.
                Sent::Wait(_) if w.from == trigger.sent.len() => {}
                Sent::Wait(_) => {
                    more = true;
                    break;
                }
            }
        }
        let lines = Lines {
            out,
            turn: w.turn,
            resumed,
            streamed: trigger.streamed,
            answered: w.answered,
            more,
            unrecorded: None,
        };
        if more && let Some(Sent::Wait(id)) = trigger.sent.get(w.from - 1) {
            self.waiting.insert(id.clone(), w);
        }
        Reply::Send(lines)
    }

    /// The error for a request the recording does not have, naming the nearest recorded one.
    fn unrecorded(&self, turn: u64, caller: &str, method: &str, params: &Value) -> Reply {
        let id = span(caller, &["id"]).map_or("null", |(s, e)| &caller[s..e]);
        if method == "ping" {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            return Reply::Send(Lines::one(turn, text, None));
        }
        let requests = || self.recording.triggers.iter().filter(|t| t.request);
        let same = requests()
            .filter(|t| t.method == method)
            .map(|t| (compare(&t.params, params, &Ignore::default()), t))
            .min_by_key(|(d, _)| d.len());
        let (code, message, nearest) = match same {
            Some((differences, t)) => {
                let at = differences
                    .first()
                    .map(|d| {
                        if d.pointer.is_empty() {
                            "/"
                        } else {
                            &d.pointer
                        }
                    })
                    .unwrap_or("/");
                let message = format!(
                    "sightline mock: no recorded {method} request has these params; the nearest \
                     recorded request is #{} {method} {}, which differs at {at}",
                    t.seq,
                    short(&t.params, 120)
                );
                (NO_PARAMS, message, t)
            }
            None => {
                let similarity = |m: &str| similar::TextDiff::from_chars(m, method).ratio();
                // The first of the most alike (`min_by` keeps the first of equals).
                let Some(t) = requests()
                    .min_by(|a, b| similarity(&b.method).total_cmp(&similarity(&a.method)))
                else {
                    let message = format!("sightline mock: the recording has no {method} request");
                    return error_reply(turn, id, NO_METHOD, message, Some((method, Value::Null)));
                };
                let message = format!(
                    "sightline mock: the recording has no {method} request; the nearest recorded \
                     request is #{} {} {}",
                    t.seq,
                    t.method,
                    short(&t.params, 120)
                );
                (NO_METHOD, message, t)
            }
        };
        let data = json!({"nearest": {"seq": nearest.seq, "method": nearest.method,
            "params": nearest.params}});
        error_reply(turn, id, code, message, Some((method, data)))
    }
}

/// The index key of a message: a notification apart from a request of the same method.
fn lookup(request: bool, method: &str, key: &str) -> (String, String) {
    let kind = if request { "" } else { "!" };
    match BY_METHOD.contains(&method) {
        true => (format!("{kind}{method}"), String::new()),
        false => (format!("{kind}{method}"), key.to_string()),
    }
}

/// A JSON-RPC error to `id`; `unrecorded`: the method of the request it refuses.
fn error_reply(
    turn: u64,
    id: &str,
    code: i64,
    message: String,
    unrecorded: Option<(&str, Value)>,
) -> Reply {
    let (unrecorded, data) = unrecorded.unzip();
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data.filter(|d| !d.is_null()) {
        error["data"] = data;
    }
    let error = serde_json::to_string(&error).unwrap_or_default();
    let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#);
    Reply::Send(Lines::one(turn, text, unrecorded.map(str::to_string)))
}

impl Lines {
    /// One answer of the mock's own (an error, `ping`'s empty result).
    fn one(turn: u64, text: String, unrecorded: Option<String>) -> Lines {
        Lines {
            out: vec![Out {
                text,
                listen: false,
            }],
            turn,
            resumed: false,
            streamed: false,
            answered: true,
            more: false,
            unrecorded,
        }
    }
}

/// The recorded and the caller's `params._meta.progressToken`, as spelled in each, when both
/// have one and they differ.
fn progress_swap(trigger: &super::Trigger, caller: &str) -> Option<(String, String)> {
    let path = ["params", "_meta", "progressToken"];
    let new = span(caller, &path).map(|(s, e)| &caller[s..e])?;
    let old = trigger.progress_token.as_deref()?;
    (old != new).then(|| (old.to_string(), new.to_string()))
}

/// The byte range of the value at `path` (object keys) in the JSON text `raw`.
pub fn span(raw: &str, path: &[&str]) -> Option<(usize, usize)> {
    let mut here: &RawValue = serde_json::from_str(raw).ok()?;
    for name in path {
        let members: BTreeMap<String, &RawValue> = serde_json::from_str(here.get()).ok()?;
        here = members.get(*name)?;
    }
    let start = (here.get().as_ptr() as usize).checked_sub(raw.as_ptr() as usize)?;
    let end = start + here.get().len();
    (end <= raw.len()).then_some((start, end))
}

/// `raw` with the value at `path` replaced by the JSON text `value`.
pub fn splice(raw: &str, path: &[&str], value: &str) -> Option<String> {
    let (start, end) = span(raw, path)?;
    Some(format!("{}{value}{}", &raw[..start], &raw[end..]))
}

#[cfg(test)]
mod tests;
