//! Putting the tap in front of a real host's servers: rewriting its MCP server config.
//!
//! This lives in the tap because it is the tap's front door: the result of a wrap is that the
//! host spawns `sightline proxy` (the stdio tap) instead of each server. The logic here is pure
//! (the config's text in, the new text and a report out); [`file`] replaces the file safely and
//! `sightline wrap` drives both.
//!
//! Hosts and their files:
//! - Claude Desktop `claude_desktop_config.json`, Cursor `.cursor/mcp.json`, Claude Code
//!   `.mcp.json`: a top-level `mcpServers` object.
//! - VS Code `mcp.json`: a top-level `servers` object, in JSONC (comments, trailing commas).
//! - Codex `~/.codex/config.toml`: `[mcp_servers.NAME]` tables, in TOML ([`toml`]); a file is
//!   read as TOML when its name ends in `.toml` ([`Format::of`]).
//!
//! The config is edited in place ([`jsonc`], [`toml`]): only the `command`, `args` and `url`
//! values of the servers it wraps change; comments, trailing commas, a byte order mark,
//! numbers, key order, duplicate keys and indentation elsewhere stay exactly as written.
//!
//! A stdio server (`command`, optional `args`) becomes
//! `SIGHTLINE proxy --name NAME [--trace DIR/NAME.jsonl] -- COMMAND ARGS...`: the proxy's
//! arguments go in front of the original ones, whose text is kept. A server whose `args` have
//! that shape (`proxy`, then only `--name`, `--trace`, `--session` or live OpenTelemetry
//! options, then `--` and a command) is recognised as wrapped whatever the executable is called, so wrapping twice
//! changes nothing and `--undo` works after the binary was renamed or moved; unwrapping reads
//! the original command back from the proxy's arguments, so it needs no backup. One thing
//! cannot be told apart afterwards: a server with no `args` key and one with `"args": []` both
//! come back without the key.
//!
//! An HTTP server (`url`, or `type` `http`/`sse`/`streamable-http`) cannot be started by the
//! host, so the host is pointed at a local HTTP proxy instead: its `url` becomes
//! `http://127.0.0.1:PORT/sightline/SCHEME/REST` for the upstream `SCHEME://REST`, one port per
//! server, and `sightline wrap CONFIG --serve` runs those proxies ([`http_routes`] reads them
//! back from the config). The URL is the whole record, as the proxy's arguments are for stdio:
//! unwrapping rebuilds the upstream from it character for character, with no sidecar file,
//! and a URL already of that form is left alone. The upstream's query stays in the local URL,
//! so the host sends it and the proxy passes it on. One port per server keeps paths the host
//! derives from the URL (OAuth discovery under `/.well-known/`, a legacy SSE server's message
//! endpoint) going to the right upstream. Every other field (`headers`, `type`...) is kept.

// Explicit paths, so the fuzz crate, which compiles this very file through `#[path]`, finds
// them too (fuzz/src/lib.rs).
#[path = "wrap/file.rs"]
pub mod file;
#[path = "wrap/jsonc.rs"]
pub mod jsonc;
#[path = "wrap/toml.rs"]
pub mod toml;

#[path = "wrap/http.rs"]
mod http;
use http::{is_http, parse_local, wrap_http};

use std::path::Path;

use serde_json::Value;

use jsonc::{Edits, Kind, Member, Node, separator};

/// What went wrong with the config as a whole.
#[derive(Debug, thiserror::Error)]
pub enum WrapError {
    #[error("not valid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("not valid TOML at line {line}, column {column}: {message}")]
    Toml {
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "no server table: expected a top-level `mcpServers` object (Claude Desktop, Cursor, \
         Claude Code) or `servers` object (VS Code)"
    )]
    NoServers,
    #[error("no server table: expected `[mcp_servers.NAME]` tables (Codex)")]
    NoTomlServers,
}

impl From<toml::SyntaxError> for WrapError {
    fn from(e: toml::SyntaxError) -> Self {
        WrapError::Toml {
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// The syntax of a host's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON or JSONC: every host but Codex.
    Json,
    /// TOML: Codex's `config.toml`.
    Toml,
}

impl Format {
    /// TOML for a file named `*.toml`, else JSON.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("toml") => Format::Toml,
            _ => Format::Json,
        }
    }

