#!/usr/bin/env bash
# Regenerates docs/screenshot.png, the README's first picture: the real `sightline run` records
# the weather scenario, and the app draws it headless in a 1600x900 window (SIGHTLINE_SIZE=WxH for another) (egui_kittest through
# wgpu; a software adapter is enough). The same test fails if any label of the picture is cut
# or overlaps another, so the picture cannot go stale silently.
#
#   tools/screenshot.sh                       -> docs/screenshot.png (weather, English)
#   tools/screenshot.sh two-servers pt out.png  -> another scenario, language, file
#   SIGHTLINE_TRACE=tests/fixtures/hosts/claude-code tools/screenshot.sh - en cc.png
#                                             -> a recorded trace or session instead of a run
set -euo pipefail
cd "$(dirname "$0")/.."

scenario="${1:-weather}"
lang="${2:-en}"
out="$(realpath -m "${3:-docs/screenshot.png}")"
SIGHTLINE_SCREENSHOT="$out" SIGHTLINE_SCENARIO="$scenario" SIGHTLINE_LANG="$lang" \
    cargo test --locked --test tests ui_picture::screenshot -- --ignored --exact
echo "wrote $out"
