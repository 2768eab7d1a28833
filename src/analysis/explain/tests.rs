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

/// The article's six primitives, and nothing else, are called primitives.
#[test]
fn only_the_six_are_primitives() {
    let primitives: Vec<Primitive> = Primitive::ALL
        .into_iter()
        .filter(|p| p.class().is_primitive())
        .collect();
    assert_eq!(
        primitives,
        [
            Primitive::Tools,
            Primitive::Resources,
            Primitive::Prompts,
            Primitive::Sampling,
            Primitive::Roots,
            Primitive::Elicitation
        ]
    );
    assert_eq!(
        explain("tools/call").primitive.class(),
        Class::ServerPrimitive
    );
    assert_eq!(
        explain("roots/list").primitive.class(),
        Class::ClientPrimitive
    );
    assert_eq!(explain("initialize").primitive.class(), Class::Lifecycle);
    assert_eq!(
        explain("server/discover").primitive.class(),
        Class::Lifecycle
    );
    assert_eq!(explain("ping").primitive.class(), Class::Utility);
    assert_eq!(
        explain("logging/setLevel").primitive.class(),
        Class::Utility
    );
    assert_eq!(explain(LLM_TOOL_USE).primitive.class(), Class::NotMcp);
    assert_eq!(explain("x/unknown").primitive.class(), Class::Unknown);
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
