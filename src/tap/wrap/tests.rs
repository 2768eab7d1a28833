use super::*;
use serde_json::{Map, json};

/// Where [`options`] records server `name`: the trace folder joined as this system joins
/// paths (`\\` on Windows).
fn traced(name: &str) -> String {
    Path::new("/tmp/traces")
        .join(format!("{name}.jsonl"))
        .display()
        .to_string()
}

fn options() -> WrapOptions {
    WrapOptions {
        sightline: "/opt/bin/sightline".into(),
        trace_dir: Some("/tmp/traces".into()),
        session: None,
        http_port: 6280,
        port_is_free: |_| true,
        proxy_args: Vec::new(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

fn actions(rewrite: &Rewrite) -> Vec<String> {
    rewrite
        .servers
        .iter()
        .map(|s| s.action.describe())
        .collect()
}

#[test]
fn a_session_goes_on_every_proxy_and_undo_takes_it_off() {
    let original =
        pretty(&json!({"mcpServers": {"weather": {"command": "node", "args": ["w.mjs"]}}}));
    let with_session = WrapOptions {
        trace_dir: None,
        session: Some("/data/sessions/demo".into()),
        ..options()
    };
    let wrapped = wrap(&original, &with_session).expect("wrap");
    assert_eq!(
        parse_config(&wrapped.text).unwrap()["mcpServers"]["weather"]["args"],
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
    assert_eq!(unwrap(&wrapped.text).expect("unwrap").text, original);
}

#[test]
fn wraps_stdio_servers_keeps_the_rest_and_undoes_byte_for_byte() {
    let original = pretty(&json!({
        "globalShortcut": "Ctrl+Space",
        "mcpServers": {
            "weather": {"command": "node", "args": ["w.mjs", "--x"], "env": {"K": "v"}},
            "bare": {"env": {}, "command": "uvx"},
            "remote": {"type": "http", "url": "https://example.com/mcp"}
        }
    }));
    let wrapped = wrap(&original, &options()).expect("wrap");
    assert_eq!(actions(&wrapped), ["wrapped", "wrapped", "wrapped"]);
    let config = parse_config(&wrapped.text).unwrap();
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
            traced("weather"),
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
    let again = wrap(&wrapped.text, &options()).expect("wrap");
    assert!(!again.changed());
    assert_eq!(again.text, wrapped.text);
    let undone = unwrap(&wrapped.text).expect("undo");
    assert_eq!(undone.text, original, "byte for byte");
}

#[test]
fn jsonc_comments_commas_numbers_and_duplicates_survive_wrap_and_undo() {
    let original = "\u{feff}{\n  // my servers\n  \"servers\": {\n    \"a\": {\n      \"type\": \"stdio\", /* the runner */\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"pkg\",], // trailing\n      \"timeout\": 1.50e3,\n    },\n    \"remote\": {\"url\": \"https://h.example/mcp\", \"n\": 10, \"n\": 20,},\n  },\n  \"theme\": 1.0,\n}\n";
    let wrapped = wrap(original, &options()).expect("wrap");
    assert_eq!(actions(&wrapped), ["wrapped", "wrapped"]);
    for kept in [
        "\u{feff}{\n  // my servers\n",
        "/* the runner */",
        "\"-y\", \"pkg\",], // trailing",
        "\"timeout\": 1.50e3,",
        "\"n\": 10, \"n\": 20,},",
        "\"theme\": 1.0,\n}\n",
    ] {
        assert!(wrapped.text.contains(kept), "{kept:?} in {}", wrapped.text);
    }
    let config = parse_config(&wrapped.text).unwrap();
    assert_eq!(config["servers"]["a"]["args"][8], json!("pkg"));
    assert_eq!(
        config["servers"]["a"]["command"],
        json!("/opt/bin/sightline")
    );
    assert_eq!(unwrap(&wrapped.text).unwrap().text, original);
}

#[test]
fn wrapped_entries_are_recognised_whatever_the_binary_is_called() {
    let original = pretty(&json!({"mcpServers": {"w": {"command": "node", "args": ["w.mjs"]}}}));
    let renamed = WrapOptions {
        sightline: "/home/me/bin/sl-dev".into(),
        ..options()
    };
    let wrapped = wrap(&original, &renamed).expect("wrap");
    let twice = wrap(&wrapped.text, &options()).expect("again");
    assert_eq!(actions(&twice), ["already wrapped, left alone"]);
    assert_eq!(twice.text, wrapped.text);
    assert_eq!(unwrap(&wrapped.text).unwrap().text, original);
    // A server that merely has a `proxy` argument is not mistaken for a wrapped one.
    let other = pretty(
        &json!({"mcpServers": {"p": {"command": "tool", "args": ["proxy", "--port", "1", "--", "x"]}}}),
    );
    assert_eq!(
        actions(&unwrap(&other).unwrap()),
        ["not wrapped, left alone"]
    );
}

#[test]
fn one_element_per_line_lists_stay_so() {
    let original = "{\"mcpServers\": {\"a\": {\n  \"command\": \"node\",\n  \"args\": [\n    \"a.mjs\",\n    \"b\"\n  ]\n}}}";
    let wrapped = wrap(
        original,
        &WrapOptions {
            trace_dir: None,
            ..options()
        },
    )
    .unwrap();
    assert!(
        wrapped.text.contains("[\n    \"proxy\",\n    \"--name\",\n    \"a\",\n    \"--\",\n    \"node\",\n    \"a.mjs\",\n    \"b\"\n  ]"),
        "{}",
        wrapped.text
    );
    assert_eq!(unwrap(&wrapped.text).unwrap().text, original);
}

#[test]
fn vs_code_servers_key_and_errors() {
    let report = wrap(
        r#"{"servers": {"a": {"type": "stdio", "command": "a"}}}"#,
        &options(),
    )
    .expect("wrap");
    assert_eq!(report.servers[0].action, Action::Wrapped);
    assert!(matches!(
        wrap(r#"{"other": {}}"#, &options()),
        Err(WrapError::NoServers)
    ));
    let err = parse_config("{\n  \"a\": ,\n}").unwrap_err();
    assert!(matches!(err, WrapError::Json { line: 2, .. }), "{err}");
    let odd = wrap(
        r#"{"mcpServers": {"n": 1, "c": {"command": 3}, "a": {"command": "x", "args": "y"}, "e": {}}}"#,
        &options(),
    )
    .unwrap();
    assert_eq!(
        actions(&odd),
        [
            "skipped: not an object",
            "skipped: `command` is not a string",
            "skipped: `args` is not a list",
            "skipped: no `command` or `url`"
        ]
    );
    assert!(!odd.changed());
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
    let original = pretty(&json!({ "servers": servers }));
    let options = WrapOptions {
        port_is_free: |p| p != 6282,
        ..options()
    };
    let wrapped = wrap(&original, &options).expect("wrap");
    assert_eq!(
        actions(&wrapped),
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
    let config = parse_config(&wrapped.text).unwrap();
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

    let routes = http_routes(&wrapped.text).unwrap();
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

    let again = wrap(&wrapped.text, &options).expect("again");
    assert_eq!(again.text, wrapped.text, "wrapping twice changes nothing");
    let undone = unwrap(&wrapped.text).expect("undo");
    let expected = original.replace(
        "http://127.0.0.1:6281/sightline/https/old.example/mcp",
        "https://old.example/mcp",
    );
    assert_eq!(undone.text, expected);
    assert!(http_routes(&undone.text).unwrap().is_empty());
}

#[test]
fn live_export_options_are_written_recognised_and_undone() {
    let original = pretty(&json!({"mcpServers": {"w": {"command": "node", "args": ["w.mjs"]}}}));
    let live = WrapOptions {
        trace_dir: None,
        proxy_args: [
            "--otlp-endpoint",
            "http://127.0.0.1:4318",
            "--otlp-headers-file",
            "/home/u/.local/share/sightline/otlp/headers-1.txt",
            "--otlp-content",
        ]
        .map(String::from)
        .to_vec(),
        ..options()
    };
    let wrapped = wrap(&original, &live).expect("wrap");
    assert_eq!(
        parse_config(&wrapped.text).unwrap()["mcpServers"]["w"]["args"],
        json!([
            "proxy",
            "--name",
            "w",
            "--otlp-endpoint",
            "http://127.0.0.1:4318",
            "--otlp-headers-file",
            "/home/u/.local/share/sightline/otlp/headers-1.txt",
            "--otlp-content",
            "--",
            "node",
            "w.mjs"
        ])
    );
    let again = wrap(&wrapped.text, &live).expect("wrap again");
    assert_eq!(actions(&again), ["already wrapped, left alone"]);
    assert_eq!(unwrap(&wrapped.text).unwrap().text, original);
}

/// A Codex `config.toml` as people write it: the model settings first, comments, every way
/// TOML has to write a server table.
const CODEX: &str = r#"# Codex settings
model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
base_url = "http://127.0.0.1:9/v1" # a local stand-in
wire_api = "responses"

# The seed article's server
[mcp_servers.weather]
command = "node"   # Node 20+
args = [
  "weather-server.mjs",
  'literal\path',
]
env = { WEATHER_UNITS = "metric" }
startup_timeout_sec = 20

[mcp_servers.bare]
command = 'uvx'
enabled = true

[mcp_servers]
inline = { command = "npx", env = { K = "v" } }
dotted.command = "tool"
dotted.args = ["--stdio"]

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
"#;

fn toml_value(text: &str) -> Value {
    Format::Toml.parse(text).unwrap()
}

#[test]
fn codex_toml_wraps_in_place_keeps_comments_and_undoes_byte_for_byte() {
    let wrapped = wrap_as(Format::Toml, CODEX, &options()).expect("wrap");
    assert_eq!(
        wrapped
            .servers
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["weather", "bare", "inline", "dotted", "remote"]
    );
    assert_eq!(actions(&wrapped), ["wrapped"; 5]);
    let config = toml_value(&wrapped.text);
    let servers = &config["mcp_servers"];
    let proxied = |name: &str, rest: &[&str]| {
        let mut args = vec![
            "proxy".to_string(),
            "--name".into(),
            name.into(),
            "--trace".into(),
            traced(name),
            "--".into(),
        ];
        args.extend(rest.iter().map(|s| s.to_string()));
        json!(args)
    };
    assert_eq!(
        servers["weather"]["args"],
        proxied("weather", &["node", "weather-server.mjs", r"literal\path"])
    );
    assert_eq!(servers["bare"]["args"], proxied("bare", &["uvx"]));
    assert_eq!(servers["inline"]["args"], proxied("inline", &["npx"]));
    assert_eq!(
        servers["dotted"]["args"],
        proxied("dotted", &["tool", "--stdio"])
    );
    for name in ["weather", "bare", "inline", "dotted"] {
        assert_eq!(servers[name]["command"], json!("/opt/bin/sightline"));
    }
    assert_eq!(
        servers["remote"]["url"],
        json!("http://127.0.0.1:6280/sightline/https/example.com/mcp")
    );
    assert_eq!(servers["inline"]["env"], json!({"K": "v"}));
    assert_eq!(servers["weather"]["startup_timeout_sec"], json!(20));
    for kept in [
        "# Codex settings\nmodel = \"gpt-5.5\"\n",
        "base_url = \"http://127.0.0.1:9/v1\" # a local stand-in\n",
        "# The seed article's server\n[mcp_servers.weather]\n",
        "   # Node 20+\nargs = [\n  \"proxy\",\n  \"--name\",\n  \"weather\",\n",
        "\"node\",\n  \"weather-server.mjs\",\n  'literal\\path',\n]\n",
        "command = \"/opt/bin/sightline\"\nargs = [\"proxy\", \"--name\", \"bare\",",
        "\"--\", 'uvx']\nenabled = true\n",
        "dotted.command = \"/opt/bin/sightline\"\ndotted.args = [\"proxy\"",
        "bearer_token_env_var = \"REMOTE_TOKEN\"\n",
    ] {
        assert!(
            wrapped.text.contains(kept),
            "{kept:?} kept in:\n{}",
            wrapped.text
        );
    }
    assert!(
        wrapped.text.contains(&format!(
            "inline = {{ command = \"/opt/bin/sightline\", args = [\"proxy\", \"--name\", \
             \"inline\", \"--trace\", {}, \"--\", \"npx\"], env",
            toml::quote(&traced("inline"))
        )),
        "{}",
        wrapped.text
    );

    let again = wrap_as(Format::Toml, &wrapped.text, &options()).unwrap();
    assert_eq!(again.text, wrapped.text, "wrapping twice changes nothing");
    assert!(!again.changed());
    assert_eq!(
        http_routes_as(Format::Toml, &wrapped.text).unwrap()[0].upstream,
        "https://example.com/mcp"
    );

    let restored = unwrap_as(Format::Toml, &wrapped.text).expect("unwrap");
    assert_eq!(actions(&restored), ["restored"; 5]);
    assert_eq!(restored.text, CODEX, "undone byte for byte");
}

#[test]
fn codex_toml_with_crlf_and_a_last_line_without_break_undoes_byte_for_byte() {
    for original in [
        "[mcp_servers.w]\r\ncommand = \"node\"\r\nenv = { A = \"1\" }\r\n",
        "[mcp_servers.w]\ncommand = \"node\"",
        "mcp_servers.w.command = \"node\" # first line\n",
        "[mcp_servers.w]\nargs = [\"a\"] # after\ncommand = \"x\"\n",
    ] {
        let with_odd_name = WrapOptions {
            sightline: "/opt/sight\u{7f}line".into(),
            ..options()
        };
        let wrapped = wrap_as(Format::Toml, original, &with_odd_name).expect("wrap");
        assert_eq!(actions(&wrapped), ["wrapped"], "{original:?}");
        let config = toml_value(&wrapped.text);
        assert_eq!(
            config["mcp_servers"]["w"]["command"],
            json!("/opt/sight\u{7f}line")
        );
        assert_eq!(config["mcp_servers"]["w"]["args"][0], json!("proxy"));
        if original.contains('\r') {
            assert!(
                !wrapped.text.replace("\r\n", "").contains('\n'),
                "{wrapped:?}"
            );
        }
        let restored = unwrap_as(Format::Toml, &wrapped.text).unwrap();
        assert_eq!(restored.text, original);
    }
}

#[test]
fn codex_toml_errors_say_where() {
    let err = wrap_as(
        Format::Toml,
        "model = \"x\"\n[mcp_servers.w\ncommand = 1\n",
        &options(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("not valid TOML at line 2, column"), "{err}");
    let err = wrap_as(Format::Toml, "model = \"x\"\n", &options())
        .unwrap_err()
        .to_string();
    assert!(err.contains("`[mcp_servers.NAME]`"), "{err}");
    let odd = "[mcp_servers]\nw = 3\n[mcp_servers.v]\nenv = {}\n";
    let out = wrap_as(Format::Toml, odd, &options()).unwrap();
    assert_eq!(
        actions(&out),
        ["skipped: not an object", "skipped: no `command` or `url`"]
    );
    assert_eq!(out.text, odd);
    assert_eq!(Format::of(Path::new("/h/.codex/config.toml")), Format::Toml);
    assert_eq!(Format::of(Path::new("/h/.mcp.json")), Format::Json);
}
