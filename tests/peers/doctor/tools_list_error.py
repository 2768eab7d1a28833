#!/usr/bin/env python3
"""tools_list_error.py: answers tools/list with JSON-RPC error -32603 "tool registry failed".
Doctor code: tools-list-error (the error response)."""

import sys

from mcp_stub import error, serve

if __name__ == "__main__":
    sys.exit(serve({"tools/list": lambda i, p: error(i, -32603, "tool registry failed")}))
