//! The hosts' rules for the name the model sees an MCP tool under, to tie a model's call (or a
//! `tools` entry) to the server's tool by rule, not by timing.
//!
//! From the hosts' source and docs (`shared/notes/host-rules.md`):
//! - Claude Code and Codex: `mcp__<server>__<tool>`, characters outside `[A-Za-z0-9_-]` made
//!   `_`. Codex cuts a name over 64 characters to its first 24 and appends the SHA-1 (hex) of
//!   the raw name; it also offers the tool as `<tool>` inside the namespace `mcp__<server>`.
//! - Gemini CLI: `mcp_<server>_<tool>`, characters outside `[A-Za-z0-9_.:-]` made `_`, a name
//!   that does not start with a letter or `_` given one; over 63 characters, the first 30,
//!   `...`, the last 30.
//! - VS Code (Copilot): `mcp_` + the lower-cased server label (`[^a-z0-9_.-]+` made `_`, the
//!   prefix at most 18 characters; the label is the name the server announces, else its
//!   config key; a second server with the same label gets `2`, a third `3`) + the tool name
//!   (characters outside `[A-Za-z0-9_-]` made `_`), dots made `_`, the whole cut to 64
//!   (`mcpServer.ts`, `McpTool`, `McpPrefixGenerator`). [`Pass`] names the servers together.
//! - Sightline's own host: the tool's name, `<server>__<tool>` on a collision, or sanitized.
//!
//! [`Scheme`] names each host's rule, so a host profile (`assets/hosts/*.toml`) refers to the
//! rule here rather than restating it.

/// Which rule ties a model-facing name to a server's tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The MCP name as is.
    Same,
    /// `<server>__<tool>` (Sightline's host on a collision).
    ServerPrefix,
    /// The MCP name with characters the providers refuse made `_`.
    Sanitized,
    /// `mcp__<server>__<tool>` (Claude Code, Codex).
    McpPrefix,
    /// Codex's cut: first 24 characters and the SHA-1 of the raw name.
    Hashed,
    /// `mcp_<server>_<tool>` (Gemini CLI).
    GeminiPrefix,
    /// Gemini CLI's cut: first 30, `...`, last 30.
    Truncated,
    /// `<tool>` inside the namespace `mcp__<server>` (Codex).
    Namespace,
}

impl Rule {
    /// Whether the model sees another name than the server's.
    pub fn renames(self) -> bool {
        !matches!(self, Rule::Same | Rule::Namespace)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Same => "same name",
            Rule::ServerPrefix => "server__tool",
            Rule::Sanitized => "sanitized",
            Rule::McpPrefix => "mcp__server__tool",
            Rule::Hashed => "cut to 24 + SHA-1",
            Rule::GeminiPrefix => "mcp_server_tool",
            Rule::Truncated => "cut to 30...30",
            Rule::Namespace => "inside namespace",
        }
    }
}

fn map_chars(name: &str, keep: impl Fn(char) -> bool) -> String {
    name.chars()
        .map(|c| if keep(c) { c } else { '_' })
        .collect()
}

fn openai_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `mcp__<server>__<tool>` as Claude Code and Codex write it, before any cut.
pub fn mcp_prefixed(server: &str, tool: &str) -> String {
    map_chars(&format!("mcp__{server}__{tool}"), openai_char)
}

/// Codex's name for a tool: [`mcp_prefixed`], cut to 24 characters plus the SHA-1 (hex) of
/// the raw name when it is longer than 64.
pub fn codex_name(server: &str, tool: &str) -> String {
    let name = mcp_prefixed(server, tool);
    if name.len() <= 64 {
        return name;
    }
    let raw = format!("mcp__{server}__{tool}");
    let hash: String = sha1(raw.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}{hash}", &name[..24])
}

/// Gemini CLI's name for a tool (`generateValidName`).
pub fn gemini_name(server: &str, tool: &str) -> String {
    let mut name = map_chars(&format!("mcp_{server}_{tool}"), |c| {
        c.is_ascii_alphanumeric() || "_.:-".contains(c)
    });
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if name.len() > 63 {
        // Only ASCII is left, so bytes are characters.
        name = format!("{}...{}", &name[..30], &name[name.len() - 30..]);
    }
    name
}

