//! The script: what the scripted model says and calls, step by step, and its TOML form.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ScriptedError;
use crate::host::scenario::Text;
use crate::i18n::{Language, Words};

/// The model's own words where the script writes none, keys of `assets/i18n` in its
/// [`Script::lang`]: the answer of a `call` step whose tool is not among the request's `tools`
/// (`{tool}` is the first missing tool's name), ...
pub const IF_MISSING: &str = "scripted.if_missing";
/// ... the answer past the last step, ...
pub const NO_MORE_STEPS: &str = "scripted.no_more_steps";
/// ... and what `{result}` becomes when the request carries no such tool result.
pub const NO_RESULT: &str = "scripted.no_result";

/// The scripted model's steps, one per assistant turn.
///
/// Step `i` answers the request whose conversation already holds `i` assistant turns. In a
/// scenario file the steps are an array of tables named `script`:
///
/// ```toml
/// [[script]]
/// say = "Let me check."                                  # optional text before the calls
/// call = [{ tool = "get_weather", arguments = { location = "Seoul" } }]
/// if_missing = "I don't have a tool for {tool}."         # optional; default below
///
/// [[script]]
/// reply = "It is {result} right now."
/// ```
///
/// Each step is either a **call step** or a **reply step**:
///
/// - `call` (array of `{ tool, arguments }`, at least one): the tool calls to make. `tool` is
///   the tool's name (the server's: a host's `mcp__weather__get_weather`, Codex's member
///   `get_weather` of namespace `mcp__weather` and Gemini CLI's `mcp_weather_get_weather`
///   all answer to `get_weather`), `arguments` a table (default empty) sent as the call's
///   input. `say` (optional) is text the model writes before the calls. If any called tool
///   is not among the request's `tools`, the model instead answers with the text `if_missing`
///   (`{tool}` = the first missing tool; default [`IF_MISSING`]) and ends its turn.
/// - `reply` (string): the final answer. `{result}` becomes the text of the last tool result
///   in the request's last user turn, `{result:N}` the N-th (0-based) of that turn; a result
///   that is not there becomes [`NO_RESULT`]. Other braces stay as written.
/// - `stop` (optional, either kind): end the turn with this stop reason instead of the
///   natural one (`tool_use` for calls, `end_turn` for replies): one of `end_turn`,
///   `tool_use`, `max_tokens`, `stop_sequence`, `refusal`. It does not apply to the
///   `if_missing` answer, which always ends the turn normally.
///
/// `say`, `if_missing` and `reply` are each a string or a table of the class's languages,
/// `{ en = "...", pt = "...", es = "..." }` ([`Text`]); a run speaks the one chosen, and so
/// do the model's own words where the script writes none ([`IF_MISSING`], [`NO_MORE_STEPS`],
/// [`NO_RESULT`]).
///
/// Unknown keys, an empty `call`, or a step with both or neither of `call` and `reply` are
/// errors. Past the last step the model answers its [`NO_MORE_STEPS`] words.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Script {
    pub steps: Vec<Step>,
    /// The language of the model's own words ([`Script::words`]): the run's, once
    /// [`Script::in_language`] chose it.
    #[serde(skip)]
    pub lang: Language,
}

impl Script {
    /// Parses the `[[script]]` tables of a TOML document; other top-level keys (the rest of a
    /// scenario file) are ignored, and a document without `script` is an empty script.
    pub fn from_toml(text: &str) -> Result<Script, ScriptedError> {
        #[derive(Deserialize)]
        struct Document {
            #[serde(default)]
            script: Script,
        }
        let document: Document = toml::from_str(text)?;
        Ok(document.script)
    }

    /// The script with every step's words in `lang` alone (see [`Text`]).
    pub fn in_language(self, lang: Language) -> Script {
        let one = |text: Option<Text>| text.map(|t| t.chosen(lang));
        let steps = self.steps.into_iter().map(|step| match step {
            Step::Call {
                say,
                calls,
                if_missing,
                stop,
            } => Step::Call {
                say: one(say),
                calls,
                if_missing: one(if_missing),
                stop,
            },
            Step::Reply { text, stop } => Step::Reply {
                text: text.chosen(lang),
                stop,
            },
        });
        Script {
            steps: steps.collect(),
            lang,
        }
    }

    /// The words the model says of its own ([`IF_MISSING`], [`NO_MORE_STEPS`],
    /// [`NO_RESULT`]), in its language.
    pub fn words(&self) -> Words<'static> {
        Words::of(self.lang)
    }
}

