#!/usr/bin/env python3
"""init_error.py: answers initialize with JSON-RPC error -32603 "database unavailable".
Doctor code: handshake-failed (the error response)."""

import sys

from mcp_stub import error, serve

if __name__ == "__main__":
    sys.exit(serve({"initialize": lambda i, p: error(i, -32603, "database unavailable")}))
