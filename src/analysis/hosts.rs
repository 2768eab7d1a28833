//! Host profiles: the rules each real host applies to an MCP server's tools before its model
//! sees them, as data (`assets/hosts/*.toml`, one table per host, embedded).
//!
//! "My tool doesn't show up" is most often a host rule: a prefix that pushes a name past 64
//! characters, a tool cap, a dotted name that makes a host withhold the whole server, a schema
//! its validator refuses, `list_changed` ignored, a startup timeout. Each rule here carries its
//! source, the date of that source and a [`Confidence`], so the doctor can say how sure it is
//! and a host update is a data change, not code. The name the model sees is not restated: a
//! profile names its [`Scheme`], whose one home is [`crate::wire::offered::naming`].
//!
//! - [`profiles`]: every profile, parsed once.
//! - [`find`]: a profile by its id or name (`--host codex`).
//! - [`recognise`]: which host a trace shows, from `initialize`'s `clientInfo`, an LLM
//!   request's `user-agent`, or the tools only that host sends ([`crate::wire::offered::Host`]).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::wire::api::ApiShape;
use crate::wire::offered::naming::{Named, Pass, Scheme};

mod recognise;

pub use recognise::{By, Recognised, recognise};

/// The profiles' TOML, one file per host, in the order `--host list` and `--host all` show.
const SOURCES: [(&str, &str); 7] = [
    (
        "claude-code",
        include_str!("../../assets/hosts/claude-code.toml"),
    ),
    (
        "claude-desktop",
        include_str!("../../assets/hosts/claude-desktop.toml"),
    ),
    ("cursor", include_str!("../../assets/hosts/cursor.toml")),
    ("vscode", include_str!("../../assets/hosts/vscode.toml")),
    ("codex", include_str!("../../assets/hosts/codex.toml")),
    (
        "gemini-cli",
        include_str!("../../assets/hosts/gemini-cli.toml"),
    ),
    ("windsurf", include_str!("../../assets/hosts/windsurf.toml")),
];

/// How sure a rule is: `H` an official doc or the host's source read, `M` several consistent
/// issue reports, `L` one report or a secondary page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub enum Confidence {
    H,
    M,
    L,
}

impl Confidence {
    /// The i18n key of its word (`high`, `medium`, `low`).
    pub fn key(self) -> &'static str {
        match self {
            Confidence::H => "host_profile.confidence_high",
            Confidence::M => "host_profile.confidence_medium",
            Confidence::L => "host_profile.confidence_low",
        }
    }
}

/// One rule and where it comes from.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Fact<T> {
    #[serde(flatten)]
    pub rule: T,
    /// The rule in the source's words, for people.
    pub note: String,
    pub source: String,
    /// When the source said it (`2026-08`, `2026-01-07`).
    pub date: String,
    pub confidence: Confidence,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Naming {
    pub scheme: Scheme,
}

/// Which name a length limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applies {
    /// The name the model sees (after the host's prefix).
    ModelName,
    /// The server's name and the tool's, added (Cursor).
    ServerAndTool,
}

/// What a host does with a tool, or a server, past one of its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Past {
    /// The tool is left out.
    DropTool,
    /// The tools after the cap are left out, in listing order.
    DropRest,
    /// Every tool of the server is left out (all or nothing).
    WithholdServer,
    /// A server whose tools would pass the cap is refused whole.
    RefuseServer,
    /// The request to the model fails (the API answers 400).
    RequestFails,
    /// The name is cut; the tool is sent under the cut name.
    Cut,
    /// The tools past the cap are grouped behind activation tools the model calls first.
    Group,
    /// The schema is changed to fit (a subset, keywords stripped); the tool is sent.
    Coerced,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct NameLimit {
    pub max: usize,
    pub applies_to: Applies,
    pub past: Past,
}

/// Characters a raw tool name may have, and its longest length (Claude Desktop).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct NameChars {
    /// `A-Za-z0-9_-`: ranges and single characters.
    pub allowed: String,
    pub max: usize,
    pub past: Past,
}

