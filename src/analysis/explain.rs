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

/// The five published revisions, oldest first.
pub const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

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

/// A basic kind of interaction the protocol defines, plus the utilities around them.
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

const ALL: &[&str] = &REVISIONS;
const LEGACY: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const FROM_2025_06: &[&str] = &["2025-06-18", "2025-11-25", "2026-07-28"];
const ONLY_2025_11: &[&str] = &["2025-11-25"];
const ONLY_2026_07: &[&str] = &["2026-07-28"];
const NONE: &[&str] = &[];

/// One row of the method table.
struct Row {
    method: &'static str,
    primitive: Primitive,
    key: &'static str,
    revisions: &'static [&'static str],
}

const fn row(
    method: &'static str,
    primitive: Primitive,
    key: &'static str,
    revisions: &'static [&'static str],
) -> Row {
    Row {
        method,
        primitive,
        key,
        revisions,
    }
}

use Primitive as P;

/// Every method of every revision, and the pseudo-methods for LLM events.
const TABLE: &[Row] = &[
    row("initialize", P::Lifecycle, "explain.initialize", LEGACY),
    row(
        "notifications/initialized",
        P::Lifecycle,
        "explain.notifications_initialized",
        LEGACY,
    ),
    row("ping", P::Ping, "explain.ping", LEGACY),
    row(
        "notifications/cancelled",
        P::Cancellation,
        "explain.notifications_cancelled",
        ALL,
    ),
    row(
        "notifications/progress",
        P::Progress,
        "explain.notifications_progress",
        ALL,
    ),
    row("tools/list", P::Tools, "explain.tools_list", ALL),
    row("tools/call", P::Tools, "explain.tools_call", ALL),
    row(
        "notifications/tools/list_changed",
        P::Tools,
        "explain.notifications_tools_list_changed",
        ALL,
    ),
    row(
        "resources/list",
        P::Resources,
        "explain.resources_list",
        ALL,
    ),
    row(
        "resources/templates/list",
        P::Resources,
        "explain.resources_templates_list",
        ALL,
    ),
    row(
        "resources/read",
        P::Resources,
        "explain.resources_read",
        ALL,
    ),
    row(
        "resources/subscribe",
        P::Resources,
        "explain.resources_subscribe",
        LEGACY,
    ),
    row(
        "resources/unsubscribe",
        P::Resources,
        "explain.resources_unsubscribe",
        LEGACY,
    ),
    row(
        "notifications/resources/list_changed",
        P::Resources,
        "explain.notifications_resources_list_changed",
        ALL,
    ),
    row(
        "notifications/resources/updated",
        P::Resources,
        "explain.notifications_resources_updated",
        ALL,
    ),
    row("prompts/list", P::Prompts, "explain.prompts_list", ALL),
    row("prompts/get", P::Prompts, "explain.prompts_get", ALL),
    row(
        "notifications/prompts/list_changed",
        P::Prompts,
        "explain.notifications_prompts_list_changed",
        ALL,
    ),
    row(
        "logging/setLevel",
        P::Logging,
        "explain.logging_set_level",
        LEGACY,
    ),
    row(
        "notifications/message",
        P::Logging,
        "explain.notifications_message",
        ALL,
    ),
    row(
        "completion/complete",
        P::Completion,
        "explain.completion_complete",
        ALL,
    ),
    row(
        "sampling/createMessage",
        P::Sampling,
        "explain.sampling_create_message",
        ALL,
    ),
    row("roots/list", P::Roots, "explain.roots_list", ALL),
    row(
        "notifications/roots/list_changed",
        P::Roots,
        "explain.notifications_roots_list_changed",
        LEGACY,
    ),
    row(
        "elicitation/create",
        P::Elicitation,
        "explain.elicitation_create",
        FROM_2025_06,
    ),
    row(
        "notifications/elicitation/complete",
        P::Elicitation,
        "explain.notifications_elicitation_complete",
        ONLY_2025_11,
    ),
    row("tasks/get", P::Tasks, "explain.tasks_get", ONLY_2025_11),
    row(
        "tasks/result",
        P::Tasks,
        "explain.tasks_result",
        ONLY_2025_11,
    ),
    row(
        "tasks/cancel",
        P::Tasks,
        "explain.tasks_cancel",
        ONLY_2025_11,
    ),
    row("tasks/list", P::Tasks, "explain.tasks_list", ONLY_2025_11),
    row(
        "notifications/tasks/status",
        P::Tasks,
        "explain.notifications_tasks_status",
        ONLY_2025_11,
    ),
    // The tasks extension (SEP-2663), outside the core revisions.
    row("tasks/update", P::Tasks, "explain.tasks_update", NONE),
    row(
        "notifications/tasks",
        P::Tasks,
        "explain.notifications_tasks",
        NONE,
    ),
    row(
        "server/discover",
        P::Discovery,
        "explain.server_discover",
        ONLY_2026_07,
    ),
    row(
        "subscriptions/listen",
        P::Subscriptions,
        "explain.subscriptions_listen",
        ONLY_2026_07,
    ),
    row(
        "notifications/subscriptions/acknowledged",
        P::Subscriptions,
        "explain.notifications_subscriptions_acknowledged",
        ONLY_2026_07,
    ),
    row(LLM_REQUEST, P::FunctionCalling, "explain.llm_request", NONE),
    row(
        LLM_TOOL_RESULT,
        P::FunctionCalling,
        "explain.llm_tool_result",
        NONE,
    ),
    row(
        LLM_TOOL_USE,
        P::FunctionCalling,
        "explain.llm_tool_use",
        NONE,
    ),
    row(
        LLM_RESPONSE,
        P::FunctionCalling,
        "explain.llm_response",
        NONE,
    ),
];

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The method tables of the notes (`schema.json` unions), per revision.
    const METHODS_2024: &[&str] = &[
        "initialize",
        "ping",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "tools/list",
        "tools/call",
        "logging/setLevel",
        "completion/complete",
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/progress",
        "notifications/roots/list_changed",
        "sampling/createMessage",
        "roots/list",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
        "notifications/tools/list_changed",
        "notifications/message",
    ];
    const ADDED_2025_06: &[&str] = &["elicitation/create"];
    const ADDED_2025_11: &[&str] = &[
        "tasks/get",
        "tasks/result",
        "tasks/cancel",
        "tasks/list",
        "notifications/tasks/status",
        "notifications/elicitation/complete",
    ];
    const METHODS_2026: &[&str] = &[
        "server/discover",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "subscriptions/listen",
        "prompts/list",
        "prompts/get",
        "tools/list",
        "tools/call",
        "completion/complete",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/resources/list_changed",
        "notifications/subscriptions/acknowledged",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
        "notifications/tools/list_changed",
        "notifications/message",
    ];

    fn methods_of(revision: &str) -> Vec<&'static str> {
        let mut m: Vec<&str> = METHODS_2024.to_vec();
        if revision >= "2025-06-18" {
            m.extend(ADDED_2025_06);
        }
        if revision >= "2025-11-25" {
            m.extend(ADDED_2025_11);
        }
        if revision == "2026-07-28" {
            m = METHODS_2026.to_vec();
        }
        m
    }

    #[test]
    fn every_method_of_every_revision_is_known() {
        for revision in REVISIONS {
            for method in methods_of(revision) {
                let e = explain_in(method, Some(revision));
                assert!(e.is_known(), "{method} ({revision})");
                assert!(e.key.starts_with("explain."), "{method}");
                assert!(
                    e.spec_url.starts_with("https://modelcontextprotocol.io/"),
                    "{method}: {}",
                    e.spec_url
                );
                assert!(e.exists_in(revision), "{method} should exist in {revision}");
                // The link points into the revision of the message.
                assert!(
                    e.spec_section.starts_with(revision),
                    "{method} ({revision}): {}",
                    e.spec_section
                );
                assert!(e.spec_url.contains(revision), "{}", e.spec_url);
            }
        }
    }

    #[test]
    fn removed_methods_do_not_exist_in_2026() {
        for method in [
            "initialize",
            "notifications/initialized",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "notifications/roots/list_changed",
            "tasks/get",
            "notifications/elicitation/complete",
        ] {
            let e = explain_in(method, Some("2026-07-28"));
            assert!(!e.exists_in("2026-07-28"), "{method}");
            assert!(!e.spec_section.starts_with("2026-07-28"), "{method}");
        }
        assert!(!explain("elicitation/create").exists_in("2025-03-26"));
        assert!(!explain("server/discover").exists_in("2025-11-25"));
    }

    #[test]
    fn controllers_follow_the_user_interaction_model() {
        assert_eq!(explain("tools/call").controlled_by, Some(Controller::Model));
        assert_eq!(explain("tools/list").primitive, Primitive::Tools);
        assert_eq!(
            explain("resources/read").controlled_by,
            Some(Controller::Application)
        );
        assert_eq!(explain("prompts/get").controlled_by, Some(Controller::User));
        for m in ["sampling/createMessage", "elicitation/create", "roots/list"] {
            assert_eq!(explain(m).controlled_by, Some(Controller::Client), "{m}");
        }
        assert_eq!(explain("initialize").controlled_by, None);
        assert_eq!(explain("ping").primitive, Primitive::Ping);
    }

    #[test]
    fn spec_sections_and_urls() {
        let e = explain("tools/call");
        assert_eq!(e.spec_section, "2025-11-25 server/tools");
        assert_eq!(
            e.spec_url,
            "https://modelcontextprotocol.io/specification/2025-11-25/server/tools"
        );
        let e = explain("server/discover");
        assert_eq!(e.spec_section, "2026-07-28 server/discover");
        assert_eq!(e.primitive, Primitive::Discovery);
        assert_eq!(
            explain("initialize").spec_section,
            "2025-11-25 basic/lifecycle"
        );
        assert_eq!(
            explain_in("notifications/progress", Some("2026-07-28")).spec_section,
            "2026-07-28 basic/patterns/progress"
        );
        assert_eq!(
            explain_in("notifications/progress", Some("2024-11-05")).spec_url,
            "https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress"
        );
        assert_eq!(
            explain("subscriptions/listen").spec_section,
            "2026-07-28 basic/patterns/subscriptions"
        );
        assert_eq!(
            explain("tasks/update").spec_url,
            "https://modelcontextprotocol.io/extensions/tasks/overview"
        );
        // A revision the method does not exist in falls back to the reference revision.
        assert_eq!(
            explain_in("ping", Some("2026-07-28")).spec_section,
            "2025-11-25 basic/utilities/ping"
        );
        // An unknown revision string is ignored.
        assert_eq!(
            explain_in("tools/list", Some("1900-01-01")).spec_section,
            "2025-11-25 server/tools"
        );
        // Every page of every revision has its section name.
        for revision in REVISIONS {
            for p in Primitive::ALL {
                if let Some(path) = p.page(revision) {
                    assert_eq!(section_name(revision, path), format!("{revision} {path}"));
                }
            }
        }
    }

    #[test]
    fn deprecations_of_2026() {
        for m in [
            "sampling/createMessage",
            "roots/list",
            "notifications/message",
        ] {
            assert_eq!(explain(m).deprecated_in, Some("2026-07-28"), "{m}");
        }
        assert_eq!(explain("elicitation/create").deprecated_in, None);
        assert_eq!(explain("tools/call").deprecated_in, None);
    }

    #[test]
    fn unknown_methods_are_kept_and_explained() {
        for m in ["vendor/ask", "notifications/vendor/hello", "$/progress", ""] {
            let e = explain(m);
            assert_eq!(e.primitive, Primitive::Unknown, "{m}");
            assert_eq!(e.key, UNKNOWN_KEY);
            assert_eq!(e.controlled_by, None);
            assert!(e.revisions.is_empty());
            assert!(!e.is_known());
        }
        // Methods are case-sensitive.
        assert!(!explain("Tools/Call").is_known());
    }

    #[test]
    fn llm_pseudo_methods() {
        for m in [LLM_REQUEST, LLM_TOOL_RESULT, LLM_TOOL_USE, LLM_RESPONSE] {
            let e = explain(m);
            assert_eq!(e.primitive, Primitive::FunctionCalling);
            assert!(e.revisions.is_empty());
            assert_eq!(e.spec_section, "2025-11-25 server/tools");
        }
    }

    #[test]
    fn keys_are_unique_and_complete() {
        let keys: Vec<&str> = all_keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len());
        let methods: Vec<&str> = known_methods().collect();
        let mut m = methods.clone();
        m.sort();
        m.dedup();
        assert_eq!(m.len(), methods.len());
        for p in Primitive::ALL {
            assert_eq!(p.key(), format!("primitive.{}", p.as_str()));
        }
    }
}
