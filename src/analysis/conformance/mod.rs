//! Schema conformance: every recorded JSON-RPC message checked against the official MCP JSON
//! Schema of its session's revision.
//!
//! The five published schemas (2024-11-05 .. 2026-07-28, `assets/mcp-schema/`) are compiled into
//! the binary; nothing is ever fetched (no network `$ref` resolution). A validator is compiled
//! lazily, once per (revision, definition), and cached for the life of the process.
//!
//! # Which definition a message is checked against
//!
//! Each message is validated once, against the narrowest definition its direction and kind allow:
//!
//! | message | definition |
//! |---|---|
//! | host -> server request | the method's own type from the revision's `ClientRequest` union (`InitializeRequest`, `CallToolRequest`, ...) |
//! | server -> host request | the method's own type from `ServerRequest`; 2026-07-28 has no `ServerRequest`, so any server request is itself a violation |
//! | notification | the method's own type from `ClientNotification` / `ServerNotification` |
//! | response | the result type of the paired request's method (`tools/call` -> `CallToolResult`), applied to the `result` member (pointers start with `/result`) |
//! | error response | `JSONRPCError` (up to 2025-06-18) or `JSONRPCErrorResponse` (2025-11-25 on) |
//!
//! The method -> definition map is read from the schema itself: the `$ref`s of each union and
//! each member's `method.const`. A request type `FooRequest` is answered by `FooResult` when the
//! revision defines one, else by the plain `Result` (`ping`, `logging/setLevel`, ...). Two
//! results depend on the exchange rather than the method: a 2026-07-28 result with
//! `resultType: "input_required"` is an `InputRequiredResult`, and the answer to a 2025-11-25
//! task-augmented request (`params.task`) is a `CreateTaskResult`.
//!
//! A method the revision does not define (an extension, or a method of another revision) is not
//! a violation: it is counted in [`Conformance::unknown`] and nothing more. Responses that pair
//! with no request, payloads that are not JSON-RPC at all (the trace analysis already reports
//! those as `invalid`) and non-JSON-RPC channels are not checked.
//!
//! # Which revision
//!
//! The one [`crate::trace::analyze`] derived for the message (negotiated by `initialize`, or
//! named per request in 2026-07-28 `_meta`). An `initialize` request is checked under the
//! revision its answer negotiated: clients often ask for a newer revision than they get (rmcp
//! asks for 2026-07-28, which has no `initialize`). A revision that is unknown or not one of the
//! five is checked as 2025-11-25, the latest revision with the `initialize` handshake.
//!
//! # Pointers and rules
//!
//! [`Violation::pointer`] is a JSON pointer into the whole message (`/params/clientInfo`,
//! `/result/tools/0/inputSchema`). For a missing member (`required`) it names the member that
//! is missing. [`Violation::rule`] is the JSON Schema keyword that failed (`required`, `type`,
//! `const`, `additionalProperties`, `format`, ...). When a value matches none of the branches
//! of a union (`anyOf`/`oneOf`, such as a `ContentBlock`), the violations reported are those of
//! the branch the value was evidently meant to be (the one whose discriminators, such as
//! `type: "text"`, it satisfies); only when no branch fits is the union itself reported.
//!
//! `format` is asserted in every revision (`uri`, `uri-template`; unknown formats such as
//! `byte` are ignored), so a resource `uri` that is not a URI is a violation whatever draft the
//! file declares.

use std::collections::{BTreeMap, HashSet};

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde::Serialize;
use serde_json::Value;

use crate::i18n::Said;
use crate::trace::{Analysis, Derived, Event, Kind, Pairing};

mod repeat;
mod schema;
#[cfg(test)]
mod tests;
pub mod words;

use repeat::Outcome;
pub(crate) use repeat::{Repeats, Shape};

pub(crate) use schema::DRAFT_07;
#[cfg(test)]
pub(crate) use schema::compiled_on_this_thread;
use schema::{Schema, known_schema, schema_for};

/// The revision a message is checked under when its own is unknown.
pub const DEFAULT_REVISION: &str = "2025-11-25";

