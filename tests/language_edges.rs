//! What a Portuguese or Spanish class still read in English after `language_errors` (issue 16,
//! Language), third part: the loader's warnings about lines it skipped, a `traceparent` that
//! `validate` rejects, an LLM API that refuses the run, a file a command cannot write, and the
//! doctor's detail about a server that dies before the host's `initialize` reaches it, why a
//! message is not valid JSON-RPC (in `summary` and the narration). Each test
//! runs the same input in English too and requires the English there, so the translated words
//! cannot pass by saying nothing.

use serde_json::Value;

use sightline::analysis::narration::narrate;
use sightline::analysis::report;
use sightline::i18n::{Language, Strings};

use crate::host_runs::provider_errors::{FakeApi, fake_api};
use crate::language::english_sentences;
use crate::language_errors::{both, json_edit, says};
use crate::language_gaps::{edit, trace};
use crate::util::{load, tempdir};

/// The lines of `text` that carry `mark`, joined.
fn lines_with(text: &str, mark: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(mark)).collect();
    lines.join("\n")
}

/// A trace with a line that is not an event and a last line cut short: `summary` warns about
/// both, by line, in the language asked.
#[test]
fn the_loaders_warnings_are_said_in_the_language_asked() {
    let dir = tempdir();
    let weather = trace(dir.path(), "weather", "weather", &[]);
    let mut text = std::fs::read_to_string(&weather).expect("read trace");
    let garbage = text.lines().count() + 1;
    text.push_str("not an event\n{\"seq\": 99, \"time\"");
    let damaged = dir.path().join("damaged.jsonl");
    std::fs::write(&damaged, text).expect("write trace");
    let damaged = damaged.to_str().expect("utf-8 path");
    let warnings = |lang: &str| lines_with(&both(&["summary", damaged], lang).1, "damaged.jsonl");
    let en = warnings("en");
    for english in [
        format!("line {garbage}: not a valid event, skipped: "),
        format!("line {}: the last line is truncated (", garbage + 1),
    ] {
        assert!(en.contains(&english), "{english}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                format!(
                    "linha {garbage}: não é um evento válido e foi ignorada: o leitor de JSON diz “"
                ),
                format!("linha {}: a última linha está incompleta (", garbage + 1),
            ],
        ),
        (
            "es",
            [
                format!(
                    "línea {garbage}: no es un evento válido y se omitió: el lector de JSON dice “"
                ),
                format!("línea {}: la última línea está incompleta (", garbage + 1),
            ],
        ),
    ] {
        let said = warnings(lang);
        let present: Vec<&str> = present.iter().map(String::as_str).collect();
        says(lang, &said, &present, &["not a valid event", "truncated"]);
    }
}

/// A request whose `params._meta.traceparent` is not a W3C value: `validate` says why in the
/// language asked.
#[test]
fn a_bad_traceparent_is_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let weather = trace(d, "weather", "weather", &[]);
    let bad = edit(&weather, &d.join("traceparent.jsonl"), |raw| {
        json_edit(raw, "\"method\":\"tools/call\"", |v| {
            v["params"]["_meta"] = serde_json::json!({ "traceparent": "00-nope" });
        })
    });
    let validate = |lang: &str| lines_with(&both(&["validate", &bad], lang).0, "00-nope");
    let en = validate("en");
    assert!(
        en.contains("`00-nope` is not a W3C traceparent (00-<32 lower-case hex>"),
        "{en}"
    );
    for (lang, present) in [
        ("pt", "`00-nope` não é um traceparent W3C válido"),
        ("es", "`00-nope` no es un traceparent W3C válido"),
    ] {
        let said = validate(lang);
        says(lang, &said, &[present], &["is not a W3C", "ignores it"]);
    }
}

/// An LLM API on 127.0.0.1 that answers every request with 401 until the test ends.
fn refusing_api() -> FakeApi {
    let body =
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    fake_api(format!(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ))
}