    /// The config as plain JSON (comments dropped), naming the line and column of a syntax
    /// error.
    pub fn parse(self, text: &str) -> Result<Value, WrapError> {
        match self {
            Format::Json => Ok(jsonc::parse(text)?.value(text)),
            Format::Toml => Ok(toml::to_json(text)?),
        }
    }

    /// The document as a tree of spans.
    fn tree(self, text: &str) -> Result<Node, WrapError> {
        match self {
            Format::Json => Ok(jsonc::parse(text)?),
            Format::Toml => Ok(toml::parse(text)?),
        }
    }

    /// The server table: `mcpServers`, else `servers` (JSON); `mcp_servers` (TOML).
    fn server_table(self, root: &Node) -> Option<&Node> {
        let keys: &[&str] = match self {
            Format::Json => &["mcpServers", "servers"],
            Format::Toml => &["mcp_servers"],
        };
        keys.iter().find_map(|key| {
            let table = &root.get(key)?.value;
            matches!(table.kind, Kind::Object(_)).then_some(table)
        })
    }

    /// A string literal.
    fn quote(self, s: &str) -> String {
        match self {
            Format::Json => Value::from(s).to_string(),
            Format::Toml => toml::quote(s),
        }
    }

    /// Gives `server` the member `key` with the literal `value`, right after `after`.
    fn add_member(
        self,
        text: &str,
        edits: &mut Edits,
        (server, after): (&Node, &Member),
        key: &str,
        value: &str,
    ) {
        let (at, new) = match self {
            Format::Json => (after.value.end, format!(", {}: {value}", self.quote(key))),
            Format::Toml => toml::add_member(text, server, after, key, value),
        };
        edits.insert(at, new);
    }

    /// Takes the `index`th member away from `server`.
    fn remove_member(self, text: &str, edits: &mut Edits, server: &Node, index: usize) {
        let members = server.members().unwrap_or_default();
        match self {
            Format::Json => edits.remove_member(members, index),
            Format::Toml => toml::remove_member(text, edits, server, members, index),
        }
    }
}

impl From<jsonc::SyntaxError> for WrapError {
    fn from(e: jsonc::SyntaxError) -> Self {
        WrapError::Json {
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// How to wrap.
#[derive(Debug, Clone)]
pub struct WrapOptions {
    /// The absolute path of the `sightline` executable the host should run.
    pub sightline: String,
    /// When set, each server records to `DIR/NAME.jsonl` (an absolute directory).
    pub trace_dir: Option<String>,
    /// When set (and `trace_dir` is not), each server records into this session folder (an
    /// absolute path), beside the LLM proxy of the same session.
    pub session: Option<String>,
    /// The first local port to give an HTTP server; each newly wrapped one takes the next port
    /// that no wrapped server of the config uses and `port_is_free` accepts.
    pub http_port: u16,
    /// Whether nothing listens on a local port (the CLI tries to bind it; tests say yes).
    pub port_is_free: fn(u16) -> bool,
    /// More proxy options for every stdio server, as `--option VALUE` pairs or the
    /// [`PROXY_FLAGS`] (live OpenTelemetry streaming: `--otlp-endpoint URL`...).
    pub proxy_args: Vec<String>,
}

/// Where the HTTP proxies listen.
const PROXY_HOST: &str = "127.0.0.1";
/// The first path segment of a wrapped URL.
const MARK: &str = "sightline";
/// The proxy options a wrapped server's `args` may hold between `proxy` and `--`, each with
/// its value.
const PROXY_OPTIONS: [&str; 6] = [
    "--name",
    "--trace",
    "--session",
    "--otlp-endpoint",
    "--otlp-headers-file",
    "--otlp-protocol",
];
/// The proxy options without a value a wrapped server's `args` may hold.
pub const PROXY_FLAGS: [&str; 1] = ["--otlp-content"];

/// A wrapped HTTP server, as `sightline wrap CONFIG --serve` runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRoute {
    /// The server's key in the config.
    pub name: String,
    /// The local port its proxy listens on.
    pub port: u16,
    /// What the local paths start with (`/sightline/https/example.com`); the proxy strips it.
    pub prefix: String,
    /// The server's own URL.
    pub upstream: String,
}

/// What happened to one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Now runs behind the proxy.
    Wrapped,
    /// Was already behind the proxy; untouched.
    AlreadyWrapped,
    /// Restored to its original command.
    Unwrapped,
    /// Was not behind the proxy; untouched by `--undo`.
    NotWrapped,
    /// Cannot be wrapped (neither `command` nor `url`, not an object, a `url` that is not
    /// http(s), no free port); untouched.
    Skipped(String),
}

impl Action {
    /// One line for people.
    pub fn describe(&self) -> String {
        match self {
            Action::Wrapped => "wrapped".into(),
            Action::AlreadyWrapped => "already wrapped, left alone".into(),
            Action::Unwrapped => "restored".into(),
            Action::NotWrapped => "not wrapped, left alone".into(),
            Action::Skipped(why) => format!("skipped: {why}"),
        }
    }

