//! Scenarios: a workshop run in one TOML file (format in `docs/scenarios.md`).
//!
//! A scenario names the servers, the user's prompt, the provider shape and model, the protocol
//! revision, how the host behaves (name prefixes, re-fetching on `list_changed`, answers to
//! sampling, elicitation and roots) and the scripted model's script, plus a short explanation
//! for the audience. Everything a run does comes from here, so a saved scenario replays the
//! same story.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::scripted::Script;
use crate::i18n::{Language, Said, Strings};
use crate::wire::api::ApiShape;
use crate::wire::catalog::{CatalogOptions, OnInvalidTool, Prefix};

mod error;
mod keys;
pub mod shipped;
mod text;

pub use error::ScenarioError;
pub use shipped::{Shipped, Source};
pub use text::Text;

/// The model name that selects the embedded scripted model.
pub const SCRIPTED_MODEL: &str = "scripted";

/// Which lifecycle the host's MCP client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
pub enum Protocol {
    /// The `initialize` handshake, then `notifications/initialized` (stateful session).
    #[serde(rename = "2025-11-25")]
    #[value(name = "2025-11-25")]
    #[default]
    V2025_11_25,
    /// `server/discover` and per-request `_meta`; no handshake, no session.
    #[serde(rename = "2026-07-28")]
    #[value(name = "2026-07-28")]
    V2026_07_28,
    /// Try `server/discover`, fall back to `initialize` for older servers.
    #[serde(rename = "auto")]
    #[value(name = "auto")]
    Auto,
}

impl Protocol {
    /// The revisions the host speaks, oldest first ([`Protocol::Auto`] picks one of them).
    pub const SPOKEN: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V2025_11_25 => "2025-11-25",
            Protocol::V2026_07_28 => "2026-07-28",
            Protocol::Auto => "auto",
        }
    }
}

/// One MCP server of a scenario: a built-in demo server or any command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    /// The server's lane is `server:<name>`.
    pub name: String,
    /// A built-in demo server (`sightline demo-server NAME`).
    pub builtin: Option<String>,
    /// Or a command to run.
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// Whose MCP client connects to it: the host's (default), or the LLM API's own (the API
    /// as MCP client: Anthropic's MCP connector, OpenAI's `mcp` tools; see `host::connector`).
    #[serde(default)]
    pub client: ServerClient,
}

/// Who is a server's MCP client in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerClient {
    /// The host connects to it through the tap (stdio).
    #[default]
    Host,
    /// The host only declares it in each LLM request, and the API connects to it itself:
    /// a `builtin` is served over Streamable HTTP behind the tap's HTTP proxy; a `command` is
    /// declared as a local stdio server, which the APIs refuse.
    Api,
}

/// The host's answer to `elicitation/create`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElicitationAnswer {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    #[serde(default)]
    pub content: Option<Value>,
}

impl Default for ElicitationAnswer {
    fn default() -> Self {
        ElicitationAnswer {
            action: "decline".into(),
            content: None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Root {
    pub uri: String,
    pub name: Option<String>,
}

/// How the host behaves.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostOptions {
    /// Fetch `tools/list` again after `notifications/tools/list_changed` (false shows a stale list).
    pub refetch_on_list_changed: bool,
    pub prefix: Prefix,
    pub on_invalid_tool: OnInvalidTool,
    /// Tools the host will not show the model, as `server/tool` or `tool`.
    pub deny: Vec<String>,
    /// What the scripted model answers when the host asks it on behalf of a server's
    /// sampling request (`sampling/createMessage`). A real model answers for itself.
    pub sampling_reply: Text,
    pub elicitation: ElicitationAnswer,
    pub roots: Vec<Root>,
    /// Resources the host reads and attaches to the model's context (application-controlled).
    pub attach_resources: Vec<String>,
    /// Defer the servers' tools as Claude Code does: the model gets their names and the host's
    /// own search tool, and a tool's definition only once the model has searched for it
    /// (Anthropic shape only; on another API the host sends every tool whole, and says so).
    pub defer_tools: bool,
    /// Maximum model turns before the host stops the loop.
    pub max_turns: u32,
    pub max_tokens: u32,
    /// Ask the provider for a streamed (SSE) response.
    pub stream: bool,
    /// The person elicitation goes to, when there is one (never in a scenario file).
    #[serde(skip)]
    pub user: Option<crate::host::user::UserLane>,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            refetch_on_list_changed: true,
            prefix: Prefix::default(),
            on_invalid_tool: OnInvalidTool::default(),
            deny: Vec::new(),
            sampling_reply: Text::ours(crate::host::scripted::SAMPLING_REPLY),
            elicitation: ElicitationAnswer::default(),
            roots: Vec::new(),
            attach_resources: Vec::new(),
            defer_tools: false,
            max_turns: 8,
            max_tokens: 1024,
            stream: false,
            user: None,
        }
    }
}

