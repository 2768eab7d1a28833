#!/usr/bin/env bash
# Builds the web viewer: the `ui` panels compiled to WebAssembly, with wasm-bindgen's glue,
# then shrunk by binaryen's wasm-opt.
#
#   tools/build-web.sh            -> target/web-bundle/{sightline.js, sightline_bg.wasm, sightline_bg.wasm.gz}
#
# The native binary embeds that bundle when it is built afterwards (build.rs), which is what
# `sightline export --format html` and `sightline serve` need; so after this script, build (or
# `cargo install --path .`) again. Installs what it needs, pinned and only when missing: the
# rustup target wasm32-unknown-unknown and wasm-bindgen-cli at the version of the
# wasm-bindgen crate in Cargo.lock (they must be equal), and binaryen (wasm-opt) from the
# distribution's packages (apt-get; version 108 or later).
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

# binaryen: Debian's package (bookworm has 108), installed by name like the other tools the
# tests install (tests/run.sh); an older wasm-opt may not know the features the module uses.
wasm_opt_min=108
opt_version() { wasm-opt --version 2>/dev/null | awk '{ print $3 }'; }
if ! command -v wasm-opt >/dev/null 2>&1; then
  echo "build-web: installing binaryen (wasm-opt) with apt-get" >&2
  apt-get update -qq && apt-get install -y -qq binaryen >/dev/null
fi
opt_have=$(opt_version)
if ! [ "${opt_have:-0}" -ge "$wasm_opt_min" ] 2>/dev/null; then
  echo "build-web: wasm-opt ${opt_have:-not found} is older than $wasm_opt_min (install binaryen $wasm_opt_min or later)" >&2
  exit 1
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
# Optimized for size again, by binaryen, which knows WebAssembly better than LLVM's back end
# (README: the sizes with and without). The features are those rustc's wasm32 target enables
# by default; wasm-opt refuses a module that uses one it was not told of. SIGHTLINE_WEB_NAMES
# keeps the names here too (--debuginfo).
keep=
[ -z "$names" ] && keep=--debuginfo
wasm-opt -Os $keep --enable-bulk-memory --enable-multivalue --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-reference-types --enable-sign-ext \
  -o "$out/sightline_bg.opt.wasm" "$out/sightline_bg.wasm"
mv "$out/sightline_bg.opt.wasm" "$out/sightline_bg.wasm"
# The pages carry the module gzip-compressed (export::html); compressed once here, at the best
# level, rather than at every export. -n: no name or time in it, so equal builds give equal files.
gzip -9 -n -c "$out/sightline_bg.wasm" > "$out/sightline_bg.wasm.gz"
ls -l "$out"