/// One way one message departs from its revision's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Index of the event in the trace.
    pub event: usize,
    /// The event's `seq`.
    pub seq: u64,
    /// The revision whose schema was applied.
    pub revision: String,
    /// The schema definition applied (`CallToolRequest`, `ListToolsResult`, `JSONRPCError`...).
    pub definition: String,
    /// JSON pointer into the message; for a missing member, the member's would-be pointer.
    pub pointer: String,
    /// The JSON Schema keyword that failed (`required`, `type`, `const`...).
    pub rule: String,
    /// What is wrong, as a sentence each language can say ([`words`]); English in JSON.
    #[serde(serialize_with = "Said::serialize_english")]
    pub message: Said,
}

/// The outcome of checking a whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Conformance {
    pub violations: Vec<Violation>,
    /// Messages checked (validated against a definition, or refused outright).
    pub checked: usize,
    /// Definition -> number of messages validated against it.
    pub definitions: BTreeMap<String, usize>,
    /// Messages with a method their revision does not define (extensions): method -> count.
    /// Responses to such requests are counted under the request's method.
    pub unknown: BTreeMap<String, usize>,
    /// JSON-RPC responses that answer no known request, so have no result type to check.
    pub unpaired: usize,
}

impl Conformance {
    /// Number of messages with an unknown method.
    pub fn unknown_total(&self) -> usize {
        self.unknown.values().sum()
    }
}

/// Validates every JSON-RPC message of a trace; see the module documentation for the rules.
pub fn validate(events: &[Event], analysis: &Analysis) -> Vec<Violation> {
    check(events, analysis).violations
}

/// [`validate`], with the counts of what was checked and what was not.
pub fn check(events: &[Event], analysis: &Analysis) -> Conformance {
    let mut checker = Checker::default();
    while !checker.step(events, analysis, usize::MAX) {}
    checker.finish()
}

/// [`check`] a slice of the trace at a time, for a caller that must not stop for the whole of
/// it (the browser, which has no thread for it: a frame each). The outcome is [`check`]'s.
#[derive(Default)]
pub struct Checker {
    out: Conformance,
    /// Requests that asked for a task (2025-11-25 `params.task`): their answer is a CreateTaskResult.
    task_requests: HashSet<usize>,
    /// The next event to check.
    next: usize,
    /// The trace-context violations of the events checked (added after the others, as
    /// [`check`] does).
    context: Vec<Violation>,
    /// The outcomes of the messages checked so far, for the messages that repeat them.
    seen: repeat::Seen,
}

impl Checker {
    /// Checks the next `count` events (at most); true once every event has been checked.
    /// A step stops before an event that needs a schema parsed or a validator compiled first,
    /// unless that event is its first (see [`Self::prepare`]).
    pub fn step(&mut self, events: &[Event], analysis: &Analysis, count: usize) -> bool {
        if self.next == 0 {
            self.seen.reserve(events.len());
        }
        let end = self.next.saturating_add(count).min(events.len());
        let first = self.next;
        for index in first..end {
            if index > first && self.needs(events, analysis, index).is_some() {
                break;
            }
            self.one(events, analysis, index);
            self.context
                .extend(super::trace_context::violation(events, analysis, index));
            self.next = index + 1;
        }
        self.next == events.len()
    }

    /// Whether every event has been checked (then [`Self::free`], [`Self::finish`]).
    pub fn checked_all(&self, events: &[Event]) -> bool {
        self.next >= events.len()
    }

    /// Forgets up to `count` of the messages remembered for the repeats (up to 65,536 of
    /// them, whose outcomes take milliseconds to free at once in the browser), once every
    /// event is checked; true once none is left. [`Self::finish`] frees what is left anyway.
    pub fn free(&mut self, count: usize) -> bool {
        self.seen.free(count)
    }

    /// What checking the next event needs done first, if anything: a schema parsed or a
    /// validator compiled (each takes a while: a caller that spreads the checking over frames
    /// gives each a step of its own, [`Self::prepare`]).
    pub fn pending(&self, events: &[Event], analysis: &Analysis) -> Option<Pending> {
        self.needs(events, analysis, self.next).map(|n| match n {
            Needs::Schema(_) => Pending::Schema,
            Needs::Validator(..) => Pending::Validator,
        })
    }

