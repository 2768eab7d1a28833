#!/usr/bin/env bash
# mermaid-cli for tests/mermaid/check.mjs and tools/mermaid-side-by-side.sh, at the exact
# versions of tests/mermaid/package-lock.json: installed once per lockfile under the user's
# cache (about 500 MB, 30 s from npm's cache), so a fresh clone reuses it as tests/run.sh
# reuses Phoenix. Puppeteer downloads no browser (PUPPETEER_SKIP_DOWNLOAD, and
# .puppeteerrc.cjs for an install by hand): mmdc drives Debian's Chromium
# (tests/mermaid/puppeteer-config.json). Prints the path of mmdc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lock=$(sha256sum "$here/package-lock.json" | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/sightline/mermaid-cli-$lock"
if [ ! -x "$dir/node_modules/.bin/mmdc" ]; then
    echo "tests/mermaid/install.sh: installing mermaid-cli into $dir" >&2
    tmp="$dir.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    cp "$here/package.json" "$here/package-lock.json" "$here/.puppeteerrc.cjs" "$tmp/"
    PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix "$tmp" --no-audit --no-fund --loglevel=error >&2
    rm -rf "$dir"
    mv "$tmp" "$dir"
fi
echo "$dir/node_modules/.bin/mmdc"
