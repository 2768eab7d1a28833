//! Host profiles: each host's rules predicted on the demo servers built to trip them
//! (`hostrules`, `crowd`), run through the real tap (`doctor --host H -- sightline
//! demo-server ...`), and the host recognised in a real host's recorded session.

use super::*;

/// `doctor --host H --json -- sightline demo-server SERVER ARGS...`, the server named SERVER.
fn by_host(host: &str, server: &str, extra: &[&str], server_args: &[&str]) -> Doctor {
    let mut args = vec!["--host", host, "--name", server];
    args.extend(extra);
    args.extend(["--", util::bin(), "demo-server", server]);
    args.extend(server_args);
    doctor(&args)
}

fn is_tools_list_result(d: &Doctor, i: usize) -> bool {
    d.kind(i) == Kind::Response && d.method(i) == Some("tools/list")
}

/// The table of tools by hosts: each cell is the code the host's rules give, from the
/// profile's data; every host column is there.
#[test]
fn the_table_of_tools_by_hosts_gives_each_hosts_code() {
    let d = by_host("all", "hostrules", &[], &[]);
    assert_eq!(
        d.status,
        Some(1),
        "a tool is hidden somewhere\n{}",
        d.describe()
    );
    let m = &d.records[0];
    let hosts: Vec<&str> = m["hosts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        hosts,
        [
            "claude-code",
            "claude-desktop",
            "cursor",
            "vscode",
            "codex",
            "gemini-cli",
            "windsurf"
        ]
    );
    let row = |tool: &str| -> Vec<String> {
        let r = m["rows"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["tool"] == tool))
            .unwrap_or_else(|| panic!("no row {tool}: {m}"));
        r["codes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c.as_str().unwrap_or_default().to_string())
            .collect()
    };
    let long = "summarize_pull_request_review_comments_grouped_by_author";
    let want: [(&str, [&str; 7]); 4] = [
        // Claude Code drops the server for find_place's top-level anyOf; Claude Desktop
        // withholds it for the dot.
        (
            "get_time",
            [
                "server-dropped",
                "server-dropped",
                "visible-not-called",
                "visible-not-called",
                "visible-not-called",
                "visible-not-called",
                "visible-not-called",
            ],
        ),
        (
            "files.read",
            [
                "server-dropped",
                "name-rejected",
                "name-rejected",
                "renamed-by-host",
                "renamed-by-host",
                "visible-not-called",
                "name-rejected",
            ],
        ),
        (
            long,
            [
                "server-dropped",
                "server-dropped",
                "name-rejected",
                "renamed-by-host",
                "renamed-by-host",
                "renamed-by-host",
                "visible-not-called",
            ],
        ),
        (
            "tag_items",
            [
                "server-dropped",
                "server-dropped",
                "visible-not-called",
                "schema-refused",
                "visible-not-called",
                "visible-not-called",
                "visible-not-called",
            ],
        ),
    ];
    for (tool, codes) in want {
        assert_eq!(row(tool), codes, "{tool}");
    }
    assert_eq!(row("find_place")[0], "schema-refused");
}

/// Claude Desktop: one dotted name withholds the whole server. The bad tool is
/// `name-rejected`, the others `server-dropped` naming it; the rule's source and its
/// confidence (medium) are said; the evidence is the `tools/list` result.
#[test]
fn claude_desktop_withholds_a_server_for_one_dotted_name() {
    let d = by_host("claude-desktop", "hostrules", &[], &[]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let bad = d.tool("files.read");
    d.expect(bad, "name-rejected", |_, i| is_tools_list_result(&d, i));
    let detail = bad["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Claude Desktop")
            && detail.contains("evoila/meho#2745")
            && detail.contains("confidence medium"),
        "{detail}"
    );
    assert_eq!(bad["host_name"], "files.read");
    let other = d.tool("get_time");
    d.expect(other, "server-dropped", |_, i| is_tools_list_result(&d, i));
    assert!(
        other["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("files.read")
    );
    let host = d
        .records
        .iter()
        .find(|r| r["record"] == "host")
        .expect("a host record");
    assert_eq!(host["id"], "claude-desktop");
}

/// VS Code cuts a long name to 64 and renames a dot; its draft-07 validator leaves out an
/// array without `items`, that tool only.
#[test]
fn vscode_renames_cuts_and_refuses_one_schema() {
    let d = by_host("vscode", "hostrules", &[], &[]);
    let long = d.tool("summarize_pull_request_review_comments_grouped_by_author");
    d.expect(long, "renamed-by-host", |_, i| is_tools_list_result(&d, i));
    let name = long["host_name"].as_str().unwrap_or_default();
    assert_eq!(name.len(), 64, "{name}");
    assert!(name.starts_with("mcp_hostrules_summarize"), "{name}");
    assert_eq!(
        d.tool("files.read")["host_name"],
        "mcp_hostrules_files_read"
    );
    let t = d.tool("tag_items");
    d.expect(t, "schema-refused", |_, i| is_tools_list_result(&d, i));
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("/properties/tags"),
        "{t}"
    );
    assert_eq!(d.tool("get_time")["code"], "visible-not-called");
}

