//! A class that runs in Portuguese or Spanish reads no English sentence of ours: every shipped
//! scenario is run with `--lang pt` and `--lang es`, and neither what `run` prints nor the
//! handout of its trace holds one.
//!
//! "Of ours" is exact: a phrase of at least two words and eight characters from an
//! `assets/i18n/en.toml` text whose Portuguese (or Spanish) differs from it, cut at its
//! `{placeholders}` and lines, that the language's own texts never use (`host -> llm`, a term
//! a translation keeps); and the same of each shipped scenario's English prompt and scripted
//! replies where the language's differ. What the servers say (every string of every message
//! a server sent: tool results, instructions, descriptions, stderr) and the recorded bytes
//! (the handout's raw messages) are the servers' words and the wire's, not ours, and are
//! taken out before looking.
//!
//! A diagram label's own words are often one word (`result`, `error`, `returns`): each word
//! of the `label.*` texts that `lang` says otherwise is looked for, whole, in the labels of the
//! handout's Mermaid diagram, where a label written in code would keep it English.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use sightline::host::scenario::{Scenario, Text};
use sightline::host::scripted::Step;
use sightline::i18n::{Language, Strings};

use crate::util;

/// The literal phrases of `text` between its placeholders, trimmed of spaces and punctuation,
/// that hold at least two words.
fn phrases(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let (literal, after) = match rest.find('{') {
            Some(open) => {
                let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
                (&rest[..open], &rest[close..])
            }
            None => (rest, ""),
        };
        for line in literal.lines() {
            let phrase = line.trim_matches(|c: char| {
                c.is_whitespace() || c.is_ascii_punctuation() || "“”«»·–—…".contains(c)
            });
            let words = phrase
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphabetic))
                .count();
            if words >= 2 && phrase.chars().count() >= 8 {
                out.push(phrase.to_string());
            }
        }
        if after.is_empty() {
            return out;
        }
        rest = after;
    }
}

/// The scenario's texts a user or the scripted model says.
fn texts(scenario: &Scenario) -> Vec<&Text> {
    let mut all = vec![&scenario.prompt, &scenario.host.sampling_reply];
    all.extend(scenario.system.iter());
    for step in &scenario.script.steps {
        match step {
            Step::Call {
                say, if_missing, ..
            } => {
                all.extend(say.iter());
                all.extend(if_missing.iter());
            }
            Step::Reply { text, .. } => all.push(text),
        }
    }
    all
}