    /// Does one thing the next event needs first (parses one schema, or compiles one
    /// validator), if any; what it did.
    pub fn prepare(&mut self, events: &[Event], analysis: &Analysis) -> Option<Pending> {
        match self.needs(events, analysis, self.next)? {
            Needs::Schema(at) => {
                schema::prepare_at(at);
                Some(Pending::Schema)
            }
            Needs::Validator(revision, definition) => {
                revision.validator(definition);
                Some(Pending::Validator)
            }
        }
    }

    /// What checking event `index` needs first: a schema its revision (or its `initialize`
    /// exchange) needs parsed, else the validator of the definition it is checked against, if
    /// not compiled yet.
    fn needs(&self, events: &[Event], analysis: &Analysis, index: usize) -> Option<Needs> {
        if let Some(at) = pending(events, analysis, index) {
            return Some(Needs::Schema(at));
        }
        match self.plan(events, analysis, index)? {
            (revision, Plan::Validate(definition, _)) if !revision.compiled(definition) => {
                Some(Needs::Validator(revision, definition))
            }
            _ => None,
        }
    }

    /// The outcome, once [`Self::step`] has said the trace is checked.
    pub fn finish(mut self) -> Conformance {
        self.out.violations.append(&mut self.context);
        self.out.violations.sort_by_key(|v| v.event);
        self.out
    }

    /// The revision event `index` is checked under and what it is checked as, decided before
    /// it is read (only a message that is validated can repeat one checked before, see
    /// `repeat`); `None` for an event that is not checked.
    fn plan(
        &self,
        events: &[Event],
        analysis: &Analysis,
        index: usize,
    ) -> Option<(&'static Schema, Plan)> {
        let (Some(event), Some(d)) = (events.get(index), analysis.derived.get(index)) else {
            return None;
        };
        if !checkable(event, d) {
            return None;
        }
        let from_server = event.from.is_server();
        let method = d.method.as_deref().unwrap_or_default();
        let mut revision = schema_for(d.revision.as_deref());
        if method == "initialize" && matches!(d.kind, Kind::Request | Kind::Response) {
            revision = initialize_revision(events, analysis, index, revision);
        }
        let plan = match d.kind {
            Kind::Request => {
                let table = if from_server {
                    revision.server_requests.as_ref()
                } else {
                    Some(&revision.client_requests)
                };
                match table.map(|t| t.get(method)) {
                    None => Plan::NoServerRequests,
                    Some(None) => Plan::Unknown,
                    Some(Some(def)) => Plan::Validate(def.as_str(), ""),
                }
            }
            Kind::Notification => {
                let table = if from_server {
                    &revision.server_notifications
                } else {
                    &revision.client_notifications
                };
                match table.get(method) {
                    None => Plan::Unknown,
                    Some(def) => Plan::Validate(def.as_str(), ""),
                }
            }
            Kind::Response => {
                // The request went the other way: a server's answer is to a client request.
                let table = if from_server {
                    Some(&revision.client_requests)
                } else {
                    revision.server_requests.as_ref()
                };
                match (&d.pairing, table.map(|t| t.get(method))) {
                    (Pairing::Answers(_), None) => Plan::Nothing,
                    (Pairing::Answers(_), Some(None)) => Plan::Unknown,
                    (Pairing::Answers(request_seq), Some(Some(request_def))) => {
                        let request_index = analysis.earlier(events, *request_seq, index);
                        let def = if d.input_required && revision.has("InputRequiredResult") {
                            "InputRequiredResult"
                        } else if request_index.is_some_and(|i| self.task_requests.contains(&i)) {
                            "CreateTaskResult"
                        } else {
                            revision.result_for(request_def)
                        };
                        Plan::Validate(def, "/result")
                    }
                    _ => Plan::Unpaired,
                }
            }
            _ => Plan::Validate(revision.error_definition, ""),
        };
        Some((revision, plan))
    }