    /// Whether the config changed for this server.
    pub fn changed(&self) -> bool {
        matches!(self, Action::Wrapped | Action::Unwrapped)
    }
}

/// One server's outcome, in the config's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    pub name: String,
    pub action: Action,
}

/// The config's new text and what happened to each server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub text: String,
    pub servers: Vec<ServerReport>,
}

impl Rewrite {
    pub fn changed(&self) -> bool {
        self.servers.iter().any(|s| s.action.changed())
    }
}

/// A JSON config as plain JSON (comments dropped), naming the line and column of a syntax
/// error.
pub fn parse_config(text: &str) -> Result<Value, WrapError> {
    Format::Json.parse(text)
}

/// [`wrap_as`] for a JSON config.
pub fn wrap(text: &str, options: &WrapOptions) -> Result<Rewrite, WrapError> {
    wrap_as(Format::Json, text, options)
}

/// [`unwrap_as`] for a JSON config.
pub fn unwrap(text: &str) -> Result<Rewrite, WrapError> {
    unwrap_as(Format::Json, text)
}

/// [`http_routes_as`] for a JSON config.
pub fn http_routes(text: &str) -> Result<Vec<HttpRoute>, WrapError> {
    http_routes_as(Format::Json, text)
}

/// Puts every stdio server behind `sightline proxy` and points every HTTP server at a local
/// HTTP proxy.
pub fn wrap_as(format: Format, text: &str, options: &WrapOptions) -> Result<Rewrite, WrapError> {
    let mut taken: Vec<u16> = http_routes_as(format, text)?
        .iter()
        .map(|r| r.port)
        .collect();
    let quote = |s: &str| format.quote(s);
    rewrite(format, text, |name, server, edits| {
        if is_http(server) {
            return wrap_http(format, server, options, &mut taken, edits);
        }
        let Some(command) = server.get("command") else {
            return Action::Skipped("no `command` or `url`".into());
        };
        if proxied(server).is_some() {
            return Action::AlreadyWrapped;
        }
        let command_member = command;
        let command = &command.value;
        if command.as_str().is_none() {
            return Action::Skipped("`command` is not a string".into());
        }
        let mut prefix = vec![quote("proxy"), quote("--name"), quote(name)];
        if let Some(dir) = &options.trace_dir {
            let file = Path::new(dir).join(format!("{}.jsonl", super::paths::file_stem(name)));
            prefix.extend([quote("--trace"), quote(&file.display().to_string())]);
        } else if let Some(session) = &options.session {
            prefix.extend([quote("--session"), quote(session)]);
        }
        prefix.extend(options.proxy_args.iter().map(|a| quote(a)));
        prefix.extend([quote("--"), text[command.start..command.end].to_string()]);
        match server.get("args").map(|m| &m.value) {
            None => format.add_member(
                text,
                edits,
                (server, command_member),
                "args",
                &format!("[{}]", prefix.join(", ")),
            ),
            Some(args) => match &args.kind {
                Kind::Scalar if &text[args.start..args.end] == "null" => {
                    edits.replace(args.start, args.end, format!("[{}]", prefix.join(", ")));
                }
                Kind::Array(elements) if elements.is_empty() => {
                    edits.insert(args.start + 1, prefix.join(", "));
                }
                Kind::Array(elements) => {
                    let sep = separator(text, elements);
                    edits.insert(elements[0].start, prefix.join(sep) + sep);
                }
                _ => return Action::Skipped("`args` is not a list".into()),
            },
        }
        edits.replace(command.start, command.end, quote(&options.sightline));
        Action::Wrapped
    })
}

