//! Poisoning highlights: text in tool definitions and server `instructions` that is addressed
//! to the model rather than the user, or hidden from the user altogether.
//!
//! Everything a server writes in a tool's description reaches the model through the host,
//! while most UIs show the user one line of it (the Tool Poisoning Attack, named by Invariant
//! Labs in April 2025). These rules look at tool descriptions (and every `description` inside
//! `inputSchema` / `outputSchema`), tool names, titles and other strings of the definition, and
//! the server's `instructions`. Each [`Finding`] points at the characters it is about:
//! `span` is a half-open range of **char offsets** (Unicode scalar values, Rust `char`s, not
//! bytes or UTF-16 units) into the field's text.
//!
//! | kind | what | severity |
//! |---|---|---|
//! | `tag-characters` | Unicode tag characters U+E0000..U+E007F; the ASCII they spell is decoded into `hidden` | danger |
//! | `zero-width` | U+200B..U+200D, U+2060, U+FEFF, U+180E, U+2061..U+2064 (a ZWJ inside an emoji sequence is fine) | warning |
//! | `bidi-control` | U+202A..U+202E, U+2066..U+2069 | danger |
//! | `mixed-script-name` | a tool name mixing scripts (Cyrillic `а` in a Latin name) or using fullwidth / mathematical letters | danger |
//! | `confusable-name` | a tool name that looks like another tool's name | warning |
//! | `directive-block` | `<IMPORTANT>`-style tags addressed to the model, and the block they enclose | danger |
//! | `ignore-instructions` | "ignore previous / all instructions", "disregard the rules" | danger |
//! | `conceal-from-user` | "do not tell / mention ... the user", "never tell the user", "without asking the user" | danger |
//! | `model-precondition` | "before using this tool", "otherwise the tool will not work" | warning |
//! | `tool-reference` | another tool named in a description (tool shadowing) | info (same server) / warning (another server) |
//! | `sensitive-file` | `~/.ssh`, `id_rsa`, `.env`, `~/.aws/credentials`, `mcp.json`, other keys and configs | danger |
//! | `secret` | API keys, passwords, access tokens, private keys, credentials | warning |
//! | `exfiltration` | sending to a URL or address, or asking for files / secrets in a tool argument (the `sidenote` trick) | danger |
//! | `long-description` | a description over 500 chars and over 3x the median of its server's other descriptions | info |
//!
//! Text rules run on a normalised view of the field (tag characters decoded, zero-width and
//! bidi characters removed, common Cyrillic / Greek / fullwidth look-alikes folded to Latin,
//! lowercased), so hiding a phrase in tag characters or breaking a word with a zero-width space
//! does not hide it from the rules; spans are mapped back to the original characters.
//!
//! All of this is local: nothing read here is sent anywhere.

use std::fmt;

use serde::Serialize;

/// What a finding is about. [`Kind::code`] is the stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    TagCharacters,
    ZeroWidth,
    BidiControl,
    MixedScriptName,
    ConfusableName,
    DirectiveBlock,
    IgnoreInstructions,
    ConcealFromUser,
    ModelPrecondition,
    ToolReference,
    SensitiveFile,
    Secret,
    Exfiltration,
    LongDescription,
}

impl Kind {
    pub const ALL: [Kind; 14] = [
        Kind::TagCharacters,
        Kind::ZeroWidth,
        Kind::BidiControl,
        Kind::MixedScriptName,
        Kind::ConfusableName,
        Kind::DirectiveBlock,
        Kind::IgnoreInstructions,
        Kind::ConcealFromUser,
        Kind::ModelPrecondition,
        Kind::ToolReference,
        Kind::SensitiveFile,
        Kind::Secret,
        Kind::Exfiltration,
        Kind::LongDescription,
    ];

