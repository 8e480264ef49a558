"""A stdio server for readings a review found wrong in three operations probes.

* ``tools/list`` returns its one tool on one page and ignores any cursor: it does not page, so OPS-004 does not
  apply to it (N/A), whatever it does with a cursor it never issued.
* ``--unknown-level-code N``: it declares ``logging`` and honours ``logging/setLevel``, and answers an unknown level
  with error code N (default -32602; the TypeScript SDKs answer -32603). OPS-009 must FAIL anything but -32602.
* ``--level-case upper|lower``: every stderr line is one JSON event with ``ts``, ``level``, ``event``; ``upper``
  writes Python's ``WARNING`` instead of the protocol's ``warning``, which OPS-008 (like OPS-009) must FAIL.
* ``--subscribe missing|served``: it advertises ``resources: {subscribe: true}`` and serves one resource; ``missing``
  answers ``resources/subscribe`` with -32601 (GitHub's Go server 0.12.1 does), which OPS-003 must FAIL.
"""

import argparse
import json
import sys
import time

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
TOOLS = [{"name": "server_time", "description": "Return the server's clock as an ISO 8601 UTC time.",
          "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
          "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}}]

parser = argparse.ArgumentParser()
parser.add_argument("--unknown-level-code", type=int, default=-32602)
parser.add_argument("--level-case", choices=("upper", "lower"), default="lower")
parser.add_argument("--subscribe", choices=("missing", "served"))
options = parser.parse_args()
client_rank = None


def stderr(level, event, **fields):
    name = level.upper() if options.level_case == "upper" else level
    record = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "level": name, "event": event, **fields}
    sys.stderr.write(json.dumps(record) + "\n")
    sys.stderr.flush()


def write(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(level, event):
    stderr(level, event)
    if client_rank is not None and LEVELS.index(level) >= client_rank:
        write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "data": {"event": event}}})


def error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def answer(message):
    global client_rank
    method, rid = message.get("method"), message.get("id")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if "id" not in message:
        if method == "notifications/cancelled":
            log("debug", "cancel_for_unknown_request")
        return None
    if method == "initialize":
        capabilities = {"tools": {}, "logging": {}, **({"resources": {"subscribe": True}} if options.subscribe else {})}
        result = {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                  "serverInfo": {"name": "ops-quirks", "version": "1.0"}}
    elif method == "resources/list" and options.subscribe:
        result = {"resources": [{"uri": "note://today", "name": "today", "mimeType": "text/plain"}]}
    elif method in ("resources/subscribe", "resources/unsubscribe") and options.subscribe == "served":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}  # one page; a cursor is ignored
    elif method == "logging/setLevel":
        if params.get("level") not in LEVELS:
            log("warning", "unknown_level")
            return error(rid, options.unknown_level_code, "Invalid params: unknown level")
        client_rank = LEVELS.index(params["level"])
        result = {}
    elif method == "tools/call":
        log("debug", "call_started")
        if params.get("name") != "server_time":
            log("error", "unknown_tool")
            return error(rid, -32602, "Unknown tool")
        result = {"content": [{"type": "text", "text": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]}
    elif method == "ping":
        result = {}
    else:
        log("warning", "unknown_method")
        return error(rid, -32601, "Method not found")
    return {"jsonrpc": "2.0", "id": rid, "result": result}


stderr("info", "started")
for line in sys.stdin:
    try:
        incoming = json.loads(line)
    except ValueError:
        continue
    reply = answer(incoming) if isinstance(incoming, dict) else None
    if reply is not None:
        write(reply)
stderr("info", "stopped")
