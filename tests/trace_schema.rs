//! The published schemas match reality: `assets/trace.schema.json` accepts every line Sightline
//! writes and rejects broken ones, and the shipped MCP schemas compile offline and tell
//! revisions apart.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jsonschema::Validator;
use serde_json::{Value, json};
use sightline::analysis::explain::REVISIONS;
use sightline::trace::{
    Channel, Event, Header, HttpInfo, Lane, ProcessInfo, load_from_reader, now, write_trace,
};

use crate::util::*;

const LIMIT: Duration = Duration::from_secs(30);

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// Compiles `schema` without ever fetching anything: every `$ref` must resolve inside it.
fn compile(schema: &Value, what: &str) -> Validator {
    jsonschema::options()
        .offline()
        .build(schema)
        .unwrap_or_else(|e| panic!("{what} does not compile: {e}"))
}

fn trace_schema() -> Validator {
    let schema = read_json(&assets().join("trace.schema.json"));
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("assets/trace.schema.json is not a valid JSON Schema: {e}");
    }
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "the trace schema declares draft 2020-12"
    );
    compile(&schema, "assets/trace.schema.json")
}

fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Validates every line of a trace file; returns the parsed lines.
fn validate_trace_file(validator: &Validator, path: &Path) -> Vec<Value> {
    let text = std::fs::read(path).expect("read trace");
    assert!(text.ends_with(b"\n"), "every line ends with a newline");
    let mut lines = Vec::new();
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("line {} is not JSON: {e}", n + 1));
        let errs = errors(validator, &value);
        assert!(
            errs.is_empty(),
            "line {} fails the trace schema: {errs:#?}\n{}",
            n + 1,
            text_of(line)
        );
        lines.push(value);
    }
    lines
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn recorded_proxy_session_validates_line_by_line() {
    let validator = trace_schema();
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    // A shell "server": answers the request, writes a line that is not UTF-8, a stderr line,
    // drains its stdin, and ends with a line that has no newline.
    let script = r#"read line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}'
printf 'bad \377\376 bytes\n'
echo 'to stderr' >&2
cat >/dev/null
printf 'tail without newline'
exit 3"#;
    let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n".to_vec();
    input.extend_from_slice(b"client \xff\xfe line\r\n");
    input.extend_from_slice(b"client tail");
    let out = run_with_input(
        Command::new(bin())
            .arg("proxy")
            .arg("--trace")
            .arg(&trace)
            .args(["--", "sh", "-c", script]),
        &input,
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));

    let lines = validate_trace_file(&validator, &trace);
    assert!(
        lines[0].get("sightline_trace").is_some(),
        "line 1 is the header"
    );
    let events = &lines[1..];
    let has = |pred: &dyn Fn(&Value) -> bool| events.iter().any(pred);
    assert!(has(&|e| e["process"]["event"] == "spawn"), "a spawn");
    assert!(
        has(&|e| e["process"]["event"] == "exit" && e["process"]["code"] == 3),
        "an exit with code 3"
    );
    assert!(
        has(&|e| e["channel"] == "stderr" && e["raw"] == "to stderr"),
        "a stderr line"
    );
    assert!(
        has(&|e| e["channel"] == "stdio" && e["from"] == "server:sh" && e.get("raw_b64").is_some()),
        "the server's non-UTF-8 line, in base64"
    );
    assert!(
        has(&|e| e["channel"] == "stdio" && e["from"] == "host" && e.get("raw_b64").is_some()),
        "the client's non-UTF-8 line, in base64"
    );
    assert!(
        has(&|e| e["raw"] == "tail without newline"),
        "the unterminated last line, as is"
    );
    assert!(has(&|e| e["raw"] == "client tail"), "the client's tail");

    // What the schema accepted is exactly what the reader loads, without a warning.
    let loaded = load(&trace);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.events.len(), events.len());
    let client_line = loaded
        .events
        .iter()
        .find(|e| e.from == Lane::Host && e.raw_b64().is_some())
        .expect("client non-UTF-8 line");
    assert_eq!(
        client_line.bytes().as_deref(),
        Some(&b"client \xff\xfe line\r"[..]),
        "raw_b64 holds the exact line without its \\n"
    );
}

