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
    /// When set (and `trace_dir` is not), each server records into this session folder (an
    /// absolute path), beside the LLM proxy of the same session.
    pub session: Option<String>,
    /// The first local port to give an HTTP server; each newly wrapped one takes the next port
    /// that no wrapped server of the config uses and `port_is_free` accepts.
    pub http_port: u16,
    /// Whether nothing listens on a local port (the CLI tries to bind it; tests say yes).
    pub port_is_free: fn(u16) -> bool,
}

/// Where the HTTP proxies listen.
const PROXY_HOST: &str = "127.0.0.1";
/// The first path segment of a wrapped URL.
const MARK: &str = "sightline";

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

/// Parses a config, naming the line and column of a syntax error.
pub fn parse_config(text: &str) -> Result<Value, WrapError> {
    serde_json::from_str(text).map_err(|e| WrapError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Puts every stdio server behind `sightline proxy` and points every HTTP server at a local
/// HTTP proxy.
pub fn wrap(config: &mut Value, options: &WrapOptions) -> Result<Vec<ServerReport>, WrapError> {
    let mut taken: Vec<u16> = http_routes(config).iter().map(|r| r.port).collect();
    for_each_server(config, |name, server| {
        if is_http(server) {
            return wrap_http(server, options, &mut taken);
        }
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
        } else if let Some(session) = &options.session {
            args.extend(["--session".into(), session.clone().into()]);
        }
        args.extend(["--".into(), Value::String(command)]);
        args.extend(original_args);
        set_command(server, options.sightline.clone().into(), Value::Array(args));
        Action::Wrapped
    })
}

/// Restores every wrapped server's original `command` and `args` from the proxy's arguments,
/// and every wrapped HTTP server's `url` from its local URL.
pub fn unwrap(config: &mut Value) -> Result<Vec<ServerReport>, WrapError> {
    for_each_server(config, |_, server| {
        if is_http(server) {
            let Some(route) = server
                .get("url")
                .and_then(Value::as_str)
                .and_then(parse_local)
            else {
                return Action::NotWrapped;
            };
            server.insert("url".into(), route.upstream.into());
            return Action::Unwrapped;
        }
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

/// The wrapped HTTP servers of a config, in its order.
pub fn http_routes(config: &Value) -> Vec<HttpRoute> {
    let Some(root) = config.as_object() else {
        return Vec::new();
    };
    let Some(servers) = ["mcpServers", "servers"]
        .into_iter()
        .find_map(|k| root.get(k).and_then(Value::as_object))
    else {
        return Vec::new();
    };
    servers
        .iter()
        .filter_map(|(name, server)| {
            let url = server.get("url")?.as_str()?;
            let route = parse_local(url)?;
            Some(HttpRoute {
                name: name.clone(),
                ..route
            })
        })
        .collect()
}

/// The local proxy URL for `upstream`, or why there is none.
fn local_url(upstream: &str, port: u16) -> Result<String, String> {
    match upstream.split_once("://") {
        Some((scheme @ ("http" | "https"), rest)) if !rest.is_empty() => {
            Ok(format!("http://{PROXY_HOST}:{port}/{MARK}/{scheme}/{rest}"))
        }
        _ => Err(format!(
            "`url` `{upstream}` is not an http:// or https:// URL"
        )),
    }
}

/// Reads a local proxy URL back: its port, the prefix the proxy strips, and the upstream.
/// `None` for any other URL.
fn parse_local(url: &str) -> Option<HttpRoute> {
    let rest = url.strip_prefix(&format!("http://{PROXY_HOST}:"))?;
    let (port, rest) = rest.split_once('/')?;
    let port: u16 = port.parse().ok()?;
    let rest = rest.strip_prefix(MARK)?.strip_prefix('/')?;
    let (scheme, rest) = rest.split_once('/')?;
    if !matches!(scheme, "http" | "https") || rest.is_empty() {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    Some(HttpRoute {
        name: String::new(),
        port,
        prefix: format!("/{MARK}/{scheme}/{authority}"),
        upstream: format!("{scheme}://{rest}"),
    })
}

/// Points an HTTP server at a local proxy on a port of its own.
fn wrap_http(
    server: &mut Map<String, Value>,
    options: &WrapOptions,
    taken: &mut Vec<u16>,
) -> Action {
    let Some(url) = server.get("url") else {
        return Action::Skipped("an HTTP server without a `url`".into());
    };
    let Some(url) = url.as_str() else {
        return Action::Skipped("`url` is not a string".into());
    };
    if parse_local(url).is_some() {
        return Action::AlreadyWrapped;
    }
    let Some(port) = (options.http_port..=u16::MAX)
        .find(|p| *p != 0 && !taken.contains(p) && (options.port_is_free)(*p))
    else {
        return Action::Skipped(format!("no free local port from {}", options.http_port));
    };
    match local_url(url, port) {
        Ok(local) => {
            taken.push(port);
            server.insert("url".into(), local.into());
            Action::Wrapped
        }
        Err(why) => Action::Skipped(why),
    }
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

/// Whether a server is reached over HTTP.
fn is_http(server: &Map<String, Value>) -> bool {
    let kind = server.get("type").and_then(Value::as_str).unwrap_or("");
    server.contains_key("url") || matches!(kind, "http" | "sse" | "streamable-http")
}

/// `Some` for stdio servers wrap cannot touch: ones without a command.
fn not_stdio(server: &Map<String, Value>) -> Option<Action> {
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

/// A server name made safe as a file name (and a lane name).
pub fn file_stem(name: &str) -> String {
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
            session: None,
            http_port: 6280,
            port_is_free: |_| true,
        }
    }

    #[test]
    fn a_session_goes_on_every_proxy_and_undo_takes_it_off() {
        let original = json!({"mcpServers": {"weather": {"command": "node", "args": ["w.mjs"]}}});
        let mut config = original.clone();
        let with_session = WrapOptions {
            trace_dir: None,
            session: Some("/data/sessions/demo".into()),
            ..options()
        };
        wrap(&mut config, &with_session).expect("wrap");
        assert_eq!(
            config["mcpServers"]["weather"]["args"],
            json!([
                "proxy",
                "--name",
                "weather",
                "--session",
                "/data/sessions/demo",
                "--",
                "node",
                "w.mjs"
            ])
        );
        unwrap(&mut config).expect("unwrap");
        assert_eq!(config, original);
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
        assert_eq!(actions, [Action::Wrapped, Action::Wrapped, Action::Wrapped]);
        assert_eq!(
            config["mcpServers"]["remote"],
            json!({"type": "http", "url": "http://127.0.0.1:6280/sightline/https/example.com/mcp"})
        );
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
    fn http_servers_get_a_port_each_and_their_url_back() {
        let upstreams = [
            "https://example.com/mcp?token=abc&x=1",
            "http://127.0.0.1:3001",
            "https://user@example.com:8443/a/b/",
            "https://example.com#frag",
        ];
        let mut servers = Map::new();
        for (i, url) in upstreams.iter().enumerate() {
            servers.insert(format!("s{i}"), json!({"url": url, "headers": {"X": "y"}}));
        }
        servers.insert(
            "legacy".into(),
            json!({"type": "sse", "url": "ws://example.com"}),
        );
        servers.insert("nourl".into(), json!({"type": "http"}));
        // A server wrapped before keeps its port; the busy port 6282 is skipped.
        servers.insert(
            "old".into(),
            json!({"url": "http://127.0.0.1:6281/sightline/https/old.example/mcp"}),
        );
        let original = json!({ "servers": servers });
        let mut config = original.clone();
        let options = WrapOptions {
            port_is_free: |p| p != 6282,
            ..options()
        };
        let report = wrap(&mut config, &options).expect("wrap");
        let actions: Vec<String> = report.iter().map(|r| r.action.describe()).collect();
        assert_eq!(
            actions,
            [
                "wrapped",
                "wrapped",
                "wrapped",
                "wrapped",
                "skipped: `url` `ws://example.com` is not an http:// or https:// URL",
                "skipped: an HTTP server without a `url`",
                "already wrapped, left alone",
            ]
        );
        let urls: Vec<&str> = (0..4)
            .map(|i| config["servers"][format!("s{i}")]["url"].as_str().unwrap())
            .collect();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:6280/sightline/https/example.com/mcp?token=abc&x=1",
                "http://127.0.0.1:6283/sightline/http/127.0.0.1:3001",
                "http://127.0.0.1:6284/sightline/https/user@example.com:8443/a/b/",
                "http://127.0.0.1:6285/sightline/https/example.com#frag",
            ]
        );
        assert_eq!(config["servers"]["s0"]["headers"], json!({"X": "y"}));

        let routes = http_routes(&config);
        let ports: Vec<u16> = routes.iter().map(|r| r.port).collect();
        assert_eq!(ports, [6280, 6283, 6284, 6285, 6281]);
        assert_eq!(
            routes[0],
            HttpRoute {
                name: "s0".into(),
                port: 6280,
                prefix: "/sightline/https/example.com".into(),
                upstream: upstreams[0].into(),
            }
        );
        assert_eq!(routes[1].prefix, "/sightline/http/127.0.0.1:3001");
        assert_eq!(routes[2].prefix, "/sightline/https/user@example.com:8443");

        let wrapped = config.clone();
        wrap(&mut config, &options).expect("again");
        assert_eq!(config, wrapped, "wrapping twice changes nothing");
        unwrap(&mut config).expect("undo");
        let mut expected = original.clone();
        expected["servers"]["old"]["url"] = json!("https://old.example/mcp");
        assert_eq!(config, expected);
        assert!(http_routes(&config).is_empty());
    }

    #[test]
    fn rendering_keeps_indentation_and_final_newline() {
        let text = "{\n    \"a\": [\n        1\n    ]\n}\n";
        let value = parse_config(text).unwrap();
        assert_eq!(render_like(&value, text), text);
    }
}
