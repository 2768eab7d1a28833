//! Embeds what the binary carries: the shipped scenarios (every `scenarios/*.toml`, listed
//! here so a new file ships without naming it in code; `host::scenario::shipped`) and the web
//! viewer, so `sightline export --format html` and `sightline serve` need no file beside the
//! binary.
//!
//! Where the viewer comes from depends on who builds:
//! - A release build (`cargo install --locked --path .`, the README's one command) builds it
//!   here ([`viewer`]): the `ui` panels for `wasm32-unknown-unknown` by a nested cargo in a
//!   target folder of its own, then wasm-bindgen's library at the version Cargo.lock pins.
//!   Its inputs are watched, so a rebuild after `git pull` redoes it only when they changed.
//! - A debug build (`cargo test`, `cargo clippy`, `cargo run` while developing) never builds
//!   it: five people editing `src/` on two cores cannot wait minutes of wasm on every edit.
//!   It embeds the bundle `tools/build-web.sh` wrote (tests/run.sh runs it first), in
//!   `$SIGHTLINE_WEB_BUNDLE`, else `target/web-bundle/`; without one, those two commands say
//!   how to make it.
//! - `SIGHTLINE_WEB=off` builds no viewer; `SIGHTLINE_WEB=build` builds it in any profile.
//!
//! The bundle's folder is watched, never its files: cargo takes a watched path that does not
//! exist for a change, so watching a bundle not built yet would rebuild the crate on every
//! `cargo run`. The folder is made empty when missing; the script's files landing in it change
//! its time, which is what brings the next build back here.

use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "build/viewer.rs"]
mod viewer;

const DAY: Duration = Duration::from_secs(86_400);

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sightline_web_bundle)");
    println!("cargo::rerun-if-env-changed=SIGHTLINE_WEB_BUNDLE");
    println!("cargo::rerun-if-env-changed=SIGHTLINE_WEB");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build/viewer.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    shipped_scenarios(&manifest.join("scenarios"));
    let target = std::env::var("TARGET").unwrap_or_default();
    // The browser build itself embeds nothing, and must not watch the bundle it writes (each
    // build of it would make the next one start again from scratch).
    if target.starts_with("wasm32") {
        return;
    }
    let asked = std::env::var("SIGHTLINE_WEB").unwrap_or_default();
    let given = std::env::var_os("SIGHTLINE_WEB_BUNDLE").filter(|d| !d.is_empty());
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let dir = match asked.as_str() {
        "off" => return,
        "build" => viewer::build(&manifest),
        "" if release && given.is_none() => viewer::build(&manifest),
        "" => Some(prebuilt(&manifest, given)),
        other => {
            println!(
                "cargo::error=SIGHTLINE_WEB={other}: use `build` or `off` (or leave it unset)"
            );
            return;
        }
    };
    let Some(dir) = dir else { return };
    let (js, wasm) = (dir.join("sightline.js"), dir.join("sightline_bg.wasm.gz"));
    if !js.is_file() || !wasm.is_file() {
        return;
    }
    println!("cargo::rustc-cfg=sightline_web_bundle");
    println!(
        "cargo::rustc-env=SIGHTLINE_WEB_BUNDLE_DIR={}",
        dir.display()
    );
}

/// The folder `tools/build-web.sh` writes (`$SIGHTLINE_WEB_BUNDLE`, else `target/web-bundle/`),
/// watched whether or not it holds a bundle yet.
fn prebuilt(manifest: &Path, given: Option<std::ffi::OsString>) -> PathBuf {
    let dir = given.map_or_else(|| manifest.join("target").join("web-bundle"), PathBuf::from);
    let made = !dir.exists();
    // Where the folder cannot be made, nothing is watched but this file: a build with no
    // bundle stays without one until build.rs or the variables change.
    if std::fs::create_dir_all(&dir).is_ok() {
        if made {
            // Dated before this run, or cargo would take the folder just made for a change and
            // build once more for nothing.
            let _ =
                std::fs::File::open(&dir).and_then(|f| f.set_modified(std::time::UNIX_EPOCH + DAY));
        }
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    dir
}

/// Writes `$OUT_DIR/shipped_scenarios.rs`: a slice of `Shipped { name, text }`, `weather`
/// first, then by name, each text an `include_str!` of its file (so cargo watches each file).
fn shipped_scenarios(dir: &Path) {
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut names: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .filter_map(|path| Some((path.file_stem()?.to_str()?.to_string(), path.clone())))
        .collect();
    names.sort_by(|(a, _), (b, _)| (a != "weather", a).cmp(&(b != "weather", b)));
    let mut code = String::from("&[\n");
    for (name, path) in &names {
        let path = path.to_string_lossy();
        code.push_str(&format!(
            "    Shipped {{ name: {name:?}, text: include_str!({path:?}) }},\n"
        ));
    }
    code.push_str("]\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(e) = std::fs::write(out.join("shipped_scenarios.rs"), code) {
        println!("cargo::error=cannot write the shipped scenarios' list: {e}");
    }
}
