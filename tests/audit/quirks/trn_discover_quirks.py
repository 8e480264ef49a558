"""A stdio server whose discovery a review found misread (TRN-018).

``--silent-discover``: it serves 2026-07-28 requests (``tools/list`` in that envelope gets a result with
``resultType``) and answers ``initialize``, but never answers ``server/discover``: a dual-era client waits, then
takes it for a legacy server. TRN-018 must FAIL it, not call it legacy.

``--other-versions``: a handshake-era server (``tools/list`` results carry no ``resultType``) that answers
``server/discover`` with a well-formed result listing only 2025-11-25. It does not serve 2026-07-28, so TRN-018
does not apply to it.
"""

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "--silent-discover"
TOOLS = [{"name": "echo_text", "description": "Return the text you send, unchanged.",
          "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]


def answer(message):
    method, rid = message.get("method"), message.get("id")
    if "id" not in message:
        return None
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    modern = isinstance(params.get("_meta"), dict) and "io.modelcontextprotocol/protocolVersion" in params["_meta"]
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "discover-quirks", "version": "1.0"}}
    elif method == "server/discover":
        if MODE == "--silent-discover":
            return None  # never answered
        result = {"supportedVersions": ["2025-11-25"], "capabilities": {"tools": {}}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
        if modern and MODE == "--silent-discover":
            result["resultType"] = "complete"
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {str(method)[:60]}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


for line in sys.stdin:
    try:
        incoming = json.loads(line)
    except ValueError:
        continue
    reply = answer(incoming) if isinstance(incoming, dict) else None
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
