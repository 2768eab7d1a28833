use serde_json::json;

use super::fixtures::*;
use super::*;
use crate::analysis::report;

impl Trace {
    fn diagram(&self) -> Drawn {
        let report = report(&self.0);
        let diagram = build(&self.0, &report);
        let rows = (0..diagram.rows.len())
            .map(|i| DrawnRow {
                row: diagram.rows[i].clone(),
                text: diagram.text(&self.0, &report, i, crate::i18n::Language::En),
                chain: diagram.chain(i).to_vec(),
                offset_us: offset_us(&self.0, i),
            })
            .collect();
        Drawn { diagram, rows }
    }
}

/// A diagram with every row's text and chain, as the tests read them.
#[derive(Debug)]
struct Drawn {
    diagram: Diagram,
    rows: Vec<DrawnRow>,
}

impl std::ops::Deref for Drawn {
    type Target = Diagram;
    fn deref(&self) -> &Diagram {
        &self.diagram
    }
}

#[derive(Debug)]
struct DrawnRow {
    row: Row,
    text: RowText,
    chain: Vec<usize>,
    offset_us: i64,
}

impl std::ops::Deref for DrawnRow {
    type Target = Row;
    fn deref(&self) -> &Row {
        &self.row
    }
}

impl DrawnRow {
    fn label(&self) -> &str {
        &self.text.label
    }

    fn detail(&self) -> Option<&str> {
        self.text.detail.as_deref()
    }
}

fn labels(d: &Drawn) -> Vec<&str> {
    d.rows.iter().map(DrawnRow::label).collect()
}

#[test]
fn weather_lanes_labels_and_styles() {
    let d = weather().diagram();
    let titles: Vec<&str> = d.lanes.iter().map(|l| l.title.as_str()).collect();
    assert_eq!(titles, ["User", "Host", "LLM API", "weather"]);
    let kinds: Vec<LaneKind> = d.lanes.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        [
            LaneKind::User,
            LaneKind::Host,
            LaneKind::Llm,
            LaneKind::Server
        ]
    );
    assert_eq!(
        labels(&d),
        [
            "What's the weather in Seoul?",
            "spawned sightline demo-server weather",
            "initialize 2025-11-25",
            "stderr: weather MCP server running on stdio",
            "result initialize 2025-11-25",
            "notifications/initialized",
            "tools/list",
            "result tools/list",
            "request · tools: get_weather",
            "tool_use get_weather",
            "tools/call get_weather",
            "result tools/call get_weather",
            "returns toolu_1 result",
            "end_turn \"It is 15C.…\"",
            "It is 15C.",
            "exited code 0",
        ]
    );
    let styles: Vec<Style> = d.rows.iter().map(|r| r.style).collect();
    use Style::*;
    assert_eq!(
        styles,
        [
            Note,
            Process,
            Request,
            Stderr,
            Response,
            Notification,
            Request,
            Response,
            LlmRequest,
            LlmResponse,
            Request,
            Response,
            LlmRequest,
            LlmResponse,
            Note,
            Process
        ]
    );
    assert!(d.rows.iter().all(|r| r.status == Status::Ok), "{d:#?}");
    assert_eq!(d.direct_model_server, 0);
    // Lifeline notes sit on the server; arrows go their true way.
    let (user, host, llm, server) = (0, 1, 2, 3);
    assert_eq!((d.rows[1].from(), d.rows[1].to()), (server, server));
    assert_eq!((d.rows[3].from(), d.rows[3].to()), (server, server));
    assert_eq!((d.rows[0].from(), d.rows[0].to()), (user, host));
    assert_eq!((d.rows[2].from(), d.rows[2].to()), (host, server));
    assert_eq!((d.rows[9].from(), d.rows[9].to()), (llm, host));
    assert_eq!((d.rows[14].from(), d.rows[14].to()), (host, user));
    // Offsets, latency, details.
    assert_eq!(d.rows[4].offset_us, 16_000);
    assert_eq!(d.rows[4].detail(), Some("14 ms, id 0"));
    assert_eq!(d.rows[1].detail(), Some("pid 42"));
    assert_eq!(
        d.rows[10].detail(),
        Some("id 2, model call toolu_1 from #9")
    );
    assert_eq!(
        d.rows[13].detail(),
        Some("HTTP 200, 1 ms, \"It is 15C.\\u{000a}Enjoy!\"")
    );
    assert_eq!(
        d.rows[12].detail(),
        Some("POST /v1/messages, anthropic, tools: get_weather, returns toolu_1")
    );
}

