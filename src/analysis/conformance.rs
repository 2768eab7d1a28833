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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde::Serialize;
use serde_json::Value;

use crate::trace::{Analysis, Event, Kind, Pairing};

/// The revisions whose schemas are shipped, oldest first.
pub const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The revision a message is checked under when its own is unknown.
pub const DEFAULT_REVISION: &str = "2025-11-25";

const SCHEMA_TEXTS: [&str; 5] = [
    include_str!("../../assets/mcp-schema/2024-11-05/schema.json"),
    include_str!("../../assets/mcp-schema/2025-03-26/schema.json"),
    include_str!("../../assets/mcp-schema/2025-06-18/schema.json"),
    include_str!("../../assets/mcp-schema/2025-11-25/schema.json"),
    include_str!("../../assets/mcp-schema/2026-07-28/schema.json"),
];

/// The longest `message` kept; longer ones (they quote the offending value) are cut.
const MESSAGE_LIMIT: usize = 240;

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
    /// What is wrong, in words.
    pub message: String,
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
    let mut out = Conformance::default();
    // Requests that asked for a task (2025-11-25 `params.task`): their answer is a CreateTaskResult.
    let mut task_requests: HashSet<usize> = HashSet::new();
    for (index, (event, d)) in events.iter().zip(&analysis.derived).enumerate() {
        if !event.channel.carries_jsonrpc()
            || !matches!(
                d.kind,
                Kind::Request | Kind::Notification | Kind::Response | Kind::Error
            )
        {
            continue;
        }
        let from_server = event.from.is_server();
        if !from_server && !event.to.is_server() {
            continue;
        }
        let Some(message) = event
            .bytes()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        else {
            continue;
        };
        let method = d.method.as_deref().unwrap_or_default();
        let mut revision = schema_for(d.revision.as_deref());
        if method == "initialize" && matches!(d.kind, Kind::Request | Kind::Response) {
            revision = initialize_revision(events, analysis, index, revision);
        }
        let violation =
            |definition: &str, pointer: String, rule: &str, message: String| Violation {
                event: index,
                seq: event.seq,
                revision: revision.revision.to_string(),
                definition: definition.to_string(),
                pointer,
                rule: rule.to_string(),
                message,
            };

        let (definition, instance, prefix) = match d.kind {
            Kind::Request => {
                let table = if from_server {
                    match &revision.server_requests {
                        Some(t) => t,
                        None => {
                            out.checked += 1;
                            out.violations.push(violation(
                                "ServerRequest",
                                String::new(),
                                "revision",
                                format!(
                                    "{} has no server-to-client requests (this one is `{method}`)",
                                    revision.revision
                                ),
                            ));
                            continue;
                        }
                    }
                } else {
                    &revision.client_requests
                };
                let Some(def) = table.get(method) else {
                    *out.unknown.entry(method.to_string()).or_default() += 1;
                    continue;
                };
                if revision.has("CreateTaskResult")
                    && message
                        .pointer("/params/task")
                        .is_some_and(Value::is_object)
                {
                    task_requests.insert(index);
                }
                (def.as_str(), &message, "")
            }
            Kind::Notification => {
                let table = if from_server {
                    &revision.server_notifications
                } else {
                    &revision.client_notifications
                };
                let Some(def) = table.get(method) else {
                    *out.unknown.entry(method.to_string()).or_default() += 1;
                    continue;
                };
                (def.as_str(), &message, "")
            }
            Kind::Response => {
                let Pairing::Answers(request_seq) = d.pairing else {
                    out.unpaired += 1;
                    continue;
                };
                // The request went the other way: a server's answer is to a client request.
                let table = if from_server {
                    Some(&revision.client_requests)
                } else {
                    revision.server_requests.as_ref()
                };
                let Some(table) = table else {
                    // An answer to a server request the revision does not allow; the request
                    // itself was reported.
                    continue;
                };
                let Some(request_def) = table.get(method) else {
                    *out.unknown.entry(method.to_string()).or_default() += 1;
                    continue;
                };
                let request_index = index_of(events, request_seq, index);
                let def = if d.input_required && revision.has("InputRequiredResult") {
                    "InputRequiredResult"
                } else if request_index.is_some_and(|i| task_requests.contains(&i)) {
                    "CreateTaskResult"
                } else {
                    revision.result_for(request_def)
                };
                let Some(result) = message.get("result") else {
                    continue;
                };
                (def, result, "/result")
            }
            Kind::Error => (revision.error_definition, &message, ""),
            _ => continue,
        };
        out.checked += 1;
        match out.definitions.get_mut(definition) {
            Some(n) => *n += 1,
            None => {
                out.definitions.insert(definition.to_string(), 1);
            }
        }
        let validator = revision.validator(definition);
        if validator.is_valid(instance) {
            continue;
        }
        for (pointer, rule, text) in describe(validator.iter_errors(instance)) {
            out.violations.push(violation(
                definition,
                format!("{prefix}{pointer}"),
                &rule,
                text,
            ));
        }
    }
    out.violations
        .extend(super::trace_context::violations(events, analysis));
    out.violations.sort_by_key(|v| v.event);
    out
}

