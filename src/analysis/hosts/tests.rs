use super::*;

/// Every table parses, every id is unique and findable, and every rule has a source, a date
/// and a note: a rule without its source cannot be checked or updated.
#[test]
fn every_profile_loads_and_every_rule_has_a_source() {
    let all = load().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all.len(), SOURCES.len());
    assert_eq!(profiles().len(), SOURCES.len(), "profiles() keeps them all");
    for ((file, text), p) in SOURCES.iter().zip(&all) {
        assert_eq!(p.id, *file, "the file is named after the id");
        assert_eq!(find(&p.id).map(|f| &f.id), Some(&p.id));
        assert_eq!(find(&p.name.to_uppercase()).map(|f| &f.id), Some(&p.id));
        for (rule, note, source, date, _) in p.rules() {
            assert!(!source.trim().is_empty(), "{file}: {rule} has no source");
            assert!(!note.trim().is_empty(), "{file}: {rule} has no note");
            assert!(
                date.len() >= 4 && date[..4].parse::<u16>().is_ok(),
                "{file}: {rule} date {date:?}"
            );
        }
        // Every table of the file is a rule read above: none is silently ignored.
        let raw: toml::Table = toml::from_str(text).unwrap_or_default();
        let tables: usize = raw
            .values()
            .map(|v| match v {
                toml::Value::Table(_) => 1,
                toml::Value::Array(a) => a.iter().filter(|x| x.is_table()).count(),
                _ => 0,
            })
            .sum();
        assert_eq!(
            tables,
            p.rules().len(),
            "{file}: a table the profile does not read"
        );
    }
    let mut ids = ids();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), SOURCES.len(), "ids are unique");
}

/// A rule key the profile does not know is refused, not ignored.
#[test]
fn a_misspelt_rule_is_an_error() {
    let text = SOURCES[0].1.replace("[tool_cap]", "[tool_caps]");
    assert!(toml::from_str::<Profile>(&text).is_err());
}

/// Each host's name for one tool comes from its naming scheme (one home:
/// `wire::offered::naming`).
#[test]
fn each_host_names_a_tool_by_its_scheme() {
    let name = |id: &str, server: &str, tool: &str| {
        find(id)
            .map(|p| p.model_name(server, tool))
            .unwrap_or_default()
    };
    assert_eq!(
        name("claude-code", "weather", "get.x"),
        "mcp__weather__get_x"
    );
    assert_eq!(name("claude-desktop", "weather", "get.x"), "get.x");
    assert_eq!(name("gemini-cli", "weather", "get.x"), "mcp_weather_get.x");
    assert_eq!(
        name("vscode", "My Weather", "get.x"),
        "mcp_my_weather_get_x"
    );
    let long = "a".repeat(60);
    assert_eq!(name("codex", "weather", &long).len(), 64);
    assert_eq!(name("vscode", "weather", &long).len(), 64);
}

#[test]
fn claude_desktops_name_characters() {
    let chars = NameChars {
        allowed: "A-Za-z0-9_-".into(),
        max: 64,
        past: Past::WithholdServer,
    };
    assert_eq!(chars.first_bad("get_time-2"), None);
    assert_eq!(chars.first_bad("weather.lookup"), Some((7, '.')));
    assert_eq!(chars.first_bad("get forecast"), Some((3, ' ')));
}

#[test]
fn every_host_says_where_its_config_lives() {
    use std::path::Path;
    for profile in profiles() {
        let config = profile
            .config
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no [config]", profile.id));
        assert!(!config.rule.paths.is_empty(), "{}", profile.id);
    }
    let files = |id: &str, home: &str, config: &str| {
        find(id)
            .and_then(|p| p.config.as_ref())
            .map(|c| c.rule.expand(Path::new(home), Path::new(config)))
            .unwrap_or_default()
    };
    // The same table on each system: only the bases differ.
    assert_eq!(
        files(
            "claude-desktop",
            "/Users/ana",
            "/Users/ana/Library/Application Support"
        ),
        [Path::new(
            "/Users/ana/Library/Application Support/Claude/claude_desktop_config.json"
        )]
    );
    assert_eq!(
        files("claude-desktop", "/home/ana", "/home/ana/.config"),
        [Path::new(
            "/home/ana/.config/Claude/claude_desktop_config.json"
        )]
    );
    assert_eq!(
        files("cursor", "/home/ana", "/home/ana/.config"),
        [
            Path::new(".cursor/mcp.json"),
            Path::new("/home/ana/.cursor/mcp.json")
        ]
    );
    assert_eq!(
        files("codex", "/home/ana", "/x"),
        [Path::new("/home/ana/.codex/config.toml")]
    );
}

/// VS Code names the servers together, in the order it starts them: a second server whose
/// label (its announced name, else its config key) collides gets `2` in its prefix, cut one
/// character more so the prefix stays at most 18; others keep theirs.
#[test]
fn vscode_numbers_a_prefix_another_server_took_first() {
    use crate::wire::offered::naming::Named;
    let Some(vscode) = find("vscode") else {
        panic!("no vscode profile");
    };
    let servers = [
        Named {
            server: "weather",
            announced: Some("weather"),
        },
        Named {
            server: "weather-eu",
            announced: Some("weather"),
        },
        Named {
            server: "forecast",
            announced: None,
        },
        Named {
            server: "Weather Service Europe",
            announced: None,
        },
        Named {
            server: "Weather service US",
            announced: None,
        },
    ];
    let pass = vscode.pass(&servers);
    let names: Vec<String> = servers
        .iter()
        .map(|s| pass.model_name(s.server, "get.weather"))
        .collect();
    assert_eq!(
        names,
        [
            "mcp_weather_get_weather",
            "mcp_weather2_get_weather",
            "mcp_forecast_get_weather",
            "mcp_weather_servi_get_weather",
            "mcp_weather_serv2_get_weather",
        ]
    );
    assert_eq!(pass.numbered("weather"), None);
    assert_eq!(
        pass.numbered("weather-eu"),
        Some(("mcp_weather2_", "weather"))
    );
    assert_eq!(
        pass.numbered("Weather service US"),
        Some(("mcp_weather_serv2_", "Weather Service Europe"))
    );
    assert!(
        names
            .iter()
            .all(|n| n.find("_get").is_some_and(|at| at <= 18))
    );
    // Other hosts name each server on its own.
    let Some(codex) = find("codex") else {
        panic!("no codex profile");
    };
    let pass = codex.pass(&servers);
    assert_eq!(
        pass.model_name("weather-eu", "get_weather"),
        "mcp__weather-eu__get_weather"
    );
    assert_eq!(pass.numbered("weather-eu"), None);
}

/// Claude Code's pagination rule depends on its version: before 2.1.144 it reads one page;
/// without a version the answer is not known.
#[test]
fn claude_codes_pagination_by_version() {
    let Some(rule) = find("claude-code").and_then(|p| p.pagination.as_ref()) else {
        panic!("claude-code has no pagination rule");
    };
    let one = |v: Option<&str>| rule.rule.first_page_only(v);
    assert_eq!(one(Some("2.1.100")), Some(true));
    assert_eq!(one(Some("2.1.99")), Some(true));
    assert_eq!(one(Some("2.1.144")), Some(false));
    assert_eq!(one(Some("2.1.328")), Some(false));
    assert_eq!(one(Some("2.2.0-beta.1")), Some(false));
    assert_eq!(one(Some("next")), None);
    assert_eq!(one(None), None);
}
