#!/usr/bin/env bash
# The web viewer's speed in headless Chromium (tests/web/measure.mjs): page load to the first
# drawn diagram (weather, 100,000 events) with its phases, the findings after it, frames while
# scrolling and memory per event, each against a baseline measured in the same run. Not part
# of tests/run.sh or CI (it takes a few minutes of a loaded machine): run it by hand after
# changing the viewer.
#   tests/web/measure.sh [RUNS]        -> target/web-test/measurements.json
# Needs what tests/web/run.sh installs (chromium, playwright-core) and builds the bundle and
# the binary that embeds it.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v chromium >/dev/null 2>&1 || { echo "measure.sh: no chromium (tests/web/run.sh installs it)" >&2; exit 1; }
[ -d tests/web/node_modules/playwright-core ] || npm ci --prefix tests/web --no-audit --no-fund --loglevel=error
tools/build-web.sh >/dev/null
cargo build --locked --bin sightline

target="${CARGO_TARGET_DIR:-target}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node tests/web/measure.mjs "$target/debug/sightline" "$work" "$target/web-test" "${1:-5}"