/// Claude Code: with the anyOf tool gone the rest is deferred (visible on demand, with
/// `alwaysLoad` as the fix), the long name fails its 64, and the 2.5 KB description is cut.
#[test]
fn claude_code_defers_cuts_descriptions_and_refuses_long_names() {
    let d = by_host("claude-code", "hostrules", &[], &[]);
    let t = d.tool("find_place");
    d.expect(t, "schema-refused", |_, i| is_tools_list_result(&d, i));
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("claude-code#88049")
    );
    // Every other tool goes with the server.
    assert_eq!(d.tool("get_time")["code"], "server-dropped");
    assert_eq!(d.tool("explain_everything")["code"], "server-dropped");
}

/// Over a host's cap: Cursor sends the first 40, Windsurf refuses the whole server past 100,
/// VS Code groups past 128 behind activation tools (still visible on demand).
#[test]
fn tool_caps_hide_drop_refuse_or_group() {
    let d = by_host("cursor", "crowd", &[], &[]);
    assert_eq!(d.tool("tool_039")["code"], "visible-not-called");
    let t = d.tool("tool_040");
    d.expect(t, "hidden-by-cap", |_, i| is_tools_list_result(&d, i));
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("confidence low"),
        "{t}"
    );
    let d = by_host("windsurf", "crowd", &[], &[]);
    assert_eq!(d.tool("tool_000")["code"], "hidden-by-cap");
    let s = d.server("crowd");
    assert_eq!(s["visible"], 0);
    // The refusal is the server's: said on it, with the listing that proves it.
    assert_eq!(s["code"], "server-dropped", "{s}");
    d.expect(s, "server-dropped", |_, i| is_tools_list_result(&d, i));
    let d = by_host("vscode", "crowd", &[], &[]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.tool("tool_129")["code"], "visible-on-demand");
}

/// A server that answers its handshake after Codex's 10 s startup timeout: the server and
/// each of its tools are `too-slow-to-start`, the evidence the late answer.
#[test]
fn a_slow_server_is_too_slow_for_codex() {
    let d = by_host(
        "codex",
        "hostrules",
        &["--timeout-secs", "30"],
        &["--start-delay-ms", "10500"],
    );
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("hostrules");
    assert_eq!(s["code"], "too-slow-to-start", "{s}");
    let i = d.index(&s["seq"]);
    assert!(d.kind(i) == Kind::Response && d.method(i) == Some("initialize"));
    assert_eq!(d.tool("get_time")["code"], "too-slow-to-start");
    // Gemini CLI waits 600 s: the same server is fine there.
    let t = d.tool("get_time");
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("10000 ms"),
        "{t}"
    );
}

