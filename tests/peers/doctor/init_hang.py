#!/usr/bin/env python3
"""init_hang.py: reads initialize and never answers it (exits on stdin EOF).
Doctor code: handshake-failed (the unanswered request; the doctor's probe gives up)."""

import sys

from mcp_stub import serve

if __name__ == "__main__":
    sys.exit(serve({"initialize": lambda i, p: None}))
