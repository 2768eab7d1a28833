#!/usr/bin/env python3
"""paged.py: lists get_weather on the first page (nextCursor "2") and get_time on the second.
Doctor: both tools listed, both visible."""

import sys

from mcp_stub import GET_WEATHER, result, serve, tools_result

GET_TIME = {"name": "get_time", "description": "The time", "inputSchema": {"type": "object"}}


def tools_list(req_id, params):
    if params.get("cursor") == "2":
        result(req_id, tools_result([GET_TIME]))
    else:
        result(req_id, {"tools": [GET_WEATHER], "nextCursor": "2"})


if __name__ == "__main__":
    sys.exit(serve({"tools/list": tools_list}))
