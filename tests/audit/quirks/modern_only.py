"""A stdio server that speaks 2026-07-28 only: no ``initialize`` handshake, ``ping`` removed, the envelope in
``params._meta`` required on every request. Otherwise the tiny server's two tools, correctly described.

``initialize`` is refused with -32022 naming the one revision it serves (2026-07-28 basic/versioning), so a
dual-era client knows to speak 2026-07-28; the auditor must then audit it in that era, not call it silent.
"""

import json
import sys

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
TOOLS = [
    {"name": "echo_text", "title": "Echo text",
     "description": "Return the text you send, unchanged, as one text block.\n\nUse it to check that a client reaches "
                    "the server and reads its answers. It reads and writes nothing.",
     "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
     "inputSchema": {"type": "object", "additionalProperties": False, "required": ["text"],
                     "properties": {"text": {"type": "string", "maxLength": 1000, "description": "The text to send back."}}}},
]


def error(rid, code, message, data=None):
    body = {"code": code, "message": message, **({"data": data} if data is not None else {})}
    return {"jsonrpc": "2.0", "id": rid, "error": body}


def answer(message):
    method, rid = message.get("method"), message.get("id")
    if "id" not in message:
        return None
    if not isinstance(method, str):
        return error(rid, -32600, "Invalid Request")
    if method == "initialize":
        return error(rid, -32022, "Unsupported protocol version", {"supported": ["2026-07-28"],
                                                                  "requested": (message.get("params") or {}).get("protocolVersion")})
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    if VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
        return error(rid, -32602, f"Invalid params: params._meta must carry {VERSION_KEY} and {CAPABILITIES_KEY}")
    if meta[VERSION_KEY] != "2026-07-28":
        return error(rid, -32022, "Unsupported protocol version", {"supported": ["2026-07-28"], "requested": meta[VERSION_KEY]})
    if method == "server/discover":
        result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 60000, "cacheScope": "public",
                  "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-only", "version": "1.0"}}}
    elif method == "tools/list":
        if params.get("cursor") is not None:
            return error(rid, -32602, "Invalid params: unknown cursor")
        result = {"tools": TOOLS, "ttlMs": 60000, "cacheScope": "public"}
    elif method == "tools/call":
        arguments = params.get("arguments")
        if params.get("name") != "echo_text":
            return error(rid, -32602, f"Invalid params: unknown tool {str(params.get('name'))[:60]!r}")
        if not isinstance(arguments, dict):
            return error(rid, -32602, "Invalid params: arguments must be an object")
        if not isinstance(arguments.get("text"), str) or set(arguments) - {"text"}:
            return {"jsonrpc": "2.0", "id": rid, "result": {"isError": True, "content": [{"type": "text", "text":
                    "Invalid arguments: send {\"text\": \"...\"}, a string of at most 1000 characters. Action: fix the "
                    "arguments and call again."}]}}
        result = {"content": [{"type": "text", "text": arguments["text"][:1000]}]}
    else:
        return error(rid, -32601, f"Method not found: {method[:60]}")
    return {"jsonrpc": "2.0", "id": rid, "result": {**result, "resultType": "complete"}}


for line in sys.stdin:
    try:
        incoming = json.loads(line)
    except ValueError:
        reply = error(None, -32700, "Parse error")
    else:
        reply = answer(incoming) if isinstance(incoming, dict) else error(None, -32600, "Invalid Request")
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
