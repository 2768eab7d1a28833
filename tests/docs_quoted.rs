//! What the README and docs/ quote is true: every `sightline ...` command they show exists
//! with the flags it is shown with (checked against the command's own `--help`), the workshop
//! plan in docs/workshop.md runs as written, and each output quoted under an
//! `<!-- output of: CMD -->` marker is what CMD prints today (times and pids aside). Also the
//! help texts a newcomer reads first: every demo server, every importer, and the name
//! `doctor -- CMD` gives a probed server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::util::{self, bin, tempdir, text};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, with their text.
fn docs() -> Vec<(PathBuf, String)> {
    let mut paths = vec![repo().join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    paths.extend(more);
    paths
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).expect("readable doc");
            (p, t)
        })
        .collect()
}

/// The lines of the doc's ``` blocks tagged sh, bash or untagged that start with `sightline `.
fn shell_commands(doc: &str) -> Vec<String> {
    let mut inside = false;
    let mut shell = false;
    let mut out = Vec::new();
    for line in doc.lines() {
        if let Some(tag) = line.trim_start().strip_prefix("```") {
            if inside {
                inside = false;
            } else {
                inside = true;
                shell = matches!(tag.trim(), "" | "sh" | "bash");
            }
            continue;
        }
        let line = line.trim();
        if inside && shell && line.starts_with("sightline ") {
            let line = line.split(" #").next().unwrap_or(line);
            out.push(line.trim_end_matches('\\').trim().to_string());
        }
    }
    out
}

/// The commands of the README's usage table: `| `sightline ...` | ... |`.
fn table_commands(doc: &str) -> Vec<String> {
    doc.lines()
        .filter_map(|l| l.strip_prefix("| `sightline "))
        .filter_map(|l| l.split_once("` |").map(|(c, _)| format!("sightline {c}")))
        .map(|c| c.replace("\\|", "|"))
        .collect()
}

fn help_of(words: &[&str]) -> Option<String> {
    let out = util::run(
        Command::new(bin()).args(words).arg("--help"),
        Duration::from_secs(20),
    );
    out.status.success().then(|| text(&out.stdout))
}

/// The subcommand words of a quoted command (`pins check`), and its `--flags`.
fn parse(command: &str) -> (Vec<String>, Vec<String>) {
    let tokens: Vec<&str> = command.split_whitespace().skip(1).collect();
    // Subcommand words: lowercase tokens outside `[...]` groups, until the first argument.
    let mut words: Vec<String> = Vec::new();
    let mut depth = 0i32;
    for t in &tokens {
        let outside = depth == 0 && !t.starts_with('[');
        depth += t.matches('[').count() as i32 - t.matches(']').count() as i32;
        if !outside {
            continue;
        }
        if words.len() == 2
            || !t.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            || t.starts_with('-')
        {
            break;
        }
        words.push(t.to_string());
    }
    let flags = tokens
        .iter()
        .flat_map(|t| t.split(['[', ']', '(', ')', '|', '=']))
        .filter(|t| t.starts_with("--") && t.len() > 2)
        .map(|t| t.trim_end_matches("...").trim_end_matches(',').to_string())
        .collect();
    (words, flags)
}

