#!/usr/bin/env python3
"""A small MCP stdio server whose answers a test chooses, for replay and diff tests.

`changed_server.py VARIANT`: `weather-a` lists get_weather and get_forecast and answers like
the built-in weather server; `weather-b` has lost get_forecast, added a `units` argument and
answers with other weather; `everything-b` names itself like server-everything but has only
its `echo` tool, and echoes differently. Raw JSON lines, no SDK: the point is a server that
answers differently from the one recorded.
"""

import json
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
    if VARIANT == "weather-a":
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


def answer(msg):
    method = msg.get("method")
    params = msg.get("params") or {}
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


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue
        result = answer(msg)
        if isinstance(result, dict):
            result = {k: v for k, v in result.items() if v is not None}
            out = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        else:
            out = {
                "jsonrpc": "2.0",
                "id": msg["id"],
                "error": {"code": -32601, "message": f"unknown: {msg.get('method')}"},
            }
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