    fn one(&mut self, events: &[Event], analysis: &Analysis, index: usize) {
        let Some((revision, plan)) = self.plan(events, analysis, index) else {
            return;
        };
        let (Some(event), Some(d)) = (events.get(index), analysis.derived.get(index)) else {
            return;
        };
        let method = d.method.as_deref().unwrap_or_default();
        let violation = |definition: &str, pointer: String, rule: &str, message: Said| Violation {
            event: index,
            seq: event.seq,
            revision: revision.revision.to_string(),
            definition: definition.to_string(),
            pointer,
            rule: rule.to_string(),
            message,
        };
        let Plan::Validate(definition, prefix) = plan else {
            // The rare cases: what is counted needs only the message to be JSON.
            if event
                .bytes()
                .is_none_or(|b| serde_json::from_slice::<Value>(&b).is_err())
            {
                return;
            }
            match plan {
                Plan::NoServerRequests => {
                    self.out.checked += 1;
                    self.out.violations.push(violation(
                        "ServerRequest",
                        String::new(),
                        "revision",
                        Said::new("schema_text.no_server_requests")
                            .with("revision", revision.revision)
                            .with("method", method),
                    ));
                }
                Plan::Unknown => *self.out.unknown.entry(method.to_string()).or_default() += 1,
                Plan::Unpaired => self.out.unpaired += 1,
                _ => {}
            }
            return;
        };
        let context = repeat::Context {
            revision: revision.revision,
            definition,
            prefix,
        };
        let shape = repeat::Shape::of(event);
        let seen = shape
            .as_ref()
            .and_then(|s| self.seen.get(events, s, context))
            .cloned();
        let outcome = match seen {
            Some(outcome) => {
                self.seen.hits += 1;
                outcome
            }
            None => {
                let outcome = self.validate(event, d.kind, revision, context);
                if let Some(shape) = &shape {
                    self.seen.insert(index, shape, context, outcome.clone());
                }
                outcome
            }
        };
        let Outcome::Checked { task, described } = outcome else {
            return;
        };
        if task {
            self.task_requests.insert(index);
        }
        self.out.checked += 1;
        match self.out.definitions.get_mut(definition) {
            Some(n) => *n += 1,
            None => {
                self.out.definitions.insert(definition.to_string(), 1);
            }
        }
        for (pointer, rule, text) in described {
            self.out.violations.push(violation(
                definition,
                format!("{prefix}{pointer}"),
                &rule,
                text,
            ));
        }
    }

    /// Reads and validates one message as `context` says.
    fn validate(
        &self,
        event: &Event,
        kind: Kind,
        revision: &'static Schema,
        context: repeat::Context,
    ) -> Outcome {
        let Some(message) = event
            .bytes()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        else {
            return Outcome::Skipped;
        };
        let task = kind == Kind::Request
            && revision.has("CreateTaskResult")
            && message
                .pointer("/params/task")
                .is_some_and(Value::is_object);
        let instance = if context.prefix.is_empty() {
            &message
        } else {
            match message.get("result") {
                Some(result) => result,
                None => return Outcome::Skipped,
            }
        };
        let validator = revision.validator(context.definition);
        let described = if validator.is_valid(instance) {
            Vec::new()
        } else {
            describe(validator.iter_errors(instance))
        };
        Outcome::Checked { task, described }
    }
}

/// What a message is checked as (see [`Checker::plan`]).
#[derive(Clone, Copy)]
enum Plan {
    /// Validated against this definition, at this prefix (`""` or `"/result"`).
    Validate(&'static str, &'static str),
    /// A server request in a revision that has none.
    NoServerRequests,
    /// A method the revision does not define.
    Unknown,
    /// A response that answers no known request.
    Unpaired,
    /// An answer to a server request the revision does not allow (the request was reported).
    Nothing,
}

/// What the next event needs before it is checked ([`Checker::pending`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// A schema parsed.
    Schema,
    /// A validator compiled.
    Validator,
}

/// [`Pending`], with what exactly.
enum Needs {
    /// The schema at this position.
    Schema(usize),
    /// This definition's validator in this revision.
    Validator(&'static Schema, &'static str),
}

/// Whether an event is a JSON-RPC message between the host and a server, of a kind that is
/// checked.
fn checkable(event: &Event, d: &Derived) -> bool {
    event.channel.carries_jsonrpc()
        && matches!(
            d.kind,
            Kind::Request | Kind::Notification | Kind::Response | Kind::Error
        )
        && (event.from.is_server() || event.to.is_server())
}

