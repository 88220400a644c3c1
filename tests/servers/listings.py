"""A stdio MCP server whose lists misbehave, for `oma-mcp snapshot` and `check`: what a
snapshot of the whole surface must survive. Standard library only.

Usage:
  listings.py failing       `prompts/list` answers an error (-32603), `resources/list` lists
                            2500 resources over pages of 100, `resources/templates/list` is
                            not implemented (-32601, as a server without templates answers)
  listings.py loop          `resources/list` returns the same cursor on every page
  listings.py working       one prompt and three resources, every list answered
  listings.py no-prompts    as `working`, but `prompts/list` answers an error (-32603)
"""

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "failing"
TOTAL = 2500
PAGE = 100


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def resources(params):
    if MODE == "loop":
        return {"resources": [{"uri": "file:///a", "name": "a"}], "nextCursor": "again"}
    if MODE in ("working", "no-prompts"):
        return {"resources": [{"uri": f"file:///data/{i:04}.csv", "name": f"{i:04}.csv"} for i in range(3)]}
    start = int((params or {}).get("cursor") or 0)
    page = [
        {"uri": f"file:///data/{i:04}.csv", "name": f"{i:04}.csv", "mimeType": "text/csv"}
        for i in range(start, min(start + PAGE, TOTAL))
    ]
    result = {"resources": page}
    if start + PAGE < TOTAL:
        result["nextCursor"] = str(start + PAGE)
    return result


def answer(method, params):
    if method == "initialize":
        return {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "serverInfo": {"name": "listings", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": [{"name": "query", "inputSchema": {"type": "object"}}]}
    if method == "prompts/list":
        if MODE == "working":
            return {"prompts": [{"name": "report", "description": "Writes a report"}]}
        raise RpcError(-32603, "the prompt database is down")
    if method == "resources/list":
        return resources(params)
    if method == "ping":
        return {}
    raise RpcError(-32601, f"Method not found: {method}")


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message or "method" not in message:
        continue
    try:
        reply = {"result": answer(message["method"], message.get("params"))}
    except RpcError as error:
        reply = {"error": {"code": error.code, "message": error.message}}
    reply.update({"jsonrpc": "2.0", "id": message["id"]})
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