#[test]
fn every_quoted_command_exists_with_the_flags_it_is_shown_with() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (path, doc) in docs() {
        let mut commands = shell_commands(&doc);
        commands.extend(table_commands(&doc));
        for command in commands {
            let (words, flags) = parse(&command);
            // `pins check`: the longest prefix of words that is a command.
            let mut help = None;
            for n in (0..=words.len()).rev() {
                let w: Vec<&str> = words[..n].iter().map(String::as_str).collect();
                if let Some(h) = help_of(&w) {
                    help = Some((n, h));
                    break;
                }
            }
            let Some((n, mut help)) = help else {
                wrong.push(format!("{}: `{command}`: no such command", path.display()));
                continue;
            };
            if n == 0 && !words.is_empty() {
                wrong.push(format!("{}: `{command}`: no such command", path.display()));
                continue;
            }
            // A parent's options (`pins --pins FILE check`) count too.
            if n == 2 {
                help.push_str(&help_of(&[words[0].as_str()]).unwrap_or_default());
            }
            for flag in flags {
                if flag != "--help" && !help.contains(&flag) {
                    wrong.push(format!("{}: `{command}`: no {flag}", path.display()));
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} quoted commands found");
    assert!(
        wrong.is_empty(),
        "quoted commands that are not true:\n{}",
        wrong.join("\n")
    );
}

/// A directory to run quoted commands in, with `scenarios/` as in a checkout.
fn workdir() -> tempfile::TempDir {
    let dir = tempdir();
    std::os::unix::fs::symlink(repo().join("scenarios"), dir.path().join("scenarios"))
        .expect("symlink scenarios/");
    // docs/hosts.md quotes the doctor on the recorded real-host sessions.
    std::os::unix::fs::symlink(repo().join("tests"), dir.path().join("tests"))
        .expect("symlink tests/");
    dir
}

fn run_quoted(command: &str, dir: &Path) -> std::process::Output {
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    util::run(
        Command::new(bin())
            .args(&args)
            .current_dir(dir)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env("LANG", "C.UTF-8")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES"),
        Duration::from_secs(60),
    )
}

#[test]
fn the_workshop_runs_as_written() {
    let doc = std::fs::read_to_string(repo().join("docs/workshop.md")).expect("docs/workshop.md");
    let dir = workdir();
    let commands = shell_commands(&doc);
    assert!(commands.len() >= 20, "{commands:?}");
    for command in &commands {
        let out = run_quoted(command, dir.path());
        let stderr = text(&out.stderr);
        // 1 is a finding (doctor, poison, pins check), which is what the lesson shows.
        assert!(
            matches!(out.status.code(), Some(0 | 1)) && !stderr.contains("error:"),
            "`{command}` failed ({:?}):\n{stderr}",
            out.status
        );
        if !command.contains(" --out ") {
            assert!(!out.stdout.is_empty(), "`{command}` printed nothing");
        }
    }
    // Lesson 1's handout is there to print.
    let handout = std::fs::read_to_string(dir.path().join("weather.md")).expect("weather.md");
    assert!(handout.contains("```mermaid"), "{handout}");
}

/// What follows the number of an event reference (`#9`, `#10)`, `#12,`): `Some("")`, `Some(")")`.
fn seq_ref(token: &str) -> Option<&str> {
    let rest = token.strip_prefix('#')?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    (end > 0 && rest[end..].chars().all(|c| ")],;:".contains(c))).then(|| &rest[end..])
}

/// A line as compared: times (`+0.012s`, `(3 ms)`), pids and event numbers are whatever they
/// were. A server's stderr is a pipe of its own, so its line lands before or after the answer
/// it wrote at the same moment, and every `seq` after it moves by one (the quoted run of
/// `weather` numbers `initialize`'s result 3 or 4 from run to run).
fn stable(line: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let time = line.split_whitespace().nth(1);
    for (k, token) in line.split_whitespace().enumerate() {
        let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '.');
        let t = match token {
            // A trace line: its `seq`, then its time.
            t if k == 0 && digits(t) && time.is_some_and(|n| n.starts_with('+')) => "SEQ",
            t if seq_ref(t).is_some() => {
                out.push(format!("#SEQ{}", seq_ref(t).unwrap_or_default()));
                continue;
            }
            t if t.starts_with('+') && t.ends_with('s') && digits(&t[1..t.len() - 1]) => "+T",
            t if t.starts_with('(') && digits(&t[1..]) => "(N",
            t if t.ends_with(')')
                && digits(&t[..t.len() - 1])
                && out.last().is_some_and(|p| p == "(pid") =>
            {
                "N)"
            }
            t => t,
        };
        out.push(t.to_string());
    }
    out.join(" ")
}

#[test]
fn quoted_output_is_what_the_command_prints() {
    let mut quoted = 0;
    for (path, doc) in docs() {
        let lines: Vec<&str> = doc.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(command) = line
                .trim()
                .strip_prefix("<!-- output of: ")
                .and_then(|l| l.strip_suffix(" -->"))
            else {
                continue;
            };
            let dir = workdir();
            let out = run_quoted(command, dir.path());
            assert!(out.status.success(), "`{command}`: {}", text(&out.stderr));
            let printed: Vec<String> = text(&out.stdout).lines().map(stable).collect();
            let block = lines[i + 1..]
                .iter()
                .skip(1)
                .take_while(|l| !l.starts_with("```"))
                .filter(|l| l.trim() != "...");
            let mut from = 0;
            for want in block {
                let want = stable(want);
                match printed[from..].iter().position(|p| *p == want) {
                    Some(at) => from += at + 1,
                    None => panic!(
                        "{}: `{command}` no longer prints (in this order):\n{want}\n\nit prints:\n{}",
                        path.display(),
                        text(&out.stdout)
                    ),
                }
                quoted += 1;
            }
        }
    }
    assert!(quoted >= 10, "only {quoted} quoted lines");
}

