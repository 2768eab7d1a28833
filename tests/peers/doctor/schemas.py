#!/usr/bin/env python3
"""schemas.py: one good tool and tools whose definitions providers refuse.

  get_weather        good (type object)
  string_schema      inputSchema {"type": "string"}                       -> schema-not-object
  no_schema          no inputSchema at all                                -> schema-not-object
  bad_type           {"type": "object", "properties": {"a": {"type": 12}}} -> schema-invalid
  long_description   a 1,100-character description -> provider-limit with openai only
"""

import sys

from mcp_stub import GET_WEATHER, result, serve, tools_result

TOOLS = [
    GET_WEATHER,
    {"name": "string_schema", "description": "A bare string", "inputSchema": {"type": "string"}},
    {"name": "no_schema", "description": "No schema at all"},
    {
        "name": "bad_type",
        "description": "A property whose type is a number",
        "inputSchema": {"type": "object", "properties": {"a": {"type": 12}}},
    },
    {
        "name": "long_description",
        "description": "Long. " + "x" * 1094,
        "inputSchema": {"type": "object", "properties": {}},
    },
]

if __name__ == "__main__":
    sys.exit(serve({"tools/list": lambda i, p: result(i, tools_result(TOOLS))}))