/// Restores every wrapped server's original `command` and `args` from the proxy's arguments,
/// and every wrapped HTTP server's `url` from its local URL.
pub fn unwrap_as(format: Format, text: &str) -> Result<Rewrite, WrapError> {
    rewrite(format, text, |_, server, edits| {
        if is_http(server) {
            let Some(url) = server.get("url").map(|m| &m.value) else {
                return Action::NotWrapped;
            };
            let Some(route) = url.as_str().and_then(parse_local) else {
                return Action::NotWrapped;
            };
            edits.replace(url.start, url.end, format.quote(&route.upstream));
            return Action::Unwrapped;
        }
        let Some(command) = server.get("command") else {
            return Action::Skipped("no `command` or `url`".into());
        };
        let Some(dashes) = proxied(server) else {
            return Action::NotWrapped;
        };
        let members = server.members().unwrap_or_default();
        let Some((args_index, args)) = members
            .iter()
            .enumerate()
            .rev()
            .find(|(_, m)| m.key == "args")
        else {
            return Action::NotWrapped;
        };
        let elements = args.value.elements().unwrap_or_default();
        let original = &elements[dashes + 1];
        if original.as_str().is_none() {
            return Action::Skipped("the command after the proxy's `--` is not a string".into());
        }
        let command = &command.value;
        edits.replace(
            command.start,
            command.end,
            &text[original.start..original.end],
        );
        match elements.get(dashes + 2) {
            Some(first_kept) => edits.replace(elements[0].start, first_kept.start, ""),
            None => format.remove_member(text, edits, server, args_index),
        }
        Action::Unwrapped
    })
}

/// The wrapped HTTP servers of a config, in its order.
pub fn http_routes_as(format: Format, text: &str) -> Result<Vec<HttpRoute>, WrapError> {
    let root = format.tree(text)?;
    let Some(table) = format.server_table(&root) else {
        return Ok(Vec::new());
    };
    Ok(table
        .members()
        .unwrap_or_default()
        .iter()
        .filter_map(|m| {
            let route = parse_local(m.value.get("url")?.value.as_str()?)?;
            Some(HttpRoute {
                name: m.key.clone(),
                ..route
            })
        })
        .collect())
}

/// Runs `f` on every server of the table, then makes the edits it asked for.
fn rewrite(
    format: Format,
    text: &str,
    mut f: impl FnMut(&str, &Node, &mut Edits) -> Action,
) -> Result<Rewrite, WrapError> {
    let root = format.tree(text)?;
    let table = format.server_table(&root).ok_or(match format {
        Format::Json => WrapError::NoServers,
        Format::Toml => WrapError::NoTomlServers,
    })?;
    let mut edits = Edits::default();
    let servers = table
        .members()
        .unwrap_or_default()
        .iter()
        .map(|Member { key, value, .. }| ServerReport {
            name: key.clone(),
            action: match value.kind {
                Kind::Object(_) => f(key, value, &mut edits),
                _ => Action::Skipped("not an object".into()),
            },
        })
        .collect();
    Ok(Rewrite {
        text: edits.apply(text),
        servers,
    })
}

/// For a wrapped server (`args` of the form `proxy [--name|--trace|--session VALUE]... --
/// COMMAND ...`), the index of the `--` in its `args`.
fn proxied(server: &Node) -> Option<usize> {
    let args = server.get("args")?.value.elements()?;
    if args.first()?.as_str()? != "proxy" {
        return None;
    }
    let mut i = 1;
    loop {
        let arg = args.get(i)?.as_str()?;
        if arg == "--" {
            return (i + 1 < args.len()).then_some(i);
        }
        if PROXY_FLAGS.contains(&arg) {
            i += 1;
            continue;
        }
        if !PROXY_OPTIONS.contains(&arg) {
            return None;
        }
        args.get(i + 1)?.as_str()?;
        i += 2;
    }
}

#[cfg(test)]
mod tests;