/// The index of the event with `seq`, found near `hint` (traces are in `seq` order).
fn index_of(events: &[Event], seq: u64, hint: usize) -> Option<usize> {
    let upto = (hint + 1).min(events.len());
    match events[..upto].binary_search_by_key(&seq, |e| e.seq) {
        Ok(i) => Some(i),
        Err(_) => events.iter().position(|e| e.seq == seq),
    }
}

/// The revision an `initialize` exchange is checked under: the one the answer negotiated, or
/// the latest with a handshake when the asked-for revision has none.
fn initialize_revision(
    events: &[Event],
    analysis: &Analysis,
    index: usize,
    asked: &'static Schema,
) -> &'static Schema {
    let d = &analysis.derived[index];
    let negotiated = match d.pairing {
        Pairing::AnsweredBy(seq) => events[index + 1..]
            .iter()
            .position(|e| e.seq == seq)
            .and_then(|i| analysis.derived[index + 1 + i].revision.as_deref())
            .and_then(known_schema),
        _ => None,
    };
    let chosen = negotiated.unwrap_or(asked);
    if chosen.client_requests.contains_key("initialize") {
        chosen
    } else {
        schema_for(Some(DEFAULT_REVISION))
    }
}

/// Turns validation errors into (pointer, rule, message), sorted by pointer, descending into
/// the branch of a failed union the value was meant to be.
fn describe<'a>(
    errors: impl Iterator<Item = ValidationError<'a>>,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for error in errors {
        describe_one(&error, &mut out, 0);
    }
    // Document order, whatever order the validator visited the keywords in.
    out.sort();
    out.dedup();
    out
}

fn describe_one(
    error: &ValidationError<'_>,
    out: &mut Vec<(String, String, String)>,
    depth: usize,
) {
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
    out.push((
        pointer,
        kind.keyword().to_string(),
        shorten(error.to_string()),
    ));
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

fn shorten(mut text: String) -> String {
    if text.chars().count() > MESSAGE_LIMIT {
        text = text.chars().take(MESSAGE_LIMIT).collect();
        text.push('…');
    }
    text
}

// ---------------------------------------------------------------------------------------------
// The schemas
// ---------------------------------------------------------------------------------------------

/// One revision's schema: the parsed document, its method tables, its compiled validators.
struct Schema {
    revision: &'static str,
    document: Value,
    /// `$defs` (2020-12) or `definitions` (draft-07).
    defs_key: &'static str,
    client_requests: HashMap<String, String>,
    /// `None` when the revision has no `ServerRequest` (2026-07-28).
    server_requests: Option<HashMap<String, String>>,
    client_notifications: HashMap<String, String>,
    server_notifications: HashMap<String, String>,
    error_definition: &'static str,
    /// Request definition -> the definition of its result, when it has its own.
    results: HashMap<String, String>,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

fn schema_at(i: usize) -> &'static Schema {
    static SCHEMAS: [OnceLock<Schema>; 5] = [const { OnceLock::new() }; 5];
    SCHEMAS[i].get_or_init(|| Schema::load(REVISIONS[i], SCHEMA_TEXTS[i]))
}

fn known_schema(revision: &str) -> Option<&'static Schema> {
    REVISIONS.iter().position(|r| *r == revision).map(schema_at)
}

