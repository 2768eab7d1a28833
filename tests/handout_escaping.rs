//! A handout is meant to be published (MkDocs, pandoc, wikis render the raw HTML in Markdown):
//! text a server chose (a stderr line, a tool name, its command line in the title) never
//! becomes the page's HTML, never opens or closes a code fence, and the HTML handout says by
//! its Content-Security-Policy that it loads nothing (issue 37, item 7). The trace is recorded
//! by the stdio proxy from a hostile Python server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::util::*;

const HOSTILE: &str =
    "<img src=x onerror=alert(1)>\n```\n# injected heading\n<script>alert(2)</script>";

/// Writes `HOSTILE`'s lines on stderr, then answers each request with a result naming it.
const SERVER: &str = r#"
import json, sys
sys.stderr.write("<img src=x onerror=alert(1)>\n```\n# injected heading\n")
sys.stderr.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "<b>x</b>", "version": "1"},
            "content": [{"type": "text", "text": "```\n<img src=y onerror=alert(3)>"}]}}), flush=True)
"#;

fn hostile_trace(dir: &Path) -> PathBuf {
    let trace = dir.join("hostile.jsonl");
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": HOSTILE, "arguments": {}}});
    let input = format!(
        "{}\n{}\n{call}\n",
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let o = run_with_input(
        Command::new(bin())
            .args(["proxy", "--name", "hostile", "--trace"])
            .arg(&trace)
            .args([
                "--",
                "python3",
                "-u",
                "-c",
                SERVER,
                "<img src=z onerror=alert(4)>",
            ]),
        input.as_bytes(),
        Duration::from_secs(30),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    trace
}

/// The lines of a Markdown document outside its fenced code blocks (CommonMark: a fence of
/// N backticks is closed by a line of at least N backticks and nothing else).
fn outside_fences(md: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for line in md.lines() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            None => out.push(line),
            Some(n) if ticks >= n && line.trim_start_matches('`').trim().is_empty() => open = None,
            Some(_) => {}
        }
    }
    assert!(open.is_none(), "a fence is never closed");
    out
}

#[test]
fn the_markdown_handout_escapes_every_text_a_server_chose() {
    let dir = tempdir();
    let trace = hostile_trace(dir.path());
    let o = export(&trace, "handout", &["--md", "--lang", "en"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let md = text(&o.stdout);
    let prose = outside_fences(&md);
    for line in &prose {
        assert!(
            !line.contains('<'),
            "raw HTML outside a code block: {line:?}\n{md}"
        );
        assert!(
            !line.starts_with("# injected"),
            "a server's text became a heading: {line:?}"
        );
    }
    // Every step is there: nothing swallowed the rest of the document.
    assert!(
        prose.iter().any(|l| l.contains("tools/call")),
        "the call's step is outside any fence:\n{md}"
    );
    assert!(
        prose.last().is_some_and(|l| l.contains("events")),
        "the footer is outside any fence:\n{md}"
    );
    // What was recorded is still shown: the raw messages are inside code blocks.
    assert!(md.contains("<img src=y onerror=alert(3)>"), "{md}");
}

#[test]
fn the_html_handout_forbids_loading_anything() {
    let dir = tempdir();
    let trace = hostile_trace(dir.path());
    let o = export(&trace, "handout", &["--lang", "en"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let html = text(&o.stdout);
    let head = html.split("</head>").next().unwrap_or("");
    assert!(
        head.contains(r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none';"#),
        "{head}"
    );
    assert!(!html.contains("<img"), "raw HTML from the server");
    assert!(!html.contains("<script"), "raw HTML from the server");
}
