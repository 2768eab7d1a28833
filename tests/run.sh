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

# The installs wait mostly on the network, the builds after them on the CPU: they run side by
# side (minutes on a fresh machine), each install's output kept in a log that is shown only if
# it fails. Whatever is still running when this script ends is stopped.
logs=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs"' EXIT

# The npm peers: the TypeScript SDK, server-everything (exact versions from the lockfile).
npm ci --prefix tests/peers --no-audit --no-fund --loglevel=error >"$logs/peers" 2>&1 &
peers=$!

# The real hosts tests/real_hosts.rs drives (Claude Code, Codex, Gemini CLI; exact versions from
# tests/hosts/package-lock.json; about 860 MB, 30 s from npm's cache).
npm ci --prefix tests/hosts --no-audit --no-fund --loglevel=error >"$logs/hosts" 2>&1 &
hosts=$!

# A real OTLP backend for tests/otlp_phoenix.rs: Arize Phoenix from PyPI, pinned, in a venv
# under the user's cache (about 2 minutes and 820 MB the first time; reused after that).
PHOENIX_VERSION=20.26.1
PHOENIX_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/sightline/phoenix-$PHOENIX_VERSION"
phoenix=
if [ ! -x "$PHOENIX_VENV/bin/arize-phoenix" ]; then
    python3 -m venv --help >/dev/null 2>&1 || apt-get install -y -qq python3-venv >/dev/null
    echo "tests/run.sh: installing arize-phoenix==$PHOENIX_VERSION into $PHOENIX_VENV" >&2
    (
        python3 -m venv "$PHOENIX_VENV"
        "$PHOENIX_VENV/bin/pip" install -q --disable-pip-version-check \
            "arize-phoenix==$PHOENIX_VERSION"
    ) >"$logs/phoenix" 2>&1 &
    phoenix=$!
fi
export SIGHTLINE_PHOENIX="$PHOENIX_VENV/bin/arize-phoenix"

tools/build-web.sh >/dev/null
# The tests built while the installs finish (with arguments, `cargo test` below builds what
# they ask).
[ $# -ne 0 ] || cargo test --locked --no-run

# Waits for the install `$1` (its pid in `$2`); if it failed, says so with its log, and stops.
installed() {
    [ -n "$2" ] || return 0
    if ! wait "$2"; then
        cat "$logs/$1" >&2
        echo "tests/run.sh: installing $1 failed; $3" >&2
        exit 1
    fi
}
installed peers "$peers" "the tests that use npm peers cannot run"
installed hosts "$hosts" "the real-host tests cannot run"
installed phoenix "$phoenix" "the OTLP test against Phoenix cannot run"
cargo test --locked "$@"
if [ $# -eq 0 ]; then
    tests/web/run.sh
fi