/// The schema for a message's revision; unknown or absent revisions get [`DEFAULT_REVISION`].
fn schema_for(revision: Option<&str>) -> &'static Schema {
    revision
        .and_then(known_schema)
        .or_else(|| known_schema(DEFAULT_REVISION))
        .expect("the default revision is shipped")
}

impl Schema {
    fn load(revision: &'static str, text: &str) -> Schema {
        let document: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the shipped {revision} schema is not JSON: {e}"));
        let defs_key = if document.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let mut schema = Schema {
            revision,
            document,
            defs_key,
            client_requests: HashMap::new(),
            server_requests: None,
            client_notifications: HashMap::new(),
            server_notifications: HashMap::new(),
            error_definition: "JSONRPCError",
            results: HashMap::new(),
            validators: Mutex::new(HashMap::new()),
        };
        schema.client_requests = schema.union("ClientRequest").unwrap_or_default();
        schema.server_requests = schema.union("ServerRequest");
        schema.client_notifications = schema.union("ClientNotification").unwrap_or_default();
        schema.server_notifications = schema.union("ServerNotification").unwrap_or_default();
        let requests = schema
            .client_requests
            .values()
            .chain(schema.server_requests.iter().flat_map(HashMap::values));
        let results: HashMap<String, String> = requests
            .filter_map(|request| {
                let stem = request.strip_suffix("Request")?;
                let result = format!("{stem}Result");
                schema.has(&result).then(|| (request.clone(), result))
            })
            .collect();
        schema.results = results;
        if schema.has("JSONRPCErrorResponse") {
            schema.error_definition = "JSONRPCErrorResponse";
        }
        schema
    }

    fn definition(&self, name: &str) -> Option<&Value> {
        self.document.get(self.defs_key)?.get(name)
    }

    fn has(&self, name: &str) -> bool {
        self.definition(name).is_some()
    }

    /// method -> definition name, for the members of a union such as `ClientRequest`. A union
    /// that is a single inline definition (2026-07-28 `ClientNotification`) maps to itself.
    fn union(&self, name: &str) -> Option<HashMap<String, String>> {
        let union = self.definition(name)?;
        let members: Vec<&Value> = match union.get("anyOf").or_else(|| union.get("oneOf")) {
            Some(Value::Array(items)) => items.iter().collect(),
            _ => vec![union],
        };
        let mut table = HashMap::new();
        for member in members {
            let (def_name, def) = match member.get("$ref").and_then(Value::as_str) {
                Some(r) => {
                    let target = r.rsplit('/').next().unwrap_or(r);
                    match self.definition(target) {
                        Some(def) => (target.to_string(), def),
                        None => continue,
                    }
                }
                None => (name.to_string(), member),
            };
            if let Some(method) = def
                .pointer("/properties/method/const")
                .and_then(Value::as_str)
            {
                table.insert(method.to_string(), def_name);
            }
        }
        Some(table)
    }

    /// The result type answering a request type: `FooRequest` -> `FooResult`, else `Result`.
    fn result_for(&self, request_definition: &str) -> &str {
        self.results
            .get(request_definition)
            .map_or("Result", String::as_str)
    }

    /// The compiled validator of one definition, compiled on first use.
    fn validator(&self, name: &str) -> Arc<Validator> {
        let mut cache = self
            .validators
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = cache.get(name) {
            return Arc::clone(v);
        }
        let v = Arc::new(self.compile(name));
        cache.insert(name.to_string(), Arc::clone(&v));
        v
    }

