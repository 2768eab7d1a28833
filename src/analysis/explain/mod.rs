//! What an MCP method is, in the specification's terms: its primitive, who controls it, where
//! the specification describes it, and the i18n key of a one-sentence description.
//!
//! This is pure data so that every view (the inspector, the legend, the teaching mode, exports)
//! explains a method the same way. No text for people lives here, only keys: the sentences are
//! in `assets/i18n/*.toml`, where translators can reach them.
//!
//! The tables cover every method of the five revisions (2024-11-05, 2025-03-26, 2025-06-18,
//! 2025-11-25, 2026-07-28), the two methods of the tasks extension that replaced the core
//! `tasks/*` methods in 2026-07-28, and a few pseudo-methods for LLM API events (see
//! [`LLM_REQUEST`]). A method the tables do not know is kept and explained as not part of the
//! specification ([`Primitive::Unknown`]): a tracer shows what crossed, whatever it is.
//!
//! Who controls a primitive follows the specification's user interaction model: tools are
//! model-controlled, resources application-controlled, prompts user-controlled; for the
//! client-side primitives (sampling, roots, elicitation) the server asks and the client decides
//! whether to answer ([`Controller::Client`]).

use std::fmt;

mod table;
#[cfg(test)]
mod tests;

use table::{NONE, Row, TABLE};

/// The five published revisions, oldest first.
pub const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The revisions whose lifecycle opens with `initialize` (all but 2026-07-28, which has none).
pub const INITIALIZE_REVISIONS: &[&str] = REVISIONS.as_slice().split_at(4).0;

/// The revision a method without a given revision is explained against: the one the seed
/// article (and most SDKs' default handshake) uses, unless the method only exists later.
pub const REFERENCE_REVISION: &str = "2025-11-25";

/// Where the specification lives; a section's URL is `SPEC_BASE/<revision>/<path>`.
pub const SPEC_BASE: &str = "https://modelcontextprotocol.io/specification";

/// Pseudo-method for an LLM API request that carries no tool results (the first of a turn).
pub const LLM_REQUEST: &str = "llm:request";
/// Pseudo-method for an LLM API request that returns tool results to the model.
pub const LLM_TOOL_RESULT: &str = "llm:tool_result";
/// Pseudo-method for an LLM API response that asks for tool calls (`tool_use`).
pub const LLM_TOOL_USE: &str = "llm:tool_use";
/// Pseudo-method for an LLM API response that asks for no tool: the loop ends.
pub const LLM_RESPONSE: &str = "llm:response";

/// What part of the protocol a method belongs to: one of the six primitives the seed article
/// (and the specification's overview) names, or what the rest is ([`Primitive::class`]):
/// the lifecycle, a utility, the LLM API, or nothing the specification knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `initialize` and `notifications/initialized` (up to 2025-11-25).
    Lifecycle,
    Tools,
    Resources,
    Prompts,
    Sampling,
    Roots,
    Elicitation,
    Logging,
    Progress,
    Completion,
    Tasks,
    /// `subscriptions/listen` (2026-07-28).
    Subscriptions,
    /// `server/discover` (2026-07-28).
    Discovery,
    Cancellation,
    Ping,
    /// Not MCP: the LLM API's tool use (function calling) that the host translates to and from.
    FunctionCalling,
    /// A method that no revision of the specification defines.
    Unknown,
}

impl Primitive {
    pub const ALL: [Primitive; 17] = [
        Primitive::Lifecycle,
        Primitive::Tools,
        Primitive::Resources,
        Primitive::Prompts,
        Primitive::Sampling,
        Primitive::Roots,
        Primitive::Elicitation,
        Primitive::Logging,
        Primitive::Progress,
        Primitive::Completion,
        Primitive::Tasks,
        Primitive::Subscriptions,
        Primitive::Discovery,
        Primitive::Cancellation,
        Primitive::Ping,
        Primitive::FunctionCalling,
        Primitive::Unknown,
    ];

