#!/usr/bin/env bash
# Regenerates docs/mermaid-side-by-side/: one recorded run drawn by Mermaid (mermaid-cli, pinned
# in tests/mermaid/, driving Debian's Chromium) from `export --format mermaid`, and by Sightline
# (`export --format svg`), so the two pictures of the same trace can be compared. The suite's
# tests/mermaid/check.mjs checks, for every scenario and language, that ours draws every text
# Mermaid's does.
#
#   tools/mermaid-side-by-side.sh               -> docs/mermaid-side-by-side/weather.{mermaid,sightline}.svg
#   tools/mermaid-side-by-side.sh two-servers pt DIR  -> another scenario, language, folder
set -euo pipefail
cd "$(dirname "$0")/.."

scenario="${1:-weather}"
lang="${2:-en}"
out="${3:-docs/mermaid-side-by-side}"
command -v chromium >/dev/null 2>&1 || { echo "mermaid-side-by-side.sh: no chromium (tests/web/run.sh installs it)" >&2; exit 1; }
mmdc=$(tests/mermaid/install.sh)
cargo build --locked --bin sightline
sightline="${CARGO_TARGET_DIR:-target}/debug/sightline"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
"$sightline" run "$scenario" --lang "$lang" --trace "$work/trace.jsonl" >/dev/null
"$sightline" export "$work/trace.jsonl" --format mermaid --lang "$lang" --out "$work/trace.mmd"
"$sightline" export "$work/trace.jsonl" --format svg --lang "$lang" --out "$out/$scenario.sightline.svg"
"$mmdc" -q -p tests/mermaid/puppeteer-config.json -i "$work/trace.mmd" -o "$out/$scenario.mermaid.svg"
ls -l "$out/$scenario".*.svg | awk '{print "wrote " $NF " (" $5 " bytes)"}'