    /// The whole document with a root `$ref` to the definition, so that every internal
    /// reference resolves; compiled offline.
    fn compile(&self, name: &str) -> Validator {
        let mut root = self.document.clone();
        root["$ref"] = Value::String(format!("#/{}/{name}", self.defs_key));
        jsonschema::options()
            .offline()
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| {
                panic!(
                    "the shipped {} schema's {name} does not compile: {e}",
                    self.revision
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, Lane, analyze};

    const H: &str = "host";
    const S: &str = "server:s";

    fn trace(lines: &[(&str, &str, &str)]) -> Vec<Event> {
        let t0 = chrono::DateTime::parse_from_rfc3339("2026-11-29T22:00:00Z")
            .expect("time")
            .with_timezone(&chrono::Utc);
        lines
            .iter()
            .enumerate()
            .map(|(i, (from, to, raw))| {
                Event::with_bytes(
                    i as u64,
                    t0 + chrono::Duration::milliseconds(i as i64),
                    Lane::from(*from),
                    Lane::from(*to),
                    Channel::Stdio,
                    raw.as_bytes().to_vec(),
                )
            })
            .collect()
    }

    fn run(lines: &[(&str, &str, &str)]) -> Conformance {
        let events = trace(lines);
        check(&events, &analyze(&events))
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    fn pointers(c: &Conformance) -> Vec<(&str, &str, &str)> {
        c.violations
            .iter()
            .map(|v| (v.definition.as_str(), v.pointer.as_str(), v.rule.as_str()))
            .collect()
    }

    #[test]
    fn method_tables_come_from_the_schemas() {
        for (i, revision) in REVISIONS.iter().enumerate() {
            let s = schema_at(i);
            assert_eq!(s.revision, *revision);
            assert_eq!(
                s.client_requests.get("tools/call").map(String::as_str),
                Some("CallToolRequest"),
                "{revision}"
            );
            assert_eq!(
                s.server_notifications
                    .get("notifications/tools/list_changed")
                    .map(String::as_str),
                Some("ToolListChangedNotification")
            );
            assert_eq!(s.result_for("CallToolRequest"), "CallToolResult");
            assert_eq!(s.result_for("ListToolsRequest"), "ListToolsResult");
        }
        let old = schema_at(0);
        assert_eq!(old.error_definition, "JSONRPCError");
        assert_eq!(old.result_for("PingRequest"), "Result");
        assert!(
            old.server_requests
                .as_ref()
                .expect("2024 has ServerRequest")["roots/list"]
                == "ListRootsRequest"
        );
        let new = schema_at(4);
        assert_eq!(new.error_definition, "JSONRPCErrorResponse");
        assert!(new.server_requests.is_none());
        assert!(!new.client_requests.contains_key("initialize"));
        assert_eq!(new.client_requests["server/discover"], "DiscoverRequest");
        assert_eq!(new.result_for("DiscoverRequest"), "DiscoverResult");
        assert_eq!(
            new.client_notifications["notifications/cancelled"],
            "ClientNotification"
        );
        assert_eq!(
            schema_at(3).client_requests["tasks/result"],
            "GetTaskPayloadRequest"
        );
        assert_eq!(
            schema_at(3).result_for("GetTaskPayloadRequest"),
            "GetTaskPayloadResult"
        );
    }

    #[test]
    fn a_clean_handshake_validates_clean() {
        let c = run(&[(H, S, INIT), (S, H, INIT_OK), (H, S, INITIALIZED)]);
        assert_eq!(c.violations, []);
        assert_eq!(c.checked, 3);
        assert!(c.unknown.is_empty());
    }

    #[test]
    fn initialize_without_client_info_is_caught() {
        let broken = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
        let c = run(&[(H, S, broken), (S, H, INIT_OK)]);
        assert_eq!(
            pointers(&c),
            [("InitializeRequest", "/params/clientInfo", "required")]
        );
        let v = &c.violations[0];
        assert_eq!((v.event, v.seq), (0, 0));
        assert_eq!(v.revision, "2025-11-25");
        assert!(v.message.contains("clientInfo"), "{}", v.message);
    }

    #[test]
    fn a_tool_without_input_schema_is_caught() {
        let c = run(&[
            (H, S, INIT),
            (S, H, INIT_OK),
            (H, S, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"get_weather","description":"d"}]}}"#,
            ),
        ]);
        assert_eq!(
            pointers(&c),
            [("ListToolsResult", "/result/tools/1/inputSchema", "required")]
        );
        assert_eq!(c.violations[0].seq, 3);
    }

    #[test]
    fn a_broken_content_block_is_reported_inside_its_branch() {
        let c = run(&[
            (H, S, INIT),
            (S, H, INIT_OK),
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"},{"type":"text"},{"type":"image","data":"AA=="}]}}"#,
            ),
        ]);
        assert_eq!(
            pointers(&c),
            [
                ("CallToolResult", "/result/content/1/text", "required"),
                ("CallToolResult", "/result/content/2/mimeType", "required"),
            ]
        );
    }

    #[test]
    fn a_value_that_fits_no_branch_reports_the_union() {
        let c = run(&[
            (H, S, INIT),
            (S, H, INIT_OK),
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            ),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"video","url":"x"}]}}"#,
            ),
        ]);
        assert_eq!(
            pointers(&c),
            [("CallToolResult", "/result/content/0", "anyOf")]
        );
    }

    #[test]
    fn revisions_and_unknown_methods() {
        let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let list = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{m}}}}}"#);
        let ext = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"x/ext","params":{{{m}}}}}"#);
        let c = run(&[
            (H, S, &list),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}"#,
            ),
            (H, S, &ext),
            (S, H, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#),
            (S, H, r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
            (S, H, r#"{"jsonrpc":"2.0","method":"notifications/x"}"#),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"nope"}}"#,
            ),
        ]);
        assert_eq!(
            pointers(&c),
            [("ServerRequest", "", "revision")],
            "{:#?}",
            c.violations
        );
        assert_eq!(c.violations[0].revision, "2026-07-28");
        assert!(
            c.violations[0]
                .message
                .contains("no server-to-client requests")
        );
        assert_eq!(c.unknown.get("x/ext"), Some(&2));
        assert_eq!(c.unknown.get("notifications/x"), Some(&1));
        assert_eq!(c.checked, 4, "list, its result, roots/list, the error");
    }

    #[test]
    fn the_2026_result_must_say_its_type() {
        let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"confirm",{m}}}}}"#
        );
        let c = run(&[
            (H, S, &call),
            (
                S,
                H,
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"abc"}}"#,
            ),
            (H, S, &call.replace(r#""id":1"#, r#""id":2"#)),
            (S, H, r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
        ]);
        assert_eq!(
            pointers(&c),
            [("CallToolResult", "/result/resultType", "required")]
        );
        assert_eq!(c.violations[0].seq, 3);
    }

    #[test]
    fn initialize_is_checked_under_the_negotiated_revision() {
        // rmcp asks for 2026-07-28 in a legacy initialize; the server answers 2025-11-25.
        let ask = INIT.replace("2025-11-25", "2026-07-28");
        let c = run(&[(H, S, &ask), (S, H, INIT_OK), (H, S, INITIALIZED)]);
        assert_eq!(c.violations, []);
        assert_eq!(c.checked, 3);
        // An unknown revision is checked as 2025-11-25.
        let ask = INIT.replace("2025-11-25", "1999-01-01");
        let answer = INIT_OK.replace("2025-11-25", "1999-01-01");
        let c = run(&[(H, S, &ask), (S, H, &answer)]);
        assert_eq!(c.violations, []);
        assert_eq!(c.checked, 2);
    }

    #[test]
    fn old_revisions_use_their_own_names() {
        let init = INIT.replace("2025-11-25", "2024-11-05");
        let ok = INIT_OK.replace("2025-11-25", "2024-11-05");
        let c = run(&[
            (H, S, &init),
            (S, H, &ok),
            (
                H,
                S,
                r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}"#,
            ),
            (S, H, r#"{"jsonrpc":"2.0","id":1,"error":{"code":"bad"}}"#),
        ]);
        assert_eq!(
            pointers(&c),
            [
                ("ReadResourceRequest", "/params/uri", "required"),
                ("JSONRPCError", "/error/code", "type"),
                ("JSONRPCError", "/error/message", "required"),
            ],
            "{:#?}",
            c.violations
        );
        assert!(c.violations.iter().all(|v| v.revision == "2024-11-05"));
    }
}