/// Our English phrases that `lang` says otherwise.
fn ours(lang: Language, scenarios: &[(String, Scenario)]) -> Vec<String> {
    let strings = Strings::embedded();
    let theirs: Vec<&str> = strings.keys(lang).map(|k| strings.get(lang, k)).collect();
    let mut out = Vec::new();
    for key in strings.keys(Language::En) {
        let en = strings.get(Language::En, key);
        if strings.lookup(lang, key) != Some(en) {
            let kept = phrases(en)
                .into_iter()
                .filter(|p| !theirs.iter().any(|t| t.contains(p.as_str())));
            out.extend(kept);
        }
    }
    for (_, scenario) in scenarios {
        for text in texts(scenario) {
            if text.get(lang) != text.get(Language::En) {
                out.extend(phrases(text.get(Language::En)));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The single words of our diagram labels (`label.*` texts, cut at their placeholders) that
/// `lang`'s own labels never use: `result`, `returns`, `error` (Portuguese).
fn label_words(lang: Language) -> Vec<String> {
    let strings = Strings::embedded();
    // A text's literal words: its `{placeholders}` left out.
    let literal = |text: &str| {
        let mut out = String::new();
        let mut inside = false;
        for c in text.chars() {
            match c {
                '{' => inside = true,
                '}' => inside = false,
                c if !inside => out.push(c),
                _ => {}
            }
        }
        out
    };
    let labels = |l| {
        strings
            .keys(l)
            .filter(|k| k.starts_with("label."))
            .map(|k| literal(strings.get(l, k)))
            .collect::<Vec<_>>()
    };
    let their_labels = labels(lang);
    let theirs: Vec<&str> = their_labels
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .collect();
    // A label is a few words; the longer texts are details, which the phrases check reads.
    let ours: Vec<String> = labels(Language::En)
        .into_iter()
        .filter(|t| t.split_whitespace().count() <= 3)
        .collect();
    let mut out: Vec<String> = ours
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 4 && w.chars().all(|c| c.is_ascii_lowercase()))
        .filter(|w| !theirs.contains(w))
        .map(String::from)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The labels of a handout's Mermaid diagram: what follows `: ` on each arrow or note line.
fn mermaid_labels(handout: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in handout.lines() {
        if let Some(tag) = line.strip_prefix("```") {
            inside = !inside && tag == "mermaid";
            continue;
        }
        let arrow = ["->>", "-)", "-x"].iter().any(|a| line.contains(a));
        if inside
            && (arrow || line.trim_start().starts_with("Note "))
            && let Some((_, label)) = line.split_once(": ")
        {
            out.push(label.to_string());
        }
    }
    out
}

/// The handout without its raw messages (the fenced blocks other than the Mermaid diagram).
fn without_raw(handout: &str) -> String {
    let mut out = String::new();
    // Inside a block: whether it is raw.
    let mut block: Option<bool> = None;
    for line in handout.lines() {
        if let Some(tag) = line.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(tag != "mermaid"),
            };
            continue;
        }
        if block != Some(true) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every string of every message the servers sent (and their stderr lines), longest first.
fn server_words(trace: &Path) -> Vec<String> {
    fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for event in util::load(trace).events {
        if !event.from.is_server() {
            continue;
        }
        let text = event.text();
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(value) => strings(&value, &mut out),
            Err(_) => out.push(text.into_owned()),
        }
    }
    let mut lines: Vec<String> = out
        .iter()
        .flat_map(|s| {
            s.lines()
                .map(str::trim)
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    out.append(&mut lines);
    out.retain(|s| s.chars().count() >= 8);
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// `output` with every server's words taken out.
fn ours_only(output: &str, servers: &[String]) -> String {
    servers.iter().fold(output.to_string(), |out, said| {
        out.replace(said.as_str(), " ")
    })
}

fn shipped() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut all: Vec<(String, Scenario)> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "toml").then_some(path)
        })
        .map(|path| {
            let name = path
                .file_stem()
                .expect("a stem")
                .to_string_lossy()
                .into_owned();
            let scenario = Scenario::load(&path).expect("a shipped scenario loads");
            (name, scenario)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

#[test]
fn a_portuguese_or_spanish_run_prints_no_english_sentence_of_ours() {
    let scenarios = shipped();
    let dir = util::tempdir();
    let mut found = Vec::new();
    for lang in [Language::Pt, Language::Es] {
        let ours = ours(lang, &scenarios);
        assert!(ours.len() > 500, "{} phrases of ours", ours.len());
        assert!(
            ours.iter().any(|p| p == "exited code"),
            "the diagram's words"
        );
        assert!(
            ours.iter().any(|p| p == "request · tools"),
            "the LLM rows' words"
        );
        let words = label_words(lang);
        assert!(
            words.iter().any(|w| w == "result") && words.iter().any(|w| w == "returns"),
            "a label's single words: {words:?}"
        );
        assert!(
            words.iter().any(|w| w == "invalid") && words.iter().any(|w| w == "empty"),
            "an invalid line's and an empty label's words: {words:?}"
        );
        for (name, _) in &scenarios {
            let trace = dir.path().join(format!("{name}.{}.jsonl", lang.code()));
            let run = util::run(
                Command::new(util::bin())
                    .args(["run", name, "--lang", lang.code(), "--trace"])
                    .arg(&trace)
                    .current_dir(dir.path())
                    .env_remove("ANTHROPIC_API_KEY")
                    .env_remove("OPENAI_API_KEY")
                    .env_remove("GEMINI_API_KEY")
                    .env_remove("GOOGLE_API_KEY"),
                Duration::from_secs(60),
            );
            assert!(run.status.success(), "{name}: {}", util::text(&run.stderr));
            let handout = util::export(&trace, "handout", &["--md", "--lang", lang.code()]);
            assert!(handout.status.success(), "{}", util::text(&handout.stderr));
            let servers = server_words(&trace);
            let outputs = [("stdout", util::text(&run.stdout))];
            let handout = util::text(&handout.stdout);
            let theirs = (ours.as_slice(), words.as_slice());
            look(
                &format!("{name} {}", lang.code()),
                theirs,
                &outputs,
                &handout,
                &servers,
                &mut found,
            );
        }
    }
    assert!(found.is_empty(), "English of ours:\n{}", found.join("\n"));
}

/// Looks for English of ours in what one run printed (`outputs`, each named) and in its
/// handout (`handout`, in Markdown): our phrases ([`ours`]) anywhere but in the raw messages,
/// and a label's single words ([`label_words`]) in the Mermaid diagram's labels. What a
/// server said is taken out first.
fn look(
    run: &str,
    (ours, words): (&[String], &[String]),
    outputs: &[(&str, String)],
    handout: &str,
    servers: &[String],
    found: &mut Vec<String>,
) {
    for label in mermaid_labels(handout) {
        let label = ours_only(&label, servers);
        let whole: Vec<&str> = label.split(|c: char| !c.is_alphanumeric()).collect();
        for word in words.iter().filter(|w| whole.contains(&w.as_str())) {
            found.push(format!("{run} diagram: {word:?} in {label:?}"));
        }
    }
    let handout = ("handout", without_raw(handout));
    for (what, output) in outputs.iter().chain([&handout]) {
        let output = ours_only(output, servers);
        for phrase in ours.iter().filter(|p| output.contains(p.as_str())) {
            let line = output.lines().find(|l| l.contains(phrase.as_str()));
            found.push(format!(
                "{run} {what}: {phrase:?} in {:?}",
                line.unwrap_or_default()
            ));
        }
    }
}

/// A server that writes lines that are not JSON-RPC (`tests/peers/misbehave.py`: `debug:
/// listing tools`, `{"hello": "world"}`, bytes that are not UTF-8), behind a real proxy, and
/// a client that sends notifications whose method is empty or blank (a row with no label)
/// and a line too long for a line of `summary`: the PT and ES `summary` and handout say why
/// each line is invalid, that a label is empty and how long a cut line was in the class's
/// language, where the English says `invalid: not JSON`, `(empty)` and `(168 chars)`.
#[test]
fn an_invalid_line_and_an_empty_label_are_said_in_the_class_language() {
    let dir = util::tempdir();
    let trace = dir.path().join("misbehave.jsonl");
    let client = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":""}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":" "}"#,
        "\n",
    )
    .to_string()
        // A line too long for a summary line: its preview says how long it was.
        + &"x".repeat(168)
        + "\n";
    let proxy = util::run_with_input(
        Command::new(util::bin())
            .arg("proxy")
            .arg("--trace")
            .arg(&trace)
            .args(["--", "python3", &util::peer("misbehave.py")]),
        client.as_bytes(),
        Duration::from_secs(60),
    );
    assert!(proxy.status.success(), "{}", util::text(&proxy.stderr));
    let servers = server_words(&trace);
    let said = |lang: Language| {
        let summary = util::run(
            Command::new(util::bin())
                .arg("summary")
                .arg(&trace)
                .args(["--lang", lang.code()]),
            Duration::from_secs(60),
        );
        assert!(summary.status.success(), "{}", util::text(&summary.stderr));
        let handout = util::export(&trace, "handout", &["--md", "--lang", lang.code()]);
        assert!(handout.status.success(), "{}", util::text(&handout.stderr));
        (util::text(&summary.stdout), util::text(&handout.stdout))
    };
    // The trace holds what the test is about, as English says it.
    let (summary, handout) = said(Language::En);
    let labels = mermaid_labels(&handout).join("\n");
    for english in ["invalid: not JSON", "invalid: not UTF-8 text", "(empty)"] {
        assert!(labels.contains(english), "{english}: {labels}");
    }
    assert!(summary.contains("!! invalid: not JSON ("), "{summary}");
    assert!(summary.contains(" (168 chars)"), "{summary}");
    let mut found = Vec::new();
    for lang in [Language::Pt, Language::Es] {
        let (summary, handout) = said(lang);
        let run = format!("misbehave {}", lang.code());
        if !summary.contains(" (168 caracteres)") {
            found.push(format!("{run} summary: a cut preview's length not said"));
        }
        let ours = ours(lang, &shipped());
        let words = label_words(lang);
        look(
            &run,
            (&ours, &words),
            &[("summary", summary)],
            &handout,
            &servers,
            &mut found,
        );
    }
    assert!(found.is_empty(), "English of ours:\n{}", found.join("\n"));
}

#[test]
fn mermaid_labels_are_read_from_arrows_and_notes() {
    let handout = "text: not this\n```mermaid\nsequenceDiagram\n    H->>S1: tools/call get_weather\n    S1-->>H: result tools/call\n    Note over H: spawned x\n```\nH->>S1: outside";
    assert_eq!(
        mermaid_labels(handout),
        ["tools/call get_weather", "result tools/call", "spawned x"]
    );
}

#[test]
fn phrases_are_cut_at_placeholders_and_need_two_words() {
    assert_eq!(phrases("exited code {code}"), ["exited code"]);
    assert_eq!(
        phrases("Right now it is {result}. Done, {n:one|other} left"),
        ["Right now it is"]
    );
    assert!(phrases("stderr: {text}").is_empty());
}
