//! The schemas: the five shipped MCP JSON Schemas, parsed once per process, each with its method
//! tables (method -> definition, request -> result) read from its unions, and a cache of
//! compiled validators, one per definition, compiled on first use. Apart from the checking
//! (`super`), which only asks for a revision's schema and a definition's validator.
//!
//! A definition's validator is compiled from a one-line schema that refers to the definition in
//! its document, which sits in a registry prepared once with the schema: compiling one then
//! neither copies the whole document nor checks all of it against its meta-schema again (each
//! of which took longer than the definition's own compiling, and a browser's frame).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Registry, Validator};
use serde_json::Value;

use super::DEFAULT_REVISION;
use crate::analysis::explain::REVISIONS;

const SCHEMA_TEXTS: [&str; 5] = [
    include_str!("../../../assets/mcp-schema/2024-11-05/schema.json"),
    include_str!("../../../assets/mcp-schema/2025-03-26/schema.json"),
    include_str!("../../../assets/mcp-schema/2025-06-18/schema.json"),
    include_str!("../../../assets/mcp-schema/2025-11-25/schema.json"),
    include_str!("../../../assets/mcp-schema/2026-07-28/schema.json"),
];

/// One revision's schema: the parsed document, its method tables, its compiled validators.
pub(super) struct Schema {
    pub(super) revision: &'static str,
    pub(super) document: Value,
    /// `$defs` (2020-12) or `definitions` (draft-07).
    pub(super) defs_key: &'static str,
    pub(super) client_requests: HashMap<String, String>,
    /// `None` when the revision has no `ServerRequest` (2026-07-28).
    pub(super) server_requests: Option<HashMap<String, String>>,
    pub(super) client_notifications: HashMap<String, String>,
    pub(super) server_notifications: HashMap<String, String>,
    pub(super) error_definition: &'static str,
    /// Request definition -> the definition of its result, when it has its own.
    pub(super) results: HashMap<String, String>,
    pub(super) validators: Mutex<HashMap<String, Arc<Validator>>>,
}

#[cfg(test)]
thread_local! {
    /// How many validators this thread compiled (the tests of the staged findings check that
    /// a step compiles one at most).
    static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many validators this thread has compiled.
#[cfg(test)]
pub(crate) fn compiled_on_this_thread() -> usize {
    COMPILED.with(std::cell::Cell::get)
}

/// The schemas, each parsed on first use.
static SCHEMAS: [OnceLock<Schema>; 5] = [const { OnceLock::new() }; 5];

/// The draft of the one-line schemas validators are compiled from ([`Schema::compile`], and
/// the doctor's check of a tool's schema): draft-07's meta-schema is one small document.
pub(crate) const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// Each schema's document in a registry, where the validators' one-line schemas find it.
static REGISTRIES: [OnceLock<Registry<'static>>; 5] = [const { OnceLock::new() }; 5];

pub(super) fn schema_at(i: usize) -> &'static Schema {
    SCHEMAS[i].get_or_init(|| Schema::load(REVISIONS[i], SCHEMA_TEXTS[i]))
}

/// The schema at `i`, parsed, and its document's registry, prepared (once).
pub(super) fn prepare_at(i: usize) -> &'static Registry<'static> {
    REGISTRIES[i].get_or_init(|| {
        let schema = schema_at(i);
        Registry::new()
            .add(document_uri(schema.revision), &schema.document)
            .and_then(|builder| builder.prepare())
            .unwrap_or_else(|e| panic!("the shipped {} schema: {e}", schema.revision))
    })
}

/// Whether the schema at `i` is parsed and its registry prepared already (that takes a while:
/// a caller that spreads the checking over frames gives it a step of its own).
pub(super) fn parsed(i: usize) -> bool {
    REGISTRIES[i].get().is_some()
}

/// The URI a schema's document has in its registry (never fetched: the validators are
/// compiled offline).
fn document_uri(revision: &str) -> String {
    format!("https://sightline.invalid/mcp-schema/{revision}/schema.json")
}

/// Where the schema [`schema_for`] gives for `revision` is, without parsing it.
pub(super) fn position_for(revision: Option<&str>) -> usize {
    let known = |r: &str| REVISIONS.iter().position(|x| *x == r);
    revision
        .and_then(known)
        .or_else(|| known(DEFAULT_REVISION))
        .expect("the default revision is shipped")
}

pub(super) fn known_schema(revision: &str) -> Option<&'static Schema> {
    REVISIONS.iter().position(|r| *r == revision).map(schema_at)
}

/// The schema for a message's revision; unknown or absent revisions get [`DEFAULT_REVISION`].
pub(super) fn schema_for(revision: Option<&str>) -> &'static Schema {
    revision
        .and_then(known_schema)
        .or_else(|| known_schema(DEFAULT_REVISION))
        .expect("the default revision is shipped")
}

impl Schema {
    pub(super) fn load(revision: &'static str, text: &str) -> Schema {
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

    pub(super) fn definition(&self, name: &str) -> Option<&Value> {
        self.document.get(self.defs_key)?.get(name)
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.definition(name).is_some()
    }

    /// method -> definition name, for the members of a union such as `ClientRequest`. A union
    /// that is a single inline definition (2026-07-28 `ClientNotification`) maps to itself.
    pub(super) fn union(&self, name: &str) -> Option<HashMap<String, String>> {
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
    pub(super) fn result_for(&self, request_definition: &str) -> &str {
        self.results
            .get(request_definition)
            .map_or("Result", String::as_str)
    }

    /// Whether the validator of `name` is compiled already.
    pub(super) fn compiled(&self, name: &str) -> bool {
        self.validators
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(name)
    }

    /// The compiled validator of one definition, compiled on first use.
    pub(super) fn validator(&self, name: &str) -> Arc<Validator> {
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

    /// A schema that is a `$ref` to the definition in the document's registry; compiled
    /// offline. The one-line schema says it is draft-07 whatever the document's draft: the
    /// definition it refers to is compiled in its own document's draft all the same, and only
    /// the one-line schema is checked against its meta-schema, whose validator the browser's
    /// build of `jsonschema` makes anew on every compile (draft-07's is one small document,
    /// 2020-12's eight).
    pub(super) fn compile(&self, name: &str) -> Validator {
        #[cfg(test)]
        COMPILED.with(|n| n.set(n.get() + 1));
        let at = REVISIONS
            .iter()
            .position(|r| *r == self.revision)
            .expect("a shipped revision");
        let registry = prepare_at(at);
        let mut root = serde_json::Map::new();
        root.insert("$schema".into(), DRAFT_07.into());
        let target = format!("{}#/{}/{name}", document_uri(self.revision), self.defs_key);
        root.insert("$ref".into(), Value::String(target));
        jsonschema::options()
            .offline()
            .should_validate_formats(true)
            .with_registry(registry)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| {
                panic!(
                    "the shipped {} schema's {name} does not compile: {e}",
                    self.revision
                )
            })
    }
}