impl HostOptions {
    /// What the tool catalog needs of the host's options.
    pub fn catalog(&self) -> CatalogOptions<'_> {
        CatalogOptions {
            prefix: self.prefix,
            on_invalid_tool: self.on_invalid_tool,
            deny: &self.deny,
        }
    }
}

/// A prompt the user picked (user-controlled): the host fetches it with `prompts/get` and its
/// messages become the user's turn.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptTemplate {
    pub server: String,
    pub name: String,
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

/// A whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub title: String,
    /// A few sentences for the audience: what to look at in this run.
    #[serde(default)]
    pub explanation: String,
    /// What the user asks.
    pub prompt: Text,
    /// When set, the user picked this server prompt; `prompt` is what they typed to pick it.
    pub prompt_template: Option<PromptTemplate>,
    /// System text sent with every LLM request.
    pub system: Option<Text>,
    #[serde(default = "default_shape")]
    pub provider: ApiShape,
    #[serde(default = "default_model")]
    pub model: String,
    #[serde(default)]
    pub protocol: Protocol,
    /// The revisions this scenario makes sense under (default: both).
    #[serde(default = "both_revisions")]
    pub revisions: Vec<Protocol>,
    #[serde(default)]
    pub host: HostOptions,
    pub servers: Vec<ServerSpec>,
    /// The scripted model's steps.
    #[serde(default)]
    pub script: Script,
}

fn default_shape() -> ApiShape {
    ApiShape::Anthropic
}

/// The text with CRLF line ends made LF. TOML keeps a CRLF inside a multi-line string and lets
/// a parser make it LF: a scenario saved by a Windows editor (or checked out with Git's
/// `autocrlf`) sends the model the same prompt and shows the same explanation as on Linux.
/// Outside strings a CR is only ever part of a line end, so nothing else changes.
fn lf(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        text.replace("\r\n", "\n").into()
    } else {
        text.into()
    }
}

fn default_model() -> String {
    SCRIPTED_MODEL.into()
}

