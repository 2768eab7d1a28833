#!/usr/bin/env python3
"""many_tools.py [N]: lists N tools (default 130) named tool_000 .. tool_<N-1>, each with an
empty object schema. Doctor code with --provider openai and N > 128: provider-limit."""

import sys

from mcp_stub import result, serve, tools_result


def tools(n):
    return [
        {
            "name": f"tool_{k:03}",
            "description": f"Tool number {k}",
            "inputSchema": {"type": "object", "properties": {}},
        }
        for k in range(n)
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 130
    sys.exit(serve({"tools/list": lambda i, p: result(i, tools_result(tools(count)))}))