    /// The stable code, as in the module documentation.
    pub fn code(self) -> &'static str {
        match self {
            Kind::TagCharacters => "tag-characters",
            Kind::ZeroWidth => "zero-width",
            Kind::BidiControl => "bidi-control",
            Kind::MixedScriptName => "mixed-script-name",
            Kind::ConfusableName => "confusable-name",
            Kind::DirectiveBlock => "directive-block",
            Kind::IgnoreInstructions => "ignore-instructions",
            Kind::ConcealFromUser => "conceal-from-user",
            Kind::ModelPrecondition => "model-precondition",
            Kind::ToolReference => "tool-reference",
            Kind::SensitiveFile => "sensitive-file",
            Kind::Secret => "secret",
            Kind::Exfiltration => "exfiltration",
            Kind::LongDescription => "long-description",
        }
    }

    /// The usual severity of the kind (a tool reference within its own server is `info`).
    pub fn severity(self) -> Severity {
        match self {
            Kind::TagCharacters
            | Kind::BidiControl
            | Kind::MixedScriptName
            | Kind::DirectiveBlock
            | Kind::IgnoreInstructions
            | Kind::ConcealFromUser
            | Kind::SensitiveFile
            | Kind::Exfiltration => Severity::Danger,
            Kind::ZeroWidth
            | Kind::ConfusableName
            | Kind::ModelPrecondition
            | Kind::ToolReference
            | Kind::Secret => Severity::Warning,
            Kind::LongDescription => Severity::Info,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// How worrying a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Danger,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Danger => "danger",
        }
    }
}

/// One rule's hit in one text, before it is placed in a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub kind: Kind,
    pub severity: Severity,
    /// Half-open char range in the text.
    pub span: (usize, usize),
    /// What the hit says, in English ([`Hit::said`] rendered).
    pub explanation: String,
    /// What the hit says, for any language.
    pub said: Said,
    /// For tag characters: the ASCII text they spell.
    pub hidden: Option<String>,
}

/// One finding in a trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The server's `serverInfo.name` (its lane name without a handshake).
    pub server: String,
    /// The tool, or `None` for the server's `instructions`.
    pub tool: Option<String>,
    /// Where in the definition: `description`, `name`, `title`,
    /// `inputSchema.properties.x.description`, `instructions`, ...
    pub field: String,
    pub kind: Kind,
    pub severity: Severity,
    /// Half-open range of char offsets in the field's text.
    pub span: (usize, usize),
    /// The span with some context, invisible characters written as `\u{...}` (English: a
    /// long span's cut says `…(N chars)…`); see [`Finding::excerpt_in`].
    pub excerpt: String,
    /// [`Finding::excerpt`] in each language, in [`Language::ALL`](crate::i18n::Language::ALL)
    /// order.
    #[serde(skip)]
    pub excerpts: [String; 3],
    /// What the finding says, in English (the JSON output's); see [`Finding::explanation_in`].
    pub explanation: String,
    /// What the finding says, for any language.
    #[serde(skip)]
    pub said: Said,
    /// For tag characters: the decoded hidden text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    /// `seq` of the event the text arrived in (`tools/list` or `initialize` result).
    pub seq: u64,
}

/// The other tools a text may mention: (server, tool name).
#[derive(Debug, Clone, Default)]
pub struct Context<'a> {
    /// The server the text belongs to.
    pub server: &'a str,
    /// The tool the text belongs to (`None` for instructions).
    pub tool: Option<&'a str>,
    /// Argument names of the tool (of all the server's tools, for instructions).
    pub params: Vec<&'a str>,
    /// Every tool in the trace, as (server, name).
    pub tools: Vec<(&'a str, &'a str)>,
    /// `true` for a server's `instructions`, which may name their own server's tools.
    pub instructions: bool,
    /// `true` when the text describes a tool argument.
    pub parameter: Option<&'a str>,
}

impl Finding {
    /// The excerpt in the language of `w` (only a long span's cut has words).
    pub fn excerpt_in(&self, w: crate::i18n::Words) -> &str {
        let at = crate::i18n::Language::ALL
            .iter()
            .position(|l| *l == w.lang)
            .unwrap_or(0);
        &self.excerpts[at]
    }

    /// The explanation in the language of `w`.
    pub fn explanation_in(&self, w: crate::i18n::Words) -> String {
        if self.said.key.is_empty() {
            self.explanation.clone()
        } else {
            self.said.render(w)
        }
    }
}

mod excerpt;
mod names;
mod rules;
mod said;
mod scan;
mod sensitive;
#[cfg(test)]
mod tests;
mod view;

pub use excerpt::{escape, excerpt};
pub use names::scan_name;
pub use rules::{scan_invisible, scan_text};
pub use said::{Arg, Said};
pub use scan::{GATHER_PER_LIST, Scanner, scan, scan_definitions};