fn both_revisions() -> Vec<Protocol> {
    vec![Protocol::V2025_11_25, Protocol::V2026_07_28]
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text =
            crate::trace::encoding::read_to_string(path).map_err(|source| ScenarioError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        Scenario::parse(&text, path)
    }

    /// The scenario an argument names: a file, else a shipped scenario ([`Source::of`]), with
    /// `sets` applied first: each `KEY=VALUE` (`host.prefix=never`,
    /// `host.refetch_on_list_changed=false`) replaces one value of the file, so a teacher
    /// changes one knob without editing TOML. `KEY` is dotted; `VALUE` is read as TOML
    /// (`false`, `3`, `["a"]`), else taken as a string. A key the scenario format does not know
    /// is an error, as in the file.
    pub fn find(arg: &Path, sets: &[String]) -> Result<(Scenario, Source), ScenarioError> {
        let source = Source::of(arg)?;
        let scenario = Scenario::with_sets(&source.text()?, &source.path(), sets)?;
        Ok((scenario, source))
    }

    /// The scenario with its user's and model's words ([`Text`]) in `lang` alone, as a run
    /// uses them (`agent::run` calls it with the run's language): the prompt, the system
    /// text, the script's steps and the sampling reply.
    pub fn in_language(mut self, lang: Language) -> Scenario {
        self.prompt = self.prompt.chosen(lang);
        self.system = self.system.map(|s| s.chosen(lang));
        self.host.sampling_reply = self.host.sampling_reply.chosen(lang);
        self.script = self.script.in_language(lang);
        self
    }

    /// Scenario `text` (named by `path`) with `sets` applied (see [`Scenario::find`]).
    fn with_sets(text: &str, path: &Path, sets: &[String]) -> Result<Scenario, ScenarioError> {
        let text = &lf(text);
        if sets.is_empty() {
            return Scenario::parse(text, path);
        }
        let invalid = |problem: Said| ScenarioError::Invalid {
            path: path.to_path_buf(),
            problem,
        };
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| ScenarioError::parse(path, text, &e))?;
        for set in sets {
            apply_set(&mut table, set).map_err(|e| {
                invalid(
                    Said::new("scenario_error.set")
                        .with("set", set)
                        .with_said("problem", e),
                )
            })?;
        }
        let text = toml::to_string(&table).map_err(|e| invalid(Said::plain(e.to_string())))?;
        // The changed text has no lines of the file: say what is wrong on one line.
        if let Err(e) = toml::from_str::<Scenario>(&text) {
            let message = e.message().trim().replace('\n', " ");
            let at = e
                .span()
                .and_then(|span| key_at(&text, span.start))
                .map_or_else(Said::empty, |key| {
                    Said::new("scenario_error.at_key").with("key", key)
                });
            return Err(invalid(
                Said::new("scenario_error.with_sets")
                    .with("sets", sets.join(" "))
                    .with_said("at", at)
                    .with("message", message),
            ));
        }
        Scenario::parse(&text, path)
    }

    /// Parses scenario text; `path` names it in errors and anchors relative `cwd`s.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
        let text = &lf(text);
        let scenario: Scenario =
            toml::from_str(text).map_err(|e| ScenarioError::parse(path, text, &e))?;
        let invalid = |problem: Said| ScenarioError::Invalid {
            path: path.to_path_buf(),
            problem,
        };
        if scenario.servers.is_empty() {
            return Err(invalid(Said::new("scenario_error.no_servers")));
        }
        let mut names = std::collections::HashSet::new();
        for s in &scenario.servers {
            if !names.insert(&s.name) {
                return Err(invalid(
                    Said::new("scenario_error.same_name").with("name", &s.name),
                ));
            }
            match (&s.builtin, &s.command) {
                (Some(b), None) if !crate::servers::NAMES.contains(&b.as_str()) => {
                    return Err(invalid(
                        Said::new("scenario_error.no_builtin")
                            .with("name", &s.name)
                            .with("builtin", b)
                            .with("known", crate::servers::NAMES.join(", ")),
                    ));
                }
                (Some(_), None) | (None, Some(_)) => {}
                _ => {
                    return Err(invalid(
                        Said::new("scenario_error.builtin_or_command").with("name", &s.name),
                    ));
                }
            }
        }
        Ok(scenario)
    }

    /// The title in `lang`. `name` is the file's stem: a shipped scenario, unchanged, has its
    /// words in `assets/i18n` (`scenario.<name>.title` and `.explanation`, the English there
    /// equal to the file's); any other scenario shows its own.
    pub fn title_in<'a>(&'a self, strings: &'a Strings, lang: Language, name: &str) -> &'a str {
        self.text_in(strings, lang, name, "title", &self.title)
    }

    /// The explanation in `lang` (see [`Scenario::title_in`]).
    pub fn explanation_in<'a>(
        &'a self,
        strings: &'a Strings,
        lang: Language,
        name: &str,
    ) -> &'a str {
        self.text_in(strings, lang, name, "explanation", &self.explanation)
    }

    fn text_in<'a>(
        &'a self,
        strings: &'a Strings,
        lang: Language,
        name: &str,
        field: &str,
        own: &'a str,
    ) -> &'a str {
        let key = |field: &str| format!("scenario.{name}.{field}");
        let english = |field: &str| strings.lookup(Language::En, &key(field)).map(str::trim);
        let shipped = english("title") == Some(self.title.trim())
            && english("explanation") == Some(self.explanation.trim());
        match strings.lookup(lang, &key(field)) {
            Some(text) if shipped => text,
            _ => own,
        }
    }

    /// The servers the host itself connects to (not those it hands the LLM API).
    pub fn host_servers(&self) -> impl Iterator<Item = &ServerSpec> {
        let servers = self.servers.iter();
        servers.filter(|s| s.client == ServerClient::Host)
    }

    /// Whether the embedded scripted model plays the model.
    pub fn uses_scripted_model(&self) -> bool {
        self.model == SCRIPTED_MODEL
    }
}

/// One `KEY=VALUE` of [`Scenario::find`] applied to the scenario's table; a key the
/// scenario format does not have is refused here, naming the keys it has.
/// The dotted key of the `key = value` line of TOML `text` at byte `offset` (`host.prefix`),
/// with the `[table]` it sits under: where a value that `--set` changed fails.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let key = line.split_once('=')?.0.trim();
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim());
    Some(match table {
        Some(table) if !table.is_empty() => format!("{table}.{key}"),
        _ => key.to_string(),
    })
}