#[test]
fn every_kind_of_event_the_writer_can_write_validates() {
    let validator = trace_schema();
    let dir = tempdir();
    let path = dir.path().join("all.jsonl");
    let server = Lane::server("w");
    let t = now();
    let payload = |seq, from: Lane, to: Lane, channel, bytes: &[u8]| {
        Event::with_bytes(seq, t, from, to, channel, bytes.to_vec())
    };
    let process = |seq, from: Lane, to: Lane, info: ProcessInfo| {
        let mut e = payload(seq, from, to, Channel::Process, b"");
        e.raw = None;
        e.set_process(Some(info));
        e
    };
    let mut events = vec![
        process(
            0,
            Lane::Host,
            server.clone(),
            ProcessInfo {
                event: "spawn-failed".into(),
                command: vec!["nope".into(), "--x".into()],
                cwd: Some("/tmp".into()),
                env: vec!["API_TOKEN".into(), "PATH".into()],
                detail: Some("No such file or directory (is it installed and on PATH?)".into()),
                ..ProcessInfo::default()
            },
        ),
        process(
            1,
            Lane::Host,
            server.clone(),
            ProcessInfo {
                event: "spawn".into(),
                command: vec!["w".into()],
                pid: Some(u32::MAX),
                ..ProcessInfo::default()
            },
        ),
        payload(2, Lane::Host, server.clone(), Channel::Stdio, b""),
        payload(
            3,
            server.clone(),
            Lane::Host,
            Channel::Stderr,
            b"\x1b[31merr\x1b[0m",
        ),
        payload(
            4,
            Lane::User,
            Lane::Host,
            Channel::Note,
            "prompt é\u{2028}".as_bytes(),
        ),
        payload(
            5,
            Lane::Host,
            Lane::Llm,
            Channel::LlmHttp,
            b"{\"model\":\"m\"}",
        ),
        payload(6, Lane::Llm, Lane::Host, Channel::LlmHttp, b"\xff\x00\x01"),
        payload(7, Lane::Host, server.clone(), Channel::Http, b"{}"),
        payload(
            8,
            Lane::Other("robot".into()),
            Lane::Host,
            Channel::Other("telepathy".into()),
            b"?",
        ),
        process(
            9,
            server.clone(),
            Lane::Host,
            ProcessInfo {
                event: "exit".into(),
                pid: Some(1),
                signal: Some(9),
                detail: Some("still running 3s after SIGTERM: sent SIGKILL".into()),
                ..ProcessInfo::default()
            },
        ),
    ];
    events[5].set_http(Some(HttpInfo {
        method: Some("POST".into()),
        url: Some("https://api.example.com/v1/messages".into()),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("x-api-key".into(), "[redacted]".into()),
            ("x-api-key".into(), "[redacted]".into()),
        ],
        ..HttpInfo::default()
    }));
    events[6].set_http(Some(HttpInfo {
        status: Some(200),
        redacted: vec![[0, 10]],
        ..HttpInfo::default()
    }));
    events[7].set_http(Some(HttpInfo::default()));
    events[8]
        .extra_mut()
        .insert("future".into(), json!({"a": [1, 2]}));
    let mut header = Header::new("every kind");
    header.extra.insert("recorded_by".into(), json!("test"));
    write_trace(&path, &header, &events).expect("write");

    let lines = validate_trace_file(&validator, &path);
    assert_eq!(lines.len(), events.len() + 1);
    assert_eq!(lines[7]["raw_b64"], "/wAB");
}

