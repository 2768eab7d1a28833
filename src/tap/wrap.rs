//! Putting the tap in front of a real host's servers: rewriting its MCP server config.
//!
//! This lives in the tap because it is the tap's front door: the result of a wrap is that the
//! host spawns `sightline proxy` (the stdio tap) instead of each server. The logic here is pure
//! (a JSON value in, a JSON value and a report out); `sightline wrap` does the file handling.
//!
//! Hosts and their files:
//! - Claude Desktop `claude_desktop_config.json`, Cursor `.cursor/mcp.json`, Claude Code
//!   `.mcp.json`: a top-level `mcpServers` object.
//! - VS Code `mcp.json`: a top-level `servers` object.
//!
//! A stdio server (`command`, optional `args`) becomes
//! `SIGHTLINE proxy --name NAME [--trace DIR/NAME.jsonl] -- COMMAND ARGS...`; every other field
//! (`env`, `cwd`, `type`, unknown ones) and the order of keys are kept. A server whose command is
//! already a `sightline` executable running `proxy ... --` is left alone, so wrapping twice
//! changes nothing; unwrapping reads the original command back from the proxy's arguments, so
//! it needs no backup. One thing cannot be told apart afterwards: a server with no `args` key and
//! one with `"args": []` both come back without the key.
//!
//! HTTP servers (`url`, or `type` `http`/`sse`/`streamable-http`) are reported and left as they
//! are: they need the HTTP proxy, which wrap does not use yet.

use std::path::Path;

use serde_json::{Map, Value};

/// What went wrong with the config as a whole.
#[derive(Debug, thiserror::Error)]
pub enum WrapError {
    #[error("not valid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "no server table: expected a top-level `mcpServers` object (Claude Desktop, Cursor, \
         Claude Code) or `servers` object (VS Code)"
    )]
    NoServers,
}

/// How to wrap.
#[derive(Debug, Clone)]
pub struct WrapOptions {
    /// The absolute path of the `sightline` executable the host should run.
    pub sightline: String,
    /// When set, each server records to `DIR/NAME.jsonl` (an absolute directory).
    pub trace_dir: Option<String>,
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
    /// An HTTP server; untouched.
    Http,
    /// Neither `command` nor `url`, or not an object; untouched.
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
            Action::Http => "HTTP server: not wrapped yet (needs the HTTP proxy)".into(),
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

/// Parses a config, naming the line and column of a syntax error.
pub fn parse_config(text: &str) -> Result<Value, WrapError> {
    serde_json::from_str(text).map_err(|e| WrapError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Puts every stdio server behind `sightline proxy`.
pub fn wrap(config: &mut Value, options: &WrapOptions) -> Result<Vec<ServerReport>, WrapError> {
    for_each_server(config, |name, server| {
        if let Some(action) = not_stdio(server) {
            return action;
        }
        if proxied_command(server).is_some() {
            return Action::AlreadyWrapped;
        }
        let Some(Value::String(command)) = server.get("command").cloned() else {
            return Action::Skipped("`command` is not a string".into());
        };
        let original_args = match server.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(args)) => args.clone(),
            Some(_) => return Action::Skipped("`args` is not a list".into()),
        };
        let mut args = vec![Value::from("proxy"), "--name".into(), name.into()];
        if let Some(dir) = &options.trace_dir {
            let file = Path::new(dir).join(format!("{}.jsonl", file_stem(name)));
            args.extend(["--trace".into(), file.display().to_string().into()]);
        }
        args.extend(["--".into(), Value::String(command)]);
        args.extend(original_args);
        set_command(server, options.sightline.clone().into(), Value::Array(args));
        Action::Wrapped
    })
}

/// Restores every wrapped server's original `command` and `args` from the proxy's arguments.
pub fn unwrap(config: &mut Value) -> Result<Vec<ServerReport>, WrapError> {
    for_each_server(config, |_, server| {
        if let Some(action) = not_stdio(server) {
            return action;
        }
        let Some(original) = proxied_command(server) else {
            return Action::NotWrapped;
        };
        let mut original = original.into_iter();
        let Some(command) = original.next() else {
            return Action::Skipped("the proxy has no command after `--`".into());
        };
        let args: Vec<Value> = original.collect();
        set_command(server, command, Value::Array(args));
        if server
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            server.remove("args");
        }
        Action::Unwrapped
    })
}

/// The server table: `mcpServers`, else `servers`.
fn for_each_server(
    config: &mut Value,
    mut f: impl FnMut(&str, &mut Map<String, Value>) -> Action,
) -> Result<Vec<ServerReport>, WrapError> {
    let root = config.as_object_mut().ok_or(WrapError::NoServers)?;
    let key = ["mcpServers", "servers"]
        .into_iter()
        .find(|k| root.get(*k).is_some_and(Value::is_object))
        .ok_or(WrapError::NoServers)?;
    let servers = root
        .get_mut(key)
        .and_then(Value::as_object_mut)
        .ok_or(WrapError::NoServers)?;
    Ok(servers
        .iter_mut()
        .map(|(name, server)| ServerReport {
            name: name.clone(),
            action: match server.as_object_mut() {
                Some(server) => f(name, server),
                None => Action::Skipped("not an object".into()),
            },
        })
        .collect())
}

