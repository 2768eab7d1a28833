//! Hand-built traces of the host's side: its notes and the processes it runs, an OpenAI chat
//! exchange's words, the helpers, and recorded reasons and notes said in each language.

use super::*;

#[test]
fn host_notes_and_processes() {
    let mut events = vec![
        ev(
            0,
            "host",
            "host",
            Channel::Note,
            "host drops tool `weather.lookup` of server `oddnames`: tool name \"weather.lookup\" does not match the provider pattern",
        ),
        ev(
            1,
            "host",
            "host",
            Channel::Note,
            "host shows tool `get_weather` of server `forecast` to the model as `forecast__get_weather`",
        ),
        ev(
            2,
            "host",
            "host",
            Channel::Note,
            "host ignores notifications/tools/list_changed: the model keeps the stale list",
        ),
        ev(
            3,
            "host",
            "host",
            Channel::Note,
            "the model called `ghost`, which the host did not offer",
        ),
        ev(4, "host", "host", Channel::Note, "something else"),
        ev(5, "host", "server:s", Channel::Process, ""),
        ev(6, "server:s", "host", Channel::Process, ""),
        ev(
            7,
            "host",
            "server:s",
            Channel::Other("pigeon".into()),
            "coo",
        ),
    ];
    events[5].set_process(Some(ProcessInfo {
        event: "spawn-failed".into(),
        detail: Some("No such file or directory".into()),
        ..Default::default()
    }));
    events[6].set_process(Some(ProcessInfo {
        event: "exit".into(),
        signal: Some(15),
        ..Default::default()
    }));
    let r = report(&events);
    check_run(&events, &r);
    let t = |i| en(&events, &r, i);
    assert!(
        t(0).starts_with("The host drops weather.lookup, a tool of the oddnames server"),
        "{}",
        t(0)
    );
    assert!(t(0).contains("this tool does not exist"), "{}", t(0));
    assert!(t(1).contains("as forecast__get_weather"), "{}", t(1));
    assert!(t(2).contains("old tool list"), "{}", t(2));
    assert!(t(3).contains("asked for ghost"), "{}", t(3));
    assert!(t(4).ends_with("“something else”"), "{}", t(4));
    assert!(t(5).contains("No such file or directory"), "{}", t(5));
    assert!(t(6).contains("SIGTERM (15)"), "{}", t(6));
    assert!(t(7).contains("(pigeon)"), "{}", t(7));
}

#[test]
fn openai_chat_words() {
    let url = "http://127.0.0.1:9/v1/chat/completions";
    let mut events = vec![
        ev(
            0,
            "host",
            "llm",
            Channel::LlmHttp,
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}"#,
        ),
        ev(
            1,
            "llm",
            "host",
            Channel::LlmHttp,
            r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Lima\"}"}}]},"finish_reason":"tool_calls"}]}"#,
        ),
        ev(
            2,
            "host",
            "llm",
            Channel::LlmHttp,
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#,
        ),
        ev(
            3,
            "llm",
            "host",
            Channel::LlmHttp,
            r#"{"error":{"message":"rate limited"}}"#,
        ),
    ];
    events[0].set_http(Some(HttpInfo {
        method: Some("POST".into()),
        url: Some(url.into()),
        ..Default::default()
    }));
    let http = events[0].http().cloned();
    events[2].set_http(http);
    events[3].set_http(Some(HttpInfo {
        status: Some(429),
        ..Default::default()
    }));
    let r = report(&events);
    check_run(&events, &r);
    let t = |i| en(&events, &r, i);
    assert!(
        t(0).contains("inputSchema becomes function.parameters"),
        "{}",
        t(0)
    );
    assert!(
        t(1).contains("get_weather (tool_calls) and stops with finish_reason tool_calls"),
        "{}",
        t(1)
    );
    // The lesson: OpenAI's arguments are a JSON string that the host parses.
    assert!(
        t(1).contains(r#"arguments arrive as a JSON string, "{\"location\":\"Lima\"}""#),
        "{}",
        t(1)
    );
    assert!(t(2).contains("without tools"), "{}", t(2));
    assert!(t(3).contains("HTTP 429"), "{}", t(3));
}