fn apply_set(table: &mut toml::Table, set: &str) -> Result<(), Said> {
    let (key, value) = set
        .split_once('=')
        .ok_or_else(|| Said::new("scenario_error.set_form"))?;
    let value = value.trim();
    let value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    let parts: Vec<&str> = key.trim().split('.').collect();
    let (last, tables) = parts
        .split_last()
        .ok_or_else(|| Said::new("scenario_error.set_form"))?;
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Said::new("scenario_error.not_dotted").with("key", key));
    }
    if let Some((_, known)) = keys::unknown(&parts) {
        return Err(Said::new("scenario_error.unknown_key")
            .with("key", key.trim())
            .with("known", known.join(", ")));
    }
    let mut at = table;
    for part in tables {
        at = at
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .ok_or_else(|| Said::new("scenario_error.not_table").with("part", part))?;
    }
    at.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_with_a_key_the_format_lacks_names_the_keys_it_has() {
        let mut t: toml::Table = toml::from_str("[host]\nprefix = \"never\"").unwrap();
        let err = apply_set(&mut t, "host.prefx=never").unwrap_err();
        assert_eq!(err.keys(), ["scenario_error.unknown_key"]);
        let en = err.english();
        assert!(
            en.contains("host.prefx") && en.contains("refetch_on_list_changed"),
            "{en}"
        );
        assert!(apply_set(&mut t, "modle=x").is_err());
        assert!(apply_set(&mut t, "host.elicitation.action=accept").is_ok());
        assert!(apply_set(&mut t, "host.elicitation.actoin=accept").is_err());
        assert!(apply_set(&mut t, "model=scripted").is_ok());
    }

    #[test]
    fn a_parse_error_keeps_its_line_and_column() {
        let err = Scenario::parse(
            "title = \"t\"\nprompt = \"p\"\ntitel = 1\n",
            Path::new("s.toml"),
        )
        .unwrap_err();
        let ScenarioError::Parse { line, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(*line, Some(3), "{err}");
        let pt = err.said().say(crate::i18n::Words::of(Language::Pt));
        assert!(pt.contains("linha 3"), "{pt}");
    }

    #[test]
    fn a_scenario_saved_by_a_windows_editor_is_the_same_scenario() {
        use crate::trace::encoding::Encoding;
        let dir = tempfile::tempdir().expect("temp dir");
        for shipped in super::shipped::SHIPPED {
            let path = dir.path().join(format!("{}.toml", shipped.name));
            let want = format!(
                "{:?}",
                Scenario::parse(shipped.text, &path).expect("parses")
            );
            // Notepad's CRLF, with a UTF-8 mark or as UTF-16 ("Unicode"); and PowerShell 5's `>`.
            let crlf = shipped.text.replace('\n', "\r\n");
            for encoding in [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le] {
                std::fs::write(&path, encoding.encode(&crlf)).expect("write");
                let got = Scenario::load(&path).unwrap_or_else(|e| panic!("{encoding:?}: {e}"));
                assert_eq!(format!("{got:?}"), want, "{} {encoding:?}", shipped.name);
            }
        }
    }

    #[test]
    fn the_key_a_set_value_fails_at_is_named_with_its_table() {
        let text = "title = \"t\"\n\n[host]\nprefix = 3\n";
        let at = text.find("3").expect("the value");
        assert_eq!(key_at(text, at).as_deref(), Some("host.prefix"));
        assert_eq!(key_at(text, 3).as_deref(), Some("title"));
    }

    #[test]
    fn a_set_replaces_one_value_read_as_toml_or_as_a_string() {
        let mut t: toml::Table = toml::from_str("[host]\nprefix = \"on-collision\"").unwrap();
        apply_set(&mut t, "host.prefix=never").unwrap();
        apply_set(&mut t, "host.max_turns = 3").unwrap();
        apply_set(&mut t, "host.deny=[\"a\"]").unwrap();
        assert_eq!(t["host"]["prefix"].as_str(), Some("never"));
        assert_eq!(t["host"]["max_turns"].as_integer(), Some(3));
        assert_eq!(t["host"]["deny"][0].as_str(), Some("a"));
        assert!(apply_set(&mut t, "host.prefix").is_err());
        assert!(apply_set(&mut t, "host..x=1").is_err());
        assert!(apply_set(&mut t, "host.prefix.x=1").is_err());
    }
}
