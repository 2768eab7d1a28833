//! What a Portuguese or Spanish class still read in English once the reports spoke their
//! language (issue 16, Language), second part: the JSON Schema validator's findings
//! (`validate`, `check`, the doctor's check of an `inputSchema`), the doctor's details about a
//! server that does not start, exits or refuses the handshake (and its "probing" line), and
//! the errors the binary prints (`sightline: error: …`) for the inputs a participant gets
//! wrong most: a missing trace, a scenario given as a trace, a file that is not a trace, a
//! `--set` key the scenario format lacks, a scenario that is not valid TOML, a server that
//! does not start. Each test runs the same input in English too and requires the English
//! there, so the translated words cannot pass by saying nothing.

use std::path::Path;

use egui_kittest::kittest::Queryable;
use serde_json::Value;

use crate::language::{english_sentences, sightline};
use crate::language_gaps::{doctor, edit, said, trace};
use crate::util::{self, tempdir};

/// `sightline ARGS --lang LANG` (before a `--`): its stdout and stderr, whatever its status.
pub(crate) fn both(args: &[&str], lang: &str) -> (String, String) {
    let mut all: Vec<&str> = args.to_vec();
    let at = all.iter().position(|a| *a == "--").unwrap_or(all.len());
    all.splice(at..at, ["--lang", lang]);
    let out = sightline(&all, "C.UTF-8");
    (util::text(&out.stdout), util::text(&out.stderr))
}

/// `raw` with `change` applied to its JSON, when `pick` says it is the message to change.
pub(crate) fn json_edit(raw: &str, pick: &str, change: impl Fn(&mut Value)) -> Option<String> {
    if !raw.contains(pick) {
        return None;
    }
    let mut v: Value = serde_json::from_str(raw).ok()?;
    change(&mut v);
    Some(v.to_string())
}

/// Requires each of `present` in `text`, none of `absent`, and no English sentence.
pub(crate) fn says(lang: &str, text: &str, present: &[&str], absent: &[&str]) {
    for p in present {
        assert!(text.contains(p), "{lang}: no {p:?} in:\n{text}");
    }
    for a in absent {
        assert!(!text.contains(a), "{lang}: {a:?} in:\n{text}");
    }
    let english = english_sentences(text);
    assert!(
        english.is_empty(),
        "{lang}: English {english:?} in:\n{text}"
    );
}

/// `validate`, `check --fail-on schema` and the doctor say what the JSON Schema validator
/// found, not its English (`"clientInfo" is a required property`).
#[test]
fn schema_findings_are_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let weather = trace(d, "weather", "weather", &[]);
    // The initialize request loses `clientInfo` and gets a number for `protocolVersion`.
    let bad = edit(&weather, &d.join("bad.jsonl"), |raw| {
        json_edit(raw, "\"method\":\"initialize\"", |v| {
            let params = &mut v["params"];
            params.as_object_mut().map(|p| p.remove("clientInfo"));
            params["protocolVersion"] = Value::from(20251125);
        })
    });
    // A listed tool whose inputSchema says `"type": 12`.
    let invalid = edit(&weather, &d.join("invalid.jsonl"), |raw| {
        json_edit(raw, "\"inputSchema\"", |v| {
            if let Some(tools) = v.pointer_mut("/result/tools").and_then(Value::as_array_mut) {
                for tool in tools {
                    tool["inputSchema"]["properties"]["location"]["type"] = Value::from(12);
                }
            }
        })
    });
    let reports = |lang: &str| {
        let (validate, _) = both(&["validate", &bad], lang);
        let check = said(&["check", &bad, "--fail-on", "schema"], lang);
        let doctor = doctor(&[&invalid], lang);
        (validate, check, doctor)
    };
    let (validate, check, doctor_en) = reports("en");
    for text in [&validate, &check] {
        for english in [
            "the required member `clientInfo` is missing",
            "20251125 is not of type `string`",
        ] {
            assert!(text.contains(english), "{english}: {text}");
        }
    }
    assert!(
        doctor_en.contains("inputSchema is not a valid JSON Schema: 12 matches none of"),
        "{doctor_en}"
    );
    assert!(
        doctor_en.contains("(at /properties/location/type)"),
        "{doctor_en}"
    );
    let validator = [
        "is a required property",
        "is not of type \"string\"",
        "anyOf' keyword",
    ];
    for (lang, required, typed, invalid) in [
        (
            "pt",
            "falta o membro obrigatório `clientInfo`",
            "20251125 não é do tipo `string`",
            "12 não se encaixa em nenhuma das formas permitidas (anyOf/oneOf) (em /properties/location/type)",
        ),
        (
            "es",
            "falta el miembro obligatorio `clientInfo`",
            "20251125 no es del tipo `string`",
            "12 no encaja en ninguna de las formas permitidas (anyOf/oneOf) (en /properties/location/type)",
        ),
    ] {
        let (validate, check, doctor) = reports(lang);
        says(lang, &validate, &[required, typed], &validator);
        says(lang, &check, &[required, typed], &validator);
        let details: String = doctor.lines().filter(|l| l.contains("12")).collect();
        assert!(details.contains(invalid), "{lang}: {doctor}");
        for english in validator {
            assert!(!doctor.contains(english), "{lang}: {english} in {doctor}");
        }
    }
}

