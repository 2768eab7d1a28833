//! One run of a real host: its own `HOME`, its config wrapped into a session, its LLM calls
//! through `llm-proxy` to the scripted model, and nothing left running afterwards.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use sightline::trace::Event;

use super::{KEY, PROMPT};
use crate::sessions::{model_behind_llm_proxy, stop};
use crate::util;

/// One host's whole run; each takes a few seconds.
const LIMIT: Duration = Duration::from_secs(90);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    /// Codex with a model it does not know: MCP tools go whole, as a namespace.
    Codex,
    /// Codex with a model it knows can search tools (gpt-5.5): MCP namespaces are deferred
    /// behind its client-run `tool_search`.
    CodexToolSearch,
    GeminiCli,
}

impl Host {
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::CodexToolSearch => "codex-tool-search",
            Host::GeminiCli => "gemini-cli",
        }
    }
}

/// A finished run: what the host printed and the session it left.
pub struct Run {
    pub out: Output,
    pub session: PathBuf,
    pub events: Vec<Event>,
}

fn bin(name: &str) -> PathBuf {
    util::repo("tests/hosts/node_modules/.bin").join(name)
}

fn require_hosts() {
    util::require_npm_peers();
    assert!(
        bin("claude").exists() && bin("codex").exists() && bin("gemini").exists(),
        "the real hosts are not installed: run `tests/run.sh` (or `npm ci --prefix tests/hosts`)"
    );
}

/// The weather server as a host's config names it.
fn weather_server() -> (String, Vec<String>) {
    ("node".into(), vec![util::peer("weather-server.mjs")])
}

/// Runs `host` once in `dir` (its `HOME` is `dir/home`) and returns what it left.
pub fn record(host: Host, dir: &Path) -> Run {
    require_hosts();
    let session = dir.join("session");
    let home = dir.join("home");
    let work = dir.join("work");
    for d in [&home, &work] {
        std::fs::create_dir_all(d).expect("create dirs");
    }
    let session_arg = session.display().to_string();
    let (model, llm, port) = model_behind_llm_proxy(&session_arg);
    let (model, llm) = (Stopped(Some(model)), Stopped(Some(llm)));
    let base = format!("http://127.0.0.1:{port}");
    let (command, args) = weather_server();

    let mut cmd;
    let config = match host {
        Host::ClaudeCode => {
            let config = work.join(".mcp.json");
            let servers = json!({"mcpServers": {"weather": {"command": command, "args": args}}});
            std::fs::write(&config, servers.to_string()).expect("write .mcp.json");
            cmd = Command::new(bin("claude"));
            // A clean environment: the developer's own keys and settings never reach a host.
            cmd.env_clear()
                .args([
                    "-p",
                    PROMPT,
                    "--mcp-config",
                    ".mcp.json",
                    "--strict-mcp-config",
                ])
                .args(["--allowedTools", "mcp__weather__get_weather"])
                .env("ANTHROPIC_BASE_URL", &base)
                .env("ANTHROPIC_API_KEY", KEY)
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_AUTOUPDATER", "1");
            config
        }
        Host::Codex | Host::CodexToolSearch => {
            let config = home.join(".codex/config.toml");
            std::fs::create_dir_all(home.join(".codex")).expect("create .codex");
            // An unknown model name: for models it knows to search tools (gpt-5.5), Codex
            // defers MCP namespaces behind its `tool_search`; otherwise it sends them whole.
            let model = match host {
                Host::CodexToolSearch => "gpt-5.5",
                _ => "scripted",
            };
            let toml = format!(
                "model = \"{model}\"\nmodel_provider = \"scripted\"\n\n\
                 [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{base}/v1\"\n\
                 env_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n\n\
                 [mcp_servers.weather]\ncommand = {command:?}\nargs = {args:?}\n"
            );
            std::fs::write(&config, toml).expect("write config.toml");
            cmd = Command::new(bin("codex"));
            cmd.env_clear()
                .args(["exec", "--skip-git-repo-check"])
                .arg("--dangerously-bypass-approvals-and-sandbox")
                .arg(PROMPT)
                .env("OPENAI_API_KEY", KEY);
            config
        }
        Host::GeminiCli => {
            let config = work.join(".gemini/settings.json");
            std::fs::create_dir_all(work.join(".gemini")).expect("create .gemini");
            std::fs::create_dir_all(home.join(".gemini")).expect("create ~/.gemini");
            let user = json!({"security": {"auth": {"selectedType": "gemini-api-key"},
                                           "folderTrust": {"enabled": false}}});
            std::fs::write(home.join(".gemini/settings.json"), user.to_string())
                .expect("write ~/.gemini/settings.json");
            let servers = json!({"mcpServers": {"weather": {"command": command, "args": args}}});
            std::fs::write(&config, servers.to_string()).expect("write .gemini/settings.json");
            cmd = Command::new(bin("gemini"));
            // A model named: without `-m` Gemini CLI first asks a router model, retrying for
            // over a minute against a stand-in.
            cmd.env_clear()
                .args(["-m", "gemini-2.5-flash", "-p", PROMPT, "--yolo"])
                .env("GOOGLE_GEMINI_BASE_URL", &base)
                .env("GEMINI_API_KEY", KEY)
                // Else it starts itself again with a larger heap: two seconds more.
                .env("GEMINI_CLI_NO_RELAUNCH", "true");
            config
        }
    };
    let wrapped = util::run(
        Command::new(util::bin())
            .arg("wrap")
            .arg(&config)
            .args(["--session", &session_arg]),
        Duration::from_secs(30),
    );
    assert!(wrapped.status.success(), "{}", util::text(&wrapped.stderr));

    cmd.env("HOME", &home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .current_dir(&work);
    let start = Instant::now();
    let out = run_group(&mut cmd, LIMIT);
    let seconds = start.elapsed().as_secs_f64();
    drop((llm, model));
    let events = util::load(&session).events;
    eprintln!("{}: {seconds:.1} s", host.name());
    Run {
        out,
        session,
        events,
    }
}

/// Stops a proxy or the model when the run ends, also when a test fails on the way.
struct Stopped(Option<Child>);

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(child) = self.0.take() {
            stop(child);
        }
    }
}

/// Runs `cmd` in a process group of its own and, once it exits or after `limit`, ends the
/// whole group: the host's servers and helpers are never left running.
fn run_group(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let group = i32::try_from(child.id()).expect("pid");
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        util::wait_with_deadline(child, limit)
    }));
    // SAFETY: signalling the process group this test started.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    out.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