/// A run the LLM API refuses, and an export to a folder that does not exist: the errors are
/// said in the language asked, the API's own message quoted.
#[test]
fn a_refused_run_and_an_unwritable_output_are_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let weather = trace(d, "weather", "weather", &[]);
    let api = refusing_api();
    let base = format!("http://127.0.0.1:{}", api.port);
    let out = d.join("refused.jsonl");
    let out = out.to_str().expect("utf-8 path");
    let errors = |lang: &str| {
        let run = [
            "run",
            "scenarios/weather.toml",
            "--provider",
            "anthropic",
            "--model",
            "claude-test",
            "--base-url",
            &base,
            "--trace",
            out,
            "--no-summary",
        ];
        let export = [
            "export",
            &weather,
            "--format",
            "mermaid",
            "--out",
            "/nonexistent/dir/x.mmd",
        ];
        let mut all = String::new();
        for args in [&run[..], &export[..]] {
            let (_, stderr) = both(args, lang);
            all.push_str(&lines_with(&stderr, "sightline: "));
            all.push('\n');
        }
        all
    };
    let en = errors("en");
    for english in [
        "/v1/messages refused the API key (401): invalid x-api-key (no API key was sent; set ANTHROPIC_API_KEY)",
        "cannot write /nonexistent/dir/x.mmd: No such file or directory",
    ] {
        assert!(en.contains(english), "{english}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                "/v1/messages recusou a chave de API (401): “invalid x-api-key” (nenhuma chave de API foi enviada; defina ANTHROPIC_API_KEY)",
                "não foi possível gravar /nonexistent/dir/x.mmd: arquivo ou pasta inexistente",
            ],
        ),
        (
            "es",
            [
                "/v1/messages rechazó la clave de API (401): “invalid x-api-key” (no se envió ninguna clave de API; define ANTHROPIC_API_KEY)",
                "no se pudo escribir /nonexistent/dir/x.mmd: no existe el archivo o la carpeta",
            ],
        ),
    ] {
        let said = errors(lang);
        says(
            lang,
            &said,
            &present,
            &["refused the API key", "cannot write"],
        );
    }
    drop(api);
}

/// A server that exits at once, without reading the host's `initialize`: the doctor says it
/// died before answering `initialize`, not `tools/list` (which nobody sent). Whether the tap
/// recorded the `initialize` before the server was gone is a race, so the probe's trace is
/// also diagnosed without it (the server died before the request was written).
#[test]
fn the_doctor_names_initialize_when_the_server_dies_before_it() {
    let dir = tempdir();
    let (probe_en, stderr) = both(&["doctor", "--", "sh", "-c", "exit 3"], "en");
    let recorded = stderr
        .lines()
        .find_map(|l| l.split("recording to ").nth(1))
        .unwrap_or_else(|| panic!("no trace named in {stderr}"));
    let text = std::fs::read_to_string(recorded.trim()).expect("read the probe's trace");
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).expect("a trace line is JSON");
        let raw = v.get("raw").and_then(Value::as_str).unwrap_or_default();
        if raw.contains("\"method\":\"initialize\"") {
            continue;
        }
        if v.get("seq").is_some() {
            v["seq"] = Value::from(lines.len() as u64 - 1);
        }
        lines.push(v.to_string());
    }
    let unsent = dir.path().join("unsent.jsonl");
    std::fs::write(&unsent, lines.join("\n") + "\n").expect("write trace");
    let unsent = unsent.to_str().expect("utf-8 path");
    let doctor = |lang: &str| both(&["doctor", unsent], lang).0;
    let (en, pt) = (doctor("en"), doctor("pt"));
    for report in [&probe_en, &en] {
        assert!(
            report.contains("the server exited with code 3 (#")
                && report.contains("before answering initialize"),
            "{report}"
        );
        assert!(!report.contains("tools/list ("), "{report}");
    }
    assert!(
        en.contains("before answering initialize (the first request, which never reached it)"),
        "{en}"
    );
    says(
        "pt",
        &lines_with(&pt, "servidor sh"),
        &[
            "o servidor terminou com o código 3 (#",
            "antes de responder à requisição initialize (a primeira, que nunca chegou a ele)",
        ],
        &["tools/list ("],
    );
}

