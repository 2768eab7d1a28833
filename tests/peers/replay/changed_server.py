#!/usr/bin/env python3
"""A small MCP stdio server whose answers a test chooses, for replay and diff tests.

`changed_server.py VARIANT`: `weather-a` lists get_weather and get_forecast and answers like
the built-in weather server; `weather-b` has lost get_forecast, added a `units` argument and
answers with other weather; `weather-c` lists what `weather-a` does but answers with the
other weather; `everything-b` names itself like server-everything but has only
its `echo` tool, and echoes differently. Raw JSON lines, no SDK: the point is a server that
answers differently from the one recorded.

`changed_server.py VARIANT --http PORT` serves the same answers over Streamable HTTP at
`http://127.0.0.1:PORT/mcp` (JSON responses, one session id, `202` for notifications), and
prints `listening` once it accepts. `refuse-version` answers `initialize` with 2024-11-05
whatever was asked; `reject-http` answers every HTTP request after `initialize` with a bare
`400` (no JSON-RPC body). `mrtr-b` speaks 2026-07-28 with a `confirm_action` tool that
answers `input_required` with a `requestState` minted anew by each run, and completes only a
retry that carries that very state (a stale one is an error).
"""

import json
import secrets
import sys

VARIANT = sys.argv[1] if len(sys.argv) > 1 else "weather-a"

WEATHER = {
    "name": "get_weather",
    "description": "Get current weather information for a location",
    "inputSchema": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}
FORECAST = {
    "name": "get_forecast",
    "description": "Get a three-day forecast for a location",
    "inputSchema": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}


def tools():
    if VARIANT in ("weather-a", "weather-c"):
        return [WEATHER, FORECAST]
    if VARIANT == "weather-b":
        changed = json.loads(json.dumps(WEATHER))
        changed["inputSchema"]["properties"]["units"] = {"type": "string", "enum": ["C", "F"]}
        return [changed]
    return [
        {
            "name": "echo",
            "description": "Echoes back the input",
            "inputSchema": {
                "type": "object",
                "properties": {"message": {"type": "string", "description": "Message to echo"}},
                "required": ["message"],
            },
        }
    ]


def call(params):
    name = params.get("name")
    args = params.get("arguments") or {}
    if VARIANT.startswith("weather") and name == "get_weather":
        where = args.get("location", "?")
        text = f"{where}: 15C, partly cloudy" if VARIANT == "weather-a" else f"{where}: 3C, snow"
        return {"content": [{"type": "text", "text": text}]}
    if name == "echo":
        return {"content": [{"type": "text", "text": f"Echo (changed): {args.get('message')}"}]}
    return None


STATE = "changed/" + secrets.token_hex(8)

CONFIRM = {
    "name": "confirm_action",
    "description": "Ask the user to confirm an action",
    "inputSchema": {
        "type": "object",
        "properties": {"action": {"type": "string"}},
        "required": ["action"],
    },
}


def mrtr(method, params):
    """The 2026-07-28 variant's answers (None: an error)."""
    done = {"resultType": "complete"}
    if method == "server/discover":
        return {**done, "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
    if method in ("resources/list", "prompts/list"):
        return {**done, method.split("/")[0]: []}
    if method == "tools/list":
        return {**done, "tools": [CONFIRM]}
    if method == "tools/call" and params.get("name") == "confirm_action":
        action = (params.get("arguments") or {}).get("action")
        state = params.get("requestState")
        if state is None:
            ask = {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": f"Allow: {action}?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"confirm": {"type": "boolean"}},
                    },
                },
            }
            return {"resultType": "input_required", "inputRequests": {"confirm": ask}, "requestState": STATE}
        if state != STATE:
            return None
        answer = (params.get("inputResponses") or {}).get("confirm") or {}
        text = f"Confirmed ({answer.get('action')}): {action}"
        return {**done, "content": [{"type": "text", "text": text}], "isError": False}
    return None


def answer(msg):
    method = msg.get("method")
    params = msg.get("params") or {}
    if VARIANT == "mrtr-b":
        return mrtr(method, params)
    if method == "initialize":
        name = "weather" if VARIANT.startswith("weather") else "mcp-servers/everything"
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "9.9.9"},
            "instructions": "Use get_weather for current conditions only."
            if VARIANT.startswith("weather")
            else None,
        }
    if method == "tools/list":
        return {"tools": tools()}
    if method == "tools/call":
        return call(params)
    if method == "ping":
        return {}
    return None


def reply(msg):
    """The JSON-RPC answer to a request `msg`."""
    result = answer(msg)
    if isinstance(result, dict):
        result = {k: v for k, v in result.items() if v is not None}
        if VARIANT == "refuse-version" and msg.get("method") == "initialize":
            result["protocolVersion"] = "2024-11-05"
        return {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    return {
        "jsonrpc": "2.0",
        "id": msg["id"],
        "error": {"code": -32601, "message": f"unknown: {msg.get('method')}"},
    }


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg or msg["method"] == "subscriptions/listen":
            continue
        sys.stdout.write(json.dumps(reply(msg)) + "\n")
        sys.stdout.flush()


def serve_http(port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body=b"", content_type=None):
            self.send_response(status)
            self.send_header("Mcp-Session-Id", "changed-session-1")
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            msg = json.loads(self.rfile.read(length) or b"{}")
            if VARIANT == "reject-http" and msg.get("method") != "initialize":
                return self.send(400, b"Bad Request: not today", "text/plain")
            if "id" not in msg or "method" not in msg:
                return self.send(202)
            self.send(200, json.dumps(reply(msg)).encode(), "application/json")

        def do_GET(self):
            self.send(405)

        def do_DELETE(self):
            self.send(200)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if "--http" in sys.argv:
        serve_http(int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        main()