/// The doctor's details about a server that never got its tools to the host: one that cannot
/// be started, one that exits before answering, one that refuses `initialize` or the
/// protocol version, one that fails `tools/list`, one that never answers (the probe gives
/// up); and the line saying which server it probes.
#[test]
fn server_failures_are_said_in_the_language_asked() {
    let peer = |name: &str| util::peer(&format!("doctor/{name}.py"));
    let (init_error, refused, list_error, hang) = (
        peer("init_error"),
        peer("version_refused"),
        peer("tools_list_error"),
        peer("init_hang"),
    );
    let cases: Vec<Vec<&str>> = vec![
        vec!["--", "/nonexistent/sightline-server"],
        // Reads the initialize first, so it dies before answering it (not before it was sent).
        vec!["--", "sh", "-c", "read line; echo boom >&2; exit 3"],
        vec!["--", "python3", &init_error],
        vec!["--", "python3", &refused],
        vec!["--", "python3", &list_error],
        vec!["--timeout-secs", "1", "--", "python3", &hang],
    ];
    let run = |lang: &str| {
        let mut out = String::new();
        for args in &cases {
            let (stdout, stderr) = both(&[&["doctor"][..], args].concat(), lang);
            out.push_str(&stdout);
            out.push_str(stderr.lines().next().unwrap_or_default());
            out.push('\n');
        }
        out
    };
    let english = [
        "`/nonexistent/sightline-server` could not be started",
        "the server exited with code 3 (#",
        "before answering initialize; last stderr: \"boom\"",
        "initialize failed: error -32603 \"database unavailable\"",
        "the server refused protocol version 2025-11-25 in initialize (error -32022 \"Unsupported protocol version\"); it supports: 2099-01-01",
        "tools/list failed with error -32603 \"tool registry failed\" (#",
        ") was never answered (the host stopped waiting: ",
        "sightline: probing server `sightline-server`, recording to ",
    ];
    let en = run("en");
    for e in english {
        assert!(en.contains(e), "{e}: {en}");
    }
    // The hints are checked in `language_gaps`; the details and the stderr line here.
    let details = |text: &str| {
        text.lines()
            .map(|l| l.split("  → ").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (lang, present) in [
        (
            "pt",
            [
                "não foi possível iniciar `/nonexistent/sightline-server`",
                "o servidor terminou com o código 3 (#",
                "antes de responder à requisição initialize; últimas linhas do stderr: \"boom\"",
                "initialize falhou: erro -32603 \"database unavailable\"",
                "o servidor recusou a versão de protocolo 2025-11-25 em initialize (erro -32022 \"Unsupported protocol version\"); ele aceita: 2099-01-01",
                "tools/list falhou com o erro -32603 \"tool registry failed\" (#",
                ") nunca foi respondida (o host parou de esperar: ",
                "sightline: testando o servidor `sightline-server`, gravando em ",
            ],
        ),
        (
            "es",
            [
                "no se pudo iniciar `/nonexistent/sightline-server`",
                "el servidor terminó con el código 3 (#",
                "antes de responder la solicitud initialize; últimas líneas de stderr: \"boom\"",
                "initialize falló: error -32603 \"database unavailable\"",
                "el servidor rechazó la versión de protocolo 2025-11-25 en initialize (error -32022 \"Unsupported protocol version\"); admite: 2099-01-01",
                "tools/list falló con el error -32603 \"tool registry failed\" (#",
                ") nunca recibió respuesta (el host dejó de esperar: ",
                "sightline: probando el servidor `sightline-server`, grabando en ",
            ],
        ),
    ] {
        let out = run(lang);
        says(lang, &details(&out), &present, &english);
    }
}

/// A scenario whose one server is a program that does not exist.
fn missing_server(dir: &Path) -> String {
    let path = dir.join("missing-server.toml");
    let text = "title = \"t\"\nprompt = \"p\"\n\n[[servers]]\nname = \"gone\"\ncommand = \"/nonexistent/mcp-server\"\n";
    std::fs::write(&path, text).expect("write scenario");
    path.to_str().expect("utf-8 path").to_string()
}

/// The errors a participant meets most, each printed in the language asked and in English
/// when English is asked: a path that is not there, a scenario given as a trace, a file that
/// is not a trace, a misspelt `--set` key, a scenario that is not valid TOML, a server that
/// does not start.
#[test]
fn the_binarys_errors_are_said_in_the_language_asked() {
    let dir = tempdir();
    let d = dir.path();
    let notes = d.join("notes.txt");
    std::fs::write(&notes, "not a trace\n").expect("write notes");
    let notes = notes.to_str().expect("utf-8 path");
    let broken = d.join("broken.toml");
    std::fs::write(&broken, "title = \"t\"\nprompt = \"p\"\ntitel = 1\n").expect("write");
    let broken = broken.to_str().expect("utf-8 path");
    let server = missing_server(d);
    let out = d.join("out.jsonl");
    let out = out.to_str().expect("utf-8 path");
    let weather = "scenarios/weather.toml";
    let cases: Vec<Vec<&str>> = vec![
        vec!["summary", "/nonexistent/x.jsonl"],
        vec!["validate", weather],
        vec!["summary", notes],
        vec!["run", weather, "--trace", out, "--set", "host.prefx=never"],
        vec!["run", "/nonexistent/s.toml", "--trace", out],
        vec!["run", broken, "--trace", out],
        vec!["run", &server, "--trace", out, "--no-summary"],
    ];
    let errors = |lang: &str| {
        let mut all = String::new();
        for args in &cases {
            let (_, stderr) = both(args, lang);
            let line = stderr
                .lines()
                .find(|l| l.starts_with("sightline: "))
                .unwrap_or_else(|| panic!("{args:?} ({lang}): no error in {stderr}"));
            all.push_str(line);
            all.push('\n');
        }
        all
    };
    let english = [
        "sightline: error: cannot open trace /nonexistent/x.jsonl: No such file or directory (os error 2)",
        "is a scenario, not a trace: run it first with",
        "notes.txt: line 1 is not a Sightline trace header",
        "the scenario format has no key `host.prefx`; the keys it has there: refetch_on_list_changed, prefix",
        "no scenario file /nonexistent/s.toml, nor a shipped scenario of that name",
        "broken.toml is not valid (line 3, column 1): unknown field `titel`",
        "sightline: run failed: cannot start server `/nonexistent/mcp-server`: No such file or directory (os error 2) (is it installed and on PATH?)",
    ];
    let en = errors("en");
    for e in english {
        assert!(en.contains(e), "{e}: {en}");
    }
    for (lang, present) in [
        (
            "pt",
            [
                "sightline: erro: não foi possível abrir o trace /nonexistent/x.jsonl: arquivo ou pasta inexistente",
                "é um cenário, não um trace: execute-o antes com",
                "notes.txt: a linha 1 não é um cabeçalho de trace do Sightline",
                "o formato de cenário não tem a chave `host.prefx`; as chaves que ele tem ali: refetch_on_list_changed, prefix",
                "não há arquivo de cenário /nonexistent/s.toml nem cenário incluído com esse nome",
                "broken.toml não é válido (linha 3, coluna 1); o leitor de TOML diz: “unknown field `titel`",
                "sightline: a execução falhou: não foi possível iniciar o servidor `/nonexistent/mcp-server`: arquivo ou pasta inexistente (ele está instalado e no PATH?)",
            ],
        ),
        (
            "es",
            [
                "sightline: error: no se pudo abrir el trace /nonexistent/x.jsonl: no existe el archivo o la carpeta",
                "es un escenario, no un trace: ejecútalo primero con",
                "notes.txt: la línea 1 no es un encabezado de trace de Sightline",
                "el formato de escenario no tiene la clave `host.prefx`; las claves que tiene ahí: refetch_on_list_changed, prefix",
                "no hay archivo de escenario /nonexistent/s.toml ni escenario incluido con ese nombre",
                "broken.toml no es válido (línea 3, columna 1); el lector de TOML dice: “unknown field `titel`",
                "sightline: la ejecución falló: no se pudo iniciar el servidor `/nonexistent/mcp-server`: no existe el archivo o la carpeta (¿está instalado y en el PATH?)",
            ],
        ),
    ] {
        let said = errors(lang);
        says(lang, &said, &present, &english);
    }
    // An unknown --lang is said in the locale's language.
    let out = sightline(&["summary", "x.jsonl", "--lang", "fr"], "pt_BR.UTF-8");
    let stderr = util::text(&out.stderr);
    assert!(
        stderr.contains("sightline: erro: --lang `fr` desconhecido: use en, pt ou es"),
        "{stderr}"
    );
}

/// The app says why a file would not open (not a trace, not there) in the language picked
/// in it.
#[test]
fn the_app_says_why_a_file_did_not_open_in_the_language_picked() {
    use sightline::ui::{Command, DesktopCommand, SightlineApp};
    let dir = tempdir();
    let weather = trace(dir.path(), "weather", "weather", &[]);
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a trace\n").expect("write notes");
    let missing = dir.path().join("missing.jsonl");
    let app = SightlineApp::from_trace(Path::new(&weather)).expect("open the trace");
    let mut h = util::harness(app);
    let notices = |h: &mut egui_kittest::Harness<'static, SightlineApp>| {
        let mut out = Vec::new();
        for path in [&notes, &missing] {
            let open: Command = DesktopCommand::Open(path.clone()).into();
            h.state_mut().apply(open);
            h.run();
            out.push(h.state().notice().expect("a notice").text.clone());
        }
        out
    };
    let en = notices(&mut h).join("\n");
    assert!(
        en.contains("line 1 is not a Sightline trace header"),
        "{en}"
    );
    assert!(en.contains("cannot open trace "), "{en}");
    for (lang, code, header, open) in [
        (
            "pt",
            "PT",
            "a linha 1 não é um cabeçalho de trace do Sightline",
            "não foi possível abrir o trace ",
        ),
        (
            "es",
            "ES",
            "la línea 1 no es un encabezado de trace de Sightline",
            "no se pudo abrir el trace ",
        ),
    ] {
        h.get_by_label(code).click();
        h.run();
        let said = notices(&mut h).join("\n");
        says(
            lang,
            &said,
            &[header, open],
            &["trace header", "cannot open"],
        );
    }
}