/// `replay` on inputs a class gets wrong: a server the trace does not have, and a server that
/// exits at once (the replay stops at `initialize`).
#[test]
fn replays_that_cannot_run_or_finish_are_said_in_the_language_asked() {
    let dir = tempdir();
    let weather = trace(dir.path(), "weather", "weather", &[]);
    let errors = |lang: &str| {
        let mut all = String::new();
        for args in [
            &["replay", &weather, "--server", "nada", "--", "sh"][..],
            &["replay", &weather, "--", "sh", "-c", "exit 3"][..],
        ] {
            all.push_str(&lines_with(&both(args, lang).1, "sightline: "));
            all.push('\n');
        }
        all
    };
    let en = errors("en");
    for english in [
        "the trace has no server `nada` (it has: weather)",
        "could not finish the replay against `sh -c exit 3`: ",
        " while replaying initialize (recorded #",
    ] {
        assert!(en.contains(english), "{english}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                "o trace não tem o servidor `nada` (ele tem: weather)",
                "não foi possível terminar a reprodução contra `sh -c exit 3`: ",
                " ao reproduzir initialize (gravada em #",
            ],
        ),
        (
            "es",
            [
                "el trace no tiene el servidor `nada` (tiene: weather)",
                "no se pudo terminar la reproducción contra `sh -c exit 3`: ",
                " al reproducir initialize (grabada en #",
            ],
        ),
    ] {
        let said = errors(lang);
        says(
            lang,
            &said,
            &present,
            &["could not finish", "while replaying"],
        );
    }
}

/// A `--set` whose value the scenario format refuses: the TOML reader's words are quoted, and
/// the sentence around them says where (the key) in the language asked.
#[test]
fn a_set_value_the_format_refuses_is_framed_in_the_language_asked() {
    let dir = tempdir();
    let out = dir.path().join("set.jsonl");
    let out = out.to_str().expect("utf-8 path");
    let args = [
        "run",
        "scenarios/weather.toml",
        "--trace",
        out,
        "--set",
        "host.prefix=3",
    ];
    let error = |lang: &str| lines_with(&both(&args, lang).1, "sightline: ");
    let en = error("en");
    assert!(
        en.contains("with --set host.prefix=3 (at `host.prefix`): "),
        "{en}"
    );
    for (lang, present) in [
        (
            "pt",
            "com --set host.prefix=3 (em `host.prefix`), o leitor de TOML diz: “",
        ),
        (
            "es",
            "con --set host.prefix=3 (en `host.prefix`), el lector de TOML dice: “",
        ),
    ] {
        says(lang, &error(lang), &[present], &["with --set"]);
    }
}

/// The JSON of `text`'s violations is English whatever `--lang` says (scripts read it).
#[test]
fn validates_json_keeps_the_english() {
    let dir = tempdir();
    let d = dir.path();
    let weather = trace(d, "weather", "weather", &[]);
    let bad = edit(&weather, &d.join("traceparent.jsonl"), |raw| {
        json_edit(raw, "\"method\":\"tools/call\"", |v| {
            v["params"]["_meta"] = serde_json::json!({ "traceparent": 12 });
        })
    });
    let (json, _) = both(&["validate", &bad, "--json"], "pt");
    let v: Value = serde_json::from_str(&json).expect("validate --json is JSON");
    assert!(
        v.to_string()
            .contains("`12` is not a W3C traceparent (not a string)"),
        "{v}"
    );
}

