"""mcp_stub.py: the smallest stdio MCP server loop, shared by the doctor's misbehaving servers.

Python 3.11 standard library only. Each server in this folder imports it, overrides the
handlers it misbehaves in, and calls serve(). Defaults:

  initialize  -> protocolVersion "2025-11-25", capabilities {"tools": {}},
                 serverInfo {"name": <script name>, "version": "0.1.0"}
  tools/list  -> {"tools": [get_weather]}
  ping        -> {}
  any other request -> error -32601 "Method not found"
  notifications, responses, lines that are not JSON -> ignored
  stdin EOF   -> exit 0

Every message is one compact JSON line on stdout, flushed at once.
"""

import json
import os
import sys

NAME = os.path.splitext(os.path.basename(sys.argv[0]))[0]

GET_WEATHER = {
    "name": "get_weather",
    "description": "Get current weather information for a location",
    "inputSchema": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}


def write(msg):
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def result(req_id, res):
    write({"jsonrpc": "2.0", "id": req_id, "result": res})


def error(req_id, code, message, data=None):
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    write({"jsonrpc": "2.0", "id": req_id, "error": err})


def stderr(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def init_result(capabilities=None, version="2025-11-25"):
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {}} if capabilities is None else capabilities,
        "serverInfo": {"name": NAME, "version": "0.1.0"},
    }


def tools_result(tools):
    return {"tools": tools}


DEFAULTS = {
    "initialize": lambda req_id, params: result(req_id, init_result()),
    "tools/list": lambda req_id, params: result(req_id, tools_result([GET_WEATHER])),
    "ping": lambda req_id, params: result(req_id, {}),
}


def serve(handlers=None):
    """Answers requests from stdin until EOF; `handlers` maps a method to f(id, params)."""
    table = dict(DEFAULTS)
    table.update(handlers or {})
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
            continue
        handler = table.get(msg["method"])
        if handler is None:
            error(msg["id"], -32601, "Method not found")
        else:
            handler(msg["id"], msg.get("params") or {})
    return 0