#[test]
fn helpers() {
    assert_eq!(quote("a\n  b\u{200B}c", 10), "a bc");
    assert_eq!(quote("abcdefghij", 5), "abcd…");
    assert_eq!(list(&[]), "—");
    assert_eq!(
        list(&["a", "b", "c", "d", "e", "f", "g", "h"]),
        "a, b, c, d, e, f, +2"
    );
    assert_eq!(backticked("x `a` y `b` z"), vec!["a", "b"]);
    assert!(is_invisible('\u{E0041}') && !is_invisible('a'));
    assert_eq!(keys_of(None), "{}");
}

/// The host's reasons and notes, and the reasons a request got no answer, are Sightline's
/// words recorded in English: each language says them in its own.
#[test]
fn recorded_reasons_and_notes_are_said_in_each_language() {
    let note = |i, from: &str, to: &str, text: &str| ev(i, from, to, Channel::Note, text);
    let mut events = vec![
        note(
            0,
            "host",
            "host",
            "host drops tool `a` of server `s`: filtered by host configuration (`deny`)",
        ),
        note(
            1,
            "host",
            "host",
            "host drops tool `b.c` of server `s`: tool name \"b.c\" does not match the provider pattern ^[a-zA-Z0-9_-]{1,64}$: character '.' at position 1 is not allowed",
        ),
        note(
            2,
            "host",
            "host",
            "host drops tool `d` of server `s`: inputSchema is an array, not a JSON Schema object",
        ),
        note(
            3,
            "host",
            "host",
            "host drops tool `e` of server `s`: name `e` is already taken by server `t` (the host does not prefix names)",
        ),
        note(
            4,
            "host",
            "host",
            "host drops tool `f` of server `s`: the host drops every tool of server `s` because `b.c` is invalid (all or nothing)",
        ),
        note(5, "host", "user", "server `s` asks the user: Proceed?"),
        note(6, "user", "host", "the user answers: accept {\"ok\":true}"),
        note(
            7,
            "host",
            "host",
            "host answers roots/list of server `s` from its own configuration (no model, no user): file:///workshop",
        ),
        note(
            8,
            "host",
            "host",
            "host drops tool `g` of server `s`: something new",
        ),
    ];
    events.push(ev(
        9,
        H,
        S,
        Channel::Stdio,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    ));
    let r = report(&events);
    check_run(&events, &r);
    let s = Strings::embedded();
    let say = |i, lang| narrate(&events, &r, i, &s, lang);
    let pt = |i| say(i, Language::Pt);
    let es = |i| say(i, Language::Es);
    assert!(
        pt(0).contains("a configuração do host a filtra"),
        "{}",
        pt(0)
    );
    assert!(
        es(0).contains("la configuración del host la filtra"),
        "{}",
        es(0)
    );
    assert!(
        pt(1).contains("o caractere '.' na posição 1 não é permitido"),
        "{}",
        pt(1)
    );
    assert!(pt(1).contains("o nome b.c não segue o padrão"), "{}", pt(1));
    assert!(es(2).contains("su inputSchema es un array"), "{}", es(2));
    assert!(
        pt(3).contains("o nome e já pertence ao servidor t"),
        "{}",
        pt(3)
    );
    assert!(es(4).contains("porque b.c no es válida"), "{}", es(4));
    assert!(pt(5).contains("“Proceed?”"), "{}", pt(5));
    assert!(
        pt(5).contains("elicitation vai para o usuário"),
        "{}",
        pt(5)
    );
    assert!(
        !pt(5).contains("resposta final"),
        "not the model's answer: {}",
        pt(5)
    );
    assert!(es(6).contains("El usuario acepta"), "{}", es(6));
    assert!(!es(6).contains("prompt"), "not a prompt: {}", es(6));
    assert!(pt(7).contains("com a própria configuração"), "{}", pt(7));
    assert!(pt(7).contains("file:///workshop"), "{}", pt(7));
    // A reason Sightline does not know is quoted as recorded, as data.
    assert!(pt(8).contains("(“something new”)"), "{}", pt(8));
    assert!(es(8).contains("(«something new»)"), "{}", es(8));
    // The request never answered: the trace ended.
    assert!(
        pt(9).contains("nenhuma resposta chegou antes do fim do trace"),
        "{}",
        pt(9)
    );
    assert!(es(9).contains("antes del final del trace"), "{}", es(9));
    assert!(say(9, Language::En).contains("no response came before the trace ended"));
}