/// `Some` for servers wrap does not touch: HTTP ones and ones without a command.
fn not_stdio(server: &Map<String, Value>) -> Option<Action> {
    let kind = server.get("type").and_then(Value::as_str).unwrap_or("");
    if server.contains_key("url") || matches!(kind, "http" | "sse" | "streamable-http") {
        return Some(Action::Http);
    }
    if !server.contains_key("command") {
        return Some(Action::Skipped("no `command` or `url`".into()));
    }
    None
}

/// For a wrapped server, the original command and arguments (everything after the proxy's `--`).
fn proxied_command(server: &Map<String, Value>) -> Option<Vec<Value>> {
    let command = server.get("command")?.as_str()?;
    let program = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let program = program.strip_suffix(".exe").unwrap_or(program);
    if program != "sightline" {
        return None;
    }
    let args = server.get("args")?.as_array()?;
    if args.first()?.as_str()? != "proxy" {
        return None;
    }
    let dashes = args.iter().position(|a| a.as_str() == Some("--"))?;
    Some(args[dashes + 1..].to_vec())
}

/// Sets `command` and `args`, keeping `command` where it was and `args` right after it when it
/// is new.
fn set_command(server: &mut Map<String, Value>, command: Value, args: Value) {
    if server.contains_key("args") {
        server.insert("command".into(), command);
        server.insert("args".into(), args);
        return;
    }
    let old = std::mem::take(server);
    for (key, value) in old {
        if key == "command" {
            server.insert("command".into(), command.clone());
            server.insert("args".into(), args.clone());
        } else {
            server.insert(key, value);
        }
    }
}

/// A server name made safe as a file name.
fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("server{s}")
    } else {
        s
    }
}

/// Writes `value` the way `original` was written: its indentation and its final newline.
pub fn render_like(value: &Value, original: &str) -> String {
    use serde::Serialize as _;
    let indent = original
        .lines()
        .skip(1)
        .find(|l| l.starts_with([' ', '\t']))
        .map(|l| {
            let n = l.len() - l.trim_start_matches([' ', '\t']).len();
            l[..n].to_string()
        })
        .unwrap_or_else(|| "  ".into());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut ser)
        .expect("a JSON value always serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    if original.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options() -> WrapOptions {
        WrapOptions {
            sightline: "/opt/bin/sightline".into(),
            trace_dir: Some("/tmp/traces".into()),
        }
    }

    #[test]
    fn wraps_stdio_servers_keeps_the_rest_and_undoes() {
        let original = json!({
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "weather": {"command": "node", "args": ["w.mjs", "--x"], "env": {"K": "v"}},
                "bare": {"env": {}, "command": "uvx"},
                "remote": {"type": "http", "url": "https://example.com/mcp"}
            }
        });
        let mut config = original.clone();
        let report = wrap(&mut config, &options()).expect("wrap");
        let actions: Vec<_> = report.iter().map(|r| r.action.clone()).collect();
        assert_eq!(actions, [Action::Wrapped, Action::Wrapped, Action::Http]);
        assert_eq!(
            config["mcpServers"]["weather"]["args"],
            json!([
                "proxy",
                "--name",
                "weather",
                "--trace",
                "/tmp/traces/weather.jsonl",
                "--",
                "node",
                "w.mjs",
                "--x"
            ])
        );
        let bare: Vec<_> = config["mcpServers"]["bare"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(bare, ["env", "command", "args"]);
        let wrapped = config.clone();
        let again = wrap(&mut config, &options()).expect("wrap");
        assert!(again.iter().all(|r| !r.action.changed()));
        assert_eq!(config, wrapped);
        unwrap(&mut config).expect("undo");
        assert_eq!(config, original);
        assert_eq!(
            serde_json::to_string(&config).unwrap(),
            serde_json::to_string(&original).unwrap(),
            "key order too"
        );
    }

    #[test]
    fn vs_code_servers_key_and_errors() {
        let mut config = json!({"servers": {"a": {"type": "stdio", "command": "a"}}});
        let report = wrap(&mut config, &options()).expect("wrap");
        assert_eq!(report[0].action, Action::Wrapped);
        assert!(matches!(
            wrap(&mut json!({"other": {}}), &options()),
            Err(WrapError::NoServers)
        ));
        let err = parse_config("{\n  \"a\": ,\n}").unwrap_err();
        assert!(matches!(err, WrapError::Json { line: 2, .. }), "{err}");
    }

    #[test]
    fn rendering_keeps_indentation_and_final_newline() {
        let text = "{\n    \"a\": [\n        1\n    ]\n}\n";
        let value = parse_config(text).unwrap();
        assert_eq!(render_like(&value, text), text);
    }
}