/// One assistant turn of the script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawStep", into = "RawStep")]
pub enum Step {
    /// Tool calls, with optional text before them.
    Call {
        say: Option<Text>,
        calls: Vec<ToolCall>,
        /// The answer when a called tool is missing from the request (`{tool}` placeholder).
        if_missing: Option<Text>,
        stop: Option<StopReason>,
    },
    /// A final text answer (`{result}` and `{result:N}` placeholders).
    Reply {
        text: Text,
        stop: Option<StopReason>,
    },
}

/// One tool call of a `call` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name: as the server names it (`get_weather`), which also means the host's
    /// qualified and namespaced forms of it, or as the host sends it (see `scripted::tools`).
    pub tool: String,
    /// The call's input object.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Why the model's turn ended, in Anthropic's words; each API shape maps it to its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    StopSequence,
    Refusal,
}

impl StopReason {
    /// Anthropic `stop_reason`.
    pub fn anthropic(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::Refusal => "refusal",
        }
    }

    /// Chat Completions `finish_reason`.
    pub fn chat(self) -> &'static str {
        match self {
            StopReason::EndTurn | StopReason::StopSequence => "stop",
            StopReason::ToolUse => "tool_calls",
            StopReason::MaxTokens => "length",
            StopReason::Refusal => "content_filter",
        }
    }

    /// Gemini `finishReason`: `STOP` for a call too (the `functionCall` part says it), `SAFETY`
    /// for a refusal.
    pub fn gemini(self) -> &'static str {
        match self {
            StopReason::EndTurn | StopReason::ToolUse | StopReason::StopSequence => "STOP",
            StopReason::MaxTokens => "MAX_TOKENS",
            StopReason::Refusal => "SAFETY",
        }
    }

    /// Responses `incomplete_details.reason`, when the response is `incomplete`.
    pub fn responses_incomplete(self) -> Option<&'static str> {
        match self {
            StopReason::MaxTokens => Some("max_output_tokens"),
            StopReason::Refusal => Some("content_filter"),
            StopReason::EndTurn | StopReason::ToolUse | StopReason::StopSequence => None,
        }
    }
}

/// The TOML form of a step, before checking which kind it is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    say: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Vec<ToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reply: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop: Option<StopReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    if_missing: Option<Text>,
}

impl TryFrom<RawStep> for Step {
    type Error = String;

    fn try_from(raw: RawStep) -> Result<Step, String> {
        match (raw.call, raw.reply) {
            (Some(_), Some(_)) => {
                Err("a script step has either `call` or `reply`, not both".into())
            }
            (None, None) => Err("a script step needs `call` (tool calls) or `reply` (text)".into()),
            (Some(calls), None) => {
                if calls.is_empty() {
                    return Err(
                        "`call` needs at least one `{ tool = ..., arguments = {...} }`".into(),
                    );
                }
                Ok(Step::Call {
                    say: raw.say,
                    calls,
                    if_missing: raw.if_missing,
                    stop: raw.stop,
                })
            }
            (None, Some(text)) => {
                if raw.say.is_some() {
                    return Err(
                        "`say` goes with `call`; a reply step's text is all in `reply`".into(),
                    );
                }
                if raw.if_missing.is_some() {
                    return Err("`if_missing` goes with `call`, not with `reply`".into());
                }
                Ok(Step::Reply {
                    text,
                    stop: raw.stop,
                })
            }
        }
    }
}

impl From<Step> for RawStep {
    fn from(step: Step) -> RawStep {
        match step {
            Step::Call {
                say,
                calls,
                if_missing,
                stop,
            } => RawStep {
                say,
                call: Some(calls),
                stop,
                if_missing,
                ..RawStep::default()
            },
            Step::Reply { text, stop } => RawStep {
                reply: Some(text),
                stop,
                ..RawStep::default()
            },
        }
    }
}

/// Fills `{result}`, `{result:N}` (`missing` where there is no such result) and (when `tool`
/// is given) `{tool}` in `template`. Anything else in braces is kept as written.
pub(super) fn fill(
    template: &str,
    results: &[String],
    tool: Option<&str>,
    missing: &str,
) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let replacement = after.find('}').and_then(|close| {
            placeholder(&after[..close], results, tool, missing).map(|r| (r, close))
        });
        match replacement {
            Some((text, close)) => {
                out.push_str(&text);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn placeholder(
    name: &str,
    results: &[String],
    tool: Option<&str>,
    missing: &str,
) -> Option<String> {
    let found = |r: Option<&String>| r.map_or_else(|| missing.to_string(), Clone::clone);
    match name {
        "result" => Some(found(results.last())),
        "tool" => tool.map(str::to_string),
        _ => {
            let index = name.strip_prefix("result:")?.trim().parse::<usize>().ok()?;
            Some(found(results.get(index)))
        }
    }
}