impl NameChars {
    /// The first character of `name` outside [`Self::allowed`], with its position.
    pub fn first_bad(&self, name: &str) -> Option<(usize, char)> {
        let set: Vec<char> = self.allowed.chars().collect();
        let ok = |c: char| {
            set.iter().enumerate().any(|(i, &a)| {
                a == c
                    || (set.get(i + 1) == Some(&'-')
                        && set.get(i + 2).is_some_and(|&b| (a..=b).contains(&c)))
            })
        };
        name.chars().enumerate().find(|&(_, c)| !ok(c))
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ToolCap {
    pub max: usize,
    pub past: Past,
}

/// Which schemas a host's validator refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refuses {
    /// `inputSchema` whose top level is not `"type": "object"` (a top-level `anyOf`).
    NonObject,
    /// A schema that is not valid against the draft-07 meta-schema.
    #[serde(rename = "invalid-draft-07")]
    InvalidDraft07,
    /// Nothing refused (the host coerces instead).
    None,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct SchemaRule {
    pub refuses: Refuses,
    pub past: Past,
}

/// Which MCP tools a host defers (sends by name, the schema on demand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeferDefault {
    All,
    None,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Deferral {
    pub default: DeferDefault,
    /// Whether a server or tool can ask to be loaded upfront (`alwaysLoad`).
    pub always_load: bool,
}

/// What a host does on `notifications/tools/list_changed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Support {
    /// Lists again.
    ActedOn,
    /// Keeps the list it has.
    Ignored,
    /// Not known.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ListChanged {
    pub support: Support,
}

/// How much of a paged `tools/list` a host reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reads {
    /// The first page only: the tools on later pages never reach the model.
    FirstPage,
    /// Every page, following `nextCursor`.
    AllPages,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Pagination {
    pub reads: Reads,
    /// The first version that reads every page (`2.1.144`), when a later one fixed it.
    pub until: Option<String>,
}

impl Pagination {
    /// Whether the host at `version` reads only the first page; `None` when that depends on a
    /// version not known (none recorded, or one that does not parse).
    pub fn first_page_only(&self, version: Option<&str>) -> Option<bool> {
        if self.reads == Reads::AllPages {
            return Some(false);
        }
        let Some(until) = &self.until else {
            return Some(true);
        };
        older(version?, until)
    }
}

/// Whether dotted version `a` is older than `b` (`2.1.99` < `2.1.144`); `None` when either
/// has a part that is not a number (a pre-release tag after `-` is ignored).
fn older(a: &str, b: &str) -> Option<bool> {
    let parts = |v: &str| -> Option<Vec<u64>> {
        let core = v.trim().split(['-', '+']).next().unwrap_or_default();
        core.split('.').map(|p| p.parse().ok()).collect()
    };
    Some(parts(a)? < parts(b)?)
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Timeout {
    pub ms: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DescriptionCut {
    pub max_bytes: usize,
}

/// Where a host keeps its MCP servers, in the order it reads them: each path a template in
/// which `{home}` is the user's home folder and `{config}` the system's folder for settings
/// (`~/.config` or `$XDG_CONFIG_HOME` on Linux, `~/Library/Application Support` on macOS,
/// `%APPDATA%` on Windows); a path with neither is relative to the folder `wrap` runs in (a
/// project's config). One list serves every system because the systems differ only there.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ConfigFiles {
    pub paths: Vec<String>,
}

impl ConfigFiles {
    /// The paths, placeholders filled in.
    pub fn expand(
        &self,
        home: &std::path::Path,
        config: &std::path::Path,
    ) -> Vec<std::path::PathBuf> {
        self.paths
            .iter()
            .map(|template| {
                let (base, rest) = if let Some(rest) = template.strip_prefix("{home}") {
                    (Some(home), rest)
                } else if let Some(rest) = template.strip_prefix("{config}") {
                    (Some(config), rest)
                } else {
                    (None, template.as_str())
                };
                // Each `/` of the template is a separator of the system's paths.
                let mut path = base.map(std::path::Path::to_path_buf).unwrap_or_default();
                path.extend(rest.split('/').filter(|part| !part.is_empty()));
                path
            })
            .collect()
    }
}

/// Everything one host does to an MCP server's tools.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `claude-code`: what `--host` takes.
    pub id: String,
    /// `Claude Code`: what people read.
    pub name: String,
    /// The API shape its model is reached by, for the provider's own rules.
    pub api: ApiShape,
    /// `clientInfo.name` values it sends in `initialize`.
    pub client_names: Vec<String>,
    /// Prefixes of the `user-agent` its LLM requests carry.
    pub user_agents: Vec<String>,
    pub naming: Fact<Naming>,
    pub name_limit: Option<Fact<NameLimit>>,
    pub name_chars: Option<Fact<NameChars>>,
    pub tool_cap: Option<Fact<ToolCap>>,
    #[serde(default)]
    pub schema: Vec<Fact<SchemaRule>>,
    pub deferral: Option<Fact<Deferral>>,
    pub list_changed: Option<Fact<ListChanged>>,
    /// How much of a paged `tools/list` it reads.
    pub pagination: Option<Fact<Pagination>>,
    pub startup_timeout: Option<Fact<Timeout>>,
    pub description_cut: Option<Fact<DescriptionCut>>,
    /// Where its MCP config lives (`wrap --host`).
    pub config: Option<Fact<ConfigFiles>>,
}

impl Profile {
    /// The name the model sees `server`'s `tool` under, the server seen alone.
    pub fn model_name(&self, server: &str, tool: &str) -> String {
        self.naming.rule.scheme.model_name(server, tool)
    }