/// A trace whose server and host send lines that are not valid JSON-RPC: bytes that are not
/// UTF-8, a request with `id: null`, a response with both `result` and `error`, a message
/// without `jsonrpc`. `summary` and the narration say why each is invalid in the language asked.
#[test]
fn why_a_message_is_invalid_is_said_in_the_language_asked() {
    let dir = tempdir();
    let path = dir.path().join("invalid.jsonl");
    let event = |seq: u32, from: &str, to: &str, payload: &str| {
        format!(
            r#"{{"seq":{seq},"time":"2026-11-29T12:00:00.00{seq}000Z","from":"{from}","to":"{to}","channel":"stdio",{payload}}}"#
        )
    };
    let lines = [
        r#"{"sightline_trace":1,"created":"2026-11-29T12:00:00.000000Z","sightline_version":"0.1.0","title":"x"}"#.to_string(),
        event(0, "server:w", "host", r#""raw_b64":"//4gaGk=""#),
        event(1, "host", "server:w", r#""raw":"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}""#),
        event(2, "server:w", "host", r#""raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}""#),
        event(3, "host", "server:w", r#""raw":"{\"id\":2,\"method\":\"ping\"}""#),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write trace");
    let file = path.to_str().expect("utf-8 path");
    let english = [
        "not UTF-8 text",
        "a request with `id: null`",
        "a response with both `result` and `error`",
        "JSON, but not JSON-RPC 2.0 (no `jsonrpc` member)",
    ];
    let invalid = |lang: &str| lines_with(&both(&["summary", file], lang).0, "!! ");
    let en = invalid("en");
    for e in english {
        assert!(en.contains(e), "{e}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                "não é texto UTF-8",
                "uma requisição com `id: null`",
                "uma resposta com `result` e `error` ao mesmo tempo",
                "falta o campo `jsonrpc`",
            ],
        ),
        (
            "es",
            [
                "no es texto UTF-8",
                "una solicitud con `id: null`",
                "una respuesta con `result` y `error` a la vez",
                "falta el campo `jsonrpc`",
            ],
        ),
    ] {
        says(lang, &invalid(lang), &present, &english);
    }

    // The narration quotes the same reasons.
    let trace = load(&path);
    let r = report(&trace.events);
    let strings = Strings::embedded();
    let told = |lang| {
        (0..trace.events.len())
            .map(|i| narrate(&trace.events, &r, i, &strings, lang))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let en = told(Language::En);
    for e in english {
        assert!(en.contains(e), "{e}: {en}");
    }
    for lang in [Language::Pt, Language::Es] {
        let text = told(lang);
        let found = english_sentences(&text);
        assert!(found.is_empty(), "{lang:?}: English {found:?} in:\n{text}");
        for e in english {
            assert!(!text.contains(e), "{lang:?}: {e:?} in:\n{text}");
        }
    }
}

/// `import` says what it skipped, that the times are made up and what it wrote, in the language
/// asked; the importer's own words about a bad line are quoted, not translated.
#[test]
fn import_says_its_warnings_and_notes_in_the_language_asked() {
    let dir = tempdir();
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/mcp-server-weather.log");
    let history = dir.path().join("history.json");
    std::fs::write(
        &history,
        r#"[{"request":"{\"method\":\"tools/list\"}","response":"{\"tools\":[]}"}]"#,
    )
    .expect("write history");
    let out = dir.path().join("out.jsonl");
    let (log, history, out) = (
        log.to_str().expect("utf-8 path"),
        history.to_str().expect("utf-8 path"),
        out.to_str().expect("utf-8 path"),
    );
    let said = |lang: &str| {
        let skipped = both(&["import", "claude-desktop", log, "--trace", out], lang).1;
        let timeless = both(&["import", "inspector", history, "--trace", out], lang).1;
        format!("{skipped}{timeless}")
    };
    let en = said("en");
    for english in [
        "mcp-server-weather.log: line 9: ",
        " (skipped)",
        "history.json has no times: ",
        "10 events from ",
        "2 events from ",
    ] {
        assert!(en.contains(english), "{english}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                "mcp-server-weather.log: linha 9 ignorada: o importador diz “",
                "history.json não tem horários: ",
                "10 eventos de ",
            ],
        ),
        (
            "es",
            [
                "mcp-server-weather.log: línea 9 omitida: el importador dice “",
                "history.json no tiene horas: ",
                "10 eventos de ",
            ],
        ),
    ] {
        says(
            lang,
            &said(lang),
            &present,
            &["(skipped)", "has no times", "written to"],
        );
    }
}