#[test]
fn the_help_names_every_demo_server_and_importer() {
    let demo = help_of(&["demo-server"]).expect("demo-server --help");
    for name in sightline::servers::NAMES {
        assert!(
            demo.contains(&format!("{name} (")),
            "demo-server --help lacks {name}:\n{demo}"
        );
    }
    let top = help_of(&[]).expect("--help");
    let import = top
        .lines()
        .find(|l| l.trim_start().starts_with("import "))
        .unwrap_or_default();
    assert!(import.contains("Inspector"), "{top}");
}

#[test]
fn doctor_names_a_probed_server_after_its_server_info() {
    // `sh -c` hides the server from the command line: only its serverInfo says `forecast`.
    let script = format!("exec '{}' demo-server forecast", bin());
    let dir = tempdir();
    let out = util::run(
        Command::new(bin())
            .args(["doctor", "--lang", "en", "--trace"])
            .arg(dir.path().join("probe.jsonl"))
            .args(["--", "sh", "-c", &script]),
        Duration::from_secs(30),
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("server forecast (2025-11-25):") && stdout.contains("forecast/get_weather"),
        "{stdout}\n{}",
        text(&out.stderr)
    );
}

/// `sightline completions SHELL` prints a script that names the commands and flags, for the
/// three shells a class uses; bash accepts it as a script.
#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(bin())
            .args(["completions", shell])
            .output()
            .expect("sightline runs");
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for word in ["run", "summary", "doctor", "lang", "set"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let out = Command::new(bin())
        .args(["completions", "tcsh"])
        .output()
        .expect("sightline runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
    let dir = tempdir();
    let script = dir.path().join("sightline.bash");
    let out = Command::new(bin())
        .args(["completions", "bash"])
        .output()
        .expect("sightline runs");
    std::fs::write(&script, &out.stdout).expect("write script");
    let checked = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(checked.status.success(), "{}", text(&checked.stderr));
}

/// `sightline man DIR` (the Debian package's man pages) writes a page per visible command,
/// made from the same definition as `--help`, and none for clap's `help` or hidden commands.
#[test]
fn man_pages_for_every_command() {
    let dir = tempdir();
    let out = Command::new(bin())
        .arg("man")
        .arg(dir.path())
        .output()
        .expect("sightline runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
    let main = page("sightline.1");
    assert!(main.contains(".TH sightline 1"), "{main}");
    assert!(
        main.contains("sightline\\-run(1)"),
        "the main page names its commands"
    );
    let run = page("sightline-run.1");
    let help = help_of(&["run"]).expect("run --help");
    let about = help
        .lines()
        .next()
        .expect("a first line")
        .trim_end_matches('.');
    assert!(run.contains(".TH sightline-run 1"), "{run}");
    assert!(
        run.contains(&about.replace('-', "\\-")),
        "{about} not in {run}"
    );
    assert!(page("sightline-session-watch.1").contains("sightline session watch"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("the pages")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("help") && !n.contains("man")),
        "{names:?}"
    );
}

/// What the docs quote says its plurals in words (`2 tools`, `1 finding`), as the i18n's
/// `{n:one|other}` forms print them: no `tool(s)` in a quoted block of README or docs/.
#[test]
fn quoted_output_says_its_plurals_in_words() {
    let mut found = Vec::new();
    for (path, doc) in docs() {
        let mut inside = false;
        for (n, line) in doc.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                inside = !inside;
                continue;
            }
            if inside && line.contains("(s)") {
                found.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    // The reports the docs quote print words too.
    let dir = tempdir();
    let trace = dir.path().join("weather.jsonl");
    util::run_scenario_to("weather", &trace, &[]);
    let trace = trace.to_str().expect("utf-8 path");
    for args in [
        &["check", trace, "--forbid-tool", "get_weather"][..],
        &["diff", trace, trace],
        &["validate", trace],
        &["doctor", trace],
    ] {
        let out = util::run(
            Command::new(bin()).args(args).env("LANG", "C"),
            Duration::from_secs(60),
        );
        let stdout = text(&out.stdout);
        assert!(
            !stdout.is_empty() && !stdout.contains("(s)"),
            "{args:?}: {stdout}"
        );
    }
}