/// A host's rule for the name the model sees, as a host profile names it (`scheme = "codex"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// The MCP name as is (Claude Desktop; hosts whose rule is not documented).
    Same,
    /// `mcp__<server>__<tool>`, sanitized (Claude Code).
    McpPrefix,
    /// [`codex_name`].
    Codex,
    /// [`gemini_name`].
    Gemini,
    /// [`vscode_name`].
    Vscode,
}

impl Scheme {
    /// The name the model sees `server`'s `tool` under.
    pub fn model_name(self, server: &str, tool: &str) -> String {
        match self {
            Scheme::Same => tool.to_string(),
            Scheme::McpPrefix => mcp_prefixed(server, tool),
            Scheme::Codex => codex_name(server, tool),
            Scheme::Gemini => gemini_name(server, tool),
            Scheme::Vscode => vscode_name(server, tool),
        }
    }

    /// The name with the host's prefix and nothing else changed: a [`Self::model_name`] that
    /// differs from it is a tool the host renamed (sanitized, cut or hashed).
    pub fn prefixed(self, server: &str, tool: &str) -> String {
        match self {
            Scheme::Same => tool.to_string(),
            Scheme::McpPrefix | Scheme::Codex => format!("mcp__{server}__{tool}"),
            Scheme::Gemini => format!("mcp_{server}_{tool}"),
            Scheme::Vscode => format!("{}{tool}", vscode_prefix(server)),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Same => "tool",
            Scheme::McpPrefix => "mcp__server__tool",
            Scheme::Codex => "mcp__server__tool (24 + SHA-1 over 64)",
            Scheme::Gemini => "mcp_server_tool (30...30 over 63)",
            Scheme::Vscode => "mcp_server_tool (cut at 64)",
        }
    }
}

/// The longest prefix VS Code gives a server's tools, `mcp_` and the closing `_` included
/// (`McpToolName.MaxPrefixLen`).
const VSCODE_PREFIX_MAX: usize = 18;

/// VS Code's safe form of a server label: lower-cased, runs outside `[a-z0-9_.-]` made `_`,
/// cut so that `mcp_` + it + `_` is at most 18 characters. Two labels with the same safe form
/// collide.
fn vscode_label(label: &str) -> String {
    let mut safe = String::new();
    let mut run = false;
    for c in label.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c) {
            safe.push(c);
            run = false;
        } else if !run {
            safe.push('_');
            run = true;
        }
    }
    safe.chars()
        .take(VSCODE_PREFIX_MAX - "mcp_".len() - 1)
        .collect()
}

/// VS Code's prefix for a server label that no other server's label collides with:
/// `mcp_` + [`vscode_label`] + `_`.
pub fn vscode_prefix(server: &str) -> String {
    format!("mcp_{}_", vscode_label(server))
}

/// VS Code's prefixes for servers' labels, in the order it starts the servers
/// (`McpPrefixGenerator.take`): the first server with a safe label gets `mcp_<label>_`, the
/// second `mcp_<label>2_`, the third `mcp_<label>3_`, the label cut one character more for
/// each digit so the prefix stays at most 18 characters.
pub fn vscode_prefixes<'a>(labels: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken: std::collections::HashMap<String, usize> = Default::default();
    labels
        .into_iter()
        .map(|label| {
            let safe = vscode_label(label);
            let index = taken.entry(safe.clone()).or_default();
            *index += 1;
            let suffix = match *index {
                1 => "_".to_string(),
                n => format!("{n}_"),
            };
            let keep = VSCODE_PREFIX_MAX - "mcp_".len() - suffix.len();
            format!(
                "mcp_{}{suffix}",
                safe.chars().take(keep).collect::<String>()
            )
        })
        .collect()
}

/// VS Code's name for a tool: [`vscode_prefix`] + the tool name with characters outside
/// `[A-Za-z0-9_-]` made `_`, dots made `_`, cut to 64.
pub fn vscode_name(server: &str, tool: &str) -> String {
    vscode_prefixed(&vscode_prefix(server), tool)
}

/// [`vscode_name`] under a prefix already given (one of [`vscode_prefixes`]).
pub fn vscode_prefixed(prefix: &str, tool: &str) -> String {
    let tool = map_chars(tool, openai_char);
    let name = format!("{prefix}{tool}").replace('.', "_");
    name.chars().take(64).collect()
}

