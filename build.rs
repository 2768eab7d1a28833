//! Embeds the web viewer (`tools/build-web.sh`'s output) into the native binary when it has
//! been built, so `sightline export --format html` and `sightline serve` need no file beside
//! the binary. Without a bundle the binary still builds; those two commands then say how to
//! make one. The bundle is looked for in `$SIGHTLINE_WEB_BUNDLE`, else `target/web-bundle/`
//! of this package (where the script writes it, also for `cargo install --path .`).

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sightline_web_bundle)");
    println!("cargo::rerun-if-env-changed=SIGHTLINE_WEB_BUNDLE");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = std::env::var_os("SIGHTLINE_WEB_BUNDLE")
        .filter(|d| !d.is_empty())
        .map_or_else(|| manifest.join("target").join("web-bundle"), PathBuf::from);
    let target = std::env::var("TARGET").unwrap_or_default();
    // The browser build itself embeds nothing, and must not watch the bundle it writes (each
    // build of it would make the next one start again from scratch).
    if target.starts_with("wasm32") {
        println!("cargo::rerun-if-changed=build.rs");
        return;
    }
    let (js, wasm) = (dir.join("sightline.js"), dir.join("sightline_bg.wasm.gz"));
    println!("cargo::rerun-if-changed={}", js.display());
    println!("cargo::rerun-if-changed={}", wasm.display());
    if !js.is_file() || !wasm.is_file() {
        return;
    }
    println!("cargo::rustc-cfg=sightline_web_bundle");
    println!(
        "cargo::rustc-env=SIGHTLINE_WEB_BUNDLE_DIR={}",
        dir.display()
    );
}
