//! The method table: every method of every revision, its primitive, its description key and
//! the revisions that define it, plus the pseudo-methods for LLM events. One table of data, kept
//! together so a revision's methods can be read (and checked against the schemas) in one place.

use super::{LLM_REQUEST, LLM_RESPONSE, LLM_TOOL_RESULT, LLM_TOOL_USE, Primitive, REVISIONS};

const ALL: &[&str] = &REVISIONS;
const LEGACY: &[&str] = super::INITIALIZE_REVISIONS;
const FROM_2025_06: &[&str] = &["2025-06-18", "2025-11-25", "2026-07-28"];
const ONLY_2025_11: &[&str] = &["2025-11-25"];
const ONLY_2026_07: &[&str] = &["2026-07-28"];
pub(super) const NONE: &[&str] = &[];

/// One row of the method table.
pub(super) struct Row {
    pub(super) method: &'static str,
    pub(super) primitive: Primitive,
    pub(super) key: &'static str,
    pub(super) revisions: &'static [&'static str],
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
pub(super) const TABLE: &[Row] = &[
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