    /// A stable lowercase name, also the tail of its i18n key (`primitive.<name>`).
    pub fn as_str(self) -> &'static str {
        match self {
            Primitive::Lifecycle => "lifecycle",
            Primitive::Tools => "tools",
            Primitive::Resources => "resources",
            Primitive::Prompts => "prompts",
            Primitive::Sampling => "sampling",
            Primitive::Roots => "roots",
            Primitive::Elicitation => "elicitation",
            Primitive::Logging => "logging",
            Primitive::Progress => "progress",
            Primitive::Completion => "completion",
            Primitive::Tasks => "tasks",
            Primitive::Subscriptions => "subscriptions",
            Primitive::Discovery => "discovery",
            Primitive::Cancellation => "cancellation",
            Primitive::Ping => "ping",
            Primitive::FunctionCalling => "function_calling",
            Primitive::Unknown => "unknown",
        }
    }

    /// The i18n key of the primitive's display name.
    pub fn key(self) -> &'static str {
        match self {
            Primitive::Lifecycle => "primitive.lifecycle",
            Primitive::Tools => "primitive.tools",
            Primitive::Resources => "primitive.resources",
            Primitive::Prompts => "primitive.prompts",
            Primitive::Sampling => "primitive.sampling",
            Primitive::Roots => "primitive.roots",
            Primitive::Elicitation => "primitive.elicitation",
            Primitive::Logging => "primitive.logging",
            Primitive::Progress => "primitive.progress",
            Primitive::Completion => "primitive.completion",
            Primitive::Tasks => "primitive.tasks",
            Primitive::Subscriptions => "primitive.subscriptions",
            Primitive::Discovery => "primitive.discovery",
            Primitive::Cancellation => "primitive.cancellation",
            Primitive::Ping => "primitive.ping",
            Primitive::FunctionCalling => "primitive.function_calling",
            Primitive::Unknown => "primitive.unknown",
        }
    }

    /// Whether it is one of the six primitives, or what else.
    pub fn class(self) -> Class {
        match self {
            Primitive::Tools | Primitive::Resources | Primitive::Prompts => Class::ServerPrimitive,
            Primitive::Sampling | Primitive::Roots | Primitive::Elicitation => {
                Class::ClientPrimitive
            }
            Primitive::Lifecycle | Primitive::Discovery => Class::Lifecycle,
            Primitive::Logging
            | Primitive::Progress
            | Primitive::Completion
            | Primitive::Tasks
            | Primitive::Subscriptions
            | Primitive::Cancellation
            | Primitive::Ping => Class::Utility,
            Primitive::FunctionCalling => Class::NotMcp,
            Primitive::Unknown => Class::Unknown,
        }
    }

    /// Who decides that the primitive is used, when the specification says so.
    pub fn controlled_by(self) -> Option<Controller> {
        match self {
            Primitive::Tools | Primitive::FunctionCalling => Some(Controller::Model),
            Primitive::Resources => Some(Controller::Application),
            Primitive::Prompts => Some(Controller::User),
            Primitive::Sampling | Primitive::Roots | Primitive::Elicitation => {
                Some(Controller::Client)
            }
            _ => None,
        }
    }

    /// The specification page of this primitive in `revision`, if that revision has one.
    fn page(self, revision: &str) -> Option<&'static str> {
        let modern = revision == "2026-07-28";
        let path = match self {
            Primitive::Lifecycle if !modern => "basic/lifecycle",
            Primitive::Ping if !modern => "basic/utilities/ping",
            Primitive::Cancellation if modern => "basic/patterns/cancellation",
            Primitive::Cancellation => "basic/utilities/cancellation",
            Primitive::Progress if modern => "basic/patterns/progress",
            Primitive::Progress => "basic/utilities/progress",
            Primitive::Tasks if revision == "2025-11-25" => "basic/utilities/tasks",
            Primitive::Tools | Primitive::FunctionCalling => "server/tools",
            Primitive::Resources => "server/resources",
            Primitive::Prompts => "server/prompts",
            Primitive::Logging => "server/utilities/logging",
            Primitive::Completion => "server/utilities/completion",
            Primitive::Sampling => "client/sampling",
            Primitive::Roots => "client/roots",
            Primitive::Elicitation if revision >= "2025-06-18" => "client/elicitation",
            Primitive::Discovery if modern => "server/discover",
            Primitive::Subscriptions if modern => "basic/patterns/subscriptions",
            _ => return None,
        };
        Some(path)
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a [`Primitive`] is: only six are primitives in the article's sense (three offered by
/// the server, three by the client); the rest is named for what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Tool, resource, prompt.
    ServerPrimitive,
    /// Sampling, roots, elicitation.
    ClientPrimitive,
    /// Opening a connection: the handshake, or `server/discover` on 2026-07-28.
    Lifecycle,
    /// The utilities around the primitives: ping, progress, cancellation, logging,
    /// completion, tasks, subscriptions.
    Utility,
    /// The LLM API's function calling, which the host translates to and from.
    NotMcp,
    /// A method that no revision defines.
    Unknown,
}

