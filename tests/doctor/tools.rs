//! Tool-level codes: names, duplicates, schemas, provider limits, stale lists, what the host
//! filtered.

use super::*;

#[test]
fn invisible_tool_names_are_rejected_with_the_hosts_note_as_evidence() {
    let d = doctor(&["scenarios/invisible-tool.toml"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("weather.lookup");
    d.expect(t, "name-rejected", |_, i| {
        d.is_note(i, "host drops tool `weather.lookup`")
    });
    assert_eq!(t["visible"], false);
    let detail = t["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Anthropic and OpenAI"),
        "says which provider allows what: {detail}"
    );
    d.expect(d.tool("get forecast"), "name-rejected", |_, i| {
        d.is_note(i, "host drops tool `get forecast`")
    });
    let t = d.tool("get_time");
    d.expect(t, "visible-not-called", |_, i| d.is_llm_request(i));
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("not a visibility problem")
    );
    assert_eq!(d.server("oddnames")["visible"], 1);
}

/// The same server in front of a Gemini host: Gemini takes `.` in a function name, so
/// `weather.lookup` is sent and called; a space is still refused, and the detail says
/// Gemini's rule, not Anthropic's and OpenAI's.
#[test]
fn a_gemini_host_sends_a_dotted_name_and_says_its_own_rule() {
    let d = doctor(&["scenarios/invisible-tool.toml", "--provider", "gemini"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("weather.lookup");
    d.expect(t, "visible-called", |_, i| {
        d.kind(i) == Kind::Request && d.method(i) == Some("tools/call")
    });
    assert_eq!(t["visible"], true);
    let spaced = d.tool("get forecast");
    d.expect(spaced, "name-rejected", |_, i| {
        d.is_note(i, "host drops tool `get forecast`")
    });
    let detail = spaced["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Gemini accepts only a letter or `_` first")
            && !detail.contains("Anthropic"),
        "{detail}"
    );
    assert!(
        detail.contains("^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"),
        "{detail}"
    );
    // The LLM requests are Gemini's: declarations inside their tool object.
    let request = d
        .events
        .iter()
        .find(|e| e.channel == sightline::trace::Channel::LlmHttp && e.from == Lane::Host)
        .expect("an LLM request");
    let url = request
        .http()
        .and_then(|h| h.url.as_deref())
        .unwrap_or_default();
    assert!(
        url.ends_with("/v1beta/models/scripted:generateContent"),
        "{url}"
    );
    let body: serde_json::Value = serde_json::from_str(&request.text()).expect("JSON");
    let names: Vec<&str> = body["tools"][0]["functionDeclarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(names.contains(&"weather.lookup"), "{names:?}");
}

#[test]
fn a_visible_tool_the_model_called_points_at_its_tools_call() {
    let d = doctor(&["scenarios/weather.toml", "--expect", "get_weather"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    let t = d.tool("get_weather");
    d.expect(t, "visible-called", |_, i| {
        d.kind(i) == Kind::Request && d.method(i) == Some("tools/call")
    });
    assert_eq!(t["visible"], true);
    assert_eq!(t["expected"], true);
}

#[test]
fn two_servers_one_name_is_a_duplicate_renamed_or_dropped() {
    // Shipped: the host prefixes both; both visible, renamed.
    let d = doctor(&["scenarios/two-servers.toml"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    for server in ["weather", "forecast"] {
        let t = d
            .records
            .iter()
            .find(|r| r["tool"] == "get_weather" && r["server"] == server)
            .unwrap_or_else(|| panic!("no get_weather of {server}:\n{}", d.describe()));
        d.expect(t, "duplicate-name", |_, i| {
            d.is_note(
                i,
                &format!("host shows tool `get_weather` of server `{server}`"),
            )
        });
        assert_eq!(t["visible"], true);
        assert!(
            t["detail"]
                .as_str()
                .unwrap_or_default()
                .contains(&format!("{server}__get_weather"))
        );
    }

    // prefix = "never": the second server's tool is dropped.
    let dir = util::tempdir();
    let never = variant(
        dir.path(),
        "scenarios/two-servers.toml",
        "host",
        "prefix",
        "never".into(),
    );
    let d = doctor(&[never.to_str().expect("utf-8 path")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let dropped = d
        .records
        .iter()
        .find(|r| r["tool"] == "get_weather" && r["server"] == "forecast")
        .expect("forecast/get_weather");
    d.expect(dropped, "duplicate-name", |_, i| {
        d.is_note(i, "host drops tool `get_weather` of server `forecast`")
    });
    assert_eq!(dropped["visible"], false);
    let kept = d
        .records
        .iter()
        .find(|r| r["tool"] == "get_weather" && r["server"] == "weather")
        .expect("weather/get_weather");
    assert_eq!(kept["visible"], true, "{kept}");
}

#[test]
fn schemas_that_are_not_objects_or_not_json_schema() {
    let d = probe("schemas.py", &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let listing =
        |_: &Event, i: usize| d.kind(i) == Kind::Response && d.method(i) == Some("tools/list");
    d.expect(d.tool("string_schema"), "schema-not-object", listing);
    d.expect(d.tool("no_schema"), "schema-not-object", listing);
    let t = d.tool("bad_type");
    d.expect(t, "schema-invalid", listing);
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("/properties/a/type"),
        "points into the schema: {t}"
    );
    d.expect(d.tool("get_weather"), "visible-not-called", listing);
    // Anthropic documents no description limit.
    assert_eq!(d.tool("long_description")["code"], "visible-not-called");
}

#[test]
fn openai_limits_tool_count_and_description_length() {
    let d = probe("many_tools.py", &["--provider", "openai"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let tools: Vec<&Value> = d.records.iter().filter(|r| r["record"] == "tool").collect();
    assert_eq!(tools.len(), 130);
    for t in &tools {
        d.expect(t, "provider-limit", |_, i| {
            d.kind(i) == Kind::Response && d.method(i) == Some("tools/list")
        });
    }
    assert!(
        tools[0]["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("128")
    );
    let d = probe("many_tools.py", &["--provider", "anthropic"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());

    let d = probe("schemas.py", &["--provider", "openai-chat"]);
    let t = d.tool("long_description");
    d.expect(t, "provider-limit", |_, i| {
        d.method(i) == Some("tools/list")
    });
    assert!(t["detail"].as_str().unwrap_or_default().contains("1024"));
}

#[test]
fn list_changed_without_a_new_list_is_stale() {
    let dir = util::tempdir();
    let stale = variant(
        dir.path(),
        "scenarios/list-changed.toml",
        "host",
        "refetch_on_list_changed",
        false.into(),
    );
    let d = doctor(&[stale.to_str().expect("utf-8"), "--expect", "bonus_fact"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let is_list_changed = |_: &Event, i: usize| {
        d.kind(i) == Kind::Notification && d.method(i) == Some("notifications/tools/list_changed")
    };
    let s = d.server("tour");
    d.expect(s, "stale-list", is_list_changed);
    let t = d.tool("bonus_fact");
    d.expect(t, "stale-list", is_list_changed);
    assert_eq!(t["visible"], false);
    assert_eq!(d.tool("unlock_bonus")["code"], "visible-called");

    // The shipped scenario lists again: nothing is stale, and bonus_fact is visible.
    let d = doctor(&["scenarios/list-changed.toml", "--expect", "bonus_fact"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.tool("bonus_fact")["code"], "visible-called");
    assert_eq!(d.server("tour")["code"], Value::Null);
}

#[test]
fn a_denied_tool_is_filtered_by_the_host() {
    let dir = util::tempdir();
    let deny = variant(
        dir.path(),
        "scenarios/weather.toml",
        "host",
        "deny",
        toml::Value::Array(vec!["get_weather".into()]),
    );
    let d = doctor(&[deny.to_str().expect("utf-8")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("get_weather");
    d.expect(t, "host-filtered", |_, i| d.is_note(i, "`deny`"));
    assert_eq!(t["visible"], false);
}

#[test]
fn an_all_or_nothing_host_drops_the_whole_server() {
    let dir = util::tempdir();
    let all_or_nothing = variant(
        dir.path(),
        "scenarios/invisible-tool.toml",
        "host",
        "on_invalid_tool",
        "drop-server".into(),
    );
    let d = doctor(&[all_or_nothing.to_str().expect("utf-8")]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("get_time");
    d.expect(t, "server-dropped", |_, i| {
        d.is_note(i, "host drops tool `get_time`") && d.is_note(i, "all or nothing")
    });
    assert!(
        t["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("weather.lookup")
    );
    assert_eq!(d.tool("weather.lookup")["code"], "name-rejected");
    assert_eq!(d.server("oddnames")["visible"], 0);
}

#[test]
fn an_expected_tool_nobody_listed() {
    let d = doctor(&[
        "--expect",
        "nope",
        "--",
        util::bin(),
        "demo-server",
        "weather",
    ]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("nope");
    d.expect(t, "expected-not-listed", |_, i| {
        d.kind(i) == Kind::Response && d.method(i) == Some("tools/list")
    });
    assert_eq!(t["server"], Value::Null);
    let t = d.tool("get_weather");
    d.expect(t, "visible-not-called", |_, i| {
        d.method(i) == Some("tools/list")
    });
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("would be sent")
    );

    // Without the expectation, everything would be visible.
    let d = doctor(&["--", util::bin(), "demo-server", "weather"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
}