/// A schema checking event `index` may need that is not parsed yet: its revision's and, for
/// an `initialize` exchange, the negotiated revision's and the default one.
fn pending(events: &[Event], analysis: &Analysis, index: usize) -> Option<usize> {
    let (Some(event), Some(d)) = (events.get(index), analysis.derived.get(index)) else {
        return None;
    };
    if !checkable(event, d) {
        return None;
    }
    let own = schema::position_for(d.revision.as_deref());
    if !schema::parsed(own) {
        return Some(own);
    }
    if d.method.as_deref() != Some("initialize")
        || !matches!(d.kind, Kind::Request | Kind::Response)
    {
        return None;
    }
    let default = schema::position_for(Some(DEFAULT_REVISION));
    let negotiated = negotiated(events, analysis, index).map(|r| schema::position_for(Some(r)));
    [negotiated, Some(default)]
        .into_iter()
        .flatten()
        .find(|&at| !schema::parsed(at))
}

/// The revision an `initialize` exchange is checked under: the one the answer negotiated, or
/// the latest with a handshake when the asked-for revision has none.
fn initialize_revision(
    events: &[Event],
    analysis: &Analysis,
    index: usize,
    asked: &'static Schema,
) -> &'static Schema {
    let negotiated = negotiated(events, analysis, index).and_then(known_schema);
    let chosen = negotiated.unwrap_or(asked);
    if chosen.client_requests.contains_key("initialize") {
        chosen
    } else {
        schema_for(Some(DEFAULT_REVISION))
    }
}

/// The revision the answer to the `initialize` at `index` names.
fn negotiated<'a>(events: &[Event], analysis: &'a Analysis, index: usize) -> Option<&'a str> {
    match analysis.derived.get(index)?.pairing {
        Pairing::AnsweredBy(seq) => analysis.derived[analysis.later(events, seq, index)?]
            .revision
            .as_deref(),
        _ => None,
    }
}

/// Turns validation errors into (pointer, rule, message), sorted by pointer, descending into
/// the branch of a failed union the value was meant to be.
fn describe<'a>(errors: impl Iterator<Item = ValidationError<'a>>) -> Vec<(String, String, Said)> {
    let mut out = Vec::new();
    for error in errors {
        describe_one(&error, &mut out, 0);
    }
    // Document order, whatever order the validator visited the keywords in.
    out.sort_by_cached_key(|(pointer, rule, said)| (pointer.clone(), rule.clone(), said.english()));
    out.dedup();
    out
}

fn describe_one(error: &ValidationError<'_>, out: &mut Vec<(String, String, Said)>, depth: usize) {
    let kind = error.kind();
    let branches = match kind {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            Some(context)
        }
        _ => None,
    };
    if let Some(branches) = branches
        && depth < 8
        && let Some(best) = best_branch(branches, error.instance_path().as_str())
    {
        for e in best {
            describe_one(e, out, depth + 1);
        }
        return;
    }
    let mut pointer = error.instance_path().as_str().to_string();
    if let ValidationErrorKind::Required { property } = kind
        && let Some(name) = property.as_str()
    {
        pointer.push('/');
        pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
    }
    out.push((pointer, kind.keyword().to_string(), words::said(error)));
}

/// The branch of a failed union the value was evidently meant to be: one whose errors are not
/// about a discriminator (a `const` or `enum`, or the wrong type for the union's value itself)
/// and are fewest. `None` when every branch fails on a discriminator, or several fit equally.
fn best_branch<'e, 'a>(
    branches: &'e [Vec<ValidationError<'a>>],
    at: &str,
) -> Option<&'e [ValidationError<'a>]> {
    let fits = |errors: &&Vec<ValidationError<'a>>| {
        !errors.is_empty()
            && errors.iter().all(|e| match e.kind() {
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. } => false,
                ValidationErrorKind::Type { .. } => e.instance_path().as_str() != at,
                _ => true,
            })
    };
    let mut best: Option<&Vec<ValidationError<'a>>> = None;
    let mut tie = false;
    for errors in branches.iter().filter(fits) {
        match best.map(|b| errors.len().cmp(&b.len())) {
            None | Some(std::cmp::Ordering::Less) => {
                best = Some(errors);
                tie = false;
            }
            Some(std::cmp::Ordering::Equal) => tie = true,
            Some(std::cmp::Ordering::Greater) => {}
        }
    }
    if tie { None } else { best.map(Vec::as_slice) }
}
