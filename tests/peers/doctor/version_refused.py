#!/usr/bin/env python3
"""version_refused.py: refuses the protocol version.

  (no argument)  initialize -> error -32022 "Unsupported protocol version",
                 data {"supported": ["2099-01-01"], "requested": <asked>}
  --answer       initialize -> a result naming protocolVersion "2099-01-01"

Doctor code: protocol-version-refused (the error, or the result)."""

import sys

from mcp_stub import error, init_result, result, serve


def refuse(req_id, params):
    data = {"supported": ["2099-01-01"], "requested": params.get("protocolVersion")}
    error(req_id, -32022, "Unsupported protocol version", data)


def answer_other(req_id, params):
    result(req_id, init_result(version="2099-01-01"))


if __name__ == "__main__":
    handler = answer_other if "--answer" in sys.argv[1:] else refuse
    sys.exit(serve({"initialize": handler}))
