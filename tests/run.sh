#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs the third-party MCP peers the tests
# talk to (npm packages pinned in tests/peers/package-lock.json) and the real hosts
# (tests/hosts/package-lock.json), builds the web viewer
# (tools/build-web.sh, which the binary embeds for `export --format html` and `serve`), runs
# every test, then the web viewer's tests in a real browser (tests/web/run.sh).
# Extra arguments go to `cargo test` (for example a test name filter); with them the browser
# tests are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
if ! need node || ! need npm || ! need python3; then
    echo "tests/run.sh: installing node, npm and python3 with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq nodejs npm python3 >/dev/null
fi

# The npm peers: the TypeScript SDK, server-everything (exact versions from the lockfile).
if ! npm ci --prefix tests/peers --no-audit --no-fund --loglevel=error; then
    echo "tests/run.sh: npm ci failed; the tests that use npm peers cannot run" >&2
    exit 1
fi

# The real hosts tests/real_hosts.rs drives (Claude Code, Codex, Gemini CLI; exact versions from
# tests/hosts/package-lock.json; about 860 MB, 30 s from npm's cache).
if ! npm ci --prefix tests/hosts --no-audit --no-fund --loglevel=error; then
    echo "tests/run.sh: npm ci failed; the real-host tests cannot run" >&2
    exit 1
fi

# A real OTLP backend for tests/otlp_phoenix.rs: Arize Phoenix from PyPI, pinned, in a venv
# under the user's cache (about 2 minutes and 820 MB the first time; reused after that).
PHOENIX_VERSION=20.26.1
PHOENIX_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/sightline/phoenix-$PHOENIX_VERSION"
if [ ! -x "$PHOENIX_VENV/bin/arize-phoenix" ]; then
    python3 -m venv --help >/dev/null 2>&1 || apt-get install -y -qq python3-venv >/dev/null
    echo "tests/run.sh: installing arize-phoenix==$PHOENIX_VERSION into $PHOENIX_VENV" >&2
    python3 -m venv "$PHOENIX_VENV"
    "$PHOENIX_VENV/bin/pip" install -q --disable-pip-version-check "arize-phoenix==$PHOENIX_VERSION"
fi
export SIGHTLINE_PHOENIX="$PHOENIX_VENV/bin/arize-phoenix"

tools/build-web.sh >/dev/null
cargo test --locked "$@"
if [ $# -eq 0 ]; then
    tests/web/run.sh
fi