/// One server as a naming pass sees it: its name in the host's config (the trace's lane) and
/// the name it announced in its handshake (`serverInfo.title`, else `.name`), if any.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub server: &'a str,
    pub announced: Option<&'a str>,
}

/// A host's names for every server's tools, the servers seen together: VS Code's prefix
/// depends on the servers started before (a second server whose label collides gets `2`), and
/// on the name a server announces (VS Code prefers it to the config's key). Other schemes name
/// each server on its own.
#[derive(Debug, Clone)]
pub struct Pass {
    scheme: Scheme,
    /// VS Code: each server, its prefix, and the server that took the unnumbered one.
    prefixes: Vec<(String, String, Option<String>)>,
}

impl Pass {
    /// The pass of `scheme` over `servers`, in the order the host starts them.
    pub fn new(scheme: Scheme, servers: &[Named]) -> Pass {
        let prefixes = match scheme {
            Scheme::Vscode => {
                let label = |n: &Named| n.announced.unwrap_or(n.server).to_string();
                let labels: Vec<String> = servers.iter().map(label).collect();
                let given = vscode_prefixes(labels.iter().map(String::as_str));
                servers
                    .iter()
                    .zip(&labels)
                    .zip(given)
                    .map(|((n, l), prefix)| {
                        // The first server whose label is the same safe label.
                        let first = servers
                            .iter()
                            .zip(&labels)
                            .find(|(_, other)| vscode_label(other) == vscode_label(l))
                            .map(|(m, _)| m.server.to_string())
                            .filter(|m| m != n.server);
                        (n.server.to_string(), prefix, first)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Pass { scheme, prefixes }
    }

    fn prefix(&self, server: &str) -> Option<&str> {
        self.prefixes
            .iter()
            .find(|(s, _, _)| s == server)
            .map(|(_, p, _)| p.as_str())
    }

    /// The name the model sees `server`'s `tool` under.
    pub fn model_name(&self, server: &str, tool: &str) -> String {
        match self.prefix(server) {
            Some(prefix) => vscode_prefixed(prefix, tool),
            None => self.scheme.model_name(server, tool),
        }
    }

    /// The name with the host's prefix and nothing else changed ([`Scheme::prefixed`]).
    pub fn prefixed(&self, server: &str, tool: &str) -> String {
        match self.prefix(server) {
            Some(prefix) => format!("{prefix}{tool}"),
            None => self.scheme.prefixed(server, tool),
        }
    }

    /// When `server`'s prefix is numbered because an earlier server's label collides: its
    /// prefix, and that earlier server.
    pub fn numbered(&self, server: &str) -> Option<(&str, &str)> {
        self.prefixes
            .iter()
            .find(|(s, _, _)| s == server)
            .and_then(|(_, p, first)| Some((p.as_str(), first.as_deref()?)))
    }
}

/// The rule by which `name` (called inside `namespace`, if any) names `server`'s `tool`.
pub fn rule(name: &str, namespace: Option<&str>, server: &str, tool: &str) -> Option<Rule> {
    let sanitized = || map_chars(tool, openai_char);
    if let Some(ns) = namespace {
        let ours = ns == map_chars(&format!("mcp__{server}"), openai_char) || ns == server;
        return (ours && (name == tool || name == sanitized())).then_some(Rule::Namespace);
    }
    if name == tool {
        return Some(Rule::Same);
    }
    if name == format!("{server}__{tool}") {
        return Some(Rule::ServerPrefix);
    }
    if name.starts_with("mcp__") {
        let full = mcp_prefixed(server, tool);
        if name == full {
            return Some(Rule::McpPrefix);
        }
        return (full.len() > 64 && name == codex_name(server, tool)).then_some(Rule::Hashed);
    }
    if name.starts_with("mcp_") || name.starts_with("_mcp_") {
        let gemini = gemini_name(server, tool);
        if name == gemini {
            return Some(if name.contains("...") && !tool.contains("...") {
                Rule::Truncated
            } else {
                Rule::GeminiPrefix
            });
        }
    }
    (name == sanitized() || name == crate::wire::convert::sanitize_name(tool))
        .then_some(Rule::Sanitized)
}

/// SHA-1 (FIPS 180-4) of `data`: Codex hashes long tool names with it, and nothing else here
/// needs it, so twenty lines stand in for a dependency.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut message = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for chunk in message.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            (e, d, c, b, a) = (d, c, b.rotate_left(30), a, t);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}