/// The recorded Claude Code session is recognised by its `clientInfo`, said on the text's
/// second line; `--host list` names every profile.
#[test]
fn a_real_host_is_recognised_and_the_profiles_are_listed() {
    let out = util::run(
        Command::new(util::bin())
            .args(["doctor", "--lang", "en", "tests/fixtures/hosts/claude-code"])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        LIMIT,
    );
    let text = util::text(&out.stdout);
    assert!(
        text.lines().nth(1).is_some_and(
            |l| l.starts_with("host: Claude Code (recognised from clientInfo `claude-code`, #")
        ),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let out = util::run(
        Command::new(util::bin()).args(["doctor", "--host", "list"]),
        LIMIT,
    );
    let text = util::text(&out.stdout);
    for id in [
        "claude-code:",
        "claude-desktop:",
        "cursor:",
        "vscode:",
        "codex:",
        "gemini-cli:",
        "windsurf:",
    ] {
        assert!(text.lines().any(|l| l.starts_with(id)), "{id}\n{text}");
    }
    let out = util::run(
        Command::new(util::bin()).args(["doctor", "--host", "nope", "x.jsonl"]),
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(util::text(&out.stderr).contains("unknown host `nope`"));
}

/// `check --expect-visible NAME --host H` gates CI on a host's view: the same recording passes
/// for Codex, fails for Claude Desktop (the whole server withheld), and takes the name the host
/// shows (`mcp_hostrules_files_read` under VS Code).
#[test]
fn check_gates_on_one_hosts_view() {
    let d = by_host("codex", "hostrules", &[], &[]);
    let dir = util::tempdir();
    let trace = dir.path().join("hostrules.jsonl");
    write_trace(&trace, &Header::new("hostrules probe"), &d.events).expect("write trace");
    let check = |name: &str, host: &str| {
        let out = util::run(
            Command::new(util::bin()).arg("check").arg(&trace).args([
                "--expect-visible",
                name,
                "--host",
                host,
                "--lang",
                "en",
                "--fail-on",
                "error",
            ]),
            LIMIT,
        );
        (out.status.code(), util::text(&out.stdout))
    };
    let (status, text) = check("get_time", "codex");
    assert_eq!(status, Some(0), "{text}");
    let (status, text) = check("get_time", "claude-desktop");
    assert_eq!(status, Some(1), "{text}");
    assert!(
        text.contains("server-dropped") && text.contains("files.read"),
        "{text}"
    );
    let (status, text) = check("mcp_hostrules_files_read", "vscode");
    assert_eq!(status, Some(0), "{text}");
}

/// A tool added after `tools/list_changed`: Codex does not list again, so it would never reach
/// Codex's model (`stale-list`, the notification as evidence); Gemini CLI lists again.
#[test]
fn a_tool_listed_after_list_changed_is_stale_for_codex_only() {
    let d = doctor(&["scenarios/list-changed.toml", "--host", "codex"]);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("bonus_fact");
    d.expect(t, "stale-list", |_, i| {
        d.kind(i) == Kind::Notification && d.method(i) == Some("notifications/tools/list_changed")
    });
    assert!(
        t["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("openai/codex#10105")
    );
    let d = doctor(&["scenarios/list-changed.toml", "--host", "gemini-cli"]);
    assert!(d.tool("bonus_fact")["visible"] == true, "{}", d.describe());
}

/// The probe follows every page of `crowd --page-size 50`: each tool's evidence is the result
/// of its own page. With no Claude Code version recorded, a tool of page 2 or 3 stays visible
/// (on demand), its detail naming its page's result and the version that would not read it,
/// its hint the fix.
#[test]
fn claude_code_would_not_read_a_later_page_before_2_1_144() {
    let d = by_host("claude-code", "crowd", &[], &["--page-size", "50"]);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.server("crowd")["listed"], 130);
    let seq = |t: &str| d.tool(t)["seq"].as_u64().unwrap_or_default();
    let (first, second, third) = (seq("tool_049"), seq("tool_050"), seq("tool_100"));
    assert!(first < second && second < third, "{first} {second} {third}");
    assert_eq!(seq("tool_000"), first);
    for t in ["tool_049", "tool_050", "tool_129"] {
        d.expect(d.tool(t), "visible-on-demand", |_, i| {
            is_tools_list_result(&d, i)
        });
    }
    let t = d.tool("tool_050");
    let detail = t["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&format!("on page 2 of tools/list (#{second})"))
            && detail.contains("before 2.1.144")
            && detail.contains("no version of the host recorded")
            && detail.contains("changelog 2.1.144, 2026-05-19; confidence high"),
        "{t}"
    );
    let hint = t["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("upgrade Claude Code to 2.1.144"), "{t}");
    let detail = d.tool("tool_049")["detail"].as_str().unwrap_or_default();
    assert!(!detail.contains("page"), "{detail}");
    // The same listing under Codex, which has no such rule: no page said.
    let d = by_host("codex", "crowd", &[], &["--page-size", "50"]);
    let detail = d.tool("tool_050")["detail"].as_str().unwrap_or_default();
    assert!(!detail.contains("page"), "{detail}");
}

/// A TypeScript SDK client that names itself `claude-code` at VERSION lists the real paging
/// server behind the real proxy; the trace is then diagnosed with the host recognised.
fn paging_host(version: &str, all_pages: bool) -> Doctor {
    util::require_npm_peers();
    let dir = util::tempdir();
    let trace = dir.path().join("paged.jsonl");
    let mut cmd = Command::new("node");
    cmd.arg(util::peer("paging-host.mjs"))
        .args(["claude-code", version]);
    if all_pages {
        cmd.arg("--all-pages");
    }
    cmd.args(["--", util::bin(), "proxy", "--name", "crowd", "--trace"])
        .arg(&trace)
        .args([
            "--",
            util::bin(),
            "demo-server",
            "crowd",
            "--page-size",
            "50",
        ]);
    let out = util::run(&mut cmd, LIMIT);
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let want = if all_pages { 130 } else { 50 };
    assert_eq!(
        listed["tools"].as_array().map(Vec::len),
        Some(want),
        "{listed}"
    );
    let trace = trace.display().to_string();
    let mut d = doctor(&[trace.as_str(), "--lang", "en"]);
    d._dir = dir;
    d
}

/// Claude Code 2.1.100 read one page of 50 and never followed the `nextCursor`: the server's
/// verdict says so with the page's result as evidence, the version from `clientInfo`, and the
/// fix; the doctor exits 1. The same session as Claude Code 2.1.150 is not held against it.
#[test]
fn a_recorded_claude_code_before_2_1_144_read_only_the_first_page() {
    let d = paging_host("2.1.100", false);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let s = d.server("crowd");
    d.expect(s, "page-not-read", |_, i| is_tools_list_result(&d, i));
    let detail = s["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Claude Code 2.1.100 (clientInfo, #")
            && detail.contains("never followed")
            && detail.contains("(Claude Code: changelog 2.1.144, 2026-05-19"),
        "{s}"
    );
    assert!(
        s["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("upgrade Claude Code to 2.1.144 or later"),
        "{s}"
    );
    let d = paging_host("2.1.150", false);
    assert_eq!(d.status, Some(0), "{}", d.describe());
    assert_eq!(d.server("crowd")["code"], Value::Null, "{}", d.describe());
}

/// A recorded Claude Code 2.1.100 whose trace holds the later pages too (a client that read
/// them): each tool of page 2 gets `page-not-read` at its own page's result; page 1 does not.
#[test]
fn a_tool_on_a_page_the_recorded_version_does_not_read_is_not_visible() {
    let d = paging_host("2.1.100", true);
    assert_eq!(d.status, Some(1), "{}", d.describe());
    let t = d.tool("tool_050");
    d.expect(t, "page-not-read", |_, i| is_tools_list_result(&d, i));
    let second = t["seq"].as_u64().unwrap_or_default();
    let detail = t["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&format!("`tool_050` is on page 2 (#{second})"))
            && detail.contains("Claude Code 2.1.100"),
        "{t}"
    );
    assert!(d.tool("tool_049")["visible"] == true, "{}", d.describe());
    assert!(d.tool("tool_049")["seq"].as_u64() < Some(second));
}

/// VS Code names the servers of a session together. The same demo server configured twice
/// (`weather` and `weather-eu`, both announcing `weather`) gives colliding prefixes: the first
/// keeps `mcp_weather_`, the second gets `mcp_weather2_`, `renamed-by-host`, its detail naming
/// the server that took the prefix first and citing VS Code's rule. Codex, which prefixes by
/// the config's key, gives no number.
#[test]
fn vscode_numbers_the_second_server_whose_prefix_collides() {
    let dir = util::tempdir();
    let scenario = dir.path().join("twice.toml");
    let text = "title = \"The same server twice\"\nprompt = \"What's the weather in Porto?\"\n\n\
                [[servers]]\nname = \"weather\"\nbuiltin = \"weather\"\n\n\
                [[servers]]\nname = \"weather-eu\"\nbuiltin = \"weather\"\n\n\
                [[script]]\nreply = \"Fine.\"\n";
    std::fs::write(&scenario, text).expect("write the scenario");
    let path = scenario.display().to_string();
    let d = doctor(&[path.as_str(), "--host", "vscode"]);
    let of = |server: &str| {
        d.records
            .iter()
            .find(|r| r["record"] == "tool" && r["server"] == server)
            .unwrap_or_else(|| panic!("no tool of {server}:\n{}", d.describe()))
    };
    let (first, second) = (of("weather"), of("weather-eu"));
    assert_eq!(first["host_name"], "mcp_weather_get_weather", "{first}");
    assert_eq!(second["host_name"], "mcp_weather2_get_weather", "{second}");
    assert_ne!(first["code"], "renamed-by-host", "{first}");
    d.expect(second, "renamed-by-host", |_, i| {
        is_tools_list_result(&d, i)
    });
    let detail = second["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("server `weather` took that prefix first")
            && detail.contains("gets `mcp_weather2_`")
            && detail.contains("McpPrefixGenerator.take"),
        "{second}"
    );
    assert!(
        second["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("mcp_weather2_get_weather"),
        "{second}"
    );
    let d = doctor(&[path.as_str(), "--host", "codex"]);
    let second = d
        .records
        .iter()
        .find(|r| r["record"] == "tool" && r["server"] == "weather-eu")
        .unwrap_or_else(|| panic!("{}", d.describe()));
    assert_eq!(second["host_name"], "mcp__weather-eu__get_weather");
}
