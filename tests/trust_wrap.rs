//! `sightline wrap` on the files people really have: private modes, symbolic links, read-only
//! files, configs wrapped by a binary of another name, VS Code's JSONC (issue 11, items 7,
//! 14 and 15) and Codex's `config.toml` (issue 34, item 7).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::util::{self, read_json};

fn wrap(args: &[&str]) -> (bool, String, String) {
    let out = util::run(
        Command::new(util::bin()).arg("wrap").args(args),
        Duration::from_secs(30),
    );
    (
        out.status.success(),
        util::text(&out.stdout),
        util::text(&out.stderr),
    )
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Takes the backups away, so an undo has only the proxy's arguments to go by.
fn remove_backups(dir: &Path) {
    for backup in std::fs::read_dir(dir).unwrap() {
        let backup = backup.unwrap().path();
        if backup.to_string_lossy().contains("sightline-backup") {
            std::fs::remove_file(backup).unwrap();
        }
    }
}

fn config_with_a_secret() -> String {
    serde_json::to_string_pretty(&json!({"mcpServers": {"gh": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_TOKEN": "ghp_not_for_other_users"}
    }}}))
    .unwrap()
}

#[test]
fn a_private_config_and_its_backup_stay_private() {
    let dir = util::tempdir();
    let config = dir.path().join("claude_desktop_config.json");
    std::fs::write(&config, config_with_a_secret()).unwrap();
    chmod(&config, 0o600);
    let (ok, _, stderr) = wrap(&[config.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert_eq!(read_json(&config)["mcpServers"]["gh"]["args"][0], "proxy");
    assert_eq!(mode(&config), 0o600, "the config keeps its mode");
    let backup = dir
        .path()
        .join("claude_desktop_config.json.sightline-backup");
    assert_eq!(
        mode(&backup),
        0o600,
        "the backup is no wider than the config"
    );
    chmod(&config, 0o640);
    let (ok, _, stderr) = wrap(&[config.to_str().unwrap(), "--undo"]);
    assert!(ok, "{stderr}");
    assert_eq!(mode(&config), 0o640);
}

#[test]
fn a_symlinked_config_stays_a_link_and_its_target_is_rewritten() {
    let dir = util::tempdir();
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("mcp.json");
    std::fs::write(&target, config_with_a_secret()).unwrap();
    let link = dir.path().join(".mcp.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (ok, _, stderr) = wrap(&[link.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "still a symbolic link");
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    assert_eq!(read_json(&target)["mcpServers"]["gh"]["args"][0], "proxy");
    let stray: Vec<_> = std::fs::read_dir(&dotfiles)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(stray.len(), 1, "no temporary file left: {stray:?}");
}

#[test]
fn a_read_only_config_is_refused_and_left_alone() {
    let dir = util::tempdir();
    let config = dir.path().join("mcp.json");
    let text = config_with_a_secret();
    std::fs::write(&config, &text).unwrap();
    chmod(&config, 0o444);
    let (ok, _, stderr) = wrap(&[config.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("read-only (mode 0444)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
    assert_eq!(mode(&config), 0o444);
    assert!(!dir.path().join("mcp.json.sightline-backup").exists());
}

#[test]
fn a_config_wrapped_by_a_renamed_binary_is_recognised_and_its_backup_kept() {
    let dir = util::tempdir();
    let config = dir.path().join(".mcp.json");
    let wrapped = serde_json::to_string_pretty(&json!({"mcpServers": {"w": {
        "command": "/opt/elsewhere/sl-dev",
        "args": ["proxy", "--name", "w", "--trace", "/tmp/w.jsonl", "--", "node", "w.mjs"]
    }}}))
    .unwrap();
    std::fs::write(&config, &wrapped).unwrap();
    let backup = dir.path().join(".mcp.json.sightline-backup");
    std::fs::write(&backup, "the user's own original").unwrap();

    let (ok, stdout, stderr) = wrap(&[config.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("w: already wrapped"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), wrapped);

    let (ok, stdout, stderr) = wrap(&[config.to_str().unwrap(), "--undo"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("w: restored"), "{stdout}");
    assert_eq!(
        read_json(&config)["mcpServers"]["w"],
        json!({"command": "node", "args": ["w.mjs"]})
    );
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "the user's own original",
        "an existing backup is never overwritten"
    );
    let second = dir.path().join(".mcp.json.sightline-backup.2");
    assert_eq!(std::fs::read_to_string(&second).unwrap(), wrapped);
}

#[test]
fn vs_code_jsonc_keeps_its_comments_and_undoes_byte_for_byte() {
    let dir = util::tempdir();
    let config = dir.path().join("mcp.json");
    let text = "\u{feff}{\n  // Servers for this workspace\n  \"inputs\": [{\"id\": \"n\", \"default\": 1.50e3},],\n  \"servers\": {\n    /* the filesystem one */\n    \"fs\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"${workspaceFolder}\",],\n    },\n    \"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"x\"]},\n  },\n}\n";
    std::fs::write(&config, text).unwrap();
    let (ok, stdout, stderr) = wrap(&[config.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("fs: wrapped"), "{stdout}");
    let wrapped = std::fs::read_to_string(&config).unwrap();
    for kept in [
        "\u{feff}{\n  // Servers for this workspace\n",
        "{\"id\": \"n\", \"default\": 1.50e3},],",
        "/* the filesystem one */",
        "\"${workspaceFolder}\",],\n    },",
    ] {
        assert!(wrapped.contains(kept), "{kept:?} kept in:\n{wrapped}");
    }
    assert!(
        wrapped.contains("\"proxy\", \"--name\", \"fs\""),
        "{wrapped}"
    );
    let (ok, stdout, _) = wrap(&[config.to_str().unwrap()]);
    assert!(ok && stdout.contains("nothing to change"), "{stdout}");

    remove_backups(dir.path());
    let (ok, _, stderr) = wrap(&[config.to_str().unwrap(), "--undo"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text,
        "undone byte for byte, from the proxy's arguments alone"
    );
}

#[test]
fn codex_config_toml_is_wrapped_in_place_and_undone_byte_for_byte() {
    let dir = util::tempdir();
    let config = dir.path().join("config.toml");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wrap/codex-config.toml"),
    )
    .unwrap();
    std::fs::write(&config, &text).unwrap();
    chmod(&config, 0o600);
    let session = dir.path().join("session");
    let (ok, stdout, stderr) = wrap(&[
        config.to_str().unwrap(),
        "--session",
        session.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    for line in ["weather: wrapped", "github: wrapped", "docs: wrapped"] {
        assert!(stdout.contains(line), "{line} in {stdout}");
    }
    let wrapped = std::fs::read_to_string(&config).unwrap();
    assert_eq!(mode(&config), 0o600);
    let value: toml::Table = wrapped.parse().expect("still TOML");
    let weather = &value["mcp_servers"]["weather"];
    assert_eq!(weather["command"].as_str(), Some(util::bin()));
    let args: Vec<&str> = weather["args"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert_eq!(
        args[..5],
        [
            "proxy",
            "--name",
            "weather",
            "--session",
            session.to_str().unwrap()
        ]
    );
    assert_eq!(args[args.len() - 3..], ["--", "node", "weather-server.mjs"]);
    for kept in [
        "# ~/.codex/config.toml as Codex users keep it",
        "base_url = \"http://127.0.0.1:11434/v1\" # ollama\n",
        "env = { WEATHER_UNITS = \"metric\" }\nstartup_timeout_sec = 20\n",
        "    \"-y\",\n    \"@modelcontextprotocol/server-github\",\n]\nenv_vars",
        "[profiles.fast]\nmodel = \"gpt-5.5-mini\"\n",
    ] {
        assert!(wrapped.contains(kept), "{kept:?} kept in:\n{wrapped}");
    }
    let (ok, stdout, _) = wrap(&[config.to_str().unwrap()]);
    assert!(ok && stdout.contains("nothing to change"), "{stdout}");

    remove_backups(dir.path());
    let (ok, stdout, stderr) = wrap(&[config.to_str().unwrap(), "--undo"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("weather: restored"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text,
        "undone byte for byte, from the proxy's arguments alone"
    );

    std::fs::write(&config, "model = \"x\"\n[mcp_servers.w\n").unwrap();
    let (ok, _, stderr) = wrap(&[config.to_str().unwrap()]);
    assert!(
        !ok && stderr.contains("not valid TOML at line 2"),
        "{stderr}"
    );
}

/// `wrap --host NAME` finds the host's config where that host keeps it (here: Linux's
/// `$XDG_CONFIG_HOME` and `$HOME`), the project's before the user's, and says where it looked
/// when there is none.
#[test]
fn wrap_host_finds_the_hosts_config_or_says_where_it_looked() {
    let home = util::tempdir();
    let project = util::tempdir();
    let xdg = home.path().join(".config");
    let run = |args: &[&str]| {
        util::run(
            Command::new(util::bin())
                .arg("wrap")
                .args(args)
                .current_dir(project.path())
                .env("HOME", home.path())
                .env("XDG_CONFIG_HOME", &xdg)
                .env("LANG", "C"),
            Duration::from_secs(30),
        )
    };
    // None yet: every place it looked is named, and nothing is created.
    let out = run(&["--host", "claude-desktop"]);
    assert!(!out.status.success());
    let err = util::text(&out.stderr);
    let expected = xdg.join("Claude").join("claude_desktop_config.json");
    assert!(
        err.contains(&expected.display().to_string()),
        "the error does not name {}: {err}",
        expected.display()
    );
    assert!(!expected.exists());

    std::fs::create_dir_all(expected.parent().unwrap()).unwrap();
    std::fs::write(&expected, config_with_a_secret()).unwrap();
    let out = run(&["--host", "Claude Desktop"]);
    let stdout = util::text(&out.stdout);
    assert!(out.status.success(), "{}", util::text(&out.stderr));
    assert!(stdout.contains(&expected.display().to_string()), "{stdout}");
    let wrapped = read_json(&expected);
    assert_eq!(wrapped["mcpServers"]["gh"]["args"][0], "proxy", "{wrapped}");

    // Cursor: the project's .cursor/mcp.json before the user's ~/.cursor/mcp.json.
    for dir in [project.path(), home.path()] {
        std::fs::create_dir_all(dir.join(".cursor")).unwrap();
        std::fs::write(dir.join(".cursor/mcp.json"), config_with_a_secret()).unwrap();
    }
    assert!(run(&["--host", "cursor"]).status.success());
    assert_eq!(
        read_json(&project.path().join(".cursor/mcp.json"))["mcpServers"]["gh"]["args"][0],
        "proxy"
    );
    assert_eq!(
        read_json(&home.path().join(".cursor/mcp.json"))["mcpServers"]["gh"]["args"][0],
        "-y"
    );

    let out = run(&["--host", "notepad"]);
    assert!(!out.status.success());
    assert!(
        util::text(&out.stderr).contains("claude-desktop"),
        "the known hosts are named"
    );
}
