#!/usr/bin/env bash
# Builds the web viewer: the `ui` panels compiled to WebAssembly, with wasm-bindgen's glue.
#
#   tools/build-web.sh            -> target/web-bundle/{sightline.js, sightline_bg.wasm, sightline_bg.wasm.gz}
#
# The native binary embeds that bundle when it is built afterwards (build.rs), which is what
# `sightline export --format html` and `sightline serve` need; so after this script, build (or
# `cargo install --path .`) again. Installs what it needs, pinned and only when missing: the
# rustup target wasm32-unknown-unknown and wasm-bindgen-cli at the version of the
# wasm-bindgen crate in Cargo.lock (they must be equal).
set -euo pipefail
cd "$(dirname "$0")/.."

out="${SIGHTLINE_WEB_BUNDLE:-target/web-bundle}"
# The wasm-bindgen crate's version, as Cargo.lock pins it.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$want" ] || { echo "build-web: no wasm-bindgen in Cargo.lock" >&2; exit 1; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "build-web: installing wasm-bindgen-cli $want (found: ${have:-none})" >&2
  # Not --locked: the tool's own lock file names crate versions this registry may not have.
  cargo install wasm-bindgen-cli --version "$want"
fi

# The viewer alone (no `native` feature), as a cdylib, without giving the native build one.
cargo rustc --locked --lib --profile web --target wasm32-unknown-unknown \
  --no-default-features --features web --crate-type cdylib
wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/sightline.wasm"

mkdir -p "$out"
# SIGHTLINE_WEB_NAMES=1 keeps the functions' names (for tests/web/profile.mjs; 10% larger).
names=--remove-name-section
[ "${SIGHTLINE_WEB_NAMES:-}" = 1 ] && names=
wasm-bindgen --target web --no-typescript $names --remove-producers-section --out-dir "$out" --out-name sightline "$wasm"
# No wasm-opt: Debian's binaryen (108, bookworm) breaks this module even when it only reads and
# writes it (the export `__wbindgen_externrefs` comes out naming the funcref table, and the page
# stops with "WebAssembly.Table.set(): Argument 1 is invalid for table"); -Os of a newer one
# would save 0.4% of the compressed module (2,755,756 -> 2,743,803 bytes, measured 2026-12-02).
# The pages carry the module gzip-compressed (export::html); compressed once here, at the best
# level, rather than at every export. -n: no name or time in it, so equal builds give equal files.
gzip -9 -n -c "$out/sightline_bg.wasm" > "$out/sightline_bg.wasm.gz"
ls -l "$out"