    /// The names the host gives the tools of `servers` seen together, in the order it starts
    /// them (VS Code numbers a prefix another server's label took first).
    pub fn pass(&self, servers: &[Named]) -> Pass {
        Pass::new(self.naming.rule.scheme, servers)
    }

    /// Every rule's source line: `(rule, note, source, date, confidence)`, for `--host list`
    /// and docs.
    pub fn rules(&self) -> Vec<(&'static str, &str, &str, &str, Confidence)> {
        fn row<'a, T>(
            name: &'static str,
            f: &'a Fact<T>,
        ) -> (&'static str, &'a str, &'a str, &'a str, Confidence) {
            (name, &f.note, &f.source, &f.date, f.confidence)
        }
        let mut out = vec![row("naming", &self.naming)];
        out.extend(self.name_limit.iter().map(|f| row("name_limit", f)));
        out.extend(self.name_chars.iter().map(|f| row("name_chars", f)));
        out.extend(self.tool_cap.iter().map(|f| row("tool_cap", f)));
        out.extend(self.schema.iter().map(|f| row("schema", f)));
        out.extend(self.deferral.iter().map(|f| row("deferral", f)));
        out.extend(self.list_changed.iter().map(|f| row("list_changed", f)));
        out.extend(self.pagination.iter().map(|f| row("pagination", f)));
        out.extend(
            self.startup_timeout
                .iter()
                .map(|f| row("startup_timeout", f)),
        );
        out.extend(
            self.description_cut
                .iter()
                .map(|f| row("description_cut", f)),
        );
        out.extend(self.config.iter().map(|f| row("config", f)));
        out
    }
}

/// Why a profile did not load: the file and the parser's words (a build-time asset, so a
/// test catches it before anyone runs it).
#[derive(Debug, Clone, thiserror::Error)]
#[error("assets/hosts/{file}.toml: {message}")]
pub struct ProfileError {
    pub file: &'static str,
    pub message: String,
}

/// Parses every embedded profile.
pub fn load() -> Result<Vec<Profile>, ProfileError> {
    SOURCES
        .iter()
        .map(|(file, text)| {
            toml::from_str::<Profile>(text).map_err(|e| ProfileError {
                file,
                message: e.to_string(),
            })
        })
        .collect()
}

/// Every profile, parsed once (a profile that does not parse is left out here; `load` and its
/// test say which).
pub fn profiles() -> &'static [Profile] {
    static ALL: OnceLock<Vec<Profile>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .filter_map(|(_, text)| toml::from_str(text).ok())
            .collect()
    })
}

/// The profile named `name`: its id, or its name in any case (`codex`, `Claude Code`).
pub fn find(name: &str) -> Option<&'static Profile> {
    let wanted = name.trim();
    profiles()
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(wanted) || p.name.eq_ignore_ascii_case(wanted))
}

/// The ids of every profile, for error messages and `--host list`.
pub fn ids() -> Vec<&'static str> {
    profiles().iter().map(|p| p.id.as_str()).collect()
}

#[cfg(test)]
mod tests;