impl Class {
    /// The i18n key of the inspector's label for it (`inspector.class_<name>`).
    pub fn key(self) -> &'static str {
        match self {
            Class::ServerPrimitive => "inspector.class_server_primitive",
            Class::ClientPrimitive => "inspector.class_client_primitive",
            Class::Lifecycle => "inspector.class_lifecycle",
            Class::Utility => "inspector.class_utility",
            Class::NotMcp => "inspector.class_not_mcp",
            Class::Unknown => "inspector.class_unknown",
        }
    }

    /// Whether it is one of the six primitives.
    pub fn is_primitive(self) -> bool {
        matches!(self, Class::ServerPrimitive | Class::ClientPrimitive)
    }
}

/// Who decides that a primitive is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Controller {
    /// The model decides to call it (tools).
    Model,
    /// The host application decides what goes into the context (resources).
    Application,
    /// The user picks it explicitly, like a slash command (prompts).
    User,
    /// Client-side primitives (sampling, roots, elicitation): the server asks, the client
    /// decides whether to answer.
    Client,
}

impl Controller {
    pub const ALL: [Controller; 4] = [
        Controller::Model,
        Controller::Application,
        Controller::User,
        Controller::Client,
    ];

    /// The i18n key of its display text ("model-controlled", ...).
    pub fn key(self) -> &'static str {
        match self {
            Controller::Model => "controller.model",
            Controller::Application => "controller.application",
            Controller::User => "controller.user",
            Controller::Client => "controller.client",
        }
    }
}

/// What one method is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub primitive: Primitive,
    pub controlled_by: Option<Controller>,
    /// `"<revision> <path>"`, for example `"2025-11-25 server/tools"`; for the tasks extension
    /// `"extensions/tasks/overview"`; for an unknown method the specification's front page,
    /// `"2026-07-28"`.
    pub spec_section: &'static str,
    /// The page of `spec_section` on modelcontextprotocol.io.
    pub spec_url: String,
    /// The i18n key of a one-sentence description (`explain.<method>`).
    pub key: &'static str,
    /// The revisions whose schema defines the method, oldest first. In 2026-07-28 the former
    /// server-to-client requests (`sampling/createMessage`, `roots/list`,
    /// `elicitation/create`) only travel inside an `input_required` result.
    pub revisions: &'static [&'static str],
    /// The revision that deprecated it (sampling, roots and logging: 2026-07-28).
    pub deprecated_in: Option<&'static str>,
}

impl Explanation {
    /// Whether some revision of the specification (or the tasks extension) defines it.
    pub fn is_known(&self) -> bool {
        self.primitive != Primitive::Unknown
    }

    /// Whether `revision` defines the method.
    pub fn exists_in(&self, revision: &str) -> bool {
        self.revisions.contains(&revision)
    }
}

/// The i18n key of the description of a method no revision defines.
pub const UNKNOWN_KEY: &str = "explain.unknown";

/// Every method (and LLM pseudo-method) [`explain`] knows, in table order.
pub fn known_methods() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|r| r.method)
}

