#!/usr/bin/env python3
"""misbehave.py: a stdio "MCP server" that breaks the stdio framing on purpose.

Python 3.11 standard library only. Usage: python3 misbehave.py

It reads newline-delimited JSON-RPC from stdin and answers on stdout, flushing
after every write. Triggers, each documented with exactly what goes to stdout:

  initialize (request)
      -> a proper result: protocolVersion "2025-11-25", capabilities {"tools": {}},
         serverInfo {"name": "misbehave", "version": "0.1.0"}.
  notifications/initialized
      -> the line {"hello": "world"}  (valid JSON, but not JSON-RPC).
  tools/list (request)
      -> first the line `debug: listing tools` (not JSON at all),
         then a valid result listing the tools "big", "die" and "echo".
  tools/call name "big"
      -> one line of 52,428,800 + ~70 bytes: a valid result whose single text
         content is 50 * 1024 * 1024 'x' characters, streamed in 1 MiB chunks,
         then "\n".
  tools/call name "die"
      -> nothing on stdout; writes `about to die` + "\n" to stderr, then
         SIGKILLs itself (the request is never answered).
  tools/call name "echo", arguments {"text": T}
      -> a valid result with the text T.
  tools/call any other name
      -> a valid result with isError true.
  ping (request)
      -> the first time only: the raw bytes b"\\xff\\xfe not utf8\\n" (a line that
         is not UTF-8), then the empty result {} (every time).
  any other request        -> JSON-RPC error -32601 "Method not found".
  other notifications, responses -> ignored.
  a line that is not JSON  -> JSON-RPC error -32700 with id null.
  stdin EOF                -> exit 0.

Replies are written as compact JSON with keys in the order jsonrpc, id, result.
"""

import json
import os
import signal
import sys

PROTOCOL_VERSION = "2025-11-25"
BIG_LEN = 50 * 1024 * 1024
CHUNK = 1024 * 1024

out = sys.stdout.buffer


def write_raw(data: bytes) -> None:
    out.write(data)
    out.flush()


def write_msg(msg: dict) -> None:
    write_raw(json.dumps(msg, separators=(",", ":")).encode("utf-8") + b"\n")


def result(req_id, res: dict) -> None:
    write_msg({"jsonrpc": "2.0", "id": req_id, "result": res})


def error(req_id, code: int, message: str) -> None:
    write_msg({"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}})


def text_result(req_id, text: str, is_error: bool = False) -> None:
    res = {"content": [{"type": "text", "text": text}]}
    if is_error:
        res["isError"] = True
    result(req_id, res)


TOOLS = [
    {
        "name": "big",
        "description": "Answers with one 50 MiB line",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "die",
        "description": "Kills the server with SIGKILL without answering",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "echo",
        "description": "Echoes the text argument",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]


def write_big(req_id) -> None:
    """Stream a valid JSON-RPC result whose text is BIG_LEN 'x' characters."""
    head = '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(req_id)
    out.write(head.encode("utf-8"))
    chunk = b"x" * CHUNK
    left = BIG_LEN
    while left > 0:
        n = min(left, CHUNK)
        out.write(chunk if n == CHUNK else chunk[:n])
        left -= n
    out.write(b'"}]}}\n')
    out.flush()


def main() -> int:
    pinged = False
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            error(None, -32700, "Parse error")
            continue
        if not isinstance(msg, dict):
            error(None, -32600, "Invalid Request")
            continue
        method = msg.get("method")
        has_id = "id" in msg
        req_id = msg.get("id")
        if method is None:
            continue  # a response from the client: ignored
        if not has_id:
            if method == "notifications/initialized":
                write_raw(b'{"hello": "world"}\n')
            continue  # other notifications: ignored
        params = msg.get("params") or {}
        if method == "initialize":
            result(
                req_id,
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehave", "version": "0.1.0"},
                },
            )
        elif method == "tools/list":
            write_raw(b"debug: listing tools\n")
            result(req_id, {"tools": TOOLS})
        elif method == "tools/call":
            name = params.get("name")
            args = params.get("arguments") or {}
            if name == "big":
                write_big(req_id)
            elif name == "die":
                sys.stderr.write("about to die\n")
                sys.stderr.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            elif name == "echo":
                text_result(req_id, str(args.get("text", "")))
            else:
                text_result(req_id, f"unknown tool: {name}", is_error=True)
        elif method == "ping":
            if not pinged:
                pinged = True
                write_raw(b"\xff\xfe not utf8\n")
            result(req_id, {})
        else:
            error(req_id, -32601, "Method not found")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The reader went away: exit 1 quietly, with no traceback on stderr.
        os._exit(1)
    except KeyboardInterrupt:
        os._exit(130)
