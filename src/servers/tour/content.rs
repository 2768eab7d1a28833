//! The tour's fixed content: its resources, resource template and prompt, kept apart from the
//! protocol plumbing in the parent module so the texts can be read (and edited) in one place.

use rmcp::{
    ErrorData as McpError,
    model::{
        GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
        Resource, ResourceContents, ResourceTemplate, Role,
    },
};
use serde_json::json;

/// A static Markdown resource describing the tour.
pub(crate) const README_URI: &str = "tour://readme";
/// A resource whose text changes on every read; subscribe to it to see `resources/updated`.
pub(crate) const CLOCK_URI: &str = "tour://clock";
/// The one resource template.
pub(crate) const NOTES_TEMPLATE: &str = "tour://notes/{name}";
const NOTES_PREFIX: &str = "tour://notes/";
/// The one prompt.
pub(crate) const EXPLAIN_PROMPT: &str = "explain_mcp";

const README: &str = "\
# The Sightline MCP tour

Every feature of MCP, one small step at a time. Watch the trace while you go.

- `echo`: a plain tool call.
- `slow_count`: progress notifications (send a progressToken) and log messages.
- `summarize`: the server asks the client's model (sampling).
- `confirm_action`: the server asks the user (elicitation).
- `list_workspace`: the server asks for the client's roots.
- `unlock_bonus`: a new tool appears (`notifications/tools/list_changed`).
- `touch_resource`: subscribed resources report `notifications/resources/updated`.
- Resources: `tour://readme`, `tour://clock`, and the template `tour://notes/{name}`.
- Prompt: `explain_mcp` with a `topic`.

On 2025-11-25 the server sends requests to the client while a tool runs. On 2026-07-28 it
returns `resultType: \"input_required\"` and the client retries the call with
`inputResponses` instead.
";

/// The text of `bonus_fact`, the tool hidden until `unlock_bonus`.
pub(crate) const BONUS_FACT: &str = "Bonus fact: a client learns about a tool like this one only \
    at run time, from tools/list. On 2025-11-25 the server may announce the change at any \
    moment with notifications/tools/list_changed; on 2026-07-28 only clients that opened a \
    subscriptions/listen stream with toolsListChanged hear about it. Either way, a host should \
    show the user what changed before the model uses it.";

/// `resources/list`.
pub(crate) fn resources() -> Vec<Resource> {
    vec![
        Resource::new(README_URI, "readme")
            .with_title("About this tour")
            .with_description("What each tool, resource and prompt of the tour demonstrates")
            .with_mime_type("text/markdown"),
        Resource::new(CLOCK_URI, "clock")
            .with_title("Server clock")
            .with_description(
                "The server's current time; subscribe to it to receive resources/updated",
            )
            .with_mime_type("text/plain"),
    ]
}

/// `resources/templates/list`.
pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(NOTES_TEMPLATE, "note")
            .with_title("A note")
            .with_description("A generated note; any name made of letters, digits, - and _")
            .with_mime_type("text/plain"),
    ]
}

/// Whether `uri` names something `resources/read` can answer.
pub(crate) fn is_known_uri(uri: &str) -> bool {
    uri == README_URI || uri == CLOCK_URI || note_name(uri).is_some()
}

fn note_name(uri: &str) -> Option<&str> {
    let name = uri.strip_prefix(NOTES_PREFIX)?;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then_some(name)
}

/// `resources/read`. An unknown URI is a resource-not-found error (-32002 on 2025-11-25;
/// rmcp rewrites it to -32602 for 2026-07-28 peers).
pub(crate) fn read(uri: &str) -> Result<ReadResourceResult, McpError> {
    let (text, mime_type) = if uri == README_URI {
        (README.to_owned(), "text/markdown")
    } else if uri == CLOCK_URI {
        (
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "text/plain",
        )
    } else if let Some(name) = note_name(uri) {
        (
            format!("Note `{name}`: filled in from the template {NOTES_TEMPLATE}."),
            "text/plain",
        )
    } else {
        return Err(McpError::resource_not_found(
            format!("the tour has no resource {uri}"),
            Some(json!({ "uri": uri })),
        ));
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime_type),
    ]))
}

/// `prompts/list`.
pub(crate) fn prompts() -> Vec<Prompt> {
    vec![Prompt::new(
        EXPLAIN_PROMPT,
        Some("Ask the model to explain one MCP concept, with an example message"),
        Some(vec![
            PromptArgument::new("topic")
                .with_description("The concept, e.g. sampling, roots, list_changed")
                .with_required(true),
        ]),
    )]
}

/// `prompts/get`.
pub(crate) fn get_prompt(
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<GetPromptResult, McpError> {
    if name != EXPLAIN_PROMPT {
        return Err(McpError::invalid_params(
            format!("the tour has no prompt `{name}`"),
            None,
        ));
    }
    let topic = arguments
        .and_then(|arguments| arguments.get("topic"))
        .and_then(|topic| topic.as_str())
        .map(str::trim)
        .filter(|topic| !topic.is_empty())
        .ok_or_else(|| {
            McpError::invalid_params(
                "explain_mcp needs a non-empty string argument `topic`",
                None,
            )
        })?;
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        format!(
            "Explain the Model Context Protocol concept \"{topic}\" in three sentences, \
             then show one JSON-RPC message that uses it."
        ),
    )])
    .with_description(format!("Explain MCP: {topic}")))
}
