//! The web viewer built by `build.rs` for a release build: the crate's `ui` for
//! `wasm32-unknown-unknown` (no `native` feature, profile `web`: small over fast), by a nested
//! cargo in a target folder of its own beside this build's (its lock is not the one this build
//! holds, and a second `cargo install` after `git pull` reuses what it compiled), then
//! wasm-bindgen's glue by its library (`wasm-bindgen-cli-support`, pinned equal to the
//! `wasm-bindgen` crate; `tools/build-web.sh` does the same with the CLI), then the module
//! gzip-compressed as the pages carry it. What it reads is watched, so nothing is redone when
//! nothing changed.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const WASM: &str = "wasm32-unknown-unknown";

/// Builds the bundle into `$OUT_DIR/web-bundle` and returns that folder; `None` (with a
/// `cargo::error` line) when it cannot.
pub fn build(manifest: &Path) -> Option<PathBuf> {
    for input in ["src", "assets", "Cargo.toml", "Cargo.lock"] {
        println!("cargo::rerun-if-changed={}", manifest.join(input).display());
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR")?);
    if let Err(missing) = wasm_target() {
        println!("cargo::error={missing}");
        return None;
    }
    let target_dir = own_target_dir(&out);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut nested = Command::new(cargo);
    nested
        .current_dir(manifest)
        .args(["rustc", "--lib", "--profile", "web", "--target", WASM])
        .args([
            "--no-default-features",
            "--features",
            "web",
            "--crate-type",
            "cdylib",
        ])
        .arg("--manifest-path")
        .arg(manifest.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // This build's flags are for the native target; the wasm build takes none of them.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        // Cargo reads this build script's stdout for its instructions: the nested cargo's
        // own output goes to stderr.
        .stdout(Stdio::from(std::io::stderr()));
    if manifest.join("Cargo.lock").is_file() {
        nested.arg("--locked");
    }
    match nested.status() {
        Ok(status) if status.success() => {}
        Ok(status) => {
            println!(
                "cargo::error=the web viewer's wasm build failed ({status}); its output is above. SIGHTLINE_WEB=off builds sightline without the viewer"
            );
            return None;
        }
        Err(e) => {
            println!("cargo::error=cannot start cargo for the web viewer's wasm build: {e}");
            return None;
        }
    }
    let wasm = target_dir.join(WASM).join("web").join("sightline.wasm");
    let bundle = out.join("web-bundle");
    match bindgen(&wasm, &bundle) {
        Ok(()) => Some(bundle),
        Err(e) => {
            println!("cargo::error=wasm-bindgen on {}: {e}", wasm.display());
            None
        }
    }
}

/// The glue and the module (names and producers removed, as `tools/build-web.sh` does), then
/// the module gzip-compressed at the best level.
fn bindgen(wasm: &Path, bundle: &Path) -> Result<(), String> {
    std::fs::create_dir_all(bundle).map_err(|e| e.to_string())?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(wasm)
        .web(true)
        .map_err(|e| e.to_string())?
        .typescript(false)
        .remove_name_section(true)
        .remove_producers_section(true)
        .out_name("sightline")
        .generate(bundle)
        .map_err(|e| format!("{e:#}"))?;
    let module = std::fs::read(bundle.join("sightline_bg.wasm")).map_err(|e| e.to_string())?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&module).map_err(|e| e.to_string())?;
    let gz = gz.finish().map_err(|e| e.to_string())?;
    std::fs::write(bundle.join("sightline_bg.wasm.gz"), gz).map_err(|e| e.to_string())
}

/// `Ok` when the standard library for wasm32 is installed; where it is not and rustup is
/// there, it is added (as `tools/build-web.sh` does); else one line says what is missing.
fn wasm_target() -> Result<(), String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let installed = || {
        Command::new(&rustc)
            .args(["--print", "target-libdir", "--target", WASM])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .is_some_and(|dir| dir.read_dir().is_ok_and(|mut d| d.next().is_some()))
    };
    if installed() {
        return Ok(());
    }
    let mut rustup = Command::new("rustup");
    rustup.args(["target", "add", WASM]);
    if let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") {
        rustup.arg("--toolchain").arg(toolchain);
    }
    let added = rustup
        .stdout(Stdio::from(std::io::stderr()))
        .status()
        .is_ok_and(|s| s.success());
    if added && installed() {
        return Ok(());
    }
    Err(format!(
        "the web viewer needs Rust's {WASM} target, which is not installed and could not be added: run `rustup target add {WASM}` (online), then install again; or set SIGHTLINE_WEB=off to build sightline without the viewer"
    ))
}

/// `sightline-web` beside the profile folders of this build's target folder (`OUT_DIR` is
/// `TARGET_DIR/[TRIPLE/]PROFILE/build/sightline-HASH/out`), else inside `OUT_DIR`.
fn own_target_dir(out: &Path) -> PathBuf {
    out.ancestors()
        .nth(3)
        .filter(|profile| {
            out.ancestors().nth(2).is_some_and(|b| b.ends_with("build"))
                && profile.parent().is_some()
        })
        .and_then(Path::parent)
        .map_or_else(
            || out.join("sightline-web"),
            |dir| dir.join("sightline-web"),
        )
}