#[test]
fn weather_pairs_and_chain() {
    let d = weather().diagram();
    let pairs: Vec<(usize, usize)> = d
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.pair().map(|p| (i, p)))
        .collect();
    assert_eq!(
        pairs,
        [
            (2, 4),
            (4, 2),
            (6, 7),
            (7, 6),
            (8, 9),
            (9, 8),
            (10, 11),
            (11, 10),
            (12, 13),
            (13, 12)
        ]
    );
    for r in [9, 10, 11, 12] {
        assert_eq!(d.rows[r].chain, [9, 10, 11, 12], "row {r}");
    }
    assert!(d.rows[8].chain.is_empty());
    assert_eq!(d.row_of_event(10), Some(10));
    assert_eq!(d.row_of_event(99), None);
    assert_eq!(d.llm_lane(), Some(2));
    assert_eq!(d.server_lanes(), [3]);
    assert_eq!(d.lane_index(&Lane::server("weather")), Some(3));
}

#[test]
fn tool_call_label_names_the_shape_word() {
    let mut t = Trace::default();
    t.llm_request(
        0,
        "https://api.openai.com/v1/responses?x=1",
        json!({"model":"m","input":"hi","tools":[{"type":"function","name":"get_weather","parameters":{}}]}),
    );
    t.llm_response(
        5,
        200,
        json!({"status":"completed","output":[{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{}"}]}),
    );
    t.llm_request(
        6,
        "http://localhost:11434/v1/chat/completions",
        json!({"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"a","parameters":{}}},{"type":"function","function":{"name":"b","parameters":{}}}]}),
    );
    t.llm_response(
        9,
        200,
        json!({"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"c2","type":"function","function":{"name":"a","arguments":"{}"}},
            {"id":"c3","type":"function","function":{"name":"b","arguments":"{}"}}]}}]}),
    );
    t.llm_request(10, MESSAGES, json!({"model":"m","messages":[]}));
    t.llm_response(
        11,
        429,
        json!({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}),
    );
    t.llm_request(12, MESSAGES, json!({"model":"m","messages":[]}));
    t.llm_response(13, 200, json!({"nonsense":true}));
    t.llm_request(14, MESSAGES, json!({"model":"m","messages":[]}));
    let d = t.diagram();
    assert_eq!(
        labels(&d),
        [
            "request · tools: get_weather",
            "function_call get_weather",
            "request · tools: a, b",
            "tool_calls a, b",
            "request · no tools",
            "HTTP 429",
            "request · no tools",
            "unreadable response",
            "request · no tools",
        ]
    );
    // Calls the host never sent anywhere are a problem; so are failures and unread bodies.
    assert_eq!(d.rows[1].status, Status::Problem);
    assert!(d.problem(1).is_some_and(|p| p.contains("never sent")));
    assert!(
        d.rows[3]
            .text
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("a (c2)"))
    );
    assert_eq!(d.problem(2), None);
    assert_eq!(d.rows[5].status, Status::Error);
    assert_eq!(d.rows[7].status, Status::Problem);
    assert_eq!(d.rows[8].status, Status::Unanswered);
    assert_eq!(d.rows[8].pair(), None);
    // No user or server events, but LLM traffic: User, Host and LLM lanes all the same.
    let titles: Vec<&str> = d.lanes.iter().map(|l| l.title.as_str()).collect();
    assert_eq!(titles, ["User", "Host", "LLM API"]);
}

/// What a row says of itself is said in the reader's language: why a line is invalid (the
/// JSON reader's own complaint quoted in the detail), a label with nothing to show, an LLM
/// message that pairs with no request. An HTTP status is the wire's, the same in each.
#[test]
fn a_rows_own_words_are_the_readers() {
    use crate::i18n::Language;
    let mut t = Trace::default();
    t.push(0, "server:w", "host", Channel::Stdio, "debug: hello");
    t.rpc(1, "host", "server:w", json!({"jsonrpc":"2.0","method":" "}));
    t.llm_response(2, 200, json!({"id":"x"}));
    t.llm_request(3, MESSAGES, json!({"model":"m","messages":[]}));
    t.llm_response(4, 429, json!({"type":"error"}));
    let report = report(&t.0);
    let d = build(&t.0, &report);
    let said = |lang| {
        (0..d.rows.len())
            .map(|i| d.text(&t.0, &report, i, lang).label)
            .collect::<Vec<_>>()
    };
    let json_says = d.text(&t.0, &report, 0, Language::Pt).detail;
    assert!(
        json_says.is_some_and(|s| s.contains("“expected value at line 1 column 1”")),
        "the JSON reader's words, quoted"
    );
    let lone = r#"{"id":"x"}"#;
    assert_eq!(
        said(Language::En),
        [
            "invalid: not JSON".to_string(),
            "(empty)".into(),
            format!("llm-http: {lone}"),
            "request · no tools".into(),
            "HTTP 429".into(),
        ]
    );
    assert_eq!(
        said(Language::Pt),
        [
            "inválida: não é JSON".to_string(),
            "(vazio)".into(),
            format!("API do LLM: {lone}"),
            "requisição · sem ferramentas".into(),
            "HTTP 429".into(),
        ]
    );
    assert_eq!(
        said(Language::Es),
        [
            "no válido: no es JSON".to_string(),
            "(vacío)".into(),
            format!("API del LLM: {lone}"),
            "solicitud · sin herramientas".into(),
            "HTTP 429".into(),
        ]
    );
}

/// An invalid row's label says why in a few words and its detail the rest (a batch's rule,
/// what a request and a response hold), each part whole: never a sentence cut at its first
/// `(`, which once put half of "neither a request (`method`) nor …" in each.
#[test]
fn an_invalid_rows_reason_is_whole_in_its_label() {
    use crate::i18n::Language;
    let mut t = Trace::default();
    t.rpc(0, "host", "server:w", json!({"jsonrpc":"2.0","id":1}));
    t.rpc(1, "host", "server:w", json!({"id":2,"method":"ping"}));
    t.rpc(
        2,
        "host",
        "server:w",
        json!([{"jsonrpc":"2.0","method":"a"}, {"jsonrpc":"2.0","method":"b"}]),
    );
    let report = report(&t.0);
    let d = build(&t.0, &report);
    let row = |i| d.text(&t.0, &report, i, Language::En);
    assert_eq!(row(0).label, "invalid: neither a request nor a response");
    assert_eq!(row(1).label, "invalid: JSON, but not JSON-RPC 2.0");
    let detail = row(0).detail.unwrap_or_default();
    assert!(
        detail.contains("a request has `method`, a response `result` or `error`"),
        "{detail}"
    );
    assert_eq!(row(2).label, "invalid: a JSON-RPC batch of 2 messages");
    let detail = row(2).detail.unwrap_or_default();
    assert!(
        detail.contains("batches were allowed only in MCP 2025-03-26"),
        "{detail}"
    );
    let pt = d
        .text(&t.0, &report, 2, Language::Pt)
        .detail
        .unwrap_or_default();
    assert!(pt.contains("lotes só eram permitidos"), "{pt}");
}

mod proxy;

#[test]
fn a_row_is_small_and_gives_back_what_it_was_given() {
    assert_eq!(
        std::mem::size_of::<Row>(),
        20,
        "one per event: keep it small"
    );
    let mut row = Row::new(1_000_000, 3, 3, Style::Note, Status::Ok);
    assert_eq!(
        (row.event(), row.from(), row.to(), row.pair()),
        (1_000_000, 3, 3, None)
    );
    assert!(!row.is_arrow());
    row.set_pair(Some(0));
    assert_eq!(row.pair(), Some(0));
    row.set_pair(Some(4_000_000_000));
    assert_eq!(row.pair(), Some(4_000_000_000));
    row.set_pair(None);
    assert_eq!(row.pair(), None);
}

mod hops;