#[test]
fn broken_lines_are_rejected_by_the_schema_and_the_reader() {
    let validator = trace_schema();
    let good = json!({
        "seq": 4,
        "time": "2026-11-29T22:52:27.123456Z",
        "from": "host",
        "to": "server:weather",
        "channel": "stdio",
        "raw": "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    });
    assert_eq!(errors(&validator, &good), Vec::<String>::new());
    let header = json!({
        "sightline_trace": 1,
        "created": "2026-11-29T22:52:27.000001Z",
        "sightline_version": "0.1.0",
        "title": "t",
    });
    assert_eq!(errors(&validator, &header), Vec::<String>::new());

    let with = |patch: Value| {
        let mut v = good.clone();
        for (k, x) in patch.as_object().expect("object") {
            if x.is_null() {
                v.as_object_mut().expect("object").remove(k);
            } else {
                v[k] = x.clone();
            }
        }
        v
    };
    let broken = [
        ("seq -1", with(json!({"seq": -1}))),
        (
            "time without Z",
            with(json!({"time": "2026-11-29T22:52:27.123456"})),
        ),
        (
            "seq -1 and time without Z",
            with(json!({"seq": -1, "time": "2026-11-29T22:52:27.123456"})),
        ),
        (
            "time with an offset",
            with(json!({"time": "2026-11-29T22:52:27.123456+00:00"})),
        ),
        (
            "time in milliseconds",
            with(json!({"time": "2026-11-29T22:52:27.123Z"})),
        ),
        ("seq as a string", with(json!({"seq": "4"}))),
        ("seq fractional", with(json!({"seq": 4.5}))),
        ("no channel", with(json!({"channel": null}))),
        ("lane not a string", with(json!({"from": 1}))),
        ("stdio without payload", with(json!({"raw": null}))),
        ("raw and raw_b64", with(json!({"raw_b64": "AA=="}))),
        (
            "raw_b64 not base64",
            with(json!({"raw": null, "raw_b64": "not base64!"})),
        ),
        (
            "process without details",
            with(json!({"channel": "process", "raw": null})),
        ),
        (
            "an env value recorded",
            with(json!({"channel": "process", "raw": null,
                "process": {"event": "spawn", "env": ["API_KEY=sk-123"]}})),
        ),
        (
            "a header pair of three",
            with(json!({"channel": "http", "http": {"headers": [["a", "b", "c"]]}})),
        ),
        ("header and event at once", with(header.clone())),
    ];
    for (what, line) in &broken {
        assert!(
            !validator.is_valid(line),
            "the schema accepts {what}: {line}"
        );
    }
    let bad_header = [
        (
            "version 2",
            json!({"sightline_trace": 2, "created": "2026-11-29T22:52:27.000001Z", "sightline_version": "9"}),
        ),
        (
            "no created",
            json!({"sightline_trace": 1, "sightline_version": "0.1.0"}),
        ),
    ];
    for (what, line) in &bad_header {
        assert!(
            !validator.is_valid(line),
            "the schema accepts a header with {what}"
        );
    }

    // The reader refuses the same two breakages the brief names: it skips the line and says so.
    let header_line = serde_json::to_string(&Header::new("t")).expect("header");
    for (what, line) in &broken[..3] {
        let text = format!("{header_line}\n{good}\n{line}\n");
        let loaded = load_from_reader(text.as_bytes()).expect("load");
        assert_eq!(loaded.events.len(), 1, "the reader accepts {what}");
        assert_eq!(loaded.warnings.len(), 1, "{what}: {:?}", loaded.warnings);
        assert_eq!(loaded.warnings[0].line, 3);
    }
}

fn mcp_schema(revision: &str) -> Value {
    read_json(
        &assets()
            .join("mcp-schema")
            .join(revision)
            .join("schema.json"),
    )
}

/// A validator for one definition of an MCP schema file: the whole file with a root `$ref` to
/// the definition, so every internal `#/$defs/...` or `#/definitions/...` reference resolves.
fn definition_of(schema: &Value, revision: &str, name: &str) -> Validator {
    let defs = if schema.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        schema[defs].get(name).is_some(),
        "{revision} has no definition {name}"
    );
    let mut schema = schema.clone();
    schema["$ref"] = json!(format!("#/{defs}/{name}"));
    compile(&schema, &format!("{revision} {name}"))
}

fn mcp_definition(revision: &str, name: &str) -> Validator {
    definition_of(&mcp_schema(revision), revision, name)
}

#[test]
fn shipped_mcp_schemas_compile_offline() {
    for revision in REVISIONS {
        let path = assets()
            .join("mcp-schema")
            .join(revision)
            .join("schema.json");
        let schema = read_json(&path);
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{revision}: not a valid JSON Schema for its draft: {e}");
        }
        compile(&schema, revision);
        let defs = schema
            .get("$defs")
            .or_else(|| schema.get("definitions"))
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("{revision} has no $defs or definitions"));
        assert!(
            defs.len() > 50,
            "{revision}: only {} definitions",
            defs.len()
        );
        // Every definition compiles on its own: all its `$ref`s resolve inside the file.
        for name in defs.keys() {
            definition_of(&schema, revision, name);
        }
    }
    for file in ["LICENSE", "PROVENANCE.txt"] {
        let path = assets().join("mcp-schema").join(file);
        assert!(path.is_file(), "{} is shipped", path.display());
    }
}

#[test]
fn initialize_belongs_to_2025_11_25_and_not_to_2026_07_28() {
    let initialize = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    });
    for name in ["JSONRPCRequest", "InitializeRequest", "ClientRequest"] {
        let v = mcp_definition("2025-11-25", name);
        assert_eq!(
            errors(&v, &initialize),
            Vec::<String>::new(),
            "2025-11-25 {name}"
        );
    }
    // Not just any object: a broken initialize fails the definition that names it.
    let mut no_client_info = initialize.clone();
    no_client_info["params"]
        .as_object_mut()
        .expect("params")
        .remove("clientInfo");
    assert!(!mcp_definition("2025-11-25", "InitializeRequest").is_valid(&no_client_info));

    let client_request_2026 = mcp_definition("2026-07-28", "ClientRequest");
    assert!(
        !client_request_2026.is_valid(&initialize),
        "2026-07-28 has no initialize: its ClientRequest must reject one"
    );
    // ...while it accepts that revision's own first request (so the rejection is meaningful).
    let discover = json!({
        "jsonrpc": "2.0",
        "id": "discover-1",
        "method": "server/discover",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    assert_eq!(
        errors(&client_request_2026, &discover),
        Vec::<String>::new()
    );
    // And it is still a well-formed JSON-RPC request in both revisions.
    assert!(mcp_definition("2026-07-28", "JSONRPCRequest").is_valid(&initialize));
}
