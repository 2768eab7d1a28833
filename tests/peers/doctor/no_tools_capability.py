#!/usr/bin/env python3
"""no_tools_capability.py: initialize advertises {"resources": {}} and no tools; tools/list,
if asked anyway, is answered with the default tool list. Doctor code: no-tools-capability
(the initialize result)."""

import sys

from mcp_stub import init_result, result, serve

if __name__ == "__main__":
    caps = {"resources": {}}
    sys.exit(serve({"initialize": lambda i, p: result(i, init_result(capabilities=caps))}))
