#!/usr/bin/env python3
"""crash_on_list.py: answers initialize, then on tools/list writes six lines to stderr
("loading plugin 1" .. "loading plugin 5", "fatal: plugin 6 is missing") and exits with
code 3 without answering. Doctor code: server-crashed (the exit event, the last five stderr
lines)."""

import sys

from mcp_stub import serve, stderr


def tools_list(req_id, params):
    for n in range(1, 6):
        stderr(f"loading plugin {n}")
    stderr("fatal: plugin 6 is missing")
    sys.exit(3)


if __name__ == "__main__":
    sys.exit(serve({"tools/list": tools_list}))
