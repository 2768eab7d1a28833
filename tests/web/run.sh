#!/usr/bin/env bash
# The web viewer in a real browser: Debian's Chromium, headless, driven by playwright-core
# (pinned in tests/web/package-lock.json). Installs Chromium with apt-get when it is missing,
# builds the web bundle (tools/build-web.sh) and the binary that embeds it, then runs
# tests/web/browser.mjs. Screenshots and measurements.json are kept in target/web-test/.
# Then Sightline's picture beside Mermaid's (tests/mermaid/check.mjs): mermaid-cli, pinned in
# tests/mermaid/package-lock.json and installed by tests/mermaid/install.sh, renders every
# shipped scenario's `export --format mermaid` with the same Chromium; every text it draws
# must be drawn whole by `export --format svg`. Both pictures are kept in target/mermaid-test/.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
    echo "tests/web/run.sh: installing chromium with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
npm ci --prefix tests/web --no-audit --no-fund --loglevel=error

tools/build-web.sh >/dev/null
cargo build --locked --bin sightline

target="${CARGO_TARGET_DIR:-target}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node tests/web/browser.mjs "$target/debug/sightline" "$work" "$target/web-test"
mmdc=$(tests/mermaid/install.sh)
node tests/mermaid/check.mjs "$target/debug/sightline" "$mmdc" "$work/mermaid" "$target/mermaid-test"