/// Every description key [`explain`] can return, [`UNKNOWN_KEY`] included.
pub fn all_keys() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .map(|r| r.key)
        .chain(std::iter::once(UNKNOWN_KEY))
}

/// Explains a method against the revision the seed article uses (2025-11-25), or against the
/// latest revision that has it (for `server/discover`, `subscriptions/listen`).
pub fn explain(method: &str) -> Explanation {
    explain_in(method, None)
}

/// Explains a method as a message of `revision` (the one [`crate::trace::Derived::revision`]
/// names): the specification link points into that revision when it defines the method, and
/// otherwise into the reference revision or the latest one that does.
pub fn explain_in(method: &str, revision: Option<&str>) -> Explanation {
    let Some(row) = TABLE.iter().find(|r| r.method == method) else {
        return Explanation {
            primitive: Primitive::Unknown,
            controlled_by: None,
            spec_section: "2026-07-28",
            spec_url: format!("{SPEC_BASE}/2026-07-28"),
            key: UNKNOWN_KEY,
            revisions: NONE,
            deprecated_in: None,
        };
    };
    let (spec_section, spec_url) = section(row, revision);
    let deprecated_in = matches!(
        row.primitive,
        Primitive::Sampling | Primitive::Roots | Primitive::Logging
    )
    .then_some("2026-07-28");
    Explanation {
        primitive: row.primitive,
        controlled_by: row.primitive.controlled_by(),
        spec_section,
        spec_url,
        key: row.key,
        revisions: row.revisions,
        deprecated_in,
    }
}

/// Picks the revision whose page to link, and builds the section name and URL.
fn section(row: &Row, revision: Option<&str>) -> (&'static str, String) {
    if row.revisions.is_empty() && row.primitive == Primitive::Tasks {
        return (
            "extensions/tasks/overview",
            "https://modelcontextprotocol.io/extensions/tasks/overview".to_string(),
        );
    }
    let wanted = revision
        .and_then(|r| REVISIONS.iter().find(|k| **k == r))
        .filter(|r| row.revisions.is_empty() || row.revisions.contains(r));
    let chosen = wanted
        .copied()
        .or_else(|| {
            row.revisions
                .contains(&REFERENCE_REVISION)
                .then_some(REFERENCE_REVISION)
        })
        .or_else(|| row.revisions.last().copied())
        .unwrap_or(REFERENCE_REVISION);
    let chosen = if row.primitive.page(chosen).is_some() {
        chosen
    } else {
        REFERENCE_REVISION
    };
    let path = row.primitive.page(chosen).unwrap_or("basic");
    let section = section_name(chosen, path);
    (section, format!("{SPEC_BASE}/{chosen}/{path}"))
}

/// Every page [`Primitive::page`] can name, plus the fallback `basic`.
macro_rules! pages {
    ($m:ident!($($args:tt)*)) => {
        $m!($($args)* [
            "basic",
            "basic/lifecycle",
            "basic/utilities/ping",
            "basic/utilities/cancellation",
            "basic/patterns/cancellation",
            "basic/utilities/progress",
            "basic/patterns/progress",
            "basic/utilities/tasks",
            "basic/patterns/subscriptions",
            "server/tools",
            "server/resources",
            "server/prompts",
            "server/discover",
            "server/utilities/logging",
            "server/utilities/completion",
            "client/sampling",
            "client/roots",
            "client/elicitation"
        ])
    };
}

macro_rules! by_path {
    ($r:literal, $path:expr, [$($p:literal),*]) => {
        match $path {
            $($p => Some(concat!($r, " ", $p)),)*
            _ => None,
        }
    };
}

macro_rules! by_revision {
    ($rev:expr, $path:expr, [$($r:literal),*] $paths:tt) => {
        match $rev {
            $($r => by_path!($r, $path, $paths),)*
            _ => None,
        }
    };
}

/// `"<revision> <path>"` as a `&'static str`, from a table built at compile time.
fn section_name(revision: &str, path: &str) -> &'static str {
    pages!(by_revision!(
        revision,
        path,
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    ))
    .unwrap_or("2025-11-25 basic")
}
